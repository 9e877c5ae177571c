"""The terminal interface of ``subterra play`` and ``subterra replay`` (rich).

One screen, redrawn after every decision: the cave (walls, passages, tile types, floods, rubble, ropes, arrows,
horrors and cavers, in colour where the terminal has it), the team panel (each caver's health, who plays it, AP,
exert, hazard cards and tiles left, round, gas and Out of Time warnings), the latest events in plain words
(``subterra_game.narrate``), and on a person's turn the numbered legal actions with their AP costs.

Cave map: every tile is a 9 x 5 block (``subterra_env.render``'s text blocks): walls are solid, an open side is a
gap. Row 1: the tile type code (STA start, EXT exit, NOR normal, WAT water, GAS gas, CAV cave-in, DEN horror
den, SQZ squeeze, LDG ledge, SLD slide, ROU rough) then ``~`` flooded, ``*`` rubble, ``r`` rope, ``^ > v <``
ledge/slide arrow; row 2: cavers by rank digit (1 diver .. 8 leader; a letter a..h when knocked out), the acting
caver highlighted; row 3: ``H`` per horror, ``L`` per leaper (Extraction) and ``!`` on a gas tile while gas is active. ``?`` marks an empty cell
that a Reveal can fill. Rulers give places relative to the start: ``E2 N1``.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from subterra_env.config import CAVER_NAMES
from subterra_env.games.sub_terra.core.catalogue import CARD_NAMES, CORE_TILE_TYPES, DX, DY
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import P_PLACE, RESULT_NAMES, RUNNING, State
from .narrate import (ACTION_HELP, HAZARD_TEXT, Event, action_cost, action_detail, frontier_cells, pending_text,
                      status_words)
from subterra_env.palette import CAVER_COLOURS, HORROR_COLOUR, LEAPER_COLOUR, TYPE_CODES
from subterra_env.render import BLOCK_H, BLOCK_W, tile_block
from subterra_env.words import ability_status, caver_flags
from subterra_env.info import game_info

EVENT_STYLES = {"action": "bold", "tile": "cyan", "move": "", "damage": "bold red", "heal": "green",
                "horror": "magenta", "hazard": "bold yellow", "turn": "dim", "round": "bold blue",
                "result": "bold green", "defeat": "bold red", "info": "", "error": "bold red"}
MEDAL_STYLES = {"gold": "bold black on rgb(255,205,40)", "silver": "bold black on rgb(200,205,215)",
                "bronze": "bold black on rgb(215,135,65)", "defeat": "bold white on red"}
WALL_RGB = (138, 138, 138)
# Tile backgrounds in the terminal: colours of xterm's 256-colour palette, so that 256-colour and true-colour
# terminals show the same (the PNG frames use palette.TYPE_COLOURS).
TERM_BG: dict[str, tuple[int, int, int]] = {
    "start": (108, 108, 108), "exit": (0, 135, 0), "normal": (68, 68, 68), "water": (0, 95, 175),
    "gas": (95, 135, 0), "cave-in": (135, 95, 0), "horror": (95, 0, 95), "squeeze": (95, 95, 135),
    "ledge": (135, 135, 0), "slide": (0, 135, 135), "rough": (95, 0, 0), "bomb": (175, 0, 0),
    "sanctuary": (135, 135, 95), "item": (175, 135, 0),
}
FLOODED_BG = (0, 0, 135)
TERM_CAVER = {**CAVER_COLOURS, 7: (95, 135, 255)}  # the image's dark blue Bodyguard is hard to read on black
assert set(TERM_BG) == set(CORE_TILE_TYPES)
GUTTER = 4  # columns of the row ruler left of the map

RULES_SUMMARY = """\
[bold]Goal[/]: find the exit tile and get every caver onto it before the cave kills you. The result counts the
cavers NOT on the exit at the end: 0 gold, 1 silver, 2 bronze, 3 or more defeat (R-RND-4).
[bold]A round[/] (R-RND-1): each caver takes a turn (2 AP, Exert once for a 3rd at the risk of 1 health), then
horrors move one step toward their closest victim (R-HOR-3), then a [bold]hazard card[/] is drawn (tremor,
flood, cave-in, gas, horror; x2 cards twice). The last card is [bold red]Out of Time[/]: from then on every caver
off the exit risks being devoured each round (R-HZ-7).
[bold]Health[/]: 3 each (the Bodyguard 5); at 0 a caver is knocked out and takes no turns until healed. Sharing
a tile with a horror knocks you out (R-HOR-5); the exit tile is safe from everything (R-TILE-1).
[bold]Tiles[/]: reveal/explore an open side to draw the next tile and choose how to turn it; water floods,
gas hurts, cave-in tiles fill with rubble (dig it), squeezes need Squeeze, ledges and slides need a rope to
cross back, rough terrain needs a skill check (a d6 of 4+, the Leader 3+) (R-TILE).
[bold]Keys[/]: a number picks an action; an action name works too ("move E"); [bold]?[/] this help;
[bold]? N[/] explains option N; [bold]q[/] (or Ctrl-C) stops the game and offers to save it."""


def _rgb(c: Sequence[float]) -> str:
    return f"rgb({int(c[0])},{int(c[1])},{int(c[2])})"


def _bg(st: State, b: int, t: int) -> tuple[int, int, int]:
    return FLOODED_BG if st.t_flood[b, t] else TERM_BG[_type_name(st, b, t)]


def _type_name(st: State, b: int, t: int) -> str:
    return CORE_TILE_TYPES[st.t_type[b, t]]


def _ruler(delta: int, pos: str, neg: str) -> str:
    return "0" if delta == 0 else f"{pos if delta > 0 else neg}{abs(delta)}"


def cave_text(st: State, b: int = 0, max_cols: int | None = None, max_rows: int | None = None,
              focus: int | None = None, colour: bool = True, core: Core | None = None) -> Text:
    """The cave as rich Text (see the module docstring); cropped around caver seat ``focus`` (default: the acting
    caver) when it does not fit in ``max_cols`` x ``max_rows`` characters."""
    tiles = np.nonzero(st.t_type[b] >= 0)[0]
    if not len(tiles):
        return Text("(no tiles placed)")
    front = frontier_cells(st, b, core)
    box, cropped = _view_box(st, b, tiles, front, max_cols, max_rows, focus)
    x0, x1, y0, y1 = box
    w, h = (x1 - x0 + 1) * BLOCK_W, (y1 - y0 + 1) * BLOCK_H
    chars = [[" "] * w for _ in range(h)]
    styles: list[list[str | None]] = [[None] * w for _ in range(h)]
    for t in tiles:
        tx, ty = int(st.t_x[b, t]), int(st.t_y[b, t])
        if x0 <= tx <= x1 and y0 <= ty <= y1:
            _draw_tile(st, b, int(t), (tx - x0) * BLOCK_W, (ty - y0) * BLOCK_H, chars, styles, colour)
    for fxc, fyc in front:
        if x0 <= fxc <= x1 and y0 <= fyc <= y1:
            cx, cy = (fxc - x0) * BLOCK_W + BLOCK_W // 2, (fyc - y0) * BLOCK_H + BLOCK_H // 2
            chars[cy][cx] = "?"
            styles[cy][cx] = "dim" if colour else None
    _draw_pending_tile(st, b, core, box, chars, styles, colour)
    return _canvas_text(st, b, box, chars, styles, cropped)


def _view_box(st: State, b: int, tiles: np.ndarray, front: Sequence[tuple[int, int]], max_cols: int | None,
              max_rows: int | None, focus: int | None) -> tuple[tuple[int, int, int, int], bool]:
    """The cells shown, (x0, x1, y0, y1), and whether that is less than the whole cave: every placed tile and
    frontier cell, or as many as fit in ``max_cols`` x ``max_rows`` characters around caver seat ``focus``."""
    xs = [int(st.t_x[b, t]) for t in tiles] + [c[0] for c in front]
    ys = [int(st.t_y[b, t]) for t in tiles] + [c[1] for c in front]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    cols_fit = max(1, ((max_cols or 10**6) - GUTTER) // BLOCK_W)
    rows_fit = max(1, ((max_rows or 10**6) - 1) // BLOCK_H)
    focus = int(st.actor[b]) if focus is None or focus < 0 else focus
    ft = int(st.c_tile[b, focus]) if 0 <= focus < st.num_seats and st.c_tile[b, focus] >= 0 else 0
    fx, fy = int(st.t_x[b, ft]), int(st.t_y[b, ft])
    cropped = False
    if x1 - x0 + 1 > cols_fit:
        x0 = min(max(fx - cols_fit // 2, x0), x1 - cols_fit + 1)
        x1, cropped = x0 + cols_fit - 1, True
    if y1 - y0 + 1 > rows_fit:
        y0 = min(max(fy - rows_fit // 2, y0), y1 - rows_fit + 1)
        y1, cropped = y0 + rows_fit - 1, True
    return (x0, x1, y0, y1), cropped


def _draw_tile(st: State, b: int, t: int, cx: int, cy: int, chars: list[list[str]],
               styles: list[list[str | None]], colour: bool) -> None:
    """Tile ``t``'s block (``render.tile_block``) onto the canvas at character (cx, cy), each character styled."""
    block = [list(r) for r in tile_block(st, b, t)]
    bg = f"on {_rgb(_bg(st, b, t))}"
    here = [s for s in range(st.num_seats) if not st.c_dead[b, s] and st.c_tile[b, s] == t]
    if st.gas_active[b] and _type_name(st, b, t) == "gas":
        block[3][BLOCK_W - 2] = "!"
    for r in range(BLOCK_H):
        for c in range(BLOCK_W):
            ch, style = _tile_char(st, b, block[r][c], r, c, bg, here, colour)
            chars[cy + r][cx + c] = ch
            styles[cy + r][cx + c] = style if colour else None


def _tile_char(st: State, b: int, ch: str, r: int, c: int, bg: str, here: list[int], colour: bool
               ) -> tuple[str, str]:
    """A tile block's character at row ``r``, column ``c`` and its style: walls, the type code, water, rubble,
    ropes, the cavers on the tile (``here``; the acting one reversed), horrors, leapers, gas."""
    style = bg
    if ch == "#":
        ch, style = ("█", _rgb(WALL_RGB)) if colour else ("#", "")
    elif r == 1 and 1 <= c <= 3:
        style = f"bold white {bg}"
    elif ch == "~":
        style = f"bold {_rgb((90, 160, 255))} {bg}"
    elif ch == "*":
        style = f"bold {_rgb((200, 200, 200))} {bg}"
    elif ch == "r":
        style = f"bold {_rgb((245, 225, 120))} {bg}"
    elif r == 1 and ch in "^>v<":
        style = f"bold white {bg}"
    elif r == 2 and ch != " ":
        i = c - 1
        s = here[i] if 0 <= i < len(here) else -1
        rank = int(st.c_rank[b, s]) if s >= 0 else 1
        col = _rgb(TERM_CAVER[rank])
        style = f"bold {col} {bg}" if ch.isdigit() else f"dim {col} {bg}"
        if s == int(st.actor[b]) and s >= 0:
            style = f"bold black on {col}"
    elif ch == "H":
        style = f"bold white on {_rgb(HORROR_COLOUR)}"
    elif r == 3 and ch == "L":  # Extraction's leaper (R-EXT-4)
        style = f"bold white on {_rgb(LEAPER_COLOUR)}"
    elif ch == "!":
        style = f"bold {_rgb((255, 80, 60))} {bg}"
    return ch, style


def _draw_pending_tile(st: State, b: int, core: Core | None, box: tuple[int, int, int, int],
                       chars: list[list[str]], styles: list[list[str | None]], colour: bool) -> None:
    """The drawn tile waiting for its rotation: its type code and "?" where it will go (needs ``core``)."""
    actor = int(st.actor[b])
    if not (int(st.pend[b]) == P_PLACE and actor >= 0 and st.pend_tile[b] >= 0 and core is not None):
        return
    x0, x1, y0, y1 = box
    t = int(st.c_tile[b, actor])
    d = int(st.pend_dir[b])
    gx, gy = int(st.t_x[b, t]) + int(DX[d]), int(st.t_y[b, t]) + int(DY[d])
    if x0 <= gx <= x1 and y0 <= gy <= y1:
        cx, cy = (gx - x0) * BLOCK_W, (gy - y0) * BLOCK_H
        code = TYPE_CODES[CORE_TILE_TYPES[core.cat.tile_type[int(st.pend_tile[b])]]]
        for i, ch in enumerate(f"{code}?"):
            chars[cy + 2][cx + 3 + i] = ch
            styles[cy + 2][cx + 3 + i] = "bold reverse" if colour else None


def _canvas_text(st: State, b: int, box: tuple[int, int, int, int], chars: list[list[str]],
                 styles: list[list[str | None]], cropped: bool) -> Text:
    """The canvas as rich Text under a ruler of columns east/west of the start tile, rows north/south of it in
    the gutter; each line ends at its last drawn character."""
    x0, x1, y0, _ = box
    sx, sy = int(st.t_x[b, 0]), int(st.t_y[b, 0])  # the start tile: rulers count from it
    out = Text(no_wrap=True, overflow="crop")
    ruler = " " * GUTTER + "".join(_ruler(x - sx, "E", "W").center(BLOCK_W) for x in range(x0, x1 + 1))
    out.append(ruler.rstrip() + "\n", style="dim")
    h = len(chars)
    for r in range(h):
        label = _ruler(y0 + r // BLOCK_H - sy, "S", "N") if r % BLOCK_H == BLOCK_H // 2 else ""
        out.append(f"{label:>3} ", style="dim")
        line_end = max((i + 1 for i, c in enumerate(chars[r]) if c != " " or styles[r][i]), default=0)
        for c in range(line_end):
            out.append(chars[r][c], style=styles[r][c] or "")
        if r < h - 1:
            out.append("\n")
    if cropped:
        out.append("\n(part of the cave, around the acting caver)", style="dim italic")
    return out


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


# What a scenario changes (RULES_VAR.md), shown under the rules in short when the table plays one.
SCENARIO_SUMMARY = {
    "annihilation": """\
[bold]Annihilation[/] (R-ANN): the exit starts beside the start tile, and no tile may go in the cells around it.
Three cavers hold a [bold]bomb card[/]; three [bold]bomb tiles[/] (BMB) are in the stack, the last among its bottom
six. [bold]Place bomb[/] (1 AP) on a bomb tile; [bold]give/take card[/] (1 AP) passes a card on your tile (taking only
from an unconscious caver). A devoured caver's card is lost. Unless every bomb tile has its bomb at the end: DEFEAT.""",
    "extraction": """\
[bold]Extraction[/] (R-EXT): [bold]leapers[/] (L) join the horrors: Leaper cards spawn them, they take two steps
whenever horrors move and [bold]slash[/] (2 damage, then leave) instead of knocking out. Leapers never enter the
[bold]sanctuary[/] (SAN), and cavers on it are no monster's victim. With biosamples: three cavers hold one (-1 on
their checks); pass them with give/take card; unless all three are held on the exit at the end: DEFEAT.""",
    "investigation": """\
[bold]Investigation[/] (R-INV): three [bold]item tiles[/] (ITM, token I) are in the stack: the first caver to enter one
draws an [bold]item[/] from a hidden deck of 14. Use an item as an action (1 AP, or 0 for Signal Booster, Spare
Battery, Adrenaline; the card is spent); Body Armor and the Gas Mask fire by themselves, the Lucky Charm (+1 on
checks) and the Wetsuit (walk into floods) help while held; give/take card passes an item. [bold]Doom[/] cards make
the next hazard card an x2. Medals as usual.""",
}


def help_pages(core: Core) -> list[Group]:
    """The help: the rules in short with the hazard cards, then the action table (from ``ACTION_HELP``)."""
    tab = Table(title="the actions (ids, name, AP, legal when, rule)", box=None, header_style="bold",
                padding=(0, 1))
    tab.add_column("ids", justify="right", no_wrap=True, style="dim")
    tab.add_column("action", no_wrap=True, style="bold")
    tab.add_column("AP", justify="center", no_wrap=True, style="cyan")
    tab.add_column("legal when (rule)")
    rows: list[tuple[int, int, tuple[str, str, str]]] = []
    for a in sorted(ACTION_HELP):
        if rows and rows[-1][2] == ACTION_HELP[a]:
            rows[-1] = (rows[-1][0], a, rows[-1][2])
        else:
            rows.append((a, a, ACTION_HELP[a]))
    for lo, hi, (name, _, when) in rows:
        tab.add_row(f"{lo}" if lo == hi else f"{lo}-{hi}", name, action_cost(core, lo), when.replace("`", ""))
    hz = Table.grid(padding=(0, 2))
    hz.add_column(style="bold yellow", no_wrap=True)
    hz.add_column()
    for k, v in HAZARD_TEXT.items():
        hz.add_row(k, v)
    scenario = SCENARIO_SUMMARY.get(core.cfg.scenario)
    extra = [Text(""), Text.from_markup(scenario)] if scenario else []
    return [Group(Text("SUB TERRA: the rules in short", style="bold"), Text(""), Text.from_markup(RULES_SUMMARY),
                  *extra, Text(""), Text("hazard cards", style="bold"), hz),
            Group(tab)]


def explain(core: Core, action: int, st: State | None = None) -> Text:
    """One action: its name, AP cost, what it does here (with ``st``) and when it is legal (the rule)."""
    from subterra_env.games.sub_terra.core.actions import ACTION_NAMES

    _, _, when = ACTION_HELP[action]
    t = Text()
    t.append(ACTION_NAMES[action], style="bold")
    t.append(f" ({action_cost(core, action)})", style="cyan")
    detail = action_detail(core, st, action) if st is not None else ""
    if detail:
        t.append(f": {detail}")
    t.append(f". Legal when: {when.replace('`', '')}", style="dim")
    return t


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
