"""Search over the compiled heuristic team: ``SearchAgent`` (public-information Monte Carlo search; with
``clairvoyant=True`` the ceiling diagnostic that sees the true future) and ``worlds`` (futures consistent with what
every player knows)."""

from .agent import DEFAULT_WORLDS, DEFAULT_Z, SearchAgent

__all__ = ["DEFAULT_WORLDS", "DEFAULT_Z", "SearchAgent"]
