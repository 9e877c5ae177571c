"""One trip into the compiled rules per decision: step, team reward, episode bookkeeping, legal mask, info counts
and the acting caver's observation of every game, in one call.

Before this, a decision of the AEC env paid five compiled calls (the step, ``after_step``, ``legal_mask``, the
info counts and ``observe`` from ``last()``), each with numba's argument checks and the Python around it.
``advance_serial`` / ``advance_parallel`` do a game's whole decision in one call: step it (``turns.step_game``),
book the episode (``kernels.episode_slot``: the reward, return, length and flags, the one definition of how an
episode ends), write its new mask row, its ``INFO_KEYS`` counts and, when asked, the observation of its acting
caver. The episode layer takes it for every batch (``sub_terra.SubTerra.advance``; ``one_call_taken``), unless its
team reward is shaped, and then starts the games that ended in one more call (``core/restart.py``).

Against the separate kernels (step, then masks, then observations, each a pass over the whole batch) this call
reads each game's 2.4 KB record once a decision instead of three times. ``python -m benchmarks.one_call`` on the
2-core VM (B = 4096, two threads, 7 pairs): 729k against 613k decisions/s with observations, 1.19x; one thread
1.11x; at B = 1024 1.06x on two threads and 0.96x on one. (Until 2026-12-05 that benchmark's one-call row redid
every game's mask after each autoreset, a second pass over the batch, and so measured the separate kernels as
the faster way: 0.72-0.95x.) Through the interfaces it was the faster at every thread count measured (B = 1024,
TorchRL env 1.13-1.25x, gymnasium VectorEnv 1.09-1.14x on 1-16 threads of an Intel Xeon), as they also need the
bookkeeping and the counts.

The arrays, per game b of the batch (B,) unless said:
    actions int64, stepped bool (the slot takes part in this step), reward float32 (the step's team reward:
    ``by_result``), ep_return float64, ep_length int64, terminated / truncated / over / done bool, mask_out
    bool (B, A), counts_out int64 (5, B) (``info.INFO_KEYS`` rows), grid_out int8 (B, C, W, W) and scalars_out
    int8 (B, K): the view of each game's acting caver (``max(actor, 0)``, as the vector envs observe) when
    ``observe`` (else they may be (0, ...) arrays). by_result float64 (5,): the end reward by result + 1 (the team
    reward without shaping; a shaped one is computed by ``rewards.TeamReward`` on the separate path).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import numba
import numpy as np
from numba import prange

from .jit import PARALLEL_MIN_BATCH, compiled_entry, jit, parallel_section
from .kernels import episode_slot, game_counts
from .moves import legal_mask
from .observe import _tables, observe_game
from .prefetch import prefetch_game
from .state import RUNNING, State
from .turns import step_game

if TYPE_CHECKING:
    from .rules import Core


class RewardSettings(Protocol):
    """What the kernel reads of the team reward (``subterra_env.rewards.TeamReward``, a layer above the core):
    the end reward by result. Shaped rewards (``shaped``) are the episode layer's separate path."""

    by_result64: np.ndarray  # (5,) float64: the end reward by result code + 1 (0: the game runs on)
    shaped: bool


# Inlined into the batch loops rather than called per game with two dozen array arguments (DESIGN.md: such a
# per-game call was 10x slower than the loop inside one call).
@numba.njit(inline="always")
def advance_game(states, b, P, action, stepped, reward, by_result, ep_return, ep_length,
                 max_cycles, terminated, truncated, over, done, mask_out, counts_out, stack_size, tables, scenario,
                 radius, grid_out, scalars_out, observe):
    """Game b's whole decision; True if its episode ended."""
    prefetch_game(states, b)
    g = states[b]
    if stepped[b] and g.result == RUNNING:
        step_game(g, P, action)
        reward[b] = by_result[g.result + 1]
    ended = episode_slot(b, reward, by_result, False, stepped, ep_return, ep_length, g.result, g.round, max_cycles,
                         terminated, truncated, over, done)
    legal_mask(g, P, mask_out[b])
    counts_out[0, b], counts_out[1, b], counts_out[2, b], counts_out[3, b], counts_out[4, b] = \
        game_counts(states, b, stack_size)
    if observe:  # the acting caver's view; once the game has ended, the caver who acted last (or seat 0)
        observe_game(g, tables, stack_size, scenario, max(g.actor, 0), -1, radius, grid_out[b], scalars_out[b])
    return ended


@jit
def advance_serial(states, params, actions, stepped, reward, by_result, ep_return, ep_length,
                   max_cycles, terminated, truncated, over, done, mask_out, counts_out, stack_size, tables, scenario,
                   radius, grid_out, scalars_out, observe):
    """Every game's decision, one after the other; returns how many episodes ended."""
    P = params[0]
    n_done = 0
    for b in range(states.shape[0]):
        if advance_game(states, b, P, actions[b], stepped, reward, by_result, ep_return, ep_length,
                        max_cycles, terminated, truncated, over, done, mask_out, counts_out, stack_size, tables,
                        scenario, radius, grid_out, scalars_out, observe):
            n_done += 1
    return n_done


@jit(parallel=True)
def advance_parallel(states, params, actions, stepped, reward, by_result, ep_return, ep_length,
                     max_cycles, terminated, truncated, over, done, mask_out, counts_out, stack_size, tables,
                     scenario, radius, grid_out, scalars_out, observe):
    """advance_serial with the games spread over numba's threads (games share nothing)."""
    n_done = 0
    for b in prange(states.shape[0]):
        # params[0] is read inside the prange body: numba cannot pass a record variable into a parallel loop.
        if advance_game(states, b, params[0], actions[b], stepped, reward, by_result, ep_return,
                        ep_length, max_cycles, terminated, truncated, over, done, mask_out, counts_out, stack_size,
                        tables, scenario, radius, grid_out, scalars_out, observe):
            n_done += 1
    return n_done


# False: the episode layer steps batches of PARALLEL_MIN_BATCH games and more through the separate kernels instead
# (what it did before 2026-12-04; ``benchmarks.one_call`` sets it to time both ways).
ONE_CALL_AT_SCALE = True


def one_call_taken(batch: int) -> bool:
    """Whether the episode layer steps a batch of ``batch`` games (unshaped team reward) in the one call."""
    return batch < PARALLEL_MIN_BATCH or ONE_CALL_AT_SCALE


# what the kernels get for their observation arrays when nothing is observed (``core/restart.py`` too)
NO_GRID = np.zeros((0, 1, 1, 1), dtype=np.int8)
NO_SCALARS = np.zeros((0, 1), dtype=np.int8)


class Advance:
    """The one-trip call bound to one core and team reward: their constant arguments are looked up once (the AEC
    env calls it for every decision, where each Python attribute lookup shows)."""

    def __init__(self, core: Core, team: RewardSettings):
        self.core = core
        if team.shaped:
            raise ValueError("core.advance pays the end reward by result only; a shaped team reward steps through the "
                             "separate kernels (sub_terra.SubTerra.advance)")
        self._params, self._by_result = core.params, team.by_result64
        self._tables, self._scenario = _tables(core.cat), core.cat.scenario

    def __call__(self, st: State, actions: np.ndarray, stepped: np.ndarray, reward: np.ndarray,
                 ep_return: np.ndarray, ep_length: np.ndarray, max_cycles: int,
                 flags: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], mask_out: np.ndarray,
                 counts_out: np.ndarray, obs: tuple[np.ndarray, np.ndarray] | None = None, radius: int = 7) -> int:
        """Every game's decision in one compiled call (see the module docstring); returns how many episodes
        ended. ``flags``: (terminated, truncated, over, done). ``obs``: (grid_out, scalars_out) to write every
        game's acting caver's observation into (radius ``radius``), or None. The caller owns every array and
        checked the actions (an illegal one corrupts its game, as ``Core.step(check=False)``)."""
        return self.bind(st, reward, ep_return, ep_length, max_cycles, flags, mask_out, counts_out, obs,
                         radius)(actions, stepped)

    def bind(self, st: State, reward: np.ndarray, ep_return: np.ndarray, ep_length: np.ndarray, max_cycles: int,
             flags: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], mask_out: np.ndarray,
             counts_out: np.ndarray, obs: tuple[np.ndarray, np.ndarray] | None = None, radius: int = 7
             ) -> Callable[[np.ndarray, np.ndarray], int]:
        """The call with every argument but the actions and the stepping slots fixed (the episode layer's arrays
        stay the same from step to step): ``bound(actions, stepped) -> episodes ended``."""
        grid, scalars = obs if obs is not None else (NO_GRID, NO_SCALARS)
        head = (st.packed, self._params)
        tail = (reward, self._by_result, ep_return, ep_length, max_cycles, *flags, mask_out, counts_out,
                st.stack.shape[1], self._tables, self._scenario, radius, grid, scalars, obs is not None)
        core = self.core
        if st.batch_size >= PARALLEL_MIN_BATCH and core.threads != 1:
            def threaded(actions: np.ndarray, stepped: np.ndarray) -> int:
                with parallel_section(core.threads):
                    return advance_parallel(*head, actions, stepped, *tail)
            return threaded
        entry, entry_for, last = None, None, None  # the compiled entry, the arrays it is for, the last call's

        def serial(actions: np.ndarray, stepped: np.ndarray) -> int:
            # The AEC env passes the same two arrays every decision: their compiled entry skips numba's typing of
            # all 22 arguments (compiled_entry), a twentieth of a decision. Other arrays go through the dispatcher.
            # The entry is looked up once, when the same arrays come a second time in a row, not at the first call:
            # the vector and TorchRL envs bind anew whenever their output arrays change (each step), and typing the
            # arguments in Python for the lookup costs more than the dispatcher's own typing in C.
            nonlocal entry, entry_for, last
            if entry is not None and actions is entry_for[0] and stepped is entry_for[1]:
                return entry(*head, actions, stepped, *tail)
            n_done = advance_serial(*head, actions, stepped, *tail)
            if entry_for is None and last is not None and actions is last[0] and stepped is last[1]:
                entry, entry_for = compiled_entry(advance_serial, (*head, actions, stepped, *tail)), last
            last = (actions, stepped)
            return n_done
        return serial


def advance(core: Core, st: State, actions: np.ndarray, stepped: np.ndarray, reward: np.ndarray,
            team: RewardSettings, ep_return: np.ndarray, ep_length: np.ndarray, max_cycles: int,
            flags: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], mask_out: np.ndarray,
            counts_out: np.ndarray, obs: tuple[np.ndarray, np.ndarray] | None = None, radius: int = 7) -> int:
    """``Advance(core, team)(...)`` once (``team``: an unshaped team reward)."""
    return Advance(core, team)(st, actions, stepped, reward, ep_return, ep_length, max_cycles, flags, mask_out,
                               counts_out, obs, radius)
