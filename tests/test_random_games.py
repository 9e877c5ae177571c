"""10,000 random legal games over mixed settings finish without error and keep the rules' invariants."""

from __future__ import annotations

import numpy as np
import pytest

from subterra_env.config import GameConfig
from subterra_env.core.rules import Core
from subterra_env.core.state import RUNNING, State

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


def check_invariants(st: State, mask: np.ndarray) -> None:
    live = st.result == RUNNING
    assert mask[live].any(1).all(), "a running game offers its acting caver no action"
    assert not mask[~live].any(), "an ended game offers actions"
    assert (st.c_hp >= 0).all() and (st.c_hp <= st.c_max).all()
    assert ((st.h_tile >= 0).sum(1) <= 3).all()
    n = st.n_tiles.astype(np.int64)
    assert (n + (st.stack.shape[1] - st.stack_pos) <= st.stack.shape[1] + 1).all()
    # Connections are symmetric (R-CON-1): a -> b through d means b -> a through the opposite side.
    b, t, d = np.nonzero(st.t_nbr >= 0)
    back = st.t_nbr[b, st.t_nbr[b, t, d], (d + 2) % 4]
    assert (back == t).all()
    # Cavers stand on placed tiles unless devoured or under water; horrors only on tiles.
    placed = st.t_cat >= 0
    g, s = np.nonzero(~st.c_dead & ~st.c_under)
    assert placed[g, st.c_tile[g, s]].all()
    assert (st.c_tile[st.c_under] == -1).all() and (st.c_rank[st.c_under] == 1).all()
    g, h = np.nonzero(st.h_tile >= 0)
    assert placed[g, st.h_tile[g, h]].all()
    assert ((st.exit_tile >= 0) == (st.t_type == 1).any(1)).all()
    assert (st.ap[live] >= 0).all()


@pytest.mark.parametrize("settings", SETTINGS, ids=[str(i) for i in range(len(SETTINGS))])
def test_random_games_finish(settings: dict) -> None:  # R-RND-3, R-RND-4, R-HZ-7
    core = Core(GameConfig(**settings))
    seeds = np.arange(GAMES_PER_SETTING) + 1000 * SETTINGS.index(settings)
    st = core.init(seeds)
    rng = np.random.default_rng(int(seeds[0]))
    cards_left = (st.deck >= 0).sum(1) - st.deck_pos
    for _ in range(5000):
        mask = core.legal_mask(st)
        check_invariants(st, mask)
        if (st.result != RUNNING).all():
            break
        action = np.argmax(rng.random(mask.shape) * mask, axis=1)
        core.step(st, action)
        now_left = (st.deck >= 0).sum(1) - st.deck_pos
        assert (now_left <= cards_left).all(), "hazard cards left increased"
        cards_left = now_left
    assert (st.result != RUNNING).all(), "some games did not finish"
    # Results agree with positions (R-RND-4).
    on_exit = ((st.c_tile == st.exit_tile[:, None]) & (st.exit_tile[:, None] >= 0)).sum(1)
    np.testing.assert_array_equal(st.result, np.maximum(3 - (core.cfg.num_cavers - on_exit), 0))
