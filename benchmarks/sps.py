"""Steps per second of every interface to the Sub Terra rules, with reference PettingZoo games, in one run.

    python benchmarks/sps.py                       # full run: about 2 min on a 2-core machine
    python benchmarks/sps.py --quick               # seconds: B up to 256, 0.2 s, 1 repeat (the smoke test)
    python benchmarks/sps.py --batches 1 64 4096 --seconds 5 --repeats 5 --out /tmp/sps.json

Rows (every one under random legal play, timed by the same loop, median of ``--repeats`` runs):

    aec        the PettingZoo AEC env, ``subterra_env.env()``, one game
    core       the compiled ``Core`` at each batch size B: "step+mask" (legal_mask + step) and "step+mask+obs"
               (also the acting cavers' observations, radius 7, into preallocated arrays); finished games are
               re-initialised in place, so every call steps B live games. The actions come from the mask, so
               the step runs unchecked (``check=False``, as the vector envs do); at B = 4096 (or the largest B)
               two more rows: 1 thread (``Core(threads=1)``) beside numba's default (every core), and the
               default checked step (each action tested against a freshly computed mask)
    vector     the stable-baselines3 VecEnv and the gymnasium VectorEnv at ``--num-envs`` slots
    reference  PettingZoo's connect_four_v3 and hanabi_v5 (4 players), when installed (``pip install -e .[bench]``)

Columns: env-steps/s (decisions taken per second over all games), batch calls/s, µs per call, games finished/s.
The core's batch starts with B new games, so at large B, where a run is a few dozen calls and a random game about
a hundred decisions, games/s is below its steady state (about env-steps/s / decisions per game).
The random policy of the core rows is a compiled loop (``random_legal``), so that the rows time the engine
rather than numpy's random-number calls. A row whose import fails prints "not installed (reason)" instead of
crashing. Memory: State.nbytes_per_game()
and the tracemalloc peak per game of init + a few step+mask+obs calls at the largest B. The JSON (default
benchmarks/results/sps.json) also records the machine. Timings are wall clock on a shared machine: indicative.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
import time
import tracemalloc
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable

import numba
import numpy as np

import subterra_env
from subterra_env.config import GameConfig
from subterra_env.core.observe import NUM_GRID_CHANNELS, NUM_SCALARS, observe
from subterra_env.core.jit import PARALLEL_MIN_BATCH
from subterra_env.core.rules import Core
from subterra_env.core.state import RUNNING

# One timed call: returns (env-steps taken, games finished) during the call.
Step = Callable[[], tuple[int, int]]

DEFAULT_BATCHES = (1, 16, 256, 1024, 4096, 16384)
QUICK_BATCHES = (1, 16, 256)
DEFAULT_OUT = Path(__file__).parent / "results" / "sps.json"
OBS_RADIUS = 7
WARMUP_CALLS = 3
MEMORY_CALLS = 5
# Reference games: (module under pettingzoo.classic, registry id, settings).
REFERENCES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("connect_four_v3", "classic/connect_four-v3", {}),
    ("hanabi_v5", "classic/hanabi-v5", {"players": 4}),
)


@dataclass
class Row:
    """One line of the table (and of the JSON's "rows")."""

    kind: str  # aec | core | vector | reference
    name: str
    batch: int
    status: str = "ok"  # or "not installed (reason)"
    env_steps_per_s: float = 0.0
    calls_per_s: float = 0.0
    us_per_call: float = 0.0
    games_per_s: float = 0.0
    samples: list[float] = field(default_factory=list)  # env-steps/s of every repeat, sorted


# ---------------------------------------------------------------------------------------------- timing
def timed_run(step: Step, seconds: float) -> tuple[float, float, float]:
    """Call ``step`` for ``seconds``; returns (env-steps/s, calls/s, games/s)."""
    steps = games = calls = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        s, g = step()
        steps, games, calls = steps + s, games + g, calls + 1
    return steps / elapsed, calls / elapsed, games / elapsed


def measure(kind: str, name: str, batch: int, make_step: Callable[[], Step], seconds: float, repeats: int) -> Row:
    """The row of one benchmark: warm up, then the median (by env-steps/s) of ``repeats`` timed runs.

    An ImportError while building the stepper gives a "not installed" row instead of an exception."""
    try:
        step = make_step()
    except ImportError as e:
        return Row(kind, name, batch, status=f"not installed ({type(e).__name__}: {e})")
    for _ in range(WARMUP_CALLS):
        step()
    runs = sorted(timed_run(step, seconds) for _ in range(repeats))
    sps, cps, gps = runs[len(runs) // 2]
    return Row(kind, name, batch, env_steps_per_s=sps, calls_per_s=cps, us_per_call=1e6 / cps if cps else 0.0,
               games_per_s=gps, samples=[r[0] for r in runs])


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of a (B, A) mask (the batched policy of every vector row)."""
    out = np.empty(len(mask), dtype=np.int64)
    _pick_legal(mask, rng.integers(0, 2**62, size=len(mask)), out)
    return out


class RandomLegal:
    """random_legal with the random numbers drawn in blocks: at B = 1 a draw per call would cost as much as the
    engine's own step."""

    def __init__(self, rng: np.random.Generator, batch: int, block: int = 4096):
        self.rng, self.batch, self.block = rng, batch, max(block, batch)
        self.draws, self.pos = rng.integers(0, 2**62, size=self.block), self.block
        self.out = np.empty(batch, dtype=np.int64)

    def __call__(self, mask: np.ndarray) -> np.ndarray:
        if self.pos + self.batch > self.block:
            self.draws, self.pos = self.rng.integers(0, 2**62, size=self.block), 0
        _pick_legal(mask, self.draws[self.pos:self.pos + self.batch], self.out)
        self.pos += self.batch
        return self.out


@numba.njit(cache=True)
def _pick_legal(mask: np.ndarray, draws: np.ndarray, out: np.ndarray) -> None:
    for b in range(mask.shape[0]):
        n = 0
        for a in range(mask.shape[1]):
            n += mask[b, a]
        k = draws[b] % max(n, 1)
        out[b] = 0
        for a in range(mask.shape[1]):
            if mask[b, a]:
                if k == 0:
                    out[b] = a
                    break
                k -= 1


# ---------------------------------------------------------------------------------------------- steppers
def aec_stepper(make_env: Callable[[], Any], seed: int) -> Step:
    """One decision per call in any PettingZoo AEC env with ``action_mask`` observations; resets finished games."""
    env = make_env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)

    def step() -> tuple[int, int]:
        games = 0
        while True:
            if not env.agents:
                env.reset()
                games += 1
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            return 1, games

    return step


def core_stepper(batch: int, with_obs: bool, seed: int, config: GameConfig | None = None,
                 threads: int | None = None, checked: bool = False) -> Step:
    """One batched call of the core: legal_mask (+ observe) + step; finished games re-initialised in place.

    The actions come from the mask just computed, so the step skips its own legality check (``check=False``, as
    the vector envs do) unless ``checked``."""
    core = Core(config or GameConfig(), threads=threads)
    next_seed = seed << 32  # game seeds seed<<32, seed<<32 + 1, ...: a fresh game for every reset
    st = core.init(np.arange(next_seed, next_seed + batch))
    next_seed += batch
    policy = RandomLegal(np.random.default_rng(seed), batch)
    w = 2 * OBS_RADIUS + 1
    grid = np.zeros((batch, NUM_GRID_CHANNELS, w, w), dtype=np.int8) if with_obs else None
    scalars = np.zeros((batch, NUM_SCALARS), dtype=np.int8)
    mask = np.zeros((batch, core.num_actions), dtype=bool)

    def step() -> tuple[int, int]:
        nonlocal next_seed
        core.legal_mask(st, out=mask)
        if grid is not None:  # every game runs (finished ones are replaced below), so every actor is a seat
            observe(core.cat, st, st.actor, OBS_RADIUS, grid, scalars)
        core.step(st, policy(mask), check=checked)
        done = np.flatnonzero(st.result != RUNNING)
        if len(done):
            core.reset(st, done, np.arange(next_seed, next_seed + len(done)))
            next_seed += len(done)
        return batch, len(done)

    return step


def sb3_stepper(num_envs: int, seed: int) -> Step:
    """The stable-baselines3 VecEnv (needs the train extra), actions from ``action_masks()``."""
    from subterra_env.sb3 import SubterraVecEnv

    venv = SubterraVecEnv(num_envs=num_envs, seed=seed)
    venv.reset()
    rng = np.random.default_rng(seed)

    def step() -> tuple[int, int]:
        _, _, dones, _ = venv.step(random_legal(rng, venv.action_masks()))
        return num_envs, int(dones.sum())

    return step


def gym_vector_stepper(num_envs: int, seed: int) -> Step:
    """The gymnasium VectorEnv, actions from ``info["action_mask"]``."""
    from subterra_env.vector import SubterraVectorEnv

    venv = SubterraVectorEnv(num_envs)
    _, info = venv.reset(seed=seed)
    rng = np.random.default_rng(seed)

    def step() -> tuple[int, int]:
        nonlocal info
        _, _, term, trunc, info = venv.step(random_legal(rng, info["action_mask"]))
        return num_envs, int((term | trunc).sum())

    return step


def pettingzoo_classic(module: str, env_id: str, **kwargs: Any) -> Callable[[], Any]:
    """A factory of a PettingZoo classic game; any failure to build it is raised as ImportError (with the reason)."""

    def make() -> Any:
        try:
            import pettingzoo

            if hasattr(pettingzoo, "make"):  # the registry API (PettingZoo >= 1.27); the module API warns
                return pettingzoo.make("aec", env_id, **kwargs)
            return importlib.import_module(f"pettingzoo.classic.{module}").env(**kwargs)
        except ImportError:
            raise
        except Exception as e:  # e.g. gymnasium's DependencyNotInstalled, an unknown env id
            raise ImportError(f"{type(e).__name__}: {e}") from e

    return make


# ---------------------------------------------------------------------------------------------- rows
def run_rows(batches: list[int], num_envs: int, seconds: float, repeats: int, seed: int) -> list[Row]:
    def row(kind: str, name: str, batch: int, make_step: Callable[[], Step]) -> Row:
        r = measure(kind, name, batch, make_step, seconds, repeats)
        print_row(r, flush=True)
        return r

    print_header()
    rows = [row("aec", "subterra AEC env (PettingZoo)", 1, partial(aec_stepper, subterra_env.env, seed))]
    for b in batches:
        for with_obs, variant in ((False, "step+mask"), (True, "step+mask+obs")):
            rows.append(row("core", f"core {variant}", b, partial(core_stepper, b, with_obs, seed)))
    if max(batches) >= PARALLEL_MIN_BATCH and numba.get_num_threads() > 1:
        b = 4096 if 4096 in batches else max(batches)  # the 1-vs-2-thread comparison is at B = 4096
        rows.append(row("core", "core step+mask+obs, 1 thread", b, partial(core_stepper, b, True, seed,
                                                                             threads=1)))
        rows.append(row("core", "core step+mask+obs, checked", b, partial(core_stepper, b, True, seed,
                                                                            checked=True)))
    rows.append(row("vector", "SB3 VecEnv", num_envs, partial(sb3_stepper, num_envs, seed)))
    rows.append(row("vector", "gymnasium VectorEnv", num_envs, partial(gym_vector_stepper, num_envs, seed)))
    for module, env_id, kwargs in REFERENCES:
        label = module + "".join(f" {k}={v}" for k, v in kwargs.items())
        make_env = pettingzoo_classic(module, env_id, **kwargs)
        rows.append(row("reference", label, 1, partial(aec_stepper, make_env, seed)))
    return rows


def memory_per_game(batch: int, seed: int) -> dict[str, float]:
    """State bytes per game, and the tracemalloc peak per game of init + MEMORY_CALLS step+mask+obs calls."""
    tracemalloc.start()
    try:
        step = core_stepper(batch, True, seed)
        for _ in range(MEMORY_CALLS):
            step()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    state_bytes = Core(GameConfig()).init(np.arange(1)).nbytes_per_game()
    return {"batch": batch, "state_bytes_per_game": state_bytes, "peak_traced_bytes_per_game": peak / batch,
            "peak_traced_mib": peak / 2**20, "calls": MEMORY_CALLS}


# ---------------------------------------------------------------------------------------------- output
COLUMNS = (("benchmark", 32, "<"), ("B", 6, ">"), ("env-steps/s", 13, ">"), ("calls/s", 11, ">"),
           ("µs/call", 11, ">"), ("games/s", 10, ">"))
STATUS_WIDTH = 100  # a "not installed (reason)" is cut to this in the table (the JSON keeps all of it)


def print_header() -> None:
    print("".join(f"{title:{align}{width}}" for title, width, align in COLUMNS))
    print("-" * sum(width for _, width, _ in COLUMNS))


def print_row(r: Row, flush: bool = False) -> None:
    head = f"{r.name:<32}{r.batch:>6}"
    if r.status != "ok":
        status = r.status if len(r.status) <= STATUS_WIDTH else r.status[:STATUS_WIDTH - 4] + "...)"
        print(f"{head}  {status}", flush=flush)
        return
    print(f"{head}{r.env_steps_per_s:>13,.0f}{r.calls_per_s:>11,.1f}{r.us_per_call:>11,.0f}{r.games_per_s:>10,.1f}",
          flush=flush)


def machine() -> dict[str, Any]:
    return {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(), "numba_threads": numba.get_num_threads(),
            "python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
            "subterra_env": subterra_env.__version__}


# ---------------------------------------------------------------------------------------------- main
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batches", type=int, nargs="+", default=None, metavar="B",
                   help=f"core batch sizes [default: {' '.join(map(str, DEFAULT_BATCHES))}; "
                        f"{' '.join(map(str, QUICK_BATCHES))} with --quick]")
    p.add_argument("--num-envs", type=int, default=256,
                   help="slots of the SB3 and gymnasium vector envs [default: 256]")
    p.add_argument("--seconds", type=float, default=None,
                   help="length of one timed run [default: 2; 0.2 with --quick]")
    p.add_argument("--repeats", type=int, default=None,
                   help="timed runs per row, the median is reported [default: 3; 1 with --quick]")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the games and of the random policies [default: 0]")
    p.add_argument("--quick", action="store_true",
                   help="a tiny run for smoke tests: the smaller defaults above")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help="where to write the JSON results [default: benchmarks/results/sps.json]")
    args = p.parse_args(argv)
    args.batches = args.batches or list(QUICK_BATCHES if args.quick else DEFAULT_BATCHES)
    args.seconds = args.seconds if args.seconds is not None else (0.2 if args.quick else 2.0)
    args.repeats = args.repeats if args.repeats is not None else (1 if args.quick else 3)
    if min(args.batches) < 1 or args.num_envs < 1 or args.seconds <= 0 or args.repeats < 1:
        p.error("batch sizes, --num-envs and --repeats must be >= 1 and --seconds > 0")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run every row, print the table, write the JSON; returns what was written."""
    args = parse_args(argv)
    print(f"{args.repeats} x {args.seconds:g} s per row (median reported); {os.cpu_count()} CPUs, "
          f"{numba.get_num_threads()} numba threads, Python {platform.python_version()}, numpy {np.__version__}, "
          f"numba {numba.__version__}\n")
    rows = run_rows(args.batches, args.num_envs, args.seconds, args.repeats, args.seed)
    memory = memory_per_game(max(args.batches), args.seed)
    print(f"\nmemory: state {memory['state_bytes_per_game']:,} B/game; tracemalloc peak "
          f"{memory['peak_traced_bytes_per_game']:,.0f} B/game (init + {MEMORY_CALLS} step+mask+obs calls "
          f"at B={memory['batch']}, {memory['peak_traced_mib']:,.1f} MiB)")
    result = {"machine": machine(), "settings": {k: str(v) if isinstance(v, Path) else v
                                                 for k, v in vars(args).items()},
              "rows": [asdict(r) for r in rows], "memory": memory}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(f"wrote {args.out}")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
