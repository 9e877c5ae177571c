"""The scenario builder refuses what the config cannot have, with a ScenarioError that names the line, the key, the
allowed values and, for another scenario's content, the scenario that allows it; random edits of valid maps are
built or refused that way, never with another exception. ``action_id`` refuses an id outside a config's space."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from subterra_env.config import GameConfig
from subterra_env.games.sub_terra.core.actions import action_id, num_actions
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.scenario import ScenarioError, build


@cache
def core(scenario: str = "base") -> Core:
    return Core(GameConfig(scenario=scenario))


def text(cavers: str = "diver@0,0 scout@1,0", row: str = "start:NESW  normal:W", **keys: str) -> str:
    lines = ["map:", f"  {row}", f"cavers: {cavers}"] + [f"{k.replace('_', '-')}: {v}" for k, v in keys.items()]
    return "\n".join(lines) + "\n"


def refused(txt: str, scenario: str = "base") -> str:
    with pytest.raises(ScenarioError) as err:
        build(txt, core=core(scenario))
    return str(err.value)


def test_a_misspelt_key_is_refused_naming_the_line_and_the_known_keys():
    msg = refused(text(bombz="1"))
    assert msg.startswith("line 4 'bombz: 1': unknown key 'bombz'; known keys: cavers, horrors, leapers, stack,")


def test_hp_above_the_starting_health_is_refused_with_the_range():
    msg = refused(text(cavers="diver@0,0 scout@1,0:hp=7"))
    assert msg == ("line 3 'cavers: diver@0,0 scout@1,0:hp=7': caver 'scout@1,0:hp=7' (the scout's starting health "
                   "is 3): hp='7' is out of range: allowed 0..3")


def test_the_bodyguards_hp_range_is_its_own_starting_health():
    st_ = build(text(cavers="bodyguard@0,0:hp=5"), core=core())
    assert int(st_.c_hp[0, 0]) == 5
    assert refused(text(cavers="bodyguard@0,0:hp=6")).endswith("hp='6' is out of range: allowed 0..5")


def test_bombs_in_the_base_game_name_annihilation():
    msg = refused(text(cavers="diver@0,0:bombs=1"))
    assert msg == ("line 3 'cavers: diver@0,0:bombs=1': caver 'diver@0,0:bombs=1': option 'bombs=': 'bombs=' needs "
                   "scenario 'annihilation' (this config plays 'base'; GameConfig(scenario='annihilation') allows it)")


def test_samples_in_annihilation_name_extraction():
    msg = refused(text(cavers="diver@0,0:samples=2"), "annihilation")
    assert "'samples=' needs scenario 'extraction' (this config plays 'annihilation'" in msg


def test_bombs_above_three_are_refused_in_annihilation():
    assert refused(text(cavers="diver@0,0:bombs=4"), "annihilation").endswith("bombs='4' is out of range: "
                                                                              "allowed 0..3")
    assert int(build(text(cavers="diver@0,0:bombs=3"), core=core("annihilation")).c_bombs[0, 0]) == 3


@pytest.mark.parametrize("row, scenario, expected", [
    ("start:NESW horror:EW", "base",
     "line 2: tile 'horror:EW' at 1,0: a 'horror' tile is shaped L or D (a corner, a dead end), not I (a straight); "
     "give the sides of one of its shapes, or add the mark 'x' to wall it as given"),
    ("start:NESW bomb:EW", "annihilation",
     "line 2: tile 'bomb:EW' at 1,0: a 'bomb' tile is shaped T (three sides), not I (a straight); give the sides of "
     "one of its shapes, or add the mark 'x' to wall it as given"),
])
def test_a_shape_the_type_does_not_come_in_is_refused(row, scenario, expected):
    assert refused(text(row=row, cavers="diver@0,0"), scenario) == expected


def test_the_walled_mark_and_a_dead_end_keep_the_sides_given():
    st_ = build(text(row="start:E horror:EW:x normal:W", cavers="diver@0,0"), core=core())
    assert [int(v) for v in st_.t_open[0, :3]] == [0b0010, 0b1010, 0b1000]


@pytest.mark.parametrize("row, scenario", [("start:NESW bomb:NEW", "base"), ("start:NESW sanctuary:NEW", "base"),
                                           ("start:NESW item:NEW", "extraction")])
def test_another_scenarios_tile_type_names_the_scenario(row, scenario):
    ttype = row.split()[1].split(":")[0]
    owner = {"bomb": "annihilation", "sanctuary": "extraction", "item": "investigation"}[ttype]
    msg = refused(text(row=row, cavers="diver@0,0"), scenario)
    assert msg == (f"line 2: tile '{ttype}:NEW' at 1,0: the tile type '{ttype}' needs scenario '{owner}' (this config "
                   f"plays '{scenario}'; GameConfig(scenario='{owner}') allows it)")


def test_an_invalid_cave_in_pair_lists_the_valid_pairs():
    msg = refused(text(row="start:NESW cave-in:EW:11x", cavers="diver@0,0"))
    assert msg == ("line 2: tile 'cave-in:EW:11x' at 1,0: no 'cave-in' tile with die numbers 11 (valid: 12, 13, 14, "
                   "15, 23, 24, 26, 35, 36, 45, 46, 56)")


def test_an_unknown_caver_option_and_a_repeated_key_are_refused():
    assert refused(text(cavers="diver@0,0:hiden")).startswith(
        "line 3 'cavers: diver@0,0:hiden': caver 'diver@0,0:hiden': unknown or repeated option 'hiden'; options: "
        "hidden, dead, under, hp=N")
    assert refused(text() + "ap: 1\nap: 2\n") == "line 5 'ap: 2': key 'ap' is given twice (also on line 4)"


@pytest.mark.parametrize("key, value, allowed", [("ap", "3", "0..2"), ("ropes", "7", "0..6"), ("redraws", "4", "0..3"),
                                                 ("explosives", "-1", "0..3"), ("round", "0", "1..10000"),
                                                 ("seed", "x", "0..4611686018427387904")])
def test_numbers_out_of_range_name_the_line_and_the_range(key, value, allowed):
    msg = refused(text(**{key: value}))
    assert msg == f"line 4 '{key}: {value}': {key}={value!r} is out of range: allowed {allowed}"


def test_switches_take_only_their_two_words():
    assert refused(text(gas="yes")) == "line 4 'gas: yes': expected 'on' or 'off', got 'yes'"
    assert refused(text(exerted="on")) == "line 4 'exerted: on': expected 'yes' or 'no', got 'on'"


def test_a_stack_shape_the_type_does_not_come_in_is_refused():
    assert refused(text(stack="horror:I")) == "line 4 'stack: horror:I': tile 'horror:I': a 'horror' tile is shaped " \
                                              "L or D, not I"


def test_deck_cards_of_another_scenario_name_it():
    assert "'doom' needs scenario 'investigation'" in refused(text(deck="doom"))
    assert "'leaper' needs scenario 'extraction'" in refused(text(deck="leaper"), "annihilation")


def test_valid_maps_build_as_before():
    st_ = build(VALID["base"], core=core())
    assert int(st_.n_tiles[0]) == 6 and int(st_.c_hp[0, 1]) == 2 and bool(st_.c_hidden[0, 2])


# ---------------------------------------------------------------------------------------------- properties
VALID = {
    "base": """map:
  start:NESW   water:EW:~    gas:W
  .            horror:N      cave-in:NES:26*
  .            .             slide:NS:r^
cavers: diver@0,0 scout@1,0:hp=2 medic@1,1:hidden leader:dead
horrors: 1,1
stack: gas:L normal:I exit
deck: flood horror:x2 out-of-time
actor: scout
ap: 1
dice: 6 1 4
ropes: 4
""",
    "annihilation": """map:
  start:NESW   bomb:NEW:B   cave-in:W:123
cavers: medic@2,0 leader@1,0:hp=0:bombs=1 scout@0,0:bombs=1
stack: normal:T bomb:T
deck: tremor gas:x2
""",
    "extraction": """map:
  start:NESW   sanctuary:NEW   horror:W
cavers: medic@1,0:samples=1 diver@0,0
horrors: 2,0:1
leapers: 1,0:0
deck: leaper leaper:x2 flood
""",
    "investigation": """map:
  start:NESW   item:NEW:I   gas:W
cavers: medic@1,0:items=flare,wetsuit diver@0,0:items=gas-mask
items: shovel grenade
doom: on
battery: medic
deck: doom tremor
""",
}
ALPHABET = "NESWx~*r^>v<0123456789BI:.,@= \nabcdehilmnoprstuvw-"


@st.composite
def mutated(draw, base: str) -> str:
    txt = base
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(txt)))
        op = draw(st.sampled_from(("replace", "insert", "delete", "swap_lines", "dup_token")))
        if op == "replace" and i < len(txt):
            txt = txt[:i] + draw(st.sampled_from(ALPHABET)) + txt[i + 1:]
        elif op == "insert":
            txt = txt[:i] + draw(st.text(ALPHABET, min_size=1, max_size=4)) + txt[i:]
        elif op == "delete":
            txt = txt[:i] + txt[i + draw(st.integers(1, 4)):]
        elif op == "swap_lines":
            lines = txt.split("\n")
            a, b = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[a], lines[b] = lines[b], lines[a]
            txt = "\n".join(lines)
        else:
            words = txt.split(" ")
            k = draw(st.integers(0, len(words) - 1))
            txt = " ".join(words[:k + 1] + [words[k]] + words[k + 1:])
    return txt


@pytest.mark.parametrize("scenario", list(VALID))
def test_every_valid_map_builds(scenario):
    st_ = build(VALID[scenario], core=core(scenario))
    assert int(st_.n_tiles[0]) >= 3


@pytest.mark.parametrize("scenario", list(VALID))
def test_random_edits_of_valid_maps_build_or_raise_scenario_error(scenario):
    @settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(mutated(VALID[scenario]), st.sampled_from(list(VALID)))
    def check(txt: str, config: str) -> None:
        try:
            st_ = build(txt, core=core(config))
        except ScenarioError:
            return
        assert int(st_.n_tiles[0]) >= 1  # built: a state with its map

    check()


# ---------------------------------------------------------------------------------------------- action_id
def test_action_id_refuses_an_id_outside_the_configs_space_naming_the_scenarios_that_have_it():
    with pytest.raises(ValueError) as err:
        action_id("place bomb", GameConfig())
    assert str(err.value) == ("action 'place bomb' (id 90) is not in the action space of scenario 'base' (ids 0..89, "
                              "masks 90 wide): scenarios 'annihilation', 'extraction', 'investigation' have it")
    with pytest.raises(ValueError) as err:
        action_id("shovel here", "extraction")
    assert str(err.value).endswith("(ids 0..106, masks 107 wide): scenario 'investigation' has it")


def test_action_id_in_the_configs_space_is_the_plain_id():
    assert action_id("place bomb", GameConfig(scenario="annihilation")) == 90
    assert action_id("move E", "base") == action_id("move E") == 11
    assert [num_actions(s) for s in ("base", "annihilation", "extraction", "investigation")] == [90, 107, 107, 154]
    mask = np.zeros(num_actions("base"), dtype=bool)
    with pytest.raises(ValueError):
        mask[action_id("place bomb", "base")]  # refused before the mask is indexed
