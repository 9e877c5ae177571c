"""benchmarks/startup.py: its probe process reports every phase (run here against the warm cache, so it is quick)."""

from __future__ import annotations

import os
from pathlib import Path

from benchmarks import startup

ROOT = Path(__file__).resolve().parents[1]


def test_probe_reports_every_phase() -> None:
    from subterra_env.games.sub_terra.core import jit

    cache = os.environ.get("NUMBA_CACHE_DIR") or jit.CACHE_DIR
    row = startup.run_probe(cache, portable=False)
    assert set(row) == {"compiled_kernels", "import_s", "serial_first_calls_s", "threaded_first_calls_s",
                        "aec_first_step_s", "total_s"}
    assert row.pop("compiled_kernels") == 0  # the warm cache: nothing compiles
    assert all(v > 0 for v in row.values())
    assert row["total_s"] >= row["import_s"] + row["serial_first_calls_s"]


def test_user_start_and_numba_floor_rows(tmp_path: Path) -> None:
    from subterra_env.games.sub_terra.core import jit

    cache = os.environ.get("NUMBA_CACHE_DIR") or jit.CACHE_DIR
    user = startup.median_start(cache, 1, startup.USER_PROBE)
    assert user["runs"] == 1 and user["median_s"] == user["min_s"] > 0
    (tmp_path / "subterra_floor.py").write_text(startup.FLOOR_MODULE)
    floor = startup.median_start(str(tmp_path / "cache"), 3, startup.FLOOR_PROBE, path=str(tmp_path))
    assert floor["runs"] == 3 and 0 < floor["min_s"] <= floor["median_s"]
    assert list((tmp_path / "cache").rglob("*.nbi"))  # the floor's one function is cached, as the probe means


def test_start_only_rows_interleave_and_hide_scipy(tmp_path: Path) -> None:
    out = tmp_path / "startup.json"
    result = startup.main(["--start-only", "--start-runs", "1", "--hide-scipy", "--against", str(ROOT),
                           "--breakdown", "--out", str(out)])
    assert list(result["breakdowns"]) == ["user start", f"user start, {ROOT}"]
    parts = result["breakdowns"]["user start"]
    assert set(result["breakdowns"][f"user start, {ROOT}"]) == set(parts) == {
        "dependencies_s", "import_s", "first_load_s", "other_loads_s", "python_s", "gc_s", "bitcode_s", "loads",
        "total_s"}
    assert parts["loads"] == 6  # setup, flags, mask, counts, observe (reset), advance (the step): the first AEC step
    assert 0 < parts["import_s"] + parts["first_load_s"] + parts["other_loads_s"] < parts["total_s"]
    assert result["rows"] == [] and result["cache_bytes"] is None and result["scipy_installed"] is False
    assert list(result["starts"]) == ["user start", "numba floor", f"user start, {ROOT}"]
    assert all(r["runs"] == 1 and r["median_s"] > 0 for r in result["starts"].values())
    (tmp_path / "hidden" / "scipy").mkdir(parents=True)
    (tmp_path / "hidden" / "scipy" / "__init__.py").write_text(startup.HIDDEN_SCIPY)
    probe = ("import json\ntry:\n    import scipy.linalg\n    hidden = 0.0\nexcept ImportError:\n    hidden = 1.0\n"
             "print(json.dumps({'total_s': hidden}))")
    assert startup.run_probe(None, False, probe, path=str(tmp_path / "hidden")) == {"total_s": 1.0}
    try:
        startup.main(["--start-only", "--against", str(tmp_path)])
    except SystemExit as exit:
        assert exit.code == 2  # argparse's error: not a checkout
    else:
        raise AssertionError("--against a folder that is no checkout was accepted")
