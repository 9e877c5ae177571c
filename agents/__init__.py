"""Agents for subterra_env. Protocol (``agents.base.Agent``): ``act(observation, action_mask) -> action id`` and
``act_batch(observations, action_masks, games=None) -> action ids``."""

from .base import Agent, GameView, game_view
from .random_agent import RandomAgent

__all__ = ["Agent", "GameView", "RandomAgent", "game_view"]
