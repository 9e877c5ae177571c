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

Image (``render_rgb``, the env's ``rgb_array``): one ``cell`` x ``cell`` square per grid cell (FRAME_CELL = 48 by
default), one empty cell of margin around the bounding box. Tiles are filled with TYPE_COLOURS, closed sides and
the four corners drawn in WALL_COLOUR; a flooded tile is tinted toward FLOOD_COLOUR, rubble shows as
RUBBLE_COLOUR dots, a rope as a ROPE_COLOUR line on the east inside edge, a ledge/slide arrow as an ARROW_COLOUR
line from the centre to a square head at its side. Empty cells are BACKGROUND.

The readable frame (the default, ``status=True, legend=True``) adds, with Pillow's default font: the type code
(TYPE_CODES) on each tile, cavers as squares in CAVER_COLOURS by rank with their rank digit (dimmed to 40 % when
knocked out, outlined white when acting), horrors as HORROR_COLOUR squares marked H, a red "!" on gas tiles while
gas is active; under the map a status strip (an optional caption, the round, whose turn with AP and any pending
decision, hazard cards and tiles left, ropes, horrors, the last hazard card, gas and Out of Time warnings, each
caver with its health pips and state, the result in MEDAL_COLOURS) and a legend of every colour. Its layout is
fixed (the result line is reserved), so every frame of a game has one size when ``bbox`` is fixed.
``status=False, legend=False`` gives the bare map: cavers as small squares (top rows, seat order) and horrors as
squares on the bottom row, no text.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .config import CAVER_NAMES, SHAPES, TILE_TYPES, GameConfig
from .core.catalogue import (BIT, BOMBS, CARD_NAMES, CORE_TILE_TYPES, DIR_NAMES, DX, DY, ITEM_NAMES, NUM_ITEMS, T_BOMB,
                             T_ITEM, T_SANCTUARY, build)
from .core.state import P_FLARE, P_ITEM, P_PICK, P_PLACE, P_RUN, P_SURFACE, RESULT_NAMES, RUNNING, State
from .info import game_info

Colour = tuple[int, int, int]

TYPE_CODES: dict[str, str] = {
    "start": "STA", "exit": "EXT", "normal": "NOR", "water": "WAT", "gas": "GAS", "cave-in": "CAV",
    "horror": "DEN", "squeeze": "SQZ", "ledge": "LDG", "slide": "SLD", "rough": "ROU", "bomb": "BMB",
    "sanctuary": "SAN", "item": "ITM",
}
TYPE_COLOURS: dict[str, Colour] = {
    "start": (205, 205, 205), "exit": (80, 200, 90), "normal": (160, 130, 95), "water": (80, 140, 200),
    "gas": (175, 195, 60), "cave-in": (185, 110, 55), "horror": (140, 75, 165), "squeeze": (125, 125, 140),
    "ledge": (210, 170, 90), "slide": (95, 185, 185), "rough": (115, 90, 70), "bomb": (215, 60, 45),
    "sanctuary": (235, 235, 150), "item": (230, 190, 40),
}
CAVER_COLOURS: dict[int, Colour] = {  # by rank 1..8 (CAVER_NAMES order)
    1: (0, 220, 255), 2: (255, 255, 0), 3: (255, 140, 0), 4: (0, 255, 120),
    5: (255, 0, 255), 6: (255, 255, 255), 7: (30, 30, 255), 8: (255, 170, 200),
}
HORROR_COLOUR: Colour = (230, 20, 20)
LEAPER_COLOUR: Colour = (255, 120, 0)  # Extraction's leapers (R-EXT-4), marked L
WALL_COLOUR: Colour = (45, 35, 28)
BACKGROUND: Colour = (0, 0, 0)
FLOOD_COLOUR: Colour = (30, 80, 230)
RUBBLE_COLOUR: Colour = (70, 70, 70)
ROPE_COLOUR: Colour = (245, 225, 120)
ARROW_COLOUR: Colour = (15, 15, 15)
assert set(TYPE_CODES) == set(TYPE_COLOURS) == set(CORE_TILE_TYPES)
# the readable frame (render_rgb with status/legend)
FRAME_CELL = 48  # pixels per tile in the readable frame
TEXT_COLOUR: Colour = (235, 235, 235)
MUTED_COLOUR: Colour = (150, 150, 150)
WARN_COLOUR: Colour = (255, 90, 70)
PANEL_COLOUR: Colour = (22, 22, 26)
MEDAL_COLOURS: dict[str, Colour] = {"gold": (255, 205, 40), "silver": (200, 205, 215), "bronze": (215, 135, 65),
                                    "defeat": (230, 60, 60)}
FRAME_MIN_WIDTH = 680
LEGEND_MARKERS = ("flood", "rubble", "rope", "ledge/slide arrow", "horror", "caver (rank)", "unconscious")



ARROW_CHARS = "^>v<"
BLOCK_W, BLOCK_H = 9, 5
LEGEND = ("legend: # wall, gap = open side | ~ flood * rubble r rope ^>v< ledge/slide arrow | "
          "1-8 caver rank (a-h = unconscious) | H horror | tiles STA EXT NOR WAT GAS CAV DEN(horror) SQZ LDG SLD ROU")


# the scenarios' tiles and markers, added to the legend when the game shows them
SCENARIO_LEGEND = ((T_BOMB, "BMB bomb tile (B: its bomb placed)"), (T_SANCTUARY, "SAN sanctuary"),
                   (T_ITEM, "ITM item tile (I: its item not yet drawn)"))


def _text_legend(st: State, b: int) -> str:
    """LEGEND plus the scenario tiles on the board and leapers in the cave."""
    shown = [text for t, text in SCENARIO_LEGEND if (st.t_type[b] == t).any()]
    if (st.l_tile[b] >= 0).any():
        shown.append("L leaper")
    return LEGEND + ("".join(f" | {x}" for x in shown))


def _check_game(st: State, b: int) -> None:
    if not 0 <= b < st.batch_size:
        raise IndexError(f"game {b} is out of range for a batch of {st.batch_size}")


def _bbox(st: State, b: int) -> tuple[np.ndarray, int, int, int, int]:
    """Placed tile indices and the cropped grid box (x0, y0, x1, y1), inclusive."""
    tiles = np.nonzero(st.t_type[b] >= 0)[0]
    xs, ys = st.t_x[b, tiles].astype(int), st.t_y[b, tiles].astype(int)
    return tiles, int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())


def caver_flags(st: State, b: int, s: int) -> list[str]:
    """Seat s's condition in words, the one source for every view (the text board, frames, the terminal game):
    ["devoured"], else "unconscious" (no health) and then "under water", "hidden", "on exit" as they apply; [] for
    a conscious caver with none of them."""
    if st.c_dead[b, s]:
        return ["devoured"]
    flags = [] if st.c_hp[b, s] > 0 else ["unconscious"]
    if st.c_under[b, s]:
        flags.append("under water")
    if st.c_hidden[b, s]:
        flags.append("hidden")
    if st.exit_tile[b] >= 0 and st.c_tile[b, s] == st.exit_tile[b]:
        flags.append("on exit")
    return flags


def _caver_status(st: State, b: int, s: int) -> str:
    flags = caver_flags(st, b, s)
    return ", ".join(flags if flags[:1] in (["devoured"], ["unconscious"]) else ["conscious", *flags])


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
    rows[1][1:4] = TYPE_CODES[CORE_TILE_TYPES[st.t_type[b, t]]]
    rows[1][4] = "~" if st.t_flood[b, t] else " "
    rows[1][5] = "*" if st.t_rubble[b, t] else " "
    rows[1][6] = "r" if st.t_rope[b, t] else " "
    rows[1][7] = ARROW_CHARS[st.t_arrow[b, t]] if st.t_arrow[b, t] >= 0 else " "
    here = [s for s in range(st.num_seats) if not st.c_dead[b, s] and st.c_tile[b, s] == t]
    for i, s in enumerate(here[:BLOCK_W - 2]):
        rows[2][1 + i] = _caver_char(int(st.c_rank[b, s]), int(st.c_hp[b, s]))
    n_h = int((st.h_tile[b] == t).sum())
    n_l = int((st.l_tile[b] == t).sum())  # Extraction's leapers (R-EXT-4)
    rows[3][1:1 + n_h + n_l] = "H" * n_h + "L" * n_l
    if st.t_bomb[b, t]:  # Annihilation: a bomb token placed here (R-ANN-6)
        rows[3][BLOCK_W - 2] = "B"
    if st.t_item[b, t]:  # Investigation: an item token not yet taken (R-INV-4)
        rows[3][BLOCK_W - 2] = "I"
    return ["".join(r) for r in rows]


def _leapers(st: State, b: int) -> str:
    """' | leapers N' while Extraction's leapers are in the cave (R-EXT-4), else ''."""
    n = int((st.l_tile[b] >= 0).sum())
    return f" | leapers {n}" if n else ""


def catalogue_tile_name(cat: Any, cid: int) -> str | None:
    """``gas (L)`` for catalogue id cid (None without a catalogue that holds it)."""
    if cat is None or not 0 <= cid < len(cat.tile_type):
        return None
    return f"{CORE_TILE_TYPES[cat.tile_type[cid]]} ({SHAPES[cat.tile_shape[cid]]})"


def pending_text(st: State, b: int = 0, cat: Any = None) -> str:
    """What the acting caver of game b is in the middle of, in words ('' when nothing): the one source for the text
    board, frames and the game app. ``cat``: the game's tile catalogue (``Core.cat``) to name tiles by; without it
    a tile is named by its catalogue id."""
    if int(st.r_seat[b]) >= 0:  # explicit_reactions: a pause of the gas, over whatever the turn was doing (R-INV-18)
        return f"Gas Mask: the gas would take {int(st.r_lose[b])} health: use the mask or not"
    pend = int(st.pend[b])
    if pend == P_PLACE:
        cid = int(st.pend_tile[b])
        rots = [str(r) for r in range(4) if int(st.pend_rots[b]) & (1 << r)]
        d = int(st.pend_dir[b])
        side = DIR_NAMES[d] if 0 <= d < 4 else "?"
        return (f"placing a tile: {catalogue_tile_name(cat, cid) or f'catalogue id {cid}'} to the {side}, "
                f"rotations {','.join(rots) or '-'}")
    if pend == P_RUN:
        return f"running ({int(st.run_left[b])} steps left, {int(st.run_taken[b])} taken)"
    if pend == P_PICK:
        drawn, aside = (catalogue_tile_name(cat, int(t)) or f"catalogue id {int(t)}"
                        for t in (st.pend_tile[b], st.aside_tile[b]))
        return f"Geologist: choose a tile, drawn {drawn} or set aside {aside}"
    if pend == P_SURFACE:
        return "Diver surfaces: choose a water tile"
    if pend == P_FLARE:
        return "Flare: choose the next side to reveal"
    if pend == P_ITEM:
        return "Transfer: choose the item to move"
    return ""


def _pending(st: State, b: int, cfg: GameConfig | None) -> str:
    cat = build(cfg or GameConfig())
    return pending_text(st, b, cat if cat.max_tiles == st.t_cat.shape[1] else None) or "none"


def ability_status(st: State, b: int = 0, cat=None) -> list[str]:
    """The public state of the cavers' abilities, one phrase each: the Geologist's set-aside tile (named with the
    catalogue ``cat``; left out without one), the Scout's redraws, the Engineer's explosives, the Leader's Direct.
    The text board and the terminal game both show these."""
    out = []
    if st.aside_tile[b] >= 0 and cat is not None:
        aside = int(st.aside_tile[b])
        out.append(f"set aside: {CORE_TILE_TYPES[cat.tile_type[aside]]} ({SHAPES[cat.tile_shape[aside]]})")
    ranks = {int(r) for r in st.c_rank[b]}
    if 2 in ranks:
        out.append(f"scout redraws {int(st.scout_redraws[b])}")
    if 4 in ranks:
        out.append(f"explosives {int(st.explosives[b])}")
    if 8 in ranks:
        out.append(f"leader directed {'yes' if st.direct_used[b] else 'no'}")
    if st.directing[b] >= 0:
        out.append(f"acting under Direct of seat {int(st.directing[b])}")
    if st.c_bombs[b].any() or st.t_bomb[b].any():  # Annihilation (R-ANN-5, R-ANN-6)
        held = ", ".join(f"{CAVER_NAMES[st.c_rank[b, s] - 1]} {int(n)}" for s, n in enumerate(st.c_bombs[b]) if n)
        out.append(f"bombs placed {int(st.t_bomb[b].sum())}/{BOMBS}; bomb cards: {held or 'none'}")
    if st.c_samples[b].any():  # Extraction (R-EXT-9)
        held = ", ".join(f"{CAVER_NAMES[st.c_rank[b, s] - 1]} {int(n)}" for s, n in enumerate(st.c_samples[b]) if n)
        out.append(f"biosamples: {held}")
    if st.i_deck[b].max() >= 0:  # Investigation (R-INV-2..9)
        out.append(items_status(st, b))
    return out


def items_status(st: State, b: int = 0) -> str:
    """Investigation's public items: who holds what, the item deck's size, the items out, doom pending."""
    held = "; ".join(f"{CAVER_NAMES[st.c_rank[b, s] - 1]}: "
                     + ", ".join(ITEM_NAMES[i] for i in range(NUM_ITEMS) if (int(st.c_items[b, s]) >> i) & 1)
                     for s in range(st.num_seats) if st.c_items[b, s])
    gone = sum((int(st.i_out[b]) >> i) & 1 for i in range(NUM_ITEMS))
    text = f"items: {held or 'none held'} | item deck {NUM_ITEMS - int(st.i_pos[b])}, {gone} out"
    if st.battery[b]:
        text += " | spare battery on: " + ", ".join(CAVER_NAMES[st.c_rank[b, s] - 1] for s in range(st.num_seats)
                                                      if (int(st.battery[b]) >> s) & 1)
    return text + (" | DOOM pending" if st.doom[b] else "")


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
    cards_left = game_info(st, b)["hazard_cards_left"]
    last = int(st.last_card[b])
    lines.append(f"hazard cards left {cards_left} | last hazard: {CARD_NAMES[last] if last >= 0 else '-'} | "
                 f"tiles left {st.stack.shape[1] - int(st.stack_pos[b])} | ropes left {int(st.ropes_left[b])} | "
                 f"horrors {int((st.h_tile[b] >= 0).sum())}{_leapers(st, b)} | "
                 f"gas active {'yes' if st.gas_active[b] else 'no'} | "
                 f"out of time {'yes' if st.out_of_time[b] else 'no'}")
    cat = build(cfg or GameConfig()) if st.aside_tile[b] >= 0 else None
    abilities = ability_status(st, b, cat if cat is not None and cat.max_tiles == st.t_cat.shape[1] else None)
    if abilities:
        lines.append(" | ".join(abilities))
    if st.result[b] != RUNNING:
        lines.append(f"result: {RESULT_NAMES[int(st.result[b])]}")
    lines.append(_text_legend(st, b))
    return "\n".join(lines)


def _dim(c: Colour, f: float = 0.4) -> Colour:
    return (int(c[0] * f), int(c[1] * f), int(c[2] * f))


def _draw_tile(st: State, b: int, t: int, cell: int, pieces: bool = True) -> np.ndarray:
    """The (cell, cell, 3) picture of tile t."""
    img = np.empty((cell, cell, 3), dtype=np.uint8)
    base = np.array(TYPE_COLOURS[CORE_TILE_TYPES[st.t_type[b, t]]], dtype=np.float64)
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
    if not pieces:  # the frame draws cavers and horrors itself, with their digits
        return img
    q = max(2, cell // 6)
    here = [s for s in range(st.num_seats) if not st.c_dead[b, s] and st.c_tile[b, s] == t]
    for i, s in enumerate(here):
        x, y = w + 1 + (i % 3) * (q + 1), w + 1 + (i // 3) * (q + 1)
        colour = CAVER_COLOURS[int(st.c_rank[b, s])]
        img[y:y + q, x:x + q] = colour if st.c_hp[b, s] > 0 else _dim(colour)
    monsters = [HORROR_COLOUR] * int((st.h_tile[b] == t).sum()) + [LEAPER_COLOUR] * int((st.l_tile[b] == t).sum())
    for i, colour in enumerate(monsters):
        x, y = w + 1 + i * (q + 1), cell - w - 1 - q
        img[y:y + q, x:x + q] = colour
    return img


def render_rgb(st: State, b: int = 0, cell: int = FRAME_CELL, *, cfg: GameConfig | None = None,
               status: bool = True, legend: bool = True, bbox: tuple[int, int, int, int] | None = None,
               players: list[str] | None = None, caption: str | None = None) -> np.ndarray:
    """(H, W, 3) uint8 picture of game b: the cave (its tiles' bounding box plus one empty cell around), and by
    default a status strip and a colour legend under it (see "Image frame" in the module docstring).

    ``status=False, legend=False`` gives the bare map (no text). ``bbox``: the grid box (x0, y0, x1, y1) to draw
    instead of the tiles' own, so that every frame of a replay has the same size. ``players``: a label per seat
    for the status strip (e.g. "human", "heuristic"); ``caption``: a line above it (a replay's step). ``cfg``
    names a pending tile (catalogue ids depend on the config).
    """
    _check_game(st, b)
    if cell < 8:
        raise ValueError(f"cell={cell}: at least 8 pixels per tile")
    placed = (st.t_type[b] >= 0).any()
    if bbox is None and placed:
        bbox = _bbox(st, b)[1:]
    if bbox is None:
        mapimg = np.full((cell, cell, 3), BACKGROUND, dtype=np.uint8)
    else:
        x0, y0, x1, y1 = bbox
        mapimg = np.empty(((y1 - y0 + 3) * cell, (x1 - x0 + 3) * cell, 3), dtype=np.uint8)
        mapimg[:] = BACKGROUND
        for t in np.nonzero(st.t_type[b] >= 0)[0]:
            px, py = (int(st.t_x[b, t]) - x0 + 1) * cell, (int(st.t_y[b, t]) - y0 + 1) * cell
            if 0 <= px and px + cell <= mapimg.shape[1] and 0 <= py and py + cell <= mapimg.shape[0]:
                mapimg[py:py + cell, px:px + cell] = _draw_tile(st, b, int(t), cell, pieces=not (status or legend))
    if not (status or legend):
        return mapimg
    return _frame(st, b, cell, mapimg, bbox, cfg, status, legend, players, caption)


def _font(size: int) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError, AttributeError):  # old Pillow or no FreeType: the bitmap font
        return ImageFont.load_default()


def _ink(colour: Colour) -> Colour:
    """Black or white text, whichever reads on this background."""
    return (0, 0, 0) if 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2] > 120 else (255, 255, 255)


def _text_w(draw: Any, text: str, font: Any) -> int:
    box = draw.textbbox((0, 0), text, font=font)
    return int(box[2] - box[0])


def _frame(st: State, b: int, cell: int, mapimg: np.ndarray, bbox: tuple[int, int, int, int] | None,
           cfg: GameConfig | None, status: bool, legend: bool, players: list[str] | None,
           caption: str | None) -> np.ndarray:
    from PIL import Image, ImageDraw

    small, body, big = _font(max(9, cell // 4)), _font(14), _font(20)
    lh = 19  # text line height of the strip
    width = max(mapimg.shape[1], FRAME_MIN_WIDTH)
    seats = st.num_seats
    per_row = 2 if width < 900 else 3
    # a fixed layout (the same height all game, so replay frames match): caption, turn, counters, warnings,
    # the cavers, the result (blank while the game runs)
    status_lines = (1 if caption else 0) + 3 + (seats + per_row - 1) // per_row + 2
    status_h = status_lines * lh + 10 if status else 0
    legend_items = _legend_items()
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    rows, x = 1, 10
    for _, label in legend_items:
        w = 22 + _text_w(probe, label, small) + 14
        if x + w > width - 6:
            rows, x = rows + 1, 10
        x += w
    legend_h = rows * (lh - 2) + 26 if legend else 0
    img = Image.new("RGB", (width, mapimg.shape[0] + status_h + legend_h), PANEL_COLOUR)
    ox = (width - mapimg.shape[1]) // 2
    img.paste(Image.fromarray(mapimg), (ox, 0))
    draw = ImageDraw.Draw(img)
    if bbox is not None:
        _label_tiles(st, b, cell, draw, ox, bbox, small)
    y = mapimg.shape[0] + 6
    if status:
        y = _status_strip(st, b, cfg, draw, y, lh, width, per_row, players, caption, body, big)
    if legend:
        _legend(draw, legend_items, mapimg.shape[0] + status_h + 4, width, lh - 2, small, body)
    return np.asarray(img, dtype=np.uint8).copy()


def _label_tiles(st: State, b: int, cell: int, draw: Any, ox: int, bbox: tuple[int, int, int, int],
                 font: Any) -> None:
    """Type codes, cavers (rank digits in their colour), horrors and the gas warning on the map."""
    x0, y0 = bbox[0], bbox[1]
    w = max(1, cell // 8)
    q = max(8, (cell - 2 * w - 4) // 3)  # caver marker size: three per row
    actor = int(st.actor[b])
    for t in np.nonzero(st.t_type[b] >= 0)[0]:
        px, py = ox + (int(st.t_x[b, t]) - x0 + 1) * cell, (int(st.t_y[b, t]) - y0 + 1) * cell
        kind = CORE_TILE_TYPES[st.t_type[b, t]]
        code = TYPE_CODES[kind] + ("~" if st.t_flood[b, t] else "")
        draw.text((px + w + 2, py + w), code, fill=(255, 255, 255) if st.t_flood[b, t] else (15, 15, 15), font=font)
        if kind == "gas" and st.gas_active[b]:
            draw.text((px + cell - w - 9, py + w), "!", fill=WARN_COLOUR, font=font)
        here = [s for s in range(st.num_seats) if not st.c_dead[b, s] and st.c_tile[b, s] == t]
        top = py + w + max(9, cell // 4) + 2
        for i, s in enumerate(here):
            cx, cy = px + w + 1 + (i % 3) * (q + 1), top + (i // 3) * (q + 1)
            rank = int(st.c_rank[b, s])
            colour = CAVER_COLOURS[rank] if st.c_hp[b, s] > 0 else _dim(CAVER_COLOURS[rank])
            outline = (255, 255, 255) if s == actor else (0, 0, 0)
            draw.rectangle((cx, cy, cx + q - 1, cy + q - 1), fill=colour, outline=outline)
            ink = _ink(colour)
            draw.text((cx + q // 2, cy + q // 2), str(rank), fill=ink, font=font, anchor="mm")
        monsters = [("H", HORROR_COLOUR)] * int((st.h_tile[b] == t).sum()) + [("L", LEAPER_COLOUR)] * int(
            (st.l_tile[b] == t).sum())
        for i, (mark, colour) in enumerate(monsters):
            hx, hy = px + cell - w - 1 - (i + 1) * (q + 1), py + cell - w - 1 - q
            draw.rectangle((hx, hy, hx + q - 1, hy + q - 1), fill=colour, outline=(0, 0, 0))
            draw.text((hx + q // 2, hy + q // 2), mark, fill=(255, 255, 255), font=font, anchor="mm")


def _fit(draw: Any, text: str, font: Any, max_w: int) -> str:
    """The text, cut with '...' to fit in max_w pixels."""
    if _text_w(draw, text, font) <= max_w:
        return text
    while text and _text_w(draw, text + "...", font) > max_w:
        text = text[:-1]
    return text + "..."


def _status_strip(st: State, b: int, cfg: GameConfig | None, draw: Any, y: int, lh: int, width: int, per_row: int,
                  players: list[str] | None, caption: str | None, body: Any, big: Any) -> int:
    max_w = width - 20
    if caption:
        draw.text((10, y), _fit(draw, caption, body, max_w), fill=(255, 255, 160), font=body)
        y += lh
    actor = int(st.actor[b])
    if actor >= 0:
        name = CAVER_NAMES[st.c_rank[b, actor] - 1]
        who = f", {players[actor]}" if players and actor < len(players) else ""
        turn = f"turn: {name} (seat {actor}{who})  AP {int(st.ap[b])}" + ("  exerted" if st.exerted[b] else "")
        pend = _pending(st, b, cfg)
        if pend.startswith("placing a tile: catalogue id"):  # no cfg given: the tile's name is unknown here
            pend = "placing a tile to the " + pend.split(" to the ")[-1]
        if pend != "none":
            turn += f"  | {pend}"
    else:
        turn = "game over"
    draw.text((10, y), _fit(draw, f"Round {int(st.round[b])}   {turn}", body, max_w), fill=TEXT_COLOUR, font=body)
    y += lh
    cards_left = game_info(st, b)["hazard_cards_left"]
    last = int(st.last_card[b])
    counters = (f"hazard cards left {cards_left}    tiles left {st.stack.shape[1] - int(st.stack_pos[b])}    "
                f"ropes {int(st.ropes_left[b])}    horrors {int((st.h_tile[b] >= 0).sum())}{_leapers(st, b)}    "
                f"last hazard: {CARD_NAMES[last] if last >= 0 else '-'}")
    draw.text((10, y), _fit(draw, counters, body, max_w), fill=TEXT_COLOUR, font=body)
    y += lh
    warnings = [w for w, on in (("GAS ACTIVE: entering a gas tile hurts", st.gas_active[b]),
                                ("OUT OF TIME: cavers off the exit may be devoured", st.out_of_time[b])) if on]
    if warnings:
        draw.text((10, y), _fit(draw, "   ".join(warnings), body, max_w), fill=WARN_COLOUR, font=body)
    y += lh
    col_w = (width - 20) // per_row
    for s in range(st.num_seats):
        cx, cy = 10 + (s % per_row) * col_w, y + (s // per_row) * lh
        rank = int(st.c_rank[b, s])
        hp, mx = int(st.c_hp[b, s]), int(st.c_max[b, s])
        colour = CAVER_COLOURS[rank] if hp > 0 and not st.c_dead[b, s] else _dim(CAVER_COLOURS[rank])
        draw.rectangle((cx, cy + 2, cx + 13, cy + 15), fill=colour, outline=(255, 255, 255) if s == actor else None)
        draw.text((cx + 7, cy + 9), str(rank), fill=_ink(colour), font=_font(11), anchor="mm")
        label = CAVER_NAMES[rank - 1] + (f" ({players[s]})" if players and s < len(players) else "")
        label = _fit(draw, label, body, col_w - 19 - mx * 9 - 80)
        draw.text((cx + 19, cy), label, fill=TEXT_COLOUR, font=body)
        hx = cx + 19 + _text_w(draw, label, body) + 8
        for k in range(mx):  # health pips
            draw.rectangle((hx + k * 9, cy + 5, hx + k * 9 + 6, cy + 12),
                           fill=(220, 40, 40) if k < hp else (70, 70, 70))
        short = ", ".join("knocked out" if f == "unconscious" else f for f in caver_flags(st, b, s))
        if short:
            draw.text((hx + mx * 9 + 6, cy), _fit(draw, short, body, cx + col_w - hx - mx * 9 - 10),
                      fill=MUTED_COLOUR if hp > 0 else WARN_COLOUR, font=body)
    y += ((st.num_seats + per_row - 1) // per_row) * lh
    if st.result[b] != RUNNING:
        res = RESULT_NAMES[int(st.result[b])]
        escaped = game_info(st, b)["escaped"]
        draw.text((10, y + 4), f"RESULT: {res.upper()}  ({escaped} of {st.num_seats} cavers escaped)",
                  fill=MEDAL_COLOURS[res], font=big)
    return y + 2 * lh


def _legend_items() -> list[tuple[Any, str]]:
    items: list[tuple[Any, str]] = [(TYPE_COLOURS[k], f"{TYPE_CODES[k]} {k}") for k in TILE_TYPES]
    items += [(m, m) for m in LEGEND_MARKERS]
    return items


def _legend(draw: Any, items: list[tuple[Any, str]], y: int, width: int, lh: int, font: Any, body: Any) -> None:
    draw.text((10, y), "legend", fill=MUTED_COLOUR, font=body)
    y += lh + 2
    x = 10
    for swatch, label in items:
        w = 22 + _text_w(draw, label, font) + 14
        if x + w > width - 6:
            x, y = 10, y + lh
        box = (x, y + 2, x + 15, y + 15)
        if isinstance(swatch, tuple):
            draw.rectangle(box, fill=swatch, outline=WALL_COLOUR)
        else:
            _legend_marker(draw, swatch, box)
        draw.text((x + 20, y + 1), label, fill=TEXT_COLOUR, font=font)
        x += w


def _legend_marker(draw: Any, name: str, box: tuple[int, int, int, int]) -> None:
    x0, y0, x1, y1 = box
    base = TYPE_COLOURS["normal"]
    if name == "flood":
        draw.rectangle(box, fill=tuple((np.array(TYPE_COLOURS["water"]) + np.array(FLOOD_COLOUR)) // 2))
    elif name == "rubble":
        draw.rectangle(box, fill=base)
        for fx, fy in ((0.3, 0.35), (0.55, 0.6), (0.7, 0.3), (0.4, 0.75)):
            px, py = x0 + int(15 * fx), y0 + int(13 * fy)
            draw.rectangle((px, py, px + 2, py + 2), fill=RUBBLE_COLOUR)
    elif name == "rope":
        draw.rectangle(box, fill=TYPE_COLOURS["ledge"])
        draw.line((x1 - 3, y0, x1 - 3, y1), fill=ROPE_COLOUR, width=2)
    elif name == "ledge/slide arrow":
        draw.rectangle(box, fill=TYPE_COLOURS["ledge"])
        draw.line(((x0 + x1) // 2, y1 - 2, (x0 + x1) // 2, y0 + 3), fill=ARROW_COLOUR, width=2)
        draw.rectangle(((x0 + x1) // 2 - 2, y0 + 1, (x0 + x1) // 2 + 2, y0 + 4), fill=ARROW_COLOUR)
    elif name == "horror":
        draw.rectangle(box, fill=HORROR_COLOUR)
    elif name == "caver (rank)":
        draw.rectangle(box, fill=CAVER_COLOURS[2], outline=(0, 0, 0))
    else:  # unconscious
        draw.rectangle(box, fill=_dim(CAVER_COLOURS[2]), outline=(0, 0, 0))


__all__ = [
    "CAVER_COLOURS",
    "FRAME_CELL",
    "HORROR_COLOUR",
    "LEGEND",
    "MEDAL_COLOURS",
    "TYPE_CODES",
    "TYPE_COLOURS",
    "render_ansi",
    "render_rgb",
]
