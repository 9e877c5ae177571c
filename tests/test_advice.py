"""The heuristic's advice (agents.advice) and the residual policy on it (agents.advised_policy): the advice is the
compiled heuristic's choice; an untrained advised policy plays exactly the heuristic's games; a checkpoint keeps
its advice_scale; an unbound advised checkpoint is refused with a message that says how to bind it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO

from agents.advice import ADVICE_KEY
from agents.advice_vec_env import AdviceVecEnv
from agents.advised_policy import AdvisedPolicy
from agents.heuristic import HeuristicAgent
from agents.policy_agent import PolicyAgent
from subterra_env.config import load
from subterra_env.models import SubterraFeaturesExtractor
from subterra_env.sb3 import SubterraVecEnv
from training.evaluate import evaluate_team
from training.schema import SettingsError
from training.train_ppo import load_args

ROOT = Path(__file__).resolve().parents[1]

TINY = ROOT / "configs" / "tiny.yaml"


def advised_venv(n: int = 6, seed: int = 5) -> AdviceVecEnv:
    return AdviceVecEnv(SubterraVecEnv(n, load(TINY), seed=seed, obs_radius=3, threads=1))


@pytest.fixture(scope="module")
def untrained(tmp_path_factory) -> Path:
    """An untrained advised checkpoint (radius 3): its network adds almost nothing to the advice."""
    model = MaskablePPO(AdvisedPolicy, advised_venv(), seed=0, n_steps=16, batch_size=32,
                        policy_kwargs=dict(features_extractor_class=SubterraFeaturesExtractor, advice_scale=3.0,
                                           net_arch=dict(pi=[16], vf=[16])))
    path = tmp_path_factory.mktemp("advised") / "untrained.zip"
    model.save(path)
    return path


def test_advice_is_the_heuristics_choice_in_every_slot():
    venv = advised_venv()
    heuristic = HeuristicAgent(venv, threads=1)
    obs = venv.reset()
    for _ in range(40):
        masks = venv.action_masks()
        advice = obs[ADVICE_KEY]
        assert advice.dtype == np.int8 and advice.shape == (6, 90)
        assert (advice.sum(1) == 1).all() and masks[np.arange(6), advice.argmax(1)].all()
        expected = heuristic.decide(venv.games.core, venv.games.state, np.arange(6), masks)
        np.testing.assert_array_equal(advice.argmax(1), expected)
        obs, _, dones, infos = venv.step(expected)
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"][ADVICE_KEY].sum() == 0  # no decision left in a finished game
    assert venv.observation_space[ADVICE_KEY].shape == (90,)


def test_an_untrained_advised_policy_plays_the_heuristics_games(untrained):
    team = evaluate_team(TINY, f"policy:{untrained}", num_games=6, seed=11, batch=4)
    teacher = evaluate_team(TINY, "heuristic", num_games=6, seed=11, batch=6)
    assert team.illegal == 0
    np.testing.assert_array_equal(team.game_escaped, teacher.game_escaped)
    np.testing.assert_array_equal(team.game_rounds, teacher.game_rounds)
    assert team.decisions == teacher.decisions


def test_a_checkpoint_keeps_its_advice_scale_and_needs_binding(untrained):
    agent = PolicyAgent(untrained)
    assert agent.advised and float(agent.policy.advice_scale) == 3.0 and agent.obs_radius == 3
    venv = advised_venv(2)
    obs = venv.reset()
    with pytest.raises(ValueError, match=r"bind the agent to its games first, PolicyAgent\(path\)\.bind\(env\)"):
        agent.act_batch(obs, venv.action_masks())
    bound = agent.bind(venv)
    np.testing.assert_array_equal(bound.act_batch(obs, venv.action_masks()), obs[ADVICE_KEY].argmax(1))
    assert bound.policy is agent.policy and agent.advisor is None  # binding shares the network, changes nothing


def test_advised_policy_settings_are_checked(tmp_path):
    with pytest.raises(ValueError, match="AdvisedPolicy needs the 'advice' observation key"):
        MaskablePPO(AdvisedPolicy, SubterraVecEnv(2, load(TINY), seed=0, obs_radius=3),
                    policy_kwargs=dict(features_extractor_class=SubterraFeaturesExtractor))
    with pytest.raises(ValueError, match=r"advice_scale=60.0: expected 0..50"):
        MaskablePPO(AdvisedPolicy, advised_venv(2), policy_kwargs=dict(
            features_extractor_class=SubterraFeaturesExtractor, advice_scale=60.0))
    with pytest.raises(SettingsError, match="advice_scale"):
        load_args(ROOT / "configs" / "train" / "advised.yaml", ["model.advice_scale=-1"])
    with pytest.raises(SettingsError, match="threads"):
        load_args(ROOT / "configs" / "train" / "advised.yaml", ["env.threads=0"])
