"""Agents for subterra_env. Protocol (``agents.base.Agent``): ``act(observation, action_mask) -> action id`` and
``act_batch(observations, action_masks, games=None) -> action ids``.

``RandomAgent`` (the floor), ``HeuristicAgent`` (a hand-written team player bound to its game, compiled with numba),
``SearchAgent`` (Monte Carlo search over the heuristic team; ``clairvoyant=True`` is the ceiling diagnostic, never a
teammate), ``PolicyAgent``
(a trained MaskablePPO checkpoint; torch is imported only when one is loaded), ``RLlibAgent`` (the shared module
of an RLlib checkpoint from training/train_rllib.py; Ray is imported only when one is loaded). The shipped team:
``PolicyAgent(SHIPPED_TEAM)``.
"""

from pathlib import Path

from .base import Agent, GameView, game_view
from .heuristic import HeuristicAgent
from .policy_agent import PolicyAgent
from .random_agent import RandomAgent
from .rllib_agent import RLlibAgent
from .search import SearchAgent

SHIPPED_TEAM = Path(__file__).resolve().parent / "shipped" / "team.zip"

__all__ = ["SHIPPED_TEAM", "Agent", "GameView", "HeuristicAgent", "PolicyAgent", "RLlibAgent", "RandomAgent",
           "SearchAgent", "game_view"]
