"""Evaluate In the Cave teams against each other: ``python -m agents.in_the_cave.evaluate --games 200``.

Plays seeded 2-player games of the heuristic against the random team, seats alternating (game i: the heuristic
sits in seat i % 2; the game seed is i), through the compiled core directly (the same rules as the env).
Reports the heuristic's win rate (a shared win counts as half) with a 95% Wilson interval, mean final scores,
how often each side was eliminated (not home at the end), and the truncated games (no result: not wins).
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

import numpy as np

from subterra_env.in_the_cave import preset
from subterra_env.in_the_cave.core import layout as L
from subterra_env.in_the_cave.core.game import ItcCore

from .heuristic import heuristic_action


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def play(core: ItcCore, seed: int, heuristic_seat: int) -> np.ndarray:
    """One game: the heuristic in ``heuristic_seat``, a seeded uniformly random team in the other."""
    rng = np.random.default_rng(seed + 1_000_003)
    G = core.init([seed])
    while G[0, L.OVER] == L.RUNNING:
        mask = core.masks(G)[0]
        if int(G[0, L.ACTOR]) == heuristic_seat:
            a = heuristic_action(G[0], core.P, mask)
        else:
            a = int(rng.choice(np.flatnonzero(mask)))
        core.step(G, [a])
    return G[0]


def evaluate(games: int, **settings: Any) -> dict[str, Any]:
    core = ItcCore(preset("default", num_players=2, **settings))
    wins, truncated, h_scores, r_scores, h_out, r_out = 0.0, 0, [], [], 0, 0
    for i in range(games):
        h = i % 2
        g = play(core, i, h)
        if g[L.OVER] == L.TRUNCATED:
            truncated += 1
            continue
        win = g[L.WIN:L.WIN + 2]
        wins += 1.0 if win[h] and not win[1 - h] else 0.5 if win[h] else 0.0
        h_scores.append(int(g[L.SCORE + h]))
        r_scores.append(int(g[L.SCORE + 1 - h]))
        h_out += int(g[L.POS + h] != 0)
        r_out += int(g[L.POS + 1 - h] != 0)
    lo, hi = wilson(wins, games)
    done = games - truncated
    flo, fhi = wilson(wins, done)
    return {"games": games, "heuristic_win_rate": wins / games, "ci95": [round(lo, 4), round(hi, 4)],
            "truncated": truncated, "finished": done,
            "win_rate_of_finished": wins / done if done else None,
            "ci95_of_finished": [round(flo, 4), round(fhi, 4)],
            "heuristic_mean_score": float(np.mean(h_scores)) if h_scores else None,
            "random_mean_score": float(np.mean(r_scores)) if r_scores else None,
            "heuristic_eliminated": h_out, "random_eliminated": r_out, "settings": settings}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--max-rounds", type=int, default=100)
    args = ap.parse_args()
    print(json.dumps(evaluate(args.games, max_rounds=args.max_rounds), indent=2))


if __name__ == "__main__":
    main()
