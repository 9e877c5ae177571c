"""PettingZoo's and Gymnasium's own checkers on every built scenario's environment (each scenario is its own env:
its own name, spaces and action ids); the base game's are in test_env.py and test_single.py."""

from __future__ import annotations

import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import subterra_env
from subterra_env.config import BUILT_SCENARIOS
from subterra_env.single import SubterraSingleAgentEnv

SCENARIOS = [s for s in BUILT_SCENARIOS if s != "base"]
# settings that switch a scenario's optional rules on, so the checkers see them too
OPTIONS = {"extraction": {"biosamples": True}, "investigation": {"item_cost": 1}}


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
                      "subterra_investigation_v1": 152}
