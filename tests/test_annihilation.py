"""Rules tests for the Annihilation scenario (RULES_VAR.md, R-ANN-1..9): setup from seeds, then scenario maps.

Maps as in test_rules_actions.py (``scene`` in tests/helpers.py): cells are ``column,row``; ``bomb`` is a bomb
tile, ``B`` a bomb token on it, three digits an unstable cave-in tile; ``bombs=N`` the bomb cards a caver holds.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers import Game, scene
from subterra_env.config import ConfigError, GameConfig, preset
from subterra_env.games.sub_terra.core.actions import action_id
from subterra_env.games.sub_terra.core.catalogue import BIT, T_BOMB, T_CAVE_IN, T_EXIT, build
from subterra_env.games.sub_terra.core.invariants import STATE_CHECKS, check_invariants, snapshot
from subterra_env.games.sub_terra.core.rules import Core
from random_play import random_legal

ANN = {"scenario": "annihilation"}
# The exit north of the start; the zone is (0,-1) (1,-1) (2,-1) (0,0) (2,0); (0,1) and (2,1) lie across the
# start's open W and E sides and stay free.
EXIT_NORTH = ".          exit:S      ."


def ann_game(*rows: str, **keys) -> Game:
    return Game(scene(*rows, **keys), scenario="annihilation")


def test_exit_beside_the_start_opening_toward_it_and_not_in_the_stack():  # R-ANN-1
    core = Core(preset("annihilation"))
    st = core.init(np.arange(40))
    assert (st.exit_tile == 1).all() and (st.n_tiles == 2).all()
    dx = st.t_x[:, 1].astype(int) - st.t_x[:, 0]
    dy = st.t_y[:, 1].astype(int) - st.t_y[:, 0]
    sides = [int(np.flatnonzero((dx == x) & (dy == y)).size) for x, y in ((0, -1), (1, 0), (0, 1), (-1, 0))]
    assert sides == [7, 12, 9, 12]  # N, E, S, W over seeds 0..39: every side, drawn by the seed
    assert (int(dx[0]), int(dy[0])) == (0, -1) and int(st.t_open[0, 1]) == BIT[2]  # seed 0: north, open S
    back = {(0, -1): 2, (1, 0): 3, (0, 1): 0, (-1, 0): 1}
    assert all(int(st.t_open[b, 1]) == BIT[back[(int(dx[b]), int(dy[b]))]] for b in range(40))
    assert not (st.stack == core.cat.exit_id).any()


def test_open_sides_at_setup_are_the_start_sides_away_from_the_exit():  # R-ANN-2
    core = Core(preset("annihilation"))
    st = core.init(np.arange(8))
    assert (st.open_sides == 3).all()
    mask = core.legal_mask(st)[0]  # the first caver of game 0 (exit north)
    assert [bool(mask[action_id(f"reveal {d}")]) for d in "NESW"] == [False, True, True, True]


def test_no_reveal_into_the_zone_and_its_sides_are_not_open():  # R-ANN-2
    g = ann_game(EXIT_NORTH, "normal:NE  start:NESW  .", cavers="engineer@0,1 diver@1,1")
    assert int(g.st.open_sides[0]) == 2  # start E and S; normal's N faces the zone cell (0,0)
    legal = g.legal()
    assert "reveal N" not in legal and "explore N" not in legal
    assert "demolish N" not in legal  # an open side facing the zone: no explosives there [default]
    assert "demolish W" in legal  # a closed side facing a free cell


def test_a_rotation_opening_only_into_the_zone_closes_the_cave():  # R-ANN-2 with R-CON-4
    # start:NE:x (N to the exit): (0,1) is in the zone now, (2,1) across the open E side is free. A corner revealed
    # east must open W; turned 270 its other side faces the zone cell (2,0), which would leave no open side.
    g = ann_game(EXIT_NORTH, ".          start:NE:x    .", cavers="diver@1,1 medic@1,1", stack="normal:L")
    assert int(g.st.open_sides[0]) == 1
    g.play("reveal E")
    t = g.tile(2, 1)
    assert t >= 0 and int(g.st.t_open[0, t]) == BIT[2] | BIT[3]  # placed at once turned 180: S and W
    assert int(g.st.pend[0]) == 0 and int(g.st.open_sides[0]) == 1


def test_stack_of_piles_with_bombs_in_p2_p3_and_the_bottom_six():  # R-ANN-3
    cfg = preset("annihilation")
    core = Core(cfg)
    cat = core.cat
    assert (cat.stack_size, cat.max_tiles) == (51, 53)
    st = core.init(np.arange(50))
    bomb_ids = np.flatnonzero(cat.tile_type == T_BOMB)
    assert list(bomb_ids) == [66, 67, 68]
    pos = [sorted(int(p) for p in np.flatnonzero(np.isin(st.stack[b], bomb_ids))) for b in range(50)]
    assert pos[0] == [23, 30, 47]
    assert all(12 <= p[0] < 25 and 25 <= p[1] < 38 and 45 <= p[2] < 51 for p in pos)  # P2, P3, last 6 of P4
    assert all(len(set(st.stack[b].tolist())) == 51 for b in range(50))  # 48 cave tiles + 3 bombs, no repeat
    # 66 tiles shuffled (64 cave + 2 unstable), 18 removed: every game keeps 48 of them
    assert all(np.isin(st.stack[b], np.arange(66)).sum() == 48 for b in range(50))
    # the unstable tiles: three numbers each, so every face is on exactly five cave-in tiles
    caveins = np.flatnonzero(cat.tile_type == T_CAVE_IN)
    faces = np.concatenate([cat.die_a[caveins], cat.die_b[caveins], cat.die_c[caveins]])
    assert [int((faces == f).sum()) for f in range(1, 7)] == [5] * 6
    assert sorted(tuple(int(cat.die_c[i]) for i in caveins if cat.die_c[i])) == [3, 6]


def test_an_unstable_tile_collapses_on_any_of_its_three_numbers():  # R-ANN-3 with R-HZ-4
    for die, hit in ((3, True), (4, False)):
        g = ann_game(EXIT_NORTH, ".          start:NESW  cave-in:W:123", cavers="diver@2,1 medic@1,1",
                     deck="cave-in", dice=str(die), ap="0")
        g.play("end turn", "end turn")
        assert bool(g.st.t_rubble[0, g.tile(2, 1)]) is hit
        assert g.hp("diver") == (0 if hit else 3)


def test_a_bomb_tile_is_placed_even_when_every_rotation_closes_the_cave():  # R-ANN-4
    # The cell east of the start: the zone to its north, closed tiles east and south. A normal T there would close
    # the cave and is discarded (R-CON-4); the bomb tile after it is placed anyway.
    rows = (EXIT_NORTH + "  .", ".          start:NE:x    .          normal:", ".          .           normal:")
    g = ann_game(*rows, cavers="diver@1,1 medic@1,1", stack="normal:T bomb")
    g.play("reveal E")
    assert g.legal() == {"rotate 90", "rotate 180", "rotate 270"}  # every rotation opening toward the start
    g.play("rotate 90")
    t = g.tile(2, 1)
    assert t >= 0 and int(g.st.t_type[0, t]) == T_BOMB and int(g.st.open_sides[0]) == 0
    assert int(g.st.stack_pos[0]) == g.st.stack.shape[1]  # both drawn: the T discarded, the bomb placed


def test_the_scout_may_not_redraw_a_bomb_tile():  # R-ANN-4 with R-CAV-2
    g = ann_game(EXIT_NORTH, ".          start:NESW  .", cavers="scout@1,1 medic@1,1", stack="bomb normal:T")
    g.play("reveal S")
    assert "redraw tile" not in g.legal() and int(g.st.pend[0]) == 1  # the bomb waits for its rotation
    g = ann_game(EXIT_NORTH, ".          start:NESW  .", cavers="scout@1,1 medic@1,1", stack="normal:T bomb")
    g.play("reveal S")
    assert "redraw tile" in g.legal()  # a normal tile: Sense of direction as usual


def test_bomb_cards_go_to_three_different_seats():  # R-ANN-5
    st = Core(preset("annihilation")).init(np.arange(30))
    assert (st.c_bombs.sum(1) == 3).all() and (st.c_bombs.max(1) == 1).all()
    assert st.c_bombs[:3].tolist() == [[1, 1, 0, 1], [0, 1, 1, 1], [1, 1, 0, 1]]
    assert sorted({tuple(r) for r in st.c_bombs.tolist()}) == [(0, 1, 1, 1), (1, 0, 1, 1), (1, 1, 0, 1),
                                                                (1, 1, 1, 0)]
    fixed = Core(preset("annihilation", bomb_seats=[0, 2, 3])).init(np.arange(5))
    assert (fixed.c_bombs == [1, 0, 1, 1]).all()
    with pytest.raises(ConfigError, match="bomb_seats"):
        GameConfig(scenario="annihilation", bomb_seats=(0, 0, 1))


def test_place_bomb_spends_the_card_and_an_ap_once_per_tile():  # R-ANN-6
    g = ann_game(EXIT_NORTH, ".          start:NESW  bomb:W", cavers="diver@2,1:bombs=2 medic@2,1:bombs=1")
    assert "place bomb" in g.legal()
    g.play("place bomb")
    t = g.tile(2, 1)
    assert bool(g.st.t_bomb[0, t]) and g.st.c_bombs[0].tolist() == [1, 1] and g.ap == 1
    assert "place bomb" not in g.legal()  # one token per tile
    g.play("move W")
    assert "place bomb" not in g.legal()  # not a bomb tile


def test_place_bomb_can_be_the_directed_action():  # R-ANN-6 with R-CAV-8
    g = ann_game(EXIT_NORTH, ".          start:NESW  bomb:W", cavers="leader@1,1 diver@2,1:bombs=1")
    g.play("direct caver 1")
    assert g.actor() == "diver" and "place bomb" in g.legal()
    g.play("place bomb")
    assert bool(g.st.t_bomb[0, g.tile(2, 1)]) and g.actor() == "leader" and g.ap == 1


def test_transfer_gives_to_a_caver_here_and_takes_only_from_the_unconscious():  # R-ANN-7
    g = ann_game(EXIT_NORTH, ".          start:NESW  normal:W",
                 cavers="diver@1,1:bombs=1 medic@1,1 scout@1,1:hp=0:bombs=1 climber@2,1")
    legal = g.legal()
    assert {"give card to caver 6", "give card to caver 2", "take card from caver 2"} <= legal
    assert "give card to caver 5" not in legal  # the climber is on another tile
    assert "take card from caver 6" not in legal  # the medic is conscious: it gives on its own turn
    g.play("take card from caver 2")
    assert g.st.c_bombs[0].tolist() == [2, 0, 0, 0] and g.ap == 1
    g.play("give card to caver 6")
    assert g.st.c_bombs[0].tolist() == [1, 1, 0, 0] and g.ap == 0
    g = ann_game(EXIT_NORTH, ".          start:NESW  normal:W", cavers="diver@1,1 medic@1,1")
    assert not any(n.startswith(("give", "take")) for n in g.legal())  # no card, nothing to move


def test_a_devoured_caver_loses_its_cards_an_unconscious_one_keeps_them():  # R-ANN-8
    g = ann_game(EXIT_NORTH, ".          start:NESW  normal:W",
                 cavers="diver@2,1:bombs=1 medic@1,1:hp=0:bombs=1 scout@1,1",
                 deck="out-of-time", dice="1 6 6", ap="0")
    g.play("end turn", "end turn")  # Out of Time: one check per seat; the diver fails (1), the others pass (6)
    assert g.pos("diver") is None and g.st.c_bombs[0].tolist() == [0, 1, 0]
    assert bool(g.st.c_dead[0, g.seat("medic")]) is False  # unconscious: no check, keeps its card


@pytest.mark.parametrize("tokens, result", [(3, "gold"), (2, "defeat")])
def test_a_bomb_tile_without_a_token_is_a_defeat(tokens, result):  # R-ANN-9
    marks = ["B" if i < tokens else "" for i in range(3)]
    g = ann_game(EXIT_NORTH, f"bomb:E:{marks[0]}  start:NESW  bomb:W:{marks[1]}", f".  bomb:N:{marks[2]}  .",
                 cavers="diver@1,1 medic@1,1 scout@1,1")
    g.play("move N")
    assert g.result() is None
    g.play("end turn", "move N", "end turn", "move N")
    assert g.result() == result


def test_a_bomb_still_in_the_stack_is_a_defeat():  # R-ANN-9: placed, in the stack or set aside
    g = ann_game(EXIT_NORTH, "bomb:E:B  start:NESW  bomb:W:B", cavers="diver@1,1 medic@1,1", stack="bomb")
    g.play("move N", "end turn", "move N")
    assert g.result() == "defeat"


@pytest.mark.parametrize("row, stack, result", [
    ("bomb:E:B  start:NESW  .", "", "gold"),
    ("bomb:E:B  start:NESW  bomb:W:B", "", "gold"),
    (".  start:NESW  .", "", "gold"),
    ("bomb:E:B  start:NESW  .", "bomb", "defeat"),
    ("bomb:E  start:NESW  .", "", "defeat"),
])
def test_a_map_with_fewer_than_three_bomb_tiles_counts_its_own(row, stack, result):  # R-ANN-9
    """The rule counts bomb tiles, not tokens against the dealt game's 3: a map with one or two bomb tiles (or
    none), each with its token, ends in medals; a bare one, placed or in the stack, is a defeat."""
    g = ann_game(EXIT_NORTH, row, cavers="diver@1,1 medic@1,1 scout@1,1", **({"stack": stack} if stack else {}))
    g.play("move N", "end turn", "move N", "end turn", "move N")
    assert g.result() == result
    results = dict((name, check) for name, _, check in STATE_CHECKS)["results"]  # the checker agrees
    assert not results(g.core.cfg, g.st, g.core.legal_mask(g.st)).any()


NEAR_BOMBS = scene(EXIT_NORTH, "bomb:ES:x  start:NESW  bomb:WS:x", ".  bomb:N  .",
                   cavers="diver@1,1:bombs=1 medic@0,1:bombs=1 scout@2,1 leader@1,2:bombs=1",
                   stack="normal:4 normal:T gas:L water:I normal:L", deck="tremor gas horror cave-in out-of-time")


@pytest.mark.parametrize("where", ["setup", "map"])
def test_random_annihilation_games_keep_every_invariant(where):  # R-ANN-1..9 with the invariant checker
    """Random legal play (preferring the scenario's actions when offered) from 64 seeded setups, and from a map
    with the bomb tiles beside the start (64 dice streams), every invariant checked after every step."""
    cfg = preset("annihilation")
    core = Core(cfg)
    if where == "setup":
        st = core.init(np.arange(64))
    else:
        from subterra_env import scenario
        from subterra_env.games.sub_terra.core.state import State
        st = State.concat([scenario.build(NEAR_BOMBS.replace("map:", f"seed: {i}\nmap:"), core=core)
                           for i in range(64)])
    rng = np.random.default_rng(7)
    check_invariants(cfg, None, st, core.legal_mask(st))
    tokens = transfers = 0
    for _ in range(400):
        mask = core.legal_mask(st)
        if not mask.any():
            break
        # random legal play that prefers the scenario's actions when offered, so they are exercised
        pick = random_legal(mask, rng, prefer_from=90, prefer_p=0.7)
        tokens += int((pick == action_id("place bomb")).sum())
        transfers += int((pick > action_id("place bomb")).sum())
        before = snapshot(st)
        core.step(st, pick)
        check_invariants(cfg, before, st, core.legal_mask(st))
    assert (st.result >= 0).all()
    assert transfers > 0 and (tokens > 0 or where == "setup")
    assert (st.c_bombs.sum(1) + st.t_bomb.sum(1) <= 3).all()
    if where == "map":  # bombs placed per game (0..3): random play delivers them but never gets the team out
        assert np.bincount(st.t_bomb.sum(1), minlength=4).tolist() == [0, 3, 45, 16]
        assert (st.result == 0).all()


def test_scenario_settings_are_checked():
    with pytest.raises(ConfigError, match="'scenario'='volcano'"):
        GameConfig(scenario="volcano")
    with pytest.raises(ConfigError, match="explicit_reactions.*outside scenario 'investigation'.*'annihilation'"):
        GameConfig(scenario="annihilation", explicit_reactions=True)  # Investigation's setting (R-INV-5)
    with pytest.raises(ConfigError, match="unstable_cave_in_numbers"):
        GameConfig(scenario="annihilation", unstable_cave_in_numbers=((1, 2), (3, 4)))
    with pytest.raises(ConfigError, match="at least 36 cave tiles"):
        preset("tiny", scenario="annihilation")
    assert build(preset("annihilation")).tile_type[build(preset("annihilation")).exit_id] == T_EXIT
