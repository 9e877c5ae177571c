"""One compiled function per action kind, named for its rule ID, each with its legality test (``can_*``).

Per-game functions on ``g`` (one game's record) and ``P`` (params); ``s`` is the acting seat. A ``can_*`` test
never changes ``g``; an ``act*`` function assumes its test passed. The pack/exchange actions are in ``packing.py``.
"""

from __future__ import annotations

from .cave import any_unexplored, connected, place_boulder, place_tile, placements, rope_edge, unexplored_exits
from .jit import jit
from .layout import (
    AP,
    B_OX,
    B_ROPE,
    BANK,
    BP,
    DEPTH_TOK,
    DISCARDED,
    E_CAMERA,
    E_OX1,
    E_OX2,
    E_RAFT,
    E_ROPE,
    EXHAUSTED,
    K_BOULDER,
    K_HOME,
    K_SQUEEZE,
    K_WATER,
    K_WONDER,
    LEVELS,
    LOST,
    NK,
    P_BOULDER,
    P_NONE,
    P_PLACE,
    PEND,
    PEND_CAT,
    PEND_MASK,
    PHOTO,
    POS,
    PR_AP,
    PR_DEPTH_STEP,
    SQ,
    STACK,
    STACK_N,
    STACK_POS,
    TDEPTH,
    TKIND,
    TRAV,
    TROPE,
    TSQ,
    TTOKEN,
    WATER,
)
from .turns import end1_trigger


@jit
def free_to_act(g):
    """No decision pending and not exhausted: the ordinary actions are open."""
    return g[PEND] == P_NONE and g[EXHAUSTED] == 0


@jit
def has_oxygen(g, s):
    return g[BP + s * NK + E_OX2] + g[BP + s * NK + E_OX1] > 0


@jit
def act15_spend_oxygen(g, s):
    """R-ITC-ACT-15: a 1-tank token is spent first (back to the bank, full again), else a 2-tank one turns over."""
    if g[BP + s * NK + E_OX1] > 0:
        g[BP + s * NK + E_OX1] -= 1
        g[BANK + B_OX] += 1
    else:
        g[BP + s * NK + E_OX2] -= 1
        g[BP + s * NK + E_OX1] += 1


@jit
def ropes_needed(g, P, t, nb, d):
    """R-ITC-ACT-5: ropes to place for a move from t to nb through side d (0 when level or already roped)."""
    dd = g[TDEPTH + nb] - g[TDEPTH + t]
    if dd == 0 or (g[TROPE + t] & (1 << d)) != 0:
        return 0
    return abs(dd) // P[PR_DEPTH_STEP]


@jit
def move_cost(g, P, s, d, dive):
    """R-ITC-ACT-4/5: AP for a Move (dive: into water with oxygen) through side d, or -1 when not possible with
    the team's backpack (no connection, no raft or oxygen for water, too few ropes)."""
    t = g[POS + s]
    nb = connected(g, t, d)
    if nb < 0:
        return -1
    kind = g[TKIND + nb]
    if dive:
        if kind != K_WATER or not has_oxygen(g, s):
            return -1
        entry = 2
    elif kind == K_WATER:
        if g[BP + s * NK + E_RAFT] == 0:
            return -1
        entry = 1
    elif kind == K_SQUEEZE:
        entry = 1 + g[TSQ + nb]
    else:
        entry = 1
    k = ropes_needed(g, P, t, nb, d)
    if k > g[BP + s * NK + E_ROPE]:
        return -1
    return entry + k


@jit
def can_move(g, P, s, d, dive):
    if not free_to_act(g):
        return False
    c = move_cost(g, P, s, d, dive)
    return c >= 0 and c <= g[AP]


@jit
def act4_move(g, P, s, d, dive):
    """R-ITC-ACT-4..7, 10, 15: move (dive) through side d, placing ropes as needed; take the depth-reached token
    over new ropes, the water token when diving, the squeeze token when entering by Move."""
    t = g[POS + s]
    nb = connected(g, t, d)
    g[AP] -= move_cost(g, P, s, d, dive)
    k = ropes_needed(g, P, t, nb, d)
    if k > 0:
        g[BP + s * NK + E_ROPE] -= k
        g[LOST + B_ROPE] += k  # placed ropes never return to the bank (R-ITC-SET-6)
        rope_edge(g, t, d)
        g[TRAV + s] += k
        level = min(g[TDEPTH + nb] // P[PR_DEPTH_STEP], LEVELS - 1)
        if level > 0:
            g[DEPTH_TOK + s * LEVELS + level] = 1  # R-ITC-ACT-6 (held already: nothing more)
    g[POS + s] = nb
    if dive:
        act15_spend_oxygen(g, s)
        if g[TTOKEN + nb] != 0:  # R-ITC-ACT-7
            g[TTOKEN + nb] = 0
            g[WATER + s] += 1
    if g[TKIND + nb] == K_SQUEEZE and g[TTOKEN + nb] != 0:  # R-ITC-ACT-10
        g[TTOKEN + nb] = 0
        g[SQ + 3 * s + g[TSQ + nb] - 1] += 1


@jit
def can_crawl(g, P, s, d):
    """R-ITC-ACT-11 / TURN-3: the turn's only action, all AP unspent; any connected neighbour."""
    return g[PEND] == P_NONE and g[AP] == P[PR_AP] and connected(g, g[POS + s], d) >= 0


@jit
def act11_crawl(g, s, d):
    """R-ITC-ACT-11: enter the neighbour, no rope, no token; the turn is spent."""
    g[POS + s] = connected(g, g[POS + s], d)
    g[AP] = 0


@jit
def can_reveal(g, s):
    t = g[POS + s]
    kind = g[TKIND + t]
    return (free_to_act(g) and g[AP] >= 1 and kind != K_HOME and kind != K_BOULDER
            and unexplored_exits(g, t) != 0 and g[STACK_POS] < g[STACK_N])


@jit
def act1_reveal(g, P, s):
    """R-ITC-ACT-1/2: draw the next tile; the placement is the next decision, or a boulder choke when the tile
    fits no unexplored exit (the tile is discarded face up)."""
    g[AP] -= 1
    cat = g[STACK + g[STACK_POS]]
    g[STACK_POS] += 1
    mask = placements(g, P, g[POS + s], cat)
    if mask != 0:
        g[PEND] = P_PLACE
        g[PEND_CAT] = cat
        g[PEND_MASK] = mask
    else:
        g[DISCARDED] += 1
        g[PEND] = P_BOULDER
        g[PEND_CAT] = -1
        g[PEND_MASK] = unexplored_exits(g, g[POS + s])


@jit
def end1_check(g, P):
    """R-ITC-END-1: the last tile of stack IV was placed (or its boulder choke), or no unexplored exit is left."""
    if g[STACK_POS] >= g[STACK_N] or not any_unexplored(g):
        end1_trigger(g, P)


@jit
def can_place(g, d, r):
    return g[PEND] == P_PLACE and (g[PEND_MASK] & (1 << (4 * d + r))) != 0


@jit
def act1_place(g, P, s, d, r):
    """R-ITC-ACT-1/3: the drawn tile goes beyond exit d turned r."""
    place_tile(g, P, g[POS + s], g[PEND_CAT], d, r)
    g[PEND] = P_NONE
    g[PEND_CAT] = -1
    g[PEND_MASK] = 0
    end1_check(g, P)


@jit
def can_boulder(g, d):
    return g[PEND] == P_BOULDER and (g[PEND_MASK] & (1 << d)) != 0


@jit
def act2_boulder(g, P, s, d):
    """R-ITC-ACT-2: a boulder choke at exit d."""
    place_boulder(g, g[POS + s], d)
    g[PEND] = P_NONE
    g[PEND_MASK] = 0
    end1_check(g, P)


@jit
def can_explore_water(g, s):
    t = g[POS + s]
    return (free_to_act(g) and g[AP] >= 1 and g[TKIND + t] == K_WATER and g[TTOKEN + t] != 0
            and has_oxygen(g, s))


@jit
def act8_explore_water(g, s):
    """R-ITC-ACT-8: 1 AP + 1 oxygen: take the water token of this space."""
    g[AP] -= 1
    act15_spend_oxygen(g, s)
    g[TTOKEN + g[POS + s]] = 0
    g[WATER + s] += 1


@jit
def can_photograph(g, s):
    t = g[POS + s]
    return (free_to_act(g) and g[AP] >= 1 and g[TKIND + t] == K_WONDER and g[TTOKEN + t] != 0
            and g[BP + s * NK + E_CAMERA] > 0)


@jit
def act9_photograph(g, s):
    """R-ITC-ACT-9: 1 AP, camera in the backpack: take the photo token (the camera is kept)."""
    g[AP] -= 1
    g[TTOKEN + g[POS + s]] = 0
    g[PHOTO + s] += 1
