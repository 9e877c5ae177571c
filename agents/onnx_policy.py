"""A trained team policy without torch: the MaskablePPO actor exported to ONNX and run with onnxruntime.

    python -m agents.onnx_policy agents/shipped/team.zip agents/shipped/team.onnx   # export (needs torch)
    agent = OnnxPolicyAgent("agents/shipped/team.onnx")                              # play (onnxruntime only)
    action = agent.act(obs, obs["action_mask"])

The graph is the policy's actor only: observation dict -> features extractor -> actor MLP -> action logits
(B, 90), from the raw int8 observation cast to float32 (what sb3's ``obs_to_tensor`` feeds it). The mask is applied
outside the graph, as ``PolicyAgent`` does (illegal actions get -inf, then the argmax), so both choose the same
action whenever their logits agree to float precision (tests/test_onnx_policy.py checks it on recorded states).
Greedy only: the shipped team plays greedy in the play command. A checkpoint trained on the heuristic's advice
(``agents.advised_policy``) exports with a third input, ``advice`` (the one-hot of the heuristic's choice, added to
the logits times its ``advice_scale`` inside the graph); its agent is bound to its games like ``PolicyAgent``
(``OnnxPolicyAgent(path).bind(env)``) and computes the advice with the compiled heuristic, still without torch.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from .advice import AdvisedAgentMixin
from .base import Observation, ObservationAgent

INPUTS = ("observation", "scalars")
ADVICE = "advice"  # the third input of an advised checkpoint's graph
OUTPUT = "logits"


def export_onnx(checkpoint: str | Path, out: str | Path, opset: int = 17) -> Path:
    """Write the checkpoint's actor as ONNX (dynamic batch axis); returns the path. Needs the train extra. A ``.pt``
    checkpoint of the native trainer (``training/ppo.py``) exports through ``agents.native_policy``."""
    if Path(checkpoint).suffix == ".pt":
        return _export_native(checkpoint, out, opset)
    import torch

    from .policy_agent import PolicyAgent

    agent = PolicyAgent(checkpoint)
    policy = agent.policy

    class Actor(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.policy = policy

        def forward(self, observation: torch.Tensor, scalars: torch.Tensor,
                    advice: torch.Tensor | None = None) -> torch.Tensor:
            obs = {"observation": observation, "scalars": scalars}
            features = self.policy.extract_features(obs, self.policy.pi_features_extractor)
            latent = self.policy.mlp_extractor.forward_actor(features)
            if advice is None:
                return self.policy.action_net(latent)
            return self.policy.advised_logits(latent, {**obs, ADVICE: advice})  # the advice and any gain head

    side = 2 * agent.obs_radius + 1
    space = agent.model.observation_space
    grid = torch.zeros(1, *space["observation"].shape[:1], side, side)
    scal = torch.zeros(1, *space["scalars"].shape)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with torch.no_grad(), warnings.catch_warnings():
        # the TorchScript exporter: it needs no onnxscript, and this plain conv/linear graph is what it handles best
        warnings.simplefilter("ignore", DeprecationWarning)
        names = list(INPUTS) + ([ADVICE] if agent.advised else [])
        args = (grid, scal) + ((torch.zeros(1, *space[ADVICE].shape),) if agent.advised else ())
        torch.onnx.export(Actor().eval(), args, str(out), input_names=names, output_names=[OUTPUT],
                          dynamic_axes={**{n: {0: "batch"} for n in names}, OUTPUT: {0: "batch"}},
                          opset_version=opset, dynamo=False)
    return out


def _export_native(checkpoint: str | Path, out: str | Path, opset: int) -> Path:
    """A ``training/ppo.py`` checkpoint's actor, with the same inputs and output as the MaskablePPO export."""
    import torch

    from .native_policy import load_checkpoint

    model, _ = load_checkpoint(checkpoint)

    class Actor(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, observation: torch.Tensor, scalars: torch.Tensor) -> torch.Tensor:
            return self.model.logits(observation, scalars)

    spec = model.spec
    opset = max(opset, getattr(model.body, "ONNX_OPSET", opset))  # egohunt's search needs integer bitwise and
    args = (torch.zeros(1, *spec.grid_shape), torch.zeros(1, spec.num_scalars))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the TorchScript exporter, as for the MaskablePPO graph
        torch.onnx.export(Actor().eval(), args, str(out), input_names=list(INPUTS), output_names=[OUTPUT],
                          dynamic_axes={**{n: {0: "batch"} for n in INPUTS}, OUTPUT: {0: "batch"}},
                          opset_version=opset, dynamo=False)
    return out


class OnnxPolicyAgent(AdvisedAgentMixin, ObservationAgent):
    """Greedy play with an exported policy (``export_onnx``): the same interface as ``PolicyAgent``."""

    def __init__(self, path: str | Path, threads: int = 1):
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"no ONNX policy at {path}: export one with python -m agents.onnx_policy "
                                    "CHECKPOINT.zip OUT.onnx")
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads  # one thread: as PolicyAgent, a small net on a busy 2-core machine
        opts.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        except Exception as e:
            raise ValueError(f"{path} is not a loadable ONNX policy: {e}") from e
        shapes = {i.name: i.shape for i in self.session.get_inputs()}
        if set(shapes) not in (set(INPUTS), set(INPUTS) | {ADVICE}):
            raise ValueError(f"{path}: inputs {sorted(shapes)}, expected {list(INPUTS)} (and {ADVICE!r} for an "
                             "advised checkpoint): export_onnx's graph")
        self.advised = ADVICE in shapes
        self.obs_radius = (int(shapes["observation"][2]) - 1) // 2
        self.path = path

    def logits(self, observations: Observation) -> np.ndarray:
        feed = {k: np.asarray(observations[k], dtype=np.float32) for k in INPUTS + ((ADVICE,) if self.advised else ())}
        return self.session.run([OUTPUT], feed)[0]

    def act_batch(self, observations: Observation | None, action_masks: np.ndarray,
                  games: Any = None) -> np.ndarray:
        masks = self.checked_masks(observations, action_masks)
        if self.advised:
            observations = {**{k: observations[k] for k in INPUTS}, ADVICE: self.advice(masks, games)}
        scores = self.logits(observations).astype(np.float64)
        return np.where(masks, scores, -np.inf).argmax(axis=1)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m agents.onnx_policy CHECKPOINT.zip|CHECKPOINT.pt OUT.onnx")
    print(export_onnx(sys.argv[1], sys.argv[2]))
