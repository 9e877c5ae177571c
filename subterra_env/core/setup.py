"""Setup (R-SET) of one game, compiled: the cavers, their seats and health, the stack, the hazard deck, the start
tile and the first turn. ``Core.init`` and ``Core.reset`` call ``setup_games`` for new games or for finished
slots of a running batch, in place.

Every shuffle is a per-game permutation: the argsort of draws from the game's key salted per purpose, so a game's
setup depends on its seed alone.
"""

from __future__ import annotations

import numpy as np

from .board import place
from .catalogue import C_OUT_OF_TIME
from .effects import RANK_GEOLOGIST
from .jit import jit
from .rng import draw_one, mix_one
from .state import MAX_STACK
from .turns import begin_turn

SALT_CAVERS, SALT_SEATS, SALT_STACK, SALT_EXIT, SALT_DECK = 11, 12, 13, 14, 15
_ZERO = np.uint64(0)


@jit
def permutation(key, salt, n, order, draws):
    """order[:n] = the argsort of n draws of the stream keyed by mix(key ^ salt) (draws: scratch of >= n)."""
    salted = mix_one(key ^ np.uint64(salt))
    for i in range(n):
        draws[i] = draw_one(salted, np.uint64(i))
        order[i] = i
    for i in range(1, n):  # insertion sort of the indices by their draw (n <= 128; no allocation)
        j, k = i, order[i]
        while j > 0 and draws[order[j - 1]] > draws[k]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = k


@jit
def deal_cavers(g, P, order, draws):
    """R-SET-1, R-SET-2, R-SET-6: a seeded draw of the ranks (or the fixed line-up), sorted, then seated in rank
    order or shuffled; start health by rank."""
    n = g.n_seats
    if P.fixed_ranks[0] > 0:
        for s in range(n):
            g.c_rank[s] = P.fixed_ranks[s]
    else:
        permutation(g.key, SALT_CAVERS, 8, order, draws)
        for s in range(n):
            g.c_rank[s] = order[s] + 1
        for i in range(1, n):  # sort the drawn ranks
            j, r = i, g.c_rank[i]
            while j > 0 and g.c_rank[j - 1] > r:
                g.c_rank[j] = g.c_rank[j - 1]
                j -= 1
            g.c_rank[j] = r
    if P.seat_random:
        permutation(g.key, SALT_SEATS, n, order, draws)
        for s in range(n):
            draws[s] = g.c_rank[order[s]]
        for s in range(n):
            g.c_rank[s] = draws[s]
    for s in range(n):
        g.c_max[s] = P.caver_health[g.c_rank[s] - 1]
        g.c_hp[s] = g.c_max[s]


@jit
def build_stack(g, P, order, draws):
    """R-SET-4: the shuffled cave tiles with the exit among the last exit_in_last."""
    n = P.n_cave
    permutation(g.key, SALT_STACK, n, order, draws)
    exit_at = n + 1 - P.exit_in_last + np.int64(draw_one(mix_one(g.key ^ np.uint64(SALT_EXIT)), _ZERO)
                                                % np.uint64(P.exit_in_last))
    for pos in range(n + 1):
        if pos == exit_at:
            g.stack[pos] = P.exit_id
        else:
            g.stack[pos] = order[pos if pos < exit_at else pos - 1]


@jit
def deal_hazards(g, P, order, draws):
    """R-SET-5: shuffle the pool, deal deal_size cards, Out of Time at the bottom."""
    permutation(g.key, SALT_DECK, P.pool_size, order, draws)
    for i in range(P.deal_size):
        g.deck[i] = P.deck_pool[order[i]]
    g.deck[P.deal_size] = C_OUT_OF_TIME


@jit
def setup_game(g, P, key, order, draws):
    """A new game in the slot g: every field back to its empty value, then the setup rules."""
    g.key = key
    deal_cavers(g, P, order, draws)
    build_stack(g, P, order, draws)
    deal_hazards(g, P, order, draws)
    g.ropes_left = P.rope_tokens
    g.scout_redraws = P.scout_redraws
    g.explosives = P.explosives
    for s in range(g.n_seats):
        if g.c_rank[s] == RANK_GEOLOGIST:  # R-CAV-3 Intuition: the top tile is set aside face up
            g.aside_tile = g.stack[0]
            g.stack_pos = 1
    centre = P.stack_size + 1  # R-SET-3: the start tile at the centre, every caver on it
    place(g, P, P.start_id, centre, centre, 0)
    for s in range(g.n_seats):
        g.c_tile[s] = 0
    begin_turn(g, P, g.start_seat)


@jit
def setup_games(states, params, games, keys, empty):
    """Set up games[i] with keys[i]; ``empty``: a (1,) record array holding the empty values of every field."""
    P = params[0]
    order = np.empty(max(MAX_STACK, P.pool_size, 8), dtype=np.int64)
    draws = np.empty(order.shape[0], dtype=np.uint64)
    for i in range(games.shape[0]):
        b = games[i]
        n_seats = states[b].n_seats
        states[b] = empty[0]
        states[b].n_seats = n_seats
        setup_game(states[b], P, keys[i], order, draws)
