"""Teams for In the Cave (``subterra_env.in_the_cave``): uniformly random and a simple heuristic, and their
evaluation (``python -m agents.in_the_cave.evaluate``)."""

from .heuristic import HeuristicTeam, heuristic_action
from .random_team import RandomTeam

__all__ = ["HeuristicTeam", "RandomTeam", "heuristic_action"]
