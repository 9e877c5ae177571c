"""Paired comparison of two evaluations on the same seeds: cavers out of team B minus team A, game by game.

    python -m training.compare runs/eval-heur/results.json runs/eval-new/results.json
    python -m training.compare runs/eval/results.json --team-a heuristic --team-b policy:team  # one file, two teams

For every setting (preset) that both ``training/evaluate.py`` result files hold for the same seeds, prints the mean
difference in cavers out with its 95% interval (1.96 standard errors of the per-game differences), the games where
the two teams' outcomes differ, and the gold rates. Paired on the same seeds the interval is much tighter than
the two rows' own intervals, since both teams meet the same stacks, decks and dice.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np


def rows(path: str | Path, team: str | None = None) -> dict[str, dict[str, Any]]:
    """The results of one evaluate.py JSON by setting: team ``team``'s rows (as the file names the team), or the
    first row of each setting when ``team`` is None."""
    data = json.loads(Path(path).read_text())
    out: dict[str, dict[str, Any]] = {}
    for r in data["results"]:
        if team is None or r["team"] == team:
            out.setdefault(r["settings"], r)
    if team is not None and not out:
        raise ValueError(f"{path} holds no rows of team {team!r}; it holds "
                         f"{sorted({r['team'] for r in data['results']})}")
    return out


def paired(a: dict[str, Any], b: dict[str, Any]) -> dict[str, float]:
    """Team b minus team a on the seeds both played (the same seed list is required)."""
    if a["games"]["seed"] != b["games"]["seed"]:
        raise ValueError(f"setting {a['settings']!r}: the two evaluations played different seeds")
    ea, eb = np.asarray(a["games"]["escaped"], float), np.asarray(b["games"]["escaped"], float)
    d = eb - ea
    gold = lambda r: float(np.mean([x == "gold" for x in r["games"]["result"]]))  # noqa: E731
    return {"games": len(d), "a": float(ea.mean()), "b": float(eb.mean()), "diff": float(d.mean()),
            "ci95": float(1.96 * d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("nan"),
            "differ": int((d != 0).sum()), "gold_a": gold(a), "gold_b": gold(b)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", help="results.json of the reference team")
    p.add_argument("b", nargs="?", help="results.json of the team compared with it (default: the same file as a)")
    p.add_argument("--team-a", help="the reference team's name in its file (default: each setting's first row)")
    p.add_argument("--team-b", help="the compared team's name in its file (default: each setting's first row)")
    args = p.parse_args(argv)
    args.b = args.b or args.a
    try:
        ra, rb = rows(args.a, args.team_a), rows(args.b, args.team_b)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    common = [s for s in ra if s in rb]
    if not common:
        print(f"error: no setting in common between {args.a} and {args.b}", file=sys.stderr)
        return 2
    name_a, name_b = ra[common[0]]["team"], rb[common[0]]["team"]
    print(f"{name_b} minus {name_a}, cavers out per game, paired on the same seeds")
    print(f"{'setting':<10} {'games':>5} {name_a[:18]:>18} {name_b[:18]:>18} {'difference (95%)':>18} "
          f"{'games differ':>12} {'gold a -> b':>14}")
    for s in common:
        r = paired(ra[s], rb[s])
        print(f"{s:<10} {r['games']:>5} {r['a']:>18.3f} {r['b']:>18.3f} {r['diff']:>+10.3f} ± {r['ci95']:.3f} "
              f"{r['differ']:>12} {r['gold_a']:>6.1%} -> {r['gold_b']:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
