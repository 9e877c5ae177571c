"""Tile decisions of the heuristic: which side to reveal, which rotation to place, the Scout's redraw and the
Geologist's pick (R-ACT-5, R-CON-4, R-CAV-2, R-CAV-3). All read the public board only."""

from __future__ import annotations

from subterra_env.core.actions import A_PICK, A_ROTATE
from subterra_env.core.catalogue import (
    DX,
    DY,
    OPPOSITE,
    ROT_MASK,
    T_CAVE_IN,
    T_EXIT,
    T_GAS,
    T_HORROR,
    T_LEDGE,
    T_ROUGH,
    T_SLIDE,
    T_SQUEEZE,
    T_WATER,
)

from .heuristic_board import Board

# How much worse than a normal tile each type is to have in the cave (in open-side units).
TYPE_COST = {T_HORROR: 2.5, T_GAS: 0.6, T_CAVE_IN: 0.6, T_WATER: 0.4, T_ROUGH: 0.4, T_SQUEEZE: 0.8, T_LEDGE: 0.8,
             T_SLIDE: 0.8}


# Placement: an open side facing an empty cell (the cave keeps growing) and per empty cell around that cell; a new
# connection to a placed tile (a shortcut: a loopy cave has short ways to wherever the exit turns up). Side
# choice: per empty cell around the target cell (negative: fill in next to placed tiles, which makes links).
W = {"front": 1.0, "room": 0.15, "link": 1.5, "side_room": -0.5}


def placement_score(b: Board, cat_id: int, t0: int, d: int, rot: int) -> float:
    """How good placing catalogue tile cat_id in rotation rot beyond side d of tile t0 is for the cave:
    open sides facing empty cells keep the cave growing; links to placed tiles shorten paths."""
    cat = b.cat
    cx, cy = b.x[t0] + DX[d], b.y[t0] + DY[d]
    m = int(ROT_MASK[cat.tile_mask[cat_id], rot])
    score = 0.0
    back = OPPOSITE[d]
    for k in range(4):
        if k == back:
            continue
        other = int(b.grid[cy + DY[k], cx + DX[k]])
        if other < 0:
            if m >> k & 1:
                # an open side facing an empty cell: worth more when there is room beyond it
                room = sum(1 for j in range(4) if b.grid[cy + DY[k] + DY[j], cx + DX[k] + DX[j]] < 0)
                score += W["front"] + W["room"] * room
        elif m >> k & 1 and b.opened[other][OPPOSITE[k]]:
            score += W["link"]  # a new connection: a shortcut
    return score


def tile_value(b: Board, cat_id: int, t0: int, d: int) -> tuple[float, int]:
    """Best (score, rotation) for placing cat_id beyond side d of t0 (rotations opening toward t0)."""
    cat = b.cat
    ttype = int(cat.tile_type[cat_id])
    back = OPPOSITE[d]
    best, best_r = -99.0, 0
    for r in range(4):
        if ttype in (T_LEDGE, T_SLIDE):
            if r != d:
                continue
        elif not (int(ROT_MASK[cat.tile_mask[cat_id], r]) >> back & 1):
            continue
        sc = placement_score(b, cat_id, t0, d, r)
        if sc > best:
            best, best_r = sc, r
    if ttype == T_EXIT:
        return 100.0, best_r
    return best - TYPE_COST.get(ttype, 0.0), best_r


def choose_rotation(b: Board, mask) -> int:
    """The legal rotation of the tile being placed with the best placement_score."""
    t0 = b.tile[b.actor]
    d = b.pend_dir
    best, best_a = -99.0, -1
    for r in range(4):
        a = A_ROTATE + r
        if not mask[a]:
            continue
        sc = placement_score(b, b.pend_tile, t0, d, r)
        if sc > best:
            best, best_a = sc, a
    return best_a


def want_redraw(b: Board) -> bool:
    """The Scout's Sense of direction: discard a bad tile (horror, dead end, a tile that would close every
    side), and near the end of the stack any tile, to bring the exit sooner (it is never discarded)."""
    cat = b.cat
    ttype = int(cat.tile_type[b.pend_tile])
    if b.exit < 0 and b.tiles_left <= b.cfg.exit_in_last:
        return True
    value, _ = tile_value(b, b.pend_tile, b.tile[b.actor], b.pend_dir)
    if ttype == T_HORROR or value < 0.5:
        return True
    # uses that would otherwise be wasted: spend them over the game
    return b.redraws > 0 and b.tiles_left <= 12 * b.redraws and value < 1.5


def choose_pick(b: Board) -> int:
    """The Geologist's Intuition: place the better of the drawn and the set-aside tile (the exit always); the
    worse one may stay aside for good."""
    t0, d = b.tile[b.actor], b.pend_dir
    drawn, _ = tile_value(b, b.pend_tile, t0, d)
    aside, _ = tile_value(b, b.aside, t0, d)
    return A_PICK + (1 if aside > drawn else 0)


def side_score(b: Board, t0: int, d: int) -> float:
    """Preference among the revealable sides of t0 (see W["side_room"])."""
    return W["side_room"] * b.empty_around_cell(t0, d)
