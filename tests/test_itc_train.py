"""training/train_itc_ppo.py: the single-agent env against the heuristic keeps gymnasium's API and the rules
(the mask is what a step accepts), and a tiny MaskablePPO run trains, evaluates and writes its result."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

SCRIPT = Path(__file__).resolve().parents[1] / "training" / "train_itc_ppo.py"


@pytest.fixture(scope="module")
def train():
    spec = importlib.util.spec_from_file_location("train_itc_ppo", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_env_api_and_masks(train):
    env = train.ItcVsHeuristic(seed=1)
    obs, _ = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    for _ in range(30):  # legal random decisions keep the observation in its space
        obs, reward, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert env.observation_space.contains(obs) and not (term or trunc) and reward == 0.0
    seats = []
    for _ in range(2):
        env.reset()
        seats.append(env.seat)
        assert int(env.G[0, train.L.ACTOR]) == env.seat  # the heuristic has played up to the learner's decision
    assert seats[0] != seats[1]
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(ValueError, match=f"action {illegal} is not legal"):
        env.step(illegal)


def test_tiny_run_writes_a_result(train, tmp_path):
    result = train.main(["--timesteps", "64", "--n-steps", "32", "--eval-games", "1", "--out", str(tmp_path)])
    saved = json.loads((tmp_path / "result.json").read_text())
    assert saved == json.loads(json.dumps(result))
    assert (tmp_path / "model.zip").exists()
    assert saved["timesteps"] == 64 and saved["vs_heuristic"]["games"] == 1
    assert 0.0 <= saved["vs_heuristic"]["win_rate"] <= 1.0
