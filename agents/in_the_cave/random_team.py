"""Uniformly random legal play for In the Cave: the baseline."""

from __future__ import annotations

import numpy as np


class RandomTeam:
    """Picks uniformly among the legal actions of ``action_mask``; seeded for reproducible games."""

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict | None, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 0:
            raise ValueError("action_mask has no legal action")
        return int(self.rng.choice(legal))
