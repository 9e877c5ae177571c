"""What one observation costs a game as the batch grows: the compiled writer against the bytes it writes.

    python -m benchmarks.observe_cost                                  # B = 64 ... 4096, radius 7 and 2
    python -m benchmarks.observe_cost --batches 1024 4096 --radii 7 --repeats 31 --out /tmp/obs.json

For each batch size B and window radius, the games are played ``--decisions`` random legal decisions into the
game first (finished ones restarted), so their boards hold tiles as mid-game boards do. Then, on the same states
(and arrays of the same shapes), interleaved and ``--repeats`` times each (the median reported), in nanoseconds a game:

    observe, 1 thread       ``core.observe.observe(..., threads=1)``
    observe                 the same on numba's default threads (every core), as the step + mask + obs rows run it
    bytes alone             observation arrays zeroed by the same threads and nothing computed (what the writer
                            does first for every game): the memory floor of writing these bytes

The batches share a cache level when small: a writer whose cost a game grows with B while the bytes a game do not
change is bound by where the state and the observations live (the 2-core VM's L3 is 32 MB: at B = 1024 and the
default window the state and the observations take 2.5 + 7.8 MB, at B = 4096 10 + 31 MB). Prints a table, writes
JSON (default benchmarks/results/observe_cost.json). Wall clock on a shared machine: indicative; run it twice.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import numpy as np

from benchmarks.sps import RandomLegal, observation_bytes_stepper
from subterra_env.config import GameConfig
from subterra_env.games.sub_terra.core.observe import observe
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RUNNING, State
from subterra_env.spaces import grid_shape, num_scalars

DEFAULT_OUT = Path(__file__).parent / "results" / "observe_cost.json"
ROWS = ("observe, 1 thread", "observe", "bytes alone")


def mid_game(batch: int, decisions: int, seed: int) -> tuple[Core, State]:
    """B games after ``decisions`` random legal decisions each (finished games restarted from fresh seeds)."""
    core = Core(GameConfig())
    st = core.init(np.arange(batch) + (seed << 32))
    policy, next_seed = RandomLegal(np.random.default_rng(seed), batch), (seed << 32) + batch
    for _ in range(decisions):
        core.step(st, policy(core.legal_mask(st)), check=False)
        done = np.flatnonzero(st.result != RUNNING)
        if len(done):
            core.reset(st, done, np.arange(next_seed, next_seed + len(done)))
            next_seed += len(done)
    return core, st


def callers(core: Core, st: State, radius: int) -> dict[str, Callable[[], Any]]:
    b = st.batch_size
    grid = np.zeros((b, *grid_shape(radius)), dtype=np.int8)
    scalars = np.zeros((b, num_scalars()), dtype=np.int8)
    seats = np.maximum(st.actor, 0)
    return {"observe, 1 thread": lambda: observe(core.cat, st, seats, radius, grid, scalars, threads=1),
            "observe": lambda: observe(core.cat, st, seats, radius, grid, scalars),
            "bytes alone": observation_bytes_stepper(b, radius)}  # its own arrays, of the same shapes


def measure(calls: dict[str, Callable[[], Any]], repeats: int) -> dict[str, list[float]]:
    """Seconds of every call, the calls interleaved (a busy spell of the machine falls on each alike)."""
    for call in calls.values():  # compile and warm
        call()
        call()
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return times


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batches", type=int, nargs="+", default=[64, 256, 1024, 4096], metavar="B")
    p.add_argument("--radii", type=int, nargs="+", default=[7, 2], metavar="R",
                   help="observation window radii [default: 7 (the env's 15 x 15) and 2 (the trainer's 5 x 5)]")
    p.add_argument("--repeats", type=int, default=21, help="timed calls of each row, median reported [default: 21]")
    p.add_argument("--decisions", type=int, default=80,
                   help="random legal decisions played into every game before timing [default: 80]")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"JSON results [default: {DEFAULT_OUT}]")
    args = p.parse_args(argv)
    if min(args.batches) < 1 or args.repeats < 1 or args.decisions < 0 or min(args.radii) < 0:
        p.error("batch sizes and --repeats must be >= 1, --decisions and radii >= 0")
    return args


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    args = parse_args(argv)
    print(f"ns a game, median of {args.repeats}; {numba.get_num_threads()} numba threads\n")
    print(f"{'B':>6} {'radius':>6} {'tiles':>6} {'KB a game':>9} " + " ".join(f"{n:>18}" for n in ROWS))
    rows = []
    for b in args.batches:
        core, st = mid_game(b, args.decisions, args.seed)
        for radius in args.radii:
            times = measure(callers(core, st, radius), args.repeats)
            ns = {name: statistics.median(t) / b * 1e9 for name, t in times.items()}
            kb = (np.prod(grid_shape(radius)) + num_scalars()) / 1000
            row = {"batch": b, "radius": radius, "tiles_mean": float(st.n_tiles.mean()), "kb_per_game": float(kb),
                   "ns_per_game": ns, "samples_s": times}
            rows.append(row)
            print(f"{b:>6} {radius:>6} {row['tiles_mean']:>6.1f} {kb:>9.2f} "
                  + " ".join(f"{ns[n]:>18,.0f}" for n in ROWS), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"threads": numba.get_num_threads(), "settings": {
        k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}, "rows": rows}, indent=2))
    print(f"wrote {args.out}")
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
