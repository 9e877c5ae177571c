"""benchmarks/soak_itc.py at a small size: every lane plays its games with the checker every step and no error, the
report is complete, and a broken invariant is reported with a seed that --replay reproduces alone."""

from __future__ import annotations

import json
from types import ModuleType

import pytest


@pytest.fixture(scope="module")
def soak_itc() -> ModuleType:
    from benchmarks import soak_itc

    return soak_itc


def test_small_soak_is_clean_and_reports_everything(soak_itc, tmp_path):
    out = tmp_path / "soak.json"
    assert soak_itc.main(["--games", "6", "--batch", "1", "--out", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert rep["games"] == rep["finished"] == 6 and rep["failed"] == rep["errors"] == 0
    assert rep["check_every"] == 1 and not rep["stopped_by_max_seconds"]
    assert [ln["games"] for ln in rep["lanes"]] == [1] * 6  # one game in each settings lane
    assert sum(sum(ln["results"].values()) for ln in rep["lanes"]) == 6
    assert rep["steps_total"] > 6 * 100
    assert set(rep["rss_mb"]) == {"start", "half", "end", "peak"} and rep["rss_mb"]["half"] is not None
    # the heuristic (random actions at each lane's epsilon) ends these seeded games by the rules' own end, so the
    # final scoring runs under the checker (uniformly random play truncated every game at max_rounds)
    assert [ln["epsilon"] for ln in rep["lanes"]] == list(soak_itc.LANE_EPSILON)
    assert [ln["results"]["ended"] for ln in rep["lanes"]] == [1, 1, 1, 1, 1, 1]
    assert [ln["rules_end_share"] for ln in rep["lanes"]] == [1.0] * 6


def test_epsilon_one_plays_at_random_and_truncates(soak_itc, tmp_path):
    out = tmp_path / "soak.json"
    assert soak_itc.main(["--games", "1", "--batch", "1", "--epsilon", "1", "--out", str(out)]) == 0
    lane = json.loads(out.read_text())["lanes"][0]
    assert (lane["epsilon"], lane["results"], lane["rules_end_share"]) == (1.0, {"ended": 0, "truncated": 1}, 0.0)


def test_a_broken_invariant_names_a_replayable_seed(soak_itc, tmp_path, monkeypatch, capsys):
    real, real_batch = soak_itc.check, soak_itc.check_batch

    def fussy(g, config):  # a checker that objects to every game past its 30th step
        return ["step 30 reached"] if g[soak_itc.L.STEPS] >= 30 else real(g, config)

    def fussy_batch(G, config, rows):
        return {int(r): e for r in rows if (e := fussy(G[r], config))}

    monkeypatch.setattr(soak_itc, "check", fussy)
    monkeypatch.setattr(soak_itc, "check_batch", fussy_batch)
    out = tmp_path / "soak.json"
    assert soak_itc.main(["--games", "2", "--batch", "1", "--out", str(out)]) == 1
    rep = json.loads(out.read_text())
    first = rep["error_list"][0]
    assert rep["failed"] == 2 and first["game_step"] == 30 and first["during"] == "check"
    assert "step 30 reached" in first["error"]
    capsys.readouterr()
    assert soak_itc.main(["--replay", f"{first['lane']}:{first['seed']}"]) == 1
    assert f"seed {first['seed']} epsilon {first['epsilon']:g} step 30: step 30 reached" in capsys.readouterr().out
    monkeypatch.setattr(soak_itc, "check", real)
    monkeypatch.setattr(soak_itc, "check_batch", real_batch)
    assert soak_itc.main(["--replay", f"{first['lane']}:{first['seed']}"]) == 0


def test_the_sub_terra_soak_forwards_to_it(tmp_path):
    from benchmarks import soak

    out = tmp_path / "soak.json"
    assert soak.main(["--game", "in_the_cave", "--games", "1", "--batch", "1", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["finished"] == 1
