"""Every game of the package by name, as Pgx's ``make``: the rules of one config as a ``Game``
(``subterra_env.game``), ready for the episode layer (``Episodes(num_games, game=make(name))``) or for direct use.

    from subterra_env.games.registry import make, names   # or subterra_env.make
    game = make("sub_terra", config="tiny")             # a preset, or any GameConfig field as a keyword
    game = make("sub_terra_investigation", num_cavers=4)
    game = make("in_the_cave", num_players=3, reward_vp=0.5)
    batch = game.init(np.arange(8)); mask = game.legal_mask(batch)

| name | game | settings |
|---|---|---|
| ``sub_terra`` | Sub Terra, the base game (``sub_terra.game.SubTerra`` over ``sub_terra.core.rules.Core``) | ``config`` (a ``GameConfig`` or a preset name), any ``GameConfig`` field, and the team reward (``reward_result``, ``reward_escape``, ``reward_health``, ``reward_tile``, ``reward_way``, ``reward_danger``, ``reward_knockout``); ``threads`` |
| ``sub_terra_annihilation``, ``sub_terra_extraction``, ``sub_terra_investigation`` | a Sub Terra scenario (RULES_VAR.md): ``sub_terra`` with ``scenario`` set | as ``sub_terra`` |
| ``in_the_cave`` | In the Cave (``in_the_cave.game.InTheCave`` over ``ItcCore``) | ``config`` (an ``ItcConfig`` or a preset name), any ``ItcConfig`` field, ``reward_vp`` |

The PettingZoo environments over these games are ``subterra_env.env()`` and ``subterra_env.in_the_cave.env()``.
An unknown name, setting or preset is refused with an error naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from subterra_env.config import GameConfig
from subterra_env.config import from_dict as sub_terra_settings
from subterra_env.config import preset as sub_terra_preset
from subterra_env.config import to_dict as sub_terra_dict
from subterra_env.game import Game
from subterra_env.games.in_the_cave.config import ItcConfig
from subterra_env.games.in_the_cave.config import from_dict as itc_settings
from subterra_env.games.in_the_cave.config import preset as itc_preset
from subterra_env.games.in_the_cave.config import to_dict as itc_dict
from subterra_env.games.in_the_cave.game import InTheCave
from subterra_env.rewards import REWARD_KEYWORDS, TeamReward
from subterra_env.games.sub_terra.game import SubTerra

SCENARIOS = ("annihilation", "extraction", "investigation")


def _sub_terra(scenario: str) -> Callable[..., Game]:
    def make_game(config: GameConfig | str | None = None, *, threads: int | None = None, **settings: Any) -> Game:
        reward = {k: settings.pop(k) for k in REWARD_KEYWORDS if k in settings}
        base = sub_terra_preset(config) if isinstance(config, str) else config
        if scenario != "base":
            settings["scenario"] = scenario
        if settings:
            base = sub_terra_settings({**(sub_terra_dict(base) if base else {}), **settings})
        return SubTerra(base, threads=threads, team_reward=TeamReward.from_keywords(**reward))

    return make_game


def _in_the_cave(config: ItcConfig | str | None = None, *, reward_vp: float = 0.0, **settings: Any) -> Game:
    base = itc_preset(config) if isinstance(config, str) else config
    if settings:
        base = itc_settings({**(itc_dict(base) if base else {}), **settings})
    return InTheCave(base, reward_vp=reward_vp)


GAMES: dict[str, Callable[..., Game]] = {"sub_terra": _sub_terra("base"),
                                         **{f"sub_terra_{s}": _sub_terra(s) for s in SCENARIOS},
                                         "in_the_cave": _in_the_cave}


def names() -> tuple[str, ...]:
    """The names ``make`` knows."""
    return tuple(GAMES)


def make(name: str, config: Any = None, **settings: Any) -> Game:
    """The game ``name`` (see the module docstring) with these settings."""
    if name not in GAMES:
        raise ValueError(f"no game named {name!r}; the games: {', '.join(GAMES)}")
    return GAMES[name](config, **settings)
