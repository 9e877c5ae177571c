"""Turns, upkeep and exhaustion (R-ITC-TURN), the end of the game (R-ITC-END) and scoring (R-ITC-SCORE).

Compiled per-game functions on ``g`` (one game's record) and ``P`` (params), as in ``cave.py``.
"""

from __future__ import annotations

import numpy as np

from .jit import jit
from .layout import (
    ACTOR,
    AP,
    B_CONS,
    BANK,
    BP,
    CAMP,
    CAMPC,
    DEPTH_TOK,
    E_CONS,
    END_LEFT,
    END_TRIG,
    ENDED,
    EXHAUSTED,
    FREE_N,
    LEVELS,
    NK,
    OVER,
    P_NONE,
    PEND,
    PEND_CAT,
    PEND_MASK,
    PHOTO,
    POS,
    PR_AP,
    PR_END_ROUNDS,
    PR_MAX_ROUNDS,
    PR_SEATS,
    ROUND,
    SCORE,
    SQ,
    START,
    TRAV,
    TRUNCATED,
    WATER,
    WIN,
)

HOME = 0  # tile index of the home base


@jit
def turn2_upkeep(g, s):
    """R-ITC-TURN-2/3: a team off the home base discards 1 consumable, from its backpack, else from its own camp on
    its space; returns False when it cannot (exhausted)."""
    if g[POS + s] == HOME:
        return True
    if g[BP + s * NK + E_CONS] > 0:
        g[BP + s * NK + E_CONS] -= 1
        g[BANK + B_CONS] += 1
        return True
    if g[CAMP + s] == g[POS + s] and g[CAMPC + s * NK + E_CONS] > 0:
        g[CAMPC + s * NK + E_CONS] -= 1
        g[BANK + B_CONS] += 1
        return True
    return False


@jit
def turn4_begin(g, P, s):
    """R-ITC-TURN-2..4: seat s starts its turn: upkeep, then 5 AP (or exhausted: Crawl only)."""
    g[ACTOR] = s
    g[AP] = P[PR_AP]
    g[FREE_N] = 0
    g[PEND] = P_NONE
    g[PEND_CAT] = -1
    g[PEND_MASK] = 0
    g[EXHAUSTED] = 0 if turn2_upkeep(g, s) else 1


@jit
def end1_trigger(g, P):
    """R-ITC-END-1/2: the trigger (once): the current turn is finished, the round completes, then
    ``end_rounds`` more full rounds."""
    if g[END_TRIG] == 0:
        g[END_TRIG] = 1
        g[END_LEFT] = P[PR_END_ROUNDS]


@jit
def turn1_next(g, P):
    """R-ITC-TURN-1, END-2/4: pass the turn clockwise; at the round's end count down the final rounds or truncate."""
    n = P[PR_SEATS]
    s = (g[ACTOR] + 1) % n
    if s == g[START]:
        if g[END_TRIG] != 0:
            if g[END_LEFT] == 0:
                end3_finish(g, P)
                return
            g[END_LEFT] -= 1
        if g[ROUND] >= P[PR_MAX_ROUNDS]:
            g[OVER] = TRUNCATED
            g[ACTOR] = -1
            return
        g[ROUND] += 1
    turn4_begin(g, P, s)


@jit
def depth_vp(level):
    """R-ITC-SCORE-1: a depth-reached token of 25 m is 3 VP, 50 m 4, 75 m or deeper 5."""
    if level <= 0:
        return 0
    if level == 1:
        return 3
    if level == 2:
        return 4
    return 5


@jit
def score1_vp(g, s):
    """R-ITC-SCORE-1: the VP of seat s's exploration and depth tokens."""
    v = 2 * g[TRAV + s] + 2 * g[PHOTO + s] + 3 * g[WATER + s]
    v += 2 * g[SQ + 3 * s] + 3 * g[SQ + 3 * s + 1] + 4 * g[SQ + 3 * s + 2]
    for lv in range(1, LEVELS):
        if g[DEPTH_TOK + s * LEVELS + lv] != 0:
            v += depth_vp(lv)
    return v


@jit
def category(g, s, c):
    """Tokens of seat s in majority category c: traverse line, water, photo, squeeze (any difficulty)."""
    if c == 0:
        return g[TRAV + s]
    if c == 1:
        return g[WATER + s]
    if c == 2:
        return g[PHOTO + s]
    return g[SQ + 3 * s] + g[SQ + 3 * s + 1] + g[SQ + 3 * s + 2]


@jit
def score2_majorities(g, P, bonus, alive):
    """R-ITC-SCORE-2: add each category's majority bonuses into ``bonus`` (per seat) among the ``alive`` seats
    holding at least one token: sole most 8, sole second 4; two tied for most 4 each; more tied, nothing."""
    n = P[PR_SEATS]
    for c in range(4):
        best = 0
        for s in range(n):
            if alive[s] and category(g, s, c) > best:
                best = category(g, s, c)
        if best == 0:
            continue
        n_best = 0
        for s in range(n):
            if alive[s] and category(g, s, c) == best:
                n_best += 1
        if n_best == 1:
            second = 0
            for s in range(n):
                v = category(g, s, c)
                if alive[s] and v < best and v > second:
                    second = v
            n_second = 0
            for s in range(n):
                if alive[s] and second > 0 and category(g, s, c) == second:
                    n_second += 1
            for s in range(n):
                if alive[s] and category(g, s, c) == best:
                    bonus[s] += 8
                elif alive[s] and n_second == 1 and category(g, s, c) == second:
                    bonus[s] += 4
        elif n_best == 2:
            for s in range(n):
                if alive[s] and category(g, s, c) == best:
                    bonus[s] += 4


@jit
def end3_finish(g, P):
    """R-ITC-SCORE-3/4, END-3: score every team (a team off the home base is eliminated: 0, and out of the
    majorities) and mark the winners (highest score among the others; ties share; none if all are eliminated)."""
    n = P[PR_SEATS]
    alive = np.zeros(5, dtype=np.bool_)
    bonus = np.zeros(5, dtype=np.int64)
    for s in range(n):
        alive[s] = g[POS + s] == HOME
    score2_majorities(g, P, bonus, alive)
    best = -1
    for s in range(n):
        g[SCORE + s] = score1_vp(g, s) + bonus[s] if alive[s] else 0
        if alive[s] and g[SCORE + s] > best:
            best = g[SCORE + s]
    for s in range(n):
        g[WIN + s] = 1 if alive[s] and g[SCORE + s] == best else 0
    g[OVER] = ENDED
    g[ACTOR] = -1
