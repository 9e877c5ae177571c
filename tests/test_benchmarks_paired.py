"""benchmarks/paired.py: the core row timed in another commit's tree and in this one, processes alternating."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import paired


def test_pairs_time_both_trees_and_report_their_ratios(tmp_path: Path) -> None:
    out = tmp_path / "paired.json"
    report = paired.main(["HEAD", "--batch", "16", "--pairs", "2", "--seconds", "0.05", "--repeats", "1",
                          "--same-policy", "--out", str(out)])
    assert report["ref"] == "HEAD" and len(report["pairs"]) == 2
    assert all(r["other"] > 0 and r["this"] > 0 and r["ratio"] == r["this"] / r["other"] for r in report["pairs"])
    assert report["faster"] == sum(r["ratio"] > 1 for r in report["pairs"])
    assert report["settings"] == {"row": "core", "batch": 16, "obs": True, "threads": 0, "seconds": 0.05,
                                  "repeats": 1, "same_policy": True}
    assert json.loads(out.read_text()) == report


def test_another_interfaces_row_is_timed_in_both_trees() -> None:
    report = paired.main(["HEAD", "--row", "gymnasium", "--batch", "4", "--pairs", "1", "--seconds", "0.05",
                          "--repeats", "1"])
    assert report["settings"]["row"] == "gymnasium" and report["settings"]["batch"] == 4
    assert len(report["pairs"]) == 1 and report["pairs"][0]["other"] > 0 and report["pairs"][0]["this"] > 0


def test_a_revision_that_is_not_there_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match="git archive no-such-revision"):
        paired.main(["no-such-revision", "--pairs", "1"])
    with pytest.raises(SystemExit):
        paired.main(["HEAD", "--pairs", "0"])
    assert "--pairs must be at least 1" in capsys.readouterr().err
