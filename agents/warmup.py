"""Compile (or load from numba's cache) the environment's kernels and those of the compiled bots.

    python -m agents.warmup

``python -m subterra_env.warmup`` first (the rules core, the AEC and vector environments), then the heuristic
team (decisions and whole games, at one game and at ``PARALLEL_MIN_BATCH`` games: the serial and the threaded
kernels) and one decision of the search agent (its sampled worlds and the rollouts, threaded). The environment never
imports ``agents``, so the bots' warm-up lives here. Prints one line per part with its time and exits 0; ``make``
runs it at install.
"""

from __future__ import annotations

import argparse
import sys


from subterra_env import warmup
from subterra_env.config import preset
from subterra_env.games.sub_terra.core.jit import PARALLEL_MIN_BATCH
from subterra_env.games.sub_terra.core.portable import use_portable


def _heuristic(batch: int) -> None:
    from subterra_env.vector import BatchedGames

    from .heuristic import HeuristicAgent

    games = BatchedGames(batch, preset("tiny"))
    games.reset()
    agent = HeuristicAgent(games)
    games.step(agent.act_batch(None, games.action_masks()))  # decide
    agent.play(games.core, games.state.copy(), max_round=2)  # whole turns: the heuristic plays every seat


def _search() -> None:
    import subterra_env

    from .heuristic import HeuristicAgent
    from .search import SearchAgent

    env = subterra_env.env(config=preset("tiny"))
    env.reset(seed=0)
    heuristic, search = HeuristicAgent(env), SearchAgent(env, worlds=8)
    for _ in range(200):  # play on to a decision with a choice (the search leaves forced moves to the heuristic)
        obs, _, over, cut, _ = env.last()
        if over or cut:
            env.reset(seed=len(env.agents))
            continue
        mask = obs["action_mask"].astype(bool)
        if mask.sum() > 1:
            search.act(None, mask)
            if search.rollouts:
                return
        env.step(heuristic.act(None, mask))


def phases() -> list[warmup.Phase]:
    par = PARALLEL_MIN_BATCH
    return [
        ("heuristic team, 1 game: decide, play (serial kernels)", lambda: _heuristic(1)),
        (f"heuristic team, {par} games: the same (threaded kernels)", lambda: _heuristic(par)),
        ("search agent: one decision (sampled worlds, threaded rollouts)", _search),
    ]


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(prog="python -m agents.warmup", description=__doc__.splitlines()[0]).parse_args(argv)
    use_portable(False)  # compile this machine's own code into the cache rather than load the shipped portable code
    warmup.run(warmup.phases() + phases(), "subterra_env and agents warm-up")
    return 0


if __name__ == "__main__":
    sys.exit(main())
