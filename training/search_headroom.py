"""How much can one step of search gain over the heuristic? Every legal action of sampled decisions, valued in many
shared futures.

    python -m training.search_headroom --config configs/full.yaml --decisions 40 --worlds 300 --seed 880000 \\
        --out runs/headroom/full.json

For each of ``--decisions`` seeded games, the heuristic team plays a random number of decisions (up to 240), then
at the next decision with more than one legal action every legal action is played out by the heuristic team in the
same ``--worlds`` futures sampled as ``SearchAgent`` samples them (public information only). The table gives the
heuristic's value there, the best alternative and its paired gain with its standard error; the summary, the mean
best gain (biased upward: a maximum over noisy estimates) and the decisions whose best gain exceeds 2 standard
errors. A search that picks actions one decision at a time can gain at most about this much per decision.

At scale (where the heuristic goes wrong, for the next rule to add): ``--workers`` processes share the decisions,
``--deadline`` stops submitting new ones after that many seconds (what is done is kept), and ``--states FILE.npz``
saves every decision's packed state with each legal action's mean value and standard error, so a decision can be
rendered and inspected later (``State.from_packed`` with the config's sizes).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Sequence

import numpy as np

from agents.heuristic import HeuristicAgent
from agents.search.agent import MAX_ROUND, rollout_core
from agents.search.worlds import sample_worlds
from subterra_env.config import CAVER_NAMES, load
from subterra_env.games.sub_terra.core.actions import ACTION_NAMES
from subterra_env.games.sub_terra.core.kernels import cavers_out_batch
from subterra_env.games.sub_terra.core.rng import mix
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RUNNING, State


def action_values(core: Core, st: State, worlds: int, salt: int, common_dice: bool = True, threads: int | None = None
                  ) -> tuple[np.ndarray, np.ndarray, int]:
    """(legal actions, values (actions x worlds), the heuristic's action) at game 0's decision; ``threads`` as
    HeuristicAgent's (1: never numba's thread pool)."""
    heuristic = HeuristicAgent(SimpleNamespace(core=core, state=st), threads=threads)
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


def decision(core: Core, seed: int, pick: int, worlds: int, salt: int, common_dice: bool = True,
             threads: int | None = None) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray] | None:
    """Game ``seed`` played by the heuristic team for ``pick`` decisions, then to its next decision with a choice:
    (the row of the table, the packed state, the legal actions, their (mean, standard error of the paired
    difference) against the heuristic's action), or None when the game ended first."""
    st = core.init([seed])
    HeuristicAgent(SimpleNamespace(core=core, state=st)).play(core, st, max_steps=pick)
    while st.result[0] == RUNNING and core.legal_mask(st)[0].sum() == 1:
        core.step(st, np.array([int(np.flatnonzero(core.legal_mask(st)[0])[0])]))
    if st.result[0] != RUNNING:
        return None
    packed = st.packed.copy()
    legal, v, chosen = action_values(core, st, worlds, salt, common_dice, threads)
    h = int(np.flatnonzero(legal == chosen)[0])
    diff = v - v[h]
    gain = diff.mean(axis=1)
    sd = diff.std(axis=1, ddof=1)
    se = sd / np.sqrt(worlds)
    k = int(np.argmax(gain))
    seat = int(st.actor[0])  # the game is running: a seat decides
    row = {"seed": seed, "step": int(st.steps[0]), "round": int(st.round[0]), "legal": len(legal),
           "caver": CAVER_NAMES[int(st.c_rank[0, seat]) - 1], "hp": int(st.c_hp[0, seat]),
           "exit_placed": bool(st.exit_tile[0] >= 0),
           "heuristic": ACTION_NAMES[chosen], "value": float(v[h].mean()),
           "best_alternative": ACTION_NAMES[legal[k]], "gain": float(gain[k]), "se": float(se[k]),
           "diff_sd": float(np.delete(sd, h).mean())}
    return row, packed, legal, np.stack([v.mean(axis=1), se])


_WORKER: dict = {}


def _work(job: tuple[int, int, int]) -> tuple | None:
    import numba

    numba.set_num_threads(1)  # the rules' batch kernels too: the workers share the cores
    j, seed, pick = job
    return decision(_WORKER["core"], seed, pick, _WORKER["worlds"], j, _WORKER["common_dice"], threads=1)


def _print_row(r: dict) -> None:
    print(f"seed {r['seed']} round {r['round']:>2} {r['caver']:<9} hp {r['hp']} {r['legal']:>2} legal: heuristic "
          f"{r['heuristic']:<18} {r['value']:.2f} out; best other {r['best_alternative']:<18} {r['gain']:+.3f} ± "
          f"{r['se']:.3f}", flush=True)


def save_states(path: str, config: str, results: list[tuple]) -> None:
    """The decisions' packed states, legal actions and per-action (mean, se) in one npz (ragged arrays flattened
    with offsets)."""
    legal = [r[2] for r in results]
    stats = [r[3] for r in results]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, config=config, packed=np.concatenate([r[1] for r in results]),
                        seeds=np.array([r[0]["seed"] for r in results]), legal=np.concatenate(legal),
                        offsets=np.cumsum([0] + [len(x) for x in legal]),
                        mean=np.concatenate([s[0] for s in stats]), se=np.concatenate([s[1] for s in stats]),
                        heuristic=np.array([ACTION_NAMES.index(r[0]["heuristic"]) for r in results]))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default="configs/full.yaml")
    p.add_argument("--decisions", type=int, default=40)
    p.add_argument("--worlds", type=int, default=300)
    p.add_argument("--seed", type=int, default=880000)
    p.add_argument("--out", help="JSON file for the rows and the summary")
    p.add_argument("--sequential-dice", action="store_true",
                   help="rollouts draw their dice in order (no common random numbers across actions)")
    p.add_argument("--workers", type=int, default=1, help="processes sharing the decisions (fork; Linux)")
    p.add_argument("--deadline", type=float, default=0.0,
                   help="seconds after which no new decision starts (0: none); the finished ones are kept")
    p.add_argument("--states", help="npz file for the decisions' packed states and per-action values")
    args = p.parse_args(argv)
    if args.workers < 1 or args.decisions < 1 or args.worlds < 2:
        p.error("--workers and --decisions must be at least 1, --worlds at least 2")
    core = Core(load(args.config))
    rng = np.random.default_rng(args.seed)
    jobs = [(j, args.seed + j, int(rng.integers(0, 240))) for j in range(args.decisions)]
    common = not args.sequential_dice
    start = time.monotonic()
    results: list[tuple] = []
    if args.workers == 1:
        for j, seed, pick in jobs:
            if args.deadline and time.monotonic() - start > args.deadline:
                break
            got = decision(core, seed, pick, args.worlds, j, common)
            if got is not None:
                results.append(got)
                _print_row(got[0])
    else:
        # Compile in the parent first, so the forked workers inherit the machine code instead of compiling it each
        # (small batches only: numba's thread pool must not start before the fork); one thread per worker.
        decision(core, jobs[0][1], 5, 2, 0, common, threads=1)
        _WORKER.update(core=core, worlds=args.worlds, common_dice=common)
        with multiprocessing.get_context("fork").Pool(args.workers) as pool:
            for got in pool.imap_unordered(_work, jobs):
                if got is not None:
                    results.append(got)
                    _print_row(got[0])
                if args.deadline and time.monotonic() - start > args.deadline:
                    pool.terminate()
                    break
        results.sort(key=lambda r: r[0]["seed"])  # in the order one process would give them
    rows = [r[0] for r in results]
    if not rows:
        print("no decision finished")
        return 1
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
    if args.states:
        save_states(args.states, args.config, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
