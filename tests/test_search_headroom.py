"""training/search_headroom.py: every legal action of sampled decisions valued in shared futures (tiny budget)."""

from __future__ import annotations

import json
from pathlib import Path

from training import search_headroom

ROOT = Path(__file__).resolve().parents[1]


def test_headroom_rows_and_summary(tmp_path: Path) -> None:
    out = tmp_path / "headroom.json"
    assert search_headroom.main(["--config", str(ROOT / "configs" / "tiny.yaml"), "--decisions", "3", "--worlds",
                                 "6", "--seed", "5", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    rows, summary = data["rows"], data["summary"]
    assert 1 <= len(rows) <= 3 and summary["decisions"] == len(rows) and summary["worlds"] == 6
    for r in rows:
        assert r["legal"] >= 2 and r["gain"] >= 0.0 and r["se"] >= 0.0  # the best gain includes the heuristic's 0
        assert 0.0 <= r["value"] <= 4.0
    again = tmp_path / "again.json"
    search_headroom.main(["--config", str(ROOT / "configs" / "tiny.yaml"), "--decisions", "3", "--worlds", "6",
                          "--seed", "5", "--out", str(again)])
    assert json.loads(again.read_text())["rows"] == rows  # reproducible


def test_headroom_workers_match_one_process_and_states_reload(tmp_path: Path) -> None:
    import numpy as np

    from subterra_env.config import load
    from subterra_env.games.sub_terra.core.rules import Core
    from subterra_env.games.sub_terra.core.state import State

    small = str(ROOT / "configs" / "small.yaml")
    one, two, states = tmp_path / "one.json", tmp_path / "two.json", tmp_path / "states.npz"
    base = ["--config", small, "--decisions", "10", "--worlds", "4", "--seed", "5"]
    assert search_headroom.main(base + ["--out", str(one)]) == 0
    assert search_headroom.main(base + ["--out", str(two), "--workers", "2", "--states", str(states)]) == 0
    rows_one = json.loads(one.read_text())["rows"]
    rows_two = json.loads(two.read_text())["rows"]
    assert len(rows_one) == 3 and rows_two == rows_one
    data = np.load(states)
    assert str(data["config"]) == small and len(data["packed"]) == len(rows_two) == len(data["heuristic"])
    assert data["offsets"][-1] == len(data["legal"]) == len(data["mean"]) == len(data["se"])
    core = Core(load(small))
    st = State.from_packed(data["packed"][:1].copy(), core.init([0])._sizes)
    mask = core.legal_mask(st)[0]
    assert list(np.flatnonzero(mask)) == list(data["legal"][data["offsets"][0]:data["offsets"][1]])
    assert [r["caver"] for r in rows_two] and all(r["hp"] >= 1 for r in rows_two)


def test_replay_scores_a_search_setting_by_the_stored_truth(tmp_path: Path) -> None:
    import numpy as np
    import pytest

    from training import replay_search

    states, out = tmp_path / "states.npz", tmp_path / "replay.json"
    assert search_headroom.main(["--config", str(ROOT / "configs" / "small.yaml"), "--decisions", "10", "--worlds",
                                 "4", "--seed", "5", "--states", str(states)]) == 0
    assert replay_search.main([str(states), "--worlds", "3", "--horizon", "2", "--z", "0", "--weight", "hide=1.4",
                               "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    summary, gains = data["summary"], data["gains"]
    assert summary["decisions"] == len(gains) == 3
    assert (summary["worlds"], summary["horizon"], summary["z"], summary["weights"]) == (3, 2, 0.0, {"hide": 1.4})
    with np.load(states) as truth:
        for i, g in enumerate(gains):  # each gain is one legal action's stored value less the heuristic's
            values = truth["mean"][truth["offsets"][i]:truth["offsets"][i + 1]]
            acts = truth["legal"][truth["offsets"][i]:truth["offsets"][i + 1]]
            h = values[acts == truth["heuristic"][i]][0]
            assert any(abs(g - (v - h)) < 1e-12 for v in values)
    assert summary["gain_per_decision"] == pytest.approx(float(np.mean(gains)))
    with pytest.raises(SystemExit):
        replay_search.main([str(states), "--weight", "nonsense=1"])
