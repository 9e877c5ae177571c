"""Rules tests for the Extraction scenario (RULES_VAR.md, R-EXT-1..9): setup from seeds, then scenario maps.

Maps as in test_rules_hazards.py (``scene`` in tests/helpers.py): cells are ``column,row``; ``sanctuary`` is the
sanctuary tile; ``leapers:`` lists the leapers like ``horrors:`` (``x,y:N``: spawned N-th, for the oldest-first
order across kinds); ``samples=N`` the biosamples a caver holds. Ending every turn runs the horror phase.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers import Game, scene
from subterra_env.config import ConfigError, GameConfig, preset
from subterra_env.games.sub_terra.core.actions import action_id, num_actions
from subterra_env.games.sub_terra.core.catalogue import C_LEAPER, C_LEAPER_X2, SHAPES, T_EXIT, T_HORROR, T_SANCTUARY, build
from subterra_env.games.sub_terra.core.invariants import check_invariants, snapshot
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.events import decode, set_logging
from random_play import random_legal

LINE = "start:E normal:EW normal:EW normal:EW normal:W"  # five tiles in a row
SANCT = "start:E normal:EW sanctuary:EW:x normal:EW normal:W"  # the sanctuary in the middle
# A loop: the short way from (4,0) to the start crosses the sanctuary (4 steps), the long way row 1 (6 steps).
LOOP = ("start:ES:x  normal:EW  sanctuary:EW:x  normal:EW  normal:SW",
        "normal:NE normal:EW  normal:EW     normal:EW  normal:NW")


def ext(*rows: str, settings: dict | None = None, **keys) -> Game:
    g = Game(scene(*rows, **keys), scenario="extraction", **(settings or {}))
    set_logging(g.st, slice(None), True)
    return g


def kinds(g: Game, *names: str) -> list[tuple]:
    return [(e.kind, e.seat, g.xy(e.tile) if e.tile >= 0 else None, e.value, e.rule) for e in decode(g.st)
            if e.kind in names]


# ---------------------------------------------------------------------------------------------- setup
def test_tiles_two_horror_tiles_and_the_sanctuary_top_three_removed_exit_in_the_bottom_six():  # R-EXT-1
    core = Core(preset("extraction"))
    cat = core.cat
    assert (cat.n_cave, cat.stack_size, cat.max_tiles) == (67, 65, 66)
    assert np.flatnonzero(cat.tile_type == T_HORROR).tolist()[-2:] == [64, 65]  # 8 base horror tiles, then 2
    assert np.flatnonzero(cat.tile_type == T_SANCTUARY).tolist() == [66]
    assert [SHAPES[s] for s in cat.tile_shape[64:67]] == ["D", "D", "T"]  # RULES_VAR shapes [default]
    st = core.init(np.arange(50))
    removed = [sorted(set(range(67)) - set(st.stack[b].tolist())) for b in range(50)]
    assert removed[0] == [15, 27, 43] and all(len(r) == 3 for r in removed)  # 3 of the 67 removed unseen
    assert sum(66 in r for r in removed) == 4  # the sanctuary itself is sometimes removed (4 of 50 seeds)
    exits = [int(np.flatnonzero(st.stack[b] == cat.exit_id)[0]) for b in range(50)]
    assert exits[:4] == [61, 62, 62, 63] and set(exits) == set(range(59, 65))  # the bottom six of 65
    assert cat.tile_type[cat.exit_id] == T_EXIT


@pytest.mark.parametrize("difficulty, size, leapers, x2, dealt", [
    ("easier", 30, 5, 0, 25), ("normal", 30, 5, 0, 22), ("advanced", 33, 5, 1, 20), ("expert", 31, 5, 1, 18)])
def test_leaper_cards_join_the_pool_after_removals_deal_sizes_unchanged(difficulty, size, leapers, x2, dealt):
    # R-EXT-2: 5 Leaper + 1 Leaper x2; the x2 goes where the difficulty removes the x2 cards
    cat = build(preset("extraction", difficulty=difficulty))
    pool = cat.deck_pool
    assert (len(pool), int((pool == C_LEAPER).sum()), int((pool == C_LEAPER_X2).sum())) == (size, leapers, x2)
    assert cat.deal_size == dealt == build(GameConfig(difficulty=difficulty)).deal_size
    base = build(GameConfig(difficulty=difficulty)).deck_pool  # the base game's pool after the removals
    assert sorted(pool[pool < C_LEAPER].tolist()) == sorted(base.tolist())


# ---------------------------------------------------------------------------------------------- leaper cards
def test_leaper_card_moves_every_monster_then_spawns_a_leaper_by_its_own_paths():  # R-EXT-3, R-EXT-7
    # Horror tiles at (3,0) (3 steps from the leader, through the sanctuary) and (0,4) (4 steps).
    rows = ("start:ES:x  normal:EW  sanctuary:EW:x  horror:W", "normal:NS", "normal:NS", "normal:NS", "horror:N")
    g = ext(*rows, cavers="leader@0,0", deck="leaper")
    g.play("end turn")
    assert g.leapers() == [(0, 4)] and g.horrors() == []  # not (3,0): the leaper's path may not cross (2,0)
    assert kinds(g, "leaper_spawn") == [("leaper_spawn", -1, (0, 4), 0, "R-EXT-3")]
    g = ext(*rows, cavers="leader@0,0", deck="horror")
    g.play("end turn")
    assert g.horrors() == [(3, 0)] and g.leapers() == []  # a horror's path crosses the sanctuary


def test_leaper_x2_moves_twice_and_spawns_two():  # R-EXT-3 (as R-HZ-6), R-EXT-4
    row = "horror:E normal:EW normal:EW normal:EW start:NESW normal:EW normal:EW normal:EW horror:W"
    g = ext(row, cavers="leader@4,0", leapers="0,0", deck="leaper:x2")
    g.play("end turn")
    # the old leaper: two moves of two steps, (0,0) -> (4,0) onto the leader: a slash; then two leapers spawn
    assert g.hp("leader") == 1 and g.leapers() == [(0, 0), (8, 0)]  # equally far: the tile placed first first


@pytest.mark.parametrize("kind, spawned", [("leapers", []), ("horrors", [(7, 0)])])
def test_at_most_three_leapers_besides_three_horrors(kind, spawned):  # R-EXT-4
    row = " ".join(["start:E"] + ["normal:EW"] * 6 + ["horror:W"])  # the horror tile 7 steps from the leader
    g = ext(row, cavers="leader@0,0", deck="leaper", **{kind: "5,0 6,0 7,0"})
    g.play("end turn")  # the horror phase and then the card move every monster: leapers 4 steps, horrors 2
    assert g.leapers() == ([(1, 0), (2, 0), (3, 0)] if kind == "leapers" else spawned)
    assert len(kinds(g, "leaper_spawn")) == len(spawned)  # 3 horrors do not count against the leapers


def test_either_kind_spawns_only_on_a_horror_tile_without_a_monster():  # R-EXT-4
    # horror tiles 4 and 2 steps from the leader; the horror phase and the card take the horror onto the nearer
    g = ext("horror:E normal:EW horror:EW:x normal:EW start:W", cavers="leader@4,0", horrors="0,0", deck="leaper")
    g.play("end turn")
    assert g.horrors() == [(2, 0)] and g.leapers() == [(0, 0)]


# ---------------------------------------------------------------------------------------------- movement
def test_a_leaper_takes_two_steps_whenever_horrors_move():  # R-EXT-5
    g = ext(LINE, cavers="leader@0,0", leapers="4,0")
    g.play("end turn")
    assert g.leapers() == [(2, 0)]
    assert kinds(g, "leaper_move") == [("leaper_move", 0, (3, 0), 4, "R-EXT-5"), ("leaper_move", 0, (2, 0), 3,
                                                                                 "R-EXT-5")]


def test_a_leaper_hunts_the_closest_victim_lowest_rank_on_ties():  # R-EXT-5 with R-HOR-2
    # (2,0) is 2 steps from both; the medic (rank 6) is hunted before the leader (rank 8) unless hidden
    for medic, hp in (("medic@4,0", {"leader": 3, "medic": 1}), ("medic@4,0:hidden", {"leader": 1, "medic": 3})):
        g = ext(LINE, cavers=f"leader@0,0 {medic}", leapers="2,0")
        g.play("end turn", "end turn")
        assert g.leapers() == [] and g.hp() == hp


@pytest.mark.parametrize("leaper_first, leapers, horrors, medic", [(True, [], [(2, 0)], 0),
                                                                  (False, [(2, 0)], [(2, 0)], 0)])
def test_monsters_move_oldest_first_across_kinds(leaper_first, leapers, horrors, medic):  # R-EXT-4
    order = ("4,0:0", "3,0:1") if leaper_first else ("4,0:1", "3,0:0")
    g = ext(LINE, cavers="leader@0,0 medic@2,0", leapers=order[0], horrors=order[1])
    g.play("end turn", "end turn")
    assert g.leapers() == leapers and g.horrors() == horrors and g.hp("medic") == medic
    # leaper first: it slashes the medic (3 -> 1) and is gone, then the horror knocks her out; horror first: she
    # is out when the leaper comes and it walks on toward the leader, no slash
    assert bool(kinds(g, "slash")) is leaper_first


def test_a_leaper_without_a_victim_within_seven_steps_leaves():  # R-EXT-5 (R-HOR-3's limit)
    row = " ".join(["start:E"] + ["normal:EW"] * 8 + ["normal:W"])
    g = ext(row, cavers="leader@0,0", leapers="9,0")
    g.play("end turn")
    assert g.leapers() == [] and kinds(g, "leaper_leave")[0][4] == "R-EXT-8"
    g = ext(row, cavers="leader@0,0", leapers="7,0")
    g.play("end turn")
    assert g.leapers() == [(5, 0)]


# ---------------------------------------------------------------------------------------------- slash
def test_slash_removes_the_leaper_and_the_lowest_numbered_caver_loses_two():  # R-EXT-6
    g = ext(LINE, cavers="medic@0,0 leader@0,0", leapers="2,0", actor="leader")
    g.play("end turn")
    assert g.leapers() == [] and g.hp() == {"medic": 1, "leader": 3}
    assert kinds(g, "slash") == [("slash", 0, (0, 0), 2, "R-EXT-6")]


def test_a_caver_entering_a_leaper_slashed_and_protector_does_not_stop_it():  # R-EXT-6
    g = ext("start:E normal:W", cavers="diver@0,0 bodyguard@1,0", leapers="1,0", actor="diver")
    g.play("move E")
    assert g.leapers() == [] and g.hp() == {"diver": 1, "bodyguard": 5}  # lowest-numbered: the diver


def test_no_slash_on_the_scout_the_unconscious_or_the_exit():  # R-EXT-6
    g = ext("start:E normal:W", cavers="scout@0,0 medic@1,0:hp=0", leapers="1,0", actor="scout")
    g.play("move E")
    assert g.leapers() == [(1, 0)] and g.hp() == {"scout": 3, "medic": 0}
    g = ext("start:E exit:W", cavers="medic@0,0 leader@0,0", leapers="1,0", actor="medic")
    g.play("move E")
    assert g.leapers() == [(1, 0)] and g.hp("medic") == 3


def test_a_horror_there_knocks_out_first():  # R-EXT-6 with R-HOR-5
    g = ext("start:E normal:W", cavers="diver@0,0 scout@1,0", leapers="1,0", horrors="1,0", actor="diver")
    g.play("move E")
    assert g.hp() == {"diver": 0, "scout": 3} and g.leapers() == [(1, 0)]  # only the unconscious and the Scout


def test_several_leapers_slash_one_at_a_time_each_choosing_again():  # R-EXT-6
    g = ext("start:E normal:W", cavers="diver@0,0:hp=2 medic@1,0", leapers="1,0 1,0", actor="diver")
    g.play("move E")
    assert g.hp() == {"diver": 0, "medic": 1} and g.leapers() == []
    assert [k[1] for k in kinds(g, "slash")] == [0, 1]  # the diver first; out, then the medic


def test_repel_removes_the_oldest_monster_leaper_included():  # R-EXT-4 (Repel, R-CAV-7)
    g = ext("start:E normal:W", cavers="bodyguard@0,0", leapers="1,0:0", horrors="1,0:1")
    g.play("repel E")
    assert g.leapers() == [] and g.horrors() == [(1, 0)]
    assert "repel E" in g.legal()  # the horror is still there


# ---------------------------------------------------------------------------------------------- sanctuary
def test_leapers_go_around_the_sanctuary_horrors_through_it():  # R-EXT-7
    g = ext(*LOOP, cavers="leader@0,0", leapers="4,0", horrors="4,0")
    g.play("end turn")
    assert g.leapers() == [(3, 1)] and g.horrors() == [(3, 0)]


def test_cavers_on_the_sanctuary_are_never_a_victim_but_a_horror_may_enter():  # R-EXT-7
    g = ext(SANCT, cavers="leader@0,0 medic@2,0", horrors="3,0")
    g.play("end turn", "end turn")
    assert g.horrors() == [(2, 0)] and g.hp() == {"leader": 3, "medic": 0}  # hunting the leader, through (2,0)


def test_with_the_setting_horrors_may_not_enter_the_sanctuary():  # R-EXT-7 option
    g = ext(*LOOP, cavers="leader@0,0", horrors="4,0", settings={"sanctuary_blocks_horrors": True})
    g.play("end turn")
    assert g.horrors() == [(4, 1)]


# ---------------------------------------------------------------------------------------------- cut off
def test_a_leaper_with_every_caver_beyond_the_sanctuary_is_removed():  # R-EXT-8
    g = ext(SANCT, cavers="leader@0,0 medic@2,0", leapers="4,0", horrors="4,0")
    g.play("end turn", "end turn")
    assert g.leapers() == [] and g.horrors() == [(3, 0)] and g.hp() == {"leader": 3, "medic": 3}
    assert kinds(g, "leaper_leave") == [("leaper_leave", -1, (4, 0), 0, "R-EXT-8")]
    g = ext(SANCT, cavers="leader@0,0", horrors="4,0", settings={"sanctuary_blocks_horrors": True})
    g.play("end turn")
    assert g.horrors() == []  # the option: a horror is cut off the same way


# ---------------------------------------------------------------------------------------------- biosamples
def test_biosamples_dealt_to_three_different_cavers():  # R-EXT-9
    st = Core(preset("extraction", biosamples=True)).init(np.arange(6))
    assert st.c_samples.tolist()[:3] == [[0, 1, 1, 1], [0, 1, 1, 1], [1, 1, 0, 1]]
    assert (st.c_samples.sum(1) == 3).all() and st.c_samples.max() == 1
    st = Core(preset("extraction", biosamples=True, biosample_seats=(0, 2, 3))).init(np.arange(2))
    assert st.c_samples.tolist() == [[1, 0, 1, 1]] * 2
    assert (Core(preset("extraction")).init(np.arange(4)).c_samples == 0).all()  # off by default


@pytest.mark.parametrize("samples, hidden", [(0, True), (1, False), (2, False)])
def test_a_holder_has_minus_one_on_skill_checks(samples, hidden):  # R-EXT-9
    g = ext("start:E normal:W", cavers=f"medic@0,0:samples={samples} leader@1,0", dice="4",
            settings={"biosamples": True})
    g.play("hide")
    assert bool(g.st.c_hidden[0, g.seat("medic")]) is hidden  # 4 passes; 4 - 1 fails, -1 not -1 per card


def test_transfer_and_devouring_as_annihilation():  # R-EXT-9 with R-ANN-7, R-ANN-8
    g = ext("start:E normal:W", cavers="medic@0,0:samples=1 leader@0,0 diver@0,0:hp=0:samples=1 climber@1,0",
            settings={"biosamples": True})
    legal = g.legal()
    assert {"give card to caver 8", "give card to caver 1", "take card from caver 1"} <= legal
    assert "give card to caver 5" not in legal and "place bomb" not in legal
    g.play("take card from caver 1", "give card to caver 8")
    assert g.st.c_samples[0].tolist() == [1, 1, 0, 0]
    g = ext("start:E normal:W", cavers="medic@0,0:samples=2 leader@1,0:samples=1", out_of_time="on", dice="1 6",
            ap="0", settings={"biosamples": True})
    g.play("end turn", "end turn")
    assert g.st.c_dead[0].tolist() == [True, False] and g.st.c_samples[0].tolist() == [0, 1]  # lost with her


@pytest.mark.parametrize("medic_at, result", [("1,0", "gold"), ("0,0:hp=0", "defeat")])
def test_defeat_unless_every_biosample_is_held_on_the_exit(medic_at, result):  # R-EXT-9
    g = ext("start:E exit:W", cavers=f"leader@0,0:samples=2 medic@{medic_at}:samples=1 diver@1,0",
            settings={"biosamples": True})
    g.play("move E")
    assert g.result() == result


def test_without_biosamples_the_medal_is_as_usual():  # R-EXT-9 off [default]
    g = ext("start:E exit:W", cavers="leader@0,0 medic@0,0:hp=0 diver@1,0")
    g.play("move E")
    assert g.result() == "silver"


# ---------------------------------------------------------------------------------------------- invariants
@pytest.mark.parametrize("biosamples", [False, True])
def test_random_extraction_games_keep_every_invariant(biosamples):  # R-EXT-1..9 with the invariant checker
    """Random legal play (preferring Transfer when offered) from 64 seeded setups on Advanced (every leaper card in
    the pool), every invariant checked after every step."""
    cfg = preset("extraction", biosamples=biosamples, difficulty="advanced")
    core = Core(cfg)
    st = core.init(np.arange(64))
    rng = np.random.default_rng(3)
    check_invariants(cfg, None, st, core.legal_mask(st))
    leapers = transfers = 0
    for _ in range(600):
        mask = core.legal_mask(st)
        if not mask.any():
            break
        pick = random_legal(mask, rng, prefer_from=90, prefer_p=0.5)  # the scenario's actions exercised
        transfers += int((pick > action_id("place bomb")).sum())
        before = snapshot(st)
        core.step(st, pick)
        leapers += int((st.l_tile >= 0).sum())
        check_invariants(cfg, before, st, core.legal_mask(st))
    assert (st.result >= 0).all() and leapers > 0
    assert (transfers > 0) is biosamples
    assert (st.c_samples.sum(1) <= (3 if biosamples else 0)).all()


def test_extraction_settings_are_checked():
    assert num_actions("extraction") == 107
    with pytest.raises(ConfigError, match="'biosamples'"):
        GameConfig(biosamples=True)  # an Extraction setting in the base game
    with pytest.raises(ConfigError, match="'biosample_seats'"):
        GameConfig(scenario="extraction", biosamples=True, biosample_seats=(0, 0, 1))
    with pytest.raises(ConfigError, match="'leaper_limit'"):
        GameConfig(scenario="extraction", leaper_limit=4)
    with pytest.raises(ConfigError, match="'sanctuary_blocks_horrors'"):
        GameConfig(scenario="extraction", sanctuary_blocks_horrors=1)
    assert preset("extraction-six").num_cavers == 6 and preset("extraction-five").scenario == "extraction"
