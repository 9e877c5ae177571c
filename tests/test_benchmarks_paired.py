"""benchmarks/paired.py: the core row timed in another commit's tree and in this one, processes alternating."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from benchmarks import paired


@pytest.fixture
def trees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Other commits' trees under tmp_path, and both trees on the shipped portable code: these runs test the
    processes and the report; the native code the command line asks for would be compiled afresh for every new
    tree's path (minutes on 2 cores)."""
    monkeypatch.setattr(paired, "trees_dir", lambda: tmp_path)
    monkeypatch.setattr(paired, "_env", lambda tree: {**os.environ, "PYTHONPATH": str(tree), "SUBTERRA_QUIET": "1",
                                                      "SUBTERRA_PORTABLE": "1"})
    return tmp_path


def _head() -> str:
    return subprocess.run(["git", "-C", str(paired.ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_pairs_time_both_trees_and_report_their_ratios(trees: Path) -> None:
    out = trees / "paired.json"
    report = paired.main(["HEAD", "--batch", "16", "--pairs", "2", "--seconds", "0.05", "--repeats", "1",
                          "--same-policy", "--out", str(out)])
    assert report["ref"] == "HEAD" and report["commit"] == _head() and len(report["pairs"]) == 2
    assert all(r["other"] > 0 and r["this"] > 0 and r["ratio"] == r["this"] / r["other"] for r in report["pairs"])
    assert report["faster"] == sum(r["ratio"] > 1 for r in report["pairs"])
    assert report["settings"] == {"row": "core", "batch": 16, "obs": True, "threads": 0, "seconds": 0.05,
                                  "repeats": 1, "same_policy": True}
    assert json.loads(out.read_text()) == report
    assert sorted(p.name for p in trees.iterdir()) == sorted([_head(), "paired.json"])  # no extraction left behind


def test_another_interfaces_row_is_timed_in_both_trees(trees: Path) -> None:
    report = paired.main(["HEAD", "--row", "gymnasium", "--batch", "4", "--pairs", "1", "--seconds", "0.05",
                          "--repeats", "1"])
    assert report["settings"]["row"] == "gymnasium" and report["settings"]["batch"] == 4
    assert len(report["pairs"]) == 1 and report["pairs"][0]["other"] > 0 and report["pairs"][0]["this"] > 0


def test_a_commits_tree_is_extracted_once_and_kept(trees: Path) -> None:
    tree = paired.extract("HEAD")
    committed = subprocess.run(["git", "-C", str(paired.ROOT), "show", "HEAD:benchmarks/sps.py"], capture_output=True,
                               text=True, check=True).stdout
    assert tree == trees / _head() and (tree / "benchmarks" / "sps.py").read_text() == committed
    (tree / "kept").write_text("")  # a second extraction would replace the folder, this file with it
    assert paired.extract(_head()[:12]) == tree and (tree / "kept").exists()


def test_the_trees_alternate_which_goes_first(trees: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, float]] = []
    rates = iter([1.0, 100.0, 200.0, 100.0, 300.0, 50.0, 200.0])  # the warm-up, then pair by pair

    def fake_time(tree: Path, settings: dict[str, Any]) -> float:
        calls.append(("this" if tree == paired.ROOT else "other", settings["seconds"]))
        return next(rates)

    monkeypatch.setattr(paired, "time_tree", fake_time)
    report = paired.pairs("HEAD", {"seconds": 0.5, "repeats": 3}, 3, show=False)
    assert calls == [("other", 0.01), ("other", 0.5), ("this", 0.5), ("this", 0.5), ("other", 0.5), ("other", 0.5),
                     ("this", 0.5)]
    assert report["pairs"] == [{"other": 100.0, "this": 200.0, "ratio": 2.0}, {"other": 300.0, "this": 100.0,
                               "ratio": 100.0 / 300.0}, {"other": 50.0, "this": 200.0, "ratio": 4.0}]
    assert (report["median_ratio"], report["faster"]) == (2.0, 2) and report["commit"] == _head()


def test_a_revision_that_is_not_there_is_named(capsys: pytest.CaptureFixture[str], trees: Path) -> None:
    with pytest.raises(SystemExit, match="git rev-parse no-such-revision: not a commit"):
        paired.main(["no-such-revision", "--pairs", "1"])
    with pytest.raises(SystemExit):
        paired.main(["HEAD", "--pairs", "0"])
    assert "--pairs must be at least 1" in capsys.readouterr().err
