"""Fit the search's horizon value estimate (``agents/search/value.py``) on seeded heuristic games.

    python -m training.fit_value                   # the shipped agents/search/value_net.npz (4 minutes on 2 cores)
    python -m training.fit_value --games 200 --settings tiny full --out /tmp/value_net.npz

For each setting of the base game (the tiny, small and medium caves and the full game at 4, 5 and 6 cavers) the
compiled heuristic team plays ``--games`` seeded games; at the first decision of every round each running game's
cavers are described (``caver_features``), and each caver is labelled by whether it stands on the exit when the
game ends. A small network (``--hidden`` units, two layers) learns each caver's chance with a logistic loss
(torch, one thread, ``--seed``); a game's value is the sum over its cavers. The last ``--holdout`` of each
setting's games are held out: the script prints, per setting, the R^2 of the game values against the cavers out
and a calibration table (mean estimate against mean outcome, by estimate), and stores them with the weights.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Sequence

import numpy as np

from agents.heuristic import DEFAULT_WEIGHTS, HeuristicAgent
from agents.search.value import NET_PATH, ValueNet, network_inputs
from subterra_env.config import preset
from subterra_env.games.sub_terra.core.invariants import on_exit
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RUNNING

SETTINGS = {"tiny": ("tiny", {}), "small": ("small", {}), "medium": ("medium", {}), "full": ("full", {}),
            "full-5": ("full", {"num_cavers": 5}), "full-6": ("full", {"num_cavers": 6})}
MAX_ROUND = 200  # as training/evaluate.py truncates games


def snapshots(name: str, games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(inputs (n, S, 2 NF), labels (n, S) caver got out, game index (n,)) of ``games`` heuristic games of one
    setting, one row per running game at the first decision of each round."""
    base, overrides = SETTINGS[name]
    core = Core(preset(base, **overrides))
    st = core.init(np.arange(seed, seed + games))
    agent = HeuristicAgent(SimpleNamespace(core=core, state=st))
    xs, gs = [], []
    for r in range(1, MAX_ROUND):
        agent.play(core, st, max_round=r)  # stops at the first decision of round r + 1
        running = np.flatnonzero(st.result == RUNNING)
        if not len(running):
            break
        xs.append(network_inputs(st, running))
        gs.append(running)
    g = np.concatenate(gs)
    return np.concatenate(xs), on_exit(st, g).astype(np.float32), g


def fit(x: np.ndarray, y: np.ndarray, hidden: int, epochs: int, seed: int) -> list[np.ndarray]:
    """A two-hidden-layer network of each caver's escape logit; returns [w0, b0, w1, b1, w2, b2] (numpy)."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    net = torch.nn.Sequential(torch.nn.Linear(x.shape[1], hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, hidden),
                              torch.nn.ReLU(), torch.nn.Linear(hidden, 1))
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    loss = torch.nn.BCEWithLogitsLoss()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    gen = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        for group in opt.param_groups:  # a quarter of the step for the last two epochs
            group["lr"] = 2e-3 if epoch < epochs - 2 else 5e-4
        perm = torch.randperm(len(xt), generator=gen)
        for i in range(0, len(xt), 1024):
            idx = perm[i:i + 1024]
            opt.zero_grad()
            loss(net(xt[idx]).squeeze(1), yt[idx]).backward()
            opt.step()
    return [p.detach().numpy().T.copy() if p.dim() == 2 else p.detach().numpy().copy() for p in net.parameters()]


def calibration(value: np.ndarray, outcome: np.ndarray) -> dict:
    """R^2 of game values against cavers out, and per half-caver bin of the value: mean value, mean outcome, n."""
    r2 = 1.0 - float(((value - outcome) ** 2).mean() / max(outcome.var(), 1e-12))
    bins = np.floor(value * 2) / 2
    rows = [(float(b), float(value[bins == b].mean()), float(outcome[bins == b].mean()), int((bins == b).sum()))
            for b in np.unique(bins)]
    return {"r2": round(r2, 4), "bins": rows}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=12000, help="seeded games per setting")
    p.add_argument("--seed", type=int, default=2100000, help="first game seed; also the network's seed")
    p.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    p.add_argument("--holdout", type=float, default=0.2, help="share of each setting's games held out")
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--out", default=str(NET_PATH))
    args = p.parse_args(argv)
    if args.games < 10 or not 0 < args.holdout < 1:
        p.error("--games must be at least 10 and --holdout between 0 and 1")
    start = time.perf_counter()
    train_x, train_y, held = [], [], {}
    for name in args.settings:
        x, y, g = snapshots(name, args.games, args.seed)
        cut = int(args.games * (1 - args.holdout))
        train_x.append(x[g < cut].reshape(-1, x.shape[2]))
        train_y.append(y[g < cut].reshape(-1))
        held[name] = (x[g >= cut], y[g >= cut])
        print(f"{name}: {len(x)} snapshots of {args.games} games ({time.perf_counter() - start:.0f} s)", flush=True)
    params = fit(np.concatenate(train_x), np.concatenate(train_y), args.hidden, args.epochs, args.seed)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    layers = {f"{k}{i // 2}": v for i, (k, v) in enumerate(zip(["w", "b"] * len(params), params))}
    report = {"command": "python -m training.fit_value " + " ".join(argv if argv is not None else sys.argv[1:]),
              "heuristic_weights": dict(DEFAULT_WEIGHTS), "games": args.games, "seed": args.seed,
              "holdout": args.holdout, "calibration": {}}
    np.savez(out, **layers, report=json.dumps(report))
    net = ValueNet(out)
    for name, (x, y) in held.items():
        report["calibration"][name] = cal = calibration(net.escape_odds(x).sum(axis=1), y.sum(axis=1))
        print(f"{name}: held-out R^2 {cal['r2']:.3f}; value -> outcome: "
              + ", ".join(f"{v:.2f}->{o:.2f} ({n})" for _, v, o, n in cal["bins"]))
    np.savez(out, **layers, report=json.dumps(report))
    print(f"wrote {out} ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
