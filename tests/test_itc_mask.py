"""The legal mask (``kernels.mask_into``, which tests only the actions the pending decision allows) equals the full
rule check of every action (``kernels.legal``, the oracle), and ``only_end`` (which ends a stuck turn) agrees with
it, over the positions of random games in mixed settings."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from subterra_env.in_the_cave import preset
from subterra_env.games.in_the_cave.core import kernels as K
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.actions import NUM_ACTIONS
from subterra_env.games.in_the_cave.core.game import ItcCore


@numba.njit(cache=False)
def full_check(G, P, out, stuck):
    """out[b, a] = legal(G[b], a) for every action; stuck[b] = only End turn is legal (with nothing pending)."""
    for b in range(G.shape[0]):
        for a in range(NUM_ACTIONS):
            out[b, a] = 1 if K.legal(G[b], P, a) else 0
        stuck[b] = out[b, 1:].sum() == 0


SETTINGS = [
    {"num_players": 2},
    {"num_players": 5},
    {"num_players": 3, "initial_pack": "fixed", "limited_bank": True},
    {"num_players": 4, "backpack_slots": 6, "camp_slots": 3, "action_points": 4, "limited_bank": True,
     "bank_consumables": 20, "bank_ropes": 8, "bank_oxygen": 4, "max_free_actions": 8,
     "fixed_pack": {"consumable": 2, "rope": 1, "oxygen": 1, "camera": 1, "raft": 1}},
]


@pytest.mark.parametrize("settings", SETTINGS)
def test_mask_equals_the_full_rule_check(settings):
    core = ItcCore(preset("default", **settings))
    B, rng = 128, np.random.default_rng(5)
    G = core.init(np.arange(B))
    want, stuck = np.zeros((B, NUM_ACTIONS), np.uint8), np.zeros(B, np.bool_)
    pending_seen = set()
    for _ in range(600):
        mask = core.masks(G)
        full_check(G, core.P, want, stuck)
        assert np.array_equal(mask, want)
        for b in np.flatnonzero((G[:, L.OVER] == L.RUNNING) & (G[:, L.PEND] == L.P_NONE)):
            assert K.only_end(G[b], core.P) == stuck[b]
        pending_seen |= set(G[:, L.PEND].tolist()) | ({"exhausted"} if G[:, L.EXHAUSTED].any() else set())
        core.step(G, (rng.random(mask.shape) * mask).argmax(1))
        done = np.flatnonzero(G[:, L.OVER] != L.RUNNING)
        G[done] = core.init(rng.integers(0, 1 << 40, len(done)))
    assert {L.P_NONE, L.P_PLACE, L.P_PACK, "exhausted"} <= pending_seen
