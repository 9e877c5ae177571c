"""In the Cave positions written without raw record offsets: setters for tokens, depth, the stack position and
roped edges; strict arguments (ScenarioError naming the argument and the allowed values); one set of equipment
names; the rotation ids and their helper; ItcCore.step's documented codes; the coordinate convention in the docs.

Board (2 players): tile 0 home base (0,0) open N/E/S; 1 N arm (0,-1); 2 E arm (1,0); 3 S arm (0,1). y grows south.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from subterra_env.games.sub_terra.core.catalogue import SHAPE_MASK
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.actions import ACTION_NAMES, IllegalActionError, placement_name, placement_sides
from subterra_env.games.in_the_cave.core.game import STEP_DONE, STEP_ILLEGAL, STEP_OVER, tokens
from subterra_env.games.in_the_cave.observe import vp
from subterra_env.games.in_the_cave.scenario import Position
from subterra_env.scenario import ScenarioError

N_ARM = 1
DOC = (Path(__file__).resolve().parent.parent / "docs" / "in_the_cave.md").read_text()


def test_tokens_and_depth_levels_are_set_by_name():
    pos = Position()
    pos.tokens(1, traverse=2, water=1, photo=1, squeeze=(0, 1, 1), depth=[1, 2])
    assert tokens(pos.g, 1) == {"traverse": 2, "water": 1, "photo": 1, "squeeze": [0, 1, 1], "depth": [1, 2]}
    # R-ITC-SCORE-1: 2*2 + 3 + 2 + 3 + 4 + (3 + 4) for the 25 m and 50 m tokens
    assert vp(pos.g, 1) == 23
    pos.tokens(1, depth=[3])
    assert tokens(pos.g, 1)["depth"] == [3] and tokens(pos.g, 1)["traverse"] == 2


def test_the_stack_position_setter_and_draws_left():
    pos = Position()
    end = int(pos.g[L.STACK_END + 3])
    pos.draws_left(2)
    assert pos.stack_pos == end - 2 == int(pos.g[L.STACK_POS])
    pos.stack_pos = 0
    assert int(pos.g[L.STACK_POS]) == 0
    with pytest.raises(ScenarioError) as err:
        pos.stack_pos = end + 1
    assert str(err.value) == f"stack_pos={end + 1}: allowed 0..{end}"


def test_a_roped_edge_costs_no_rope_to_cross_and_its_ropes_leave_the_bank():
    pos = Position()
    d = pos.tile(0, -2, "descent", "NS", depth=25, walled=True)
    bank, lost = int(pos.g[L.BANK + L.B_ROPE]), int(pos.g[L.LOST + L.B_ROPE])
    pos.rope(N_ARM, "N")
    assert (pos.tile_field(N_ARM, "TROPE"), pos.tile_field(d, "TROPE")) == (1, 4)
    assert (int(pos.g[L.BANK + L.B_ROPE]), int(pos.g[L.LOST + L.B_ROPE])) == (bank - 1, lost + 1)
    pos.team(0, at=N_ARM)  # no rope in the backpack
    pos.act("move_N")
    assert pos.seat("POS", 0) == d and pos["AP"] == 4


def test_rope_refuses_an_edge_that_is_not_a_passage_between_depths():
    pos = Position()
    with pytest.raises(ScenarioError) as err:
        pos.rope(N_ARM, "N")
    assert str(err.value) == "rope(1, 'N'): beyond side N is no tile; only a passage can be roped"
    pos.tile(0, -2, "plain", "NS")
    with pytest.raises(ScenarioError) as err:
        pos.rope(N_ARM, "N")
    assert str(err.value) == "rope(1, 'N'): tiles 1 and 4 are at the same depth: no rope needed"


def test_team_refuses_unknown_equipment_names_and_overfull_kits():
    pos = Position()
    with pytest.raises(ScenarioError) as err:
        pos.team(0, oxygen=1)
    assert str(err.value) == ("team(0): unknown equipment 'oxygen'; allowed: consumable, rope, oxygen2, oxygen1, "
                              "camera, raft, camp_consumable, camp_rope, camp_oxygen2, camp_oxygen1, camp_camera, "
                              "camp_raft")
    with pytest.raises(ScenarioError) as err:
        pos.team(0, consumable=7, rope=2)
    assert str(err.value) == "team(0): 9 backpack slots used (a packed camp covers 2), allowed 0..8 (backpack_slots)"
    with pytest.raises(ScenarioError) as err:
        pos.team(0, camera=2)
    assert str(err.value) == "camera=2: allowed 0..1"
    with pytest.raises(ScenarioError) as err:
        pos.team(2, rope=1)
    assert str(err.value) == "seat 2: allowed 0..1 (num_players=2)"


def test_tile_refuses_a_shape_the_kind_does_not_come_in_and_bad_arguments():
    pos = Position()
    with pytest.raises(ScenarioError) as err:
        pos.tile(0, -2, "descent", "NS")
    assert str(err.value) == ("sides='NS': a descent tile comes in shapes ['T', 'X'] (T NES, X NESW, turned), not I; "
                              "walled=True keeps the sides as given")
    with pytest.raises(ScenarioError) as err:
        pos.tile(0, -2, "lake", "NS")
    assert str(err.value) == ("kind='lake': one of ['descent', 'plain', 'squeeze', 'water', 'wonder'] (a boulder "
                              "choke: Position.boulder)")
    with pytest.raises(ScenarioError) as err:
        pos.tile(0, -2, "plain", "NX")
    assert str(err.value) == "sides='NX': letters of N, E, S, W, each at most once (or a mask 0..15)"
    with pytest.raises(ScenarioError) as err:
        pos.tile(0, -2, "plain", "NS", depth=30)
    assert str(err.value) == "depth=30: metres, 0 or more, a multiple of depth_step=25"
    with pytest.raises(ScenarioError) as err:
        pos.tile(0, -2, "plain", "NS", squeeze=2)
    assert str(err.value) == "squeeze=2: 1..3 on a squeeze tile, 0 on the others (kind='plain')"
    with pytest.raises(ScenarioError) as err:
        pos.tile(0, -1, "plain", "NS")
    assert str(err.value) == "cell (0, -1) is taken by tile 1"
    assert pos.tile(0, -2, "plain", "S") == 4  # one open side: a tile walled but for it


def test_one_set_of_equipment_names_in_the_actions():
    takes = [n for n in ACTION_NAMES if n.startswith(("take_", "return_", "camp_take_", "camp_return_", "to_camp_",
                                                      "from_camp_", "discard_"))]
    kinds = {n.split("_", 1)[1] if not n.startswith("camp_") else n.split("_", 2)[2] for n in takes}
    kinds = {k.removeprefix("camp_") for k in kinds}
    assert kinds == set(L.EQUIP_NAMES)
    assert "take_oxygen2" in ACTION_NAMES and "take_oxygen" not in ACTION_NAMES
    pos = Position()
    pos.team(0, at=0)
    pos.act("pack", "take_oxygen2", "camp_take_oxygen2", "pack_done")
    assert (pos.bp(0, "oxygen2"), pos.seat("CAMPC", 0, L.E_OX2)) == (1, 1)


@pytest.mark.parametrize("shape, sides", [("X", ["NESW"] * 4), ("T", ["NES", "ESW", "NSW", "NEW"]),
                                          ("L", ["NE", "ES", "SW", "NW"]), ("I", ["NS", "EW", "NS", "EW"]),
                                          ("D", ["N", "E", "S", "W"])])
def test_rotation_ids_give_the_documented_open_sides(shape, sides):
    base = SHAPE_MASK["4" if shape == "X" else shape]
    got = [placement_sides(base, ACTION_NAMES.index(f"place_E_r{r}")) for r in range(4)]
    assert got == sides
    assert f"| {shape} " in DOC and f"| {' | '.join(sides)} |" in DOC


def test_placement_name_names_the_rotation_that_gives_wanted_sides():
    assert placement_name(SHAPE_MASK["I"], "E", "EW") == "place_E_r1"
    assert placement_name(SHAPE_MASK["L"], "N", "SW") == "place_N_r2"
    with pytest.raises(ValueError) as err:
        placement_name(SHAPE_MASK["L"], "N", "NS")
    assert str(err.value) == "a tile open NE cannot be turned to open 'NS': it can open ['ES', 'NE', 'NW', 'SW']"


def test_position_placements_lists_the_legal_ones_with_their_sides():
    pos = Position()
    pos.team(0, at=N_ARM)
    pos.next_tiles(("plain", "L"))
    pos.act("reveal")
    assert pos.placements() == {"place_N_r1": "ES", "place_N_r2": "SW"}


def test_step_codes_are_the_documented_constants():
    pos = Position()
    before = pos.g.copy()
    assert (STEP_DONE, STEP_ILLEGAL, STEP_OVER) == (0, 1, 2)
    assert int(pos.core.step(pos.G, [ACTION_NAMES.index("move_W")])[0]) == STEP_ILLEGAL  # no W arm with 2 players
    assert np.array_equal(pos.g, before)
    assert int(pos.core.step(pos.G, [ACTION_NAMES.index("end_turn")])[0]) == STEP_DONE
    pos.g[L.OVER] = L.ENDED
    assert int(pos.core.step(pos.G, [0])[0]) == STEP_OVER
    assert "1 (`STEP_ILLEGAL`) not legal in that game" in DOC
    with pytest.raises(IllegalActionError):
        Position().act("take_oxygen")  # the old name is gone: an error naming the legal actions


def test_the_docs_state_the_coordinate_convention():
    assert "The code puts north at **-y**: x grows east, y grows south" in DOC
    assert "The rules (R-ITC-SET-3) put north at +y: their N arm (0, 1) is the\ncode's (0, -1)" in DOC


# ---------------------------------------------------------------------------------------------- properties

_KINDS = ["plain", "water", "wonder", "squeeze", "descent", "boulder", "lake", ""]
_NAMES = list(L.EQUIP_NAMES) + ["camp_" + k for k in L.EQUIP_NAMES] + ["oxygen", "bombz", "camp_"]


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.integers(-3, 3), st.integers(-3, 3), st.sampled_from(_KINDS),
       st.one_of(st.text("NESWX", max_size=5), st.integers(-2, 17)), st.integers(-25, 100), st.integers(-1, 4))
def test_random_tiles_are_placed_or_refused_with_scenario_error(x, y, kind, sides, depth, squeeze):
    pos = Position()
    n = int(pos.g[L.N_TILES])
    try:
        t = pos.tile(x, y, kind, sides, depth=depth, squeeze=squeeze)
    except ScenarioError:
        assert int(pos.g[L.N_TILES]) == n  # refused: nothing placed
        return
    assert t == n and pos.at(x, y) == t


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.integers(-1, 2), st.dictionaries(st.sampled_from(_NAMES), st.integers(-1, 9), max_size=4))
def test_random_kits_are_set_or_refused_with_scenario_error(seat, kit):
    pos = Position()
    try:
        pos.team(seat, **kit)
    except ScenarioError:
        return
    assert [pos.bp(seat, k) for k in L.EQUIP_NAMES if k in kit] == [kit[k] for k in L.EQUIP_NAMES if k in kit]


def test_a_refused_kit_leaves_the_position_as_it_was():
    pos = Position()
    pos.team(0, rope=2)
    before = pos.g.copy()
    with pytest.raises(ScenarioError):
        pos.team(0, at=N_ARM, rope=4, consumable=5)
    assert np.array_equal(pos.g, before)


def test_next_tiles_refuses_a_pair_the_catalogue_lacks():
    pos = Position()
    with pytest.raises(ScenarioError) as err:
        pos.next_tiles(("descent", "I"))
    assert str(err.value).startswith("next_tiles: ('descent', 'I') is not in the catalogue; (kind, shape) pairs: "
                                     "[('descent', 'T'), ('descent', 'X'), ('plain', 'I'),")
