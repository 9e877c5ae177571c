"""Steps per second of the PettingZoo AEC environment under random legal play (one game at a time).

    python benchmarks/aec_speed.py [--seconds 5] [--repeats 3]

Prints a table and writes benchmarks/results/aec_speed.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import numpy as np

import subterra_env


def run(seconds: float, seed: int) -> tuple[float, float]:
    env = subterra_env.env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            if not env.agents:
                games += 1
                env.reset()
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, games / elapsed


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    runs = [run(args.seconds, seed) for seed in range(args.repeats)]
    sps = statistics.median(r[0] for r in runs)
    gps = statistics.median(r[1] for r in runs)
    print(f"{'benchmark':<32}{'steps/s':>12}{'games/s':>10}")
    print(f"{'AEC env, random legal, 1 game':<32}{sps:>12,.0f}{gps:>10.1f}")
    out = Path(__file__).parent / "results" / "aec_speed.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"aec_steps_per_s": sps, "aec_games_per_s": gps, "repeats": args.repeats,
                               "seconds": args.seconds, "machine": platform.platform(),
                               "python": platform.python_version(), "numpy": np.__version__}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
