"""Smoke test of benchmarks/web_roundtrip.py: one tiny game against a real `subterra serve` child process on
loopback writes its JSON with every round trip measured (no speed threshold)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("aiohttp", reason="the web extra: pip install -e '.[web]'")
ROOT = Path(__file__).resolve().parents[1]


def test_web_roundtrip_benchmark_runs(tmp_path: Path) -> None:
    from benchmarks import web_roundtrip as bench

    out = tmp_path / "rt.json"
    assert bench.main(["--games", "1", "--out", str(out), "--max-seconds", "120"]) == 0
    res = json.loads(out.read_text())
    assert res["games"] == 1 and res["results"][0] in ("gold", "silver", "bronze", "defeat")
    assert res["round_trips"] == len(res["round_trip_ms_all"]) > 0
    assert all(t > 0 for t in res["round_trip_ms_all"])
    assert 0 < res["round_trip_ms"]["median"] <= res["round_trip_ms"]["p95"] <= res["round_trip_ms"]["max"]
    assert res["page_load_ms"]["median"] > 0
