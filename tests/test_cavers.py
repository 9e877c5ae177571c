"""Scenario tests for the cavers' abilities and passives (R-CAV) and their interactions with actions (R-ACT-15,
R-ACT-16) and horrors (R-HOR-2, R-HOR-5).

Scenarios are built with ``scene(map rows..., key=value)`` (see tests/helpers.py); map cells are ``column,row``.
A scenario whose ``actor`` is the last seat runs the round's horror, hazard (top of ``deck``) and end phases on
"end turn"; ``dice`` scripts the die faces.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers import Game, scene
from subterra_env.config import GameConfig
from subterra_env.games.sub_terra.core.actions import (ACTION_KIND, K_BANDAGE, K_DIRECT, K_EXCAVATE, K_GEAR, K_REPEL, K_SPRINT,
                                       NUM_ACTIONS)
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RUNNING


def only(names: set[str], prefix: str) -> set[str]:
    return {n for n in names if n.startswith(prefix)}


# ---------------------------------------------------------------- R-CAV-1 Diver: Amphibious


@pytest.mark.parametrize("card, medic_hp", [("flood", 2), ("flood:x2", 1)])
def test_diver_takes_no_flood_damage(card, medic_hp):  # R-CAV-1, R-HZ-2, R-HZ-6
    g = Game(scene("start:NESW water:EW water:W", cavers="diver@1,0 medic@2,0 leader@0,0", deck=card,
                   actor="leader"))
    g.play("end turn")
    assert g.st.t_flood[0, g.tile(1, 0)] and g.st.t_flood[0, g.tile(2, 0)]
    assert g.hp() == {"diver": 3, "medic": medic_hp, "leader": 3}


def test_diver_moves_and_runs_through_floods():  # R-CAV-1, R-ACT-6, R-ACT-8
    text = scene("start:NESW water:EW:~ water:EW:~ normal:W", cavers="diver@0,0 medic@0,0")
    g = Game(text)
    assert only(g.legal(), "move") == {"move E"} and "run" in g.legal() and "swim E" in g.legal()
    g.play("run", "run step E")
    assert g.legal() == {"run step E", "run step W", "stop"}  # flooded on both sides
    g.play("run step E", "run step E")
    assert g.pos("diver") == (3, 0) and g.hp("diver") == 3 and g.ap == 0
    g = Game(text)
    g.play("end turn")  # the medic: only Swim enters a flooded tile
    assert g.actor() == "medic" and only(g.legal(), "move") == set() and "run" not in g.legal()
    assert only(g.legal(), "swim") == {"swim E"}


# ---------------------------------------------------------------- R-CAV-2 Scout: Stealth

ROW9 = "start:E " + "normal:EW " * 7 + "horror:W"  # the horror tile 8 steps from the start


@pytest.mark.parametrize("near, horrors, hp", [("scout", [], 3), ("medic", [(6, 0)], 0)])
def test_scout_is_never_a_victim_horror_leaves(near, horrors, hp):  # R-CAV-2, R-HOR-2..5
    g = Game(scene(ROW9, cavers=f"{near}@7,0 leader@0,0", horrors="8,0", deck="horror", actor="leader"))
    g.play("end turn")  # only the scout within 7 steps (the leader is 8 away): the horror leaves, none spawns
    # (control: the medic is caught at (7,0); the Horror card then moves it toward the leader, no spawn)
    assert g.horrors() == horrors and g.hp(near) == hp and g.hp("leader") == 3


def test_horror_moving_onto_the_scout_costs_nothing():  # R-CAV-2, R-HOR-5
    g = Game(scene("start:E normal:EW normal:EW horror:W", cavers="scout@2,0 leader@0,0", horrors="3,0",
                   actor="leader"))
    g.play("end turn")  # the horror hunts the leader and steps onto the scout's tile
    assert g.horrors() == [(2, 0)] and g.hp() == {"scout": 3, "leader": 3}


def test_horror_spawning_onto_the_scout_costs_nothing():  # R-CAV-2, R-HOR-4, R-HOR-5
    g = Game(scene("start:E normal:EW horror:W", cavers="scout@2,0 leader@0,0", deck="horror", actor="leader"))
    g.play("end turn")
    assert g.horrors() == [(2, 0)] and g.hp() == {"scout": 3, "leader": 3}


def test_scout_moves_onto_a_horror_tile_and_through_it():  # R-CAV-2, R-HOR-5, R-ACT-16
    text = scene("start:E normal:EW normal:EW normal:W", cavers="scout@0,0 leader@0,0", horrors="1,0")
    g = Game(text)
    g.play("move E")
    assert g.pos("scout") == (1, 0) and g.hp("scout") == 3 and g.actor() == "scout" and g.ap == 1
    g.play("end turn", "end turn")  # round 2: the horror steps onto the leader
    assert g.horrors() == [(0, 0)] and g.hp() == {"scout": 3, "leader": 0}
    g = Game(text)
    g.play("run", "run step E", "run step E", "run step E")
    assert g.pos("scout") == (3, 0) and g.hp("scout") == 3
    g.play("end turn", "move E")  # the leader entering the horror's tile falls unconscious
    assert g.hp("leader") == 0 and g.actor() == "scout"


# ---------------------------------------------------------------- R-CAV-3 Geologist: Excavate


def test_geologist_excavates_here_and_on_a_connected_tile_for_one_ap():  # R-CAV-3, R-ACT-12
    g = Game(scene("start:NESW cave-in:EW:*x cave-in:W:*", ".  cave-in:N:*  .", cavers="geologist@1,0 medic@0,0"))
    assert only(g.legal(), "excavate") == {"excavate here", "excavate E"}  # (1,1) is behind a wall
    g.play("excavate E")
    assert g.ap == 1 and g.actor() == "geologist"
    assert [bool(g.st.t_rubble[0, g.tile(*xy)]) for xy in [(1, 0), (2, 0), (1, 1)]] == [True, False, True]
    assert only(g.legal(), "excavate") == {"excavate here"}
    g.play("excavate here")
    assert [bool(g.st.t_rubble[0, g.tile(*xy)]) for xy in [(1, 0), (2, 0), (1, 1)]] == [False, False, True]
    assert g.ap == 0 and only(g.legal(), "excavate") == set()


def test_excavate_needs_rubble_and_a_geologist():  # R-CAV-3, R-ACT-15
    g = Game(scene("start:NESW normal:W", cavers="geologist@0,0 medic@0,0"))
    assert only(g.legal(), "excavate") == set()
    g = Game(scene("start:NESW cave-in:W:*", cavers="medic@0,0 geologist@0,0"))
    assert only(g.legal(), "excavate") == set() and only(g.legal(), "dig") == {"dig E"}
    g.play("end turn")
    assert g.actor() == "geologist" and only(g.legal(), "excavate") == {"excavate E"}


# ---------------------------------------------------------------- R-CAV-4 Engineer: Vigilant


def test_cave_in_costs_the_engineer_one_health():  # R-CAV-4, R-HZ-4
    g = Game(scene("start:NESW cave-in:W:12", cavers="engineer@1,0 medic@1,0 leader@0,0", deck="cave-in", dice="2",
                   actor="leader"))
    g.play("end turn")
    assert bool(g.st.t_rubble[0, g.tile(1, 0)]) and g.hp() == {"engineer": 2, "medic": 0, "leader": 3}


# ---------------------------------------------------------------- R-CAV-5 Climber: Gear, Agility


def test_gear_places_a_rope_without_a_check():  # R-CAV-5, R-TILE-7
    g = Game(scene("start:NESW ledge:EW:> normal:W", cavers="climber@1,0 medic@0,0", dice="1 1 1"))
    assert "gear" in g.legal() and "place rope" in g.legal() and only(g.legal(), "move") == {"move W"}
    g.play("gear")  # a die showing 1 would fail a check: none is rolled
    assert bool(g.st.t_rope[0, g.tile(1, 0)]) and int(g.st.ropes_left[0]) == 5 and int(g.st.ctr[0]) == 0
    assert g.ap == 1 and "gear" not in g.legal() and only(g.legal(), "move") == {"move W", "move E"}


def test_gear_only_for_the_climber_on_a_ledge_or_slide_with_tokens():  # R-CAV-5, R-ACT-15
    g = Game(scene("start:NESW slide:EW:> ledge:W:>r", cavers="medic@1,0 climber@2,0"))
    assert "place rope" in g.legal() and "gear" not in g.legal()  # the medic on a bare slide: no Gear
    g.play("end turn")
    assert g.actor() == "climber" and "gear" not in g.legal()  # this ledge already holds a rope
    g.play("move W")
    assert "gear" in g.legal()  # on the bare slide
    g.st.ropes_left[0] = 0
    assert "gear" not in g.legal()  # no token left
    g = Game(scene("start:NESW normal:W", cavers="climber@1,0 medic@0,0"))
    assert "gear" not in g.legal()  # a normal tile


def test_climber_runs_through_squeeze_and_rubble():  # R-CAV-5, R-ACT-8, R-ACT-16
    text = scene("start:NESW squeeze:EW cave-in:EW:*x normal:W", cavers="climber@0,0 medic@0,0")
    g = Game(text)
    assert only(g.legal(), "move") == {"move E"}
    g.play("run", "run step E")
    assert g.pos("climber") == (1, 0) and g.legal() == {"run step E", "run step W", "stop"}
    g.play("run step E", "run step E")  # into the rubble and out again
    assert g.pos("climber") == (3, 0) and g.hp("climber") == 3 and bool(g.st.t_rubble[0, g.tile(2, 0)])
    g = Game(text)
    g.play("end turn")
    assert g.actor() == "medic" and only(g.legal(), "move") == set() and "run" not in g.legal()
    assert only(g.legal(), "squeeze") == {"squeeze E"}


# ---------------------------------------------------------------- R-CAV-6 Medic: Bandage, Sprint


def test_bandage_others_on_the_tile_not_himself():  # R-CAV-6, R-ACT-9, R-ACT-15
    g = Game(scene("start:NESW normal:W", cavers="medic@0,0:hp=1 leader@0,0:hp=2 diver@0,0:hp=0 scout@0,0 "
                                                  "geologist@1,0:hp=1"))
    assert only(g.legal(), "bandage") == {"bandage caver 1", "bandage caver 8"}  # not 6 (himself), 2 (full), 3
    assert "heal caver 6" in g.legal()  # he may still Heal himself (2 AP)
    g.play("bandage caver 1")
    assert g.hp("diver") == 1 and g.ap == 1  # woken up
    g.play("bandage caver 8")
    assert g.hp() == {"medic": 1, "leader": 3, "diver": 1, "scout": 3, "geologist": 1} and g.ap == 0
    g.play("end turn", "end turn")
    assert g.actor() == "diver" and g.ap == 2  # conscious again: takes its turn
    g = Game(scene("start:NESW", cavers="medic@0,0 scout@0,0"), no_effect_actions_illegal=False)
    assert only(g.legal(), "bandage") == {"bandage caver 2"}  # R-ACT-15 off: full health allowed, himself never


def test_bandage_capped_at_start_health():  # R-CAV-6, R-SET-2
    g = Game(scene("start:NESW", cavers="medic@0,0 bodyguard@0,0:hp=4"))
    assert only(g.legal(), "bandage") == {"bandage caver 7"}
    g.play("bandage caver 7")
    assert g.hp("bodyguard") == 5 and only(g.legal(), "bandage") == set()
    g = Game(scene("start:NESW", cavers="leader@0,0 medic@0,0:hp=1 bodyguard@0,0:hp=1"))
    assert only(g.legal(), "bandage") == set() and "sprint" not in g.legal()  # not the Medic


def test_sprint_one_or_two_move_steps_each_a_decision():  # R-CAV-6, R-ACT-16
    text = scene("start:NESW normal:EW gas:EW normal:W", cavers="medic@0,0 leader@0,0", gas="on")
    g = Game(text)
    g.play("sprint")
    assert g.ap == 1 and g.legal() == {"run step E"}
    g.play("run step E")
    assert g.legal() == {"run step E", "run step W", "stop"}
    g.play("run step E")  # two steps end the sprint; entering gas hurts
    assert g.pos("medic") == (2, 0) and g.hp("medic") == 1 and g.ap == 1
    assert g.legal() == {"move E", "move W", "sprint", "end turn", "exert"}  # 1 AP left: no Run
    g = Game(text)
    g.play("sprint", "run step E", "stop")
    assert g.pos("medic") == (1, 0) and g.ap == 1 and g.actor() == "medic"
    g.play("end turn")
    assert "sprint" not in g.legal()


# ---------------------------------------------------------------- R-CAV-7 Bodyguard: Repel, Protector


def test_repel_removes_one_horror_from_a_connected_tile():  # R-CAV-7, R-ACT-15
    g = Game(scene(".  normal:E  .", "normal:E  start:NESW  normal:W", cavers="bodyguard@1,1 medic@1,1",
                   horrors="1,0 2,1 2,1"))
    assert only(g.legal(), "repel") == {"repel E"}  # the north tile is behind a half-open wall; none west
    g.play("repel E")
    assert g.horrors() == [(1, 0), (2, 1)] and g.ap == 1  # one of the two
    g.play("repel E")
    assert g.horrors() == [(1, 0)] and only(g.legal(), "repel") == set()
    g.play("end turn")
    assert g.actor() == "medic" and only(g.legal(), "repel") == set()


def test_repel_without_horror_legal_when_r_act_15_is_off():  # R-ACT-15 (setting off), R-CAV-7
    g = Game(scene("start:NESW normal:EW normal:W", cavers="bodyguard@0,0 medic@0,0", horrors="2,0"),
             no_effect_actions_illegal=False)
    assert only(g.legal(), "repel") == {"repel E"}
    g.play("repel E")  # no effect: the horror two tiles away stays
    assert g.horrors() == [(2, 0)] and g.ap == 1


def _round(tiles: str, cavers: str, deck: str, dice: str = "") -> dict:
    """Health after the leader (last seat) ends the round with the hazard card `deck`."""
    g = Game(scene(tiles, cavers=cavers, deck=deck, dice=dice or "6", actor="leader"))
    g.play("end turn")
    return g.hp()


WATER, GAS, CAVE = "start:NESW water:EW water:W", "start:NESW gas:EW gas:W", "start:NESW cave-in:EW:12x cave-in:W:12"


@pytest.mark.parametrize("tiles, deck, dice, hp", [
    (WATER, "flood", "", {"bodyguard": 4, "medic": 3, "scout": 2, "leader": 3}),
    (GAS, "gas", "", {"bodyguard": 3, "medic": 3, "scout": 1, "leader": 3}),
    (CAVE, "cave-in", "1", {"bodyguard": 2, "medic": 3, "scout": 0, "leader": 3}),
    ("start:NESW normal:EW normal:W", "tremor", "1 1 1 2", {"bodyguard": 4, "medic": 3, "scout": 2, "leader": 2}),
])
def test_protector_shields_others_on_his_tile_not_himself(tiles, deck, dice, hp):  # R-CAV-7, R-HZ-1..4
    # bodyguard and medic share (1,0); the scout on (2,0) is alone; the leader on the start (tremor: 2+1 fails)
    assert _round(tiles, "bodyguard@1,0 medic@1,0 scout@2,0 leader@0,0", deck, dice) == hp


def test_protector_against_gas_entering_both_ways():  # R-CAV-7, R-HZ-3, R-ACT-16
    g = Game(scene("start:NESW gas:W", cavers="medic@0,0 bodyguard@1,0 leader@0,0", gas="on"))
    g.play("move E")
    assert g.pos("medic") == (1, 0) and g.hp("medic") == 3
    g.play("end turn", "move W", "move E")  # the bodyguard himself pays when he comes back in
    assert g.hp("bodyguard") == 3
    g.play("end turn", "move E")  # the leader enters the gas tile where the bodyguard stands
    assert g.hp() == {"medic": 3, "bodyguard": 3, "leader": 3}


def test_unconscious_bodyguard_protects_nobody():  # R-CAV-9, R-CAV-7
    assert _round(WATER, "bodyguard@1,0:hp=0 medic@1,0 leader@0,0", "flood") == \
        {"bodyguard": 0, "medic": 2, "leader": 3}
    # Flood x2 knocks a 1-health bodyguard out in the first resolution: the second hurts the medic
    assert _round(WATER, "bodyguard@1,0:hp=1 medic@1,0 leader@0,0", "flood:x2") == \
        {"bodyguard": 0, "medic": 2, "leader": 3}


def test_no_protection_against_rough_terrain_exert_or_horrors():  # R-CAV-7, R-TILE-9, R-ACT-2, R-HOR-5
    g = Game(scene("start:NESW rough:NESW", cavers="medic@0,0 bodyguard@1,0 leader@0,0", dice="1 1"))
    g.play("exert", "move E")  # rough terrain check fails (die 1)
    assert g.pos("medic") == (1, 0) and g.hp("medic") == 2
    g.play("end turn")  # exert check fails (die 1)
    assert g.hp() == {"medic": 1, "bodyguard": 5, "leader": 3}
    g = Game(scene("start:E normal:EW horror:W", cavers="medic@1,0 bodyguard@1,0 leader@0,0", horrors="2,0",
                   actor="leader"))
    g.play("end turn")
    assert g.horrors() == [(1, 0)] and g.hp() == {"medic": 0, "bodyguard": 0, "leader": 3}


# ---------------------------------------------------------------- R-CAV-8 Leader: Direct, Experienced

TEAM = scene("start:NESW normal:EW normal:W", cavers="leader@0,0:hp=2 medic@0,0:hp=2 scout@0,0 diver@0,0:hp=0")


def test_direct_hands_one_1ap_action_and_returns_the_turn():  # R-CAV-8, R-ACT-16
    g = Game(TEAM)
    assert only(g.legal(), "direct") == {"direct caver 6", "direct caver 2"}  # not the unconscious diver
    g.play("direct caver 6")
    assert g.actor() == "medic" and g.ap == 1
    # exactly its 1-AP actions: no Heal (2 AP), Run (2), Hide (2), Exert
    assert g.legal() == {"end turn", "move E", "sprint", "bandage caver 8", "bandage caver 1"}
    g.play("move E")
    assert g.pos("medic") == (1, 0) and g.actor() == "leader" and g.ap == 1
    assert only(g.legal(), "direct") == set()  # once per turn
    assert g.legal() == {"end turn", "exert", "move E"}
    g.play("move E", "end turn")
    assert g.actor() == "medic" and g.ap == 2 and "exert" in g.legal()  # its own turn is unaffected
    assert "run" in g.legal() and "heal caver 6" in g.legal()


def test_directed_caver_may_decline():  # R-CAV-8
    g = Game(TEAM + "dice: 4\n")
    g.play("exert", "direct caver 2")
    assert g.actor() == "scout" and g.legal() == {"end turn", "move E"}
    g.play("end turn")  # declines: nothing happens, the leader keeps his AP less the Direct's
    assert g.actor() == "leader" and g.ap == 2 and g.pos("scout") == (0, 0)
    assert only(g.legal(), "direct") == set() and "exert" not in g.legal()
    g.play("end turn")  # the exert check (die 4) passes
    assert g.actor() == "medic" and g.hp("leader") == 2
    g.play("end turn")  # the scout's own turn comes as usual
    assert g.actor() == "scout" and g.ap == 2


def test_directed_sprint_keeps_its_decisions_then_returns():  # R-CAV-8, R-CAV-6
    g = Game(TEAM)
    g.play("direct caver 6", "sprint")
    assert g.actor() == "medic" and g.legal() == {"run step E"}
    g.play("run step E")
    assert g.actor() == "medic" and g.legal() == {"run step E", "run step W", "stop"}
    g.play("stop")
    assert g.actor() == "leader" and g.ap == 1 and g.pos("medic") == (1, 0)


def test_directed_caver_knocked_out_returns_the_turn():  # R-CAV-8, R-HOR-5, R-ACT-4
    g = Game(scene("start:NESW normal:W", cavers="leader@0,0 medic@0,0 scout@0,0", horrors="1,0"))
    g.play("direct caver 6", "move E")
    assert g.hp("medic") == 0 and g.actor() == "leader" and g.ap == 1
    assert g.legal() == {"end turn", "exert", "move E"}
    g.play("end turn")
    assert g.actor() == "scout"  # the unconscious medic takes no turn (R-CAV-9, R-RND-2)


@pytest.mark.parametrize("die, hp", [(3, {"medic": 2, "leader": 3}), (2, {"medic": 2, "leader": 2})])
def test_leader_experienced_plus_one(die, hp):  # R-CAV-8, R-ACT-3, R-HZ-1
    assert _round("start:NESW", "medic@0,0 leader@0,0", "tremor", f"{die} {die}") == hp


@pytest.mark.parametrize("leader, devoured", [("leader@0,0", [False, False]), ("leader@0,0:hp=0", [True, False])])
def test_unconscious_leader_loses_experienced(leader, devoured):  # R-CAV-9, R-CAV-8, R-HZ-7
    g = Game(scene("start:NESW", cavers=f"{leader} medic@0,0", deck="out-of-time", dice="3 6", actor="medic"))
    g.play("end turn")  # Out of Time: a 3 saves the leader only while conscious
    assert g.st.c_dead[0].tolist() == devoured


# ---------------------------------------------------------------- random play


def test_random_games_take_each_ability_action():  # R-CAV-3, R-CAV-5..8
    core = Core(GameConfig(num_cavers=6, cavers=("diver", "geologist", "climber", "medic", "bodyguard", "leader")))
    st = core.init(np.arange(300))
    rng = np.random.default_rng(7)
    taken = np.zeros(NUM_ACTIONS, dtype=np.int64)
    for _ in range(3000):
        live = st.result == RUNNING
        if not live.any():
            break
        mask = core.legal_mask(st)
        action = np.argmax(rng.random(mask.shape) * mask, axis=1)
        np.add.at(taken, action[live], 1)
        core.step(st, action)
    assert (st.result != RUNNING).all()
    kinds = {name: int(taken[ACTION_KIND[:NUM_ACTIONS] == k].sum()) for name, k in [
        ("gear", K_GEAR), ("bandage", K_BANDAGE), ("sprint", K_SPRINT), ("repel", K_REPEL), ("excavate", K_EXCAVATE),
        ("direct", K_DIRECT)]}
    assert all(n > 0 for n in kinds.values()), kinds
