"""Train one native PPO config on several seeds at once, one process per core, and keep the best team.

    python -m training.best_of_seeds --config configs/train/ppo_tiny.yaml --run-dir runs/quickstart --seeds 0 1

Seeds of one config end far apart: ``configs/train/ppo_tiny.yaml`` (`make run`'s) played 3.51, 3.78 and 3.78
cavers out on the same 1,000 tiny games with seeds 0, 1 and 2 (2026-12-04, docs/baselines.md), so one run is a
draw from that spread. On the 2-core machine one torch thread a run steps about as fast as two (12,000-14,500
env-steps/s against 13,500), so `make run` trains a second seed on the second core at almost no cost in wall clock
and keeps the better team.

The better team is chosen by the runs' own greedy evaluations (``eval_games`` games from ``eval_seed``, 1,000,000
by default), never by the games an evaluation after it plays (``training/evaluate.py`` uses seeds 0, 1, ...):
each run keeps its best evaluation as ``best.pt``, and the seed whose best is highest (the lower seed on a tie)
becomes the run's team.

Writes ``RUN/seed-S/`` (a ``training.ppo`` run directory per seed: each resumes with ``python -m training.ppo
--resume RUN/seed-S``; its printed lines in ``RUN/seed-S.log``), ``RUN/best.pt`` and ``RUN/best.onnx`` (copies of the
chosen seed's) and ``RUN/seeds.json`` (every seed's best and final evaluation, env-steps, seconds and the choice).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from training.ppo import SettingsError, load_args
from training.run_files import read_jsonl

REPO = Path(__file__).resolve().parent.parent
FIXED = ("seed", "progress_bar", "torch_threads")  # set per run by this script


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Train one training.ppo config on several seeds at once (one process "
                                "per core) and keep the team of the seed with the best own evaluation.")
    p.add_argument("--config", required=True, help="a YAML file of training.ppo settings (configs/train/ppo_*.yaml)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override one setting of every run (not seed, progress_bar or torch_threads)")
    p.add_argument("--run-dir", required=True, type=Path, help="where the seeds' runs and the chosen team go")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1], help="one run per seed [default: 0 1]")
    p.add_argument("--torch-threads", type=int, default=0,
                   help="torch threads a run [default: the cores this process may use, shared among the runs]")
    p.add_argument("--overwrite", action="store_true", help="replace an existing run directory")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    return p.parse_args(argv)


def cores() -> list[int]:
    """The CPUs this process may run on."""
    return sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(os.cpu_count() or 1))


def check(cli: argparse.Namespace) -> tuple[int, int]:
    """Every setting checked before any work (the same checks as training.ppo's); returns (torch threads a run,
    env-steps a run)."""
    if len(set(cli.seeds)) != len(cli.seeds):
        raise SettingsError(f"--seeds {' '.join(map(str, cli.seeds))}: a seed twice")
    for assignment in cli.set:
        key = assignment.split("=", 1)[0].strip()
        if key in FIXED:
            raise SettingsError(f"--set {assignment}: {key} is set per run by this script (--seeds, --torch-threads)")
    if cli.torch_threads < 0:
        raise SettingsError(f"--torch-threads {cli.torch_threads}: expected 1 or more (0: the cores shared)")
    threads = cli.torch_threads or max(1, len(cores()) // len(cli.seeds))
    runs = [load_args(cli.config, [*cli.set, *run_settings(seed, threads)]) for seed in cli.seeds]
    if cli.run_dir.exists() and any(cli.run_dir.iterdir()) and not cli.overwrite:
        raise SettingsError(f"--run-dir {cli.run_dir} exists and is not empty: --overwrite or another --run-dir")
    return threads, runs[0].total_steps


def run_settings(seed: int, threads: int) -> list[str]:
    return [f"seed={seed}", "progress_bar=false", f"torch_threads={threads}"]


def launch(cli: argparse.Namespace, threads: int) -> dict[int, subprocess.Popen]:
    """One training.ppo process per seed, each pinned to its own cores where there are enough; an existing run
    directory is replaced (``check`` has let it through only with --overwrite)."""
    if cli.run_dir.exists():
        shutil.rmtree(cli.run_dir)
    cli.run_dir.mkdir(parents=True)
    cpus = cores()
    procs = {}
    for i, seed in enumerate(cli.seeds):
        sets = [x for s in [*cli.set, *run_settings(seed, threads)] for x in ("--set", s)]
        cmd = [sys.executable, "-m", "training.ppo", "--config", cli.config, "--run-dir",
               str(cli.run_dir / f"seed-{seed}"), *sets]
        mine = cpus[i * threads:(i + 1) * threads]
        pin = (lambda c=frozenset(mine): os.sched_setaffinity(0, c)) \
            if len(mine) == threads and hasattr(os, "sched_setaffinity") else None
        log = open(cli.run_dir / f"seed-{seed}.log", "w")
        procs[seed] = subprocess.Popen(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, preexec_fn=pin)
        log.close()  # the child holds its own copy
    return procs


def last_record(path: Path) -> dict[str, Any] | None:
    """The last complete record of a JSON-lines file a run is appending to (None: none yet)."""
    records = read_jsonl(path) if path.exists() else []
    return records[-1] if records else None


def wait(cli: argparse.Namespace, procs: dict[int, subprocess.Popen], total: int) -> None:
    """Until every run ends, a progress bar a seed (env-steps, the last evaluation); one run failing stops all."""
    bars = {}
    if not cli.no_progress:
        from tqdm import tqdm

        bars = {s: tqdm(total=total, desc=f"seed {s}", unit="step", unit_scale=True, position=i, dynamic_ncols=True)
                for i, s in enumerate(procs)}
    try:
        while True:
            for seed, proc in procs.items():
                code = proc.poll()
                if code not in (None, 0):
                    tail = (cli.run_dir / f"seed-{seed}.log").read_text().splitlines()[-15:]
                    raise RuntimeError(f"seed {seed}'s run ended with exit code {code}:\n" + "\n".join(tail))
                if seed in bars:
                    show(bars[seed], cli.run_dir / f"seed-{seed}")
            if all(p.poll() == 0 for p in procs.values()):
                return
            time.sleep(1.0)
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.terminate()
        for bar in bars.values():
            bar.close()


def show(bar: Any, run: Path) -> None:
    progress, evaluation = last_record(run / "progress.jsonl"), last_record(run / "eval.jsonl")
    if progress is not None:
        bar.n = progress["step"]
    if evaluation is not None:
        bar.set_postfix_str(f"eval {evaluation['escaped_mean']:.2f}", refresh=False)
    bar.refresh()


def summary(run: Path, seed: int) -> dict[str, Any]:
    """A finished seed's evaluations: its best (the one best.pt holds) and its final one."""
    evals = read_jsonl(run / "eval.jsonl")
    best = max(evals, key=lambda e: e["escaped_mean"])  # the first of equals, as training.ppo keeps best.pt
    return {"seed": seed, "run_dir": str(run), "best": best["escaped_mean"], "best_ci95": best["escaped_ci95"],
            "best_step": best["step"], "final": evals[-1]["escaped_mean"], "env_steps": evals[-1]["step"],
            "seconds": evals[-1]["seconds"], "eval_games": best["games"], "eval_seed": best["seed"]}


def choose(seeds: list[dict[str, Any]]) -> dict[str, Any]:
    """The seed with the highest best evaluation; the lower seed on a tie."""
    return max(sorted(seeds, key=lambda s: s["seed"]), key=lambda s: s["best"])


def table(seeds: list[dict[str, Any]], chosen: dict[str, Any]) -> str:
    rows = ["seed  env-steps   seconds  best own evaluation  at step     final", "-" * 66]
    for s in seeds:
        mark = "  <- the team" if s is chosen else ""
        rows.append(f"{s['seed']:>4}  {s['env_steps']:>10,}  {s['seconds']:>7.0f}  {s['best']:>8.2f} ± "
                    f"{s['best_ci95']:.2f}       {s['best_step']:>10,}  {s['final']:>5.2f}{mark}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    cli = parse(argv)
    try:
        threads, total = check(cli)
    except SettingsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{len(cli.seeds)} runs of {cli.config} at once (seeds {' '.join(map(str, cli.seeds))}, {threads} torch "
          f"thread(s) each) into {cli.run_dir}/seed-S")
    try:
        wait(cli, launch(cli, threads), total)
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    seeds = [summary(cli.run_dir / f"seed-{s}", s) for s in cli.seeds]
    chosen = choose(seeds)
    for name in ("best.pt", "best.onnx"):
        shutil.copyfile(Path(chosen["run_dir"]) / name, cli.run_dir / name)
    (cli.run_dir / "seeds.json").write_text(json.dumps({"config": cli.config, "settings": cli.set, "seeds": seeds,
                                                        "chosen": chosen["seed"]}, indent=1))
    print(table(seeds, chosen))
    print(f"the team: seed {chosen['seed']}'s best.pt (its best own evaluation of {chosen['eval_games']} games from "
          f"seed {chosen['eval_seed']:,}), copied to {cli.run_dir / 'best.pt'} and best.onnx")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
