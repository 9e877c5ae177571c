"""GameConfig: validation with errors naming the key, YAML loading, presets, derived values (R-SET-2, R-SET-5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from subterra_env.config import ConfigError, GameConfig, from_dict, load, preset

CONFIGS = Path(__file__).parent.parent / "configs"


@pytest.mark.parametrize("key,value,needle", [
    ("num_cavers", 3, "num_cavers"), ("difficulty", "nightmare", "difficulty"), ("health", 0, "health"),
    ("cavers", ("diver", "diver", "scout", "medic"), "cavers"), ("cavers", ("diver", "wizard", "scout", "medic"),
                                                                 "cavers"),
    ("seat_order", "alphabetical", "seat_order"), ("exit_in_last", 0, "exit_in_last"),
])
def test_out_of_range_values_name_the_key(key: str, value, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        GameConfig(**{key: value})


def test_unknown_key_is_named() -> None:
    with pytest.raises(ConfigError, match=r"unknown setting.*'num_caverns'"):
        from_dict({"num_caverns": 4})


def test_yaml_files_load() -> None:
    assert load(CONFIGS / "default.yaml") == GameConfig()
    adv = load(CONFIGS / "advanced.yaml")
    assert (adv.difficulty, adv.num_cavers, adv.deal_size) == ("advanced", 5, 17)
    six = load(CONFIGS / "expert-six.yaml")
    assert six.cavers == ("diver", "scout", "engineer", "medic", "bodyguard", "leader") and six.deal_size == 13


def test_bad_yaml_key_names_file_and_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("num_cavers: 4\nhealth_points: 3\n")
    with pytest.raises(ConfigError, match=r"bad.yaml.*health_points"):
        load(bad)


def test_presets_and_replace() -> None:
    assert preset("easier").deal_size == 25  # R-SET-5: normal 22 + 3
    assert preset("six").deal_size == 17
    assert GameConfig().replace(num_cavers=5).deal_size == 19
    with pytest.raises(ConfigError, match="preset"):
        preset("impossible")


def test_health_defaults() -> None:  # R-SET-2
    c = GameConfig()
    assert c.caver_health == (3, 3, 3, 3, 3, 3, 5, 3)
    assert hash(c) == hash(GameConfig())


@pytest.mark.parametrize("name,tiles,exit_in_last,cards", [
    ("tiny", 12, 3, 4), ("small", 24, 4, 8), ("medium", 32, 5, 11), ("full", 64, 6, 22),
])
def test_learnable_presets_shorten_the_cave_and_keep_the_pressure(name: str, tiles: int, exit_in_last: int,
                                                                   cards: int) -> None:
    """Each learnable preset's YAML file loads; the stack holds the cave tiles plus the exit, the deck one card
    per about three tiles, and every table size and difficulty is valid."""
    from subterra_env.config import LEARNABLE_PRESETS

    assert LEARNABLE_PRESETS == ("tiny", "small", "medium", "full")
    cfg = load(CONFIGS / f"{name}.yaml")
    assert cfg == preset(name)
    assert sum(sum(shapes.values()) for shapes in cfg.tiles.values()) == tiles
    assert (cfg.exit_in_last, cfg.deal_size) == (exit_in_last, cards)
    for n in (4, 5, 6):
        for difficulty in ("easier", "normal", "advanced", "expert"):
            assert cfg.replace(num_cavers=n, difficulty=difficulty).deal_size >= 2


def test_scenario_card_seats_are_three_different_seats_of_the_table():
    from subterra_env.config import ConfigError, GameConfig

    assert GameConfig(scenario="annihilation", bomb_seats=[2, 0, 1]).bomb_seats == (2, 0, 1)  # a list, stored as a tuple
    assert GameConfig(scenario="extraction", biosamples=True, biosample_seats=(0, 1, 3)).biosample_seats == (0, 1, 3)
    with pytest.raises(ConfigError, match=r"bomb_seats.*3 different seats in 0\.\.3"):
        GameConfig(scenario="annihilation", bomb_seats=(0, 0, 1))
    with pytest.raises(ConfigError, match=r"biosample_seats.*3 different seats in 0\.\.3"):
        GameConfig(scenario="extraction", biosamples=True, biosample_seats=(0, 1, 4))
