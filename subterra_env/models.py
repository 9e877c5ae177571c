"""Neural network pieces for training on subterra_env with stable-baselines3 (needs the ``train`` extra).

:class:`SubterraFeaturesExtractor` turns the v1 observation dict into one feature vector::

    from sb3_contrib import MaskablePPO
    from subterra_env.models import SubterraFeaturesExtractor
    MaskablePPO("MultiInputPolicy", venv, policy_kwargs=dict(features_extractor_class=SubterraFeaturesExtractor))

Layout (C grid planes of W x W cells centred on the acting caver, S scalars)::

    grid (C, W, W) --log1p--+--> conv 3x3/2 -> conv 3x3/2 -> flatten -> linear (cnn_dim) ----+
                            +--> centre crop (C, 3, 3) --+                                    +--> linear (features_dim)
    scalars (S,) --log1p / log1p(127)--------------------+--> linear (mlp_dim) ---------------+

Why this shape: the coarse path (two stride-2 convolutions) sees the whole window cheaply (where the cave, the
unexplored edges and the other cavers are); the exact neighbourhood of the acting caver (its tile's open sides, the
tiles next to it) goes in uncompressed through the centre crop, next to the scalars (AP, pending decision, counts).
About 1.2 M multiply-adds per sample at W=15 (0.7 M at W=11): PPO updates stay cheap on a CPU. Values are counts
of at most 127, so ``log1p`` keeps 0/1 planes near 0/0.7 and large counts (round, tiles left) below 5 without
per-channel tables.
Any key other than ``observation`` and ``scalars`` (the AEC env's ``action_mask``) is ignored.
"""

from __future__ import annotations

import math

import gymnasium
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

GRID_KEY = "observation"
SCALAR_KEY = "scalars"
MAX_VALUE = 127  # int8 observations are in 0..127


class SubterraFeaturesExtractor(BaseFeaturesExtractor):
    """CNN over the observation grid + MLP over the scalars, concatenated and projected to ``features_dim``.

    Args:
        observation_space: a ``gymnasium.spaces.Dict`` with ``observation`` (C, W, W) and ``scalars`` (S,)
            Boxes; other keys are ignored.
        features_dim: size of the output feature vector.
        cnn_channels: output channels of the two stride-2 3x3 convolutions.
        cnn_dim: size of the linear layer after the convolutions.
        mlp_dim: size of the hidden layer over the scalars and the centre crop.
        centre_radius: half-size of the uncompressed crop around the observer (1 = 3x3 cells; 0 = the
            observer's cell only; -1 = no crop).
    """

    def __init__(self, observation_space: gymnasium.spaces.Dict, features_dim: int = 256,
                 cnn_channels: tuple[int, int] = (32, 64), cnn_dim: int = 128, mlp_dim: int = 128,
                 centre_radius: int = 1):
        super().__init__(observation_space, features_dim)
        if not isinstance(observation_space, gymnasium.spaces.Dict) or \
                {GRID_KEY, SCALAR_KEY} - set(observation_space.spaces):
            raise ValueError(f"SubterraFeaturesExtractor needs a Dict observation space with keys {GRID_KEY!r} "
                             f"and {SCALAR_KEY!r}; got {observation_space}")
        grid_shape = observation_space[GRID_KEY].shape
        if len(grid_shape) != 3 or grid_shape[1] != grid_shape[2] or grid_shape[1] % 2 != 1:
            raise ValueError(f"{GRID_KEY!r} must be (channels, W, W) with W odd; got {grid_shape}")
        channels, width = grid_shape[0], grid_shape[1]
        num_scalars = int(observation_space[SCALAR_KEY].shape[0])
        if not -1 <= centre_radius <= width // 2:
            raise ValueError(f"centre_radius={centre_radius}: expected -1..{width // 2}")
        self.centre = width // 2
        self.centre_radius = centre_radius

        c1, c2 = cnn_channels
        self.cnn = nn.Sequential(
            nn.Conv2d(channels, c1, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(c1, c2, 3, stride=2, padding=1), nn.ReLU(),
            nn.Flatten(),
        )
        with torch.no_grad():
            cnn_out = self.cnn(torch.zeros(1, *grid_shape)).shape[1]
        self.cnn_head = nn.Sequential(nn.Linear(cnn_out, cnn_dim), nn.ReLU())
        crop = 0 if centre_radius < 0 else channels * (2 * centre_radius + 1) ** 2
        self.mlp = nn.Sequential(nn.Linear(num_scalars + crop, mlp_dim), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(cnn_dim + mlp_dim, features_dim), nn.ReLU())
        self.scalar_scale = 1.0 / math.log1p(MAX_VALUE)

    def forward(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
        """``observations``: the policy's preprocessed dict (float tensors of the raw int8 values)."""
        grid = torch.log1p(observations[GRID_KEY].float().clamp(min=0))
        scalars = torch.log1p(observations[SCALAR_KEY].float().clamp(min=0)) * self.scalar_scale
        parts = [scalars]
        if self.centre_radius >= 0:
            lo, hi = self.centre - self.centre_radius, self.centre + self.centre_radius + 1
            parts.append(grid[:, :, lo:hi, lo:hi].flatten(1))
        local = self.mlp(torch.cat(parts, dim=1))
        coarse = self.cnn_head(self.cnn(grid))
        return self.head(torch.cat([coarse, local], dim=1))
