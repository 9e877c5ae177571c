"""The batch entry points of the compiled rules: one call per batch step, looping over the games inside.

Each comes twice, a serial loop and a ``prange`` loop across cores (numba's thread pool); ``rules.Core`` picks
one by batch size. A game's outcome never depends on which: games share nothing, and each draws from its own
random stream.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .effects import on_exit
from .hazards import cards_in_deck
from .jit import jit
from .moves import legal_mask
from .state import RUNNING
from .turns import step_game


@jit
def legal_action(g, P, action, m):
    """The action is legal for this running game (m: a scratch mask row)."""
    if action < 0 or action >= P.num_actions:
        return False
    legal_mask(g, P, m)
    return m[action]


@jit
def step_serial(states, params, actions, masks, check):
    """Step every running game by its action; with check, first verify them all and return the first game
    whose action is illegal (no game changed), else -1."""
    P = params[0]
    n = states.shape[0]
    if check:
        for b in range(n):
            if states[b].result == RUNNING and not legal_action(states[b], P, actions[b], masks[b]):
                return b
    for b in range(n):
        if states[b].result == RUNNING:
            step_game(states[b], P, actions[b])
    return -1


@jit(parallel=True)
def step_parallel(states, params, actions, masks, check, bad):
    # params[0] is read inside each prange body: numba cannot pass a record variable into a parallel loop.
    n = states.shape[0]
    if check:
        for b in prange(n):
            bad[b] = states[b].result == RUNNING and not legal_action(states[b], params[0], actions[b],
                                                                      masks[b])
        for b in range(n):
            if bad[b]:
                return b
    for b in prange(n):
        if states[b].result == RUNNING:
            step_game(states[b], params[0], actions[b])
    return -1


@jit
def mask_serial(states, params, out):
    P = params[0]
    for b in range(states.shape[0]):
        legal_mask(states[b], P, out[b])


@jit(parallel=True)
def mask_parallel(states, params, out):
    for b in prange(states.shape[0]):
        legal_mask(states[b], params[0], out[b])


@jit
def cavers_out(g):
    """Cavers standing on the exit tile (R-RND-3)."""
    n = 0
    for s in range(g.n_seats):
        if on_exit(g, s):
            n += 1
    return n


@jit
def cavers_out_batch(states, out):
    for b in range(states.shape[0]):
        out[b] = cavers_out(states[b])


@jit
def game_counts(states, b, stack_size):
    """(result, escaped, round, hazard cards left, tiles left) of game b as ints (``subterra_env.info``)."""
    g = states[b]
    escaped = cavers_out(g)
    return np.int64(g.result), escaped, np.int64(g.round), cards_in_deck(g) - g.deck_pos, stack_size - g.stack_pos
