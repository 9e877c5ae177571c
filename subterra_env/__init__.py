"""subterra_env: the cooperative board game Sub Terra as a multi-agent RL environment.

``env()`` / ``raw_env`` are the PettingZoo AEC environment; ``Core`` is the compiled (numba) batched rules engine
behind it; ``GameConfig`` holds every setting of the rules.
"""

from .config import CAVER_NAMES, ConfigError, GameConfig, load, preset
from .core.actions import ACTION_NAMES, NUM_ACTIONS, action_id
from .core.rules import Core
from .env import EnvSnapshot, GameOverError, IllegalActionError, UnknownAgentError, env, raw_env
from .registration import ENV_ID as GYMNASIUM_ENV_ID  # registers subterra/SubTerra-v0 with Gymnasium

__version__ = "0.1.0"
__all__ = ["ACTION_NAMES", "CAVER_NAMES", "ConfigError", "Core", "EnvSnapshot", "GameConfig", "GameOverError",
           "IllegalActionError", "NUM_ACTIONS", "UnknownAgentError", "action_id", "env", "load", "preset",
           "raw_env"]
