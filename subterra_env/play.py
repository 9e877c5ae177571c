"""Play one seeded game with random legal agents and print the cave and the result.

    python -m subterra_env.play --seed 7 [--every] [--num-cavers 5] [--difficulty advanced]
"""

from __future__ import annotations

import argparse

from agents import RandomAgent

from .config import GameConfig
from .core.actions import ACTION_NAMES
from .env import raw_env
from .info import result_name


def play(seed: int, config: GameConfig, show_every_round: bool = False) -> dict:
    game = raw_env(config, render_mode="ansi")
    game.reset(seed=seed)
    bots = {a: RandomAgent(seed + i) for i, a in enumerate(game.possible_agents)}
    last_round, decisions = 1, 0
    for agent in game.agent_iter():
        obs, _, term, trunc, info = game.last()
        if term or trunc:
            game.step(None)
            continue
        action = bots[agent].act(obs["observation"], obs["action_mask"])
        game.step(action)
        decisions += 1
        if show_every_round and game.state_.round[0] != last_round:
            last_round = int(game.state_.round[0])
            print(f"--- after {agent}: {ACTION_NAMES[action]}, round {last_round} begins")
            print(game.render())
    print(game.render())
    final = dict(info)
    final["decisions"] = decisions
    return final


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--num-cavers", type=int, default=4)
    p.add_argument("--difficulty", default="normal")
    p.add_argument("--every", action="store_true", help="print the cave after every round")
    args = p.parse_args(argv)
    cfg = GameConfig(num_cavers=args.num_cavers, difficulty=args.difficulty)
    info = play(args.seed, cfg, args.every)
    print(f"result: {result_name(info['result'])} (escaped {info['escaped']}, rounds {info['round']}, "
          f"decisions {info['decisions']})")


if __name__ == "__main__":
    main()
