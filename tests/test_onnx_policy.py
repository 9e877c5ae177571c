"""The shipped team without torch: its ONNX export (agents/shipped/team.onnx, agents.onnx_policy) chooses the same
action as the torch policy (agents/shipped/team.zip) on a recorded set of states: every decision of heuristic-team
games on the tiny and small caves (records made here, seeded), replayed through records.to_samples."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime", reason="the onnx extra: pip install -e '.[onnx]'")

from agents.onnx_policy import OnnxPolicyAgent, export_onnx
from subterra_env.config import preset
from subterra_env.play import PolicyBot, Seat, SeatPlan, Session
from subterra_env.records import to_samples

ROOT = Path(__file__).resolve().parents[1]
ZIP, ONNX = ROOT / "agents" / "shipped" / "team.zip", ROOT / "agents" / "shipped" / "team.onnx"


def recorded_states(radius: int) -> dict[str, np.ndarray]:
    """Observations, masks of every decision of 4 seeded heuristic games (2 tiny, 2 small), from their records."""
    parts = []
    for name, seed in (("tiny", 1), ("tiny", 2), ("small", 3), ("small", 4)):
        s = Session(preset(name), seed, SeatPlan(others=Seat("heuristic")), max_cycles=60, name=name)
        while not s.over:
            seat = int(s.env.state_.actor[0])
            s.apply(s.bots[seat].act(s.env, seat), "heuristic")
        s.record.finish(s.env.state_, truncated=s.truncated)
        parts.append(to_samples(s.record.to_json(), obs_radius=radius))
    return {k: np.concatenate([p[k] for p in parts]) for k in ("observation", "scalars", "action_mask")}


def log_softmax(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64) - x.max(axis=1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=1, keepdims=True))


def test_onnx_and_torch_choose_the_same_actions_on_recorded_states(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib", reason="torch's side of the comparison needs the train extra")
    from agents.policy_agent import PolicyAgent

    torch_agent = PolicyAgent(ZIP)
    fresh = OnnxPolicyAgent(export_onnx(ZIP, tmp_path / "team.onnx"))
    shipped = OnnxPolicyAgent(ONNX)
    assert fresh.obs_radius == shipped.obs_radius == torch_agent.obs_radius == 7
    states = recorded_states(torch_agent.obs_radius)
    n = len(states["action_mask"])
    assert n > 200
    obs = {"observation": states["observation"], "scalars": states["scalars"]}
    want = torch_agent.act_batch(obs, states["action_mask"])
    for agent in (fresh, shipped):  # the shipped file is the export of the shipped checkpoint
        got = agent.act_batch(obs, states["action_mask"])
        assert (got == want).all(), f"{(got != want).sum()} of {n} decisions differ"
        assert all(states["action_mask"][i, a] for i, a in enumerate(got))
    import torch

    with torch.no_grad():
        tensors, _ = torch_agent.policy.obs_to_tensor(obs)
        ref = torch_agent.policy.get_distribution(tensors).distribution.logits.numpy()
    got = log_softmax(shipped.logits(obs))  # torch's distribution keeps normalised logits (log-probabilities)
    np.testing.assert_allclose(got, log_softmax(ref), atol=1e-4)
    # one decision through the play command's bot, as a table seats it
    bot = PolicyBot(str(ONNX))
    s = Session(preset("tiny"), 5, SeatPlan(others=Seat("heuristic")), max_cycles=60)
    action = bot.act(s.env, int(s.env.state_.actor[0]))
    assert s.env._mask[action]


def test_a_bad_onnx_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "team.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="is not a loadable ONNX policy"):
        OnnxPolicyAgent(bad)
    with pytest.raises(FileNotFoundError, match="no ONNX policy at"):
        OnnxPolicyAgent(tmp_path / "missing.onnx")
