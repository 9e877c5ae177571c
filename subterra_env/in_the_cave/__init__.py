"""In the Cave: the competitive caving game (RULES_ITC.md) as a second environment on Sub Terra's engine: its own
compiled rules (``core/``), a ``Game`` of the shared episode layer (``InTheCave``), and its envs on that layer."""

from subterra_env.games.in_the_cave.config import ItcConfig, load, preset
from subterra_env.games.in_the_cave.game import InTheCave
from .vector import ItcVectorEnv


def env(**kwargs):
    """The PettingZoo AEC environment (wrapped); see ``subterra_env.in_the_cave.env_aec``."""
    from .env_aec import env as _env

    return _env(**kwargs)


__all__ = ["InTheCave", "ItcConfig", "ItcVectorEnv", "env", "load", "preset"]
