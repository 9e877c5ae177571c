"""Setup (R-ITC-SET): the starting board, the shuffled stacks, the bank, the teams, the start player.

Randomness is counter-based per game (Sub Terra's ``draw_one``): a game's stacks and start player depend on its
key only, so a game is the same alone or in any batch.
"""

from __future__ import annotations

import numpy as np

from subterra_env.games.sub_terra.core.rng import draw_one

from .cave import add_tile
from .jit import jit
from .layout import (
    ACTOR,
    BANK,
    BP,
    CAMP,
    CELL_SLOTS,
    CELLS,
    E_CAMERA,
    E_RAFT,
    END_LEFT,
    K_BOARD,
    K_HOME,
    MAX_SEATS,
    NK,
    OVER,
    P_SETUP,
    PEND,
    PEND_CAT,
    POS,
    PR_BANK0,
    PR_FIXED,
    PR_FIXED_PACK,
    PR_NCAT,
    PR_REMOVE,
    PR_SEATS,
    ROUND,
    RUNNING,
    STACK,
    STACK_END,
    STACK_N,
    STACK_POS,
    START,
)
from .turns import turn4_begin


@jit
def set3_board(g, seats):
    """R-ITC-SET-3: the home base (tile 0) and its arms, all depth 0."""
    home_open = 15 if seats >= 3 else 1 | 2 | 4
    add_tile(g, 0, 0, K_HOME, home_open, 0)
    add_tile(g, 0, -1, K_BOARD, 1 | 4 | (2 if seats >= 4 else 0), 0)  # N arm
    add_tile(g, 1, 0, K_BOARD, 2 | 8, 0)  # E arm
    add_tile(g, 0, 1, K_BOARD, 1 | 4 | (8 if seats >= 5 else 0), 0)  # S arm
    if seats >= 3:
        add_tile(g, -1, 0, K_BOARD, 2 | 8, 0)  # W arm


@jit
def set4_stacks(g, P, key):
    """R-ITC-SET-4: each stack is the catalogue shuffled on its own, less its first ``remove`` tiles (unseen);
    stacks I..IV are drawn in order, so they lie end to end in STACK."""
    n = P[PR_NCAT]
    pos = 0
    sort_keys = np.empty(n, dtype=np.uint64)
    for st in range(4):
        for i in range(n):
            sort_keys[i] = draw_one(key, np.uint64(st * 64 + i))
        order = np.argsort(sort_keys)
        for i in range(P[PR_REMOVE + st], n):
            g[STACK + pos] = order[i]
            pos += 1
        g[STACK_END + st] = pos
    g[STACK_N] = pos
    g[STACK_POS] = 0


@jit
def init_game(g, P, key):
    """A new game in record g (every field written)."""
    g[:] = 0
    g[CELLS:CELLS + CELL_SLOTS] = -1
    seats = P[PR_SEATS]
    set3_board(g, seats)
    set4_stacks(g, P, key)
    for b in range(3):
        g[BANK + b] = P[PR_BANK0 + b]  # R-ITC-SET-6
    for s in range(MAX_SEATS):
        g[POS + s] = 0  # R-ITC-SET-8: pawns and (unpacked) camps on the home base
        g[CAMP + s] = 0 if s < seats else -2
    g[START] = np.int64(draw_one(key, np.uint64(4 * 64)) % np.uint64(seats))  # R-ITC-SET-10
    g[OVER] = RUNNING
    g[END_LEFT] = 0
    g[PEND_CAT] = -1
    if P[PR_FIXED_PACK] != 0:  # preset first_game (R-ITC-SET-9): every team packs the same
        for s in range(seats):
            for k in range(NK):
                c = P[PR_FIXED + k]
                if k == E_CAMERA or k == E_RAFT:
                    c = min(c, 1)
                g[BP + s * NK + k] = c
                if k < E_CAMERA:
                    g[BANK + (k if k <= 1 else 2)] -= c
        g[ROUND] = 1
        turn4_begin(g, P, g[START])
    else:  # R-ITC-SET-9: packing in seat order, hidden from the others until all have packed
        g[ROUND] = 0
        g[ACTOR] = 0
        g[PEND] = P_SETUP
