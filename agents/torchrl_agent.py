"""A team policy trained with TorchRL (``training/train_torchrl.py``) as an agent, and the network it trains.

    agent = TorchRLAgent("runs/torchrl_tiny/policy.pt")    # greedy; deterministic=False samples (seeded)
    env = subterra_env.env(obs_radius=agent.obs_radius)     # observations must match the checkpoint's window
    action = agent.act(obs, obs["action_mask"])

The checkpoint (``torch.save``) holds the actor's weights, the network's settings and the observation radius;
loading needs torch only (not TorchRL). The mask is always applied, so the agent never returns an illegal action.
``training/evaluate.py --team torchrl:PATH`` plays it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from .base import Observation, ObservationAgent
from .native_policy import MAX_VALUE, log_scale

CHECKPOINT_FORMAT = "subterra-torchrl-policy-v1"


class SubterraNet(nn.Module):
    """Grid (C, W, W) and scalars (S,) to ``out_dim`` values (the 90 action logits, or 1 state value).

    Why this shape: a 1x1 convolution first mixes the 34 planes of each cell down to a few features (what is
    there: tile sides, water, cavers), then a 3x3 one reads each cell's neighbourhood; both are cheap enough that a
    PPO update on a busy 2-core CPU keeps up with the env. ``log1p`` keeps 0/1 planes near 0/0.7 and counts (round,
    tiles left) below 5. Any leading batch dims are accepted (TorchRL's value estimators call it on (B, T, ...)
    data)."""

    def __init__(self, grid_shape: tuple[int, int, int], num_scalars: int, out_dim: int,
                 channels: tuple[int, int] = (8, 16), hidden: int = 128):
        super().__init__()
        c, w, _ = grid_shape
        self.grid_shape, self.num_scalars = tuple(grid_shape), num_scalars
        self.cnn = nn.Sequential(nn.Conv2d(c, channels[0], 1), nn.ReLU(),
                                 nn.Conv2d(channels[0], channels[1], 3, padding=1), nn.ReLU(), nn.Flatten())
        n = channels[1] * w * w
        self.head = nn.Sequential(nn.Linear(n + num_scalars, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                  nn.ReLU(), nn.Linear(hidden, out_dim))
        self.scalar_scale = 1.0 / math.log1p(MAX_VALUE)

    def forward(self, grid: torch.Tensor, scalars: torch.Tensor) -> torch.Tensor:
        lead = grid.shape[:-3]
        g = log_scale(grid.reshape(-1, *self.grid_shape))
        s = log_scale(scalars.reshape(-1, self.num_scalars)) * self.scalar_scale
        out = self.head(torch.cat([self.cnn(g), s], dim=1))
        return out.reshape(*lead, out.shape[-1])


def save_policy(path: str | Path, net: SubterraNet, obs_radius: int, settings: dict[str, Any]) -> None:
    """Write the actor's weights with what rebuilding it needs (``settings``: the run's, kept for reference)."""
    torch.save({"format": CHECKPOINT_FORMAT, "state_dict": net.state_dict(), "obs_radius": obs_radius,
                "grid_shape": list(net.grid_shape), "num_scalars": net.num_scalars,
                "channels": [net.cnn[0].out_channels, net.cnn[2].out_channels],
                "hidden": net.head[0].out_features, "settings": settings}, path)


def load_policy(path: str | Path) -> tuple[SubterraNet, dict[str, Any]]:
    """(the actor network, the checkpoint dict); FileNotFoundError / ValueError name what is wrong."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no TorchRL policy at {path}: expected policy.pt from training/train_torchrl.py")
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # not a torch file, or truncated
        raise ValueError(f"{path} is not a loadable torch checkpoint: {e}") from e
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path} is not a policy written by training/train_torchrl.py (format "
                         f"{CHECKPOINT_FORMAT!r})")
    from subterra_env.games.sub_terra.core.actions import NUM_ACTIONS

    net = SubterraNet(tuple(ckpt["grid_shape"]), ckpt["num_scalars"], NUM_ACTIONS, tuple(ckpt["channels"]),
                      ckpt["hidden"])
    net.load_state_dict(ckpt["state_dict"])
    net.eval()
    return net, ckpt


class TorchRLAgent(ObservationAgent):
    """Plays with a saved TorchRL actor: greedy (argmax over legal actions) or sampled with its own seed."""

    def __init__(self, path: str | Path, deterministic: bool = True, seed: int | None = 0,
                 torch_threads: int | None = 1):
        """``torch_threads``: torch's CPU thread count, set for the whole process at load (None: leave it); one
        thread, as for ``PolicyAgent``, is fastest for this small network on a busy 2-core machine."""
        if torch_threads is not None:
            torch.set_num_threads(torch_threads)
        self.net, ckpt = load_policy(path)
        self.obs_radius = int(ckpt["obs_radius"])
        self.deterministic = deterministic
        self.generator = torch.Generator().manual_seed(0 if seed is None else int(seed))
        self.path = Path(path)
        self.label = f"torchrl:{self.path.parent.name}/{self.path.stem}"

    def act_batch(self, observations: Observation | None, action_masks: np.ndarray,
                  games: np.ndarray | None = None) -> np.ndarray:
        """One action per row of the (B, 90) masks; ``observations`` has a leading batch axis."""
        masks = self.checked_masks(observations, action_masks)
        grid = np.asarray(observations["observation"])
        if grid.shape[1:] != self.net.grid_shape or len(grid) != len(masks):
            raise ValueError(f"observations['observation'] has shape {grid.shape}: this checkpoint reads "
                             f"(B, {', '.join(map(str, self.net.grid_shape))}) (obs_radius {self.obs_radius}), "
                             f"B = {len(masks)}")
        with torch.no_grad():
            logits = self.net(torch.from_numpy(grid), torch.as_tensor(np.asarray(observations["scalars"])))
            logits = logits.masked_fill(~torch.from_numpy(masks), float("-inf"))
            if self.deterministic:
                return logits.argmax(1).numpy()
            return torch.multinomial(torch.softmax(logits, 1), 1, generator=self.generator)[:, 0].numpy()
