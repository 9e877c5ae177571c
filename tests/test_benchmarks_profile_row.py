"""benchmarks/profile_row.py: an interface's row under cProfile, its time by layer and its costliest functions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import profile_row


def test_a_rows_time_is_split_by_layer_and_its_kernels_are_named(tmp_path: Path) -> None:
    out = tmp_path / "profile.json"
    report = profile_row.main(["--row", "gymnasium", "--batch", "3", "--seconds", "0.1", "--top", "40",
                               "--out", str(out)])
    assert (report["row"], report["batch"]) == ("gymnasium", 3)
    layers = report["layers_ms_per_call"]
    assert {"compiled kernels", "subterra_env Python", "benchmark policy"} <= set(layers)
    assert report["profiled_ms_per_call"] == pytest.approx(sum(layers.values()))
    # below 64 games one compiled call a step: the one-trip kernel, once per call, among the kernels
    one_trip = [f for f in report["top"] if f["function"].endswith("(advance_serial)")]
    assert len(one_trip) == 1 and one_trip[0]["layer"] == "compiled kernels" and one_trip[0]["calls_per_call"] == 1
    assert len(report["top"]) == 40 and json.loads(out.read_text()) == report


def test_a_bad_setting_is_refused() -> None:
    with pytest.raises(SystemExit):
        profile_row.main(["--batch", "0"])
