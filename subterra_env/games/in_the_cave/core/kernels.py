"""The compiled entry points: legality and dispatch of one action (``legal``, ``apply``), the turn flow after it
(``settle``), and the batch kernels (batch axis first) that the Python ``ItcCore`` calls.

Codes returned per game by ``step_batch``: 0 done, 1 illegal action (the game is unchanged), 2 the game was
already over.
"""

from __future__ import annotations

import numpy as np

from subterra_env.games.sub_terra.core.rng import draw_one

from .actions import (
    A_BOULDER,
    A_CAMP_ABANDON,
    A_CAMP_PLACE,
    A_CAMP_REPACK,
    A_CAMP_RETURN,
    A_CAMP_TAKE,
    A_CRAWL,
    A_DISCARD,
    A_DIVE,
    A_END,
    A_EXPLORE,
    A_FROM_CAMP,
    A_MOVE,
    A_PACK,
    A_PACK_DONE,
    A_PHOTO,
    A_PLACE,
    A_RETURN,
    A_REVEAL,
    A_TAKE,
    A_TO_CAMP,
    NUM_ACTIONS,
    TAKE_KINDS,
)
from .borrow import borrowed
from .jit import jit
from .layout import (
    ACTOR,
    AP,
    BP,
    CAMP,
    CAMPC,
    K_WATER,
    NK,
    POS,
    PR_AP,
    TKIND,
    P_BOULDER,
    P_PLACE,
    PEND_MASK,
    EXHAUSTED,
    FREE_N,
    OVER,
    P_NONE,
    P_PACK,
    P_SETUP,
    PEND,
    PR_SEATS,
    ROUND,
    RUNNING,
    START,
    STEPS,
)
from .cave import connected
from .packing import (
    act12_pack,
    act12_return,
    act12_take,
    act13_camp_abandon,
    act13_camp_exchange,
    act13_camp_place,
    act13_camp_repack,
    act14_discard,
    can_camp_abandon,
    can_camp_exchange,
    can_camp_place,
    can_camp_repack,
    can_discard,
    can_pack,
    can_return,
    can_take,
    free_left,
)
from .rules import (
    act1_place,
    act1_reveal,
    act2_boulder,
    act4_move,
    act8_explore_water,
    act9_photograph,
    act11_crawl,
    can_boulder,
    can_crawl,
    can_explore_water,
    can_move,
    can_photograph,
    can_place,
    can_reveal,
)
from .setup import init_game
from .turns import HOME, turn1_next, turn4_begin


@jit
def any_crawl(g, P, s):
    for d in range(4):
        if can_crawl(g, P, s, d):
            return True
    return False


@jit
def legal(g, P, a):
    """Action a is legal for the actor now."""
    if g[OVER] != RUNNING or a < 0 or a >= NUM_ACTIONS:
        return False
    s = g[ACTOR]
    if g[EXHAUSTED] != 0 and g[PEND] == P_NONE:  # R-ITC-TURN-3: Crawl only, and must when it can
        if A_CRAWL <= a < A_CRAWL + 4:
            return can_crawl(g, P, s, a - A_CRAWL)
        return a == A_END and not any_crawl(g, P, s)
    if a == A_END:
        return g[PEND] == P_NONE
    if a < A_DIVE:
        return can_move(g, P, s, a - A_MOVE, False)
    if a < A_CRAWL:
        return can_move(g, P, s, a - A_DIVE, True)
    if a < A_REVEAL:
        return can_crawl(g, P, s, a - A_CRAWL)
    if a == A_REVEAL:
        return can_reveal(g, s)
    if a < A_BOULDER:
        return can_place(g, (a - A_PLACE) // 4, (a - A_PLACE) % 4)
    if a < A_EXPLORE:
        return can_boulder(g, a - A_BOULDER)
    if a == A_EXPLORE:
        return can_explore_water(g, s)
    if a == A_PHOTO:
        return can_photograph(g, s)
    if a == A_CAMP_PLACE:
        return can_camp_place(g, s)
    if a == A_CAMP_REPACK:
        return can_camp_repack(g, P, s)
    if a == A_CAMP_ABANDON:
        return can_camp_abandon(g, s)
    if a == A_PACK:
        return can_pack(g, s)
    if a < A_RETURN:
        return can_take(g, P, s, TAKE_KINDS[a - A_TAKE], False)
    if a < A_CAMP_TAKE:
        return can_return(g, P, s, a - A_RETURN, False)
    if a < A_CAMP_RETURN:
        return can_take(g, P, s, TAKE_KINDS[a - A_CAMP_TAKE], True)
    if a < A_PACK_DONE:
        return can_return(g, P, s, a - A_CAMP_RETURN, True)
    if a == A_PACK_DONE:
        return g[PEND] == P_PACK or g[PEND] == P_SETUP
    if a < A_FROM_CAMP:
        return can_camp_exchange(g, P, s, a - A_TO_CAMP, True)
    if a < A_DISCARD:
        return can_camp_exchange(g, P, s, a - A_FROM_CAMP, False)
    return can_discard(g, P, s, a - A_DISCARD)


@jit
def apply(g, P, a):
    """Carry out legal action a (unchecked), then the turn flow."""
    s = g[ACTOR]
    g[STEPS] += 1
    if a == A_END:
        turn1_next(g, P)
    elif a < A_DIVE:
        act4_move(g, P, s, a - A_MOVE, False)
    elif a < A_CRAWL:
        act4_move(g, P, s, a - A_DIVE, True)
    elif a < A_REVEAL:
        act11_crawl(g, s, a - A_CRAWL)
        turn1_next(g, P)  # the whole turn
    elif a == A_REVEAL:
        act1_reveal(g, P, s)
    elif a < A_BOULDER:
        act1_place(g, P, s, (a - A_PLACE) // 4, (a - A_PLACE) % 4)
    elif a < A_EXPLORE:
        act2_boulder(g, P, s, a - A_BOULDER)
    elif a == A_EXPLORE:
        act8_explore_water(g, s)
    elif a == A_PHOTO:
        act9_photograph(g, s)
    elif a == A_CAMP_PLACE:
        act13_camp_place(g, s)
    elif a == A_CAMP_REPACK:
        act13_camp_repack(g, s)
    elif a == A_CAMP_ABANDON:
        act13_camp_abandon(g, s)
    elif a == A_PACK:
        act12_pack(g)
    elif a < A_RETURN:
        act12_take(g, s, TAKE_KINDS[a - A_TAKE], False)
    elif a < A_CAMP_TAKE:
        act12_return(g, s, a - A_RETURN, False)
    elif a < A_CAMP_RETURN:
        act12_take(g, s, TAKE_KINDS[a - A_CAMP_TAKE], True)
    elif a < A_PACK_DONE:
        act12_return(g, s, a - A_CAMP_RETURN, True)
    elif a == A_PACK_DONE:
        pack_done(g, P)
    elif a < A_FROM_CAMP:
        act13_camp_exchange(g, s, a - A_TO_CAMP, True)
    elif a < A_DISCARD:
        act13_camp_exchange(g, s, a - A_FROM_CAMP, False)
    else:
        act14_discard(g, s, a - A_DISCARD)
    settle(g, P)


@jit
def pack_done(g, P):
    """End an exchange session; in the initial packing (R-ITC-SET-9) the next seat packs, and after the last one
    the start player's first turn begins."""
    if g[PEND] == P_PACK:
        g[PEND] = P_NONE
        return
    if g[ACTOR] + 1 < P[PR_SEATS]:
        g[ACTOR] += 1
        g[FREE_N] = 0
    else:
        g[ROUND] = 1
        turn4_begin(g, P, g[START])


@jit
def only_end(g, P):
    """Nothing but End turn is legal (the turn then ends by itself: a spent or stuck team, R-ITC-TURN-3/4).
    Only asked with no decision pending (``settle``)."""
    if g[EXHAUSTED] != 0:
        return not any_crawl(g, P, g[ACTOR])
    return not turn_actions(g, P, g[ACTOR], np.empty(NUM_ACTIONS, dtype=np.uint8), True)


@jit
def settle(g, P):
    """Pass every turn in which the actor could only end it."""
    while g[OVER] == RUNNING and g[PEND] == P_NONE and only_end(g, P):
        turn1_next(g, P)


@jit
def mark(out, a, ok):
    out[a] = 1 if ok else 0
    return ok


@jit
def turn_actions(g, P, s, out, ask):
    """The actions of an ordinary turn step (no decision pending, not exhausted), End turn aside: marks the legal
    ones in ``out`` (an entry it skips is left alone: 0 in ``mask_into``) and returns whether there is one.
    ``ask``: stop at the first legal one (the likeliest come first). Each answer is ``legal``'s own test
    (``can_*``); a test is skipped only when a field it needs rules it out (no connection, no AP, no free action
    left, nothing of that kind): a call with the record costs tens of ns (numba counts references to its arrays),
    the skipped ones were most of the mask's time."""
    any_ok = False
    t, ap = g[POS + s], g[AP]
    for d in range(4):
        nb = connected(g, t, d)
        if nb < 0:  # Move, Dive and Crawl all go through a connection
            continue
        if ap > 0:  # a Move or a Dive costs at least 1 AP
            any_ok |= mark(out, A_MOVE + d, can_move(g, P, s, d, False))
            if g[TKIND + nb] == K_WATER:
                any_ok |= mark(out, A_DIVE + d, can_move(g, P, s, d, True))
        if ap == P[PR_AP]:  # Crawl is a whole turn
            any_ok |= mark(out, A_CRAWL + d, can_crawl(g, P, s, d))
        if any_ok and ask:
            return True
    if free_left(g, P):  # the 0-AP exchanges and discards are capped per turn
        camp_here = g[CAMP + s] == t
        for k in range(NK):
            if g[BP + s * NK + k] > 0:
                any_ok |= mark(out, A_DISCARD + k, can_discard(g, P, s, k))
                if camp_here:
                    any_ok |= mark(out, A_TO_CAMP + k, can_camp_exchange(g, P, s, k, True))
            if camp_here and g[CAMPC + s * NK + k] > 0:
                any_ok |= mark(out, A_FROM_CAMP + k, can_camp_exchange(g, P, s, k, False))
        if any_ok and ask:
            return True
    if ap > 0:  # each costs at least 1 AP
        any_ok |= mark(out, A_REVEAL, can_reveal(g, s))
        any_ok |= mark(out, A_EXPLORE, can_explore_water(g, s))
        any_ok |= mark(out, A_PHOTO, can_photograph(g, s))
        any_ok |= mark(out, A_CAMP_PLACE, can_camp_place(g, s))
        any_ok |= mark(out, A_PACK, can_pack(g, s))
    any_ok |= mark(out, A_CAMP_REPACK, can_camp_repack(g, P, s))  # free the first time at home
    any_ok |= mark(out, A_CAMP_ABANDON, can_camp_abandon(g, s))
    return any_ok


@jit
def packing_actions(g, P, s, out):
    """An exchange session (R-ITC-ACT-12, the initial packing SET-9): bank and camp exchanges, done packing, and
    (initial packing only) the camp's free first packing. As in ``turn_actions``, a test is skipped only when a
    field it needs rules it out (no free action left, nothing of that kind to return, the camp not at home)."""
    if free_left(g, P):
        camp_home = g[CAMP + s] == HOME
        for i in range(TAKE_KINDS.shape[0]):
            out[A_TAKE + i] = can_take(g, P, s, TAKE_KINDS[i], False)
            if camp_home:
                out[A_CAMP_TAKE + i] = can_take(g, P, s, TAKE_KINDS[i], True)
        for k in range(NK):
            if g[BP + s * NK + k] > 0:
                out[A_RETURN + k] = can_return(g, P, s, k, False)
            if camp_home and g[CAMPC + s * NK + k] > 0:
                out[A_CAMP_RETURN + k] = can_return(g, P, s, k, True)
    out[A_PACK_DONE] = 1
    out[A_CAMP_REPACK] = can_camp_repack(g, P, s)


@jit
def mask_into(g, P, out):
    """out[a] = legal(g, P, a) for every action (``tests/test_itc_mask.py`` holds it to that), testing only the
    actions the pending decision allows: a mid-game mask costs a few tests instead of 81."""
    out[:] = 0
    if g[OVER] != RUNNING:
        return
    s, pend = g[ACTOR], g[PEND]
    if pend == P_NONE and g[EXHAUSTED] != 0:  # R-ITC-TURN-3: Crawl only, and must when it can
        for d in range(4):
            out[A_CRAWL + d] = can_crawl(g, P, s, d)
        out[A_END] = not any_crawl(g, P, s)
    elif pend == P_NONE:
        out[A_END] = 1
        turn_actions(g, P, s, out, False)
    elif pend == P_PLACE:
        for i in range(16):
            out[A_PLACE + i] = (g[PEND_MASK] >> i) & 1
    elif pend == P_BOULDER:
        for d in range(4):
            out[A_BOULDER + d] = (g[PEND_MASK] >> d) & 1
    else:
        packing_actions(g, P, s, out)


@jit
def init_batch(G, P, keys):
    """(B, N) records of new games from (B,) uint64 keys."""
    G, P = borrowed(G), borrowed(P)
    for b in range(G.shape[0]):
        init_game(G[b], P, keys[b])
        settle(G[b], P)


@jit
def step_batch(G, P, actions, codes):
    """One action per game; codes[b] as in the module docstring. Illegal actions leave their game unchanged."""
    G, P = borrowed(G), borrowed(P)
    for b in range(G.shape[0]):
        g = G[b]
        if g[OVER] != RUNNING:
            codes[b] = 2
        elif not legal(g, P, actions[b]):
            codes[b] = 1
        else:
            apply(g, P, actions[b])
            codes[b] = 0


@jit
def mask_batch(G, P, out):
    """(B, NUM_ACTIONS) uint8 legal actions of each game's actor (all 0 once over)."""
    G, P, out = borrowed(G), borrowed(P), borrowed(out)
    for b in range(G.shape[0]):
        mask_into(G[b], P, out[b])


@jit
def random_playout(G, P, keys, max_steps):
    """Play every game with uniformly random legal actions (counter-based per game, so batch-independent);
    returns the steps taken per game. For tests and benchmarks."""
    G, P = borrowed(G), borrowed(P)
    B = G.shape[0]
    steps = np.zeros(B, dtype=np.int64)
    mask = np.zeros(NUM_ACTIONS, dtype=np.uint8)
    from_key = np.uint64(1000)
    for b in range(B):
        g = G[b]
        while g[OVER] == RUNNING and steps[b] < max_steps:
            mask_into(g, P, mask)
            n = 0
            for a in range(NUM_ACTIONS):
                n += mask[a]
            pick = np.int64(draw_one(keys[b], from_key + np.uint64(steps[b])) % np.uint64(n))
            for a in range(NUM_ACTIONS):
                if mask[a]:
                    if pick == 0:
                        apply(g, P, a)
                        break
                    pick -= 1
            steps[b] += 1
    return steps
