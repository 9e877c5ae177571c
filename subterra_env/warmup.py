"""Compile (or load from numba's cache) every kernel of the environment ahead of its first use.

    python -m subterra_env.warmup

The first process after installing (or after any edit of the rules) compiles the rules core, a minute or more on
a small machine; every later process loads the machine code from the cache (``subterra_env/games/sub_terra/core/jit.py``) in
about a second. ``make`` runs this at install so the first game, test or training run starts warm. It compiles this
machine's own code even where the portable code shipped with the package (``core/portable.py``) would load: that is
the faster one. It plays a few
steps through the rules core, the AEC environment and the vector environment at one game (the serial kernels) and
at ``PARALLEL_MIN_BATCH`` games (the threaded ones), prints what it did and how long it took, and exits 0.
``python -m agents.warmup`` does the same for the compiled bots (the heuristic team and the search agent).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np

from .games.sub_terra.core import jit
from .games.sub_terra.core.portable import use_portable

Phase = tuple[str, Callable[[], object]]


def _random_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One legal action per row (rows without one, ended games, get 0)."""
    noise = rng.random(masks.shape) * masks
    return noise.argmax(axis=1).astype(np.int64)


def _core(batch: int) -> None:
    from .games.sub_terra.core.observe import copy_observations, observe
    from .games.sub_terra.core.rules import Core
    from .rewards import TeamReward

    core = Core()
    st = core.init(np.arange(batch))
    rng = np.random.default_rng(0)
    # shaped: reads cavers out, ways and horror danger (compiled)
    reward = TeamReward(escape=1.0, health=0.1, tile=0.1, way=0.1, danger=-0.1)
    for _ in range(3):
        before = reward.snapshot(st, core.params)
        core.step(st, _random_actions(rng, core.legal_mask(st)))
        reward(before, st, core.params)
        grid, _ = observe(core.cat, st, np.maximum(st.actor, 0), 7)
        copy_observations(grid, np.empty_like(grid))  # the TorchRL env's copy (parallel at PARALLEL_MIN_BATCH)
    core.reset(st, np.arange(batch), np.arange(batch) + batch)


def _aec() -> None:
    import subterra_env

    env = subterra_env.env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(3):
        obs, *_ = env.last()
        env.step(int(_random_actions(rng, obs["action_mask"][None].astype(bool))[0]))
    env.unwrapped.state()


def _vector(num_envs: int) -> None:
    from .config import preset
    from .vector import BatchedGames

    # the one compiled call, then a shaped team reward's separate kernels (its bookkeeping: after_step)
    for shaping in ({}, {"reward_escape": 1.0}):
        games = BatchedGames(num_envs, preset("tiny"), max_cycles=1, **shaping)  # one round: games end, autoreset
        games.reset()
        rng = np.random.default_rng(0)
        for _ in range(500):
            *_, ended = games.step(_random_actions(rng, games.action_masks()))
            if ended:
                break
        # every slot's autoreset at once: at PARALLEL_MIN_BATCH slots the threaded restart (core/restart.py), which
        # random play reaches only where many games end in one step
        slots = np.arange(num_envs)
        games.game.restart(games.state, slots, slots + 1, games.mask, games.book)


def _scenario() -> None:
    from . import scenario
    from .games.sub_terra.core.invariants import check_invariants, snapshot
    from .games.sub_terra.core.rules import Core

    core = Core()
    st = scenario.build("map:\n  start:NESW  normal:EW\ncavers: scout@0,0 medic@1,0\nstack: normal:I exit\n",
                        core=core)
    before = snapshot(st)
    core.step(st, _random_actions(np.random.default_rng(0), core.legal_mask(st)))
    check_invariants(core.cfg, before, st, core.legal_mask(st))


def phases() -> list[Phase]:
    """(what, call) for every part of the environment that runs compiled code."""
    from .games.sub_terra.core.jit import PARALLEL_MIN_BATCH as par

    return [
        ("rules core, 1 game: setup, mask, step, observe (serial kernels)", lambda: _core(1)),
        (f"rules core, {par} games: the same (threaded kernels)", lambda: _core(par)),
        ("AEC env: reset, steps, state()", _aec),
        ("vector env, 1 slot: steps to an autoreset, plain and shaped", lambda: _vector(1)),
        (f"vector env, {par} slots: the same (threaded kernels)", lambda: _vector(par)),
        ("scenario map, invariant checks", _scenario),
    ]


def cache_location() -> str:
    """Where the rules core's machine code is cached, as the compile notice names it."""
    import numba

    return jit.describe_cache(numba.config.CACHE_DIR)


def run(steps: list[Phase], title: str, out=sys.stdout) -> float:
    """Run the phases, one line each with its time; then a summary of what compiled. Returns the total seconds."""
    print(f"{title} (numba cache: {cache_location()})", file=out, flush=True)
    t_all = time.perf_counter()
    for what, call in steps:
        t0 = time.perf_counter()
        call()
        print(f"  {what:<66} {time.perf_counter() - t0:7.2f} s", file=out, flush=True)
    total = time.perf_counter() - t_all
    stats = jit.compile_stats()
    if stats:
        parts = ", ".join(f"{what}: {n} kernel{'s' * (n != 1)} in {s:.1f} s" for what, (n, s) in stats.items())
        print(f"done in {total:.1f} s; compiled {parts}; later starts load them from the cache", file=out)
    else:
        print(f"done in {total:.1f} s; everything loaded from the cache", file=out)
    return total


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(prog="python -m subterra_env.warmup", description=__doc__.splitlines()[0]).parse_args(argv)
    use_portable(False)  # compile this machine's own code into the cache rather than load the shipped portable code
    run(phases(), "subterra_env warm-up")
    return 0


if __name__ == "__main__":
    sys.exit(main())
