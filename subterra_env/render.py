"""Human-readable views of one game of a batched State: ``render_ansi`` (text) and ``render_rgb`` (image).

Both crop the cave to the bounding box of the placed tiles (north up, east right) and show public
information only: the order of the tile stack and of the hazard deck never appear, only their counts.

Text map: every tile is a 9 x 5 character block (here a tile open N, E and W, closed S)::

    ###   ###     '#' = wall; an open side is a gap in the middle of that side (N/S: 3 columns,
     WAT~*r^      W/E: the 3 inner rows). Row 1: tile type code (TYPE_CODES), then markers '~' flooded,
     12c          '*' rubble, 'r' rope, '^ > v <' ledge/slide arrow. Row 2: cavers in seat order, rank
     HH           digit 1..8 if conscious, letter a..h (a = rank 1) if unconscious (devoured cavers are
    #########     not drawn). Row 3: 'H' per horror. Map lines are right-stripped.

Tile type codes: STA start, EXT exit, NOR normal, WAT water, GAS gas, CAV cave-in, DEN horror, SQZ squeeze,
LDG ledge, SLD slide, ROU rough (no code contains 'H', which always means a horror). Below the map: a status
panel (round, turn, pending decision, every caver, hazard cards and tiles left, last hazard card, gas, out of
time, result) and a one-line legend.

Image: one ``cell`` x ``cell`` square per grid cell, one empty cell of margin around the bounding box.
Tiles are filled with TYPE_COLOURS, closed sides and the four corners drawn in WALL_COLOUR; a flooded tile
is tinted toward FLOOD_COLOUR, rubble shows as RUBBLE_COLOUR dots, a rope as a ROPE_COLOUR line on the east
inside edge, a ledge/slide arrow as an ARROW_COLOUR line from the centre to a square head at its side.
Cavers are small squares (top rows, seat order) in CAVER_COLOURS by rank, dimmed to 40 % when unconscious;
horrors are HORROR_COLOUR squares on the bottom row. Empty cells are BACKGROUND.
"""

from __future__ import annotations

import numpy as np

from .config import CAVER_NAMES, SHAPES, TILE_TYPES, GameConfig
from .core.catalogue import BIT, CARD_NAMES, DIR_NAMES, DX, DY, build
from .core.state import P_PICK, P_PLACE, P_RUN, P_SURFACE, RESULT_NAMES, RUNNING, State

Colour = tuple[int, int, int]

TYPE_CODES: dict[str, str] = {
    "start": "STA", "exit": "EXT", "normal": "NOR", "water": "WAT", "gas": "GAS", "cave-in": "CAV",
    "horror": "DEN", "squeeze": "SQZ", "ledge": "LDG", "slide": "SLD", "rough": "ROU",
}
TYPE_COLOURS: dict[str, Colour] = {
    "start": (205, 205, 205), "exit": (80, 200, 90), "normal": (160, 130, 95), "water": (80, 140, 200),
    "gas": (175, 195, 60), "cave-in": (185, 110, 55), "horror": (140, 75, 165), "squeeze": (125, 125, 140),
    "ledge": (210, 170, 90), "slide": (95, 185, 185), "rough": (115, 90, 70),
}
CAVER_COLOURS: dict[int, Colour] = {  # by rank 1..8 (CAVER_NAMES order)
    1: (0, 220, 255), 2: (255, 255, 0), 3: (255, 140, 0), 4: (0, 255, 120),
    5: (255, 0, 255), 6: (255, 255, 255), 7: (30, 30, 255), 8: (255, 170, 200),
}
HORROR_COLOUR: Colour = (230, 20, 20)
WALL_COLOUR: Colour = (45, 35, 28)
BACKGROUND: Colour = (0, 0, 0)
FLOOD_COLOUR: Colour = (30, 80, 230)
RUBBLE_COLOUR: Colour = (70, 70, 70)
ROPE_COLOUR: Colour = (245, 225, 120)
ARROW_COLOUR: Colour = (15, 15, 15)
assert set(TYPE_CODES) == set(TYPE_COLOURS) == set(TILE_TYPES)

ARROW_CHARS = "^>v<"
BLOCK_W, BLOCK_H = 9, 5
LEGEND = ("legend: # wall, gap = open side | ~ flood * rubble r rope ^>v< ledge/slide arrow | "
          "1-8 caver rank (a-h = unconscious) | H horror | tiles STA EXT NOR WAT GAS CAV DEN(horror) SQZ LDG SLD ROU")


def _check_game(st: State, b: int) -> None:
    if not 0 <= b < st.batch_size:
        raise IndexError(f"game {b} is out of range for a batch of {st.batch_size}")


def _bbox(st: State, b: int) -> tuple[np.ndarray, int, int, int, int]:
    """Placed tile indices and the cropped grid box (x0, y0, x1, y1), inclusive."""
    tiles = np.nonzero(st.t_type[b] >= 0)[0]
    xs, ys = st.t_x[b, tiles].astype(int), st.t_y[b, tiles].astype(int)
    return tiles, int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())


def _caver_status(st: State, b: int, s: int) -> str:
    if st.c_dead[b, s]:
        return "devoured"
    flags = ["conscious" if st.c_hp[b, s] > 0 else "unconscious"]
    if st.c_under[b, s]:
        flags.append("under water")
    if st.c_hidden[b, s]:
        flags.append("hidden")
    if st.exit_tile[b] >= 0 and st.c_tile[b, s] == st.exit_tile[b]:
        flags.append("on exit")
    return ", ".join(flags)


def _caver_char(rank: int, hp: int) -> str:
    return str(rank) if hp > 0 else "abcdefgh"[rank - 1]


def _tile_block(st: State, b: int, t: int) -> list[str]:
    """The 9 x 5 character block of tile t."""
    opened = int(st.t_open[b, t])
    rows = [["#"] * BLOCK_W] + [["#"] + [" "] * (BLOCK_W - 2) + ["#"] for _ in range(3)] + [["#"] * BLOCK_W]
    if opened & BIT[0]:
        rows[0][3:6] = "   "
    if opened & BIT[2]:
        rows[4][3:6] = "   "
    for r in (1, 2, 3):
        if opened & BIT[3]:
            rows[r][0] = " "
        if opened & BIT[1]:
            rows[r][BLOCK_W - 1] = " "
    rows[1][1:4] = TYPE_CODES[TILE_TYPES[st.t_type[b, t]]]
    rows[1][4] = "~" if st.t_flood[b, t] else " "
    rows[1][5] = "*" if st.t_rubble[b, t] else " "
    rows[1][6] = "r" if st.t_rope[b, t] else " "
    rows[1][7] = ARROW_CHARS[st.t_arrow[b, t]] if st.t_arrow[b, t] >= 0 else " "
    here = [s for s in range(st.num_seats) if not st.c_dead[b, s] and st.c_tile[b, s] == t]
    for i, s in enumerate(here[:BLOCK_W - 2]):
        rows[2][1 + i] = _caver_char(int(st.c_rank[b, s]), int(st.c_hp[b, s]))
    n_h = int((st.h_tile[b] == t).sum())
    rows[3][1:1 + n_h] = "H" * n_h
    return ["".join(r) for r in rows]


def _pending(st: State, b: int, cfg: GameConfig | None) -> str:
    pend = int(st.pend[b])
    if pend == P_PLACE:
        cid, cat = int(st.pend_tile[b]), build(cfg or GameConfig())
        if 0 <= cid < len(cat.tile_type) and cat.max_tiles == st.t_cat.shape[1]:
            what = f"{TILE_TYPES[cat.tile_type[cid]]} ({SHAPES[cat.tile_shape[cid]]})"
        else:  # catalogue of another config: the id alone
            what = f"catalogue id {cid}"
        rots = [str(r) for r in range(4) if int(st.pend_rots[b]) & (1 << r)]
        d = int(st.pend_dir[b])
        side = DIR_NAMES[d] if 0 <= d < 4 else "?"
        return f"placing a tile: {what} to the {side}, rotations {','.join(rots) or '-'}"
    if pend == P_RUN:
        return f"running ({int(st.run_left[b])} steps left, {int(st.run_taken[b])} taken)"
    if pend == P_PICK:
        return "Geologist picks the drawn or the set-aside tile"
    if pend == P_SURFACE:
        return "Diver surfaces on a water tile"
    return "none"


def render_ansi(st: State, b: int = 0, cfg: GameConfig | None = None) -> str:
    """Text map of game b plus a status panel and a legend (see the module docstring).

    ``cfg`` only serves to name the pending tile's type (catalogue ids depend on the config); default config
    if None.
    """
    _check_game(st, b)
    lines: list[str] = []
    if (st.t_type[b] >= 0).any():
        tiles, x0, y0, x1, y1 = _bbox(st, b)
        canvas = [[" "] * ((x1 - x0 + 1) * BLOCK_W) for _ in range((y1 - y0 + 1) * BLOCK_H)]
        for t in tiles:
            cx, cy = (int(st.t_x[b, t]) - x0) * BLOCK_W, (int(st.t_y[b, t]) - y0) * BLOCK_H
            for r, text in enumerate(_tile_block(st, b, int(t))):
                canvas[cy + r][cx:cx + BLOCK_W] = text
        lines += ["".join(row).rstrip() for row in canvas]
    else:
        lines.append("(no tiles placed)")

    actor = int(st.actor[b])
    lines.append("")
    if actor >= 0:
        name = CAVER_NAMES[st.c_rank[b, actor] - 1]
        lines.append(f"round {int(st.round[b])} | turn: {name} (seat {actor}) | AP {int(st.ap[b])} | "
                     f"exerted {'yes' if st.exerted[b] else 'no'} | pending: {_pending(st, b, cfg)}")
    else:
        lines.append(f"round {int(st.round[b])} | turn: - (game over)")
    for s in range(st.num_seats):
        rank = int(st.c_rank[b, s])
        mark = ">" if s == actor else " "
        lines.append(f" {mark} seat {s}: {CAVER_NAMES[rank - 1]:<9} rank {rank} "
                     f"health {int(st.c_hp[b, s])}/{int(st.c_max[b, s])}  {_caver_status(st, b, s)}")
    cards_left = int((st.deck[b] >= 0).sum()) - int(st.deck_pos[b])
    last = int(st.last_card[b])
    lines.append(f"hazard cards left {cards_left} | last hazard: {CARD_NAMES[last] if last >= 0 else '-'} | "
                 f"tiles left {st.stack.shape[1] - int(st.stack_pos[b])} | ropes left {int(st.ropes_left[b])} | "
                 f"horrors {int((st.h_tile[b] >= 0).sum())} | gas active {'yes' if st.gas_active[b] else 'no'} | "
                 f"out of time {'yes' if st.out_of_time[b] else 'no'}")
    abilities = []
    if st.aside_tile[b] >= 0:
        cat = build(cfg or GameConfig())
        if cat.max_tiles == st.t_cat.shape[1]:
            aside = int(st.aside_tile[b])
            abilities.append(f"set aside: {TILE_TYPES[cat.tile_type[aside]]} ({SHAPES[cat.tile_shape[aside]]})")
    ranks = set(int(r) for r in st.c_rank[b])
    if 2 in ranks:
        abilities.append(f"scout redraws {int(st.scout_redraws[b])}")
    if 4 in ranks:
        abilities.append(f"explosives {int(st.explosives[b])}")
    if 8 in ranks:
        abilities.append(f"leader directed {'yes' if st.direct_used[b] else 'no'}")
    if st.directing[b] >= 0:
        abilities.append(f"acting under Direct of seat {int(st.directing[b])}")
    if abilities:
        lines.append(" | ".join(abilities))
    if st.result[b] != RUNNING:
        lines.append(f"result: {RESULT_NAMES[int(st.result[b])]}")
    lines.append(LEGEND)
    return "\n".join(lines)


def _dim(c: Colour, f: float = 0.4) -> Colour:
    return (int(c[0] * f), int(c[1] * f), int(c[2] * f))


def _draw_tile(st: State, b: int, t: int, cell: int) -> np.ndarray:
    """The (cell, cell, 3) picture of tile t."""
    img = np.empty((cell, cell, 3), dtype=np.uint8)
    base = np.array(TYPE_COLOURS[TILE_TYPES[st.t_type[b, t]]], dtype=np.float64)
    if st.t_flood[b, t]:
        base = 0.5 * base + 0.5 * np.array(FLOOD_COLOUR)
    img[:] = base.astype(np.uint8)
    w = max(1, cell // 8)  # wall thickness
    opened = int(st.t_open[b, t])
    wall = np.array(WALL_COLOUR, dtype=np.uint8)
    for sl in ((slice(0, w), slice(0, w)), (slice(0, w), slice(cell - w, cell)),
               (slice(cell - w, cell), slice(0, w)), (slice(cell - w, cell), slice(cell - w, cell))):
        img[sl] = wall  # corners
    sides = {0: (slice(0, w), slice(None)), 1: (slice(None), slice(cell - w, cell)),
             2: (slice(cell - w, cell), slice(None)), 3: (slice(None), slice(0, w))}
    for d, sl in sides.items():
        if not opened & BIT[d]:
            img[sl] = wall
    if st.t_rubble[b, t]:
        for fx, fy in ((0.3, 0.35), (0.55, 0.6), (0.7, 0.3), (0.4, 0.75)):
            x, y = int(cell * fx), int(cell * fy)
            img[y:y + max(1, cell // 12), x:x + max(1, cell // 12)] = RUBBLE_COLOUR
    if st.t_rope[b, t]:
        img[w:cell - w, cell - w - 2:cell - w - 1] = ROPE_COLOUR
    arrow = int(st.t_arrow[b, t])
    if arrow >= 0:
        c, lw = cell // 2, max(1, cell // 16)
        if arrow == 0:
            img[w:c + 1, c:c + lw] = ARROW_COLOUR
        elif arrow == 1:
            img[c:c + lw, c:cell - w] = ARROW_COLOUR
        elif arrow == 2:
            img[c:cell - w, c:c + lw] = ARROW_COLOUR
        else:
            img[c:c + lw, w:c + 1] = ARROW_COLOUR
        hx, hy = c + (int(DX[arrow]) * (c - w - 2 * lw)), c + (int(DY[arrow]) * (c - w - 2 * lw))
        img[max(hy - lw, 0):hy + 2 * lw, max(hx - lw, 0):hx + 2 * lw] = ARROW_COLOUR  # arrow head
    q = max(2, cell // 6)
    here = [s for s in range(st.num_seats) if not st.c_dead[b, s] and st.c_tile[b, s] == t]
    for i, s in enumerate(here):
        x, y = w + 1 + (i % 3) * (q + 1), w + 1 + (i // 3) * (q + 1)
        colour = CAVER_COLOURS[int(st.c_rank[b, s])]
        img[y:y + q, x:x + q] = colour if st.c_hp[b, s] > 0 else _dim(colour)
    for i in range(int((st.h_tile[b] == t).sum())):
        x, y = w + 1 + i * (q + 1), cell - w - 1 - q
        img[y:y + q, x:x + q] = HORROR_COLOUR
    return img


def render_rgb(st: State, b: int = 0, cell: int = 24) -> np.ndarray:
    """(H, W, 3) uint8 picture of game b's cave: the bounding box of its tiles plus one empty cell around."""
    _check_game(st, b)
    if cell < 8:
        raise ValueError(f"cell={cell}: at least 8 pixels per tile")
    if not (st.t_type[b] >= 0).any():
        return np.full((cell, cell, 3), BACKGROUND, dtype=np.uint8)
    tiles, x0, y0, x1, y1 = _bbox(st, b)
    img = np.empty(((y1 - y0 + 3) * cell, (x1 - x0 + 3) * cell, 3), dtype=np.uint8)
    img[:] = BACKGROUND
    for t in tiles:
        px, py = (int(st.t_x[b, t]) - x0 + 1) * cell, (int(st.t_y[b, t]) - y0 + 1) * cell
        img[py:py + cell, px:px + cell] = _draw_tile(st, b, int(t), cell)
    return img


__all__ = ["render_ansi", "render_rgb", "TYPE_CODES", "TYPE_COLOURS", "CAVER_COLOURS", "HORROR_COLOUR", "LEGEND"]
