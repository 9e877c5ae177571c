"""Tile decisions of the heuristic: which rotation to place, the Scout's redraw, the Geologist's pick and which
side to reveal (R-ACT-5, R-CON-4, R-CAV-2, R-CAV-3). All read the public board only."""

from __future__ import annotations

import numpy as np

from subterra_env.games.sub_terra.core.actions import A_PICK, A_ROTATE
from subterra_env.games.sub_terra.core.board import tile_at
from subterra_env.games.sub_terra.core.catalogue import (
    CORE_TILE_TYPES, DX, DY, OPPOSITE, ROT_MASK, T_CAVE_IN, T_EXIT, T_GAS, T_HORROR, T_LEDGE, T_ROUGH, T_SLIDE,
    T_SQUEEZE, T_WATER,
)

from .jit import jit

# How much worse than a normal tile each type is to have in the cave (in open-side units), by tile type: every type
# the rules know, the scenarios' too (a bomb tile costs nothing). Compiled code does not check bounds: a type beyond
# the table would read whatever lies after it (it did, for the bomb tile: a cold compile and a cached one differed).
TYPE_COST = np.zeros(len(CORE_TILE_TYPES), dtype=np.float64)
for _t, _c in ((T_HORROR, 2.5), (T_GAS, 0.6), (T_CAVE_IN, 0.6), (T_WATER, 0.4), (T_ROUGH, 0.4), (T_SQUEEZE, 0.8),
               (T_LEDGE, 0.8), (T_SLIDE, 0.8)):
    TYPE_COST[_t] = _c
# Placement: an open side facing an empty cell (the cave keeps growing) and per empty cell around that cell; a new
# connection to a placed tile (a shortcut: a loopy cave has short ways to wherever the exit turns up).
FRONT, ROOM, LINK = 1.0, 0.15, 1.5
SIDE_ROOM = -0.5  # side choice, per empty cell around the target cell: fill in next to placed tiles (links)


@jit
def placement_score(g, P, bd, cat_id, t0, d, rot):
    """How good placing catalogue tile cat_id in rotation rot beyond side d of tile t0 is for the cave: open sides
    facing empty cells keep the cave growing; links to placed tiles shorten paths."""
    cx, cy = g.t_x[t0] + DX[d], g.t_y[t0] + DY[d]
    m = np.int64(ROT_MASK[P.tile_mask[cat_id], rot])
    score = 0.0
    back = OPPOSITE[d]
    for k in range(4):
        if k == back:
            continue
        other = tile_at(g, cx + DX[k], cy + DY[k])
        if other < 0:
            if m >> k & 1:
                room = 0  # an open side facing an empty cell: worth more when there is room beyond it
                for j in range(4):
                    if tile_at(g, cx + DX[k] + DX[j], cy + DY[k] + DY[j]) < 0:
                        room += 1
                score += FRONT + ROOM * room
        elif m >> k & 1 and bd.opened[other, OPPOSITE[k]] == 1:
            score += LINK  # a new connection: a shortcut
    return score


@jit
def tile_value(g, P, bd, cat_id, t0, d):
    """Best score (over rotations opening toward t0) of placing cat_id beyond side d of t0, less its type's cost."""
    ttype = P.tile_type[cat_id]
    back = OPPOSITE[d]
    best = -99.0
    for r in range(4):
        if ttype == T_LEDGE or ttype == T_SLIDE:
            if r != d:
                continue
        elif not (np.int64(ROT_MASK[P.tile_mask[cat_id], r]) >> back & 1):
            continue
        sc = placement_score(g, P, bd, cat_id, t0, d, r)
        if sc > best:
            best = sc
    if ttype == T_EXIT:
        return 100.0
    return best - TYPE_COST[ttype]


@jit
def choose_rotation(g, P, bd, mask):
    """The legal rotation of the tile being placed with the best placement score."""
    t0 = g.c_tile[g.actor]
    d = g.pend_dir
    best, best_a = -99.0, -1
    for r in range(4):
        a = A_ROTATE + r
        if not mask[a]:
            continue
        sc = placement_score(g, P, bd, g.pend_tile, t0, d, r)
        if sc > best:
            best, best_a = sc, a
    return best_a


@jit
def want_redraw(g, P, bd):
    """The Scout's Sense of direction: discard a bad tile (horror, dead end, a tile that would close every side),
    and near the end of the stack any tile, to bring the exit sooner (it is never discarded)."""
    if g.exit_tile < 0 and bd.tiles_left <= P.exit_in_last:
        return True
    value = tile_value(g, P, bd, g.pend_tile, g.c_tile[g.actor], g.pend_dir)
    if P.tile_type[g.pend_tile] == T_HORROR or value < 0.5:
        return True
    # uses that would otherwise be wasted: spend them over the game
    return g.scout_redraws > 0 and bd.tiles_left <= 12 * np.int64(g.scout_redraws) and value < 1.5


@jit
def choose_pick(g, P, bd):
    """The Geologist's Intuition: place the better of the drawn and the set-aside tile (the exit always); the worse
    one may stay aside for good."""
    t0, d = g.c_tile[g.actor], g.pend_dir
    drawn = tile_value(g, P, bd, g.pend_tile, t0, d)
    aside = tile_value(g, P, bd, g.aside_tile, t0, d)
    return A_PICK + (1 if aside > drawn else 0)
