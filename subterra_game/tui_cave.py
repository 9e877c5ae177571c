"""The cave as the terminal draws it (rich Text): tiles, walls, marks, cavers, monsters and the rulers.

Apart from ``tui`` (the panels, the screen layout and the input loop) because it is the one part that paints
character by character: a canvas of styled cells, cropped around a caver when the cave does not fit. ``tui``
re-exports ``cave_text`` and the colours.

Cave map: every tile is a 9 x 5 block (``subterra_env.render``'s text blocks): walls are solid, an open side is a
gap. Row 1: the tile type code (STA start, EXT exit, NOR normal, WAT water, GAS gas, CAV cave-in, DEN horror
den, SQZ squeeze, LDG ledge, SLD slide, ROU rough) then ``~`` flooded, ``*`` rubble, ``r`` rope, ``^ > v <``
ledge/slide arrow; row 2: cavers by rank digit (1 diver .. 8 leader; a letter a..h when knocked out), the acting
caver highlighted; row 3: ``H`` per horror, ``L`` per leaper (Extraction) and ``!`` on a gas tile while gas is active.
``?`` marks an empty cell that a Reveal can fill. Rulers give places relative to the start: ``E2 N1``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rich.text import Text

from subterra_env.games.sub_terra.core.catalogue import CORE_TILE_TYPES, DX, DY
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import P_PLACE, State
from subterra_env.palette import CAVER_COLOURS, HORROR_COLOUR, LEAPER_COLOUR, TYPE_CODES
from subterra_env.render import BLOCK_H, BLOCK_W, tile_block

from .narrate import frontier_cells

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
