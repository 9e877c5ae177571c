"""Issue 17 item 6: a scenario map through every interface's reset, and settings that would make a game endless
refused with an error naming them."""

from __future__ import annotations

import numpy as np
import pytest

import subterra_env
from subterra_env.config import ConfigError, GameConfig
from subterra_env.games.sub_terra.core.actions import ACTION_NAMES, action_id
from subterra_env.scenario import ScenarioError
from subterra_env.vector import SubterraVectorEnv

# Two cavers on a start tile open to the east, an empty cell there: the scout acts with 2 action points.
TWO = """
map:
  start:E
cavers: scout@0,0 medic@0,0
stack: normal:I exit
actor: scout
ap: 2
"""
FOUR = TWO.replace("cavers: scout@0,0 medic@0,0", "cavers: scout@0,0 medic@0,0 diver@0,0 leader@0,0")


def legal_names(mask: np.ndarray) -> set[str]:
    return {ACTION_NAMES[i] for i in np.flatnonzero(mask)}


def test_aec_reset_starts_from_a_scenario_map():
    env = subterra_env.env()
    env.reset(seed=3, options={"scenario": TWO})
    assert env.agents == ["scout", "medic"] and env.agent_selection == "scout"
    assert int(env.unwrapped.state_.ap[0]) == 2
    mask = env.observe("scout")["action_mask"]
    assert "reveal E" in legal_names(mask) and "reveal W" not in legal_names(mask)
    env.step(action_id("reveal E"))
    st = env.unwrapped.state_
    assert (int(st.pend[0]), int(st.pend_dir[0])) == (1, 1)  # the straight drawn waits to be placed east (P_PLACE)
    env.reset(seed=3)  # no options: an ordinary new game of the env's own settings again
    assert len(env.agents) == 4


def test_vector_reset_puts_the_scenario_in_every_slot_with_its_own_dice():
    venv = SubterraVectorEnv(3)
    obs, info = venv.reset(seed=0, options={"scenario": FOUR})
    st = venv.games.state
    assert st.batch_size == 3 and (st.n_tiles == 1).all() and (st.ap == 2).all()
    assert len(set(st.key.tolist())) == 3  # no 'seed:' line: each slot rolls its own dice
    np.testing.assert_array_equal(obs["observation"][0], obs["observation"][2])
    assert all("reveal E" in legal_names(m) for m in info["action_mask"])
    venv.reset(options={"scenario": FOUR + "seed: 9\n"})
    assert len(set(venv.games.state.key.tolist())) == 1  # the text fixes the stream


def test_bad_reset_options_are_named_and_leave_the_game_alone():
    env = subterra_env.env(agent_names="seat")
    env.reset(seed=1)
    before = env.unwrapped.state_.copy()
    with pytest.warns(UserWarning, match=r"reset option\(s\) \['scenari'\] ignored"):
        env.reset(seed=1, options={"scenari": TWO})  # PettingZoo's api_test passes options of its own
    before = env.unwrapped.state_.copy()
    with pytest.raises(ScenarioError, match="the scenario seats 2 cavers but this environment plays 4"):
        env.reset(options={"scenario": TWO})
    with pytest.raises(ScenarioError, match=r"options\['scenario'\] must be scenario text \(a str\), got int"):
        env.reset(options={"scenario": 5})
    np.testing.assert_array_equal(env.unwrapped.state_.c_hp, before.c_hp)
    assert int(env.unwrapped.state_.steps[0]) == int(before.steps[0]) and len(env.agents) == 4
    with pytest.raises(ScenarioError, match="seats 2 cavers but this environment plays 4"):
        SubterraVectorEnv(2).reset(options={"scenario": TWO})


@pytest.mark.parametrize("target, bonus, who", [(2, 6, "the Leader"), (3, 2, "the Leader"), (1, 0, "every caver")])
def test_settings_that_make_a_game_endless_are_refused(target, bonus, who):
    with pytest.raises(ConfigError, match=f"skill_target={target} and leader_bonus={bonus} make {who} pass every"):
        GameConfig(skill_target=target, leader_bonus=bonus)
    with pytest.raises(ConfigError, match="Out of Time never removes it"):
        subterra_env.env(skill_target=target, leader_bonus=bonus)
    assert GameConfig(skill_target=4, leader_bonus=2).leader_bonus == 2  # the Leader fails on a 1: a real check


def test_an_ordinary_reset_after_a_scenario_seats_the_whole_team_again():
    """Ordinary resets restart the games in place; after a scenario's two-caver batch the next one starts fresh."""
    env = subterra_env.env()
    env.reset(seed=3)
    first = env.unwrapped.state_
    env.reset(seed=4)
    assert env.unwrapped.state_ is first  # in place
    env.reset(seed=3, options={"scenario": TWO})
    assert env.agents == ["scout", "medic"]
    env.reset(seed=3)
    assert len(env.agents) == 4 and env.unwrapped.state_.c_rank.shape == (1, 4)
    fresh = subterra_env.env()
    fresh.reset(seed=3)
    now, new = env.unwrapped.state_.packed, fresh.unwrapped.state_.packed
    assert all(now[name].tobytes() == new[name].tobytes() for name in new.dtype.names)  # padding aside
