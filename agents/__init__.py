"""Agents for subterra_env. Protocol: ``act(observation, action_mask) -> action id``."""

from .random_agent import RandomAgent

__all__ = ["RandomAgent"]
