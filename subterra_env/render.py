"""The text view of one game of a batched State: ``render_ansi`` (the env's ``ansi`` render).

It crops the cave to the bounding box of the placed tiles (north up, east right) and shows public information
only: the order of the tile stack and of the hazard deck never appear, only their counts. The picture of the same
game is ``frames.render_rgb``; the phrases both share (a caver's condition, the decision under way, the abilities)
are ``words``'s, the tile codes and colours ``palette``'s.

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
"""

from __future__ import annotations

import numpy as np

from .config import CAVER_NAMES, GameConfig
from .games.sub_terra.core.catalogue import BIT, CARD_NAMES, CORE_TILE_TYPES, T_BOMB, T_ITEM, T_SANCTUARY, build
from .games.sub_terra.core.state import RESULT_NAMES, RUNNING, State
from .info import game_info
from .palette import TYPE_CODES
from .words import ability_status, caver_status, leapers_text, pending_or_none

ARROW_CHARS = "^>v<"
BLOCK_W, BLOCK_H = 9, 5
LEGEND = ("legend: # wall, gap = open side | ~ flood * rubble r rope ^>v< ledge/slide arrow | "
          "1-8 caver rank (a-h = unconscious) | H horror | tiles STA EXT NOR WAT GAS CAV DEN(horror) SQZ LDG SLD ROU")
# the scenarios' tiles and markers, added to the legend when the game shows them
SCENARIO_LEGEND = ((T_BOMB, "BMB bomb tile (B: its bomb placed)"), (T_SANCTUARY, "SAN sanctuary"),
                   (T_ITEM, "ITM item tile (I: its item not yet drawn)"))


def check_game(st: State, b: int) -> None:
    """Raise IndexError unless b is a game of the batch."""
    if not 0 <= b < st.batch_size:
        raise IndexError(f"game {b} is out of range for a batch of {st.batch_size}")


def placed_box(st: State, b: int) -> tuple[np.ndarray, int, int, int, int]:
    """Placed tile indices and the cropped grid box (x0, y0, x1, y1), inclusive."""
    tiles = np.nonzero(st.t_type[b] >= 0)[0]
    xs, ys = st.t_x[b, tiles].astype(int), st.t_y[b, tiles].astype(int)
    return tiles, int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())


def _text_legend(st: State, b: int) -> str:
    """LEGEND plus the scenario tiles on the board and leapers in the cave."""
    shown = [text for t, text in SCENARIO_LEGEND if (st.t_type[b] == t).any()]
    if (st.l_tile[b] >= 0).any():
        shown.append("L leaper")
    return LEGEND + ("".join(f" | {x}" for x in shown))


def _caver_char(rank: int, hp: int) -> str:
    return str(rank) if hp > 0 else "abcdefgh"[rank - 1]


def tile_block(st: State, b: int, t: int) -> list[str]:
    """The 9 x 5 character block of tile t (the terminal game colours the same blocks)."""
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


def _map_lines(st: State, b: int) -> list[str]:
    """The cropped map, one right-stripped line per character row."""
    if not (st.t_type[b] >= 0).any():
        return ["(no tiles placed)"]
    tiles, x0, y0, x1, y1 = placed_box(st, b)
    canvas = [[" "] * ((x1 - x0 + 1) * BLOCK_W) for _ in range((y1 - y0 + 1) * BLOCK_H)]
    for t in tiles:
        cx, cy = (int(st.t_x[b, t]) - x0) * BLOCK_W, (int(st.t_y[b, t]) - y0) * BLOCK_H
        for r, text in enumerate(tile_block(st, b, int(t))):
            canvas[cy + r][cx:cx + BLOCK_W] = text
    return ["".join(row).rstrip() for row in canvas]


def _status_lines(st: State, b: int, cfg: GameConfig | None) -> list[str]:
    """The panel under the map: the turn, a line per seat, the counters, the abilities, the result."""
    actor = int(st.actor[b])
    if actor >= 0:
        name = CAVER_NAMES[st.c_rank[b, actor] - 1]
        lines = [(f"round {int(st.round[b])} | turn: {name} (seat {actor}) | AP {int(st.ap[b])} | "
                  f"exerted {'yes' if st.exerted[b] else 'no'} | pending: {pending_or_none(st, b, cfg)}")]
    else:
        lines = [f"round {int(st.round[b])} | turn: - (game over)"]
    for s in range(st.num_seats):
        rank = int(st.c_rank[b, s])
        mark = ">" if s == actor else " "
        lines.append(f" {mark} seat {s}: {CAVER_NAMES[rank - 1]:<9} rank {rank} "
                     f"health {int(st.c_hp[b, s])}/{int(st.c_max[b, s])}  {caver_status(st, b, s)}")
    cards_left = game_info(st, b)["hazard_cards_left"]
    last = int(st.last_card[b])
    lines.append(f"hazard cards left {cards_left} | last hazard: {CARD_NAMES[last] if last >= 0 else '-'} | "
                 f"tiles left {st.stack.shape[1] - int(st.stack_pos[b])} | ropes left {int(st.ropes_left[b])} | "
                 f"horrors {int((st.h_tile[b] >= 0).sum())}{leapers_text(st, b)} | "
                 f"gas active {'yes' if st.gas_active[b] else 'no'} | "
                 f"out of time {'yes' if st.out_of_time[b] else 'no'}")
    cat = build(cfg or GameConfig()) if st.aside_tile[b] >= 0 else None
    abilities = ability_status(st, b, cat if cat is not None and cat.max_tiles == st.t_cat.shape[1] else None)
    if abilities:
        lines.append(" | ".join(abilities))
    if st.result[b] != RUNNING:
        lines.append(f"result: {RESULT_NAMES[int(st.result[b])]}")
    return lines


def render_ansi(st: State, b: int = 0, cfg: GameConfig | None = None) -> str:
    """Text map of game b plus a status panel and a legend (see the module docstring).

    ``cfg`` only serves to name the pending tile's type (catalogue ids depend on the config); default config
    if None.
    """
    check_game(st, b)
    return "\n".join([*_map_lines(st, b), "", *_status_lines(st, b, cfg), _text_legend(st, b)])


__all__ = ["BLOCK_H", "BLOCK_W", "LEGEND", "check_game", "placed_box", "render_ansi", "tile_block"]
