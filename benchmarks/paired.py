"""Is this tree faster than another commit's? Paired timing, processes of the two trees alternating.

    python -m benchmarks.paired 04509ef                      # the step+mask+obs row at B = 4096, 6 pairs
    python -m benchmarks.paired HEAD~1 --batch 1024 --threads 1 --no-obs --pairs 9 --out /tmp/paired.json
    python -m benchmarks.paired v0.9 --same-policy           # both trees step with one numpy policy
    python -m benchmarks.paired 5bdee37 --row sb3 --batch 256  # the SB3 VecEnv at 256 envs instead of the core

On the shared machines a row of ``benchmarks/sps.py`` moves 15-40% between runs, more than most changes to the
engine, so a change is judged by pairs instead: the other commit is extracted (``git archive``) into a folder of
its own, and each pair runs one process in each tree (which goes first alternates), each timing the core row
``sps.core_stepper(batch, obs, seed, threads=threads)`` of its own tree (a warm-up, then the median of
``--repeats`` runs of ``--seconds``), or with ``--row`` another interface's row of ``benchmarks/sps.py`` at
``--batch`` games: ``torchrl`` (``torchrl_stepper``), ``sb3`` (``sb3_stepper``), ``gymnasium``
(``gym_vector_stepper``). The report is every pair's ratio (this tree over the other), their median and how many
pairs were faster, with the other commit's full hash (``commit``: the ref may move later); a slow spell of the
machine hits the two processes of a pair alike far more often than two separate runs. The other tree must have
``benchmarks/sps.py`` with ``core_stepper`` and ``timed_run`` (commits since 2026-11-28). Both trees run this
machine's own compiled code (``SUBTERRA_PORTABLE=0``): the other tree's is compiled once, into numba's cache, before
the first pair (a few minutes unless it is cached already: a commit's tree is kept in
``~/.cache/subterra_env/paired/<commit>``, 29 MB, since numba's cache is keyed by the files' paths, so later
comparisons with that commit load its code; delete the folder to free the space).
Until 2026-12-04 the other tree loaded its shipped portable code where that matched its sources (generic x86-64
instructions, ``core/portable.py``) while this tree, edited, ran native code: such pairs favoured this tree.

``--same-policy``: both trees take their actions from ``sps.random_legal`` (numpy's draws, a uniform legal
action), which every tree's benchmark has, so only the engines differ; by default each tree uses its benchmark's
own policy (``sps.RandomLegal``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# Run in each tree's folder with that tree on the path: it imports only that tree's code.
CHILD = r"""
import functools, json, statistics, sys
import numba
import benchmarks.sps as S
o = json.loads(sys.argv[1])
if o["same_policy"]:  # core_stepper builds RandomLegal(rng, batch, threads): numpy's draws instead
    S.RandomLegal = lambda rng, *args: functools.partial(S.random_legal, rng)
if o["threads"]:
    numba.set_num_threads(o["threads"])
makers = {"core": lambda: S.core_stepper(o["batch"], o["obs"], 7, threads=o["threads"] or None),
          "torchrl": lambda: S.torchrl_stepper(o["batch"], 7), "sb3": lambda: S.sb3_stepper(o["batch"], 7),
          "gymnasium": lambda: S.gym_vector_stepper(o["batch"], 7)}
step = makers[o["row"]]()
S.timed_run(step, 1.0)
rates = [S.timed_run(step, o["seconds"])[0] for _ in range(o["repeats"])]
print(json.dumps(statistics.median(rates)))
"""


def trees_dir() -> Path:
    """Where other commits' trees are kept: one folder per commit, so that numba's cache of a tree's native code
    (keyed by its files' paths) serves every later comparison with that commit."""
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "subterra_env" / "paired"
    base.mkdir(parents=True, exist_ok=True)
    return base


def extract(ref: str) -> Path:
    """Commit ``ref`` of this repository as files in ``trees_dir()``, in a folder named by its full commit hash,
    extracted once (``git archive``: no worktree to clean up) and reused after."""
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"git rev-parse {ref}: not a commit of {ROOT}")
    commit = done.stdout.strip()  # archived by its hash: a ref that moves meanwhile (HEAD) cannot mix two commits
    tree = trees_dir() / commit
    if not tree.exists():
        with tempfile.TemporaryDirectory(prefix=".extract-", dir=tree.parent) as tmp:
            archive, part = Path(tmp) / "tree.tar", Path(tmp) / "tree"
            done = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", "-o", str(archive),
                                   commit], capture_output=True, text=True)
            if done.returncode:
                raise SystemExit(f"git archive {ref}: {done.stderr.strip() or 'failed'}")
            with tarfile.open(archive) as tar:
                tar.extractall(part, filter="data")
            try:  # whole or not at all: a second process extracting the same commit at once keeps the first's
                part.rename(tree)
            except OSError:
                if not tree.exists():
                    raise
    if not (tree / "benchmarks" / "sps.py").exists():
        raise SystemExit(f"{ref} has no benchmarks/sps.py to time")
    return tree


ROWS = ("core", "torchrl", "sb3", "gymnasium")


def time_tree(tree: Path, settings: dict[str, Any]) -> float:
    """The median env-steps/s of one process timing the row in ``tree``."""
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(settings)], cwd=tree, capture_output=True,
                          text=True, env=_env(tree))
    if done.returncode:
        raise SystemExit(f"timing in {tree} failed:\n{done.stderr.strip()[-2000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def _env(tree: Path) -> dict[str, str]:
    # native code in both trees, so that a pair compares the sources and not the shipped tier with this machine's
    return {**os.environ, "PYTHONPATH": str(tree), "SUBTERRA_QUIET": "1", "SUBTERRA_PORTABLE": "0"}


def pairs(ref: str, settings: dict[str, Any], n: int, show: bool = True) -> dict[str, Any]:
    """``n`` pairs (the other tree first in the first, third, ... pair, this one first in the others); returns the
    report (see the module docstring)."""
    other = extract(ref)
    time_tree(other, {**settings, "seconds": 0.01, "repeats": 1})  # its code compiled (or found) before pair 1
    rows = []
    for k in range(n):
        if k % 2 == 0:  # which tree goes first alternates, so that an order effect cancels
            before, after = time_tree(other, settings), time_tree(ROOT, settings)
        else:
            after, before = time_tree(ROOT, settings), time_tree(other, settings)
        rows.append({"other": before, "this": after, "ratio": after / before})
        if show:
            print(f"pair {k + 1}: {ref} {before:>13,.0f}  this tree {after:>13,.0f}  ratio {after / before:.3f}",
                  flush=True)
    ratios = [r["ratio"] for r in rows]
    return {"ref": ref, "commit": other.name, "pairs": rows, "median_ratio": statistics.median(ratios),
            "faster": sum(r > 1 for r in ratios), "settings": settings}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("ref", help="the commit to compare this tree with (any git revision)")
    p.add_argument("--row", choices=ROWS, default="core",
                   help="the row to time: the core, or the TorchRL env, SB3 VecEnv, gymnasium VectorEnv [core]")
    p.add_argument("--batch", type=int, default=4096, help="games in the batch (the vector envs' slots) [4096]")
    p.add_argument("--no-obs", action="store_true", help="step + mask only (no observations)")
    p.add_argument("--threads", type=int, default=0, help="numba threads (0: numba's default, every core) [0]")
    p.add_argument("--pairs", type=int, default=6, help="pairs of processes [6]")
    p.add_argument("--seconds", type=float, default=0.4, help="one timed run [0.4]")
    p.add_argument("--repeats", type=int, default=9, help="timed runs per process, their median reported [9]")
    p.add_argument("--same-policy", action="store_true", help="both trees use one numpy policy")
    p.add_argument("--out", type=Path, help="also write the report as JSON here")
    args = p.parse_args(argv)
    for name in ("batch", "pairs", "repeats"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be at least 1")
    if args.seconds <= 0 or args.threads < 0:
        p.error("--seconds must be > 0 and --threads >= 0")
    settings = {"row": args.row, "batch": args.batch, "obs": not args.no_obs, "threads": args.threads,
                "seconds": args.seconds, "repeats": args.repeats, "same_policy": args.same_policy}
    report = pairs(args.ref, settings, args.pairs)
    print(f"median ratio {report['median_ratio']:.3f} (this tree over {args.ref}); {report['faster']} of "
          f"{args.pairs} pairs faster")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main(sys.argv[1:])
