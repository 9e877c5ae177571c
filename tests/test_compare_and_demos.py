"""training/compare.py (paired differences on the same seeds) and demonstrations saved and reloaded (training/bc.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from training import bc, compare

ROOT = Path(__file__).resolve().parents[1]


def result_file(path: Path, team: str, escaped: list[int], seeds: list[int]) -> Path:
    games = {"seed": seeds, "escaped": escaped, "result": ["gold" if e == 4 else "defeat" for e in escaped]}
    path.write_text(json.dumps({"meta": {}, "results": [{"team": team, "settings": "tiny", "games": games}]}))
    return path


def test_paired_difference_of_two_evaluations(tmp_path, capsys):
    a = result_file(tmp_path / "a.json", "heuristic", [4, 3, 2, 4], [0, 1, 2, 3])
    b = result_file(tmp_path / "b.json", "policy:team", [4, 4, 2, 3], [0, 1, 2, 3])
    r = compare.paired(compare.rows(a)["tiny"], compare.rows(b)["tiny"])
    assert (r["a"], r["b"], r["diff"], r["differ"]) == (3.25, 3.25, 0.0, 2)
    assert r["ci95"] == pytest.approx(1.96 * np.std([0, 1, 0, -1], ddof=1) / 2)
    assert (r["gold_a"], r["gold_b"]) == (0.5, 0.5)
    assert compare.main([str(a), str(b)]) == 0
    assert "policy:team minus heuristic" in capsys.readouterr().out
    other = result_file(tmp_path / "c.json", "random", [0, 0, 0, 0], [4, 5, 6, 7])
    with pytest.raises(ValueError, match="played different seeds"):
        compare.paired(compare.rows(a)["tiny"], compare.rows(other)["tiny"])


def test_compare_two_teams_of_one_file(tmp_path, capsys):
    games = lambda e: {"seed": [0, 1, 2], "escaped": e, "result": ["defeat"] * 3}  # noqa: E731
    f = tmp_path / "both.json"
    results = [{"team": "heuristic", "settings": "tiny", "games": games([1, 2, 3])},
               {"team": "search", "settings": "tiny", "games": games([2, 2, 4])}]
    f.write_text(json.dumps({"meta": {}, "results": results}))
    r = compare.paired(compare.rows(f, "heuristic")["tiny"], compare.rows(f, "search")["tiny"])
    assert (r["a"], r["b"], r["differ"]) == (2.0, 8 / 3, 2)
    assert compare.main([str(f), "--team-a", "heuristic", "--team-b", "search"]) == 0
    assert "search minus heuristic" in capsys.readouterr().out
    assert compare.main([str(f), "--team-a", "heuristic", "--team-b", "ceiling"]) == 2
    assert "holds no rows of team 'ceiling'; it holds ['heuristic', 'search']" in capsys.readouterr().err


def test_demonstrations_round_trip_and_concat(tmp_path):
    n = 5
    d = bc.Demonstrations({"observation": np.arange(n * 4, dtype=np.int8).reshape(n, 2, 2),
                           "advice": np.eye(n, 3, dtype=np.int8)}, np.ones((n, 3), bool),
                          np.array([0, 1, 2, 0, 1]), np.linspace(0, 1, n, dtype=np.float32),
                          np.array([1, 1, 0, 0, 1], bool), np.array([0, 0, 1, 1, 2]), [{"result": "gold", "escaped": 4}])
    d.save(tmp_path / "d.npz")
    e = bc.load_demos(tmp_path / "d.npz")
    for k in d.obs:
        np.testing.assert_array_equal(e.obs[k], d.obs[k])
    np.testing.assert_array_equal(e.actions, d.actions)
    assert e.finished == [{"result": "gold", "escaped": 4}] and len(e) == 5
    both = bc.Demonstrations.concat([d, e])
    assert len(both) == 10 and both.game.tolist() == [0, 0, 1, 1, 2, 3, 3, 4, 4, 5]
    with pytest.raises(FileNotFoundError, match="no demonstrations at"):
        bc.load_demos(tmp_path / "missing.npz")
    np.savez(tmp_path / "other.npz", x=np.zeros(2))
    with pytest.raises(ValueError, match="is not a demonstrations file"):
        bc.load_demos(tmp_path / "other.npz")
