"""The batch entry points of the compiled rules: one call per batch step, looping over the games inside.

Each comes twice, a serial loop and a ``prange`` loop across cores (numba's thread pool); ``rules.Core`` picks
one by batch size. A game's outcome never depends on which: games share nothing, and each draws from its own
random stream.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from .board import FAR, distances_from, tiles_left
from .catalogue import T_HORROR
from .effects import on_exit
from .hazards import cards_left
from .jit import jit
from .monsters import avoids_sanctuary, is_victim, occupied
from .moves import legal_mask
from .prefetch import prefetch_game
from .state import MAX_SEATS, RUNNING
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
            prefetch_game(states, b)
            if states[b].result == RUNNING and not legal_action(states[b], P, actions[b], masks[b]):
                return b
    for b in range(n):
        prefetch_game(states, b)
        if states[b].result == RUNNING:
            step_game(states[b], P, actions[b])
    return -1


@jit(parallel=True)
def step_parallel(states, params, actions, masks, check, bad):
    # params[0] is read inside each prange body: numba cannot pass a record variable into a parallel loop.
    n = states.shape[0]
    if check:
        for b in prange(n):
            prefetch_game(states, b)
            bad[b] = states[b].result == RUNNING and not legal_action(states[b], params[0], actions[b],
                                                                      masks[b])
        for b in range(n):
            if bad[b]:
                return b
    for b in prange(n):
        prefetch_game(states, b)
        if states[b].result == RUNNING:
            step_game(states[b], params[0], actions[b])
    return -1


@jit
def mask_serial(states, params, out):
    P = params[0]
    for b in range(states.shape[0]):
        prefetch_game(states, b)
        legal_mask(states[b], P, out[b])


@jit(parallel=True)
def mask_parallel(states, params, out):
    for b in prange(states.shape[0]):
        prefetch_game(states, b)
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
def exit_way_batch(states, cap, out):
    """out (B,) int64: the team's way to the exit, the sum over its cavers of each one's steps to the exit tile
    through connected sides (R-CON-2): 0 on it, ``cap`` when dead, cut off, further than ``cap``, while the exit is
    not on the table, or anywhere off it once the game is over (``subterra_env.rewards.TeamReward.way`` pays for
    every step of it the team closes, so over a game it pays ``cap`` per caver out)."""
    if states.shape[0] == 0:
        return
    dist = np.empty(states[0].t_nbr.shape[0], np.int64)
    queue = np.empty(states[0].t_nbr.shape[0], np.int64)
    for b in range(states.shape[0]):
        g = states[b]
        distances_from(g, g.exit_tile, cap, dist, queue, -1)
        total = 0
        for s in range(g.n_seats):
            t = g.c_tile[s]
            if g.exit_tile < 0 or t < 0 or g.c_dead[s] or (g.result != RUNNING and t != g.exit_tile):
                total += cap
            else:
                total += min(dist[t], cap)
        out[b] = total


@jit
def horror_danger(g, P, dist, queue, avoid):
    """Cavers in a horror's reach while the game runs (``subterra_env.rewards.TeamReward.danger``): victims
    (R-HOR-2) that the horror phase or a horror card reaches first, hunted by a horror one step away (its closest
    victim, R-HOR-3) or standing on a horror tile without a monster while fewer than the limit of horrors are out (a
    spawn goes to the empty horror tile nearest its closest victim, R-HOR-4: none is nearer than its own tile).
    ``dist`` (MAX_SEATS, tiles) and ``queue``: scratch."""
    if g.result != RUNNING:
        return 0
    horrors = 0
    for k in range(3):
        if g.h_tile[k] >= 0:
            horrors += 1
    for s in range(g.n_seats):
        if is_victim(g, s):
            distances_from(g, g.c_tile[s], P.horror_range, dist[s], queue, avoid)
    hunted = 0
    for k in range(3):
        mt = g.h_tile[k]
        if mt < 0:
            continue
        best, victim = (FAR + 1) * 16, -1
        for s in range(g.n_seats):
            if is_victim(g, s) and dist[s, mt] * 16 + g.c_rank[s] < best:
                best, victim = dist[s, mt] * 16 + g.c_rank[s], s
        if victim >= 0 and best // 16 <= 1:
            hunted |= 1 << victim
    n = 0
    for s in range(g.n_seats):
        if is_victim(g, s):
            t = g.c_tile[s]
            if (hunted >> s) & 1 or (horrors < P.horror_limit and g.t_type[t] == T_HORROR and not occupied(g, t)):
                n += 1
    return n


@jit
def horror_danger_batch(states, params, out):
    """out (B,) int64: ``horror_danger`` of every game."""
    if states.shape[0] == 0:
        return
    P = params[0]
    dist = np.empty((MAX_SEATS, states[0].t_nbr.shape[0]), np.int64)
    queue = np.empty(states[0].t_nbr.shape[0], np.int64)
    avoid = avoids_sanctuary(P, False)
    for b in range(states.shape[0]):
        out[b] = horror_danger(states[b], P, dist, queue, avoid)


@jit
def game_counts(states, b, stack_size):
    """(result, escaped, round, hazard cards left, tiles left) of game b as ints (``subterra_env.info``)."""
    g = states[b]
    escaped = cavers_out(g)
    return np.int64(g.result), escaped, np.int64(g.round), cards_left(g), tiles_left(g, stack_size)


@jit
def counts_batch(states, stack_size, out):
    """``game_counts`` of every game, into out (5, B) int64: one row per count (``subterra_env.info.batch_info``)."""
    for b in range(states.shape[0]):
        out[0, b], out[1, b], out[2, b], out[3, b], out[4, b] = game_counts(states, b, stack_size)


# The episode layer's bookkeeping (subterra_env/episode.py), compiled: the AEC env steps one game at a time, and
# there each numpy call (about 2 us on the 2-core machine) costs more than the arithmetic; one call does the
# bookkeeping of a step for every slot. Here rather than in episode.py so that they load as the core's kernels do
# (portable.py: shipped, and without numba's context refresh).
@jit
def episode_end(result: int, rounds: int, max_cycles: int) -> tuple[bool, bool]:
    """The one definition of how an episode ends: (terminated, truncated)."""
    te = result != RUNNING  # the game ended by the rules (R-RND-3)
    return te, not te and rounds > max_cycles  # truncated: cut off after max_cycles rounds, the game has no result


@jit
def episode_flags(result: np.ndarray, rounds: np.ndarray, max_cycles: int, terminated: np.ndarray,
                  truncated: np.ndarray, over: np.ndarray) -> int:
    """Every slot's flags, into the three (B,) bool arrays; returns how many are over."""
    n_over = 0
    for i in range(result.shape[0]):
        te, tr = episode_end(result[i], rounds[i], max_cycles)
        terminated[i], truncated[i], over[i] = te, tr, te or tr
        n_over += te or tr
    return n_over


@numba.njit(inline="always")  # inlined into the batch loops (core/advance.py): see advance_game there
def episode_slot(i, reward, by_result, fill, stepped, ep_return, ep_length, result, rounds, max_cycles, terminated,
                 truncated, over, done):
    """The episode bookkeeping of slot i after the core stepped it (``result`` and ``rounds``: its game's now):
    its reward (with ``fill``, the end-of-game reward ``by_result[result + 1]``; else as given), episode return
    and length, flags, and ``done[i]`` (the episode ended in this step, also returned). A slot whose episode was
    over before the step (waiting for reset: the core skipped it) or that did not step gets reward 0 and keeps
    its flags."""
    done[i] = False
    if over[i] or not stepped[i]:
        reward[i] = 0.0
        return False
    if fill:
        reward[i] = by_result[result + 1]
    ep_return[i] += reward[i]
    ep_length[i] += 1
    te, tr = episode_end(result, rounds, max_cycles)
    terminated[i], truncated[i], over[i], done[i] = te, tr, te or tr, te or tr
    return te or tr


@jit
def first_illegal(mask: np.ndarray, slots: np.ndarray, actions: np.ndarray) -> int:
    """The episode layer's action check in one pass: the first i whose action is out of range 0..A-1 or not legal
    in row ``slots[i]`` of ``mask`` ((B, A) bool), else -1. As numpy operations (a range test, a fancy index, two
    reductions) it cost 24-40 us at B = 1024 on the 2-core VM; this, 4-5 us with the call."""
    n = mask.shape[1]
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= n or not mask[slots[i], a]:
            return i
    return -1


@jit
def after_step(reward: np.ndarray, by_result: np.ndarray, fill: bool, stepped: np.ndarray, ep_return: np.ndarray,
               ep_length: np.ndarray, result: np.ndarray, rounds: np.ndarray, max_cycles: int,
               terminated: np.ndarray, truncated: np.ndarray, over: np.ndarray, done: np.ndarray) -> int:
    """``episode_slot`` for every slot after the core stepped those marked in ``stepped``; returns how many
    episodes ended in this step."""
    n_done = 0
    for i in range(result.shape[0]):
        if episode_slot(i, reward, by_result, fill, stepped, ep_return, ep_length, result[i], rounds[i], max_cycles,
                        terminated, truncated, over, done):
            n_done += 1
    return n_done
