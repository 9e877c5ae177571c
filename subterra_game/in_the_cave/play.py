"""Play In the Cave in the terminal against bot teams, save the game, replay it (issue 21).

    subterra itc                                     # you play team 0, the heuristic team the other
    subterra itc --players 4 --seed 7 --save game.json
    subterra itc --config configs/in_the_cave/first_game.yaml --players 3 --seats heuristic,human,random
    subterra itc --watch --players 3 --delay 0.1     # bots only
    subterra itc replay game.json [--auto --delay 0.2] [--png frames/] [--gif game.gif]
    subterra itc --resume so_far.json                # go on with a game saved before its end (q, then a file name)

The game itself (the env, the seats, the bots, the record) is ``session.Table``, which the browser tables share;
this module is the terminal around it. Seats: ``human`` (optionally ``human:NAME``), ``heuristic``
(``agents.in_the_cave.HeuristicTeam``) or ``random``, one per team in seat order. Every decision goes through the
AEC env (``subterra_env.in_the_cave.env_aec``); the record (``records``) holds the config, seed, seats and every
action, and a replay re-plays them from the seed and checks that it reaches the recorded final scores.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from subterra_env.games.in_the_cave.config import PRESETS
from subterra_env.games.in_the_cave.core import layout as L

from ..records import RecordError
from . import records as R
from . import screen as S
from .replay import replay_game, replay_parser
from .screen import Terminal
from .session import ItcPlayError, Table, parse_seats, record_name, table_config


def human_turn(table: Table, term: Terminal) -> int | None:
    """The person's choice (an action id), or None when they quit."""
    seat, legal = table.seat(), table.legal()
    g, P = table.g, table.env.core.P
    screen = S.board(g, P, table.labels, table.title(), viewer=seat, colour=term.colour)
    ap = "packing" if g[L.ROUND] == 0 else f"{int(g[L.AP])} AP left"
    costs = S.ap_costs(table.env.core, g, legal)
    options = S.menu(g, P, legal, term.width, costs)
    screen += f"\nyour move, team {seat} ({table.labels[seat]}) · {ap}:\n" + options
    term.show(screen)
    prompt = f"choose 1-{len(legal)} or a name (? help, q quit): "
    while True:
        raw = term.read(prompt)
        low = raw.strip().lower()
        if low in ("q", "quit", "exit"):
            return None
        if low in ("?", "h", "help"):
            term.write(S.help_text())
            term.write(options)
            continue
        got = S.pick(raw, legal)
        if isinstance(got, int):
            return got
        term.write(f"  {got}")


def offer_save(table: Table, term: Terminal, save: str | None, finished: bool) -> None:
    default = save or record_name(table.seed, finished)
    try:
        ans = term.read(f"save the game {'record' if finished else 'so far'}? file name [{default}], n = no: ")
    except (EOFError, KeyboardInterrupt):
        ans = "n"
    ans = ans.strip()
    if ans.lower() in ("n", "no"):
        term.write("not saved")
        return
    path = table.save(ans or default)
    term.write(f"saved to {path}; replay it with: subterra itc replay {path}")


def say(table: Table, term: Terminal, line: str) -> None:
    """Narrate a decision: what ``Table.told`` says of it (the initial packing is hidden at a table with people)."""
    told = table.told(line)
    if told is not None:
        term.say(told)


def play(table: Table, term: Terminal, save: str | None = None, ask_save: bool = False, watch: bool = False) -> int:
    """Play to the end (0) or until the person quits (130)."""
    last_round = -1
    while not table.over:
        seat = table.seat()
        turn = table.new_turn()
        if turn:
            term.say(turn)
        try:
            if table.kinds[seat] == "human":
                action = human_turn(table, term)
                if action is None:
                    term.write("game stopped")
                    offer_save(table, term, save, finished=False)
                    return 130
                say(table, term, table.apply(action))
                continue
            if watch and int(table.g[L.ROUND]) != last_round:
                last_round = int(table.g[L.ROUND])
                term.show(S.board(table.g, table.env.core.P, table.labels, table.title(), legend=last_round <= 1,
                                   colour=term.colour))
            say(table, term, table.apply(table.bot_action(seat)))
            if term.delay:
                if term.clear and watch:
                    term.show(S.board(table.g, table.env.core.P, table.labels, table.title(), legend=False,
                                       colour=term.colour))
                time.sleep(term.delay)
        except EOFError:
            term.write("input closed: game stopped")
            if save:
                term.write(f"the game so far is saved to {table.save(save)}")
            return 130
        except KeyboardInterrupt:
            term.write("\ngame stopped")
            offer_save(table, term, save, finished=False)
            return 130
    term.show(S.board(table.g, table.env.core.P, table.labels, table.title(), colour=term.colour))
    for line in S.final_lines(table.g, table.labels):
        term.write(line)
    if save:
        term.write(f"game record saved to {table.save(save)}; replay it with: subterra itc replay {save}")
    elif ask_save:
        offer_save(table, term, None, finished=True)
    return 0


# ---------------------------------------------------------------------------------------------- command line
def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="subterra itc", description="Play In the Cave in the terminal against bot "
                                "teams (each team's seat: human, heuristic or random). subterra itc replay FILE "
                                "replays a saved game.", epilog="Keys in the game: a number picks that option, an "
                                "action name or its start picks that action, ? shows the help, q quits.")
    p.add_argument("--players", type=int, choices=(2, 3, 4, 5), help="teams at the table (default 2, or the "
                   "config's)")
    p.add_argument("--config", help="an In the Cave YAML file (configs/in_the_cave/four.yaml) or a preset name ("
                   + ", ".join(PRESETS) + ")")
    p.add_argument("--seed", type=int, help="the game's seed (default: a random one, shown and saved)")
    p.add_argument("--seats", help="every team in seat order: human[:NAME], heuristic or random (default: you play "
                   "team 0, the heuristic the others)")
    p.add_argument("--watch", action="store_true", help="bots only: watch them play")
    p.add_argument("--delay", type=float, default=0.2, help="seconds after each bot decision (default 0.2; 0: no "
                   "pause)")
    p.add_argument("--max-rounds", type=int, help="the round limit (default: the config's, 100)")
    p.add_argument("--save", metavar="FILE", help="save the game record here at the end (else you are asked)")
    p.add_argument("--no-color", action="store_true", help="no colours on the map (also: the NO_COLOR environment "
                   "variable)")
    p.add_argument("--resume", metavar="FILE", help="go on with a game saved before its end (its config, seed and "
                   "seats; --seats changes who plays)")
    return p


def colour(tty: bool, args: argparse.Namespace) -> bool:
    """Colour the map in a real terminal, unless --no-color or the NO_COLOR environment variable."""
    return tty and not args.no_color and not os.environ.get("NO_COLOR")


def resume(path: str, seats_text: str | None) -> Table:
    """The table of a record saved before its end, its decisions played again (checked as a replay)."""
    doc = R.load(path)
    if doc["result"].get("finished"):
        raise ItcPlayError(f"the game in {path} is over: replay it with: subterra itc replay {path}")
    cfg = R.config_of(doc, path)
    seats = parse_seats(seats_text, cfg.num_players, False) if seats_text else \
        [(s["player"], s.get("name") if s["player"] == "human" else None) for s in doc["seats"]]
    table = Table(cfg, doc["seed"], seats, str(doc.get("config_name", "default")))
    table.replay(doc, path)
    return table


def itc_main(argv: Sequence[str], read: Callable[[str], str] = input, write: Callable[[str], Any] = print) -> int:
    """``subterra itc ...`` and ``subterra itc replay FILE ...``; returns the exit code (141 when the output pipe
    closes, as ``subterra itc --watch | head`` does)."""
    try:
        return _itc_main(argv, read, write)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes stdout at exit
        return 141


def _itc_main(argv: Sequence[str], read: Callable[[str], str], write: Callable[[str], Any]) -> int:
    argv = list(argv)
    tty = sys.stdin.isatty() and sys.stdout.isatty() and read is input
    if argv and argv[0] == "replay":
        args = replay_parser().parse_args(argv[1:])
        term = Terminal(read, write, clear=tty and not args.auto, delay=args.delay, colour=colour(tty, args))
        return replay_game(args.file, term, auto=args.auto or not tty and read is input, png=args.png, gif=args.gif,
                           cell=args.cell)
    args = parser().parse_args(argv)
    try:
        if args.resume:
            table = resume(args.resume, args.seats)
            write(f"resumed {args.resume} after {len(table.doc['actions'])} decisions")
            term = Terminal(read, write, clear=tty, delay=args.delay, colour=colour(tty, args))
            return play(table, term, save=args.save, ask_save=tty)
        seats = parse_seats(args.seats, args.players, args.watch)
        players = args.players if args.players is not None else len(seats) if args.seats and not args.config else None
        cfg, name = table_config(args.config, players, args.max_rounds)
        seed = args.seed if args.seed is not None else secrets.randbelow(10**6)
        if args.seats is None and cfg.num_players != len(seats):
            seats = parse_seats(None, cfg.num_players, args.watch)
        table = Table(cfg, seed, seats, name)
    except (ItcPlayError, RecordError) as e:
        write(f"error: {e}")
        return 2
    term = Terminal(read, write, clear=tty, delay=args.delay, colour=colour(tty, args))
    term.write(f"In the Cave: seed {seed}, {cfg.num_players} teams: "
               + ", ".join(f"team {i} {lab}" for i, lab in enumerate(table.labels)))
    return play(table, term, save=args.save, ask_save=tty, watch=args.watch)
