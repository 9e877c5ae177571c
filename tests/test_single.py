"""The single-agent adapter passes gymnasium's and SB3's env checkers; bad input is refused cleanly."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from subterra_env.single import SubterraSingleAgentEnv
from random_play import random_legal


def test_gymnasium_check_env() -> None:
    check_env(SubterraSingleAgentEnv(obs_radius=3, illegal_action="penalise"), skip_render_check=True)


def test_sb3_check_env() -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SB3 warns that a (C, 7, 7) grid is no CnnPolicy image: by design
        sb3_check_env(SubterraSingleAgentEnv(obs_radius=3, illegal_action="penalise"))


def test_illegal_action_raises_and_changes_nothing() -> None:
    env = SubterraSingleAgentEnv()
    env.reset(seed=0)
    before = env.games.state.copy()
    with pytest.raises(ValueError, match=r"'move N'\) is not legal now; legal: 0 \('end turn'\)"):
        env.step(10)
    with pytest.raises(ValueError, match=r"action 500 is out of range 0\.\.89; legal: 0 \('end turn'\)"):
        env.step(500)
    assert env.games.state.equals(before)


def test_penalised_illegal_action_changes_nothing() -> None:
    env = SubterraSingleAgentEnv(illegal_action="penalise", illegal_reward=-0.5)
    obs, _ = env.reset(seed=0)
    before = env.games.state.copy()
    obs2, reward, term, trunc, info = env.step(10)
    assert reward == -0.5 and info["illegal_action"] and not term
    assert all(np.array_equal(obs[k], obs2[k]) for k in obs)
    assert env.games.state.equals(before)


def test_a_game_plays_to_the_end_and_then_refuses_steps() -> None:
    env = SubterraSingleAgentEnv(render_mode="ansi")
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    total, term, trunc = 0.0, False, False
    while not (term or trunc):
        obs, reward, term, trunc, info = env.step(random_legal(info["action_mask"], rng))
        total += reward
    assert info["result"] in (0, 1, 2, 3)  # defeat .. gold
    assert total == (0.0, 1 / 3, 2 / 3, 1.0)[info["result"]]
    assert "result: " in env.render()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
