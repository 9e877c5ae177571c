"""The heuristic's batch entry points: one call decides for many games (a serial and a ``prange`` loop, as the
rules core's kernels), and a whole team plays games forward inside one call (the search agent's rollouts).

Scratch: a decision needs a board record (``board.BOARD``, 1.4 KB) and a plan record (``plans.PLAN``, 37 KB). The
parallel loops split the rows into ``len(boards)`` strided chunks, one scratch pair each, so scratch stays small
whatever the batch size (``SCRATCH_CHUNKS`` pairs are enough to keep every thread busy).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from subterra_env.games.sub_terra.core.moves import legal_mask
from subterra_env.games.sub_terra.core.state import RUNNING
from subterra_env.games.sub_terra.core.turns import step_game

from .jit import jit
from .turn import decide

SCRATCH_CHUNKS = 64


@jit
def decide_serial(states, params, wt, games, masks, boards, plans, out):
    """out[i] = the heuristic's action for game games[i] of the batch, whose legal mask is masks[i]."""
    P = params[0]
    for i in range(games.shape[0]):
        out[i] = decide(states[games[i]], P, wt, boards[0], plans[0], masks[i])


@jit(parallel=True)
def decide_parallel(states, params, wt, games, masks, boards, plans, out):
    chunks = boards.shape[0]
    for c in prange(chunks):
        for i in range(c, games.shape[0], chunks):
            out[i] = decide(states[games[i]], params[0], wt, boards[c], plans[c], masks[i])


@jit
def play_game(g, P, wt, bd, pl, mask, max_steps, max_round):
    """The heuristic team plays game g on for up to max_steps decisions or until the round passes max_round (or
    the game ends); returns the decisions taken."""
    k = 0
    while g.result == RUNNING and k < max_steps and g.round <= max_round:
        legal_mask(g, P, mask)
        step_game(g, P, decide(g, P, wt, bd, pl, mask))
        k += 1
    return k


@jit
def play_serial(states, params, wt, boards, plans, max_steps, max_round, taken):
    P = params[0]
    mask = np.zeros(P.num_actions, np.bool_)
    for b in range(states.shape[0]):
        taken[b] = play_game(states[b], P, wt, boards[0], plans[0], mask, max_steps, max_round)


@jit(parallel=True)
def play_parallel(states, params, wt, boards, plans, max_steps, max_round, taken):
    chunks = boards.shape[0]
    for c in prange(chunks):
        mask = np.zeros(params[0].num_actions, np.bool_)
        for b in range(c, states.shape[0], chunks):
            taken[b] = play_game(states[b], params[0], wt, boards[c], plans[c], mask, max_steps, max_round)
