"""The one compiled call against the separate kernels at large batches, per thread count (``core/advance.py``).

    python -m benchmarks.one_call                                   # 1, 2, 4, ... threads up to every core
    python -m benchmarks.one_call --threads 2 16 --batches 1024 --pairs 7 --out /tmp/one_call.json

At ``PARALLEL_MIN_BATCH`` games and more a batch can be stepped in one threaded call (step, bookkeeping, mask,
counts and observation of a game together: ``advance_parallel``) or in separate threaded kernels (step, then mask,
then observation, each over the whole batch). The episode layer takes the one call (``one_call_taken``); this times
both ways, per thread count and batch size, as pairs (one run of each, which goes first alternating; a slow spell of
a shared machine hits both runs of a pair alike): the core row of ``benchmarks/sps.py`` ("step+mask+obs",
``core_stepper`` with ``one_call`` forced either way, each with its own autoreset) and the interfaces of
``--interfaces`` at ``--interface-batch`` games, through the episode layer: the native TorchRL env, the gymnasium
VectorEnv or the SB3 VecEnv (``sps``'s steppers; ``ONE_CALL_AT_SCALE`` set before each run). The episode layer's
separate way also books the episodes and, for interfaces that report every slot's info or where games end, counts
the infos, in passes of their own. The report: each way's median env-steps/s, the median of the pairs' ratios (one
call over separate kernels) and how many pairs the one call won, per row; the JSON holds every pair.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba

from benchmarks.sps import Step, core_stepper, gym_vector_stepper, machine, sb3_stepper, timed_run, torchrl_stepper, \
    warm_up
from subterra_env.games.sub_terra.core import advance

DEFAULT_OUT = Path(__file__).parent / "results" / "one_call.json"
INTERFACES: dict[str, Callable[[int, int], Step]] = {"torchrl": torchrl_stepper, "gymnasium": gym_vector_stepper,
                                                     "sb3": sb3_stepper}


def thread_counts() -> list[int]:
    """1, 2, 4, ... below numba's thread count, then that count."""
    top, counts, t = numba.config.NUMBA_NUM_THREADS, [], 1
    while t < top:
        counts.append(t)
        t *= 2
    return [*counts, top]


def pairs(make: Callable[[bool], Step], n: int, seconds: float) -> list[tuple[float, float]]:
    """``n`` pairs of (one call, separate kernels) env-steps/s; ``make(one_call)`` builds a stepper, timed with
    ``ONE_CALL_AT_SCALE`` set to ``one_call``."""
    steps = {}
    for fused in (True, False):
        advance.ONE_CALL_AT_SCALE = fused
        steps[fused] = make(fused)
        warm_up(steps[fused], 0.5)
    out = []
    for i in range(n):
        rate = {}
        for fused in ((True, False) if i % 2 == 0 else (False, True)):
            advance.ONE_CALL_AT_SCALE = fused
            rate[fused] = timed_run(steps[fused], seconds)[0]
        out.append((rate[True], rate[False]))
    return out


def summary(row: str, threads: int, batch: int, runs: list[tuple[float, float]]) -> dict[str, Any]:
    ratios = [a / b for a, b in runs]
    return {"row": row, "threads": threads, "batch": batch,
            "one_call_env_steps_per_s": statistics.median(a for a, _ in runs),
            "separate_env_steps_per_s": statistics.median(b for _, b in runs),
            "median_ratio": statistics.median(ratios), "one_call_won": sum(r > 1 for r in ratios),
            "pairs": [list(p) for p in runs]}


def run(threads: list[int], batches: list[int], n: int, seconds: float, interfaces: list[str],
        interface_batch: int, seed: int = 7) -> list[dict[str, Any]]:
    before = advance.ONE_CALL_AT_SCALE, numba.get_num_threads()
    results, torch_threads = [], None
    print(f"{'row':<18}{'threads':>8}{'B':>7}{'one call':>14}{'separate':>14}{'ratio':>8}{'won':>6}", flush=True)
    try:
        for t in threads:
            numba.set_num_threads(t)
            if interfaces:
                import torch  # only where an interface's row runs: the core rows need no torch

                torch_threads = torch.get_num_threads() if torch_threads is None else torch_threads
                torch.set_num_threads(t)
            rows: list[tuple[str, int, Callable[[bool], Step]]] = [
                ("core", b, lambda fused, b=b: core_stepper(b, True, seed, threads=t, one_call=fused))
                for b in batches]
            for name in interfaces:  # their core's threads: numba's setting of this thread, t
                rows.append((name, interface_batch, lambda fused, f=INTERFACES[name]: f(interface_batch, seed)))
            for row, b, make in rows:
                r = summary(row, t, b, pairs(make, n, seconds))
                results.append(r)
                print(f"{row:<18}{t:>8}{b:>7}{r['one_call_env_steps_per_s']:>14,.0f}"
                      f"{r['separate_env_steps_per_s']:>14,.0f}{r['median_ratio']:>8.2f}{r['one_call_won']:>4}/{n}",
                      flush=True)
    finally:  # the caller's settings back (torch's too, where an interface's row set it)
        advance.ONE_CALL_AT_SCALE = before[0]
        numba.set_num_threads(before[1])
        if torch_threads is not None:
            import torch

            torch.set_num_threads(torch_threads)
    return results


def wins(results: list[dict[str, Any]]) -> dict[str, list[int]]:
    """Per row kind (core, torchrl, ...): the thread counts at which the one call's median ratio was above 1 in
    every batch size of that kind."""
    out: dict[str, list[int]] = {}
    for row in dict.fromkeys(r["row"] for r in results):
        counts = sorted({r["threads"] for r in results if r["row"] == row})
        out[row] = [t for t in counts if all(r["median_ratio"] > 1 for r in results
                                             if r["row"] == row and r["threads"] == t)]
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.one_call", description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, nargs="+", default=None, help="numba thread counts (default: 1, 2, 4, "
                    "... up to every core)")
    ap.add_argument("--batches", type=int, nargs="+", default=[1024, 4096], help="batch sizes of the core rows")
    ap.add_argument("--pairs", type=int, default=5, help="pairs per row (default 5)")
    ap.add_argument("--seconds", type=float, default=0.5, help="seconds per timed run (default 0.5)")
    ap.add_argument("--interfaces", nargs="*", choices=sorted(INTERFACES), default=["torchrl", "gymnasium"],
                    help="the interfaces' rows too (default: torchrl gymnasium; none: core rows only)")
    ap.add_argument("--interface-batch", type=int, default=1024, help="their batch size (default 1024)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"the JSON (default {DEFAULT_OUT})")
    args = ap.parse_args(argv)
    top = numba.config.NUMBA_NUM_THREADS
    threads = args.threads or thread_counts()
    if bad := [t for t in threads if not 1 <= t <= top]:
        ap.error(f"--threads {bad}: out of range 1..{top} (NUMBA_NUM_THREADS)")
    if min(args.batches + [args.interface_batch]) < advance.PARALLEL_MIN_BATCH:
        ap.error(f"--batches: at least {advance.PARALLEL_MIN_BATCH} (below it the one call is always taken)")
    results = run(threads, args.batches, args.pairs, args.seconds, args.interfaces, args.interface_batch)
    won = wins(results)
    for row, counts in won.items():
        print(f"{row}: the one call faster (median) at {counts or 'no'} threads")
    report = {"machine": machine(), "one_call_wins_at_threads": won,
              "settings": vars(args) | {"out": str(args.out), "threads": threads}, "rows": results}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    print(f"wrote {args.out}")
    return report


if __name__ == "__main__":
    main()
