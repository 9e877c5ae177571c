"""The baselines table: native PPO from scratch (IPPO and MAPPO, several seeds) on the learnable presets, each final
team evaluated with ``training/evaluate.py`` beside reference teams, with learning curves; ``--bc TEACHER`` adds
"BC + PPO" cells beside them (the same runs started from a clone of the teacher).

    python -m training.baselines --out runs/baselines                       # `make baselines`: hours on 2 cores
    python -m training.baselines --presets tiny --seeds 0 --steps tiny=200000 --eval-games 50 --out /tmp/b  # CI

For each preset x critic x seed: ``python -m training.ppo --config configs/train/ppo_tiny.yaml --set game=PRESET --set
critic=C --set seed=S --set total_steps=N`` (plus ``--set KEY=VALUE`` extras), then ``python -m training.evaluate
--config configs/PRESET.yaml --games G --team policy:RUN/best.pt``: games from seed 0, the same seeds as the reference
teams' rows (``--reference``, default random and heuristic), so the rows are paired. Writes under ``--out``: one run
directory per cell, ``baselines.json`` (every cell: budget in env-steps and seconds, greedy cavers out with its 95%
interval and medal rates; the references), ``baselines.md`` (the table) and ``curves_PRESET.png`` (greedy evaluation
during training against env-steps, mean over seeds, min-max band).

``--bc TEACHER`` (heuristic, search, search:N or minari:ID: ``training/ppo.py``'s ``bc_teacher``, with its bc_*
settings, which ``--set`` may change) trains each preset x critic x seed a second time with ``--set
bc_teacher=TEACHER``, in ``PRESET-CRITIC-bc-SEED``: its cells carry ``bc_teacher`` in the JSON (null for the runs
from scratch), its rows read "CRITIC, BC (TEACHER) + PPO" and its curves (dashed) start at step 0 from the cloned
policy. Their budget in env-steps is PPO's; their wall-clock includes the cloning. The clone itself (``clone.pt``) is
evaluated on the same games too (``eval-clone/``; the cell's ``clone`` in the JSON, a "clone" row above the cell's).
``--bc-set KEY=VALUE`` gives those cells alone a setting, e.g. ``--bc-set anchor_kl=1`` (the penalty that holds PPO
near the clone, which a run from scratch has no use for); ``--bc-only`` trains those cells alone. ``--merge JSON
...`` joins the cells and references of earlier ``baselines.json`` files to this run's in one table, JSON and set of
curves (this run's replace theirs where both have the same cell), so that cells trained at different times make one
table (the BC + PPO rows of docs/baselines.md):

    python -m training.baselines --presets tiny small --critics mappo --bc heuristic --bc-only --reference \
        --merge docs/baselines/tiny_table/baselines.json --out runs/baselines-bc
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PRESETS = ("tiny", "small", "medium", "full")
CRITICS = ("ippo", "mappo")
# env-steps a run: about 10 min (tiny) to an hour (the rest) a run on a quiet 2-core machine at ~20,000 steps/s
DEFAULT_STEPS = {"tiny": 12_000_000, "small": 60_000_000, "medium": 60_000_000, "full": 60_000_000}
MAX_CYCLES = {"tiny": 60, "small": 100, "medium": 150, "full": 200}


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--presets", nargs="+", default=list(PRESETS), choices=PRESETS)
    p.add_argument("--critics", nargs="+", default=list(CRITICS), choices=CRITICS)
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument("--steps", nargs="*", default=[], metavar="PRESET=N", help="env-steps a run, per preset")
    p.add_argument("--eval-games", type=int, default=1000, help="evaluate.py games a cell (seeds 0..G-1)")
    p.add_argument("--reference", nargs="*", default=["random", "heuristic"],
                   help="evaluate.py teams evaluated on the same games (search and ceiling: slow on the big caves)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="extra training/ppo.py setting")
    p.add_argument("--out", type=Path, default=Path("runs/baselines"))
    p.add_argument("--resume", action="store_true", help="skip cells whose evaluation is already there")
    p.add_argument("--bc", metavar="TEACHER", help="also train BC + PPO cells, PPO started from a clone of TEACHER "
                   "(training/ppo.py's bc_teacher: heuristic, search, search:N, minari:ID)")
    p.add_argument("--bc-set", action="append", default=[], metavar="KEY=VALUE",
                   help="extra training/ppo.py setting of the BC + PPO cells only (e.g. anchor_kl=1)")
    p.add_argument("--bc-only", action="store_true", help="train the BC + PPO cells alone (not those from scratch)")
    p.add_argument("--merge", nargs="+", type=Path, default=[], metavar="JSON",
                   help="earlier baselines.json files whose cells and references join this table (this run's cells "
                   "and references replace theirs where both have one)")
    args = p.parse_args(argv)
    if args.bc_set and args.bc is None:
        p.error(f"--bc-set {' '.join(args.bc_set)}: the BC + PPO cells' settings need --bc TEACHER")
    if args.bc_only and args.bc is None:
        p.error("--bc-only: the BC + PPO cells need --bc TEACHER")
    args.earlier = []  # the --merge files' contents, read once
    for path in args.merge:
        try:
            earlier = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            p.error(f"--merge {path}: {e}")
        if not isinstance(earlier, dict) or not {"cells", "references"} <= earlier.keys():
            p.error(f"--merge {path}: not a baselines.json (no 'cells' and 'references')")
        args.earlier.append(earlier)
    if args.bc is not None:
        from training.ppo import check_teacher_name
        from training.schema import SettingsError

        try:
            check_teacher_name(args.bc)
        except SettingsError as e:
            p.error(f"--bc: {e}")
    steps = dict(DEFAULT_STEPS)
    for item in args.steps:
        name, _, value = item.partition("=")
        if name not in PRESETS or not value.isdigit() or int(value) < 1:
            p.error(f"--steps {item!r}: expected PRESET=N with PRESET in {PRESETS} and N a positive integer")
        steps[name] = int(value)
    args.steps = steps
    if args.eval_games < 1:
        p.error("--eval-games must be at least 1")
    return args


def run(cmd: list[str]) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=REPO, check=True)


def evaluate(preset: str, teams: list[str], games: int, out: Path) -> list[dict[str, Any]]:
    cmd = [sys.executable, "-m", "training.evaluate", "--config", f"configs/{preset}.yaml", "--games", str(games),
           "--out", str(out)]
    for team in teams:
        cmd += ["--team", team]
    run(cmd)
    rows = json.loads((out / "results.json").read_text())["results"]
    return [{k: r[k] for k in ("team", "escaped_mean", "escaped_ci95", "rates", "num_games")} for r in rows]


def train_cell(args: argparse.Namespace, preset: str, critic: str, seed: int, teacher: str | None) -> dict[str, Any]:
    """One run (from scratch, or BC + PPO from ``teacher``) and its evaluation; ``--resume`` reuses a finished one."""
    run_dir = args.out / (f"{preset}-{critic}-bc-{seed}" if teacher else f"{preset}-{critic}-{seed}")
    result = run_dir / "eval" / "results.json"
    if not (args.resume and result.exists()):
        cmd = [sys.executable, "-m", "training.ppo", "--config", "configs/train/ppo_tiny.yaml", "--run-dir",
               str(run_dir), "--overwrite", "--set", f"game={preset}", "--set", f"critic={critic}", "--set",
               f"seed={seed}", "--set", f"total_steps={args.steps[preset]}", "--set",
               f"max_cycles={MAX_CYCLES[preset]}", "--set", "progress_bar=false"]
        for extra in args.set:
            cmd += ["--set", extra]
        if teacher:
            cmd += ["--set", f"bc_teacher={teacher}"]
            for extra in args.bc_set:
                cmd += ["--set", extra]
        t0 = time.perf_counter()
        run(cmd)
        (run_dir / "wall_seconds.txt").write_text(f"{time.perf_counter() - t0:.1f}\n")
        evaluate(preset, [f"policy:{run_dir / 'best.pt'}"], args.eval_games, run_dir / "eval")
    row = json.loads(result.read_text())["results"][0]
    progress = [json.loads(line) for line in (run_dir / "progress.jsonl").read_text().splitlines()]
    curve = [json.loads(line) for line in (run_dir / "eval.jsonl").read_text().splitlines()]
    cell = {"preset": preset, "critic": critic, "seed": seed, "bc_teacher": teacher, "env_steps": progress[-1]["step"],
            "seconds": float((run_dir / "wall_seconds.txt").read_text()),
            "escaped_mean": row["escaped_mean"], "escaped_ci95": row["escaped_ci95"], "rates": row["rates"],
            "games": row["num_games"], "curve": [(c["step"], c["escaped_mean"]) for c in curve]}
    if teacher:  # the clone PPO started from, on the same games: what PPO added to it
        cloned = run_dir / "eval-clone" / "results.json"
        if not cloned.exists():
            evaluate(preset, [f"policy:{run_dir / 'clone.pt'}"], args.eval_games, cloned.parent)
        clone = json.loads(cloned.read_text())["results"][0]
        cell["clone"] = {k: clone[k] for k in ("escaped_mean", "escaped_ci95", "rates")}
    return cell


def merged(tables: list[dict[str, Any]], cells: list[dict[str, Any]], references: dict[str, list[dict[str, Any]]]
           ) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """This run's cells and references joined with those of earlier ``baselines.json`` tables (a later table's, and
    this run's, replace an earlier one's of the same preset, critic, teacher and seed), the cells in preset order."""
    by_key: dict[tuple, dict[str, Any]] = {}
    refs: dict[str, list[dict[str, Any]]] = {}
    for earlier in tables:
        for cell in earlier["cells"]:
            by_key[cell["preset"], cell["critic"], cell.get("bc_teacher"), cell["seed"]] = cell
        refs.update(earlier["references"])
    for cell in cells:
        by_key[cell["preset"], cell["critic"], cell["bc_teacher"], cell["seed"]] = cell
    refs.update({preset: rows for preset, rows in references.items() if rows})
    out = [{**cell, "bc_teacher": cell.get("bc_teacher")} for cell in by_key.values()]
    out.sort(key=lambda c: (PRESETS.index(c["preset"]), CRITICS.index(c["critic"]), c["bc_teacher"] is not None,
                            c["seed"]))
    return out, {preset: refs[preset] for preset in PRESETS if preset in refs}


def table(cells: list[dict[str, Any]], references: dict[str, list[dict[str, Any]]]) -> str:
    lines = ["| preset | team | seeds | env-steps | wall-clock | cavers out (95% CI) | gold |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for preset in dict.fromkeys(c["preset"] for c in cells):
        for ref in references.get(preset, []):
            lines.append(f"| {preset} | {ref['team']} | - | - | - | {ref['escaped_mean']:.2f} ± "
                         f"{ref['escaped_ci95']:.2f} | {ref['rates']['gold']:.1%} |")
        for critic, teacher in variants(cells):
            mine = [c for c in cells if c["preset"] == preset and (c["critic"], c["bc_teacher"]) == (critic, teacher)]
            if not mine:
                continue
            per_seed = ", ".join(f"{c['escaped_mean']:.2f}" for c in mine)
            mean = sum(c["escaped_mean"] for c in mine) / len(mine)
            gold = sum(c["rates"]["gold"] for c in mine) / len(mine)
            steps = sorted({c["env_steps"] for c in mine})  # a wall-clock budget (max_seconds) ends seeds apart
            span = f"{steps[0]:,}" if len(steps) == 1 else f"{steps[0]:,}-{steps[-1]:,}"
            clones = [c["clone"] for c in mine if c.get("clone")]
            if clones:  # the clones alone, before PPO: 0 env-steps
                lines.append(f"| {preset} | {critic.upper()}, BC ({teacher}) clone | {len(clones)} | 0 | - | "
                             f"{sum(c['escaped_mean'] for c in clones) / len(clones):.2f} (seeds: "
                             f"{', '.join(format(c['escaped_mean'], '.2f') for c in clones)}) | "
                             f"{sum(c['rates']['gold'] for c in clones) / len(clones):.1%} |")
            lines.append(f"| {preset} | {label(critic, teacher)} | {len(mine)} | "
                         f"{span} | {sum(c['seconds'] for c in mine) / len(mine) / 60:.0f} min | "
                         f"{mean:.2f} (seeds: {per_seed}) | {gold:.1%} |")
    return "\n".join(lines) + "\n"


def variants(cells: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    """The (critic, BC teacher or None) pairs of the cells: each critic from scratch, then BC-started."""
    have = {(c["critic"], c["bc_teacher"]) for c in cells}
    return sorted(have, key=lambda v: (CRITICS.index(v[0]), v[1] is not None, v[1] or ""))


def label(critic: str, teacher: str | None) -> str:
    return f"{critic.upper()}, BC ({teacher}) + PPO" if teacher else f"{critic.upper()} from scratch"


def curves(cells: list[dict[str, Any]], out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    paths = []
    for preset in dict.fromkeys(c["preset"] for c in cells):
        fig, ax = plt.subplots(figsize=(6, 3.6), dpi=100)
        for critic, teacher in variants(cells):
            mine = [c for c in cells if c["preset"] == preset and (c["critic"], c["bc_teacher"]) == (critic, teacher)
                    and c["curve"]]
            if not mine:
                continue
            n = min(len(c["curve"]) for c in mine)
            steps = np.array([p[0] for p in mine[0]["curve"][:n]]) / 1e6
            values = np.array([[p[1] for p in c["curve"][:n]] for c in mine])
            ax.plot(steps, values.mean(0), marker="o", linestyle="--" if teacher else "-",
                    label=f"{label(critic, teacher)} ({len(mine)} seeds)")
            ax.fill_between(steps, values.min(0), values.max(0), alpha=0.2)
        ax.set_xlabel("env-steps (millions)")
        ax.set_ylabel("greedy cavers out (of 4)")
        ax.set_title(f"native PPO: {preset}")
        ax.set_ylim(0, 4)
        ax.grid(alpha=0.3)
        ax.legend(loc="best")  # the curves sit high on the tiny cave, low on the others
        fig.tight_layout()
        path = out / f"curves_{preset}.png"
        fig.savefig(path)
        plt.close(fig)
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    references = {}
    for preset in args.presets:
        if args.reference:
            references[preset] = evaluate(preset, args.reference, args.eval_games, args.out / f"reference-{preset}")
    teachers = ([] if args.bc_only else [None]) + ([args.bc] if args.bc else [])
    cells = [train_cell(args, preset, critic, seed, teacher) for preset in args.presets for critic in args.critics
             for teacher in teachers for seed in args.seeds]
    cells, references = merged(args.earlier, cells, references)
    (args.out / "baselines.json").write_text(json.dumps({"cells": cells, "references": references, "bc": args.bc,
                                                         "bc_set": args.bc_set, "merged": [str(m) for m in args.merge],
                                                         "command": " ".join(sys.argv)}, indent=1))
    text = table(cells, references)
    (args.out / "baselines.md").write_text(text)
    curves(cells, args.out)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
