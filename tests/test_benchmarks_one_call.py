"""benchmarks/one_call.py: the pairs it times, its per-row verdict and its argument checks (a short real run)."""

from __future__ import annotations

import json

import pytest

from benchmarks import one_call
from subterra_env.games.sub_terra.core import advance


def test_wins_lists_the_thread_counts_where_every_batch_of_a_row_went_faster_in_one_call() -> None:
    rows = [{"row": "core", "threads": 1, "batch": 1024, "median_ratio": 0.8},
            {"row": "core", "threads": 1, "batch": 4096, "median_ratio": 1.1},
            {"row": "core", "threads": 2, "batch": 1024, "median_ratio": 1.05},
            {"row": "core", "threads": 2, "batch": 4096, "median_ratio": 1.2},
            {"row": "torchrl", "threads": 1, "batch": 1024, "median_ratio": 1.3},
            {"row": "torchrl", "threads": 2, "batch": 1024, "median_ratio": 0.9}]
    assert one_call.wins(rows) == {"core": [2], "torchrl": [1]}


def test_a_short_run_times_both_ways_and_leaves_the_settings_as_they_were(tmp_path, capsys) -> None:
    import numba
    import torch

    threads = numba.get_num_threads(), torch.get_num_threads()
    out = tmp_path / "one_call.json"
    report = one_call.main(["--threads", "1", "--batches", "64", "--pairs", "2", "--seconds", "0.02",
                            "--interfaces", "gymnasium", "--interface-batch", "64", "--out", str(out)])
    assert (advance.ONE_CALL_AT_SCALE, numba.get_num_threads(), torch.get_num_threads()) == (True, *threads)
    rows = json.loads(out.read_text())["rows"]
    assert [(r["row"], r["threads"], r["batch"], len(r["pairs"])) for r in rows] == [("core", 1, 64, 2),
                                                                                    ("gymnasium", 1, 64, 2)]
    assert all(a > 0 and b > 0 for r in rows for a, b in r["pairs"])
    assert report["rows"] == rows
    assert "gymnasium: the one call faster (median) at" in capsys.readouterr().out


@pytest.mark.parametrize("args, needle", [(["--threads", "0"], "out of range 1.."),
                                          (["--batches", "8"], "at least 64")])
def test_bad_arguments_are_named(args, needle, capsys) -> None:
    with pytest.raises(SystemExit):
        one_call.main(args)
    assert needle in capsys.readouterr().err
