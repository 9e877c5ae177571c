"""The shipped team without torch: its ONNX export (agents/shipped/team.onnx, agents.onnx_policy) chooses the same
action as the torch policy (agents/shipped/team.zip) on a recorded set of states: every decision of heuristic-team
games on the tiny and small caves (seeded), with the heuristic's advice of the same games where the checkpoint
reads it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime", reason="the onnx extra: pip install -e '.[onnx]'")

from agents.onnx_policy import OnnxPolicyAgent, export_onnx
from subterra_env.config import preset
from subterra_game.bots import PolicyBot
from subterra_game.seats import Seat, SeatPlan
from subterra_game.session import Session

ROOT = Path(__file__).resolve().parents[1]
ZIP, ONNX = ROOT / "agents" / "shipped" / "team.zip", ROOT / "agents" / "shipped" / "team.onnx"


def seeded_states():
    """Every decision of seeded heuristic-team games (8 tiny, 8 small, 40 decisions each): (vector env bound to
    them, observations, masks) per decision, so advised checkpoints get the heuristic's advice of the same games."""
    from agents.heuristic import HeuristicAgent
    from subterra_env.sb3 import SubterraVecEnv

    for name, seed in (("tiny", 1), ("small", 3)):
        venv = SubterraVecEnv(8, preset(name), seed=seed, obs_radius=7, max_cycles=60)
        heuristic = HeuristicAgent(venv)
        obs = venv.reset()
        for _ in range(40):
            masks = venv.action_masks()
            yield venv, obs, masks
            obs, *_ = venv.step(heuristic.act_batch(None, masks))


def log_softmax(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64) - x.max(axis=1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=1, keepdims=True))


def test_onnx_and_torch_choose_the_same_actions_on_recorded_states(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib", reason="torch's side of the comparison needs the train extra")
    import torch

    from agents.advice import ADVICE_KEY
    from agents.policy_agent import PolicyAgent

    torch_agent = PolicyAgent(ZIP)
    fresh = OnnxPolicyAgent(export_onnx(ZIP, tmp_path / "team.onnx"))
    shipped = OnnxPolicyAgent(ONNX)
    assert fresh.obs_radius == shipped.obs_radius == torch_agent.obs_radius == 7
    assert fresh.advised == shipped.advised == torch_agent.advised  # the shipped file is the shipped checkpoint's
    n, bound_to = 0, None
    for venv, obs, masks in seeded_states():
        if venv is not bound_to:
            bound_to, agents = venv, [a.bind(venv) for a in (torch_agent, fresh, shipped)]
        want = agents[0].act_batch(obs, masks)
        for agent in agents[1:]:
            got = agent.act_batch(obs, masks)
            assert (got == want).all(), f"{(got != want).sum()} of {len(want)} decisions differ"
        assert masks[np.arange(len(want)), want].all()
        n += len(want)
    assert n == 640
    # the logits themselves, on the last states
    full = {k: obs[k] for k in ("observation", "scalars")}
    if torch_agent.advised:
        full[ADVICE_KEY] = agents[0].advice(masks, None)
    with torch.no_grad():
        tensors, _ = torch_agent.policy.obs_to_tensor(full)
        ref = torch_agent.policy.get_distribution(tensors).distribution.logits.numpy()
    got = log_softmax(shipped.logits(full))  # torch's distribution keeps normalised logits (log-probabilities)
    # float32 keeps about 7 digits, and the gain head scales its logits by 1e5 (thousands of logits apart)
    np.testing.assert_allclose(got, log_softmax(ref), rtol=1e-6, atol=1e-4)
    # one decision through the play command's bot, as a table seats it
    s = Session(preset("tiny"), 5, SeatPlan(others=Seat("heuristic")), max_cycles=60)
    bot = PolicyBot(str(ONNX), s.env)
    action = bot.act(s.env, int(s.env.state_.actor[0]))
    assert s.env.legal_mask[action]


def test_a_bad_onnx_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "team.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="is not a loadable ONNX policy"):
        OnnxPolicyAgent(bad)
    with pytest.raises(FileNotFoundError, match="no ONNX policy at"):
        OnnxPolicyAgent(tmp_path / "missing.onnx")
