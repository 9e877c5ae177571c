"""PettingZoo's and Gymnasium's own checkers on every built scenario's environment (each scenario is its own env:
its own name, spaces and action ids); the base game's are in test_env.py and test_single.py."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import subterra_env
from subterra_env.config import BUILT_SCENARIOS
from subterra_env.single import SubterraSingleAgentEnv
from subterra_env.vector import SubterraVectorEnv
from random_play import random_legal

SCENARIOS = [s for s in BUILT_SCENARIOS if s != "base"]
# settings that switch a scenario's optional rules on, so the checkers see them too
OPTIONS = {"extraction": {"biosamples": True}, "investigation": {"explicit_reactions": True}}
# each scenario's spaces: grid planes, scalars, actions
SHAPES = {"annihilation": (38, 57, 107), "extraction": (37, 57, 107), "investigation": (36, 160, 154)}


def test_every_built_scenario_is_checked() -> None:
    assert SCENARIOS == ["annihilation", "extraction", "investigation"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_pettingzoo_api_test(scenario: str) -> None:
    api_test(subterra_env.env(scenario=scenario, **OPTIONS.get(scenario, {})), num_cycles=1000)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_pettingzoo_seed_test(scenario: str) -> None:
    seed_test(lambda: subterra_env.env(scenario=scenario), num_cycles=200)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_gymnasium_check_env(scenario: str) -> None:
    check_env(SubterraSingleAgentEnv(obs_radius=3, illegal_action="penalise", scenario=scenario),
              skip_render_check=True)


def test_each_scenario_is_a_setting_with_its_own_env() -> None:
    """R-VAR-1 (Annihilation), R-VAR-2 (Extraction), R-VAR-3 (Investigation): each scenario is a setting of the one
    game (its rules: tests/test_annihilation.py, test_extraction.py, test_investigation.py, by R-ANN/R-EXT/R-INV
    ID); the base game's env keeps its name and action space."""
    spaces = {}
    for scenario in ["base"] + SCENARIOS:
        env = subterra_env.env(scenario=scenario)
        env.reset(seed=0)
        spaces[env.metadata["name"]] = env.action_space(env.agent_selection).n
    assert spaces == {"subterra_v1": 90, "subterra_annihilation_v1": 107, "subterra_extraction_v1": 107,
                      "subterra_investigation_v1": 154}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_vector_env_steps_the_scenario(scenario: str) -> None:
    planes, scalars, actions = SHAPES[scenario]
    venv = SubterraVectorEnv(4, scenario=scenario, obs_radius=2, **OPTIONS.get(scenario, {}))
    obs, _ = venv.reset(seed=3)
    assert obs["observation"].shape == (4, planes, 5, 5) and obs["scalars"].shape == (4, scalars)
    assert venv.action_masks().shape == (4, actions)
    rng = np.random.default_rng(0)
    for _ in range(50):
        acts = random_legal(venv.action_masks(), rng)
        obs, rewards, terminated, truncated, info = venv.step(acts)
    assert obs["scalars"].shape == (4, scalars) and rewards.shape == (4,)
    if scenario == "extraction":  # biosamples held: at most the 3 of the box (R-EXT-9)
        assert (obs["scalars"][:, 49:55].sum(1) <= 3).all()
    venv.close()


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_heuristic_and_random_agents_play_the_scenario_env(scenario: str) -> None:
    from agents import HeuristicAgent, RandomAgent

    env = subterra_env.env(scenario=scenario)
    env.reset(seed=1)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    assert mask[HeuristicAgent(env).act(None, mask)] == 1
    assert mask[RandomAgent(seed=0).act(env.observe(agent), mask)] == 1
