"""The autoreset's half of a decision, in one compiled call: the games that ended in a step start anew.

After ``core/advance.py`` stepped a batch, the vector and TorchRL envs start the next game of each slot whose
episode ended (about ten a step at B = 1024 under random play). That took five trips into the core with numpy
between them: the setup (``Core.reset``), the new games' masks through a copy of their records, the whole batch's
flags, the final observations taken out and the new games observed through another copy, and the TorchRL env
counting the new games' info. ``restart_serial`` / ``restart_parallel`` do it per game in one pass: move its final
observation out (when the step observed), set the game up from its seed (``setup.new_game``: the same games as
``Core.reset``), write its mask row, its ``INFO_KEYS`` counts (when the step counted), its episode bookkeeping
(return and length from zero, its flags by ``kernels.episode_end``) and its acting caver's observation.

The arrays, as ``core/advance.py``'s (per slot b of the batch unless said): games int64 (n,) distinct slots,
seeds int64 (n,), empty the (1,) record of empty values (``state.EMPTY_RECORD``), mask_out bool (B, A),
counts_out int64 (5, B) written when ``count``, ep_return float64, ep_length int64, terminated / truncated / over
bool, grid_out int8 (B, C, W, W) and scalars_out int8 (B, K) read and written when ``observe``, and final_grid
int8 (n, C, W, W), final_scalars int8 (n, K): row j receives slot games[j]'s observation as the step left it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np
from numba import prange

from .advance import NO_GRID, NO_SCALARS
from .jit import jit, parallel_section
from .kernels import episode_end, game_counts
from .moves import legal_mask
from .observe import _tables, observe_game
from .setup import SETUP_CHUNK, new_game, setup_scratch
from .state import EMPTY_RECORD, State

if TYPE_CHECKING:
    from .rules import Core

# New games set up together spread over the threads from this many (a game takes 3-6 us with its observation).
PARALLEL_MIN_RESTART = 16


@numba.njit(inline="always")
def copy_flat(src, dst):
    """dst[:] = src for 1-D arrays, element by element: numba's ``final_grid[j] = grid_out[b]`` for these (C, W,
    W) rows took 18 us a row (7.6 kB) against 0.4 us for this loop."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@numba.njit(inline="always")
def restart_game(states, j, P, games, seeds, empty, order, draws, mask_out, counts_out, count, max_cycles, ep_return,
                 ep_length, terminated, truncated, over, stack_size, tables, scenario, radius, grid_out, scalars_out,
                 final_grid, final_scalars, observe):
    """The j-th game of ``games`` starts anew (see the module docstring)."""
    b = games[j]
    if observe:
        copy_flat(grid_out[b].reshape(-1), final_grid[j].reshape(-1))
        copy_flat(scalars_out[b], final_scalars[j])
    new_game(states, b, P, seeds[j], empty, order, draws)
    g = states[b]
    legal_mask(g, P, mask_out[b])
    if count:
        counts_out[0, b], counts_out[1, b], counts_out[2, b], counts_out[3, b], counts_out[4, b] = \
            game_counts(states, b, stack_size)
    ep_return[b] = 0.0
    ep_length[b] = 0
    te, tr = episode_end(g.result, g.round, max_cycles)
    terminated[b], truncated[b], over[b] = te, tr, te or tr
    if observe:  # as the step observes: the acting caver's view
        observe_game(g, tables, stack_size, scenario, max(g.actor, 0), -1, radius, grid_out[b], scalars_out[b])


@jit
def restart_serial(states, params, games, seeds, empty, mask_out, counts_out, count, max_cycles, ep_return, ep_length,
                   terminated, truncated, over, stack_size, tables, scenario, radius, grid_out, scalars_out,
                   final_grid, final_scalars, observe):
    """Every game of ``games`` anew, one after the other."""
    P = params[0]
    order, draws = setup_scratch(P)
    for j in range(games.shape[0]):
        restart_game(states, j, P, games, seeds, empty, order, draws, mask_out, counts_out, count, max_cycles,
                     ep_return, ep_length, terminated, truncated, over, stack_size, tables, scenario, radius, grid_out,
                     scalars_out, final_grid, final_scalars, observe)


@jit(parallel=True)
def restart_parallel(states, params, games, seeds, empty, mask_out, counts_out, count, max_cycles, ep_return,
                     ep_length, terminated, truncated, over, stack_size, tables, scenario, radius, grid_out,
                     scalars_out, final_grid, final_scalars, observe):
    """restart_serial in chunks of ``SETUP_CHUNK`` games over numba's threads, each chunk with its own scratch
    (``games`` are distinct slots: two chunks never write one)."""
    n = games.shape[0]
    for c in prange((n + SETUP_CHUNK - 1) // SETUP_CHUNK):
        P = params[0]  # read inside the prange body: numba cannot pass a record variable into a parallel loop
        order, draws = setup_scratch(P)
        for j in range(c * SETUP_CHUNK, min(n, (c + 1) * SETUP_CHUNK)):
            restart_game(states, j, P, games, seeds, empty, order, draws, mask_out, counts_out, count, max_cycles,
                         ep_return, ep_length, terminated, truncated, over, stack_size, tables, scenario, radius,
                         grid_out, scalars_out, final_grid, final_scalars, observe)


_NO_COUNTS = np.zeros((5, 0), dtype=np.int64)


def restart_games(core: Core, st: State, games: np.ndarray, seeds: np.ndarray, mask_out: np.ndarray,
                  counts_out: np.ndarray | None, max_cycles: int, ep_return: np.ndarray, ep_length: np.ndarray,
                  flags: tuple[np.ndarray, np.ndarray, np.ndarray], obs: tuple[np.ndarray, np.ndarray] | None = None,
                  radius: int = 7) -> tuple[np.ndarray, np.ndarray] | None:
    """New games in the slots ``games`` (distinct, int64) from ``seeds``, in one compiled call (module docstring),
    threaded from ``PARALLEL_MIN_RESTART`` games. ``counts_out``: the (5, B) counts to write the new games' into,
    or None; ``flags``: (terminated, truncated, over); ``obs``: the (grid, scalars) the step observed into, or
    None. Returns the final observations the new games' took the place of, (grid, scalars) of len(games) rows,
    or None without ``obs``. The caller owns every array (``Core.reset`` checks the slots; this does not)."""
    n = len(games)
    if obs is None:
        grid, scalars, finals = NO_GRID, NO_SCALARS, None
    else:
        grid, scalars = obs
        finals = (np.empty((n, *grid.shape[1:]), dtype=np.int8), np.empty((n, scalars.shape[1]), dtype=np.int8))
    args = (st.packed, core.params, games, seeds, EMPTY_RECORD, mask_out,
            _NO_COUNTS if counts_out is None else counts_out, counts_out is not None, max_cycles, ep_return,
            ep_length, *flags, st.stack.shape[1], _tables(core.cat), core.cat.scenario, radius, grid, scalars,
            *(finals or (NO_GRID, NO_SCALARS)), obs is not None)
    if n >= PARALLEL_MIN_RESTART and core.threads != 1:
        with parallel_section(core.threads):
            restart_parallel(*args)
    else:
        restart_serial(*args)
    return finals
