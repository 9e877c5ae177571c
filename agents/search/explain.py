"""The search's own account of a decision it just made: its best actions with their values.

``SearchAgent.decide`` keeps, per row, every searched action's mean gain in cavers out over the heuristic's choice
in the same sampled worlds (``last_gains``; NaN where it did not search, e.g. a forced decision). This reads that
array only: the search decides exactly as before.
"""

from __future__ import annotations

import numpy as np

from subterra_env.games.sub_terra.core.actions import ACTION_NAMES


def best_actions(agent, k: int = 2, row: int = 0) -> list[tuple[int, float]]:
    """The ``k`` actions of the last decision's ``row`` with the highest gain over the heuristic's choice (the
    heuristic's own is 0.0), best first; [] when that decision was not searched."""
    gains = np.asarray(getattr(agent, "last_gains", np.empty((0, 0))))
    if gains.ndim != 2 or row >= gains.shape[0]:
        return []
    g = gains[row]
    searched = np.flatnonzero(~np.isnan(g))
    order = searched[np.argsort(-g[searched], kind="stable")]
    return [(int(a), float(g[a])) for a in order[:k]]


def values_line(pairs: list[tuple[int, float]], chosen: int | None = None) -> str:
    """``best_actions`` in words: "move N +0.04, end turn +0.00" (cavers out over the heuristic's choice); with
    ``chosen`` not among them, why it was kept: the search replaces the heuristic's choice only for a clear gain."""
    line = ", ".join(f"{ACTION_NAMES[a]} {v:+.2f}" for a, v in pairs)
    if chosen is not None and pairs and chosen not in [a for a, _ in pairs]:
        line += f" (kept {ACTION_NAMES[chosen]}: no clear gain)"
    return line


__all__ = ["best_actions", "values_line"]
