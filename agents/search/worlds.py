"""Worlds consistent with what every player knows: a copy of a game whose hidden parts are drawn afresh.

A player sees the cave, the cavers, the cards already drawn and the counts of tiles and cards left, not their order,
nor the dice to come. A sampled world keeps everything public and redraws the rest (``sample_world``):

* the stack: the tiles not drawn yet (as a multiset they are public: the box less every tile seen) in a new order,
  with the exit, if it is still in the stack, among the last ``exit_in_last`` positions as R-SET-4 puts it (its
  place uniform over those not drawn yet);
* the hazard deck: the cards not drawn yet are a fresh draw, without replacement, from the pool less the cards
  already drawn (which of the pool's cards were dealt is hidden too), Out of Time still at the bottom (R-SET-5);
* the dice: a new random key and counter, and no scripted dice.

Everything the sample uses is read in an order-free way (sorted multisets, counts), so permuting the real game's
hidden orders or giving it other future dice cannot change a sampled world.
"""

from __future__ import annotations

import numpy as np

from subterra_env.games.sub_terra.core.catalogue import C_OUT_OF_TIME
from subterra_env.games.sub_terra.core.rng import draw_one, mix_one
from subterra_env.games.sub_terra.core.setup import permutation
from subterra_env.games.sub_terra.core.state import FORCED, MAX_STACK

from .jit import jit

SALT_WORLD_STACK, SALT_WORLD_EXIT, SALT_WORLD_DECK, SALT_WORLD_DICE = 101, 102, 103, 104
MAX_CODES = 11  # hazard card codes (catalogue.CARD_NAMES)
SCRATCH = 128  # >= the most tiles in a stack and cards in a pool (params.MAX_POOL)


@jit
def sort_small(a, n):
    """Insertion sort of a[:n] in place."""
    for i in range(1, n):
        j, x = i, a[i]
        while j > 0 and a[j - 1] > x:
            a[j] = a[j - 1]
            j -= 1
        a[j] = x


@jit
def resample_stack(g, P, key, pool, order, draws):
    """The tiles not drawn yet in a new order; the exit among the allowed last positions not drawn yet."""
    last = P.n_cave  # the stack holds positions 0..n_cave (the cave tiles and the exit)
    pos = np.int64(g.stack_pos)
    m = 0
    has_exit = False
    for i in range(pos, last + 1):
        if g.stack[i] == P.exit_id:
            has_exit = True
        else:
            pool[m] = g.stack[i]
            m += 1
    sort_small(pool, m)
    permutation(key, SALT_WORLD_STACK, m, order, draws)
    exit_at = -1
    if has_exit:
        lo = max(pos, last + 1 - P.exit_in_last)
        span = np.uint64(last + 1 - lo)
        exit_at = lo + np.int64(draw_one(mix_one(key ^ np.uint64(SALT_WORLD_EXIT)), np.uint64(0)) % span)
    j = 0
    for i in range(pos, last + 1):
        if i == exit_at:
            g.stack[i] = P.exit_id
        else:
            g.stack[i] = pool[order[j]]
            j += 1


@jit
def resample_deck(g, P, key, pool, order, draws):
    """The cards not drawn yet: a fresh draw from the pool less the cards already drawn, Out of Time last."""
    pos = np.int64(g.deck_pos)
    left = P.deal_size - pos
    if left <= 0:
        return
    counts = np.zeros(MAX_CODES, np.int64)
    for i in range(P.pool_size):
        counts[P.deck_pool[i]] += 1
    for i in range(pos):
        if g.deck[i] >= 0 and g.deck[i] != C_OUT_OF_TIME:
            counts[g.deck[i]] -= 1
    m = 0
    for code in range(MAX_CODES):
        for _ in range(max(counts[code], 0)):
            pool[m] = code
            m += 1
    permutation(key, SALT_WORLD_DECK, m, order, draws)
    for i in range(min(left, m)):
        g.deck[pos + i] = pool[order[i]]
    g.deck[P.deal_size] = C_OUT_OF_TIME


@jit
def sample_world(g, P, key, pool, order, draws):
    """Redraw game g's hidden parts in place from ``key`` (see the module docstring)."""
    resample_stack(g, P, key, pool, order, draws)
    resample_deck(g, P, key, pool, order, draws)
    g.key = mix_one(key ^ np.uint64(SALT_WORLD_DICE))
    g.ctr = np.uint64(0)  # the dice counter is hidden too (its stream with a new key starts afresh)
    for i in range(FORCED):
        g.forced[i] = 0


@jit
def sample_worlds(states, params, keys):
    """sample_world for every game of a batch (keys[b] for game b)."""
    pool = np.empty(max(SCRATCH, MAX_STACK), np.int64)
    order = np.empty(pool.shape[0], np.int64)
    draws = np.empty(pool.shape[0], np.uint64)
    for b in range(states.shape[0]):
        sample_world(states[b], params[0], keys[b], pool, order, draws)
