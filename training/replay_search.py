"""Replay a search setting on decisions whose every action was valued in many futures: its true gain per decision.

    python -m training.replay_search runs/headroom/headroom.npz --seed 7 \\
        --weight time_w=1.0 --weight heal_at_1=1 --weight hide=1.0 --horizon 4 --worlds 32 --z 1.0

``python -m training.search_headroom --states FILE.npz`` keeps sampled decisions with each legal action's mean cavers
out over many futures (its ``--worlds``, played to the end by the heuristic team): the truth. Here ``SearchAgent`` (the
given settings, or its defaults) decides each of those decisions afresh, in futures of its own, and the decision is
scored by the truth: the chosen action's value less the heuristic's choice's. The mean over the decisions, with its 95%
interval, is what the setting gains per decision; the table also gives how often it left the heuristic's choice and its
wall-clock milliseconds per decision (one thread). ``--weight NAME=VALUE`` sets the heuristic's weights to those the
states were valued with (the file does not record them; ``agents/heuristic/weights.py``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Sequence

import numpy as np

from agents.heuristic import DEFAULT_WEIGHTS
from agents.search import SearchAgent
from subterra_env.config import load
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import State


def parse_weight(text: str) -> tuple[str, float]:
    name, _, value = text.partition("=")
    if name not in DEFAULT_WEIGHTS or not value:
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME=VALUE with NAME one of {sorted(DEFAULT_WEIGHTS)}")
    try:
        return name, float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: {value!r} is not a number") from None


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("states", help="an npz written by python -m training.search_headroom --states")
    p.add_argument("--seed", type=int, default=0, help="the search's seed")
    p.add_argument("--worlds", type=int, help="the search's worlds (default: its own)")
    p.add_argument("--more-worlds", type=int, help="its further worlds for the contenders (default: its own)")
    p.add_argument("--horizon", type=int, help="rounds before the value estimate, 0 to the end (default: its own)")
    p.add_argument("--z", type=float, help="standard errors an action needs over the heuristic's (default: its own)")
    p.add_argument("--weight", type=parse_weight, action="append", default=[], metavar="NAME=VALUE",
                   help="a heuristic weight the states were valued with (repeat for each)")
    p.add_argument("--limit", type=int, help="the first N decisions only")
    p.add_argument("--out", help="JSON file for the summary and every decision's gain")
    args = p.parse_args(argv)
    with np.load(args.states) as data:
        config, packed, legal, offsets = str(data["config"]), data["packed"], data["legal"], data["offsets"]
        mean, heuristic = data["mean"], data["heuristic"]
    core = Core(load(config))
    sizes = core.init(np.array([0]))._sizes
    settings = {k: v for k, v in (("worlds", args.worlds), ("more_worlds", args.more_worlds),
                                  ("horizon", args.horizon), ("z", args.z)) if v is not None}
    weights = dict(args.weight)
    n = len(packed) if args.limit is None else min(args.limit, len(packed))
    gains, changed, seconds = [], 0, 0.0
    agent = None
    for i in range(n):
        st = State.from_packed(packed[i:i + 1].copy(), sizes)
        acts, values = legal[offsets[i]:offsets[i + 1]], mean[offsets[i]:offsets[i + 1]]
        mask = core.legal_mask(st)
        if sorted(np.flatnonzero(mask[0]).tolist()) != sorted(acts.tolist()):
            p.error(f"{args.states}: decision {i} does not match {config} (other legal actions)")
        agent = SearchAgent(SimpleNamespace(core=core, state=st), seed=args.seed, threads=1, **settings, **weights)
        start = time.perf_counter()
        chosen = int(agent.act(None, mask[0]))
        seconds += time.perf_counter() - start
        h = int(heuristic[i])
        gains.append(float(values[acts == chosen][0] - values[acts == h][0]))
        changed += chosen != h
    g = np.array(gains)
    assert agent is not None
    summary = {"states": args.states, "config": config, "decisions": n, "seed": args.seed, "weights": weights,
               "worlds": agent.worlds, "more_worlds": agent.more_worlds, "horizon": agent.horizon, "z": agent.z,
               "gain_per_decision": float(g.mean()),
               "ci95": float(1.96 * g.std(ddof=1) / np.sqrt(n)) if n > 1 else None,
               "changed": changed / n, "ms_per_decision": 1000 * seconds / n}
    ci = f" ± {summary['ci95'] * 1000:.2f}" if summary["ci95"] is not None else ""
    print(f"{n} decisions of {config}; search ({agent.worlds}+{agent.more_worlds} worlds, "
          f"{f'{agent.horizon}-round horizon' if agent.horizon else 'to the end'}, z {agent.z:g}, seed {args.seed}): "
          f"true gain {summary['gain_per_decision'] * 1000:+.2f}{ci} thousandths of a caver out per decision, "
          f"left the heuristic's choice in {summary['changed']:.1%}, {summary['ms_per_decision']:.0f} ms a decision")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"summary": summary, "gains": gains}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
