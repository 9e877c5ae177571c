"""How much can one step of search gain over the heuristic? Every legal action of sampled decisions, valued in many
shared futures.

    python training/search_headroom.py --config configs/full.yaml --decisions 40 --worlds 300 --seed 880000 \\
        --out runs/headroom/full.json

For each of ``--decisions`` seeded games, the heuristic team plays a random number of decisions (up to 240), then
at the next decision with more than one legal action every legal action is played out by the heuristic team in the
same ``--worlds`` futures sampled as ``SearchAgent`` samples them (public information only). The table gives the
heuristic's value there, the best alternative and its paired gain with its standard error; the summary, the mean
best gain (biased upward: a maximum over noisy estimates) and the decisions whose best gain exceeds 2 standard
errors. A search that picks actions one decision at a time can gain at most about this much per decision.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Sequence

import numpy as np

_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

from agents.heuristic import HeuristicAgent  # noqa: E402
from agents.search.agent import MAX_ROUND, rollout_core  # noqa: E402
from agents.search.worlds import sample_worlds  # noqa: E402
from subterra_env.config import load  # noqa: E402
from subterra_env.core.actions import ACTION_NAMES  # noqa: E402
from subterra_env.core.kernels import cavers_out_batch  # noqa: E402
from subterra_env.core.rng import mix  # noqa: E402
from subterra_env.core.rules import Core  # noqa: E402
from subterra_env.core.state import RUNNING, State  # noqa: E402


def action_values(core: Core, st: State, worlds: int, salt: int, common_dice: bool = True
                  ) -> tuple[np.ndarray, np.ndarray, int]:
    """(legal actions, values (actions x worlds), the heuristic's action) at game 0's decision."""
    heuristic = HeuristicAgent(SimpleNamespace(core=core, state=st))
    mask = core.legal_mask(st)[0]
    legal = np.flatnonzero(mask)
    chosen = int(heuristic.decide(core, st, np.array([0]), mask[None])[0])
    base = np.repeat(st.packed[0:1], worlds)
    with np.errstate(over="ignore"):
        keys = mix(np.arange(1, worlds + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(salt))
    sample_worlds(base, core.params, keys)
    packed = np.tile(base, len(legal))
    trial = State.from_packed(packed, st._sizes)
    rules = rollout_core(core) if common_dice else core
    rules.step(trial, np.repeat(legal, worlds).astype(np.int64), check=False)
    heuristic.play(rules, trial, max_round=MAX_ROUND)
    value = np.empty(len(packed), dtype=np.int64)
    cavers_out_batch(packed, value)
    return legal, value.reshape(len(legal), worlds).astype(np.float64), chosen


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default="configs/full.yaml")
    p.add_argument("--decisions", type=int, default=40)
    p.add_argument("--worlds", type=int, default=300)
    p.add_argument("--seed", type=int, default=880000)
    p.add_argument("--out", help="JSON file for the rows and the summary")
    p.add_argument("--sequential-dice", action="store_true",
                   help="rollouts draw their dice in order (no common random numbers across actions)")
    args = p.parse_args(argv)
    core = Core(load(args.config))
    rng = np.random.default_rng(args.seed)
    rows = []
    for j in range(args.decisions):
        st = core.init([args.seed + j])
        HeuristicAgent(SimpleNamespace(core=core, state=st)).play(core, st, max_steps=int(rng.integers(0, 240)))
        while st.result[0] == RUNNING and core.legal_mask(st)[0].sum() == 1:
            core.step(st, np.array([int(np.flatnonzero(core.legal_mask(st)[0])[0])]))
        if st.result[0] != RUNNING:
            continue
        legal, v, chosen = action_values(core, st, args.worlds, j, not args.sequential_dice)
        diff = v - v[int(np.flatnonzero(legal == chosen)[0])]
        gain = diff.mean(axis=1)
        sd = diff.std(axis=1, ddof=1)
        se = sd / np.sqrt(args.worlds)
        k = int(np.argmax(gain))
        rows.append({"seed": args.seed + j, "step": int(st.steps[0]), "round": int(st.round[0]), "legal": len(legal),
                     "heuristic": ACTION_NAMES[chosen], "value": float(v[legal == chosen].mean()),
                     "best_alternative": ACTION_NAMES[legal[k]], "gain": float(gain[k]), "se": float(se[k]),
                     "diff_sd": float(np.delete(sd, int(np.flatnonzero(legal == chosen)[0])).mean())})
        r = rows[-1]
        print(f"seed {r['seed']} round {r['round']:>2} {r['legal']:>2} legal: heuristic {r['heuristic']:<18} "
              f"{r['value']:.2f} out; best other {r['best_alternative']:<18} {r['gain']:+.3f} ± {r['se']:.3f}",
              flush=True)
    gains = np.array([r["gain"] for r in rows])
    ses = np.array([r["se"] for r in rows])
    big = gains > 2 * ses
    summary = {"config": args.config, "worlds": args.worlds, "common_dice": not args.sequential_dice,
               "mean_diff_sd": float(np.mean([r["diff_sd"] for r in rows])), "decisions": len(rows), "mean_best_gain":
               float(gains.mean()), "significant": int(big.sum()), "mean_significant_gain":
               float(gains[big].mean()) if big.any() else 0.0}
    print(f"{len(rows)} decisions: mean best gain {summary['mean_best_gain']:.3f}; {summary['significant']} with a "
          f"gain over 2 standard errors (mean {summary['mean_significant_gain']:.3f}); one world's paired difference "
          f"between an action and the heuristic's varies by {summary['mean_diff_sd']:.3f} cavers (sd)")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
