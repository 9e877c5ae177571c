"""Rules tests for horrors (R-HOR) and the hazard phase (R-HZ).

Each scenario (built with ``scene``, see tests/helpers.py) lets the last seat end its turn, so the round's
horror phase, hazard phase (the top card of ``deck``) and end phase run; ``dice`` scripts the skill checks and
the cave-in rolls.
"""

from __future__ import annotations

from collections import Counter

import pytest

from helpers import Game, scene
from subterra_env.config import GameConfig
from subterra_env.games.sub_terra.core.catalogue import C_CAVE_IN, C_FLOOD, C_GAS, C_HORROR, C_TREMOR, X2, build

LINE9 = "horror:E normal:EW normal:EW normal:EW start:NESW normal:EW normal:EW normal:EW horror:W"
ROW5 = "start:E normal:EW normal:EW horror:EW:x normal:W"  # a horror tile 3 steps east of the start


# ---------------------------------------------------------------- R-HOR


@pytest.mark.parametrize("west, east, horror_to", [
    ("leader", "medic", (3, 0)),  # medic (6) beats leader (8)
    ("diver", "medic", (1, 0)),  # diver (1) beats medic (6), though N-E-S-W would favour east
])
def test_horror_tie_picks_lowest_rank(west, east, horror_to):  # R-HOR-2, R-HOR-3
    g = Game(scene("start:E normal:EW horror:EW:x normal:EW normal:W", cavers=f"{west}@0,0 {east}@4,0", horrors="2,0",
                   actor=east))
    g.play("end turn")
    assert g.horrors() == [horror_to]


@pytest.mark.parametrize("near", ["medic@4,0:hp=0", "medic@4,0:hidden", "scout@4,0"])
def test_never_a_victim(near):  # R-HOR-2, R-ACT-14
    g = Game(scene(ROW5, cavers=f"{near} leader@0,0", horrors="3,0", actor="leader"))
    g.play("end turn")
    assert g.horrors() == [(2, 0)]  # away from the closer caver, toward the leader


def test_hiding_lasts_until_the_end_of_the_round():  # R-ACT-14, R-HOR-2
    g = Game(scene(ROW5, cavers="medic@4,0:hidden leader@0,0", horrors="3,0", actor="leader"))
    g.play("end turn")
    assert g.horrors() == [(2, 0)] and not g.st.c_hidden[0].any()
    g.play("end turn", "end turn")  # round 2: both 2 steps away, the medic (rank 6) is the victim again
    assert g.horrors() == [(3, 0)]


def test_control_closer_caver_is_the_victim():  # R-HOR-2, R-HOR-5
    g = Game(scene(ROW5, cavers="medic@4,0 leader@0,0", horrors="3,0", actor="leader"))
    g.play("end turn")
    assert g.horrors() == [(4, 0)] and g.hp() == {"medic": 0, "leader": 3}


def test_exit_caver_is_no_victim_and_safe_from_horrors():  # R-HOR-2, R-HOR-5, R-TILE-1
    g = Game(scene("start:E normal:EW exit:EW:x horror:W", cavers="medic@2,0 leader@0,0", horrors="3,0",
                   actor="leader"))
    g.play("end turn")
    assert g.horrors() == [(2, 0)] and g.hp() == {"medic": 3, "leader": 3}  # on the exit with the horror


@pytest.mark.parametrize("far, horrors", [(7, [(6, 0)]), (8, [])])
def test_horror_without_victim_in_seven_steps_leaves(far, horrors):  # R-HOR-3
    row = "start:E " + "normal:EW " * (far - 1) + "horror:W"
    g = Game(scene(row, cavers="diver@0,0 medic@0,0", horrors=f"{far},0", actor="medic"))
    g.play("end turn")
    assert g.horrors() == horrors


def test_horrors_move_oldest_first_and_knockouts_change_victims():  # R-HOR-3, R-HOR-5
    g = Game(scene("start:E normal:EW normal:EW normal:EW normal:EW", cavers="leader@0,0 medic@3,0",
                   horrors="4,0 2,0", actor="medic"))
    g.play("end turn")
    # the oldest horror knocks the medic out first; the second then hunts the leader instead
    assert g.horrors() == [(3, 0), (1, 0)]
    assert g.hp() == {"leader": 3, "medic": 0}


def test_equal_paths_first_direction_north():  # R-HOR-3
    g = Game(scene("start:ES:x normal:SW", "normal:NE horror:NW", cavers="diver@0,0 leader@0,0", horrors="1,1",
                   actor="leader"))
    g.play("end turn")
    assert g.horrors() == [(1, 0)]


def test_horrors_cross_ledges_and_slides_against_the_arrow():  # R-CON-2, R-HOR-3
    g = Game(scene("start:E ledge:EW:< slide:EW:> horror:W", cavers="medic@0,0 leader@0,0", horrors="3,0",
                   actor="leader"))
    # a caver could not leave the slide westward (its back) nor the ledge westward (its arrow side) without rope
    g.play("end turn", "end turn", "end turn")  # rounds 1 and 2
    assert g.horrors() == [(1, 0)]  # onto the slide, then back across it onto the ledge
    g.play("end turn", "end turn")
    assert g.horrors() == [(0, 0)] and g.hp() == {"medic": 0, "leader": 0}  # and across its arrow side


def test_spawn_on_closest_horror_tile():  # R-HOR-4, R-HZ-5, R-TILE-10
    g = Game(scene("horror:E normal:EW start:NESW normal:EW normal:EW horror:W", ".  .  normal:N",
                   cavers="diver@2,0 leader@2,1", deck="horror", actor="leader"))
    g.play("end turn")
    assert g.horrors() == [(0, 0)]  # 2 steps from the diver; the other horror tile is 3 away


def test_spawn_tie_goes_to_the_tile_placed_first():  # R-HOR-4
    g = Game(scene(".  horror:S", "horror:E  start:NW:x", cavers="diver@1,1 leader@1,1", deck="horror", actor="leader"))
    g.play("end turn")
    assert g.horrors() == [(1, 0)] and g.hp() == {"diver": 3, "leader": 3}


def test_no_spawn_beyond_seven_steps():  # R-HOR-4
    g = Game(scene("start:E " + "normal:EW " * 7 + "horror:W", cavers="diver@0,0 leader@0,0", deck="horror",
                   actor="leader"))
    g.play("end turn")
    assert g.horrors() == []


def test_at_most_three_horrors():  # R-HOR-1, R-HZ-5
    g = Game(scene(LINE9, ".  .  .  .  horror:N", cavers="diver@4,0 leader@4,0", horrors="0,0 8,0 1,0",
                   deck="horror", actor="leader"))
    g.play("end turn")
    # two steps each (horror phase, Horror card); no fourth horror on the free horror tile next to the cavers
    assert sorted(g.horrors()) == [(2, 0), (3, 0), (6, 0)]
    assert g.hp() == {"diver": 3, "leader": 3}


def test_horror_moving_onto_hidden_caver_still_knocks_out():  # R-HOR-5, R-ACT-14
    g = Game(scene("start:E normal:EW normal:EW horror:W", cavers="medic@2,0:hidden leader@0,0 scout@2,0",
                   horrors="3,0", actor="scout"))
    g.play("end turn")
    assert g.horrors() == [(2, 0)]
    assert g.hp() == {"medic": 0, "leader": 3, "scout": 3}  # the Scout shares the tile unharmed


def test_spawn_onto_a_hidden_caver():  # R-HOR-5, R-HOR-4
    g = Game(scene("start:E normal:EW horror:EW:x normal:W", cavers="medic@2,0:hidden leader@0,0", deck="horror",
                   actor="leader"))
    g.play("end turn")
    assert g.horrors() == [(2, 0)] and g.hp() == {"medic": 0, "leader": 3}


# ---------------------------------------------------------------- R-HZ


@pytest.mark.parametrize("difficulty, counts", [
    ("normal", {C_TREMOR: 7, C_FLOOD: 5, C_CAVE_IN: 5, C_GAS: 4, C_HORROR: 4}),
    ("advanced", {C_TREMOR: 4, C_FLOOD: 5, C_CAVE_IN: 5, C_GAS: 4, C_HORROR: 4,
                  X2 + C_TREMOR: 1, X2 + C_FLOOD: 1, X2 + C_CAVE_IN: 1, X2 + C_GAS: 1, X2 + C_HORROR: 1}),
    ("expert", {C_TREMOR: 4, C_FLOOD: 4, C_CAVE_IN: 5, C_GAS: 3, C_HORROR: 4,
                X2 + C_TREMOR: 1, X2 + C_FLOOD: 1, X2 + C_CAVE_IN: 1, X2 + C_GAS: 1, X2 + C_HORROR: 1}),
])
def test_hazard_deck_composition(difficulty, counts):  # R-HZ-0
    assert Counter(build(GameConfig(difficulty=difficulty)).deck_pool.tolist()) == counts


def test_tremor_checks_conscious_cavers_off_the_exit_one_die_per_seat():  # R-HZ-1, R-HZ-8, R-TILE-1
    g = Game(scene("start:NESW exit:W", cavers="diver@1,0 medic@0,0 leader@0,0 scout@0,0:hp=0 geologist@0,0",
                   deck="tremor", dice="1 1 3 1 4", actor="geologist"))
    g.play("end turn")
    # diver on the exit (die 1 ignored), medic 1 fails, leader 3+1 passes, scout unconscious, geologist 4 passes
    assert g.hp() == {"diver": 3, "medic": 2, "leader": 3, "scout": 0, "geologist": 3}
    assert int(g.st.ctr[0]) == 5


def test_flood_floods_water_and_hurts_cavers_on_it():  # R-HZ-2, R-TILE-3
    g = Game(scene("start:NESW water:EW water:W:~", cavers="geologist@1,0 medic@2,0 leader@0,0", deck="flood",
                   actor="leader"))
    g.play("end turn")
    assert g.st.t_flood[0, g.tile(1, 0)] and g.st.t_flood[0, g.tile(2, 0)]
    assert g.hp() == {"geologist": 2, "medic": 2, "leader": 3}


def test_gas_entering_damage_lasts_until_next_hazard_phase():  # R-HZ-3, R-TILE-4
    g = Game(scene("start:NESW gas:W", cavers="medic@0,0 leader@0,0 diver@1,0", deck="gas tremor", dice="6 6 6",
                   actor="diver"))
    g.play("end turn")  # Gas: the diver on the gas tile loses 2
    assert g.hp() == {"medic": 3, "leader": 3, "diver": 1}
    assert g.actor() == "leader"
    g.play("move E")  # entering gas until the next hazard phase: 2 more
    assert g.hp("leader") == 1
    g.play("end turn", "end turn", "end turn")  # Tremor phase (all pass): the gas has settled
    assert g.hp() == {"medic": 3, "leader": 1, "diver": 1}
    assert g.actor() == "diver"
    g.play("end turn", "move E")
    assert g.pos("medic") == (1, 0) and g.hp("medic") == 3


def test_explore_onto_gas_while_gas_is_active():  # R-HZ-3, R-ACT-7
    g = Game(scene("start:E", cavers="medic@0,0 leader@0,0", stack="gas:I", gas="on"))
    g.play("explore E")
    assert g.pos("medic") == (1, 0) and g.hp("medic") == 1


def test_gas_x2_doubles_on_tile_damage_not_entering():  # R-HZ-3, R-HZ-6
    g = Game(scene("start:NESW gas:W", cavers="medic@0,0 diver@1,0", deck="gas:x2", actor="diver"), health=5)
    g.play("end turn")
    assert g.hp() == {"medic": 5, "diver": 1}
    g.play("end turn", "move E")  # round 2: the diver holds the marker, then the medic enters
    assert g.hp("medic") == 3


def test_cave_in_rubbles_matching_tiles_and_hurts_three():  # R-HZ-4, R-TILE-5
    g = Game(scene("start:NESW cave-in:EW:12x cave-in:W:36", "cave-in:N:24* .  .",
                   cavers="diver@1,0 medic@2,0 leader@0,1 geologist@0,0", deck="cave-in", dice="2", actor="geologist"),
             health=5)
    g.play("end turn")
    assert [bool(g.st.t_rubble[0, g.tile(*xy)]) for xy in [(1, 0), (2, 0), (0, 1)]] == [True, False, True]
    # die 2: the 1-2 tile caves in; 3-6 does not match; 2-4 already has rubble and cannot cave in again
    assert g.hp() == {"diver": 2, "medic": 5, "leader": 5, "geologist": 5}


def test_horror_card_moves_then_spawns():  # R-HZ-5, R-RND-1
    g = Game(scene(LINE9, cavers="diver@4,0 leader@4,0", horrors="0,0", deck="horror", actor="leader"))
    g.play("end turn")
    # horror phase: 0 -> 1; Horror card: 1 -> 2, then a spawn on the free horror tile (the one placed first)
    assert g.horrors() == [(2, 0), (0, 0)]


def test_horror_x2_moves_twice_then_spawns_two():  # R-HZ-6
    g = Game(scene(LINE9, cavers="diver@4,0 leader@4,0", horrors="0,0", deck="horror:x2", actor="leader"))
    g.play("end turn")
    # horror phase 0 -> 1; x2: 1 -> 2 -> 3; spawns at x=0 (placed first), then recomputed, at x=8
    assert g.horrors() == [(3, 0), (0, 0), (8, 0)]
    assert g.hp() == {"diver": 3, "leader": 3}


def test_horror_x2_never_exceeds_three():  # R-HZ-6, R-HOR-1
    g = Game(scene(LINE9, ".  .  .  .  horror:N", cavers="diver@4,0 leader@4,0", horrors="0,0 8,0",
                   deck="horror:x2", actor="leader"))
    g.play("end turn")
    assert g.horrors() == [(3, 0), (5, 0), (4, 1)]


def test_tremor_x2_rolls_twice():  # R-HZ-6
    g = Game(scene("start:NESW", cavers="medic@0,0 leader@0,0", deck="tremor:x2", dice="1 6 1 1",
                   actor="leader"))
    g.play("end turn")
    assert g.hp() == {"medic": 1, "leader": 2}


def test_flood_x2_hurts_twice():  # R-HZ-6
    g = Game(scene("start:NESW water:W", cavers="medic@0,0 leader@1,0", deck="flood:x2", actor="leader"))
    g.play("end turn")
    assert g.hp() == {"medic": 3, "leader": 1}


@pytest.mark.parametrize("dice, hp, rubble", [("1 3", (2, 2), [True, True]), ("1 2", (2, 5), [True, False])])
def test_cave_in_x2_rolls_twice(dice, hp, rubble):  # R-HZ-6, R-TILE-5
    g = Game(scene("start:NESW cave-in:EW:12x cave-in:W:36", cavers="diver@1,0 medic@2,0 leader@0,0",
                   deck="cave-in:x2", dice=dice, actor="leader"), health=5)
    g.play("end turn")
    assert (g.hp("diver"), g.hp("medic")) == hp  # a tile with rubble does not cave in again
    assert [bool(g.st.t_rubble[0, g.tile(x, 0)]) for x in (1, 2)] == rubble


def test_out_of_time_devours_failing_cavers_every_hazard_phase():  # R-HZ-7, R-HZ-8, R-RND-4
    g = Game(scene("start:NESW exit:W", cavers="diver@1,0 medic@0,0 leader@0,0:hp=0 scout@0,0",
                   deck="out-of-time", dice="1 1 1 5 6 6 6 1", actor="scout"))
    g.play("end turn")
    assert bool(g.st.out_of_time[0])
    assert g.st.c_dead[0].tolist() == [False, True, True, False]  # unconscious leader checks too
    assert g.pos("medic") is None and g.pos("leader") is None and g.pos("scout") == (0, 0)
    assert g.result() is None and g.actor() == "scout"
    g.play("end turn", "end turn")  # scout, then the diver on the exit; no card left, Out of Time again
    assert g.st.c_dead[0].tolist() == [False, True, True, True]
    assert g.result() == "defeat"
