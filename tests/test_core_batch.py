"""The batched core: a game plays identically alone or inside any batch; seeds decide games; state copies."""

from __future__ import annotations

import numpy as np

from subterra_env.config import GameConfig
from subterra_env.games.sub_terra.core.observe import observe
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RUNNING
from random_play import random_legal


def _trajectory(core: Core, seeds: np.ndarray, steps: int) -> tuple[list, list]:
    """Masks and observations of every game; actions from a per-game stream so they do not depend on the batch."""
    st = core.init(seeds)
    pickers = [np.random.default_rng(int(s)) for s in seeds]
    masks, obs = [], []
    for _ in range(steps):
        mask = core.legal_mask(st)
        masks.append(mask.copy())
        obs.append(np.concatenate([o.reshape(len(seeds), -1) for o in observe(core.cat, st, np.maximum(st.actor, 0), 5)], 1))
        actions = random_legal(mask, pickers)
        core.step(st, actions)
    return masks, obs


def test_game_alone_equals_game_in_batch() -> None:
    core = Core(GameConfig(num_cavers=5))
    seeds = np.arange(100, 137)
    masks_b, obs_b = _trajectory(core, seeds, 150)
    for i in (0, 17, 36):
        masks_1, obs_1 = _trajectory(core, seeds[i:i + 1], 150)
        for t in range(150):
            np.testing.assert_array_equal(masks_1[t][0], masks_b[t][i])
            np.testing.assert_array_equal(obs_1[t][0], obs_b[t][i])


def test_same_seed_same_setup_different_seed_different_setup() -> None:
    core = Core()
    a, b, c = core.init([5]), core.init([5]), core.init([6])
    assert a.equals(b)
    assert not np.array_equal(a.stack, c.stack) or not np.array_equal(a.deck, c.deck)


def test_state_copy_continues_identically() -> None:
    core = Core()
    st = core.init(np.arange(8))
    rng = np.random.default_rng(0)
    for _ in range(40):
        core.step(st, np.argmax(rng.random((8, core.num_actions)) * core.legal_mask(st), axis=1))
    snap = st.copy()
    trail = []
    for _ in range(60):
        a = np.argmax(rng.random((8, core.num_actions)) * core.legal_mask(st), axis=1)
        trail.append(a)
        core.step(st, a)
    for a in trail:
        core.step(snap, a)
    assert snap.equals(st)


def test_ended_games_are_left_untouched() -> None:
    core = Core()
    st = core.init(np.arange(4))
    rng = np.random.default_rng(1)
    while (st.result == RUNNING).any():
        core.step(st, np.argmax(rng.random((4, core.num_actions)) * core.legal_mask(st), axis=1))
    snap = st.copy()
    core.step(st, np.zeros(4, dtype=int))
    assert snap.equals(st)
    assert not core.legal_mask(st).any()


def test_state_memory_per_game() -> None:
    st = Core().init(np.arange(4))
    assert st.nbytes_per_game() < 64 * 1024
