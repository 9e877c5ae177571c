"""How far several runs of ``benchmarks/sps.py`` agree, row by row: is a figure a figure yet?

    python -m benchmarks.sps_compare runs/sps_1.json runs/sps_2.json ... [--limit 0.15] [--out agree.json]

For every row (name, B) present in all the runs: the median env-steps/s of each run, their spread across runs
((max - min) / median), and the same for the "x ref" ratio (the row over the interleaved reference game), with a
verdict per row: "ok" when both spreads are at most ``--limit`` (15%, the project's rule), else which one is not.
Exit status 0 either way (a benchmark measures; it does not judge); the JSON holds the table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

LIMIT = 0.15


def spread(values: list[float]) -> float:
    """(max - min) / median, 0 for a single value or a zero median."""
    mid = statistics.median(values)
    return (max(values) - min(values)) / mid if len(values) > 1 and mid else 0.0


def load_runs(paths: list[Path]) -> list[dict[tuple[str, int], dict[str, Any]]]:
    """The rows of each run, keyed by (name, batch); a file that is not an sps.py JSON is refused by name."""
    runs = []
    for path in paths:
        try:
            data = json.loads(path.read_text())
            rows = {(r["name"], int(r["batch"])): r for r in data["rows"] if r.get("status", "ok") == "ok"}
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise SystemExit(f"{path}: not a benchmarks/sps.py result ({type(e).__name__}: {e})") from None
        runs.append(rows)
    return runs


def compare(runs: list[dict[tuple[str, int], dict[str, Any]]], limit: float = LIMIT) -> list[dict[str, Any]]:
    """One entry per row present in every run, in the first run's order."""
    table = []
    for key in runs[0]:
        if not all(key in run for run in runs):
            continue
        sps = [run[key]["env_steps_per_s"] for run in runs]
        ratios = [run[key].get("x_reference", 0.0) for run in runs]
        has_ratio = all(ratios)
        s_sps, s_ratio = spread(sps), spread(ratios) if has_ratio else 0.0
        bad = [what for what, s in (("env-steps/s", s_sps), ("x ref", s_ratio)) if s > limit]
        table.append({"name": key[0], "batch": key[1], "env_steps_per_s": sps, "spread": s_sps,
                      "x_reference": ratios if has_ratio else None, "x_reference_spread": s_ratio if has_ratio
                      else None, "median_env_steps_per_s": statistics.median(sps),
                      "median_x_reference": statistics.median(ratios) if has_ratio else None,
                      "verdict": "ok" if not bad else "spread of " + " and ".join(bad) + f" > {limit:.0%}"})
    return table


def print_table(table: list[dict[str, Any]], runs: int) -> None:
    print(f"{runs} runs; spread = (max - min) / median across the runs")
    print(f"{'benchmark':<34}{'B':>6}{'median /s':>13}{'spread':>8}{'x ref':>8}{'spread':>8}  verdict")
    for e in table:
        ratio = (f"{e['median_x_reference']:>7.2f}x{e['x_reference_spread']:>8.0%}" if e["x_reference"]
                 else f"{'-':>8}{'-':>8}")
        print(f"{e['name']:<34}{e['batch']:>6}{e['median_env_steps_per_s']:>13,.0f}{e['spread']:>8.0%}{ratio}  "
              f"{e['verdict']}")


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs", type=Path, nargs="+", help="JSON files written by benchmarks/sps.py --out")
    p.add_argument("--limit", type=float, default=LIMIT, help="the largest spread called agreement [0.15]")
    p.add_argument("--out", type=Path, help="also write the table as JSON here")
    args = p.parse_args(argv)
    if len(args.runs) < 2:
        p.error("give at least two runs to compare")
    table = compare(load_runs(args.runs), args.limit)
    print_table(table, len(args.runs))
    if args.out:
        args.out.write_text(json.dumps({"runs": [str(r) for r in args.runs], "limit": args.limit, "rows": table},
                                       indent=2))
    return table


if __name__ == "__main__":
    main(sys.argv[1:])
