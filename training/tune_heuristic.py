"""Tune the compiled heuristic's weights by measurement: coordinate search on seeded games.

    python -m training.tune_heuristic --config configs/full.yaml --games 2000 --seed 0 --sweeps 2 \\
        --out runs/tune/full

Each step scales one weight (``agents/heuristic/weights.py``) by each factor of ``--factors`` and plays the same
``--games`` seeded games with the whole team on the new weights (one compiled call, every core); a change is kept
when it raises the mean cavers out by more than ``--z`` standard errors of the paired per-game difference. Tune on
seeds that the evaluation does not use (training/evaluate.py's defaults start at 0: pass another ``--seed`` there,
or tune elsewhere), since the kept changes are selected on these games.

Writes ``tuned.json`` (weights, the measured means, every trial) under ``--out`` and prints the trials as a table.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Sequence

import numpy as np

from agents.heuristic import DEFAULT_WEIGHTS, HeuristicAgent
from subterra_env.config import load
from subterra_env.games.sub_terra.core.kernels import cavers_out_batch
from subterra_env.games.sub_terra.core.rules import Core

MAX_CYCLES = 200
# Weights that are switches or thresholds on whole numbers are stepped by one instead of scaled.
STEPPED = ("exert_hp", "exit_exert_hp", "urgent_cards", "heal_at_1")


def play(core: Core, seeds: np.ndarray, weights: dict[str, float]) -> np.ndarray:
    """Cavers out per game for the heuristic team on these weights."""
    st = core.init(seeds)
    agent = HeuristicAgent(SimpleNamespace(core=core, state=st), **weights)
    agent.play(core, st, max_round=MAX_CYCLES)
    out = np.empty(st.batch_size, dtype=np.int64)
    cavers_out_batch(st.packed, out)
    return out


def candidates(name: str, value: float, factors: Sequence[float]) -> list[float]:
    if name in STEPPED:
        return [v for v in (value - 1, value + 1) if v >= 0 and (name != "heal_at_1" or v <= 1)]
    return [round(value * f, 4) for f in factors if value * f != value] or [0.5, 1.0]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default="configs/full.yaml")
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--seed", type=int, default=500000, help="first game seed (games use seed .. seed+games-1)")
    p.add_argument("--sweeps", type=int, default=1)
    p.add_argument("--factors", type=float, nargs="+", default=[0.5, 1.5])
    p.add_argument("--z", type=float, default=2.0)
    p.add_argument("--only", nargs="+", help="tune these weights only")
    p.add_argument("--out", default="runs/tune/latest")
    args = p.parse_args(argv)
    core = Core(load(args.config))
    seeds = np.arange(args.seed, args.seed + args.games)
    weights = dict(DEFAULT_WEIGHTS)
    best = play(core, seeds, weights)
    start = time.perf_counter()
    print(f"start: {best.mean():.3f} cavers out over {args.games} games ({args.config})")
    trials = []
    names = args.only or list(DEFAULT_WEIGHTS)
    for sweep in range(args.sweeps):
        for name in names:
            for value in candidates(name, weights[name], args.factors):
                trial = {**weights, name: value}
                got = play(core, seeds, trial)
                diff = got - best
                se = float(diff.std(ddof=1) / np.sqrt(len(diff)))
                keep = diff.mean() > args.z * se and diff.mean() > 0
                trials.append({"sweep": sweep, "weight": name, "value": value, "mean": float(got.mean()),
                               "gain": float(diff.mean()), "se": se, "kept": bool(keep)})
                print(f"sweep {sweep} {name:>14} {weights[name]:>7.3f} -> {value:>7.3f}: {got.mean():.3f} "
                      f"({diff.mean():+.3f} ± {se:.3f}){'  kept' if keep else ''}", flush=True)
                if keep:
                    weights, best = trial, got
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    result = {"config": args.config, "games": args.games, "seed": args.seed, "start": float(play(
        core, seeds, dict(DEFAULT_WEIGHTS)).mean()), "tuned": float(best.mean()), "weights": weights,
        "changed": {k: v for k, v in weights.items() if v != DEFAULT_WEIGHTS[k]}, "trials": trials,
        "seconds": time.perf_counter() - start}
    (out / "tuned.json").write_text(json.dumps(result, indent=1))
    print(f"tuned: {best.mean():.3f} (from {result['start']:.3f}); changed: {result['changed']}; "
          f"wrote {out / 'tuned.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
