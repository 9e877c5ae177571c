"""Rules tests for setup (R-SET) and the round structure (R-RND)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from helpers import Game
from subterra_env.config import GameConfig
from subterra_env.games.sub_terra.core.catalogue import C_OUT_OF_TIME, T_EXIT, T_START, X2
from subterra_env.games.sub_terra.core.rules import Core
from random_play import random_legal

SEEDS = np.arange(200)


def init(n_seeds=SEEDS, **cfg):
    core = Core(GameConfig(**cfg))
    return core, core.init(n_seeds)


# ---------------------------------------------------------------- R-SET


@pytest.mark.parametrize("n", [4, 5, 6])
def test_seeded_draw_of_distinct_cavers(n):  # R-SET-1
    _, st = init(num_cavers=n)
    assert st.c_rank.shape == (len(SEEDS), n)
    for ranks in st.c_rank:
        assert len(set(ranks.tolist())) == n
        assert set(ranks.tolist()) <= set(range(1, 9))
    # a random draw per game: different seeds give different tables, every rank gets picked
    assert len({tuple(r) for r in st.c_rank.tolist()}) > 20
    assert set(st.c_rank.ravel().tolist()) == set(range(1, 9))


def test_fixed_list_of_cavers():  # R-SET-1
    _, st = init(np.arange(3), cavers=("leader", "scout", "diver", "medic"))
    assert st.c_rank.tolist() == [[1, 2, 6, 8]] * 3


def test_start_health_three_and_bodyguard_five():  # R-SET-2
    _, st = init(np.arange(2), num_cavers=6, cavers=("diver", "scout", "geologist", "engineer", "medic", "bodyguard"))
    assert st.c_rank[0].tolist() == [1, 2, 3, 4, 6, 7]
    assert st.c_hp[0].tolist() == [3, 3, 3, 3, 3, 5]
    assert st.c_max[0].tolist() == [3, 3, 3, 3, 3, 5]
    _, st = init(np.arange(2), bodyguard_health=4, cavers=("bodyguard", "leader", "medic", "climber"))
    assert st.c_rank[0].tolist() == [5, 6, 7, 8]
    assert st.c_hp[0].tolist() == [3, 3, 4, 3]


def test_health_never_exceeds_start():  # R-SET-2
    g = Game("""
map:
  start:NESW
cavers: medic@0,0:hp=2 bodyguard@0,0:hp=4
ap: 2
""")
    g.play("heal caver 6")
    assert g.hp() == {"medic": 3, "bodyguard": 4}
    assert "heal caver 6" not in g.legal() and "heal caver 7" not in g.legal()  # medic at full: no more heals
    g2 = Game("""
map:
  start:NESW
cavers: bodyguard@0,0:hp=4 medic@0,0
""")
    g2.play("heal caver 7")
    assert g2.hp("bodyguard") == 5
    assert "heal caver 7" not in g2.legal()


def test_all_cavers_on_the_start_crossing():  # R-SET-3
    core, st = init(np.arange(5), num_cavers=5)
    assert (st.c_tile == 0).all()
    assert (st.t_type[:, 0] == T_START).all()
    assert (st.t_open[:, 0] == 0b1111).all()
    assert (st.n_tiles == 1).all() and (st.open_sides == 4).all()
    assert (st.t_x[:, 0] == core.cat.stack_size + 1).all() and (st.t_y[:, 0] == core.cat.stack_size + 1).all()


def test_stack_is_the_64_tiles_with_exit_in_last_six():  # R-SET-4
    core, st = init()
    assert st.stack.shape == (len(SEEDS), 65)
    exit_pos = np.argmax(st.stack == core.cat.exit_id, axis=1)
    assert ((st.stack == core.cat.exit_id).sum(1) == 1).all()
    assert set(exit_pos.tolist()) == {59, 60, 61, 62, 63, 64}  # each of the last six occurs, nothing earlier
    for row in st.stack:
        assert sorted(row.tolist()) == list(range(65))  # every cave tile once, plus the exit
    assert (core.cat.tile_type[st.stack[np.arange(len(SEEDS)), exit_pos]] == T_EXIT).all()
    # the cave tiles themselves are shuffled: the first tile varies with the seed
    assert len(set(st.stack[:, 0].tolist())) > 10


def test_exit_in_last_seven_setting():  # R-SET-4
    core, st = init(exit_in_last=7)
    exit_pos = np.argmax(st.stack == core.cat.exit_id, axis=1)
    assert set(exit_pos.tolist()) == set(range(58, 65))


@pytest.mark.parametrize("n, difficulty, size", [
    (4, "normal", 22), (4, "advanced", 20), (4, "expert", 18),
    (5, "normal", 19), (5, "advanced", 17), (5, "expert", 15),
    (6, "normal", 17), (6, "advanced", 15), (6, "expert", 13),
    (4, "easier", 25), (5, "easier", 22), (6, "easier", 20),
])
def test_deal_size_per_table_and_difficulty_out_of_time_last(n, difficulty, size):  # R-SET-5
    core, st = init(np.arange(50), num_cavers=n, difficulty=difficulty)
    assert st.deck.shape == (50, size + 1)
    assert (st.deck[:, size] == C_OUT_OF_TIME).all()  # Out of Time at the bottom
    assert ((st.deck[:, :size] >= 0) & (st.deck[:, :size] < C_OUT_OF_TIME)).all()
    pool = Counter(core.cat.deck_pool.tolist())
    for row in st.deck[:, :size]:
        assert not Counter(row.tolist()) - pool  # dealt from the deck after removals
    assert st.deck_pos.tolist() == [0] * 50
    if difficulty in ("normal", "easier"):
        assert (st.deck[:, :size] < X2).all()  # Normal removes the x2 cards


def test_deal_is_shuffled():  # R-SET-5
    _, st = init()
    assert len({tuple(r) for r in st.deck.tolist()}) == len(SEEDS)


def test_seats_in_ascending_rank_and_marker_on_first_seat():  # R-SET-6
    _, st = init(np.arange(3), cavers=("leader", "diver", "bodyguard", "climber", "scout"), num_cavers=5)
    assert st.c_rank.tolist() == [[1, 2, 5, 7, 8]] * 3
    assert st.start_seat.tolist() == [0, 0, 0] and st.actor.tolist() == [0, 0, 0]
    _, st = init()
    assert (np.diff(st.c_rank, axis=1) > 0).all()


def test_random_seat_order_setting():  # R-SET-6
    _, st = init(seat_order="random", cavers=("diver", "scout", "medic", "leader"))
    assert all(sorted(r) == [1, 2, 6, 8] for r in st.c_rank.tolist())
    assert len({tuple(r) for r in st.c_rank.tolist()}) == 24  # every order of four occurs over 200 seeds


def test_marker_passes_skipping_devoured_cavers():  # R-SET-6, R-RND-1
    g = Game("""
map:
  start:NESW
cavers: diver@0,0 scout:dead medic@0,0 leader@0,0
start: leader
actor: medic
""")
    assert g.st.start_seat[0] == 3
    g.play("end turn")  # medic is the last seat of this round (leader, diver, [scout], medic)
    assert int(g.st.round[0]) == 2
    assert int(g.st.start_seat[0]) == 0 and g.actor() == "diver"  # leader -> next seat, diver
    g.play("end turn", "end turn")  # diver, medic (scout skipped)
    assert g.actor() == "leader"
    g.play("end turn")
    assert int(g.st.start_seat[0]) == 2 and g.actor() == "medic"  # diver -> scout is devoured -> medic


def test_marker_may_go_to_an_unconscious_caver():  # R-SET-6, R-RND-2
    g = Game("""
map:
  start:NESW
cavers: diver@0,0 medic@0,0:hp=0 leader@0,0
actor: leader
""")
    g.play("end turn")
    assert int(g.st.start_seat[0]) == 1  # the medic holds the marker but takes no turn
    assert g.actor() == "leader"
    g.play("end turn")
    assert g.actor() == "diver"
    g.play("end turn")
    assert int(g.st.round[0]) == 3 and int(g.st.start_seat[0]) == 2 and g.actor() == "leader"


# ---------------------------------------------------------------- R-RND


def test_turn_order_then_horror_then_hazard_then_end_phase():  # R-RND-1
    g = Game("""
map:
  start:NESW normal:EW normal:EW normal:EW horror:W
cavers: diver@0,0 medic@0,0 leader@0,0
horrors: 4,0
deck: tremor flood
dice: 1 1 1 6 6 6
""")
    seen = []
    for _ in range(3):
        seen.append(g.actor())
        assert g.horrors() == [(4, 0)] and g.hp() == {"diver": 3, "medic": 3, "leader": 3}
        g.play("end turn")
    assert seen == ["diver", "medic", "leader"]
    # horror phase: the horror steps toward the cavers; hazard phase: the Tremor (dice 1 1 1) hurts everyone
    assert g.horrors() == [(3, 0)]
    assert g.hp() == {"diver": 2, "medic": 2, "leader": 2}
    assert int(g.st.deck_pos[0]) == int(g.st.deck.shape[1]) - 1  # one card drawn, 'flood' is next
    # end phase: the marker passed to the medic, who starts round 2
    assert int(g.st.round[0]) == 2 and g.actor() == "medic"


def test_horror_phase_comes_before_hazard_phase():  # R-RND-1
    g = Game("""
map:
  start:NESW normal:EW horror:EW:x normal:EW normal:W
cavers: diver@4,0:hp=1 leader@0,0
horrors: 2,0
deck: tremor
dice: 1 6
actor: leader
""")
    g.play("end turn")
    # the horror steps toward the diver (tie on distance, lower rank) before the Tremor knocks the diver out
    assert g.horrors() == [(3, 0)] and g.hp() == {"diver": 0, "leader": 3}


def test_unconscious_and_devoured_cavers_take_no_turn():  # R-RND-2
    g = Game("""
map:
  start:NESW
cavers: diver@0,0 scout@0,0:hp=0 geologist:dead medic@0,0
""")
    g.play("end turn")
    assert g.actor() == "medic"
    g.play("end turn")
    # round 2 starts at the scout's seat: the scout and the geologist are skipped again
    assert int(g.st.round[0]) == 2 and int(g.st.start_seat[0]) == 1 and g.actor() == "medic"
    g.play("end turn")
    assert g.actor() == "diver" and int(g.st.round[0]) == 2


def test_caver_on_exit_still_takes_turns():  # R-RND-2
    g = Game("""
map:
  start:NESW exit:W
cavers: diver@1,0:hp=2 medic@0,0 leader@0,0
""")
    assert g.actor() == "diver"
    assert "heal caver 1" in g.legal()  # may act on the exit
    g.play("heal caver 1")
    assert g.hp("diver") == 3 and g.actor() == "diver"
    g.play("end turn")
    assert g.actor() == "medic"


def test_game_ends_when_no_conscious_caver_is_off_the_exit():  # R-RND-3
    g = Game("""
map:
  start:NESW exit:W
cavers: diver@1,0 medic@0,0 leader@0,0:hp=0
actor: medic
""")
    assert g.result() is None
    g.play("move E")
    assert g.result() == "silver"  # checked right after the action: the leader is left behind
    assert int(g.st.actor[0]) == -1 and not g.core.legal_mask(g.st).any()


def test_exit_counts_in_cave_option():  # R-RND-3
    text = """
map:
  start:NESW exit:W
cavers: diver@1,0 medic@0,0 leader@0,0:hp=0
actor: medic
"""
    g = Game(text, exit_counts_in_cave=True)
    g.play("move E")
    assert g.result() is None  # conscious cavers on the exit keep the game going
    assert g.actor() == "medic" and "move W" in g.legal()  # and may go back for the leader
    g.play("end turn")
    assert g.result() is None and int(g.st.round[0]) == 2 and g.actor() == "medic"  # the marker passed to it


@pytest.mark.parametrize("others, result", [
    ("medic@1,0 leader@1,0", "gold"),
    ("medic@1,0 leader@0,0:hp=0", "silver"),
    ("medic:dead leader@0,0:hp=0", "bronze"),
    ("medic:dead leader@0,0:hp=0 bodyguard@0,0:hp=0", "defeat"),
])
def test_result_counts_cavers_not_on_the_exit(others, result):  # R-RND-4
    g = Game(f"""
map:
  start:NESW exit:W
cavers: diver@0,0 {others}
""")
    g.play("move E")
    assert g.result() == result


def test_same_seed_same_game():  # R-RND-1, R-HZ-8: reproducible from the seed, alone or in a batch
    core = Core(GameConfig())
    a, b = core.init([7, 8, 9]), core.init([9])
    assert a.take(np.array([2])).equals(b)
    rng = np.random.default_rng(0)
    for _ in range(300):
        mask = core.legal_mask(a)
        acts = random_legal(mask, rng)
        core.step(a, acts)
        core.step(b, acts[2:])
    assert a.take(np.array([2])).equals(b)
    assert int(b.steps[0]) > 0
