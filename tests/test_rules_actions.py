"""Rules tests for the action phase (R-ACT), connections (R-CON) and tiles (R-TILE).

Scenarios are built with ``scene(map rows..., key=value)`` (see tests/helpers.py and subterra_env/scenario.py);
map cells are ``column,row``, the start tile's column and row are those of its place in the rows.
"""

from __future__ import annotations

from collections import Counter

import pytest

from helpers import Game, scene
from subterra_env.config import GameConfig
from subterra_env.games.sub_terra.core.catalogue import T_CAVE_IN, T_LEDGE, T_NORMAL, T_SLIDE, T_SQUEEZE, build

DM = "diver@0,0 medic@0,0"
LINE = scene("start:NESW normal:EW normal:EW normal:EW normal:W", cavers=DM)


def only(names: set[str], prefix: str) -> set[str]:
    return {n for n in names if n.startswith(prefix)}


# ---------------------------------------------------------------- R-ACT: turn, AP, exert, checks


def test_two_action_points_then_only_end_or_exert():  # R-ACT-1
    g = Game(LINE)
    assert g.ap == 2
    g.play("move E", "move W")  # the same action kind twice
    assert g.ap == 0 and g.pos("diver") == (0, 0) and g.actor() == "diver"
    assert g.legal() == {"end turn", "exert"}
    g.play("end turn")
    assert g.actor() == "medic" and g.ap == 2
    g.play("end turn")  # round 2: the marker passed to the medic
    assert g.actor() == "medic" and int(g.st.round[0]) == 2
    g.play("end turn")
    assert g.actor() == "diver" and g.ap == 2  # unused AP were lost, not saved


def test_exert_gives_third_ap_and_fails_check_at_end_of_turn():  # R-ACT-2
    g = Game(scene("start:NESW normal:EW water:W:~", cavers="medic@0,0 diver@0,0", dice="3"))
    g.play("move E", "exert")
    assert g.ap == 2 and "exert" not in g.legal()  # once per turn
    assert g.hp("medic") == 3  # no check yet
    g.play("swim E")  # a 2-AP action with the exerted AP and the remaining normal one
    # AP spent after exerting: the turn ends, the check (die 3) fails, the swim stands
    assert g.actor() == "diver"
    assert g.pos("medic") == (2, 0) and g.hp("medic") == 2


def test_exert_check_passes_on_four_and_can_be_taken_late():  # R-ACT-2, R-ACT-3
    g = Game(LINE + "dice: 4\n")
    g.play("move E", "move E", "exert", "move E")
    assert g.actor() == "medic" and g.pos("diver") == (3, 0) and g.hp("diver") == 3
    assert int(g.st.ctr[0]) == 1  # exactly one die, for the exert check


@pytest.mark.parametrize("caver, die, hidden", [
    ("medic", 3, False), ("medic", 4, True), ("leader", 3, True), ("leader", 2, False),
])
def test_skill_check_four_plus_leader_three_plus(caver, die, hidden):  # R-ACT-3, R-ACT-14
    g = Game(scene("start:NESW", cavers=f"{caver}@0,0 diver@0,0", dice=die))
    g.play("hide")
    assert bool(g.st.c_hidden[0, g.seat(caver)]) is hidden
    assert g.ap == 0 and g.actor() == caver


@pytest.mark.parametrize("auto, streak, hidden", [(False, 2, False), (True, 1, False), (True, 2, True)])
def test_hide_third_round_variant(auto, streak, hidden):  # R-ACT-14 (variant, default off)
    g = Game(scene("start:NESW", cavers="medic@0,0 diver@0,0", dice=1), hide_third_round_auto=auto)
    g.st.c_hide_streak[0, 0] = streak  # hid in the last `streak` rounds in a row
    g.play("hide")  # die 1 fails; the third round in a row succeeds anyway under the variant
    assert bool(g.st.c_hidden[0, 0]) is hidden


def test_unconscious_during_own_turn_ends_it_at_once():  # R-ACT-4, R-TILE-9
    g = Game(scene("start:NESW rough:NESW", cavers="medic@0,0:hp=1 diver@0,0", dice="1 1"))
    g.play("exert", "move E")  # 2 AP left, but the rough terrain check (die 1) knocks the medic out
    assert g.hp("medic") == 0 and g.pos("medic") == (1, 0)
    assert g.actor() == "diver" and g.ap == 2
    assert int(g.st.ctr[0]) == 1  # no exert check for an unconscious caver


# ---------------------------------------------------------------- R-ACT: basic and hazard actions


def test_reveal_then_choose_a_rotation_opening_back():  # R-ACT-5
    g = Game(scene("start:E", cavers=DM, stack="normal:L normal:I"))
    assert only(g.legal(), "reveal") == {"reveal E"} and only(g.legal(), "explore") == {"explore E"}
    g.play("reveal E")
    assert g.legal() == {"rotate 180", "rotate 270"}  # the two corners that open west; no end turn now
    g.play("rotate 270")
    t = g.tile(1, 0)
    assert int(g.st.t_type[0, t]) == T_NORMAL and int(g.st.t_open[0, t]) == 0b1001  # open N and W
    assert g.pos("diver") == (0, 0) and g.ap == 1
    assert int(g.st.stack_pos[0]) == g.st.stack.shape[1] - 1
    assert only(g.legal(), "reveal") == set() and "move E" in g.legal()  # the start's only side is used


def test_ledge_and_slide_placed_arrow_away_from_revealer():  # R-ACT-5, R-TILE-7, R-TILE-8
    g = Game(scene(".  start:NESW", cavers="diver@1,0 medic@1,0", stack="ledge slide"))
    g.play("reveal N")  # one orientation only: placed at once
    t = g.tile(1, -1)
    assert int(g.st.t_type[0, t]) == T_LEDGE and int(g.st.t_arrow[0, t]) == 0 and int(g.st.t_open[0, t]) == 0b0101
    g.play("reveal W")
    t = g.tile(0, 0)
    assert int(g.st.t_type[0, t]) == T_SLIDE and int(g.st.t_arrow[0, t]) == 3 and int(g.st.t_open[0, t]) == 0b1010


def test_move_cannot_enter_flood_squeeze_or_rubble():  # R-ACT-6, R-ACT-10, R-ACT-11, R-ACT-12
    g = Game(scene(".         water:S:~    .",
                   "normal:E  start:NESW   squeeze:W",
                   ".         cave-in:N:*  .", cavers="geologist@1,1 medic@1,1"))
    legal = g.legal()
    assert only(legal, "move") == {"move W"}
    assert only(legal, "swim") == {"swim N"} and only(legal, "squeeze") == {"squeeze E"}
    assert only(legal, "dig") == {"dig S"}
    g.play("swim N")
    assert g.pos("geologist") == (1, 0) and g.ap == 0
    g.play("end turn", "squeeze E")
    assert g.pos("medic") == (2, 1) and g.ap == 0
    g.play("end turn")  # round 2: the medic starts
    assert g.actor() == "medic" and only(g.legal(), "move") == {"move W"}  # leaving a squeeze: plain Move
    g.play("end turn")
    assert only(g.legal(), "move") == {"move S"}  # leaving a flooded tile: plain Move
    g.play("move S", "end turn")  # round 3 starts with the geologist
    g.play("dig S")
    assert not g.st.t_rubble[0, g.tile(1, 2)] and g.ap == 0
    g.play("end turn", "move W", "move S")
    assert g.pos("medic") == (1, 2)


def test_swim_from_flood_into_flood():  # R-ACT-10
    g = Game(scene("start:NESW water:EW:~ water:W:~", cavers="geologist@1,0 medic@0,0"))
    assert only(g.legal(), "move") == {"move W"} and only(g.legal(), "swim") == {"swim E"}


def test_dig_here_and_rubble_can_be_left():  # R-ACT-12, R-TILE-5
    g = Game(scene("start:NESW cave-in:W:*", "normal:N cave-in:N:*", cavers="diver@1,0 medic@0,0"))
    legal = g.legal()
    assert only(legal, "move") == {"move W"}  # leaving a rubble tile is fine
    assert only(legal, "dig") == {"dig here"}  # (1,1) is not connected: no dig S
    g.play("dig here")
    assert not g.st.t_rubble[0, g.tile(1, 0)] and g.st.t_rubble[0, g.tile(1, 1)]
    g.play("end turn")
    assert only(g.legal(), "move") == {"move E", "move S"}


def test_explore_onto_a_squeeze():  # R-ACT-7, R-TILE-6
    g = Game(scene("start:E", cavers=DM, stack="squeeze:I"))
    g.play("explore E")  # the only orientation: placed and entered in one action
    t = g.tile(1, 0)
    assert int(g.st.t_type[0, t]) == T_SQUEEZE and g.pos("diver") == (1, 0) and g.ap == 1
    g.play("end turn")  # others enter a squeeze only by Squeeze
    assert only(g.legal(), "move") == set() and only(g.legal(), "squeeze") == {"squeeze E"}


def test_explore_with_a_rotation_choice_and_cost_setting():  # R-ACT-7
    text = scene("start:E", cavers=DM, stack="normal:L")
    g = Game(text)
    g.play("explore E")
    assert g.legal() == {"rotate 180", "rotate 270"} and g.pos("diver") == (0, 0)
    g.play("rotate 180")
    assert g.pos("diver") == (1, 0) and g.ap == 1 and int(g.st.t_open[0, g.tile(1, 0)]) == 0b1100
    g2 = Game(text, explore_cost=2)
    g2.play("explore E", "rotate 180")
    assert g2.ap == 0


def test_run_up_to_three_move_steps():  # R-ACT-8
    g = Game(LINE)
    g.play("run")
    assert g.legal() == {"run step E"} and g.ap == 0
    g.play("run step E")
    assert g.legal() == {"run step E", "run step W", "stop"}
    g.play("run step E", "run step E")
    assert g.pos("diver") == (3, 0) and g.legal() == {"end turn", "exert"}  # three steps end the run
    g2 = Game(LINE)
    g2.play("run", "run step E", "stop")
    assert g2.pos("diver") == (1, 0) and g2.legal() == {"end turn", "exert"}


def test_run_has_no_swim_and_pays_entering_effects():  # R-ACT-8, R-ACT-16, R-HZ-3
    g = Game(scene("start:NESW gas:EW water:EW:~", cavers="geologist@0,0 medic@0,0", gas="on"))
    g.play("run", "run step E")
    assert g.hp("geologist") == 1  # gas entering damage on a run step
    assert g.legal() == {"run step W", "stop"}  # no swimming within a run


def test_heal_self_other_and_wake_the_unconscious():  # R-ACT-9
    g = Game(scene("start:NESW normal:W", cavers="medic@0,0:hp=1 leader@0,0:hp=0 diver@1,0:hp=1"))
    assert only(g.legal(), "heal") == {"heal caver 6", "heal caver 8"}  # not the diver on another tile
    g.play("heal caver 8")
    assert g.hp() == {"medic": 1, "leader": 1, "diver": 1} and g.ap == 0
    g.play("end turn")
    assert g.actor() == "leader"  # conscious again: takes its turn
    g.play("heal caver 8")
    assert g.hp("leader") == 2


def test_heal_cost_setting():  # R-ACT-9
    g = Game(scene("start:NESW", cavers="medic@0,0:hp=1 diver@0,0"), heal_cost=1)
    g.play("heal caver 6", "heal caver 6")
    assert g.hp("medic") == 3 and g.ap == 0


@pytest.mark.parametrize("die, roped", [(3, False), (5, True)])
def test_place_rope_needs_a_skill_check(die, roped):  # R-ACT-13
    g = Game(scene("start:NESW ledge:EW:>", cavers="diver@1,0 medic@0,0", dice=die))
    g.play("place rope")
    assert bool(g.st.t_rope[0, g.tile(1, 0)]) is roped and g.ap == 0
    assert int(g.st.ropes_left[0]) == (5 if roped else 6)


def test_place_rope_only_on_ledge_or_slide_with_tokens_left():  # R-ACT-13, R-ACT-15
    g = Game(scene("start:NESW ledge:EW:>r slide:W:>", cavers="diver@1,0 medic@0,0 leader@2,0", ropes=1))
    assert "place rope" not in g.legal()  # this ledge already holds a rope
    g.play("end turn")
    assert "place rope" not in g.legal()  # start tile
    g.play("end turn")
    assert "place rope" in g.legal()
    g.st.ropes_left[0] = 0
    assert "place rope" not in g.legal()


def test_no_effect_actions_are_illegal():  # R-ACT-15
    text = scene("start:NESW normal:W", cavers="medic@0,0:hidden diver@0,0")
    g = Game(text)
    assert only(g.legal(), "heal") == set() and only(g.legal(), "dig") == set() and "hide" not in g.legal()
    loose = Game(text, no_effect_actions_illegal=False)
    assert {"heal caver 6", "heal caver 1", "hide", "dig here", "dig E"} <= loose.legal()
    loose.play("heal caver 6")  # allowed, but health never exceeds the start value (R-SET-2)
    assert loose.hp() == {"medic": 3, "diver": 3} and loose.ap == 0


def test_every_movement_triggers_entering_effects():  # R-ACT-16, R-HOR-5, R-TILE-9
    g = Game(scene("start:NESW rough:NESW horror:W", cavers="medic@0,0 diver@0,0", horrors="2,0", dice=2))
    g.play("run", "run step E")
    assert g.hp("medic") == 2  # rough terrain check on a run step (die 2 fails)
    g.play("run step E")  # onto the horror
    assert g.hp("medic") == 0 and g.actor() == "diver"


def test_run_swim_and_squeeze_obey_ledge_restriction():  # R-ACT-16, R-TILE-7
    g = Game(scene("normal:E start:NESW ledge:EW:> squeeze:W", ".  water:N:~  .  .", cavers="geologist@2,0 medic@1,0"))
    assert only(g.legal(), "squeeze") == set()  # across the ledge's arrow side
    g.play("run")
    assert g.legal() == {"run step W"}
    g.play("run step W")
    assert g.legal() == {"run step W", "run step E", "stop"}  # no swim S within the run
    g.play("stop", "end turn")
    assert only(g.legal(), "swim") == {"swim S"} and only(g.legal(), "move") == {"move W", "move E"}


# ---------------------------------------------------------------- R-CON


def test_half_open_edge_is_a_wall_and_no_diagonals():  # R-CON-1
    g = Game(scene("start:NESW normal:N", "normal:NE normal:W", cavers=DM))
    assert only(g.legal(), "move") == {"move S"}
    assert only(g.legal(), "reveal") == set()  # N and W face empty cells but the stack is empty
    st = g.st
    assert st.t_nbr[0, g.tile(0, 0)].tolist() == [-1, -1, g.tile(0, 1), -1]
    assert st.t_nbr[0, g.tile(0, 1)].tolist() == [g.tile(0, 0), g.tile(1, 1), -1, -1]
    g.play("move S")
    assert only(g.legal(), "move") == {"move N", "move E"}


def test_horrors_path_through_connected_edges_ignoring_hazards():  # R-CON-2
    g = Game(scene("start:S squeeze:S:*", "cave-in:NE:* water:NW:~x", cavers=DM, horrors="1,0"))
    path = []
    for _ in range(3):
        g.play("end turn", "end turn")
        path.append(g.horrors()[0])
    assert path == [(1, 1), (0, 1), (0, 0)]  # around the wall, through flood and rubble
    assert g.hp() == {"diver": 0, "medic": 0}


def test_placement_need_not_match_other_neighbours():  # R-CON-3
    g = Game(scene("start:E  .", ".  normal:NESW", cavers=DM, stack="normal:I"))
    g.play("reveal E")  # the straight must open west, so it is E-W: a wall toward the crossing below
    t, below = g.tile(1, 0), g.tile(1, 1)
    assert int(g.st.t_open[0, t]) == 0b1010
    assert int(g.st.t_nbr[0, t, 2]) == -1 and int(g.st.t_nbr[0, below, 0]) == -1


def test_rotations_that_close_the_cave_are_not_offered():  # R-CON-4
    g = Game(scene("start:E  .  normal:W", ".  normal:N  .", cavers=DM, stack="normal:T"))
    g.play("reveal E")  # only north of the new cell is empty: E-S-W would close the cave
    assert g.legal() == {"rotate 180", "rotate 270"}


def test_dead_end_that_closes_the_cave_is_discarded():  # R-CON-4
    g = Game(scene("start:E", cavers=DM, stack="normal:D normal:I normal:D"))
    g.play("reveal E")
    t = g.tile(1, 0)
    assert int(g.st.t_open[0, t]) == 0b1010 and int(g.st.stack_pos[0]) == g.st.stack.shape[1] - 1
    assert int(g.st.open_sides[0]) == 1


def test_open_side_counts_whatever_rubble_and_exit_never_discarded():  # R-CON-4
    g = Game(scene("start:ES:x", "cave-in:NS:*x", cavers=DM, stack="normal:D exit"))
    g.play("reveal E")  # the open side below the rubble keeps the cave open: the dead end is placed
    assert int(g.st.t_open[0, g.tile(1, 0)]) == 0b1000 and int(g.st.open_sides[0]) == 1
    g2 = Game(scene("start:E", cavers=DM, stack="exit normal:I"))
    g2.play("reveal E")  # the exit closes the cave but is placed anyway
    assert int(g2.st.exit_tile[0]) == g2.tile(1, 0) and int(g2.st.open_sides[0]) == 0


def test_no_reveal_or_explore_with_empty_stack():  # R-CON-4
    g = Game(scene("start:E", cavers=DM, stack="normal:D"))
    assert "reveal E" in g.legal()
    g.play("reveal E")  # the only tile closes the cave: discarded, the stack runs out, nothing placed
    assert int(g.st.n_tiles[0]) == 1 and g.ap == 1
    assert only(g.legal(), "reveal") | only(g.legal(), "explore") == set()


# ---------------------------------------------------------------- R-TILE


def test_tile_catalogue_counts_and_cave_in_numbers():  # R-TILE-5 (and the R-TILE catalogue)
    cat = build(GameConfig())
    assert cat.n_cave == 64
    assert Counter(cat.tile_type[:64].tolist())[T_CAVE_IN] == 12
    caves = cat.tile_type == T_CAVE_IN
    assert Counter(cat.die_a[caves].tolist() + cat.die_b[caves].tolist()) == {f: 4 for f in range(1, 7)}


def test_normal_tile_has_no_effect():  # R-TILE-2
    g = Game(LINE + "gas: on\nout-of-time: on\n")
    g.play("move E", "move E")
    assert g.hp("diver") == 3 and int(g.st.ctr[0]) == 0


def test_water_tile_is_normal_until_flooded():  # R-TILE-3
    g = Game(scene("start:NESW water:W", cavers=DM, stack="water:I", deck="flood", actor="medic"))
    assert only(g.legal(), "move") == {"move E"}
    g.play("end turn")  # the Flood floods the water tile
    assert g.st.t_flood[0, g.tile(1, 0)]
    assert only(g.legal(), "move") == set() and only(g.legal(), "swim") == {"swim E"}
    g.play("reveal W")  # a water tile placed after the Flood starts unflooded
    assert not g.st.t_flood[0, g.tile(-1, 0)]
    assert only(g.legal(), "move") == {"move W"}


@pytest.mark.parametrize("rope", ["", "r"])
def test_ledge_blocks_its_arrow_side_without_rope(rope):  # R-TILE-7
    g = Game(scene(f"start:NESW ledge:EW:>{rope} normal:W", cavers="diver@1,0 medic@0,0 leader@2,0"))
    assert only(g.legal(), "move") == ({"move W", "move E"} if rope else {"move W"})
    g.play("end turn")
    assert "move E" in g.legal()  # entered normally from the start side
    g.play("end turn")
    assert "move W" in g.legal()  # and from the arrow side


def test_ledge_blocks_reveal_and_explore_through_arrow():  # R-TILE-7
    g = Game(scene("start:NESW ledge:EW:>", cavers="diver@1,0 medic@0,0", stack="normal:I"))
    assert only(g.legal(), "reveal") | only(g.legal(), "explore") == set()
    g.st.t_rope[0, g.tile(1, 0)] = True
    assert only(g.legal(), "reveal") == {"reveal E"} and only(g.legal(), "explore") == {"explore E"}


@pytest.mark.parametrize("rope", ["", "r"])
def test_slide_blocks_going_back_without_rope(rope):  # R-TILE-8
    g = Game(scene(f"start:NESW slide:EW:>{rope} normal:W", cavers="diver@1,0 medic@0,0 leader@2,0"))
    assert only(g.legal(), "move") == ({"move W", "move E"} if rope else {"move E"})
    g.play("end turn")
    assert "move E" in g.legal()
    g.play("end turn")
    assert "move W" in g.legal()  # entered from the arrow side too


@pytest.mark.parametrize("die, hp", [(3, 2), (4, 3)])
def test_rough_terrain_check_on_entering(die, hp):  # R-TILE-9, R-ACT-16
    g = Game(scene("start:E", cavers=DM, stack="rough", dice=die))
    g.play("explore E")
    assert g.pos("diver") == (1, 0) and g.hp("diver") == hp and int(g.st.ctr[0]) == 1
