"""``ItcVectorEnv``: B games of In the Cave stepped together, for self-play training.

Each game's acting team decides: ``step(actions)`` takes one action per game, for whichever team acts there
(``obs["actor"]``). A game that ends (or is truncated) is scored and replaced at once by a new game from the
seed stream; the observation returned for it is the new game's first. Rewards are per game and seat, (B, S):
the AEC env's end rewards (own final score minus the mean of the others', 0 when truncated), so a self-play
learner credits each seat's decisions with that seat's column. Observations are the AEC env's, batched.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .config import ItcConfig, from_dict
from .core import layout as L
from .core.actions import ACTION_NAMES, NUM_ACTIONS, IllegalActionError
from .core.game import ItcCore
from .observe import GRID_CHANNELS, VECTOR_SIZE, grid, vector


class ItcVectorEnv:
    def __init__(self, num_envs: int, config: ItcConfig | None = None, *, obs_radius: int = 7,
                 seed: int | None = None, **settings: Any):
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r}: expected a positive integer")
        self.config = from_dict(settings) if settings and config is None else (config or ItcConfig())
        self.core = ItcCore(self.config)
        self.num_envs, self.obs_radius, self.seats = num_envs, obs_radius, self.config.num_players
        self._rng = np.random.default_rng(seed)
        self.G: np.ndarray | None = None

    def _seeds(self, n: int) -> np.ndarray:
        return self._rng.integers(0, 2**62, size=n)

    def reset(self, seed: int | None = None) -> dict[str, np.ndarray]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.G = self.core.init(self._seeds(self.num_envs))
        return self._observe()

    def _observe(self) -> dict[str, np.ndarray]:
        b, w = self.num_envs, 2 * self.obs_radius + 1
        out = {"observation": np.zeros((b, GRID_CHANNELS, w, w), dtype=np.int8),
               "vector": np.zeros((b, VECTOR_SIZE), dtype=np.int16),
               "action_mask": self.core.masks(self.G).astype(np.int8),
               "actor": self.G[:, L.ACTOR].astype(np.int64)}
        for i in range(b):
            g, s = self.G[i], int(self.G[i, L.ACTOR])
            pos = int(g[L.POS + s])
            out["observation"][i] = grid(g, s, self.obs_radius, int(g[L.TX + pos]), int(g[L.TY + pos]), self.seats)
            out["vector"][i] = vector(g, self.core.P, s, self.seats)
        return out

    def step(self, actions: np.ndarray | list[int]) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray,
                                                              np.ndarray, dict[str, Any]]:
        """One action per game. Returns (obs, rewards (B, S), terminated (B,), truncated (B,), info) where
        info["scores"] (B, S) and info["winners"] (B, S) hold the final scores of the games that just ended."""
        if self.G is None:
            raise RuntimeError("step() before reset(): call reset() first")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise IllegalActionError(f"actions must be {self.num_envs} integer ids, got shape {acts.shape} "
                                     f"dtype {acts.dtype}")
        masks = self.core.masks(self.G)
        bad = [i for i, a in enumerate(acts) if not (0 <= a < NUM_ACTIONS and masks[i, a])]
        if bad:
            i = bad[0]
            legal = ", ".join(f"{a} ({ACTION_NAMES[a]!r})" for a in np.flatnonzero(masks[i]))
            raise IllegalActionError(f"game {i}: action {int(acts[i])} is not legal now (games {bad} refused, none "
                                     f"stepped); legal: {legal}")
        self.core.step(self.G, acts.astype(np.int64))
        over = self.G[:, L.OVER]
        terminated, truncated = over == L.ENDED, over == L.TRUNCATED
        n = self.seats
        scores = self.G[:, L.SCORE:L.SCORE + n].astype(np.float32)
        rewards = np.where(terminated[:, None], scores - (scores.sum(1, keepdims=True) - scores) / (n - 1), 0.0)
        info = {"scores": np.where(terminated[:, None], scores, 0).astype(np.int32),
                "winners": np.where(terminated[:, None], self.G[:, L.WIN:L.WIN + n], 0).astype(np.int8)}
        done = np.flatnonzero(terminated | truncated)
        if len(done):
            self.G[done] = self.core.init(self._seeds(len(done)))
        return self._observe(), rewards.astype(np.float32), terminated, truncated, info
