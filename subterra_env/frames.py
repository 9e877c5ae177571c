"""The picture of one game of a batched State: ``render_rgb`` (the env's ``rgb_array`` render, replays' frames).

It crops the cave to the bounding box of the placed tiles as the text view (``render.render_ansi``) does, and
shows public information only. Colours and tile codes are ``palette``'s, the phrases of the status strip
``words``'s.

Image: one ``cell`` x ``cell`` square per grid cell (FRAME_CELL = 48 by default), one empty cell of margin around
the bounding box. Tiles are filled with TYPE_COLOURS, closed sides and the four corners drawn in WALL_COLOUR; a
flooded tile is tinted toward FLOOD_COLOUR, rubble shows as RUBBLE_COLOUR dots, a rope as a ROPE_COLOUR line on
the east inside edge, a ledge/slide arrow as an ARROW_COLOUR line from the centre to a square head at its side.
Empty cells are BACKGROUND.

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

from .config import CAVER_NAMES, TILE_TYPES, GameConfig
from .games.sub_terra.core.catalogue import BIT, CARD_NAMES, CORE_TILE_TYPES, DX, DY
from .games.sub_terra.core.state import RESULT_NAMES, RUNNING, State
from .drawing import default_font, fit, ink_for, text_width
from .info import game_info
from .palette import (ARROW_COLOUR, BACKGROUND, CAVER_COLOURS, FLOOD_COLOUR, HORROR_COLOUR, LEAPER_COLOUR, ROPE_COLOUR,
                      RUBBLE_COLOUR, TYPE_CODES, TYPE_COLOURS, WALL_COLOUR, Colour, dim)
from .render import check_game, placed_box
from .words import caver_flags, leapers_text, pending_or_none

FRAME_CELL = 48  # pixels per tile in the readable frame
TEXT_COLOUR: Colour = (235, 235, 235)
MUTED_COLOUR: Colour = (150, 150, 150)
WARN_COLOUR: Colour = (255, 90, 70)
PANEL_COLOUR: Colour = (22, 22, 26)
MEDAL_COLOURS: dict[str, Colour] = {"gold": (255, 205, 40), "silver": (200, 205, 215), "bronze": (215, 135, 65),
                                    "defeat": (230, 60, 60)}
FRAME_MIN_WIDTH = 680
LEGEND_MARKERS = ("flood", "rubble", "rope", "ledge/slide arrow", "horror", "caver (rank)", "unconscious")


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
        img[y:y + q, x:x + q] = colour if st.c_hp[b, s] > 0 else dim(colour)
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
    check_game(st, b)
    if cell < 8:
        raise ValueError(f"cell={cell}: at least 8 pixels per tile")
    placed = (st.t_type[b] >= 0).any()
    if bbox is None and placed:
        bbox = placed_box(st, b)[1:]
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


def _frame(st: State, b: int, cell: int, mapimg: np.ndarray, bbox: tuple[int, int, int, int] | None,
           cfg: GameConfig | None, status: bool, legend: bool, players: list[str] | None,
           caption: str | None) -> np.ndarray:
    from PIL import Image, ImageDraw

    small, body, big = default_font(max(9, cell // 4)), default_font(14), default_font(20)
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
        w = 22 + text_width(probe, label, small) + 14
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
            colour = CAVER_COLOURS[rank] if st.c_hp[b, s] > 0 else dim(CAVER_COLOURS[rank])
            outline = (255, 255, 255) if s == actor else (0, 0, 0)
            draw.rectangle((cx, cy, cx + q - 1, cy + q - 1), fill=colour, outline=outline)
            ink = ink_for(colour)
            draw.text((cx + q // 2, cy + q // 2), str(rank), fill=ink, font=font, anchor="mm")
        monsters = [("H", HORROR_COLOUR)] * int((st.h_tile[b] == t).sum()) + [("L", LEAPER_COLOUR)] * int(
            (st.l_tile[b] == t).sum())
        for i, (mark, colour) in enumerate(monsters):
            hx, hy = px + cell - w - 1 - (i + 1) * (q + 1), py + cell - w - 1 - q
            draw.rectangle((hx, hy, hx + q - 1, hy + q - 1), fill=colour, outline=(0, 0, 0))
            draw.text((hx + q // 2, hy + q // 2), mark, fill=(255, 255, 255), font=font, anchor="mm")


def _status_strip(st: State, b: int, cfg: GameConfig | None, draw: Any, y: int, lh: int, width: int, per_row: int,
                  players: list[str] | None, caption: str | None, body: Any, big: Any) -> int:
    max_w = width - 20
    if caption:
        draw.text((10, y), fit(draw, caption, body, max_w), fill=(255, 255, 160), font=body)
        y += lh
    actor = int(st.actor[b])
    if actor >= 0:
        name = CAVER_NAMES[st.c_rank[b, actor] - 1]
        who = f", {players[actor]}" if players and actor < len(players) else ""
        turn = f"turn: {name} (seat {actor}{who})  AP {int(st.ap[b])}" + ("  exerted" if st.exerted[b] else "")
        pend = pending_or_none(st, b, cfg)
        if pend.startswith("placing a tile: catalogue id"):  # no cfg given: the tile's name is unknown here
            pend = "placing a tile to the " + pend.split(" to the ")[-1]
        if pend != "none":
            turn += f"  | {pend}"
    else:
        turn = "game over"
    draw.text((10, y), fit(draw, f"Round {int(st.round[b])}   {turn}", body, max_w), fill=TEXT_COLOUR, font=body)
    y += lh
    cards_left = game_info(st, b)["hazard_cards_left"]
    last = int(st.last_card[b])
    counters = (f"hazard cards left {cards_left}    tiles left {st.stack.shape[1] - int(st.stack_pos[b])}    "
                f"ropes {int(st.ropes_left[b])}    horrors {int((st.h_tile[b] >= 0).sum())}{leapers_text(st, b)}    "
                f"last hazard: {CARD_NAMES[last] if last >= 0 else '-'}")
    draw.text((10, y), fit(draw, counters, body, max_w), fill=TEXT_COLOUR, font=body)
    y += lh
    warnings = [w for w, on in (("GAS ACTIVE: entering a gas tile hurts", st.gas_active[b]),
                                ("OUT OF TIME: cavers off the exit may be devoured", st.out_of_time[b])) if on]
    if warnings:
        draw.text((10, y), fit(draw, "   ".join(warnings), body, max_w), fill=WARN_COLOUR, font=body)
    y += lh
    col_w = (width - 20) // per_row
    for s in range(st.num_seats):
        cx, cy = 10 + (s % per_row) * col_w, y + (s // per_row) * lh
        rank = int(st.c_rank[b, s])
        hp, mx = int(st.c_hp[b, s]), int(st.c_max[b, s])
        colour = CAVER_COLOURS[rank] if hp > 0 and not st.c_dead[b, s] else dim(CAVER_COLOURS[rank])
        draw.rectangle((cx, cy + 2, cx + 13, cy + 15), fill=colour, outline=(255, 255, 255) if s == actor else None)
        draw.text((cx + 7, cy + 9), str(rank), fill=ink_for(colour), font=default_font(11), anchor="mm")
        label = CAVER_NAMES[rank - 1] + (f" ({players[s]})" if players and s < len(players) else "")
        label = fit(draw, label, body, col_w - 19 - mx * 9 - 80)
        draw.text((cx + 19, cy), label, fill=TEXT_COLOUR, font=body)
        hx = cx + 19 + text_width(draw, label, body) + 8
        for k in range(mx):  # health pips
            draw.rectangle((hx + k * 9, cy + 5, hx + k * 9 + 6, cy + 12),
                           fill=(220, 40, 40) if k < hp else (70, 70, 70))
        short = ", ".join("knocked out" if f == "unconscious" else f for f in caver_flags(st, b, s))
        if short:
            draw.text((hx + mx * 9 + 6, cy), fit(draw, short, body, cx + col_w - hx - mx * 9 - 10),
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
        w = 22 + text_width(draw, label, font) + 14
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
        draw.rectangle(box, fill=dim(CAVER_COLOURS[2]), outline=(0, 0, 0))


__all__ = ["FRAME_CELL", "MEDAL_COLOURS", "render_rgb"]
