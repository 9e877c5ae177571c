"""Smoke test of benchmarks/observe_cost.py: a tiny run times every row for every batch and radius asked and writes
them (no speed threshold)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import observe_cost


def test_tiny_run_writes_every_row(tmp_path: Path) -> None:
    out = tmp_path / "obs.json"
    rows = observe_cost.main(["--batches", "3", "70", "--radii", "2", "7", "--repeats", "2", "--decisions", "4",
                              "--out", str(out)])
    data = json.loads(out.read_text())
    assert [(r["batch"], r["radius"]) for r in data["rows"]] == [(3, 2), (3, 7), (70, 2), (70, 7)]
    assert [r["kb_per_game"] for r in data["rows"]] == [0.899, 7.699, 0.899, 7.699]  # 34 planes x W x W + 49
    for r in data["rows"]:
        assert list(r["ns_per_game"]) == ["observe, 1 thread", "observe", "bytes alone"]
        assert all(v > 0 for v in r["ns_per_game"].values())
        assert all(len(t) == 2 for t in r["samples_s"].values())
        assert r["tiles_mean"] >= 1  # the start tile at least
    assert len(rows) == 4


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(SystemExit):
        observe_cost.main(["--batches", "0"])
    with pytest.raises(SystemExit):
        observe_cost.main(["--repeats", "0"])
