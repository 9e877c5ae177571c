"""``subterra dataset build | from-records | check``: the command line of ``subterra_game.datasets``.

Exit status 0 on success; 2 for bad input (the message names it; nothing is written); 1 when ``check`` finds an
episode that does not replay.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any

from agents.teams import DEFAULT_OBS_RADIUS

from .store import DatasetError, minari_module

TEAMS = ("random | heuristic | search | search:WORLDS | ceiling | policy:PATH | rllib:PATH | torchrl:PATH, or a "
         "comma list giving seat i entry i mod len (partner mixes: heuristic,heuristic,policy:X,heuristic)")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="subterra dataset", description="Minari datasets of Sub Terra: every team's "
                                "play and people's games (docs/datasets.md). Datasets go under Minari's data path "
                                "(MINARI_DATASETS_PATH, else ~/.minari/datasets).")
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="play seeded games with a team and write them as a dataset")
    b.add_argument("--config", default="default", help="a preset name (tiny, small, medium, full, annihilation, "
                   "...) or a YAML file of settings (default: the rulebook game)")
    b.add_argument("--team", required=True, help=TEAMS)
    b.add_argument("--episodes", type=int, required=True, help="games to play (env seeds SEED .. SEED+N-1)")
    b.add_argument("--id", required=True, dest="dataset_id", help="the dataset id, e.g. subterra/tiny/heuristic-v0")
    b.add_argument("--seed", type=int, default=0, help="the first game's env seed (default 0)")
    b.add_argument("--batch", type=int, default=64, help="games played at once (default 64)")
    b.add_argument("--max-cycles", type=int, default=200, help="rounds before a game is truncated (default 200)")
    b.add_argument("--threads", type=int, default=None, help="numba threads of the rules and observations "
                   "(default: every core; 1 is best when other processes keep the cores busy)")
    _common(b)
    r = sub.add_parser("from-records", help="turn game records (subterra play --save, the browser tables) into a "
                       "dataset")
    r.add_argument("files", nargs="+", help="record files (JSON), all of one game's settings")
    r.add_argument("--id", required=True, dest="dataset_id", help="the dataset id, e.g. subterra/tiny/people-v0")
    r.add_argument("--only-human", action="store_true", help="only the games at which a person held a seat")
    _common(r)
    c = sub.add_parser("check", help="replay every episode in the recovered environment, bit for bit")
    c.add_argument("dataset_id", metavar="ID")
    c.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--obs-radius", type=int, default=DEFAULT_OBS_RADIUS,
                   help=f"observation window radius (default {DEFAULT_OBS_RADIUS})")
    p.add_argument("--overwrite", action="store_true", help="replace an existing dataset of that id")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _bar(total: int, unit: str, off: bool) -> Any:
    if off:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # the datasets extra brings tqdm; without it, no bar
        return None
    return tqdm(total=total, unit=unit, leave=False, file=sys.stderr, delay=1.0)  # no bar for a quick refusal


def _run(args: argparse.Namespace, command: str) -> int:
    minari_module()  # before the modules that import Minari: without the extra, the message says how to install it
    if args.command == "check":
        from .check import check_dataset
        from .store import load

        total = load(args.dataset_id).total_episodes
        bar = _bar(total, "episode", args.no_progress)
        report = check_dataset(args.dataset_id, progress=bar)
        if bar is not None:
            bar.close()
        for line in report.problems:
            print(line, file=sys.stderr)
        verdict = "replay bit for bit" if report.ok else f"{len(report.problems)} episode(s) differ"
        print(f"{args.dataset_id}: {report.episodes} episodes, {report.steps} steps: {verdict}")
        return 0 if report.ok else 1
    if args.command == "build":
        from .build import build_dataset

        bar = _bar(args.episodes, "game", args.no_progress)
        try:
            summary = build_dataset(args.dataset_id, args.config, args.team, args.episodes, seed=args.seed,
                                    batch=args.batch, max_cycles=args.max_cycles, obs_radius=args.obs_radius,
                                    overwrite=args.overwrite, threads=args.threads, command=command,
                                    progress=bar)
        finally:
            if bar is not None:
                bar.close()
    else:
        from .records import dataset_from_records

        bar = _bar(len(args.files), "game", args.no_progress)
        try:
            summary = dataset_from_records(args.files, args.dataset_id, only_human=args.only_human,
                                           overwrite=args.overwrite, obs_radius=args.obs_radius, command=command,
                                           progress=bar)
        finally:
            if bar is not None:
                bar.close()
    print(f"{summary.dataset_id}: {summary.episodes} episodes, {summary.steps} steps, {summary.megabytes:.1f} MB "
          f"in {summary.seconds:.1f} s at {summary.path}")
    return 0


def main(argv: list[str]) -> int:
    """``subterra dataset ARGS``; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return _run(args, shlex.join(["subterra", "dataset", *argv]))
    except DatasetError as e:
        print(f"subterra dataset {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"subterra dataset {args.command}: interrupted (nothing was written)", file=sys.stderr)
        return 130
