"""benchmarks/soak.py at a small size: no errors, a complete JSON report, and failures reported with their seed."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from subterra_env.games.sub_terra.core import rng
from subterra_env.games.sub_terra.core.invariants import InvariantError
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import State

REPORT_FIELDS = {"games", "finished", "failed", "aborted", "errors", "error_list", "seconds", "games_per_s",
                 "steps_total", "steps_per_s", "batch", "check_every", "seed", "rss_mb", "lanes"}


@pytest.fixture(scope="module")
def soak() -> ModuleType:
    from benchmarks import soak

    return soak


def run_soak(soak: ModuleType, out: Path, *args: str) -> tuple[int, dict]:
    rc = soak.main([*args, "--out", str(out), "--progress-seconds", "1"])
    return rc, json.loads(out.read_text())


def test_small_soak_passes(soak: ModuleType, tmp_path: Path) -> None:
    rc, rep = run_soak(soak, tmp_path / "soak.json", "--games", "375", "--batch", "25")  # 15 lanes of 25 games
    assert rc == 0
    assert REPORT_FIELDS <= set(rep)
    assert rep["errors"] == 0 and rep["error_list"] == [] and rep["failed"] == 0
    assert rep["games"] == rep["finished"] == 375 == sum(lane["games"] for lane in rep["lanes"])
    assert len(rep["lanes"]) == len(soak.LANES) and all(lane["games"] > 0 for lane in rep["lanes"])
    assert rep["steps_total"] > 350 * 50 and rep["games_per_s"] > 0
    assert set(rep["rss_mb"]) == {"start", "after_warmup", "end", "growth_after_warmup", "peak"}
    assert all(sum(lane["results"].values()) == lane["games"] for lane in rep["lanes"])


def test_small_soak_reaches_the_endgame(soak: ModuleType, tmp_path: Path) -> None:
    """The heuristic with random actions mixed in gets cavers out and wins medals in every kind of lane, so the
    checker sees escapes, medals and the scenarios' wins (uniformly random play: 100% defeats, none out)."""
    _, rep = run_soak(soak, tmp_path / "soak.json", "--games", "375", "--batch", "25")
    lanes = rep["lanes"]
    assert [ln["epsilon"] for ln in lanes] == list(soak.LANE_EPSILON)
    # literal counts of this seeded run (seeds 0..): games with >= 1 caver out and medals, lane by lane
    assert [ln["with_caver_out"]["games"] for ln in lanes] == [16, 18, 18, 19, 14, 14, 21, 23, 18, 13, 10, 11, 16,
                                                                 23, 21]
    assert [ln["wins"] for ln in lanes] == [3, 2, 0, 4, 5, 5, 0, 9, 7, 0, 1, 5, 8, 3, 3]
    assert sum(ln["results"]["silver"] for ln in lanes) == 10
    assert all(ln["with_caver_out"]["share"] >= 0.3 for ln in lanes)
    scenario_wins = {}
    for ln in lanes:
        scenario_wins[ln["scenario"]] = scenario_wins.get(ln["scenario"], 0) + ln["wins"]
    assert scenario_wins == {"base": 28, "annihilation": 7, "extraction": 6, "investigation": 14}
    # a medal needs a caver out: every won game is among the games with one out
    assert all(ln["with_caver_out"]["results"]["bronze"] == ln["results"]["bronze"] for ln in lanes)


def test_epsilon_one_is_the_uniform_random_soak(soak: ModuleType, tmp_path: Path) -> None:
    """--epsilon 1 plays every decision at random: the old soak, which hardly ever gets a caver out."""
    _, rep = run_soak(soak, tmp_path / "soak.json", "--games", "30", "--batch", "10", "--lanes", "0", "8", "12",
                      "--epsilon", "1")
    assert [ln["epsilon"] for ln in rep["lanes"]] == [1.0, 1.0, 1.0]
    assert [ln["with_caver_out"]["games"] for ln in rep["lanes"]] == [0, 2, 0]
    assert [ln["results"]["defeat"] for ln in rep["lanes"]] == [10, 10, 10]


BAD_SEED, BAD_STEP = 3, 10  # lane 0's fourth game (seeds start at --seed << 32 = 0)


def _is_bad(st: State) -> np.ndarray:
    return (st.key == rng.seed_keys(np.array([BAD_SEED]))[0]) & (st.steps == BAD_STEP)


def test_crash_is_reported_with_its_seed(soak: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A core exception is traced to its game by replay, the lane restarts, and the exit code is 1."""
    step = Core.step

    def crashing_step(self: Core, st: State, actions: np.ndarray) -> None:
        if _is_bad(st).any():
            raise RuntimeError("injected crash")
        step(self, st, actions)

    monkeypatch.setattr(Core, "step", crashing_step)
    rc, rep = run_soak(soak, tmp_path / "soak.json", "--games", "24", "--batch", "4")
    assert rc == 1 and rep["errors"] >= 1
    first = rep["error_list"][0]
    assert (first["lane"], first["seed"], first["game_step"], first["during"]) == \
        (0, BAD_SEED, BAD_STEP, "step (isolated by replay)")
    assert "injected crash" in first["error"]
    assert rep["finished"] + rep["failed"] == 24


def test_invariant_error_is_reported_with_its_seed(soak: ModuleType, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    check = soak.check_invariants

    def failing_check(cfg, before, after, mask) -> None:  # noqa: ANN001 - same signature as check_invariants
        bad = np.flatnonzero(_is_bad(after)) if before is not None else []
        if len(bad):
            raise InvariantError("injected", bad, "a test")
        check(cfg, before, after, mask)

    monkeypatch.setattr(soak, "check_invariants", failing_check)
    rc, rep = run_soak(soak, tmp_path / "soak.json", "--games", "24", "--batch", "4")
    assert rc == 1 and rep["errors"] == 1 and rep["failed"] == 1 and rep["finished"] == 23
    err = rep["error_list"][0]
    assert (err["lane"], err["seed"], err["game_step"], err["during"]) == (0, BAD_SEED, BAD_STEP, "check")
    assert "invariant 'injected' violated" in err["error"]
