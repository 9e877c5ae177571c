"""Uniformly random legal play: the baseline every other agent must beat."""

from __future__ import annotations

import numpy as np


class RandomAgent:
    """Picks uniformly among the legal actions of ``action_mask``; seeded for reproducible games."""

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        if not len(legal):
            raise ValueError("action_mask has no legal action: is this agent acting?")
        return int(self.rng.choice(legal))
