"""``subterra_env.make`` (``subterra_env.games.registry``): every game by name, with its settings, on the one episode layer."""

from __future__ import annotations

import numpy as np
import pytest

from subterra_env.config import ConfigError, preset
from subterra_env.episode import Episodes
from subterra_env.game import Game
from subterra_env.games.registry import make, names


def test_the_names() -> None:
    assert names() == ("sub_terra", "sub_terra_annihilation", "sub_terra_extraction", "sub_terra_investigation",
                       "in_the_cave")


@pytest.mark.parametrize("name", names())
def test_every_game_plays_on_the_episode_layer(name: str) -> None:
    game = make(name)
    assert isinstance(game, Game)
    episodes = Episodes(3, game=game, seed=5)
    episodes.reset()
    rng = np.random.default_rng(0)
    for _ in range(40):
        noise = rng.random(episodes.mask.shape) * episodes.mask
        step = episodes.step(noise.argmax(axis=1))
        assert step.reward.shape == (3,)
    assert episodes.book.ep_length.min() >= 1


def test_settings_reach_the_game() -> None:
    tiny = make("sub_terra", config="tiny", reward_escape=0.5)
    assert tiny.config == preset("tiny") and tiny.team_reward.escape == 0.5
    five = make("sub_terra", num_cavers=5)
    assert five.config.num_cavers == 5 and five.num_seats == 5
    assert make("sub_terra_extraction", num_cavers=4).config.scenario == "extraction"
    itc = make("in_the_cave", num_players=3, reward_vp=0.25)
    assert itc.num_seats == 3 and itc.reward_vp == 0.25


def test_bad_names_and_settings_are_named() -> None:
    with pytest.raises(ValueError, match="no game named 'subterra'; the games: sub_terra, "):
        make("subterra")
    with pytest.raises(ConfigError, match="num_caver"):
        make("sub_terra", num_caver=4)
    with pytest.raises(ConfigError, match="num_player"):
        make("in_the_cave", num_player=3)


def test_subterra_env_make_is_the_registry() -> None:
    """``subterra_env.make`` gives the same games as ``subterra_env.games.registry.make``."""
    import subterra_env

    game = subterra_env.make("sub_terra", config="tiny")
    assert type(game).__name__ == "SubTerra" and game.config.num_cavers == make("sub_terra", config="tiny").config.num_cavers
    with pytest.raises(ValueError, match="no game named 'sub terra'"):
        subterra_env.make("sub terra")


def test_old_module_paths_are_the_moved_modules() -> None:
    """The paths from before the games moved into ``subterra_env/games/`` import the very same modules (one class
    State, one compiled kernel), and those modules keep their own names."""
    import importlib

    from subterra_env.moved import MOVED

    assert importlib.import_module("subterra_env.core.rules") is importlib.import_module(
        "subterra_env.games.sub_terra.core.rules")
    assert importlib.import_module("subterra_env.sub_terra").SubTerra is importlib.import_module(
        "subterra_env.games.sub_terra.game").SubTerra
    old_itc = importlib.import_module("subterra_env.in_the_cave.core.game")
    assert old_itc is importlib.import_module("subterra_env.games.in_the_cave.core.game")
    assert old_itc.__name__ == old_itc.__spec__.name == "subterra_env.games.in_the_cave.core.game"
    from subterra_env.in_the_cave.config import ItcConfig  # an In the Cave rule module under the env's package

    assert ItcConfig.__module__ == "subterra_env.games.in_the_cave.config"
    assert sorted(MOVED) == ["subterra_env.core", "subterra_env.in_the_cave.config", "subterra_env.in_the_cave.core",
                             "subterra_env.in_the_cave.game", "subterra_env.in_the_cave.invariants",
                             "subterra_env.in_the_cave.observe", "subterra_env.in_the_cave.scenario",
                             "subterra_env.sub_terra"]
