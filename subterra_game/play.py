"""Play Sub Terra in the terminal beside bot teammates, save the game, replay it (terminal, PNG frames, GIF).

    subterra play                                   # you play the first caver, three bots the others
    subterra play --config configs/tiny.yaml --seed 7 --human scout --delay 0.5 --save game.json
    subterra play --seats human:ann,human:bob,heuristic,random     # hot seat: two people, two bots, by seat
    subterra play --seats medic=human,leader=policy:runs/x/best.zip --bots heuristic   # by caver name
    subterra play --bots search --search-worlds 8   # insist on the search bots (fewer worlds: faster, weaker)
    subterra play --watch --delay 0.2               # bots only
    subterra play --resume game.json                # go on with a game saved before its end (Ctrl-C)
    subterra replay game.json [--auto --delay 0.5] [--png frames/] [--gif game.gif]
    subterra serve [--port 8765]                    # the browser table (subterra_game.web; the web extra)
    subterra itc [--players 3] [--watch]            # In the Cave against bot teams (subterra_game.in_the_cave)
    subterra dataset ...                            # datasets of games (subterra_game.datasets.cli)
    python -m subterra_game.play ...                 # the same command ("play" may be left out)

This module is the command line, on top of the game app: nothing in the package imports it. The game at the table
is ``session.Session`` (seats: ``seats``, bots: ``bots``), which the browser tables share; ``game_loop`` plays it
at the terminal (``tui``); ``subterra itc`` is ``in_the_cave.play``, ``subterra serve`` is ``web.server``.

Seats: every caver's seat is ``human`` (optionally ``human:NAME``), ``search``, ``heuristic``, ``random``,
``policy:PATH`` (a MaskablePPO .zip, needs the ``train`` extra; a ``.pt`` of the native trainer, needs torch; or
an ONNX export, ``agents/shipped/team.onnx`` or a native run's ``best.onnx``, needs only onnxruntime) or ``auto``
(the default of ``--bots``): the strongest bot that answers in time. Strongest first: ``search`` (Monte Carlo
search over the heuristic, ``agents.search.SearchAgent``, public information only), ``heuristic``, the shipped team
(``policy:agents/shipped/team.zip``), ``random``. ``auto`` times a few search decisions at the start (on a heuristic
game of the same deal, never the game itself) and seats ``search`` when its median decision takes at most
``SEARCH_LIMIT_S`` (0.5 s) here, else ``heuristic``; one line at the start says which and why. Which cavers sit at the
table is drawn from the seed unless ``--cavers`` fixes them; ``--human CAVER`` (names, or seat numbers from 0)
picks the cavers people play after the draw. Without ``--seats``/``--human``/``--watch`` you play seat 0.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from subterra_env.config import PRESETS, GameConfig
from subterra_env.info import game_info, result_name
from .bots import SEARCH_LIMIT_S
from .game_loop import play_session
from .narrate import Event, narrate
from .records import (RecordError, add_replay_options, load_record, record_config, replay_record, seat_labels,
                      write_gif, write_pngs)
from .seats import PlayError, SeatPlan, bot_seat, seat_from_record, seat_plan
from .session import Session, table_config


# ---------------------------------------------------------------------------------------------- command line
def game_config(args: argparse.Namespace) -> tuple[GameConfig, str]:
    """Settings from --config (a YAML file or a preset name) and the flags that override it."""
    if args.config and not Path(args.config).is_file() and args.config not in PRESETS:
        raise PlayError(f"--config {args.config!r}: no such file, and not a preset ({', '.join(PRESETS)})")
    return table_config(args.config, args.num_cavers, args.difficulty, args.cavers, files=True)


def play_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="subterra play", description="Play Sub Terra in the terminal with bots as "
                                "teammates (each caver's seat: human, search, heuristic, random or policy:PATH).",
                                epilog="Keys in the game: a number picks an action, ? shows the rules of every "
                                "action, ? N explains option N, q or Ctrl-C pauses (continue, save, quit).")
    p.add_argument("--config", help="game settings: a YAML file (configs/tiny.yaml) or a preset name (tiny, small, "
                   "medium, full, advanced, ...)")
    p.add_argument("--num-cavers", type=int, choices=(4, 5, 6), help="cavers at the table (default 4)")
    p.add_argument("--difficulty", choices=("easier", "normal", "advanced", "expert"))
    p.add_argument("--cavers", help="fix who plays, e.g. diver,scout,medic,leader (default: drawn from the seed)")
    p.add_argument("--seed", type=int, help="the game's seed (default: a random one, shown and saved)")
    p.add_argument("--max-rounds", type=int, default=200, help="stop the game after this many rounds (default 200)")
    who = p.add_argument_group("seats (default: you play seat 0, bots the rest)")
    who.add_argument("--human", action="append", default=[], metavar="CAVER",
                     help="a caver played by a person: a name (scout) or seat number (0); repeat or comma-separate "
                     "for several people (hot seat); CAVER:NAME names the person")
    who.add_argument("--seats", help="every seat in seat order: human[:NAME],search,heuristic,random,policy:PATH,"
                     "auto; or CAVER=KIND pairs (scout=human,medic=random), the rest --bots")
    who.add_argument("--bots", metavar="KIND", help="every other seat: auto (the default: the strongest bot that "
                     f"answers in time: search when a short timing at the start finds its median decision at most "
                     f"{SEARCH_LIMIT_S:g} s here, else heuristic; the start line says which and why), search (Monte "
                     "Carlo search over the heuristic: strongest, slowest), heuristic (fast), random, or policy:PATH "
                     "(a MaskablePPO .zip; the shipped team, weaker than the heuristic: "
                     "policy:agents/shipped/team.zip). Strongest first: search, heuristic, shipped team, random. "
                     "(bot = auto)")
    who.add_argument("--search-worlds", type=int, metavar="N",
                     help="sampled futures every legal action is played in, per search decision (default: the "
                     "agent's own, agents.search.DEFAULT_WORLDS, each played DEFAULT_HORIZON rounds and then valued "
                     "by its estimate); the cost grows with N: fewer is faster and weaker")
    who.add_argument("--watch", action="store_true", help="bots only: watch them play")
    p.add_argument("--delay", type=float, default=0.5, help="seconds to show each bot decision (default 0.5; 0 = "
                   "no pause)")
    p.add_argument("--save", metavar="FILE", help="save the game record here at the end (else you are asked)")
    p.add_argument("--resume", metavar="FILE", help="go on with a saved unfinished game (its settings, seed and "
                   "seats; --seats/--human/--bots override the seats)")
    p.add_argument("--no-color", action="store_true", help="no colours (also: the NO_COLOR environment variable)")
    return p


def replay_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="subterra replay", description="Replay a saved game record: step through it "
                                "in the terminal, or write its frames as PNG files or an animated GIF. The record "
                                "is checked first: it must replay to the result and final state it stored.")
    p.add_argument("file", help="a game record (.json) written by subterra play")
    add_replay_options(p, delay=0.5, cell=48, unit="tile")
    p.add_argument("--show", action="store_true", help="step through it in the terminal too when writing files")
    return p


def _console(no_color: bool) -> Any:
    from rich.console import Console

    return Console(highlight=False, no_color=no_color or bool(os.environ.get("NO_COLOR")))


def play_main(argv: Sequence[str]) -> int:
    args = play_parser().parse_args(list(argv))
    from .tui import TerminalUI

    ui = TerminalUI(_console(args.no_color), delay=args.delay)
    try:
        resumed = None
        if args.resume:
            resumed = load_record(args.resume)
            cfg, name, seed = record_config(resumed, args.resume), Path(args.resume).stem, int(resumed["seed"])
            max_cycles = int(resumed["max_cycles"])
            origin = "as asked"
            if args.seats or args.human or args.watch:
                plan = seat_plan(args.seats, args.human, args.bots or "auto", args.watch)
            else:
                saved = [seat_from_record(s) for s in resumed["seats"]]
                if args.bots is not None:  # --bots alone: the people stay, the bots change
                    others = bot_seat(args.bots)
                    saved = [s if s.human else others for s in saved]
                else:
                    origin = "as in the saved game"
                plan = SeatPlan(by_seat=saved)
        else:
            cfg, name = game_config(args)
            seed = args.seed if args.seed is not None else secrets.randbelow(10**6)
            max_cycles = args.max_rounds
            origin = "as asked"
            plan = seat_plan(args.seats, args.human, args.bots or "auto", args.watch)
        if args.search_worlds is not None and args.search_worlds < 1:
            raise PlayError(f"--search-worlds {args.search_worlds}: at least 1 world")

        def on_probe() -> None:
            if ui.full_screen:  # a second or so before the first screen
                ui.say("choosing the bots: timing a few search decisions ...", style="dim")

        session = Session(cfg, seed, plan, max_cycles=max_cycles, name=name, search_worlds=args.search_worlds,
                          origin=origin, on_probe=on_probe)
        if resumed is not None:
            session.replay(resumed["actions"], args.resume)
            ui.say(f"resumed after {len(resumed['actions'])} decisions", style="bold green")
    except (PlayError, RecordError) as e:
        ui.say(f"error: {e}")
        return 2
    interactive = sys.stdin.isatty()
    return play_session(session, ui, save=args.save, interactive=interactive)


class _ReplayView:
    """What the terminal screen reads, for a replayed game at one of its steps."""

    def __init__(self, doc: dict, replay: Any, name: str):
        self.doc, self.replay, self.name = doc, replay, name
        self.labels = seat_labels(doc)
        self.humans = {i for i, s in enumerate(doc["seats"]) if s.get("player") == "human"}
        self.env = SimpleNamespace(core=replay.env.core, state_=replay.states[0], max_cycles=replay.env.max_cycles,
                                   config=replay.env.config)
        self.step = 0
        self.keys = "Enter next · b back · q quit"

    def title(self) -> str:
        n = len(self.doc["actions"])
        return f"replay {self.name} · seed {self.doc['seed']} · step {self.step}/{n}"

    def focus_seat(self) -> int:
        return int(self.env.state_.actor[0])

    def events(self, i: int) -> list[Event]:
        a = self.doc["actions"][i - 1]
        return narrate(self.env.core, self.replay.states[i - 1], self.replay.states[i], int(a["action"]))


def replay_main(argv: Sequence[str]) -> int:
    args = replay_parser().parse_args(list(argv))
    from rich.text import Text

    from .tui import TerminalUI

    ui = TerminalUI(_console(args.no_color), delay=args.delay)
    try:
        doc = load_record(args.file)
        rep = replay_record(doc, where=args.file)
    except RecordError as e:
        ui.say(f"error: {e}")
        return 2
    res = doc["result"]
    n = len(doc["actions"])
    ui.say(f"{args.file}: {n} decisions replayed to the recorded result ({res.get('name', result_name(res['code']))}"
           f"{'' if res.get('finished') else ', unfinished'}) and final state hash {doc['final_state_hash']}",
           style="green")
    wrote = False
    if args.png:
        paths = write_pngs(doc, args.png, cell=args.cell, replay=rep)
        ui.say(f"wrote {len(paths)} frames: {paths[0]} .. {paths[-1]}", style="bold green")
        wrote = True
    if args.gif:
        path = write_gif(doc, args.gif, delay=args.delay, cell=args.cell, replay=rep)
        ui.say(f"wrote {path} ({n + 1} frames, {args.delay:g} s each)", style="bold green")
        wrote = True
    if wrote and not args.show:
        return 0
    view = _ReplayView(doc, rep, Path(args.file).stem)
    auto = args.auto or not sys.stdin.isatty()
    i = 0
    try:
        while True:
            view.step, view.env.state_ = i, rep.states[i]
            ui.log.clear()
            for k in range(max(1, i - 3), i + 1):
                ui.log.extend(view.events(k))
            if not ui.full_screen and i:  # a pipe: the narration as lines
                for ev in view.events(i):
                    ui.console.print(Text(ev.text))
            if ui.full_screen:
                keys = "auto" if auto else "Enter next · b back · a number jumps · q quit"
                ui.draw(view, footer=Text(f"step {i}/{n} · {keys}", style="bold yellow"))
            if i == n and auto:
                break
            if auto:
                time.sleep(args.delay)
                i += 1
                continue
            ans = ui.ask("" if ui.full_screen else f"step {i}/{n} (Enter next, b back, q quit): ").lower()
            if ans in ("q", "quit"):
                break
            if ans in ("b", "back"):
                i = max(0, i - 1)
            elif ans.isdigit():
                i = min(n, int(ans))
            elif i < n:
                i += 1
            else:
                break
    except (KeyboardInterrupt, EOFError):
        pass
    view.step, view.env.state_ = n, rep.states[-1]
    if ui.full_screen:
        ui.final(view)
    else:
        st = rep.states[-1]
        escaped = game_info(st, 0)["escaped"]
        ui.say(f"result: {result_name(int(st.result[0]))} (escaped {escaped}, round {int(st.round[0])})",
               style="bold")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``subterra [play] ...``, ``subterra replay FILE ...``, ``subterra serve ...``, ``subterra itc ...`` or
    ``subterra dataset ...``. The commands beside ``play`` and ``replay`` are imported when asked for: the web needs
    its extra, and none of them slows the start of the others."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "replay":
        return replay_main(argv[1:])
    if argv and argv[0] == "itc":  # In the Cave against bot teams (subterra_game.in_the_cave)
        from .in_the_cave.play import itc_main

        return itc_main(argv[1:])
    if argv and argv[0] == "serve":  # the browser table: its own subpackage, which needs the web extra
        try:
            from .web.server import serve_main
        except ImportError as e:
            print(f"error: subterra serve needs the web extra (missing: {e.name}): pip install -e '.[web]'",
                  file=sys.stderr)
            return 2
        return serve_main(argv[1:])
    if argv and argv[0] == "dataset":  # datasets of games: subterra_game.datasets
        try:
            from .datasets.cli import main as dataset_main
        except ModuleNotFoundError as e:
            print(f"error: subterra dataset does not load here (missing module: {e.name})", file=sys.stderr)
            return 2
        return dataset_main(argv[1:])
    if argv and argv[0] == "play":
        argv = argv[1:]
    if argv and argv[0] in ("-h", "--help") and len(argv) == 1:
        print_help()
        return 0
    return play_main(argv)


def print_help() -> None:
    """``subterra --help``: the commands, then ``subterra play``'s options."""
    print("subterra COMMAND ...   commands:\n"
          "  play     Sub Terra in the terminal beside bots (the default: 'play' may be left out)\n"
          "  replay   a saved game again: terminal, PNG frames, GIF\n"
          "  serve    the browser table: people and bots, each person by a link\n"
          "  itc      In the Cave against bot teams (itc replay FILE: a saved In the Cave game)\n"
          "  dataset  datasets of recorded games (see subterra dataset --help)\n"
          "subterra COMMAND --help shows each one's options; subterra play's follow.\n")
    play_parser().print_help()
    print("\nsubterra replay FILE [--auto] [--delay S] [--png DIR] [--gif FILE]: see subterra replay --help")
    print("subterra serve [--host H] [--port P] [--data DIR]: play in the browser; see subterra serve --help")
    print("subterra itc [--players N] [--seats ...] | itc replay FILE: In the Cave against bot teams; see "
          "subterra itc --help")
    print("subterra dataset ...: datasets of recorded games; see subterra dataset --help")


def _entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    _entry()
