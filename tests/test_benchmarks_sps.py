"""Smoke test of benchmarks/sps.py: a --quick run writes every row (the core's, the compiled heuristic's, the
vector envs', the TorchRL envs', In the Cave's, the references') with positive step rates (no speed threshold)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest



def load_sps(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    import benchmarks.sps

    return benchmarks.sps


def test_quick_run_writes_every_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sps = load_sps(monkeypatch)
    out = tmp_path / "x.json"
    returned = sps.main(["--quick", "--out", str(out)])
    data = json.loads(out.read_text())
    assert data == json.loads(json.dumps(returned))
    assert {"platform", "cpu_count", "python", "numpy"} <= data["machine"].keys()

    rows = {(r["name"], r["batch"]): r for r in data["rows"]}
    expected = {("subterra AEC env (PettingZoo)", 1), ("SB3 VecEnv", 256), ("gymnasium VectorEnv", 256),
                ("connect_four_v3", 1), ("hanabi_v5 players=4", 1), ("TorchRL PettingZooWrapper", 1)}
    expected |= {("TorchRL env (native)", b) for b in sps.TORCHRL_BATCHES}
    expected |= {(f"core {v}", b) for v in ("step+mask", "step+mask+obs") for b in sps.QUICK_BATCHES}
    expected |= {("core step+mask+obs, separate kernels", max(sps.QUICK_BATCHES)),
                 ("core step+mask+obs, radius 2", max(sps.QUICK_BATCHES)),
                 ("core observation bytes alone (zeroed, no rules)", max(sps.QUICK_BATCHES))}
    expected |= {("in_the_cave AEC env (PettingZoo)", 1), ("in_the_cave core step+mask", 1),
                 ("in_the_cave core step+mask", max(sps.QUICK_BATCHES))}
    for name in ("annihilation", "extraction", "investigation"):
        expected |= {(f"{name} AEC env (PettingZoo)", 1), (f"{name} core step+mask+obs", 1),
                     (f"{name} core step+mask+obs", max(sps.QUICK_BATCHES))}
    expected |= {("heuristic decide", max(sps.QUICK_BATCHES)), ("heuristic decide", 1),
                 ("heuristic team, whole games", max(sps.QUICK_BATCHES))}
    if sps.numba.get_num_threads() > 1:  # the largest batch once more on one thread
        expected |= {("core step+mask, 1 thread", max(sps.QUICK_BATCHES)),
                     ("core step+mask+obs, 1 thread", max(sps.QUICK_BATCHES)),
                     ("core step+mask+obs, checked", max(sps.QUICK_BATCHES)),
                     ("heuristic decide, 1 thread", max(sps.QUICK_BATCHES))}
    assert rows.keys() == expected

    sb3_installed = importlib.util.find_spec("stable_baselines3") is not None
    torchrl_installed = importlib.util.find_spec("torchrl") is not None
    for (name, batch), r in rows.items():
        if r["kind"] == "reference" or (name == "SB3 VecEnv" and not sb3_installed) or \
                (r["kind"] == "torchrl" and not torchrl_installed):
            assert r["status"] == "ok" or r["status"].startswith("not installed ("), r
        else:
            assert r["status"] == "ok", r
        if r["status"] == "ok":
            assert r["env_steps_per_s"] > 0 and r["calls_per_s"] > 0 and r["us_per_call"] > 0, r
            assert r["games_per_s"] >= 0
            if name == "heuristic team, whole games":  # a call plays up to HEURISTIC_PLAY_CHUNK decisions per game
                assert r["env_steps_per_s"] <= r["calls_per_s"] * batch * sps.HEURISTIC_PLAY_CHUNK * (1 + 1e-9), r
            else:
                assert r["env_steps_per_s"] == pytest.approx(r["calls_per_s"] * batch), r  # a call steps B games
        # the decide rows' timer covers the agent's call alone (the rules run outside it): no games/s
        assert r["timer"] == ("decide" if name.startswith("heuristic decide") else "wall"), r
        if r["timer"] == "decide":
            assert r["games_per_s"] == 0

    # every run is interleaved with connect_four_v3 (when installed): each row has its ratio to it
    interleaved = rows[("connect_four_v3", 1)]["status"] == "ok"
    for r in rows.values():
        if r["status"] == "ok":
            assert (r["x_reference"] > 0) == interleaved, r
            assert (r["x_reference_undisturbed"] > 0) == interleaved, r
            assert r["spread"] == 0.0  # one repeat with --quick
            assert r["slices"] >= 1 and r["undisturbed_env_steps_per_s"] > 0, r

    memory = data["memory"]
    assert memory["batch"] == max(sps.QUICK_BATCHES)
    assert memory["state_bytes_per_game"] > 0 and memory["peak_traced_bytes_per_game"] > 0


def test_kinds_pick_the_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sps = load_sps(monkeypatch)
    data = sps.main(["--quick", "--kinds", "itc", "--batches", "1", "16", "--out", str(tmp_path / "x.json")])
    rows = {(r["name"], r["batch"]) for r in data["rows"]}
    assert rows == {("in_the_cave AEC env (PettingZoo)", 1), ("in_the_cave core step+mask", 1),
                    ("in_the_cave core step+mask", 16)}
    assert all(r["kind"] == "itc" and r["status"] == "ok" for r in data["rows"])


class OwnTimer:
    """A step that reports its own seconds (as the heuristic's decide rows do): ``steps`` a call, taking
    ``seconds[k]`` on its k-th call (the last value once they run out), so that slices come out exactly."""

    def __init__(self, steps: int, seconds: list[float]):
        self.steps, self.seconds, self.calls = steps, seconds, 0

    def __call__(self) -> tuple[int, int, float]:
        took = self.seconds[min(self.calls, len(self.seconds) - 1)]
        self.calls += 1
        return self.steps, 0, took


def test_timed_run_cuts_slices_and_the_undisturbed_rate_is_their_fast_end(monkeypatch: pytest.MonkeyPatch) -> None:
    sps = load_sps(monkeypatch)
    # 8 calls slowed to 0.06 s (2,000 steps/s), then 0.03 s (4,000 steps/s) until 1.19 s: 32 calls in 1.2 s
    slices: list[float] = []
    rate, calls, _ = sps.timed_run(OwnTimer(120, [0.06] * 8 + [0.03]), 1.19, slices)
    assert rate == pytest.approx(3_200) and calls == pytest.approx(32 / 1.2)
    assert slices == pytest.approx([2_000] * 4 + [4_000] * 6)  # 0.12 s slices: 2 slow calls, then 4 fast ones
    assert sps.undisturbed(slices) == pytest.approx(4_000)  # the 90th percentile of the ten
    assert sps.undisturbed([float(v) for v in range(1, 11)]) == pytest.approx(9.1)
    assert sps.undisturbed([]) == 0.0
    short: list[float] = []
    assert sps.timed_run(OwnTimer(50, [0.01]), 0.05, short)[0] == pytest.approx(5_000)
    assert short == pytest.approx([5_000])  # a run shorter than a slice is one slice


def test_measure_reports_the_undisturbed_ratio_to_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    sps = load_sps(monkeypatch)
    reference = OwnTimer(120, [0.06])  # 2,000 steps/s
    timing = sps.Timing(seconds=0.5, repeats=3, warmup=0.0, rest=0.0, reference=reference)
    row = sps.measure("core", "fake", 4, lambda: OwnTimer(120, [0.06] * 7 + [0.03]), timing)
    # the warm-up takes 3 calls; then the first run has two slow slices (4 calls of 0.06 s), the later runs none
    assert row.slices == 12 and row.undisturbed_env_steps_per_s == pytest.approx(4_000)
    assert row.x_reference_undisturbed == pytest.approx(2.0)
    assert row.env_steps_per_s == pytest.approx(4_000) and row.x_reference == pytest.approx(2.0)
    assert row.samples[0] == pytest.approx(120 * 13 / 0.51)  # the slowed run: 4 x 0.06 + 9 x 0.03 s


def test_rounds_time_repeat_k_of_every_row_in_round_k(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    sps = load_sps(monkeypatch)
    calls: list[str] = []

    class Logged(OwnTimer):
        def __init__(self, name: str, steps: int, seconds: list[float]):
            super().__init__(steps, seconds)
            self.name = name

        def __call__(self) -> tuple[int, int, float]:
            calls.append(self.name)
            return super().__call__()

    timing = sps.Timing(seconds=0.1, repeats=2, warmup=0.0, rest=0.0)
    a = sps.Timed.start("core", "a", 4, lambda: Logged("a", 10, [0.05]), timing)
    b = sps.Timed.start("core", "b", 4, lambda: Logged("b", 10, [0.025]), timing)
    missing = sps.Row("core", "c", 1, status="not installed (ImportError: c)")
    rows = sps.time_in_rounds([a, missing, b], timing)
    # built and warmed up (3 calls each), then round 1 (a: two 0.05 s calls, b: four 0.025 s ones), then round 2
    assert "".join(calls) == "aaabbb" + "aabbbb" + "aabbbb"
    assert [r.name for r in rows] == ["a", "c", "b"] and rows[1] is missing
    assert rows[0].samples == pytest.approx([200, 200]) and rows[2].samples == pytest.approx([400, 400])
    out = capsys.readouterr().out
    assert "round 1 of 2: 2 rows timed" in out and "round 2 of 2: 2 rows timed" in out
    assert out.index("round 2 of 2") < out.index("benchmark")  # the table after the last round


def _run_file(path: Path, rows: list[tuple[str, int, float, float]], fast: list[tuple[float, float]] | None = None
              ) -> Path:
    """A run's JSON with the given (name, batch, env-steps/s, x ref) rows; ``fast``: their (undisturbed rate, its
    x ref), which runs before the undisturbed rates lack."""
    entries = [{"name": n, "batch": b, "status": "ok", "env_steps_per_s": v, "x_reference": x}
               for n, b, v, x in rows]
    for entry, (rate, ratio) in zip(entries, fast or []):
        entry |= {"undisturbed_env_steps_per_s": rate, "x_reference_undisturbed": ratio}
    path.write_text(json.dumps({"rows": entries}))
    return path


def test_compare_names_the_rows_whose_runs_disagree(tmp_path: Path) -> None:
    from benchmarks.sps_compare import compare, load_runs

    a = _run_file(tmp_path / "a.json", [("aec", 1, 30_000.0, 2.0), ("core", 4096, 1_000_000.0, 60.0)])
    b = _run_file(tmp_path / "b.json", [("aec", 1, 33_000.0, 2.1), ("core", 4096, 800_000.0, 59.0)])
    c = _run_file(tmp_path / "c.json", [("aec", 1, 31_000.0, 2.0), ("core", 4096, 900_000.0, 61.0)])
    table = {(e["name"], e["batch"]): e for e in compare(load_runs([a, b, c]))}
    aec, core = table[("aec", 1)], table[("core", 4096)]
    assert aec["median_env_steps_per_s"] == 31_000.0 and aec["spread"] == pytest.approx(3_000 / 31_000)
    assert aec["median_x_reference"] == 2.0 and aec["x_reference_spread"] == pytest.approx(0.05)
    assert aec["verdict"] == "ok"
    assert core["spread"] == pytest.approx(200_000 / 900_000)  # 22%: the rate moved, the ratio did not
    assert core["verdict"] == "spread of env-steps/s > 15%"
    assert core["undisturbed_verdict"] is None and core["undisturbed_x_reference"] is None  # runs without them


def test_compare_judges_the_undisturbed_rates_too(tmp_path: Path) -> None:
    from benchmarks.sps_compare import compare, load_runs

    runs = [_run_file(tmp_path / f"{k}.json", [("core", 4096, v, x)], [(f, fx)])
            for k, (v, x, f, fx) in enumerate([(1.0e6, 110.0, 1.30e6, 150.0), (0.8e6, 140.0, 1.35e6, 154.0),
                                               (0.9e6, 125.0, 1.25e6, 146.0)])]
    (core,) = compare(load_runs(runs))
    assert core["verdict"] == "spread of env-steps/s and x ref > 15%"  # medians: 22% and 24%
    assert core["undisturbed_median_env_steps_per_s"] == 1.30e6 and core["undisturbed_median_x_reference"] == 150.0
    assert core["undisturbed_spread"] == pytest.approx(0.10e6 / 1.30e6)
    assert core["undisturbed_x_reference_spread"] == pytest.approx(8 / 150)
    assert core["undisturbed_verdict"] == "ok"


def test_compare_refuses_a_file_that_is_not_a_result(tmp_path: Path) -> None:
    from benchmarks.sps_compare import load_runs

    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(SystemExit, match="bad.json: not a benchmarks/sps.py result"):
        load_runs([bad])


def test_observation_bytes_floor_zeroes_every_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """The memory-floor row writes the default window's bytes of every game (a row that wrote nothing would time
    nothing): arrays of ones come out all zero."""
    import numpy as np

    sps = load_sps(monkeypatch)
    grid, scalars = np.ones((3, 34, 15, 15), np.int8), np.ones((3, 49), np.int8)
    sps.zero_observations(grid, scalars)
    assert int(grid.sum()) == 0 and int(scalars.sum()) == 0
    assert sps.observation_bytes_stepper(5)() == (5, 0)


def test_one_game_core_row_binds_its_call_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one-call rows bind the compiled call once for their arrays, as the episode layer does: a binding per
    decision looked the compiled entry up every call (milliseconds of numba's typing at B = 1, so the row timed
    the lookup, 600 decisions/s, not the rules). Five decisions, one lookup, one decision of the one game each."""
    from subterra_env.games.sub_terra.core import advance as advance_module

    sps = load_sps(monkeypatch)
    lookups = []
    real = advance_module.compiled_entry
    monkeypatch.setattr(advance_module, "compiled_entry", lambda *a: lookups.append(1) or real(*a))
    step = sps.core_stepper(1, True, 0)
    assert [step()[0] for _ in range(5)] == [1, 1, 1, 1, 1]
    assert len(lookups) == 1
