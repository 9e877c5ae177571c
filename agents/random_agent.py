"""Uniformly random legal play: the baseline every other agent must beat."""

from __future__ import annotations

import numpy as np

from .base import Observation, check_mask


class RandomAgent:
    """Picks uniformly among the legal actions of ``action_mask``; seeded for reproducible games."""

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Observation | None, action_mask: np.ndarray) -> int:
        return int(self.rng.choice(check_mask(action_mask)))

    def act_batch(self, observations: Observation | None, action_masks: np.ndarray,
                  games: np.ndarray | None = None) -> np.ndarray:
        """One uniform legal choice per row (Gumbel-max over the mask: one draw for the whole batch)."""
        masks = np.asarray(action_masks, dtype=bool)
        if not masks.any(axis=1).all():
            raise ValueError(f"row {int(np.argmin(masks.any(axis=1)))} of action_masks has no legal action")
        scores = np.where(masks, self.rng.random(masks.shape), -1.0)
        return scores.argmax(axis=1)
