"""Smoke test of benchmarks/latency.py: a tiny run (tiny cave, one game) writes every bot's row with positive
latencies (no speed threshold)."""

from __future__ import annotations

import json
from pathlib import Path

import numba
import pytest

ROOT = Path(__file__).resolve().parents[1]


def positive_numbers(value: object) -> list[float]:
    """Every number (not bool) anywhere inside value."""
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [value]
    if isinstance(value, dict):
        return [x for v in value.values() for x in positive_numbers(v)]
    if isinstance(value, list):
        return [x for v in value for x in positive_numbers(v)]
    return []


def test_tiny_run_writes_every_bot(tmp_path: Path) -> None:
    from benchmarks import latency as bench

    threads = numba.get_num_threads()
    out = tmp_path / "latency.json"
    returned = bench.main(["--config", str(ROOT / "configs" / "tiny.yaml"), "--games", "1", "--decisions", "6",
                           "--worlds", "2", "--out", str(out)])
    assert numba.get_num_threads() == threads  # the one-core setting is undone
    data = json.loads(out.read_text())
    assert data == json.loads(json.dumps(returned))
    assert {"platform", "cpu_count", "python", "numpy", "numba"} <= data["machine"].keys()
    assert data["settings"]["games"] == 1 and data["settings"]["numba_threads"] == 1

    decisions = data["decisions"]
    assert decisions["games"] == 1 and 0 < decisions["sampled"] <= 6 <= decisions["played"]
    assert len(decisions["sample"]) == decisions["sampled"]
    assert decisions["multi_legal"] == sum(d["legal"] > 1 for d in decisions["sample"]) > 0

    rows = {r["label"]: r for r in data["rows"]}
    expected = {"random", "heuristic", "search (2 worlds, 4-round horizon)",
                "search (32 worlds, 4-round horizon, default)", "ceiling (clairvoyant search)", "policy (shipped team)"}
    assert rows.keys() == expected
    assert [r["bot"] for r in data["rows"]].count("search") == 2
    assert sum(bool(r.get("default")) for r in data["rows"]) == 1

    for label, r in rows.items():
        if r["bot"] == "policy":  # needs the train extra (torch, sb3-contrib)
            assert r["status"] == "ok" or r["status"].startswith("not installed ("), r
            if r["status"] != "ok":
                continue
        else:
            assert r["status"] == "ok", r
        assert len(r["ms"]) == len(r["cpu_ms"]) == decisions["sampled"]
        assert r["all"]["decisions"] == decisions["sampled"]
        assert r["multi_legal"]["decisions"] == decisions["multi_legal"]
        for part in ("all", "multi_legal"):
            s = r[part]
            assert s.keys() == {"decisions", "median_ms", "p95_ms", "mean_ms", "max_ms", "cpu_median_ms", "cpu_p95_ms"}
            assert s["median_ms"] <= s["p95_ms"] <= s["max_ms"] and s["cpu_median_ms"] <= s["cpu_p95_ms"]
        if r["bot"] in ("search", "ceiling"):
            assert "rollouts_per_decision" in r
        measured = {k: v for k, v in r.items() if k not in ("bot", "label", "status", "default")}
        numbers = positive_numbers(measured)
        assert numbers and all(x > 0 for x in numbers), (label, measured)


def test_bad_arguments_are_refused() -> None:
    from benchmarks import latency as bench

    with pytest.raises(SystemExit):
        bench.parse_args(["--worlds", "0"])
    with pytest.raises(SystemExit):
        bench.parse_args(["--games", "0"])
    assert bench.parse_args(["--policy", "none"]).policy is None


def test_onnx_latency_binds_the_advised_team_to_its_game(capsys: pytest.CaptureFixture[str]) -> None:
    """benchmarks/onnx_latency.py as docs/browser.md runs it (issue 40: it crashed, the shipped team is advised and
    must be bound to its game); torch and ONNX choose alike at every decision of a tiny heuristic game."""
    pytest.importorskip("onnxruntime")
    pytest.importorskip("sb3_contrib")
    from benchmarks import onnx_latency

    assert onnx_latency.main(["--preset", "tiny", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "torch: 41 decisions" in out and "onnx: 41 decisions" in out  # 46 decisions, 5 left out as warm-up
    assert "same action at every decision: True" in out
