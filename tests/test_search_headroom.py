"""training/search_headroom.py: every legal action of sampled decisions valued in shared futures (tiny budget)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from training import search_headroom  # noqa: E402


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
