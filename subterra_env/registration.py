"""The single-agent view (``subterra_env.single``) registered with Gymnasium as ``subterra/SubTerra-v0``.

``gymnasium.make("subterra/SubTerra-v0", config="tiny")`` plays a preset; ``config`` may also be a dict of settings
(``subterra_env.config.to_dict``, as plain JSON data) or a GameConfig; the other keywords are the env's
(``max_cycles``, ``obs_radius``, the reward settings, ``render_mode``, ...). Keeping the settings as plain data in
the env spec is what lets a Minari dataset rebuild its game: the spec it stores is JSON, and
``dataset.recover_environment()`` makes the env from it (``subterra_game.datasets``). The episode ends by the env's
own ``max_cycles``, so no TimeLimit is added (``max_episode_steps=None``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

import gymnasium

from .config import GameConfig, from_dict, preset

if TYPE_CHECKING:
    from .single import SubterraSingleAgentEnv

ENV_ID = "subterra/SubTerra-v0"
ENTRY_POINT = "subterra_env.registration:make_single_agent_env"


def game_config(config: str | Mapping[str, Any] | GameConfig | None) -> GameConfig:
    """A GameConfig from a preset name, a mapping of settings (JSON data: table sizes as string keys are read
    back as ints) or a GameConfig; None is the default game. ConfigError names a bad preset or setting."""
    if config is None or isinstance(config, GameConfig):
        return config or GameConfig()
    if isinstance(config, str):
        return preset(config)
    if isinstance(config, Mapping):
        return from_dict(config)
    raise TypeError(f"config={config!r}: expected a preset name, a mapping of settings or a GameConfig")


def make_single_agent_env(config: str | Mapping[str, Any] | GameConfig | None = None,
                          **kwargs: Any) -> "SubterraSingleAgentEnv":
    """The entry point of ``subterra/SubTerra-v0``: ``SubterraSingleAgentEnv`` of ``config`` (see the module
    docstring) with the env's keywords."""
    from .single import SubterraSingleAgentEnv  # imported when an env is made: registering costs no start-up

    return SubterraSingleAgentEnv(config=game_config(config), **kwargs)


def register() -> None:
    """Register ``subterra/SubTerra-v0`` with Gymnasium once (importing ``subterra_env`` does it)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point=ENTRY_POINT, max_episode_steps=None)


register()
