"""Learning curves of training runs as a PNG: team return, cavers escaped and medal rate against env steps.

    python -m training.plot_curve runs/shipped [runs/other ...] --out runs/shipped/curve.png
    python -m training.plot_curve runs/rllib                      # an RLlib run of training/train_rllib.py
    python -m training.plot_curve runs/quickstart                 # a run of the native trainer, training/ppo.py
    python -m training.plot_curve runs/a runs/b --x seconds       # against wall-clock seconds (ppo.py runs)

Reads each run's ``eval.jsonl`` (periodic greedy evaluations on fixed seeds) and ``tb/progress.csv`` (the rolling
statistics of the training games: ``rollout/ep_rew_mean``, ``rollout/ep_escaped_mean``, ``rollout/medal_rate``)
as train_ppo.py writes them, or ``progress.jsonl`` (one line per iteration) as train_rllib.py and ppo.py write it. A BC
warm start's teacher score (``bc.json``) is drawn as a dashed line.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from training.run_files import read_jsonl


def read_run(run: Path, x: str = "step") -> dict:
    """The curves of one run directory: evaluation rows, training rows (x, escaped, medal rate, return), teacher.
    ``x``: ``step`` (env-steps) or ``seconds`` (wall clock since the run started: training/ppo.py's runs, whose
    iterations and evaluations both say when they happened)."""
    if not (run / "config.yaml").exists():
        raise FileNotFoundError(f"{run} is not a train_ppo.py, ppo.py or train_rllib.py run directory (no config.yaml)")
    evals = read_jsonl(run / "eval.jsonl") if (run / "eval.jsonl").exists() else []
    train = []
    progress = run / "tb" / "progress.csv"
    if progress.exists():
        with progress.open() as f:
            for row in csv.DictReader(f):
                if row.get("rollout/ep_escaped_mean") and row.get("time/total_timesteps"):
                    train.append((float(row["time/total_timesteps"]), float(row["rollout/ep_escaped_mean"]),
                                  float(row.get("rollout/medal_rate") or 0.0),
                                  float(row.get("rollout/ep_rew_mean") or "nan")))
    lines = run / "progress.jsonl"  # train_rllib.py's and training/ppo.py's statistics per iteration
    rllib = False
    if lines.exists():
        for row in read_jsonl(lines):
            if row.get("escaped_mean") is None:
                continue
            if "env_steps" in row:  # train_rllib.py
                rllib = True
                train.append((float(row["env_steps"]), float(row["escaped_mean"]), float(row["medal_rate"] or 0.0),
                              float(row["episode_return_mean"])))
            else:  # training/ppo.py
                train.append((float(row[x]), float(row["escaped_mean"]), float(row.get("medal_rate") or 0.0),
                              float(row["return_mean"])))
    if x != "step":
        native = lines.exists() and not progress.exists() and not rllib
        if not native or any(x not in e for e in evals):
            raise ValueError(f"{run}: --x {x} needs a training/ppo.py run (its rows say when they happened)")
        for e in evals:  # evaluations are drawn against the same axis
            e["step"] = e[x]
    for e in evals:  # training/ppo.py's evaluations name their figures as evaluate.py does
        if "escaped_mean" in e and "escaped" not in e:
            e["escaped"], e["success"] = e["escaped_mean"], 1.0 - e["share_defeat"]
    teacher = json.loads((run / "bc.json").read_text()) if (run / "bc.json").exists() else None
    return {"name": run.name, "evals": evals, "train": train, "teacher": teacher}


def plot(runs: list[dict], out: Path, x: str = "step") -> None:
    xlabel = "PPO env steps" if x == "step" else "wall-clock seconds (the BC stage included)"
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.5))
    for i, run in enumerate(runs):
        colour = f"C{i}"
        if run["train"]:
            axes[0].plot([r[0] for r in run["train"]], [r[3] for r in run["train"]], color=colour, lw=1.5,
                         label=f"{run['name']}: training games (rolling)")
        for ax, key, col in ((axes[1], "escaped", 1), (axes[2], "success", 2)):
            if run["train"]:
                xs = [r[0] for r in run["train"]]
                ax.plot(xs, [r[col] for r in run["train"]], color=colour, alpha=0.35, lw=1,
                        label=f"{run['name']}: training games (rolling)")
            if run["evals"]:
                ax.plot([e["step"] for e in run["evals"]], [e[key] for e in run["evals"]], "o-", color=colour,
                        label=f"{run['name']}: greedy evaluation")
            value = (run["teacher"] or {}).get("teacher_escaped" if key == "escaped" else "teacher_success")
            if value is not None:  # a native run's bc.json has the teacher's cavers out only
                ax.axhline(value, color=colour, ls="--", lw=1, label=f"{run['name']}: BC teacher (heuristic)")
    axes[0].set(title="team return per game", xlabel=xlabel, ylabel="mean episode return")
    axes[1].set(title="cavers escaped per game", xlabel=xlabel, ylabel="mean cavers escaped")
    axes[2].set(title="medal rate (bronze or better)", xlabel=xlabel, ylabel="fraction of games")
    for ax in axes:
        ax.grid(alpha=0.3)
    for ax in axes[1:]:
        ax.set_ylim(bottom=0)
    axes[2].legend(fontsize=8, loc="best")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", type=Path,
                   help="run directories written by training/train_ppo.py or training/train_rllib.py")
    p.add_argument("--out", type=Path, help="PNG to write (default: RUN/curve.png of the first run)")
    p.add_argument("--x", choices=("step", "seconds"), default="step",
                   help="the x axis: env-steps, or wall-clock seconds (training/ppo.py runs)")
    args = p.parse_args(argv)
    try:
        runs = [read_run(r, args.x) for r in args.runs]
    except (FileNotFoundError, ValueError) as e:
        p.error(str(e))
    out = args.out or args.runs[0] / "curve.png"
    plot(runs, out, args.x)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
