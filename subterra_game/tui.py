"""The terminal interface of ``subterra play`` and ``subterra replay`` (rich).

One screen, redrawn after every decision: the cave (walls, passages, tile types, floods, rubble, ropes, arrows,
horrors and cavers, in colour where the terminal has it), the team panel (each caver's health, who plays it, AP,
exert, hazard cards and tiles left, round, gas and Out of Time warnings), the latest events in plain words
(``subterra_game.narrate``), and on a person's turn the numbered legal actions with their AP costs.

The cave itself is drawn by ``tui_cave`` (``cave_text``), the help pages by ``tui_help`` (both re-exported here).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from subterra_env.config import CAVER_NAMES
from subterra_env.games.sub_terra.core.catalogue import CARD_NAMES
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RESULT_NAMES, RUNNING, State
from subterra_env.info import game_info
from subterra_env.render import BLOCK_H, BLOCK_W
from subterra_env.words import ability_status, caver_flags

from .narrate import ACTION_HELP, Event, action_cost, action_detail, pending_text, status_words
from .tui_cave import FLOODED_BG, GUTTER, TERM_BG, TERM_CAVER, WALL_RGB, _rgb, cave_text  # noqa: F401
from .tui_help import RULES_SUMMARY, SCENARIO_SUMMARY, explain, help_pages  # noqa: F401

EVENT_STYLES = {"action": "bold", "tile": "cyan", "move": "", "damage": "bold red", "heal": "green",
                "horror": "magenta", "hazard": "bold yellow", "turn": "dim", "round": "bold blue",
                "result": "bold green", "defeat": "bold red", "info": "", "error": "bold red"}
MEDAL_STYLES = {"gold": "bold black on rgb(255,205,40)", "silver": "bold black on rgb(200,205,215)",
                "bronze": "bold black on rgb(215,135,65)", "defeat": "bold white on red"}


def health_text(hp: int, mx: int, dead: bool = False) -> Text:
    if dead:
        return Text("devoured", style="bold red")
    t = Text("♥" * hp, style="bold red")
    t.append("♡" * (mx - hp), style="dim")
    t.append(f" {hp}/{mx}", style="dim" if hp else "bold red")
    return t


def team_panel(core: Core, st: State, players: Sequence[str], humans: Iterable[int] = (), b: int = 0,
               max_cycles: int | None = None, width: int | None = None,
               intents: dict[int, str] | None = None) -> Panel:
    """The cavers, their health and flags (and each bot's intent line, ``intents``), then the team's counters."""
    humans = set(humans)
    actor = int(st.actor[b])
    tab = Table.grid(padding=(0, 1))
    for _ in range(5):
        tab.add_column()
    tab.add_row(Text(""), Text("caver", style="dim"), Text("player", style="dim"), Text("health", style="dim"),
                Text("", style="dim"))
    for s in range(st.num_seats):
        rank = int(st.c_rank[b, s])
        name = Text(f"{rank} {CAVER_NAMES[rank - 1]}", style=f"bold {_rgb(TERM_CAVER[rank])}")
        flags = [{"unconscious": "knocked out", "on exit": "ON EXIT"}.get(f, f) for f in caver_flags(st, b, s)]
        who = Text(players[s] if s < len(players) else "?", style="bold" if s in humans else "dim")
        flag_text = Text(", ".join(flags), style="bold green" if "ON EXIT" in flags else "yellow")
        if intents and intents.get(s):
            flag_text.append(("  " if flags else "") + f"› {intents[s]}", style="italic cyan")
        tab.add_row(Text("▶" if s == actor else " ", style="bold yellow"), name, who,
                    health_text(int(st.c_hp[b, s]), int(st.c_max[b, s]), bool(st.c_dead[b, s])), flag_text)
    lines = Text()
    cards = game_info(st, b)["hazard_cards_left"]
    tiles = int(st.stack.shape[1] - st.stack_pos[b])
    rnd = f"round {int(st.round[b])}" + (f" (max {max_cycles})" if max_cycles else "")
    lines.append(f"{rnd}   ", style="bold")
    if actor >= 0:
        lines.append(f"AP {int(st.ap[b])}", style="bold cyan")
        lines.append(f"  exert {'used' if st.exerted[b] else 'available'}", style="cyan")
    lines.append("\n")
    lines.append(f"hazard cards left {cards}", style="bold yellow" if cards <= 1 else "")
    lines.append(f"   tiles left {tiles}   ropes {int(st.ropes_left[b])}   horrors {int((st.h_tile[b] >= 0).sum())}")
    if (st.l_tile[b] >= 0).any():  # Extraction (R-EXT-4)
        lines.append(f"   leapers {int((st.l_tile[b] >= 0).sum())}")
    last = int(st.last_card[b])
    lines.append(f"\nlast hazard: {CARD_NAMES[last] if last >= 0 else '-'}")
    extras = status_words(ability_status(st, b, core.cat))
    if extras:
        lines.append("\n" + "   ".join(extras), style="dim")
    over = st.result[b] != RUNNING  # after the end, no warning about the rounds to come
    if st.gas_active[b] and not over:
        lines.append("\n⚠ GAS: entering a gas tile costs health until the next hazard phase", style="bold red")
    if over:
        pass
    elif st.out_of_time[b]:
        lines.append("\n⚠ OUT OF TIME: each round, cavers off the exit may be devoured", style="bold red")
    elif cards == 1:
        lines.append("\nthe next hazard card is Out of Time", style="yellow")
    pend = pending_text(core, st, b) if actor >= 0 else ""
    if pend:
        lines.append(f"\nnow: {pend}", style="bold cyan")
    if st.result[b] != RUNNING:
        res = RESULT_NAMES[int(st.result[b])]
        lines.append(f"\n RESULT: {res.upper()} ", style=MEDAL_STYLES[res])
    return Panel(Group(tab, Text(""), lines), title="team", border_style="blue", expand=False, width=width)


def events_panel(events: Sequence[Event], title: str = "what happened", width: int | None = None) -> Panel:
    body = Text(no_wrap=False)
    for i, ev in enumerate(events):
        if i:
            body.append("\n")
        body.append(ev.text, style=EVENT_STYLES.get(ev.kind, ""))
    return Panel(body if events else Text("(nothing yet)", style="dim"), title=title, border_style="grey50",
                 width=width)


def menu_panel(core: Core, st: State, legal: Sequence[int], title: str, width: int) -> Panel:
    """The numbered legal actions: number, rulebook name, AP cost (this config's), what it does here."""
    from subterra_env.games.sub_terra.core.actions import ACTION_NAMES

    rows = [(Text(f"{i:>2}", style="bold yellow"), Text(ACTION_NAMES[a], style="bold"),
             Text(action_cost(core, int(a)), style="cyan"), Text(action_detail(core, st, int(a)), style=""))
            for i, a in enumerate(legal, start=1)]
    cols = 2 if len(rows) > 6 and width >= 110 else 1
    per = (len(rows) + cols - 1) // cols
    grid = Table.grid(padding=(0, 1))
    for c in range(cols):
        grid.add_column(justify="right", no_wrap=True)
        grid.add_column(no_wrap=True)
        grid.add_column(no_wrap=True)
        grid.add_column(no_wrap=True, overflow="ellipsis", max_width=max(20, (width - 4) // cols - 24))
    for r in range(per):
        cells: list[Text] = []
        for c in range(cols):
            k = c * per + r
            cells += list(rows[k]) if k < len(rows) else [Text("")] * 4
        grid.add_row(*cells)
    return Panel(grid, title=title, border_style="yellow", title_align="left")


class TerminalUI:
    """Draws the screen and reads a person's choices. ``delay``: seconds to pause after each bot decision."""

    def __init__(self, console: Console | None = None, delay: float = 0.5):
        self.console = console or Console(highlight=False)
        self.delay = max(0.0, float(delay))
        self.log: deque[Event] = deque(maxlen=60)
        self.full_screen = self.console.is_terminal

    # ------------------------------------------------------------------ drawing
    def header(self, title: str, keys: str = "? help · q quit") -> Text:
        t = Text(" SUB TERRA ", style="bold black on rgb(210,170,90)")
        t.append(f"  {title}", style="bold")
        t.append(f"    {keys}", style="dim")
        return t

    def screen(self, session: Any, menu: Panel | None = None, footer: Text | None = None) -> Group:
        """The whole screen: header; the cave beside the team and the latest events (stacked on narrow
        terminals); the menu; the footer. Sized to the terminal: a large cave is cropped around the actor."""
        st, core = session.env.state_, session.env.core
        width, height = self.console.size

        def rows(r: Any, w: int) -> int:
            return len(self.console.render_lines(r, self.console.options.update(width=w)))

        menu_h = rows(menu, width) if menu is not None else 0
        top_h = max(12, height - 1 - menu_h - (1 if footer is not None else 0) - 2)  # header, prompt
        colour = self.console.color_system is not None
        side = team_panel(core, st, session.labels, session.humans, max_cycles=session.env.max_cycles,
                          intents=getattr(session, "intents", None))
        side_w = self.console.measure(side).maximum
        if width >= side_w + 2 * BLOCK_W + GUTTER + 6:  # the cave left, team and events right
            cave = Panel(cave_text(st, max_cols=width - side_w - 6, max_rows=top_h - 2, focus=session.focus_seat(),
                                   colour=colour, core=core), title="cave", border_style="grey50", expand=False)
            cave_w = self.console.measure(cave).maximum
            right_w = width - cave_w - 1
            side = team_panel(core, st, session.labels, session.humans, max_cycles=session.env.max_cycles,
                              intents=getattr(session, "intents", None), width=right_w)
            side_h = rows(side, right_w)
            right_h = min(top_h, max(rows(cave, cave_w), side_h + 8))
            top: Any = Table.grid(padding=(0, 1))
            top.add_column()
            top.add_column()
            top.add_row(cave, Group(side, self.events(right_w, max(3, right_h - side_h))))
        else:  # narrow: everything stacked
            side = team_panel(core, st, session.labels, session.humans, max_cycles=session.env.max_cycles,
                              intents=getattr(session, "intents", None), width=width)
            side_h = rows(side, width)
            cave = Panel(cave_text(st, max_cols=width - 4, max_rows=max(BLOCK_H + 1, top_h - side_h - 7),
                                   focus=session.focus_seat(), colour=colour, core=core),
                         title="cave", border_style="grey50", expand=False)
            top = Group(cave, side, self.events(width, 5))
        parts: list[Any] = [self.header(session.title(), getattr(session, "keys", "? help · q quit")), top]
        if menu is not None:
            parts.append(menu)
        if footer is not None:
            parts.append(footer)
        return Group(*parts)

    def events(self, width: int, height: int) -> Panel:
        """The latest events that fit in a panel of this size (lines may wrap)."""
        shown: list[Event] = []
        for ev in reversed(self.log):
            trial = events_panel([ev] + shown, width=width)
            if len(self.console.render_lines(trial, self.console.options.update(width=width))) > height:
                break
            shown.insert(0, ev)
        return events_panel(shown, width=width)

    def draw(self, session: Any, menu: Panel | None = None, footer: Text | None = None) -> None:
        if self.full_screen:
            self.console.clear()
        self.console.print(self.screen(session, menu, footer))

    def add_events(self, events: Iterable[Event]) -> list[Event]:
        events = list(events)
        self.log.extend(events)
        if not self.full_screen:  # a pipe or a log file: the narration as lines
            for ev in events:
                self.console.print(Text(ev.text, style=EVENT_STYLES.get(ev.kind, "")))
        return events

    def bot_moved(self, session: Any) -> None:
        """After a bot's decision: show it (when the game is watched with a delay)."""
        if self.delay > 0:
            if self.full_screen:
                self.draw(session, footer=Text(f"bots playing ... (delay {self.delay:g} s; Ctrl-C to stop)",
                                               style="dim"))
            time.sleep(self.delay)

    # ------------------------------------------------------------------ a person's decision
    def choose(self, session: Any, legal: Sequence[int], title: str) -> int:
        """A legal action id chosen by the person at the keyboard; re-asks with the reason on bad input. Raises
        KeyboardInterrupt for q / Ctrl-C and EOFError when input closes."""
        core, st = session.env.core, session.env.state_
        width = self.console.size.width
        menu = menu_panel(core, st, legal, title, width)
        self.draw(session, menu)
        n = len(legal)
        prompt = f"choose 1-{n} (? help, ? N explains option N, q quit): "
        while True:
            raw = self.console.input(Text(prompt, style="bold yellow")).strip()
            low = raw.lower()
            if low in ("q", "quit", "exit"):
                raise KeyboardInterrupt
            if low in ("?", "h", "help"):
                self.show_help(core)
                self.draw(session, menu)
                continue
            if low[:1] in ("?", "h") and low[1:].strip().isdigit():
                k = int(low[1:].strip())
                if 1 <= k <= n:
                    self.console.print(explain(core, int(legal[k - 1]), st))
                else:
                    self.say(f"there is no option {k}: the options are 1 to {n}")
                continue
            if not raw:
                self.say(f"type the number of an action (1-{n}), or ? for help")
                continue
            if raw.lstrip("+-").isdigit():
                k = int(raw)
                if 1 <= k <= n:
                    return int(legal[k - 1])
                self.say(f"{k} is out of range: choose a number from 1 to {n}")
                continue
            from subterra_env.games.sub_terra.core.actions import ACTION_NAMES

            names = {nm.lower(): i for i, nm in enumerate(ACTION_NAMES)}
            if low in names:
                a = names[low]
                if a in legal:
                    return a
                self.say(f"{ACTION_NAMES[a]!r} is not legal now (legal when: {ACTION_HELP[a][2]}); the legal "
                         f"actions are the numbered ones: " + ", ".join(ACTION_NAMES[x] for x in legal))
                continue
            self.say(f"{raw!r} is not a number: type a number from 1 to {n} (or an action name, or ? for help)")

    def say(self, text: str, style: str = "bold red") -> None:
        self.console.print(Text(text, style=style))

    def show_help(self, core: Core) -> None:
        pages = help_pages(core)
        for i, page in enumerate(pages):
            if self.full_screen:
                self.console.clear()
            self.console.print(page)
            last = i == len(pages) - 1
            ans = self.console.input(Text("press Enter to go back to the game " if last else
                                          "press Enter for the action table, q to go back ", style="bold yellow"))
            if ans.strip().lower() in ("q", "quit"):
                return

    def ask(self, question: str, default: str = "") -> str:
        return self.console.input(Text(question, style="bold yellow")).strip() or default

    def final(self, session: Any) -> None:
        self.draw(session)
        st = session.env.state_
        if st.result[0] != RUNNING:
            res = RESULT_NAMES[int(st.result[0])]
            escaped = game_info(st, 0)["escaped"]
            self.console.print(Text(f" RESULT: {res.upper()} — {escaped} of {st.num_seats} cavers escaped "
                                    f"in {int(st.round[0])} rounds ", style=MEDAL_STYLES[res]))
        else:
            self.console.print(Text(f" the game was stopped after {int(st.round[0]) - 1} rounds "
                                    "(the round limit) ", style="bold"))


__all__ = ["TerminalUI", "cave_text", "events_panel", "explain", "help_pages", "menu_panel", "team_panel"]
