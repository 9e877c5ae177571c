"""Teams for In the Cave (``subterra_env.in_the_cave``): uniformly random and a simple heuristic, agent kinds with one
signature (``kinds.py``: random, heuristic, a trained policy) and their round-robin evaluation
(``python -m agents.in_the_cave.evaluate``)."""

from .heuristic import HeuristicTeam, heuristic_action
from .kinds import AgentKind, PolicyPlayer, RandomPlayer, heuristic_player, parse_kind, parse_kinds
from .random_team import RandomTeam

__all__ = ["AgentKind", "HeuristicTeam", "PolicyPlayer", "RandomPlayer", "RandomTeam", "heuristic_action",
           "heuristic_player", "parse_kind", "parse_kinds"]
