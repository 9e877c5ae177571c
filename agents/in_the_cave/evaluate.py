"""Evaluate In the Cave agent kinds against each other: a round-robin with 95% intervals.

    python -m agents.in_the_cave.evaluate --games 1000            # the heuristic against random (the default)
    python -m agents.in_the_cave.evaluate --agents random heuristic policy:runs/itc_dagger/model.zip --games 200 \\
        [--players 2] [--seed 0] [--mirror] [--json out.json] [--markdown out.md]

Kinds (``kinds.py``): ``random``, ``heuristic``, ``policy:PATH``, each optionally named ``LABEL=KIND`` (the
label is the spec otherwise; a repeated spec is numbered ``#2``..). Every pair of kinds (first, second) plays
``--games`` seeded games through the compiled core directly (the same rules as the env); game i has seed
``--seed`` + i (the same seeds for every pair) and the first kind sits in seat i % players, seats alternating with
2 players; with more, the first kind plays one seat (rotating) against the second kind in all the others ("one
against the field"). With 2 players each unordered pair plays once (the table's cells (a, b) and (b, a) are its
two sides); with more, each ordered pair plays. ``--mirror`` adds each kind against itself (with 2 players: how
much seat i % 2 wins). A random kind's stream is seeded from the game's seed: game seed + 1,000,003 x (k + 1) in
the second kind's k-th seat, x (MAX_SEATS + 1) in the first kind's seat.

Reported per pair: each side's win rate (a win shared by k teams counts 1/k; a truncated game counts as not won)
with its Wilson 95% interval, the first side's win rate in finished games, the truncated games, mean final scores
and eliminations (not home at the end) of each side in finished games; then the round-robin table (row's win rate
against the column). Markdown to stdout (and ``--markdown``), JSON with ``--json`` (``-``: stdout). Deterministic
for a given seed. The default (``--agents heuristic random``, seed 0) plays the games this script always played:
the heuristic in seat i % 2 of game i against a random team seeded i + 1,000,003.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from subterra_env.in_the_cave import preset
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.game import ItcCore
from subterra_env.games.in_the_cave.core.layout import MAX_SEATS

from .kinds import KIND_HELP, Agent, AgentKind, RandomPlayer, SpecError, heuristic_player, parse_kinds

RANDOM_STREAM = 1_000_003  # a random kind's seed: game seed + RANDOM_STREAM x (its seat's index on its side + 1)
FIRST_STREAM = MAX_SEATS + 1  # .. x this for the first kind's seat


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def play_game(core: ItcCore, seed: int, agents: list[Agent]) -> np.ndarray:
    """One game of seed ``seed``, ``agents[s]`` deciding for seat s; the final record. ValueError if an agent
    returns an illegal action."""
    G = core.init([seed])
    g = G[0]
    while g[L.OVER] == L.RUNNING:
        mask = core.masks(G)[0]
        s = int(g[L.ACTOR])
        a = int(agents[s](g, core.P, s, mask))
        if not 0 <= a < len(mask) or not mask[a]:
            raise ValueError(f"seat {s}'s agent chose action {a}, not legal now (game seed {seed})")
        core.step(G, [a])
    return g


def play(core: ItcCore, seed: int, heuristic_seat: int) -> np.ndarray:
    """One 2-player game: the heuristic in ``heuristic_seat``, a random team seeded ``seed`` + 1,000,003 in the
    other (the default evaluation's game)."""
    agents: list[Agent] = [RandomPlayer(seed + RANDOM_STREAM)] * 2
    agents[heuristic_seat] = heuristic_player
    return play_game(core, seed, agents)


def seating(first: AgentKind, second: AgentKind, game: int, seed: int, players: int) -> tuple[int, list[Agent]]:
    """Game ``game`` of a pair (seed ``seed``): the first kind's seat (game % players) and every seat's agent."""
    seat = game % players
    agents: list[Agent] = []
    k = 0
    for s in range(players):
        if s == seat:
            agents.append(first.make(seed + RANDOM_STREAM * FIRST_STREAM))
        else:
            agents.append(second.make(seed + RANDOM_STREAM * (k + 1)))
            k += 1
    return seat, agents


def _rate(wins: float, n: int) -> dict[str, Any]:
    lo, hi = wilson(wins, n)
    return {"wins": wins, "games": n, "win_rate": wins / n if n else None, "ci95": [round(lo, 4), round(hi, 4)]}


def _mean(xs: list[int]) -> float | None:
    return float(np.mean(xs)) if xs else None


def play_pair(core: ItcCore, first: AgentKind, second: AgentKind, games: int, seed: int = 0,
              progress: Any = None) -> dict[str, Any]:
    """``games`` seeded games of ``first`` against ``second`` (see the module's docstring); their statistics."""
    players = core.seats
    credit = [0.0, 0.0]
    truncated = 0
    scores: list[list[int]] = [[], []]
    eliminated = [0, 0]
    start = time.perf_counter()
    for i in range(games):
        seat, agents = seating(first, second, i, seed + i, players)
        g = play_game(core, seed + i, agents)
        if progress is not None:
            progress.update(1)
        if g[L.OVER] == L.TRUNCATED:
            truncated += 1
            continue
        win = [bool(g[L.WIN + s]) for s in range(players)]
        winners = sum(win)
        for s in range(players):
            side = 0 if s == seat else 1
            if win[s]:
                credit[side] += 1.0 / winners
            scores[side].append(int(g[L.SCORE + s]))
            eliminated[side] += int(g[L.POS + s] != 0)
    finished = games - truncated
    a, b = _rate(credit[0], games), _rate(credit[1], games)
    of_finished = _rate(credit[0], finished)
    return {"first": first.label, "second": second.label, "players": players, "games": games, "seed": seed,
            "first_wins": credit[0], "first_win_rate": a["win_rate"], "first_ci95": a["ci95"],
            "second_wins": credit[1], "second_win_rate": b["win_rate"], "second_ci95": b["ci95"],
            "truncated": truncated, "finished": finished,
            "first_win_rate_of_finished": of_finished["win_rate"], "first_ci95_of_finished": of_finished["ci95"],
            "first_mean_score": _mean(scores[0]), "second_mean_score": _mean(scores[1]),
            "first_eliminated": eliminated[0], "second_eliminated": eliminated[1],
            "fair_share": 1.0 / players, "seconds": round(time.perf_counter() - start, 1)}


def pairs(kinds: list[AgentKind], players: int, mirror: bool = False) -> list[tuple[AgentKind, AgentKind]]:
    """The pairs a round-robin plays: with 2 players each unordered pair once (in the listed order), with more each
    ordered pair; ``mirror`` adds each kind against itself."""
    out = []
    for i, a in enumerate(kinds):
        for j, b in enumerate(kinds):
            if (i == j and mirror) or (i < j) or (i > j and players > 2):
                out.append((a, b))
    return out


def round_robin(kinds: list[AgentKind], games: int, players: int = 2, seed: int = 0, mirror: bool = False,
                progress: bool = False, **settings: Any) -> dict[str, Any]:
    """Every pair of ``pairs(kinds, players, mirror)`` plays ``games`` games (``settings``: ItcConfig fields over
    the default preset); per pair results and the table (``table[row][col]``: row's win rate against col)."""
    if games < 1 or not 2 <= players <= MAX_SEATS or len(kinds) < 1:
        raise ValueError(f"need games >= 1, 2 <= players <= {MAX_SEATS} and a kind (got {games}, {players})")
    if len(kinds) == 1 and not mirror:
        raise ValueError("one kind plays only itself: give another kind or mirror=True")
    core = ItcCore(preset("default", num_players=players, **settings))
    todo = pairs(kinds, players, mirror)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=games * len(todo), unit="game", file=sys.stderr, mininterval=2.0, dynamic_ncols=True)
    results = []
    try:
        for a, b in todo:
            if bar is not None:
                bar.set_description(f"{a.label} vs {b.label}")
            results.append(play_pair(core, a, b, games, seed, bar))
    finally:
        if bar is not None:
            bar.close()
    table: dict[str, dict[str, Any]] = {k.label: {} for k in kinds}
    for r in results:
        table[r["first"]][r["second"]] = {"win_rate": r["first_win_rate"], "ci95": r["first_ci95"],
                                          "truncated": r["truncated"]}
        if players == 2 and r["first"] != r["second"]:
            table[r["second"]][r["first"]] = {"win_rate": r["second_win_rate"], "ci95": r["second_ci95"],
                                              "truncated": r["truncated"]}
    return {"settings": {"games": games, "players": players, "seed": seed, "mirror": mirror, **settings},
            "kinds": [{"label": k.label, "spec": k.spec} for k in kinds], "pairs": results, "table": table}


def _f(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _ci(rate: float | None, ci: list[float]) -> str:
    return "-" if rate is None else f"{_f(rate)} [{_f(ci[0])}, {_f(ci[1])}]"


def markdown(report: dict[str, Any]) -> str:
    """The round-robin table (row's win rate against column, 95% Wilson interval) and the pairs' details."""
    st = report["settings"]
    labels = [k["label"] for k in report["kinds"]]
    players = st["players"]
    field = "" if players == 2 else f"; the row plays one seat, the column the other {players - 1}"
    lines = [f"In the Cave round-robin: {st['games']} games a pair, {players} players, seeds {st['seed']}.."
             f"{st['seed'] + st['games'] - 1}{field}; settings "
             + ", ".join(f"{k} = {v}" for k, v in st.items() if k not in ("games", "players", "seed", "mirror")),
             "", "Win rate of the row against the column (a shared win counts 1/k; truncated games count as not "
             "won), 95% Wilson interval:", "",
             "| | " + " | ".join(f"`{x}`" for x in labels) + " |", "|---" * (len(labels) + 1) + "|"]
    for row in labels:
        cells = []
        for col in labels:
            c = report["table"][row].get(col)
            cells.append("-" if c is None else _ci(c["win_rate"], c["ci95"]))
        lines.append(f"| `{row}` | " + " | ".join(cells) + " |")
    lines += ["", "| first | second | first's wins | first's win rate [95%] | second's win rate [95%] | "
              "truncated | first's win rate, finished games | mean score first / second | eliminated first / "
              "second | seconds |", "|---" * 10 + "|"]
    for r in report["pairs"]:
        lines.append(
            f"| `{r['first']}` | `{r['second']}` | {r['first_wins']:g} / {r['games']} | "
            f"{_ci(r['first_win_rate'], r['first_ci95'])} | {_ci(r['second_win_rate'], r['second_ci95'])} | "
            f"{r['truncated']} | {_ci(r['first_win_rate_of_finished'], r['first_ci95_of_finished'])} | "
            f"{_f(r['first_mean_score'], 2)} / "
            f"{_f(r['second_mean_score'], 2)} | {r['first_eliminated']} / {r['second_eliminated']} | "
            f"{r['seconds']} |")
    return "\n".join(lines) + "\n"


def main(argv: Iterable[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[1:]))
    ap.add_argument("--agents", nargs="+", default=["heuristic", "random"], metavar="KIND",
                    help=f"agent kinds: {KIND_HELP} (default: heuristic random)")
    ap.add_argument("--games", type=int, default=200, help="games a pair (default 200)")
    ap.add_argument("--players", type=int, default=2, help=f"teams a game, 2 to {MAX_SEATS} (default 2)")
    ap.add_argument("--seed", type=int, default=0, help="game i has seed SEED + i (default 0)")
    ap.add_argument("--max-rounds", type=int, default=100, help="round limit, then truncated (default 100)")
    ap.add_argument("--mirror", action="store_true", help="also each kind against itself")
    ap.add_argument("--json", type=Path, help="write the report as JSON here ('-': stdout)")
    ap.add_argument("--markdown", type=Path, help="write the Markdown tables here")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar (stderr)")
    args = ap.parse_args(None if argv is None else list(argv))
    if args.games < 1 or not 2 <= args.players <= MAX_SEATS or args.seed < 0:
        ap.error(f"--games must be >= 1, --players 2 to {MAX_SEATS}, --seed >= 0")
    if len(args.agents) == 1 and not args.mirror:
        ap.error("one kind plays only itself: give another kind or --mirror")
    try:
        kinds = parse_kinds(args.agents)
    except (SpecError, FileNotFoundError, ValueError, ImportError) as e:
        ap.error(str(e))
    report = round_robin(kinds, args.games, args.players, args.seed, args.mirror, progress=not args.no_progress,
                         max_rounds=args.max_rounds)
    text = markdown(report)
    if args.markdown:
        args.markdown.write_text(text)
    if args.json:
        if str(args.json) == "-":
            print(json.dumps(report, indent=2))
        else:
            args.json.write_text(json.dumps(report, indent=2) + "\n")
    if str(args.json) != "-":
        print(text, end="")
    return report


if __name__ == "__main__":
    main()
