"""Pictures of an In the Cave game: a text map with passages (``render_ansi``, ``text_map``) and an image
(``render_rgb``, the env's ``rgb_array``). Public information only: the stacks' order never appears.

Text map (north up, east right; x grows east, y south; the home base is (0, 0)). Every space is 3 characters,
``[pawn][kind][detail]``, and a passage between two connected spaces is drawn between them (``-`` across, ``|``
up and down; ``r`` a roped edge between depths, ``d`` a drop of depth not yet roped)::

    pawn:   the seat digit of a team standing there (the acting team's first, else the lowest seat)
    kind:   H home base   + starting board   . plain   ~ water   * wonder   s squeeze   v descent   # boulder choke
    detail: ! its token (water / photo / squeeze) is still there; a squeeze shows its difficulty 1-3 (S: token there)
     ?      an empty cell that an unexplored exit faces (a Reveal can place a tile there)

Image (``render_rgb``): ``cell`` (CELL = 40) pixels per grid cell over the tiles' box plus one cell of margin (at least
``min_radius`` cells around home, so a young cave keeps one size), tiles filled with KIND_COLOURS (darker by
depth), closed sides in WALL_COLOUR, passages as gaps, a boulder choke open on its one passage, unexplored exits
as yellow stubs into the empty cell, ROPE_COLOUR bars across roped edges, a white dot for a token still there,
squeeze difficulty and depth level as ticks, camps placed away from home as tents and pawns as squares (seat digit) in TEAM_COLOURS
(the acting team outlined white); under the map a status strip (round, whose turn, AP, tiles left; one line per
team: VP, tokens, position, result at the end) and a legend of the kinds.
"""

from __future__ import annotations

import numpy as np

from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.game import stacks_left, tokens
from subterra_env.games.in_the_cave.invariants import neighbours

Colour = tuple[int, int, int]

_CH = {L.K_HOME: "H", L.K_BOARD: "+", L.K_PLAIN: ".", L.K_WATER: "~", L.K_WONDER: "*", L.K_SQUEEZE: "s",
       L.K_DESCENT: "v", L.K_BOULDER: "#"}
KIND_CHARS: dict[int, str] = _CH  # the text map's symbol of each kind (the browser table shows them too)
DXY = ((0, -1), (1, 0), (0, 1), (-1, 0))
LEGEND = ("H home  + board  . plain  ~ water  * wonder  s squeeze (digit: difficulty; S: token there)  v descent  "
          "# boulder choke",
          "! token there  0-4 team pawns  ? unexplored exit  - | passages  r roped drop  d drop without rope (needs "
          "ropes)")
KIND_COLOURS: dict[int, Colour] = {
    L.K_HOME: (235, 200, 80), L.K_BOARD: (190, 185, 170), L.K_PLAIN: (160, 125, 90), L.K_WATER: (70, 135, 215),
    L.K_WONDER: (175, 110, 205), L.K_SQUEEZE: (120, 120, 140), L.K_DESCENT: (90, 165, 120),
    L.K_BOULDER: (85, 80, 75)}
TEAM_COLOURS: tuple[Colour, ...] = ((235, 45, 45), (30, 200, 255), (255, 225, 0), (60, 230, 80), (255, 90, 255))
WALL_COLOUR: Colour = (40, 32, 26)
BACKGROUND: Colour = (12, 12, 14)
EXIT_COLOUR: Colour = (250, 230, 60)
ROPE_COLOUR: Colour = (250, 240, 200)
PANEL_COLOUR: Colour = (24, 24, 28)
TEXT_COLOUR: Colour = (235, 235, 235)
MIN_WIDTH = 600
CELL = 40  # pixels per space by default


def _cells(g: np.ndarray) -> dict[tuple[int, int], int]:
    n = int(g[L.N_TILES])
    return {(int(g[L.TX + t]), int(g[L.TY + t])): t for t in range(n)}


def unexplored_cells(g: np.ndarray, cells: dict[tuple[int, int], int] | None = None) -> set[tuple[int, int]]:
    """Empty cells that an unexplored exit faces (R-ITC-TILE-1)."""
    cells = _cells(g) if cells is None else cells
    out = set()
    for (x, y), t in cells.items():
        if g[L.TKIND + t] in (L.K_HOME, L.K_BOULDER):
            continue
        for d, (dx, dy) in enumerate(DXY):
            if (int(g[L.TOPEN + t]) >> d) & 1 and (x + dx, y + dy) not in cells:
                out.add((x + dx, y + dy))
    return out


def _exits(g: np.ndarray, t: int, cells: dict) -> list[int]:
    """Sides of tile t that are unexplored exits."""
    if g[L.TKIND + t] in (L.K_HOME, L.K_BOULDER):
        return []
    x, y = int(g[L.TX + t]), int(g[L.TY + t])
    return [d for d, (dx, dy) in enumerate(DXY) if (int(g[L.TOPEN + t]) >> d) & 1 and (x + dx, y + dy) not in cells]


def where(g: np.ndarray, t: int) -> str:
    """A space in words: ``home`` or ``E2 S1, 25 m`` (east/west and north/south of home, depth)."""
    if t == 0:
        return "home"
    x, y, d = int(g[L.TX + t]), int(g[L.TY + t]), int(g[L.TDEPTH + t])
    parts = [f"{'E' if x > 0 else 'W'}{abs(x)}" if x else "", f"{'S' if y > 0 else 'N'}{abs(y)}" if y else ""]
    return " ".join(p for p in parts if p) + f", {d} m"


def pawns_at(g: np.ndarray, seats: int, t: int) -> list[int]:
    """Seats whose pawn stands on tile t, the acting team first."""
    here = [s for s in range(seats) if int(g[L.POS + s]) == t]
    actor = int(g[L.ACTOR])
    return sorted(here, key=lambda s: (s != actor, s))


def text_map(g: np.ndarray, seats: int) -> list[str]:
    """The cave as text lines (see the module docstring)."""
    cells = _cells(g)
    front = unexplored_cells(g, cells)
    xs = [c[0] for c in cells] + [c[0] for c in front]
    ys = [c[1] for c in cells] + [c[1] for c in front]
    x0, y0 = min(xs), min(ys)
    w, h = (max(xs) - x0) * 4 + 3, (max(ys) - y0) * 2 + 1
    grid = [[" "] * w for _ in range(h)]
    for (x, y) in front:
        grid[(y - y0) * 2][(x - x0) * 4 + 1] = "?"
    for (x, y), t in cells.items():
        r, c = (y - y0) * 2, (x - x0) * 4
        kind = int(g[L.TKIND + t])
        ch, detail = _CH[kind], ""
        if kind == L.K_SQUEEZE:
            ch, detail = ("S" if g[L.TTOKEN + t] else "s"), str(int(g[L.TSQ + t]))
        elif g[L.TTOKEN + t]:
            detail = "!"
        here = pawns_at(g, seats, t)
        grid[r][c], grid[r][c + 1], grid[r][c + 2] = str(here[0]) if here else " ", ch, detail or " "
        for d, nb in neighbours(g, cells, t):
            if d not in (1, 2):  # each passage once: east and south
                continue
            if g[L.TDEPTH + t] != g[L.TDEPTH + nb]:
                mark = "r" if (int(g[L.TROPE + t]) >> d) & 1 else "d"
            else:
                mark = "-" if d == 1 else "|"
            if d == 1:
                grid[r][c + 3] = mark
            else:
                grid[r + 1][c + 1] = mark
        for d in _exits(g, t, cells):  # passages toward the '?' cells
            if d == 0:
                grid[r - 1][c + 1] = "|"
            elif d == 1:
                grid[r][c + 3] = "-"
            elif d == 2:
                grid[r + 1][c + 1] = "|"
            else:
                grid[r][c - 1] = "-"
    return ["".join(row).rstrip() for row in grid]


def packing_hidden(g: np.ndarray, s: int, viewer: int | None) -> bool:
    """Team s's backpack and camp are not shown to team ``viewer`` now: the hidden initial packing is under way
    (R-ITC-SET-9) and s is another team. ``viewer=None``: the team deciding now (whoever sits at the screen while
    the teams pack in turn)."""
    if int(g[L.PEND]) != L.P_SETUP:
        return False
    return s != (int(g[L.ACTOR]) if viewer is None else viewer)


def render_ansi(g: np.ndarray, seats: int, viewer: int | None = None) -> str:
    """The text map, its legend, the turn and every team's backpack and tokens (the env's "ansi" render). During
    the hidden initial packing only team ``viewer``'s backpack is shown (None: the team packing now)."""
    lines = text_map(g, seats) + list(LEGEND)
    pend = L.PEND_NAMES[int(g[L.PEND])]
    lines.append(f"round {int(g[L.ROUND])}  actor {int(g[L.ACTOR])}  AP {int(g[L.AP])}  pending {pend}  "
                 f"stacks {stacks_left(g)}")
    for s in range(seats):
        if packing_hidden(g, s, viewer):
            lines.append(f"team {s}: backpack hidden while the teams pack tokens {tokens(g, s)}")
            continue
        bp = [int(v) for v in g[L.BP + s * L.NK:L.BP + (s + 1) * L.NK]]
        lines.append(f"team {s}: backpack {dict(zip(L.EQUIP_NAMES, bp))} tokens {tokens(g, s)}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- image
def _shade(c: Colour, f: float) -> np.ndarray:
    return np.clip(np.array(c, dtype=np.float64) * f, 0, 255).astype(np.uint8)


def _draw_tile(img: np.ndarray, g: np.ndarray, t: int, px: int, py: int, cell: int, cells: dict) -> None:
    kind = int(g[L.TKIND + t])
    level = int(g[L.TDEPTH + t]) // 25
    sub = img[py:py + cell, px:px + cell]
    sub[:] = _shade(KIND_COLOURS[kind], max(0.5, 1.0 - 0.12 * level))
    w = max(2, cell // 8)
    if kind == L.K_BOULDER:  # open on its one passage only (R-ITC-TILE-1)
        opened = {int(g[L.TBSIDE + t])}
    else:
        opened = {d for d in range(4) if (int(g[L.TOPEN + t]) >> d) & 1}
    wall = np.array(WALL_COLOUR, dtype=np.uint8)
    for sl in ((slice(0, w), slice(0, w)), (slice(0, w), slice(cell - w, cell)), (slice(cell - w, cell), slice(0, w)),
               (slice(cell - w, cell), slice(cell - w, cell))):
        sub[sl] = wall
    sides = {0: (slice(0, w), slice(None)), 1: (slice(None), slice(cell - w, cell)),
             2: (slice(cell - w, cell), slice(None)), 3: (slice(None), slice(0, w))}
    gap = cell // 4
    for d, sl in sides.items():
        if d not in opened:
            sub[sl] = wall
        else:  # a gap in the middle of the side: walls either side of it
            if d in (0, 2):
                sub[sl[0], w:gap] = wall
                sub[sl[0], cell - gap:cell - w] = wall
            else:
                sub[w:gap, sl[1]] = wall
                sub[cell - gap:cell - w, sl[1]] = wall
    rope = int(g[L.TROPE + t])
    for d in range(4):
        if (rope >> d) & 1:  # a bar across the gap, on this tile's side of the edge
            if d in (0, 2):
                y = 1 if d == 0 else cell - 3
                sub[y:y + 2, gap:cell - gap] = ROPE_COLOUR
            else:
                x = cell - 3 if d == 1 else 1
                sub[gap:cell - gap, x:x + 2] = ROPE_COLOUR
    k = max(2, cell // 10)
    if g[L.TTOKEN + t]:  # the token still there: a white dot top centre
        c = cell // 2
        sub[w + 2:w + 2 + k, c - k // 2:c - k // 2 + k] = (255, 255, 255)
    for i in range(int(g[L.TSQ + t])):  # squeeze difficulty: ticks top right
        x = cell - w - 2 - (i + 1) * (k + 1)
        sub[w + 2:w + 2 + k, x:x + k] = (20, 20, 20)
    for i in range(min(level, 6)):  # depth level: ticks along the bottom
        x = w + 2 + i * (k + 1)
        sub[cell - w - 2 - k:cell - w - 2, x:x + k] = (245, 245, 245)


def _stub(img: np.ndarray, x: int, y: int, d: int, cell: int) -> None:
    """A yellow stub into the empty cell at pixel (x, y) from its edge shared with the tile whose exit side is d."""
    a, b, ln = cell // 2 - cell // 10, cell // 2 + cell // 10, cell // 3
    sub = img[y:y + cell, x:x + cell]
    if d == 2:  # the tile lies north of the empty cell
        sub[0:ln, a:b] = EXIT_COLOUR
    elif d == 0:
        sub[cell - ln:cell, a:b] = EXIT_COLOUR
    elif d == 3:  # the tile lies east
        sub[a:b, cell - ln:cell] = EXIT_COLOUR
    else:
        sub[a:b, 0:ln] = EXIT_COLOUR


def cave_box(g: np.ndarray, min_radius: int = 5) -> tuple[int, int, int, int]:
    """The grid box (x0, y0, x1, y1) a picture of this game shows: its tiles plus one cell, and at least
    ``min_radius`` cells around home. Tiles are never removed, so a game's final box holds all its frames."""
    cells = _cells(g)
    xs = [c[0] for c in cells] + [-min_radius + 1, min_radius - 1]
    ys = [c[1] for c in cells] + [-min_radius + 1, min_radius - 1]
    return min(xs) - 1, min(ys) - 1, max(xs) + 1, max(ys) + 1


def render_rgb(g: np.ndarray, seats: int, cell: int = CELL, *, min_radius: int = 5, labels: list[str] | None = None,
               status: bool = True, box: tuple[int, int, int, int] | None = None,
               caption: str | None = None) -> np.ndarray:
    """(H, W, 3) uint8 picture of one game's record (see the module docstring). ``labels``: a name per seat for
    the status strip; ``status=False``: the map alone (no text); ``box``: the grid box to draw (``cave_box`` of a
    replay's last state gives every frame one size); ``caption``: a first status line (a replay's step)."""
    if cell < 12:
        raise ValueError(f"cell={cell}: at least 12 pixels per space")
    cells = _cells(g)
    x0, y0, x1, y1 = box or cave_box(g, min_radius)
    mapimg = np.empty(((y1 - y0 + 1) * cell, (x1 - x0 + 1) * cell, 3), dtype=np.uint8)
    mapimg[:] = BACKGROUND
    for (x, y), t in cells.items():
        if not (x0 <= x <= x1 and y0 <= y <= y1):
            continue
        _draw_tile(mapimg, g, t, (x - x0) * cell, (y - y0) * cell, cell, cells)
        for d in _exits(g, t, cells):
            if not (x0 <= x + DXY[d][0] <= x1 and y0 <= y + DXY[d][1] <= y1):
                continue
            _stub(mapimg, (x + DXY[d][0] - x0) * cell, (y + DXY[d][1] - y0) * cell, d, cell)
    q = max(6, cell // 3)
    marks: list[tuple[int, int, int, int]] = []  # pawn squares: (x, y, size, seat) for the digits
    placed: dict[int, int] = {}
    for s in range(seats):
        camp = int(g[L.CAMP + s])
        cx_, cy_ = int(g[L.TX + camp]), int(g[L.TY + camp])
        if camp > 0 and x0 <= cx_ <= x1 and y0 <= cy_ <= y1:  # a tent in the team's colour along the bottom
            k = placed[camp] = placed.get(camp, -1) + 1  # (camps at home are not drawn)
            tx, ty = (cx_ - x0) * cell, (cy_ - y0) * cell
            ch = max(3, cell // 6)
            cx, top = tx + cell - cell // 8 - 2 - ch - k * (2 * ch + 1), ty + cell - cell // 8 - 1 - ch
            for i in range(ch):
                mapimg[top + i, max(tx, cx - i):cx + i + 1] = TEAM_COLOURS[s]
    for t in sorted({int(g[L.POS + s]) for s in range(seats)}):
        if not (x0 <= g[L.TX + t] <= x1 and y0 <= g[L.TY + t] <= y1):
            continue
        here = sorted(s for s in range(seats) if int(g[L.POS + s]) == t)
        cols = 1 if len(here) == 1 else 2 if len(here) <= 4 else 3
        size = q if cols < 3 else max(5, (cell - 8) // 3 - 1)
        rows = -(-len(here) // cols)
        tx = (int(g[L.TX + t]) - x0) * cell + (cell - cols * (size + 2)) // 2 + 1
        ty = (int(g[L.TY + t]) - y0) * cell + (cell - rows * (size + 2)) // 2 + 1
        for i, s in enumerate(here):  # a centred grid of squares
            px, py = tx + (i % cols) * (size + 2), ty + (i // cols) * (size + 2)
            outline = (255, 255, 255) if s == int(g[L.ACTOR]) else (0, 0, 0)
            mapimg[py - 1:py + size + 1, px - 1:px + size + 1] = outline
            mapimg[py:py + size, px:px + size] = TEAM_COLOURS[s]
            marks.append((px, py, size, s))
    if not status:
        return mapimg
    return _with_status(g, seats, mapimg, marks, q, labels, caption)


def _with_status(g: np.ndarray, seats: int, mapimg: np.ndarray, marks: list[tuple[int, int, int]], q: int,
                 labels: list[str] | None, caption: str | None = None) -> np.ndarray:
    from PIL import Image, ImageDraw

    from subterra_env.drawing import default_font, ink_for
    from subterra_env.games.in_the_cave.observe import vp

    font, small = default_font(14), default_font(max(9, q))
    tiny = default_font(max(7, q - 3))
    lh = 19
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    legend_w = sum(30 + int(probe.textlength(name, font=small)) for name in L.KIND_NAMES + ("unexplored exit",))
    width = max(mapimg.shape[1], MIN_WIDTH, legend_w + 20)
    lines = (1 if caption else 0) + 2 + seats + 1  # caption, turn, tiles, a line per team, the legend
    img = Image.new("RGB", (width, mapimg.shape[0] + lines * lh + 12), PANEL_COLOUR)
    ox = (width - mapimg.shape[1]) // 2
    img.paste(Image.fromarray(mapimg), (ox, 0))
    draw = ImageDraw.Draw(img)
    for px, py, size, s in marks:
        draw.text((ox + px + size // 2, py + size // 2), str(s), fill=ink_for(TEAM_COLOURS[s]),
                  font=small if size >= q else tiny, anchor="mm")
    y = mapimg.shape[0] + 6
    if caption:
        draw.text((10, y), caption, fill=EXIT_COLOUR, font=font)
        y += lh
    over = int(g[L.OVER])
    if over == L.RUNNING:
        actor = int(g[L.ACTOR])
        head = (f"round {int(g[L.ROUND])} (initial packing)" if g[L.ROUND] == 0 else f"round {int(g[L.ROUND])}") + \
            f" · team {actor} to act · {int(g[L.AP])} AP · pending: {L.PEND_NAMES[int(g[L.PEND])]}"
    else:
        head = "game over: " + ("ended" if over == L.ENDED else f"truncated after round {int(g[L.ROUND])}")
    draw.text((10, y), head, fill=TEXT_COLOUR, font=font)
    left = stacks_left(g)
    draw.text((10, y + lh), f"tiles left I-IV: {' / '.join(map(str, left))} · discarded {int(g[L.DISCARDED])}"
              + (f" · end triggered, {int(g[L.END_LEFT])} full rounds after this" if g[L.END_TRIG] else ""),
              fill=TEXT_COLOUR, font=font)
    for s in range(seats):
        yy = y + (2 + s) * lh
        draw.rectangle((10, yy + 2, 24, yy + 15), fill=TEAM_COLOURS[s], outline=(0, 0, 0))
        draw.text((17, yy + 9), str(s), fill=ink_for(TEAM_COLOURS[s]), font=small, anchor="mm")
        tk = tokens(g, s)
        pos = int(g[L.POS + s])
        who = f" ({labels[s]})" if labels else ""
        text = (f"team {s}{who}: VP {vp(g, s)} · traverse {tk['traverse']} water {tk['water']} photo {tk['photo']} "
                f"squeeze {sum(tk['squeeze'])} depth {len(tk['depth'])} · {where(g, pos)}")
        if over == L.ENDED:
            text += f" · score {int(g[L.SCORE + s])}" + (" WINNER" if g[L.WIN + s] else "")
        draw.text((30, yy), text, fill=TEXT_COLOUR, font=font)
    x, yy = 10, y + (2 + seats) * lh
    for kind, name in enumerate(L.KIND_NAMES):
        draw.rectangle((x, yy + 3, x + 12, yy + 15), fill=KIND_COLOURS[kind])
        draw.text((x + 16, yy + 2), name, fill=TEXT_COLOUR, font=small)
        x += 22 + int(draw.textlength(name, font=small)) + 8
    draw.rectangle((x, yy + 7, x + 12, yy + 11), fill=EXIT_COLOUR)
    draw.text((x + 16, yy + 2), "unexplored exit", fill=TEXT_COLOUR, font=small)
    return np.asarray(img, dtype=np.uint8).copy()
