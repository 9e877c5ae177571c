"""10,000 random legal games over mixed settings finish without error and keep the rules' invariants."""

from __future__ import annotations

import numpy as np
import pytest

from subterra_env.config import GameConfig
from subterra_env.games.sub_terra.core.invariants import check_invariants, snapshot
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RUNNING

SETTINGS = [
    {},
    {"num_cavers": 5},
    {"num_cavers": 6},
    {"difficulty": "easier"},
    {"difficulty": "advanced", "num_cavers": 5},
    {"difficulty": "expert", "num_cavers": 6},
    {"seat_order": "random", "hide_third_round_auto": True},
    {"exit_counts_in_cave": True, "no_effect_actions_illegal": False},
    {"cavers": ("diver", "scout", "medic", "leader"), "explore_cost": 2, "heal_cost": 1},
    {"num_cavers": 6, "cavers": ("geologist", "engineer", "climber", "medic", "bodyguard", "leader"),
     "gas_enter_damage": 3, "cave_in_damage": 4},
]
GAMES_PER_SETTING = 1000


@pytest.mark.parametrize("settings", SETTINGS, ids=[str(i) for i in range(len(SETTINGS))])
def test_random_games_finish(settings: dict) -> None:  # R-RND-3, R-RND-4, R-HZ-7
    core = Core(GameConfig(**settings))
    seeds = np.arange(GAMES_PER_SETTING) + 1000 * SETTINGS.index(settings)
    st = core.init(seeds)
    rng = np.random.default_rng(int(seeds[0]))
    before = None
    for _ in range(5000):
        mask = core.legal_mask(st)
        check_invariants(core.cfg, before, st, mask)  # results agree with positions once ended (R-RND-4)
        if (st.result != RUNNING).all():
            break
        action = np.argmax(rng.random(mask.shape) * mask, axis=1)
        before = snapshot(st)
        core.step(st, action)
    assert (st.result != RUNNING).all(), "some games did not finish"
