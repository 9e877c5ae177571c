"""Rules tests for the Investigation scenario (RULES_VAR.md, R-INV-1..20): setup from seeds, then scenario maps.

Maps as in test_rules_hazards.py (``scene`` in tests/helpers.py): cells are ``column,row``; ``item`` is an item
tile, the mark ``I`` its token; ``items=a,b`` the items a caver holds (``-`` for a space); ``items:`` the item deck,
top first; ``doom: on`` doom pending; the deck takes ``doom``. Ending every turn runs the horror phase.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers import Game, scene
from subterra_env.config import ConfigError, GameConfig, preset
from subterra_env.games.sub_terra.core.actions import num_actions
from subterra_env.games.sub_terra.core.catalogue import C_DOOM, ITEM_NAMES, NUM_ITEMS, SHAPES, T_EXIT, T_ITEM, build
from subterra_env.games.sub_terra.core.invariants import check_invariants, snapshot
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.events import decode, set_logging
from random_play import random_legal


def inv(*rows: str, settings: dict | None = None, **keys) -> Game:
    g = Game(scene(*rows, **keys), scenario="investigation", **(settings or {}))
    set_logging(g.st, slice(None), True)
    return g


def kinds(g: Game, *names: str) -> list[tuple]:
    return [(e.kind, e.seat, g.xy(e.tile) if e.tile >= 0 else None, e.value, e.rule) for e in decode(g.st)
            if e.kind in names]


def held(g: Game, name: str) -> list[str]:
    """The items a caver holds, by name."""
    bits = int(g.st.c_items[0, g.seat(name)])
    return [ITEM_NAMES[i] for i in range(NUM_ITEMS) if (bits >> i) & 1]


def out(g: Game) -> list[str]:
    """The items out of the game."""
    return [ITEM_NAMES[i] for i in range(NUM_ITEMS) if (int(g.st.i_out[0]) >> i) & 1]


# ---------------------------------------------------------------------------------------------- setup
def test_tiles_three_item_tiles_top_three_removed_exit_in_the_bottom_six():  # R-INV-1
    core = Core(preset("investigation"))
    cat = core.cat
    assert (cat.n_cave, cat.stack_size, cat.max_tiles) == (67, 65, 66)
    assert np.flatnonzero(cat.tile_type == T_ITEM).tolist() == [64, 65, 66]
    assert [SHAPES[s] for s in cat.tile_shape[64:67]] == ["T", "T", "T"]  # RULES_VAR shapes [default]
    st = core.init(np.arange(50))
    removed = [sorted(set(range(67)) - set(st.stack[b].tolist())) for b in range(50)]
    assert all(len(r) == 3 for r in removed)  # 3 of the 67 removed unseen
    exits = [int(np.flatnonzero(st.stack[b] == cat.exit_id)[0]) for b in range(50)]
    assert set(exits) == set(range(59, 65))  # the bottom six of 65
    assert cat.tile_type[cat.exit_id] == T_EXIT
    in_stack = [int(np.isin(st.stack[b], [64, 65, 66]).sum()) for b in range(50)]
    assert max(in_stack) == 3 and sum(in_stack) == ITEM_TILES_IN_50_STACKS  # an item tile is sometimes removed
    assert not st.t_item.any() and (st.c_items == 0).all()  # no item tile placed yet, nobody holds an item


ITEM_TILES_IN_50_STACKS = 141


@pytest.mark.parametrize("difficulty, size, dealt", [("easier", 28, 25), ("normal", 28, 22), ("advanced", 30, 20),
                                                     ("expert", 28, 18)])
def test_doom_cards_join_the_pool_after_removals_and_the_item_deck_is_shuffled(difficulty, size, dealt):  # R-INV-2
    cfg = preset("investigation", difficulty=difficulty)
    cat = build(cfg)
    pool = cat.deck_pool
    assert (len(pool), int((pool == C_DOOM).sum())) == (size, 3)
    assert cat.deal_size == dealt == build(GameConfig(difficulty=difficulty)).deal_size
    assert sorted(pool[pool != C_DOOM].tolist()) == sorted(build(GameConfig(difficulty=difficulty)).deck_pool.tolist())
    st = Core(cfg).init(np.arange(20))
    assert all(sorted(st.i_deck[b].tolist()) == list(range(14)) for b in range(20))  # one of each item
    assert len({tuple(st.i_deck[b]) for b in range(20)}) == 20  # seeded orders
    assert (st.i_pos == 0).all() and (st.c_items == 0).all() and (st.i_out == 0).all() and not st.doom.any()


# ---------------------------------------------------------------------------------------------- random games
@pytest.mark.parametrize("cavers", [4, 6])
def test_random_investigation_games_keep_every_invariant(cavers):  # R-INV-1..20 with the invariant checker
    """Random legal play (preferring the scenario's actions when offered) from 64 seeded setups, with every item
    handed out at the start (so every item is used), every invariant checked after every step."""
    cfg = preset("investigation", num_cavers=cavers, difficulty="advanced")
    core = Core(cfg)
    st = core.init(np.arange(64))
    for b in range(64):  # deal the item deck round the table (a test start: every item in play)
        for k in range(NUM_ITEMS):
            st.c_items[b, k % cavers] |= 1 << int(st.i_deck[b, k])
        st.i_pos[b] = NUM_ITEMS
    rng = np.random.default_rng(3)
    check_invariants(cfg, None, st, core.legal_mask(st))
    used = np.zeros(num_actions("investigation"), dtype=np.int64)
    for _ in range(600):
        mask = core.legal_mask(st)
        if not mask.any():
            break
        pick = random_legal(mask, rng, prefer_from=90, prefer_p=0.6)  # the scenario's actions exercised
        used += np.bincount(pick[st.result < 0], minlength=used.shape[0])
        before = snapshot(st)
        core.step(st, pick)
        check_invariants(cfg, before, st, core.legal_mask(st))
    assert (st.result >= 0).all()
    assert (used[107:] > 0).sum() >= 35, np.flatnonzero(used[107:] == 0) + 107


# ---------------------------------------------------------------------------------------------- doom
def test_doom_only_sets_the_flag_then_the_next_basic_card_resolves_as_x2():  # R-INV-3
    g = inv("start:E water:W", cavers="diver@0,0 leader@1,0", deck="doom doom flood horror", ap="0")
    g.play("end turn", "end turn")  # round 1: Doom, nothing happens
    assert bool(g.st.doom[0]) and g.hp("leader") == 3
    assert kinds(g, "doom") == [("doom", -1, None, 1, "R-INV-3")]
    g.play("end turn", "end turn")  # round 2: a second Doom: still set, no stacking
    assert bool(g.st.doom[0]) and g.hp("leader") == 3
    g.play("end turn", "end turn")  # round 3: Flood resolves as Flood x2: the leader on water loses 1 twice
    assert not bool(g.st.doom[0]) and g.hp("leader") == 1
    assert kinds(g, "doom") == [("doom", -1, None, 6, "R-INV-3")]  # resolved as card 6, flood x2


def test_doom_then_an_x2_card_resolves_as_printed_and_out_of_time_clears_it():  # R-INV-3
    g = inv("start:E gas:W", cavers="diver@0,0 leader@1,0", deck="doom gas:x2", ap="0")
    g.play("end turn", "end turn", "end turn", "end turn")
    assert g.hp("leader") == 0 and not bool(g.st.doom[0])  # gas x2 as printed: 2 + 2, not x4 (same here)
    g = inv("start:E normal:W", cavers="diver@0,0 leader@1,0", deck="doom out-of-time", ap="0", dice="6 6")
    g.play("end turn", "end turn", "end turn", "end turn")
    assert not bool(g.st.doom[0]) and bool(g.st.out_of_time[0]) and g.result() is None


# ---------------------------------------------------------------------------------------------- item tiles
def test_a_placed_item_tile_gets_a_token_the_first_to_enter_draws_the_top_item():  # R-INV-4
    g = inv("start:E", cavers="diver@0,0 leader@0,0", stack="item:T", items="flare wetsuit")
    g.play("reveal E")
    if "rotate 270" in g.legal():
        g.play("rotate 270")
    t = g.tile(1, 0)
    assert bool(g.st.t_item[0, t]) and held(g, "diver") == []
    g.play("move E")
    assert not bool(g.st.t_item[0, t]) and held(g, "diver") == ["flare"] and int(g.st.i_pos[0]) == 13
    assert kinds(g, "item_draw") == [("item_draw", 0, (1, 0), 3, "R-INV-4")]
    g.play("end turn", "move E")  # the leader enters after: no token, nothing drawn
    assert held(g, "leader") == []


def test_explore_onto_an_item_tile_draws_even_if_the_entry_knocks_the_caver_out():  # R-INV-4
    g = inv("start:E item:W:I", cavers="diver@0,0", horrors="1,0", items="gas-mask")
    g.play("move E")
    assert held(g, "diver") == ["gas mask"] and g.hp("diver") == 0  # drew, then the horror knocked it out
    g = inv("start:E", cavers="diver@0,0 leader@0,0", stack="item:T", items="wetsuit flare")
    g.play("explore E")  # Explore places the item tile, then enters it: the token is taken at once
    if int(g.st.pend[0]) == 1:
        g.play(sorted(n for n in g.legal() if n.startswith("rotate"))[0])
    assert g.pos("diver") == (1, 0) and held(g, "diver") == ["wetsuit"] and not g.st.t_item[0].any()
    g = inv("start:E item:W:I", cavers="diver@0,0")  # an empty item deck: the token goes, nothing drawn
    g.play("move E")
    assert not g.st.t_item[0].any() and held(g, "diver") == []
    assert kinds(g, "item_draw") == [("item_draw", 0, (1, 0), -1, "R-INV-4")]


def test_investigation_settings_are_checked():  # R-INV-5, R-INV-18 settings
    assert GameConfig(scenario="investigation", explicit_reactions=True).explicit_reactions  # built (R-INV-18 tests)
    with pytest.raises(ConfigError, match="explicit_reactions.*outside scenario 'investigation'.*'base'"):
        GameConfig(explicit_reactions=True)
    with pytest.raises(ConfigError, match="explicit_reactions"):
        GameConfig(scenario="investigation", explicit_reactions=1)
    with pytest.raises(ConfigError, match="item_cost"):
        GameConfig(scenario="investigation", item_cost=3)
    with pytest.raises(ConfigError, match="gas_mask_keeps"):
        GameConfig(scenario="investigation", gas_mask_keeps="yes")
    with pytest.raises(ConfigError, match="doom_cards"):
        GameConfig(scenario="investigation", doom_cards=-1)
    assert preset("investigation-six").num_cavers == 6 and preset("investigation-five").scenario == "investigation"
    assert num_actions("investigation") == 154


# ---------------------------------------------------------------------------------------------- using items
def test_item_actions_cost_their_ap_are_discarded_and_no_effect_uses_are_illegal():  # R-INV-5
    g = inv("start:E normal:W", cavers="diver@0,0:items=shovel,adrenaline,painkillers medic@1,0")
    legal = g.legal()
    assert "adrenaline" in legal and "painkillers" not in legal  # full health: no effect, illegal
    assert not any(n.startswith("shovel") for n in legal)  # no rubble anywhere
    g.play("adrenaline")  # 0 AP, +1 AP
    assert g.ap == 3 and held(g, "diver") == ["shovel", "painkillers"] and out(g) == ITEM_OUT_ALL_BUT(
        "shovel", "painkillers")
    assert kinds(g, "item_use") == [("item_use", 0, (0, 0), 4, "R-INV-11")]


def ITEM_OUT_ALL_BUT(*names: str) -> list[str]:
    """Every item but these: out of the game in a map with no item deck."""
    return [n for n in ITEM_NAMES if n not in names]


def test_a_one_ap_item_may_be_the_directed_action_a_zero_ap_one_may_not():  # R-INV-5 with R-CAV-8
    g = inv("start:E normal:W:*", cavers="leader@0,0 diver@0,0:items=shovel,adrenaline")
    g.play("direct caver 1")
    assert g.actor() == "diver" and "shovel E" in g.legal() and "adrenaline" not in g.legal()
    g.play("shovel E")
    assert not bool(g.st.t_rubble[0, g.tile(1, 0)]) and g.actor() == "leader" and g.ap == 1
    assert held(g, "diver") == ["adrenaline"]


def test_reactions_and_passives_work_while_unconscious():  # R-INV-5 with R-INV-19
    # Out of Time: the unconscious diver with the Lucky Charm rolls 3 (+1 = 4: passes); the medic rolls 3: devoured
    g = inv("start:E normal:W", cavers="diver@1,0:hp=0:items=lucky-charm medic@1,0 leader@0,0", deck="out-of-time",
            ap="0", dice="3 3 6", start="leader")
    g.play("end turn", "end turn")
    assert g.pos("diver") == (1, 0) and g.pos("medic") is None


def test_transfer_an_item_names_it_when_the_giver_holds_several():  # R-INV-6
    g = inv("start:E normal:W", cavers="diver@0,0:items=flare,wetsuit medic@0,0 scout@0,0:hp=0:items=grenade "
            "leader@1,0:items=shovel")
    legal = g.legal()
    assert {"give card to caver 6", "give card to caver 2", "take card from caver 2"} <= legal
    assert "give card to caver 8" not in legal and "take card from caver 6" not in legal
    g.play("give card to caver 6")  # two items: which one is asked next
    assert int(g.st.pend[0]) == 6 and {n for n in g.legal()} == {"transfer item flare", "transfer item wetsuit"}
    g.play("transfer item wetsuit")
    assert held(g, "diver") == ["flare"] and held(g, "medic") == ["wetsuit"] and g.ap == 1
    g.play("take card from caver 2")  # one item: it moves at once
    assert held(g, "diver") == ["flare", "grenade"] and held(g, "scout") == [] and g.ap == 0
    assert kinds(g, "transfer") == [("transfer", 2, (0, 0), 0, "R-INV-6")]


def test_a_devoured_caver_loses_its_items_an_unconscious_one_keeps_them():  # R-INV-6
    g = inv("start:E normal:W", cavers="diver@1,0:items=flare,wetsuit medic@1,0:hp=0:items=grenade leader@0,0",
            deck="out-of-time", ap="0", dice="1 6 6")
    g.play("end turn", "end turn")
    assert g.pos("diver") is None and held(g, "diver") == [] and held(g, "medic") == ["grenade"]
    assert {"flare", "wetsuit"} <= set(out(g))


def test_protections_come_before_the_gas_mask_and_the_armor():  # R-INV-6 order
    # The Bodyguard's Protector stops the gas for the diver on his tile: the diver's Gas Mask is not spent
    g = inv("start:E gas:W", cavers="diver@1,0:items=gas-mask,body-armor bodyguard@1,0 leader@0,0", deck="gas",
            ap="0")
    g.play("end turn", "end turn", "end turn")
    assert g.hp("diver") == 3 and held(g, "diver") == ["body armor", "gas mask"]
    # a caver at 0 health loses nothing more and spends no card
    g = inv("start:E gas:W", cavers="diver@1,0:hp=0:items=gas-mask,body-armor leader@0,0", deck="gas", ap="0",
            start="leader")
    g.play("end turn")
    assert g.hp("diver") == 0 and held(g, "diver") == ["body armor", "gas mask"]


def test_shovel_clears_rubble_here_or_on_a_connected_tile():  # R-INV-7
    g = inv("start:E:* normal:W:*", cavers="diver@0,0:items=shovel medic@0,0")
    assert {"shovel here", "shovel E"} <= g.legal() and "shovel W" not in g.legal()
    g.play("shovel E")
    assert not bool(g.st.t_rubble[0, g.tile(1, 0)]) and bool(g.st.t_rubble[0, 0]) and g.ap == 1
    assert held(g, "diver") == [] and "shovel here" not in g.legal()  # the card is gone


def test_signal_booster_gives_any_conscious_caver_a_free_action_or_a_decline():  # R-INV-8
    row = "start:E normal:EW normal:EW normal:W"
    g = inv(row, cavers="diver@0,0:items=signal-booster medic@3,0 scout@3,0:hp=0 leader@0,0")
    legal = g.legal()
    assert {"signal booster caver 6", "signal booster caver 8"} <= legal  # anywhere
    assert "signal booster caver 2" not in legal and "signal booster caver 1" not in legal  # unconscious; myself
    g.play("signal booster caver 6")
    assert g.actor() == "medic" and g.ap == 1 and "move W" in g.legal() and "exert" not in g.legal()
    g.play("move W")
    assert g.pos("medic") == (2, 0) and g.actor() == "diver" and g.ap == 2  # the booster cost nothing
    g = inv(row, cavers="diver@0,0:items=signal-booster medic@3,0")
    g.play("signal booster caver 6", "end turn")  # the medic declines
    assert g.actor() == "diver" and g.ap == 2 and g.pos("medic") == (3, 0)


def test_spare_battery_spares_its_holder_the_out_of_time_check():  # R-INV-9
    g = inv("start:E normal:W", cavers="diver@1,0:items=spare-battery medic@1,0", deck="tremor out-of-time", ap="0")
    assert "spare battery" not in g.legal()  # Out of Time neither drawn nor next
    g = inv("start:E normal:W", cavers="diver@1,0:items=spare-battery medic@1,0", deck="out-of-time", dice="6")
    g.play("spare battery")
    assert int(g.st.battery[0]) == 1 and "spare battery" not in g.legal()
    g.play("end turn", "end turn")  # the one die (6) is the medic's: the diver makes no check
    assert g.pos("diver") == (1, 0) and g.pos("medic") == (1, 0) and int(g.st.battery[0]) == 0
    checks = [e for e in decode(g.st) if e.kind == "check"]
    assert [(e.seat, e.rule) for e in checks] == [(1, "R-HZ-7")]


def test_flare_reveals_beyond_every_legal_side_one_at_a_time_nobody_moves():  # R-INV-10
    g = inv("start:NESW", cavers="diver@0,0:items=flare medic@0,0", stack="normal:4 normal:4 normal:4 normal:4 "
            "normal:4")
    g.play("flare")
    assert g.ap == 1 and g.legal() == {"flare side N", "flare side E", "flare side S", "flare side W"}
    g.play("flare side E")  # a crossing: one rotation, placed at once
    assert g.legal() == {"flare side N", "flare side S", "flare side W"}
    g.play("flare side N", "flare side S", "flare side W")
    assert int(g.st.n_tiles[0]) == 5 and g.pos("diver") == (0, 0) and not bool(g.st.flare[0])
    assert int(g.st.pend[0]) == 0 and "end turn" in g.legal()


def test_flare_stops_when_the_stack_is_empty_and_asks_each_rotation():  # R-INV-10
    g = inv("start:NESW", cavers="diver@0,0:items=flare medic@0,0", stack="normal:L")
    g.play("flare", "flare side E")
    assert int(g.st.pend[0]) == 1  # a corner: the rotation is asked
    g.play(sorted(n for n in g.legal() if n.startswith("rotate"))[0])
    assert int(g.st.pend[0]) == 0 and not bool(g.st.flare[0]) and int(g.st.n_tiles[0]) == 2


def test_adrenaline_adds_one_ap_and_combines_with_exert():  # R-INV-11
    g = inv("start:E normal:W", cavers="diver@0,0:items=adrenaline medic@0,0")
    g.play("exert", "adrenaline")
    assert g.ap == 4 and not g.st.c_items[0].any()


def test_painkillers_heal_two_up_to_the_start_health_yourself_only():  # R-INV-12
    g = inv("start:E normal:W", cavers="diver@0,0:hp=2:items=painkillers medic@0,0:hp=1")
    g.play("painkillers")
    assert g.hp() == {"diver": 3, "medic": 1} and g.ap == 1


def test_grappling_hook_ropes_a_ledge_without_a_check():  # R-INV-13
    g = inv("start:E ledge:W:>", cavers="diver@1,0:items=grappling-hook medic@0,0", dice="1")
    ropes = int(g.st.ropes_left[0])
    g.play("grappling hook")
    assert bool(g.st.t_rope[0, g.tile(1, 0)]) and int(g.st.ropes_left[0]) == ropes - 1 and g.ap == 1
    assert not [e for e in decode(g.st) if e.kind == "check"]


def test_grenade_removes_every_monster_on_a_connected_tile():  # R-INV-14
    g = inv("start:E normal:EW normal:W", cavers="diver@0,0:items=grenade medic@0,0", horrors="1,0 1,0 2,0")
    assert g.legal() >= {"grenade E"} and "grenade W" not in g.legal()
    g.play("grenade E")
    assert g.horrors() == [(2, 0)] and g.ap == 1
    assert [e.rule for e in decode(g.st) if e.kind == "horror_leave"] == ["R-INV-14", "R-INV-14"]


def test_explosive_opens_a_wall_with_its_own_token_then_a_cave_in():  # R-INV-15
    g = inv("start:E normal:W", ".  cave-in:N", cavers="engineer@1,0:items=explosive medic@1,1")
    g.st.forced[0, 0] = g.core.cat.die_a[g.st.t_cat[0, g.tile(1, 1)]]  # the cave-in die hits that tile
    assert "explosive S" in g.legal() and "explosive W" not in g.legal()  # W is connected already
    g.play("explosive S")
    st = g.st
    assert int(st.explosives[0]) == 3 and g.tile(1, 1) in st.t_nbr[0, g.tile(1, 0)].tolist()
    assert bool(st.t_rubble[0, g.tile(1, 1)]) and g.hp("medic") == 0  # the cave-in hit it: rubble, 3 damage


def test_scrawled_map_discards_the_drawn_tile_and_the_next_must_be_placed():  # R-INV-16
    g = inv("start:NESW", cavers="diver@0,0:items=scrawled-map medic@0,0", stack="gas:T normal:4 normal:4")
    g.play("reveal E")
    assert "scrawled map redraw" in g.legal()  # a crossing waits for the decision, not placed at once
    g.play("scrawled map redraw")
    t = g.tile(1, 0)
    assert t >= 0 and int(g.st.t_type[0, t]) == 2 and held(g, "diver") == []  # the gas tile gone, a normal placed
    assert int(g.st.stack_pos[0]) == g.st.stack.shape[1] - 1
    g = inv("start:NESW", cavers="diver@0,0:items=scrawled-map medic@0,0", stack="exit normal:4")
    g.play("reveal E")
    assert "scrawled map redraw" not in g.legal()  # never the exit
    g = inv("start:NESW", cavers="diver@0,0:items=scrawled-map medic@0,0", stack="normal:4")
    g.play("reveal E")
    assert int(g.st.n_tiles[0]) == 2  # the last tile: no offer, placed at once


def test_body_armor_takes_the_first_point_and_a_knock_out_discards_it():  # R-INV-17
    g = inv("start:E gas:W", cavers="diver@1,0:items=body-armor leader@0,0", deck="gas", ap="0")
    g.play("end turn", "end turn")
    assert g.hp("diver") == 2 and held(g, "diver") == []  # 2 gas damage: the armor took 1
    g = inv("start:E normal:W", cavers="diver@0,0:items=body-armor leader@0,0", horrors="1,0")
    g.play("move E")
    assert g.hp("diver") == 0 and held(g, "diver") == []


def test_gas_mask_stops_all_gas_damage_including_gas_x2_and_entering():  # R-INV-18
    g = inv("start:E gas:W", cavers="diver@1,0:items=gas-mask,body-armor leader@0,0", deck="gas:x2", ap="0")
    g.play("end turn", "end turn")
    assert g.hp("diver") == 3 and held(g, "diver") == ["body armor"]  # the mask first, the armor kept
    g = inv("start:E gas:W", cavers="diver@0,0:items=gas-mask leader@0,0", gas="on")
    g.play("move E")
    assert g.hp("diver") == 3 and held(g, "diver") == []
    g = inv("start:E gas:W", cavers="diver@1,0:items=gas-mask leader@0,0", deck="gas:x2", ap="0",
            settings={"gas_mask_keeps": True})
    g.play("end turn", "end turn")
    assert g.hp("diver") == 2 and held(g, "diver") == ["gas mask"]  # the setting: lose 1, keep the card


def test_lucky_charm_adds_one_to_every_check_and_stacks_with_the_leader():  # R-INV-19
    # Tremor: each caver checks; rolls 3 and 2: the diver (no charm) fails on 3, the leader (+1 Leader, +1 charm)
    # passes on 2
    g = inv("start:E normal:W", cavers="diver@1,0 leader@1,0:items=lucky-charm", deck="tremor", ap="0", dice="3 2")
    g.play("end turn", "end turn")
    assert g.hp() == {"diver": 2, "leader": 3}
    assert [e.value for e in decode(g.st) if e.kind == "check"] == [0, 1]


def test_wetsuit_moves_into_floods_and_the_flood_still_hurts():  # R-INV-20
    g = inv("start:E water:W:~", cavers="diver@0,0:items=wetsuit medic@0,0", deck="flood", actor="medic", start="medic")
    assert "move E" not in g.legal()  # the medic has no wetsuit
    g = inv("start:E water:W:~", cavers="medic@0,0:items=wetsuit leader@0,0", deck="flood")
    assert "move E" in g.legal()
    g.play("move E", "end turn", "end turn")
    assert g.pos("medic") == (1, 0) and g.hp("medic") == 2  # the flood card: 1 damage on a water tile


def test_every_investigation_rule_id_is_named_by_a_test():
    """R-INV-1..20 each appear on the line of a test function of tests/test_investigation*.py (its comment)."""
    import re
    from pathlib import Path

    named: set[int] = set()
    for path in sorted(Path(__file__).parent.glob("test_investigation*.py")):
        for line in path.read_text().splitlines():
            if line.startswith("def test_") and "#" in line:
                comment = line.split("#", 1)[1]
                for first, rest in re.findall(r"R-INV-(\d+)((?:\.\.\d+)?)", comment):
                    last = int(rest[2:]) if rest else int(first)
                    named.update(range(int(first), last + 1) if last - int(first) < 3 else [int(first)])
    assert sorted(set(range(1, 21)) - named) == []


def test_games_are_the_same_at_any_batch_size():  # R-INV-2 (the item deck from the seed) with random play
    """Seeded games with every item dealt round the table, random legal play from a per-game stream: a batch of 6
    and the same games one by one end in the same states."""
    from subterra_game.records import state_hash

    cfg = preset("investigation")

    def run(seeds):
        core = Core(cfg)
        st = core.init(np.array(seeds))
        for b in range(len(seeds)):
            for k in range(NUM_ITEMS):
                st.c_items[b, k % 4] |= 1 << int(st.i_deck[b, k])
            st.i_pos[b] = NUM_ITEMS
        rngs = [np.random.default_rng(s) for s in seeds]
        for _ in range(300):
            mask = core.legal_mask(st)
            acts = random_legal(mask, rngs)
            core.step(st, acts)
        return [state_hash(st, b) for b in range(len(seeds))]

    seeds = list(range(10, 16))
    assert run(seeds) == [run([s])[0] for s in seeds]
