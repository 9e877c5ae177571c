"""The autoreset in one compiled call (core/restart.py): the same new games as ``Core.reset``, and beside them what
the separate kernels would give (masks, info counts, observations), the final observations moved out and the
episode bookkeeping of the restarted slots."""

from __future__ import annotations

import numpy as np
import pytest

from subterra_env.games.sub_terra.core.observe import observe
from subterra_env.games.sub_terra.core.restart import PARALLEL_MIN_RESTART, restart_games
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.info import INFO_KEYS, batch_info
from random_play import random_legal_rows


@pytest.mark.parametrize("n", [5, 20])  # the serial kernel, the threaded one
def test_restart_writes_what_reset_mask_counts_and_observe_give(n: int) -> None:
    assert (n >= PARALLEL_MIN_RESTART) == (n == 20)
    core = Core()
    st = core.init(np.arange(64) + 100)
    rng = np.random.default_rng(1)
    for _ in range(40):  # games under way: every row of the batch differs from a new game
        core.step(st, random_legal_rows(core.legal_mask(st), rng))
    grid, scalars = observe(core.cat, st, np.maximum(st.actor, 0), 5)
    mask = core.legal_mask(st)
    counts = np.stack([batch_info(st)[k] for k in INFO_KEYS])
    ep_return, ep_length = np.full(64, 2.5), np.full(64, 40, dtype=np.int64)
    flags = tuple(np.ones(64, dtype=bool) for _ in range(3))
    slots = np.arange(1, 64, 3)[:n].astype(np.int64)
    seeds = slots * 1000 + 7
    expected = st.copy()
    core.reset(expected, slots, seeds)
    before_grid, before_scalars = grid[slots].copy(), scalars[slots].copy()

    finals = restart_games(core, st, slots, seeds, mask, counts, 200, ep_return, ep_length, flags, (grid, scalars), 5)

    assert st.equals(expected)
    np.testing.assert_array_equal(mask, core.legal_mask(expected))
    np.testing.assert_array_equal(counts, np.stack([batch_info(expected)[k] for k in INFO_KEYS]))
    want_grid, want_scalars = observe(core.cat, expected, np.maximum(expected.actor, 0), 5)
    np.testing.assert_array_equal(grid, want_grid)
    np.testing.assert_array_equal(scalars, want_scalars)
    np.testing.assert_array_equal(finals[0], before_grid)
    np.testing.assert_array_equal(finals[1], before_scalars)
    others = np.setdiff1d(np.arange(64), slots)
    assert (ep_return[slots].tolist(), ep_length[slots].tolist()) == ([0.0] * n, [0] * n)
    assert (ep_return[others] == 2.5).all() and (ep_length[others] == 40).all()
    for flag in flags:  # the new games run; the other slots' flags are left as they were
        assert not flag[slots].any() and flag[others].all()


def test_restart_without_observations_or_counts_leaves_them_alone() -> None:
    core = Core()
    st = core.init(np.arange(8))
    mask = np.zeros((8, core.num_actions), dtype=bool)
    book = (np.zeros(8), np.zeros(8, dtype=np.int64), tuple(np.zeros(8, dtype=bool) for _ in range(3)))
    finals = restart_games(core, st, np.array([3], dtype=np.int64), np.array([9], dtype=np.int64), mask, None, 200,
                           *book)
    assert finals is None
    assert mask.sum(axis=1).astype(bool).tolist() == [False, False, False, True, False, False, False, False]
    assert st.equals(core.init(np.array([0, 1, 2, 9, 4, 5, 6, 7])))
