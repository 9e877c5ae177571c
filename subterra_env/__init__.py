"""subterra_env: the cooperative board game Sub Terra as a multi-agent RL environment.

``env()`` / ``raw_env`` are the PettingZoo AEC environment; ``Core`` is the compiled (numba) batched rules engine
behind it; ``GameConfig`` holds every setting of the rules.
"""

from . import moved

moved.install()  # the old module paths (subterra_env.core, subterra_env.in_the_cave, ...) before anything imports

from .config import CAVER_NAMES, ConfigError, GameConfig, load, preset
from .games.sub_terra.core.actions import ACTION_NAMES, NUM_ACTIONS, action_id
from .games.sub_terra.core.rules import Core
from .env import EnvSnapshot, GameOverError, IllegalActionError, UnknownAgentError, env, raw_env
from .game import Game
from .registration import ENV_ID as GYMNASIUM_ENV_ID  # registers subterra/SubTerra-v0 with Gymnasium

__version__ = "0.1.0"


def make(name: str, config: object = None, **settings: object) -> "Game":
    """Any game of the package by name, as a ``Game`` of the episode layer (``subterra_env.games.registry``, whose
    docstring lists the names and settings): ``make("sub_terra", config="tiny")``, ``make("in_the_cave")``."""
    from .games.registry import make as make_game

    return make_game(name, config, **settings)

__all__ = ["ACTION_NAMES", "CAVER_NAMES", "ConfigError", "Core", "EnvSnapshot", "GameConfig", "GameOverError",
           "IllegalActionError", "NUM_ACTIONS", "UnknownAgentError", "action_id", "env", "load", "make", "preset",
           "raw_env"]
