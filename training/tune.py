"""Hyperparameters of the native trainer found by search, not guessed: an Optuna study over ``training/ppo.py``.

    python -m training.tune --game tiny --trials 30 --seconds 120 --out runs/tune-tiny      # about an hour, 2 cores
    python -m training.tune --game small --trials 30 --seconds 600 --out runs/tune-small --set device=cuda
    python -m training.tune --game small --set max_cycles=100 --space num_games=1024,2048,4096,8192 --anneal \
        --trials 8 --seconds 300 --out runs/tune-small                                 # the small study, 2 cores

Each trial trains from scratch for a fixed wall-clock budget (``--seconds``: what a setting buys per second of the
machine, not per step) with settings drawn by Optuna's TPE sampler: learning rate, entropy weight, clip range,
games stepped together (the batch), minibatches and the network's width; the rest comes from ``--config`` and
``--set``; ``--space NAME=...`` gives a drawn setting other choices or bounds (``--space
num_games=1024,2048,4096,8192`` for a cave that wants bigger batches). The learning rate is not annealed (so the tiny
study ran) unless ``--anneal``, which anneals it to 0 over each trial's clock (``max_seconds``), as the 30-minute
configs train. A trial's score
is the greedy evaluation at its end (``--eval-games`` seeded games, seeds from 1,000,000, never the seeds of the
reported tables). The study lives in ``OUT/study.db`` (SQLite: ``--out`` again resumes it and adds trials);
``OUT/trials.md`` is the table of every trial, best first, and ``OUT/best.yaml`` the best trial's drawn settings on top
of ``--config`` and ``--set`` as a ``training/ppo.py`` config (the trials' own budget settings, no annealing, a time
limit and one final evaluation, are not copied: the config trains for its ``total_steps``). Needs the ``tune`` extra
(``pip install -e .[tune]``).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml

from training import ppo
from training.run_files import read_jsonl
from training.schema import SettingsError, to_plain

REPO = Path(__file__).resolve().parents[1]

# What a trial draws: name -> (kind, choices or (low, high)); log-uniform for the rates.
SPACE: dict[str, tuple[str, Any]] = {
    "lr": ("log", (1e-4, 5e-3)),
    "ent_coef": ("log", (1e-4, 5e-2)),
    "clip": ("uniform", (0.1, 0.3)),
    "num_games": ("choice", (256, 512, 1024, 2048)),
    "minibatches": ("choice", (2, 4, 8, 16)),
    "width": ("choice", (64, 128, 256)),
}


def draw(trial: Any, space: dict[str, tuple[str, Any]]) -> dict[str, Any]:
    out = {}
    for name, (kind, values) in space.items():
        if kind == "log":
            out[name] = trial.suggest_float(name, *values, log=True)
        elif kind == "uniform":
            out[name] = trial.suggest_float(name, *values)
        else:
            out[name] = trial.suggest_categorical(name, list(values))
    return out


def space_of(items: list[str]) -> dict[str, tuple[str, Any]]:
    """SPACE with ``NAME=A,B,C`` (a choice's values) or ``NAME=LOW:HIGH`` (a range's bounds) put in; ValueError
    names an unknown setting, a value that is not a number or a range that is empty or below zero."""
    space = dict(SPACE)
    for item in items:
        name, _, text = item.partition("=")
        if name not in SPACE:
            raise ValueError(f"{item!r}: {name!r} is not drawn; the drawn settings are {', '.join(SPACE)}")
        kind = SPACE[name][0]
        try:
            if kind == "choice":
                values: Any = tuple(int(v) for v in text.split(","))
                ok = all(v >= 1 for v in values)
            else:
                low, high = (float(v) for v in text.split(":"))
                values = (low, high)
                ok = low < high and (low > 0 if kind == "log" else low >= 0)
        except ValueError:
            raise ValueError(f"{item!r}: expected {name}=A,B,C (whole numbers)" if kind == "choice" else
                             f"{item!r}: expected {name}=LOW:HIGH (numbers)") from None
        if not ok:
            raise ValueError(f"{item!r}: " + ("every choice must be at least 1" if kind == "choice" else
                                              f"LOW must be below HIGH{' and above 0' if kind == 'log' else ''}"))
        space[name] = (kind, values)
    return space


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="tiny", help="preset or GameConfig YAML")
    p.add_argument("--config", default=str(REPO / "configs" / "train" / "ppo_tiny.yaml"),
                   help="the training/ppo.py settings the trials start from")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a fixed setting of every trial")
    p.add_argument("--trials", type=int, default=30)
    p.add_argument("--seconds", type=float, default=120.0, help="training wall-clock a trial")
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--seed", type=int, default=0, help="the sampler's seed (and every trial's training seed)")
    p.add_argument("--out", type=Path, default=Path("runs/tune"))
    p.add_argument("--space", action="append", default=[], metavar="NAME=A,B,C|NAME=LOW:HIGH",
                   help=f"another range of one drawn setting ({', '.join(SPACE)}): choices for num_games, minibatches "
                   "and width, LOW:HIGH for the rest (a resumed study needs the same --space)")
    p.add_argument("--anneal", action="store_true",
                   help="anneal each trial's learning rate to 0 over its --seconds (as the 30-minute configs do)")
    args = p.parse_args(argv)
    if args.trials < 1 or args.seconds <= 0 or args.eval_games < 1:
        p.error("--trials and --eval-games must be at least 1 and --seconds positive")
    try:
        args.space = space_of(args.space)
    except ValueError as e:
        p.error(f"--space {e}")
    try:  # every fixed setting checked before any trial runs
        ppo.load_args(args.config, [*args.set, f"game={args.game}"])
    except SettingsError as e:
        p.error(str(e))
    return args


def objective(args: argparse.Namespace, trial: Any) -> float:
    drawn = draw(trial, args.space)
    run = args.out / "trials" / f"trial_{trial.number:03d}"
    overrides = [*args.set, f"game={args.game}", f"seed={args.seed}", f"anneal_lr={str(args.anneal).lower()}",
                 "progress_bar=false",
                 "eval_every=0", f"eval_games={args.eval_games}", "checkpoint_every=0",
                 f"max_seconds={args.seconds}", "total_steps=10000000000"]
    overrides += [f"{k}={v}" for k, v in drawn.items()]
    code = ppo.main(["--config", args.config, "--run-dir", str(run), "--overwrite",
                     *[x for o in overrides for x in ("--set", o)]])
    if code != 0:
        raise RuntimeError(f"trial {trial.number}: training/ppo.py exited with {code}")
    result = read_jsonl(run / "eval.jsonl")[-1]
    trial.set_user_attr("env_steps", result["step"])
    trial.set_user_attr("ci95", result["escaped_ci95"])
    for name in ("last.pt", "final.pt", "best.onnx"):  # keep best.pt only: a study of many trials stays small
        (run / name).unlink(missing_ok=True)
    shutil.rmtree(run / "tb", ignore_errors=True)
    return float(result["escaped_mean"])


def report(study: Any, args: argparse.Namespace) -> str:
    trials = sorted((t for t in study.trials if t.value is not None), key=lambda t: -t.value)
    names = list(SPACE)
    lines = [f"Study `{args.out / 'study.db'}`: {len(trials)} trials on `{args.game}`, {args.seconds:.0f} s of "
             f"training each{' (the learning rate annealed over them)' if args.anneal else ''}, greedy cavers out "
             f"over {args.eval_games} games.", "",
             "| trial | cavers out | env-steps | " + " | ".join(names) + " |",
             "|---:|---:|---:|" + "---:|" * len(names)]
    for t in trials:
        values = " | ".join(f"{t.params[n]:.3g}" if isinstance(t.params[n], float) else str(t.params[n])
                            for n in names)
        lines.append(f"| {t.number} | {t.value:.2f} ± {t.user_attrs.get('ci95', 0):.2f} | "
                     f"{t.user_attrs.get('env_steps', 0):,} | {values} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    try:
        import optuna
    except ImportError:
        print("error: training/tune.py needs optuna: pip install -e '.[tune]'", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(study_name=f"ppo-{Path(args.game).stem}", direction="maximize",
                                storage=f"sqlite:///{args.out / 'study.db'}", load_if_exists=True,
                                sampler=optuna.samplers.TPESampler(seed=args.seed))
    study.optimize(lambda trial: objective(args, trial), n_trials=args.trials)
    text = report(study, args)
    (args.out / "trials.md").write_text(text)
    best = ppo.load_args(args.config, [*args.set, f"game={args.game}",
                                       *[f"{k}={v}" for k, v in study.best_params.items()]])
    (args.out / "best.yaml").write_text(f"# best trial of {args.out / 'study.db'}: {study.best_value:.2f} cavers "
                                        f"out after {args.seconds:.0f} s\n"
                                        + yaml.safe_dump(to_plain(best), sort_keys=False))
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
