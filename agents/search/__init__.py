"""Search over the compiled heuristic team: ``SearchAgent`` (public-information Monte Carlo search; with
``clairvoyant=True`` the ceiling diagnostic that sees the true future), ``worlds`` (futures consistent with what
every player knows) and ``value`` (the estimate at the rollouts' horizon)."""

from .agent import DEFAULT_HORIZON, DEFAULT_WORLDS, DEFAULT_Z, SearchAgent

__all__ = ["DEFAULT_HORIZON", "DEFAULT_WORLDS", "DEFAULT_Z", "SearchAgent"]
