"""The heuristic team, compiled with numba beside the rules core: ``HeuristicAgent`` (its thin Python face, in
``agent.py``) and ``weights`` (the planner's weights by name). See ``agent.py`` for how it plays."""

from .agent import HeuristicAgent
from .weights import DEFAULTS as DEFAULT_WEIGHTS

__all__ = ["DEFAULT_WEIGHTS", "HeuristicAgent"]
