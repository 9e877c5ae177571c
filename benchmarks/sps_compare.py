"""How far several runs of ``benchmarks/sps.py`` agree, row by row: is a figure a figure yet?

    python -m benchmarks.sps_compare runs/sps_1.json runs/sps_2.json ... [--limit 0.15] [--out agree.json]

For every row (name, B) present in all the runs: the median env-steps/s of each run, their spread across runs
((max - min) / median), and the same for the "x ref" ratio (the row over the interleaved reference game), with a
verdict per row: "ok" when both spreads are at most ``--limit`` (15%, the project's rule), else which one is not.
The same again for the undisturbed rates (the 90th percentile of a run's 0.1 s slices, and its ratio to the
reference's: ``sps.undisturbed``), where the runs have them ("undisturbed_verdict"; None for older runs).
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
        entry = {"name": key[0], "batch": key[1]}
        entry |= agreement([run[key] for run in runs], "env_steps_per_s", "x_reference", "", limit)
        fast = agreement([run[key] for run in runs], "undisturbed_env_steps_per_s", "x_reference_undisturbed",
                         "undisturbed_", limit)
        table.append(entry | (fast if fast["undisturbed_env_steps_per_s"] else
                              {k: None for k in fast}))
    return table


def agreement(rows: list[dict[str, Any]], rate: str, ratio: str, prefix: str, limit: float) -> dict[str, Any]:
    """How far one statistic of a row (its rate ``rate`` and ratio ``ratio`` fields) agrees across the runs: the
    values, their spreads and medians, and a verdict (keys prefixed by ``prefix``; values None where a run lacks
    the statistic: an older run, or no reference)."""
    rates = [row.get(rate, 0.0) for row in rows]
    ratios = [row.get(ratio, 0.0) for row in rows]
    has_rate, has_ratio = all(rates), all(ratios)
    s_rate = spread(rates) if has_rate else 0.0
    s_ratio = spread(ratios) if has_ratio else 0.0
    bad = [what for what, s in (("env-steps/s", s_rate), ("x ref", s_ratio)) if s > limit]
    return {f"{prefix}env_steps_per_s": rates if has_rate else None, f"{prefix}spread": s_rate,
            f"{prefix}x_reference": ratios if has_ratio else None,
            f"{prefix}x_reference_spread": s_ratio if has_ratio else None,
            f"{prefix}median_env_steps_per_s": statistics.median(rates) if has_rate else None,
            f"{prefix}median_x_reference": statistics.median(ratios) if has_ratio else None,
            f"{prefix}verdict": "ok" if not bad else "spread of " + " and ".join(bad) + f" > {limit:.0%}"}


def print_table(table: list[dict[str, Any]], runs: int) -> None:
    print(f"{runs} runs; spread = (max - min) / median across the runs; first the runs' medians, then their "
          "undisturbed rates")
    for prefix, title in (("", "median /s"), ("undisturbed_", "undisturbed /s")):
        print(f"\n{'benchmark':<34}{'B':>6}{title:>15}{'spread':>8}{'x ref':>8}{'spread':>8}  verdict")
        for e in table:
            if e[f"{prefix}env_steps_per_s"] is None:
                continue
            ratio = (f"{e[f'{prefix}median_x_reference']:>7.2f}x{e[f'{prefix}x_reference_spread']:>8.0%}"
                     if e[f"{prefix}x_reference"] else f"{'-':>8}{'-':>8}")
            print(f"{e['name']:<34}{e['batch']:>6}{e[f'{prefix}median_env_steps_per_s']:>15,.0f}"
                  f"{e[f'{prefix}spread']:>8.0%}{ratio}  {e[f'{prefix}verdict']}")


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
