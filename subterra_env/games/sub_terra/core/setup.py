"""Setup (R-SET) of one game, compiled: the cavers, their seats and health, the stack, the hazard deck, the start
tile and the first turn. ``Core.init`` and ``Core.reset`` call ``setup_games`` for new games or for finished
slots of a running batch, in place.

Every shuffle is a per-game permutation: the argsort of draws from the game's key salted per purpose, so a game's
setup depends on its seed alone.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .board import count_open_sides, place
from .catalogue import (BIOSAMPLES, BIT, BOMBS, C_OUT_OF_TIME, DX, DY, NUM_ITEMS, OPPOSITE, ROT_MASK, SC_ANNIHILATION,
                        SC_INVESTIGATION)
from .effects import RANK_GEOLOGIST
from .jit import jit
from .rng import draw_one, mix_one, seed_key
from .state import MAX_STACK
from .turns import begin_turn

SALT_CAVERS, SALT_SEATS, SALT_STACK, SALT_EXIT, SALT_DECK = 11, 12, 13, 14, 15
SALT_BOMB_PILES, SALT_BOMB_SEATS, SALT_EXIT_SIDE = 16, 17, 18  # Annihilation (R-ANN-1, R-ANN-3, R-ANN-5)
SALT_SAMPLE_SEATS = 19  # Extraction (R-EXT-9)
SALT_ITEMS = 20  # Investigation (R-INV-2)
ANN_REMOVED = 18  # R-ANN-3: config.ANNIHILATION_REMOVED
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
    """R-SET-4: the shuffled cave tiles with the exit among the last exit_in_last. Extraction (R-EXT-1): its 2
    horror tiles and the sanctuary are among the cave tiles, and the top 3 of the shuffle are removed unseen
    before the exit goes in (``stack_removed``; 0 in the base game)."""
    permutation(g.key, SALT_STACK, P.n_cave, order, draws)
    cut = P.stack_removed
    n = P.n_cave - cut
    exit_at = n + 1 - P.exit_in_last + np.int64(draw_one(mix_one(g.key ^ np.uint64(SALT_EXIT)), _ZERO)
                                                % np.uint64(P.exit_in_last))
    for pos in range(n + 1):
        if pos == exit_at:
            g.stack[pos] = P.exit_id
        else:
            g.stack[pos] = order[cut + (pos if pos < exit_at else pos - 1)]


@jit
def seeded_below(g, salt, i, n):
    """A seeded integer in 0..n-1: the i-th draw of the game's stream salted for one purpose."""
    return np.int64(draw_one(mix_one(g.key ^ np.uint64(salt)), np.uint64(i)) % np.uint64(n))


@jit
def insert_into_stack(g, pos, end, cat_id):
    """Put cat_id at stack position pos, shifting stack[pos:end] down by one."""
    for k in range(end, pos, -1):
        g.stack[k] = g.stack[k - 1]
    g.stack[pos] = cat_id


@jit
def build_annihilation_stack(g, P, order, draws):
    """R-ANN-3: the cave and unstable tiles shuffled, the top 18 removed unseen, the rest split top to bottom into
    piles P1..P4 (a remainder one each to the first piles); a bomb shuffled into P2, one into P3, and the third
    among the bottom 5 tiles of P4; restacked P1..P4."""
    permutation(g.key, SALT_STACK, P.n_plain, order, draws)
    rest = P.n_plain - ANN_REMOVED
    for k in range(rest):
        g.stack[k] = order[ANN_REMOVED + k]
    # pile p starts at start[p] in the final stack; each bomb before it shifts it by one
    size1 = rest // 4 + (1 if rest % 4 > 0 else 0)
    size2 = rest // 4 + (1 if rest % 4 > 1 else 0)
    size3 = rest // 4 + (1 if rest % 4 > 2 else 0)
    p2 = size1
    insert_into_stack(g, p2 + seeded_below(g, SALT_BOMB_PILES, 0, size2 + 1), rest, P.n_plain)
    p3 = size1 + size2 + 1
    insert_into_stack(g, p3 + seeded_below(g, SALT_BOMB_PILES, 1, size3 + 1), rest + 1, P.n_plain + 1)
    end = rest + 2  # the last tile of P4 is at end - 1; the third bomb goes among its bottom 5: 6 places
    insert_into_stack(g, end - 5 + seeded_below(g, SALT_BOMB_PILES, 2, 6), end, P.n_plain + 2)


@jit
def deal_cards(g, cards, n, fixed, salt, order, draws):
    """A scenario's cards (R-ANN-5 bomb cards, R-EXT-9 biosamples): one each to ``n`` different cavers, into
    ``cards`` (per seat); the seats are ``fixed`` when set, else drawn by the game seed with ``salt``."""
    if fixed[0] >= 0:
        for i in range(n):
            cards[fixed[i]] = 1
        return
    permutation(g.key, salt, g.n_seats, order, draws)
    for i in range(n):
        cards[order[i]] = 1


@jit
def place_annihilation_exit(g, P):
    """R-ANN-1: the exit beside the start tile, across one of its open sides drawn by the seed, opening toward
    it; then the open sides are counted again (the no-placement zone around the exit bars its cells, R-ANN-2)."""
    sides = g.t_open[0]
    n_open = 0
    for d in range(4):
        if sides & BIT[d]:
            n_open += 1
    k = seeded_below(g, SALT_EXIT_SIDE, 0, n_open)
    side = -1
    for d in range(4):
        if sides & BIT[d]:
            if k == 0:
                side = d
                break
            k -= 1
    back = OPPOSITE[side]
    rot = 0
    for r in range(4):
        if ROT_MASK[P.tile_mask[P.exit_id], r] & BIT[back]:
            rot = r
            break
    place(g, P, P.exit_id, g.t_x[0] + DX[side], g.t_y[0] + DY[side], rot)
    g.open_sides = count_open_sides(g, P)


@jit
def deal_hazards(g, P, order, draws):
    """R-SET-5: shuffle the pool, deal deal_size cards, Out of Time at the bottom."""
    permutation(g.key, SALT_DECK, P.pool_size, order, draws)
    for i in range(P.deal_size):
        g.deck[i] = P.deck_pool[order[i]]
    g.deck[P.deal_size] = C_OUT_OF_TIME


@jit
def rinv2_item_deck(g, order, draws):
    """R-INV-2: the item deck, the 14 items one each, shuffled by the game seed (its order hidden)."""
    permutation(g.key, SALT_ITEMS, NUM_ITEMS, order, draws)
    for i in range(NUM_ITEMS):
        g.i_deck[i] = order[i]
    g.i_pos = 0


@jit
def setup_game(g, P, key, order, draws):
    """A new game in the slot g: every field back to its empty value, then the setup rules."""
    g.key = key
    deal_cavers(g, P, order, draws)
    if P.scenario == SC_ANNIHILATION:
        build_annihilation_stack(g, P, order, draws)
        deal_cards(g, g.c_bombs, BOMBS, P.bomb_seats, SALT_BOMB_SEATS, order, draws)
    else:
        build_stack(g, P, order, draws)
    if P.biosamples:  # Extraction only (config.py checks it)
        deal_cards(g, g.c_samples, BIOSAMPLES, P.biosample_seats, SALT_SAMPLE_SEATS, order, draws)
    deal_hazards(g, P, order, draws)
    if P.scenario == SC_INVESTIGATION:
        rinv2_item_deck(g, order, draws)
    g.ropes_left = P.rope_tokens
    g.scout_redraws = P.scout_redraws
    g.explosives = P.explosives
    for s in range(g.n_seats):
        if g.c_rank[s] == RANK_GEOLOGIST:  # R-CAV-3 Intuition: the top tile is set aside face up
            g.aside_tile = g.stack[0]
            g.stack_pos = 1
    centre = P.stack_size + 1  # R-SET-3: the start tile at the centre, every caver on it
    place(g, P, P.start_id, centre, centre, 0)
    if P.scenario == SC_ANNIHILATION:
        place_annihilation_exit(g, P)
    for s in range(g.n_seats):
        g.c_tile[s] = 0
    begin_turn(g, P, g.start_seat)


@jit
def setup_games(states, params, games, seeds, empty):
    """Set up games[i] from seeds[i] (int64); ``empty``: a (1,) record array holding the empty values of every
    field."""
    setup_range(states, params, games, seeds, empty, 0, games.shape[0])


@jit(parallel=True)
def setup_games_parallel(states, params, games, seeds, empty):
    """setup_games with the games spread over numba's threads in chunks of ``SETUP_CHUNK`` (each with its own
    scratch); ``games`` must be distinct slots (``Core.reset`` checks), since two chunks would race on one."""
    n = games.shape[0]
    for c in prange((n + SETUP_CHUNK - 1) // SETUP_CHUNK):
        setup_range(states, params, games, seeds, empty, c * SETUP_CHUNK, min(n, (c + 1) * SETUP_CHUNK))


SETUP_CHUNK = 8  # games per task of the threaded setup: a game takes 2-5 us, a task's scratch under 0.1 us


@jit
def setup_range(states, params, games, seeds, empty, start, stop):
    """setup_games for games[start:stop]: a game depends on its seed alone, so any split gives the same games."""
    P = params[0]
    order, draws = setup_scratch(P)
    for i in range(start, stop):
        new_game(states, games[i], P, seeds[i], empty, order, draws)


@jit
def setup_scratch(P):
    """(order, draws): the scratch arrays that ``new_game`` shuffles with, one pair per thread."""
    order = np.empty(max(MAX_STACK, P.pool_size, P.n_cave, 8), dtype=np.int64)
    return order, np.empty(order.shape[0], dtype=np.uint64)


@jit
def new_game(states, b, P, seed, empty, order, draws):
    """Slot b's game starts anew from ``seed``: every field back to its empty value (its seats kept), then the
    setup rules."""
    n_seats = states[b].n_seats
    states[b] = empty[0]
    states[b].n_seats = n_seats
    setup_game(states[b], P, seed_key(seed), order, draws)
