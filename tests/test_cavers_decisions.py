"""Abilities with decision points: Scout's Sense of direction, Geologist's Intuition, Engineer's Demolish,
Diver's Dive and surfacing (R-CAV-1..4)."""

from __future__ import annotations

from helpers import Game, scene

from subterra_env.games.sub_terra.core.catalogue import T_GAS, T_NORMAL, T_WATER


def only(legal: set[str], prefix: str) -> set[str]:
    return {a for a in legal if a.startswith(prefix)}


# --- Scout (R-CAV-2)
def test_scout_redraws_once_per_placement_and_must_place_the_next():  # R-CAV-2
    g = Game(scene("start:NESW", cavers="scout@0,0 medic@0,0", stack="gas:L normal:4 normal:I", redraws="3"))
    g.play("reveal E")
    assert int(g.st.t_type[0, 0]) >= 0 and "redraw tile" in g.legal()  # gas corner seen, not placed yet
    g.play("redraw tile")
    assert int(g.st.scout_redraws[0]) == 2
    # The crossing was drawn next: one orientation, nothing left to choose, placed at once.
    t = g.tile(1, 0)
    assert int(g.st.t_type[0, t]) == T_NORMAL and int(g.st.t_open[0, t]) == 0b1111
    assert int(g.st.stack.shape[1] - g.st.stack_pos[0]) == 1  # the discarded gas tile is gone


def test_scout_redraw_not_after_redrawing_not_for_exit_not_when_used_up():  # R-CAV-2
    g = Game(scene("start:NESW", cavers="scout@0,0 medic@0,0", stack="gas:L normal:L normal:I"))
    g.play("reveal E", "redraw tile")
    assert "redraw tile" not in g.legal() and only(g.legal(), "rotate")  # the next corner must be placed
    g = Game(scene("start:NESW", cavers="scout@0,0 medic@0,0", stack="exit normal:I"))
    g.play("reveal E")
    assert g.tile(1, 0) >= 0  # the exit (one orientation) is placed at once: never discarded by the Scout
    g = Game(scene("start:NESW", cavers="scout@0,0 medic@0,0", stack="gas:L normal:I", redraws="0"))
    g.play("reveal E")
    assert "redraw tile" not in g.legal()


def test_only_the_scout_redraws():  # R-CAV-2
    g = Game(scene("start:NESW", cavers="medic@0,0 scout@0,0", stack="gas:L normal:I"))
    g.play("reveal E")
    assert "redraw tile" not in g.legal()


# --- Geologist (R-CAV-3)
def test_geologist_picks_set_aside_tile_and_the_drawn_one_stays_aside():  # R-CAV-3
    g = Game(scene("start:NESW", cavers="geologist@0,0 medic@0,0", stack="normal:4 normal:I", aside="gas:I"))
    g.play("reveal E")
    assert only(g.legal(), "place") == {"place drawn tile", "place set-aside tile"}
    g.play("place set-aside tile")  # a gas straight: one orientation toward the start, placed at once
    assert int(g.st.t_type[0, g.tile(1, 0)]) == T_GAS
    assert int(g.core.cat.tile_type[g.st.aside_tile[0]]) == T_NORMAL  # the drawn crossing is now aside
    assert int(g.st.stack.shape[1] - g.st.stack_pos[0]) == 1


def test_geologist_places_set_aside_tile_with_the_stack_empty():  # R-CAV-3
    g = Game(scene("start:NESW", cavers="geologist@0,0 medic@0,0", stack="", aside="water:I"))
    assert "reveal E" in g.legal()
    g.play("reveal E")
    assert int(g.st.t_type[0, g.tile(1, 0)]) == T_WATER and int(g.st.aside_tile[0]) == -1
    assert only(g.legal(), "reveal") == set()  # nothing left to place
    other = Game(scene("start:NESW", cavers="medic@0,0 geologist@0,0", stack="", aside="water:I"))
    assert only(other.legal(), "reveal") == set()  # the set-aside tile is the Geologist's alone


def test_setup_sets_the_top_tile_aside_for_a_geologist():  # R-CAV-3, R-SET-4
    import numpy as np

    from subterra_env.config import GameConfig
    from subterra_env.games.sub_terra.core.rules import Core

    with_geo = Core(GameConfig(cavers=("geologist", "scout", "medic", "leader"))).init(np.arange(5))
    without = Core(GameConfig(cavers=("diver", "scout", "medic", "leader"))).init(np.arange(5))
    np.testing.assert_array_equal(with_geo.aside_tile, without.stack[:, 0])
    assert (with_geo.stack_pos == 1).all() and (without.aside_tile == -1).all()


# --- Engineer (R-CAV-4)
def test_demolish_connects_a_half_open_edge_then_caves_in():  # R-CAV-4, R-CON-1, R-HZ-4
    # The cave-in tile's S side is open, the normal tile's N side is a wall: half-open, so a wall (R-CON-1).
    g = Game(scene("start:NESW cave-in:WS:24", ".  normal:E", cavers="engineer@1,0 medic@1,0", dice="4"))
    a, b = g.tile(1, 0), g.tile(1, 1)
    assert int(g.st.t_nbr[0, a, 2]) == -1
    assert only(g.legal(), "demolish") == {"demolish N", "demolish E", "demolish S"}
    g.play("demolish S")
    assert int(g.st.t_nbr[0, a, 2]) == b and int(g.st.t_nbr[0, b, 0]) == a and int(g.st.explosives[0]) == 2
    # Then a Cave-in event at once: a 4 buries the tile numbered 2/4 and hurts who stands there (Vigilant: 1).
    assert bool(g.st.t_rubble[0, a]) and g.hp("medic") == 0 and g.hp("engineer") == 2


def test_demolish_toward_empty_space_then_reveal_through_it():  # R-CAV-4, R-CON-4
    g = Game(scene("start:NESW normal:W", cavers="engineer@1,0 medic@1,0", stack="normal:L normal:I", dice="6"))
    opened_before = int(g.st.open_sides[0])
    g.play("demolish E")
    assert int(g.st.open_sides[0]) == opened_before + 1 and g.ap == 0
    g.play("exert", "reveal E")
    # Through the token any rotation connects: all four corner orientations are offered.
    assert only(g.legal(), "rotate") == {"rotate 0", "rotate 90", "rotate 180", "rotate 270"}
    g.play("rotate 0")  # corner open N and E: its W side faces the token and opens
    t = g.tile(2, 0)
    assert int(g.st.t_nbr[0, g.tile(1, 0), 1]) == t and int(g.st.t_open[0, t]) == 0b1011


def test_demolish_limited_to_three_tokens():  # R-CAV-4
    g = Game(scene("start:NESW normal:W", ".  normal:W", cavers="engineer@1,0 medic@1,0", explosives="0"))
    assert only(g.legal(), "demolish") == set()


# --- Diver (R-CAV-1)
def test_dive_then_surface_on_a_chosen_water_tile():  # R-CAV-1
    g = Game(scene("start:NESW water:EW water:W", cavers="diver@1,0 medic@0,0"))
    g.play("dive")
    assert g.pos("diver") is None and bool(g.st.c_under[0, 0]) and g.actor() == "medic"
    g.play("end turn", "end turn")  # the round ends; the medic starts the next one
    assert g.actor() == "diver" and only(g.legal(), "") == {"surface 1", "surface 2"}
    g.play("surface 2")
    assert g.pos("diver") == (2, 0) and g.ap == 1 and "move W" in g.legal()


def test_under_water_only_tremor_and_out_of_time_reach_the_diver():  # R-CAV-1, R-HZ-1, R-HOR-2
    g = Game(scene("start:NESW water:EW:~ gas:W", cavers="medic@0,0 diver:under", deck="flood", start="medic"))
    assert g.hp("diver") == 3
    g.play("end turn")  # the diver's turn: he must surface first
    assert g.actor() == "diver" and "heal caver 1" not in g.legal()


def test_knocked_out_under_water_surfaces_unconscious():  # R-CAV-1, R-HZ-1
    g = Game(scene("start:NESW water:EW", cavers="diver:under:hp=1 medic@0,0", start="diver", actor="medic",
                   deck="tremor", dice="1 6"))
    g.play("end turn")  # hazard phase: Tremor; the diver under water rolls 1 and is knocked out
    assert g.hp("diver") == 0 and g.pos("diver") is None and g.actor() == "medic"
    g.play("end turn")  # the diver's turn: unconscious, he only surfaces, on a water tile of his choice
    assert g.actor() == "diver" and g.legal() == {"surface 1"}
    g.play("surface 1")
    assert g.pos("diver") == (1, 0) and g.hp("diver") == 0 and g.actor() != "diver"


def test_random_games_take_every_ability_action():  # R-CAV-1..8
    """Random legal play with every caver at the table takes each ability action at least once."""
    import numpy as np

    from subterra_env.config import CAVER_NAMES, GameConfig
    from subterra_env.games.sub_terra.core.actions import ACTION_KIND, K_GEAR, NUM_ACTIONS
    from subterra_env.games.sub_terra.core.rules import Core
    from subterra_env.games.sub_terra.core.state import RUNNING

    taken = np.zeros(NUM_ACTIONS, dtype=np.int64)
    for lineup in (CAVER_NAMES[:6], CAVER_NAMES[2:]):
        core = Core(GameConfig(num_cavers=6, cavers=lineup))
        st = core.init(np.arange(400))
        rng = np.random.default_rng(len(lineup[0]))
        while (st.result == RUNNING).any():
            mask = core.legal_mask(st)
            action = np.argmax(rng.random(mask.shape) * mask, axis=1)
            np.add.at(taken, action[st.result == RUNNING], 1)
            core.step(st, action)
    base = ACTION_KIND[:NUM_ACTIONS]  # the base game's ids (the scenarios' kinds come after)
    by_kind = np.bincount(base, weights=taken, minlength=base.max() + 1)
    assert (by_kind[K_GEAR:] > 0).all(), dict(enumerate(by_kind[K_GEAR:]))
