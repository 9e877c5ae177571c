"""The small errors of issue 11: each names the real problem (one test per error)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import subterra_env
from subterra_env import IllegalActionError
from subterra_env.config import ConfigError, ConfigTypeError, GameConfig, from_dict
from subterra_env.env import UnknownAgentError
from subterra_env.single import SubterraSingleAgentEnv
from subterra_env.vector import BatchedGames, SubterraVectorEnv

ROOT = Path(__file__).resolve().parents[1]


def test_stepping_a_vector_env_before_reset_says_so() -> None:
    venv = SubterraVectorEnv(3)
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        venv.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        BatchedGames(2).step(np.zeros(2, dtype=np.int64))
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        SubterraSingleAgentEnv().step(0)
    venv.reset(seed=0)
    venv.step(np.argmax(venv.action_masks(), 1))  # and after reset it steps


def test_stepping_the_sb3_vecenv_before_reset_says_so() -> None:
    pytest.importorskip("stable_baselines3")
    from subterra_env.sb3 import SubterraVecEnv

    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        SubterraVecEnv(2).step(np.zeros(2, dtype=np.int64))


def test_observing_an_unknown_agent_names_the_agents() -> None:
    e = subterra_env.env(cavers=("diver", "scout", "medic", "leader"))
    e.reset(seed=0)
    with pytest.raises(UnknownAgentError) as err:
        e.observe("player_0")
    msg = str(err.value)
    assert "'player_0'" in msg and "possible agents" in msg and "'leader'" in msg and "in this game" in msg
    assert isinstance(err.value, KeyError)  # still a KeyError, as before
    with pytest.raises(UnknownAgentError, match="caver_0"):
        subterra_env.env(agent_names="seat").observation_space("diver")
    with pytest.raises(RuntimeError, match="before reset"):
        subterra_env.raw_env().observe("diver")  # (the wrapped env: PettingZoo's own order check says so)


@pytest.mark.parametrize("make", [lambda: GameConfig(num_cavers="4"), lambda: subterra_env.env(num_cavers="4"),
                                  lambda: from_dict({"health": 3.0}), lambda: GameConfig(num_cavers=True)])
def test_a_setting_of_the_wrong_type_is_a_type_error(make) -> None:
    with pytest.raises(ConfigTypeError, match="expected an integer") as err:
        make()
    assert isinstance(err.value, TypeError) and isinstance(err.value, ConfigError)
    assert "out of range" not in str(err.value)
    with pytest.raises(ConfigError, match="out of range"):  # a wrong value stays a range error
        GameConfig(num_cavers=7)


def test_an_unknown_setting_lists_the_env_keywords_too() -> None:
    with pytest.raises(ConfigError) as err:
        subterra_env.env(reward_tiles=0.1)
    msg = str(err.value)
    assert "did you mean" in msg and "'reward_tile'?" in msg
    for key in ("num_cavers", "reward_tile", "max_cycles", "obs_radius", "render_mode", "illegal_action"):
        assert key in msg, key
    with pytest.raises(ConfigError, match=r"environment settings:.*'num_envs'"):
        SubterraVectorEnv(2, flavour="x")
    with pytest.raises(ConfigError, match=r"environment settings:.*'illegal_reward'"):
        SubterraSingleAgentEnv(flavour="x")


@pytest.mark.parametrize("bad", [3.0, np.float32(0), np.array(0.0), True, np.array([0]), "0"])
def test_float_and_wrongly_shaped_actions_are_refused_by_the_aec_env(bad) -> None:
    e = subterra_env.env()
    e.reset(seed=3)
    before = e.unwrapped.get_state()
    with pytest.raises(IllegalActionError, match="integer id"):
        e.step(bad)
    assert e.unwrapped.get_state().game.equals(before.game)
    e.step(np.int64(np.flatnonzero(e.last()[0]["action_mask"])[0]))  # numpy ints are fine


@pytest.mark.parametrize("bad", [np.zeros(4), np.zeros(4, dtype=np.float32), np.zeros(4, dtype=bool),
                                 np.zeros(5, dtype=np.int64), np.zeros((4, 2), dtype=np.int64),
                                 [0.0, 0.0, 0.0, 0.0]])
def test_float_and_wrongly_shaped_actions_are_refused_by_the_vector_envs(bad) -> None:
    for venv in (SubterraVectorEnv(4), BatchedGames(4)):
        venv.reset()
        games = venv.games if isinstance(venv, SubterraVectorEnv) else venv
        before = games.state.copy()
        with pytest.raises(ValueError, match="shape|dtype"):
            venv.step(bad)
        assert games.state.equals(before)


def test_float_and_wrongly_shaped_actions_are_refused_by_sb3_and_single_agent() -> None:
    env = SubterraSingleAgentEnv(illegal_action="penalise")
    env.reset(seed=0)
    for bad in (0.0, 0.7, True, np.array([0]), "0"):
        with pytest.raises(ValueError, match="integer id"):
            env.step(bad)
    with pytest.raises(ValueError, match="out of range"):
        env.step(90)
    env.step(np.int64(np.flatnonzero(env.action_masks())[0]))
    pytest.importorskip("stable_baselines3")
    from subterra_env.sb3 import SubterraVecEnv

    venv = SubterraVecEnv(2, seed=0)
    venv.reset()
    with pytest.raises(ValueError, match="dtype float64"):
        venv.step(np.zeros(2))


def test_pyproject_license_is_an_spdx_string() -> None:
    """No deprecation banner of our own at install: setuptools warns about the ``license`` table form."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        tomllib = pytest.importorskip("tomli")
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert data["project"]["license"] == "MIT"
    assert any(r.startswith("setuptools>=") and int(r.split(">=")[1].split(",")[0]) >= 77
               for r in data["build-system"]["requires"])
