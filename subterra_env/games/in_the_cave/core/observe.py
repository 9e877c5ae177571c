"""The observation of one team, compiled: ``grid_into`` and ``vector_into`` fill preallocated arrays from a game
record. They are the only implementation (``subterra_env.games.in_the_cave.observe`` wraps them and documents the
channels and ``VECTOR_NAMES``); compiled because the AEC env builds an observation every step, and in Python it
cost most of a step.
"""

from __future__ import annotations

import numpy as np

from subterra_env.games.sub_terra.core.catalogue import DX, DY

from .cave import tile_at
from .jit import jit
from .layout import (
    ACTOR,
    AP,
    BANK,
    BP,
    CAM_LOST,
    CAMP,
    CAMP_GONE,
    CAMP_PACKED,
    CAMPC,
    DEPTH_TOK,
    DISCARDED,
    END_LEFT,
    END_TRIG,
    EXHAUSTED,
    FIRST_PACK,
    FREE_N,
    K_BOULDER,
    K_DESCENT,
    K_PLAIN,
    LEVELS,
    MAX_SEATS,
    N_TILES,
    NK,
    P_BOULDER,
    P_PLACE,
    P_SETUP,
    PEND,
    PEND_CAT,
    PEND_MASK,
    PHOTO,
    POS,
    PR_CAT_KIND,
    PR_CAT_MASK,
    PR_CAT_SQ,
    RAFT_LOST,
    ROUND,
    SQ,
    STACK_END,
    STACK_POS,
    START,
    TBSIDE,
    TDEPTH,
    TKIND,
    TOPEN,
    TRAV,
    TROPE,
    TSQ,
    TTOKEN,
    TX,
    TY,
    WATER,
)

# grid channels (observe.py documents them)
KIND0, DEPTH_CH, TOKEN_CH, SQ_CH, ROPE0, UNEXP, ME, OTHERS, MYCAMP, CAMPS = 5, 13, 14, 15, 16, 20, 21, 22, 23, 24
N_PEND = 5  # layout.PEND_NAMES
OWN_SIZE = 2 * NK + 9 + 9 + 5  # backpack, camp, camp/lost/home flags, tokens, vp .. y
TURN_SIZE = 3 + N_PEND + 10 + 16 + 4 + 3 + 4 + 3 + 3
OTHER_SIZE = 4 + NK + 3 + NK + 9 + 1
DEPTH_VP = np.array([0, 3, 4] + [5] * (LEVELS - 3), dtype=np.int64)  # R-ITC-SCORE-1


@jit
def vp(g, s):
    """R-ITC-SCORE-1: the VP of seat s's tokens so far (without majorities)."""
    v = 2 * g[TRAV + s] + 2 * g[PHOTO + s] + 3 * g[WATER + s]
    v += 2 * g[SQ + 3 * s] + 3 * g[SQ + 3 * s + 1] + 4 * g[SQ + 3 * s + 2]
    for lv in range(LEVELS):
        if g[DEPTH_TOK + s * LEVELS + lv] != 0:
            v += DEPTH_VP[lv]
    return v


@jit
def in_setup(g):
    """The hidden initial packing is under way (R-ITC-SET-9): no team may see another's choices until all packed."""
    return g[PEND] == P_SETUP


@jit
def public_bank(g, b):
    """The bank count of pile b as every team may see it: during the hidden initial packing the count before
    anyone packed (the bank now plus every token the teams hold of that pile), since the live count gives away
    what the others took (R-ITC-SET-9); afterwards the bank itself."""
    n = g[BANK + b]
    if in_setup(g):
        for s in range(MAX_SEATS):
            for k in range(NK):
                if (k if k <= 1 else (2 if k <= 3 else -1)) == b:
                    n += g[BP + s * NK + k] + g[CAMPC + s * NK + k]
    return n


@jit
def public_camp(g, seat, s):
    """Team s's camp (a tile, CAMP_PACKED or CAMP_GONE) as team ``seat`` sees it: during the hidden initial
    packing another team's camp shows where it starts, unpacked on the home base (R-ITC-SET-8), so whether it was
    packed stays hidden (R-ITC-SET-9)."""
    if s != seat and in_setup(g):
        return 0
    return g[CAMP + s]


@jit
def grid_into(g, seat, radius, cx, cy, seats, out):
    """Fill ``out`` (GRID_CHANNELS, 2R+1, 2R+1) int8 with the window around cell (cx, cy) as ``seat`` sees it."""
    out[:] = 0
    w = 2 * radius + 1
    for t in range(g[N_TILES]):
        x, y = g[TX + t] - cx + radius, g[TY + t] - cy + radius
        if x < 0 or x >= w or y < 0 or y >= w:
            continue
        kind, opened = g[TKIND + t], g[TOPEN + t]
        sides = (1 << g[TBSIDE + t]) if kind == K_BOULDER else opened
        out[0, y, x] = 1
        unexplored = 0
        for d in range(4):
            out[1 + d, y, x] = (sides >> d) & 1
            out[ROPE0 + d, y, x] = (g[TROPE + t] >> d) & 1
            if (opened >> d) & 1 and tile_at(g, g[TX + t] + DX[d], g[TY + t] + DY[d]) < 0:
                unexplored += 1
        out[KIND0 + kind, y, x] = 1
        out[DEPTH_CH, y, x] = min(g[TDEPTH + t] // 25, 127)
        out[TOKEN_CH, y, x] = g[TTOKEN + t]
        out[SQ_CH, y, x] = g[TSQ + t]
        out[UNEXP, y, x] = unexplored
    for s in range(seats):
        for which in range(2):
            t = g[POS + s] if which == 0 else public_camp(g, seat, s)
            if t < 0:
                continue
            x, y = g[TX + t] - cx + radius, g[TY + t] - cy + radius
            if 0 <= x < w and 0 <= y < w:
                if which == 0:
                    out[ME if s == seat else OTHERS, y, x] += 1
                else:
                    out[MYCAMP if s == seat else CAMPS, y, x] += 1


@jit
def _tokens_into(g, s, v, i):
    """trav, water, photo, squeeze 1-3, depth 25 / 50 / 75+ of seat s into v[i:i + 9]; returns i + 9."""
    v[i], v[i + 1], v[i + 2] = g[TRAV + s], g[WATER + s], g[PHOTO + s]
    for k in range(3):
        v[i + 3 + k] = g[SQ + 3 * s + k]
    base = DEPTH_TOK + s * LEVELS
    v[i + 6], v[i + 7] = g[base + 1], g[base + 2]
    deep = 0
    for lv in range(3, LEVELS):
        deep += g[base + lv]
    v[i + 8] = deep
    return i + 9


@jit
def _camp_flags_into(g, seat, s, v, i):
    c = public_camp(g, seat, s)
    v[i], v[i + 1], v[i + 2] = int(c == CAMP_PACKED), int(c >= 0), int(c == CAMP_GONE)
    return i + 3


@jit
def vector_into(g, P, seat, seats, v):
    """Fill ``v`` (VECTOR_SIZE,) int64 with ``seat``'s vector (observe.VECTOR_NAMES), unclipped."""
    v[:] = 0
    pos = g[POS + seat]
    px, py = g[TX + pos], g[TY + pos]
    camp = g[CAMP + seat]
    i = 0
    for k in range(NK):
        v[i + k] = g[BP + seat * NK + k]
        v[i + NK + k] = g[CAMPC + seat * NK + k]
    i = 2 * NK
    v[i] = int(camp == CAMP_PACKED)
    v[i + 1], v[i + 2] = int(camp == pos), int(camp == CAMP_GONE)
    if camp >= 0:
        v[i + 3], v[i + 4] = g[TX + camp] - px, g[TY + camp] - py
    cam_lost, raft_lost = g[CAM_LOST + seat], g[RAFT_LOST + seat]
    v[i + 5], v[i + 6] = cam_lost, raft_lost
    v[i + 7] = int(cam_lost == 0 and g[BP + seat * NK + 4] == 0 and g[CAMPC + seat * NK + 4] == 0)
    v[i + 8] = int(raft_lost == 0 and g[BP + seat * NK + 5] == 0 and g[CAMPC + seat * NK + 5] == 0)
    i = _tokens_into(g, seat, v, i + 9)
    v[i], v[i + 1], v[i + 2], v[i + 3], v[i + 4] = vp(g, seat), g[FIRST_PACK + seat], g[TDEPTH + pos] // 25, px, py
    i += 5
    # the turn block
    my_turn = g[ACTOR] == seat
    pend = g[PEND] if my_turn else 0
    v[i] = int(my_turn)
    if my_turn:
        v[i + 1], v[i + 2] = g[AP], g[EXHAUSTED]
    v[i + 3 + pend] = 1
    i += 3 + N_PEND
    cat = g[PEND_CAT]
    if cat >= 0:  # the drawn tile is public (R-ITC-ACT-1): kind, base open sides, squeeze difficulty
        kind = P[PR_CAT_KIND + cat]
        if K_PLAIN <= kind <= K_DESCENT:
            v[i + kind - K_PLAIN] = 1
        for d in range(4):
            v[i + 5 + d] = (P[PR_CAT_MASK + cat] >> d) & 1
        v[i + 9] = P[PR_CAT_SQ + cat]
    i += 10
    pmask = g[PEND_MASK] if my_turn else 0
    for b in range(16):
        v[i + b] = (pmask >> b) & 1 if pend == P_PLACE else 0
    for b in range(4):
        v[i + 16 + b] = (pmask >> b) & 1 if pend == P_BOULDER else 0
    i += 20
    v[i], v[i + 1], v[i + 2] = g[ROUND], g[END_TRIG], g[END_LEFT]
    i += 3
    at, start = g[STACK_POS], 0
    for st in range(4):
        end = g[STACK_END + st]
        v[i + st] = max(0, end - max(at, start))
        start = end
    i += 4
    v[i] = g[DISCARDED]
    v[i + 1] = g[FREE_N] if my_turn else 0
    v[i + 2] = (g[START] - seat) % seats
    for b in range(3):
        v[i + 3 + b] = public_bank(g, b)
    i += 6
    # one block per other team, in seat order after this one (zeros where no team sits)
    setup = in_setup(g)  # the initial packing is hidden until all have packed (R-ITC-SET-9)
    for k in range(1, MAX_SEATS):
        if k < seats:
            s = (seat + k) % seats
            t = g[POS + s]
            v[i], v[i + 1], v[i + 2], v[i + 3] = 1, g[TX + t] - px, g[TY + t] - py, int(t == 0)
            if not setup:
                for e in range(NK):
                    v[i + 4 + e] = g[BP + s * NK + e]
                    v[i + 4 + NK + 3 + e] = g[CAMPC + s * NK + e]
            _camp_flags_into(g, seat, s, v, i + 4 + NK)
            j = _tokens_into(g, s, v, i + 4 + 2 * NK + 3)
            v[j] = vp(g, s)
        i += OTHER_SIZE


@jit
def vector16_into(g, P, seat, seats, out):
    """``vector_into``, clipped to -1000..1000 into the int16 ``out`` (the observation's dtype)."""
    v = np.zeros(out.shape[0], dtype=np.int64)
    vector_into(g, P, seat, seats, v)
    for i in range(out.shape[0]):
        out[i] = min(max(v[i], -1000), 1000)
