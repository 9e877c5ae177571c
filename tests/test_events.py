"""The event log of the compiled rules (subterra_env/games/sub_terra/core/events.py, subterra_env/events.py): what each step did,
written by the rules as they do it, on scenario maps with scripted dice, to literal events."""

from __future__ import annotations

import numpy as np
import pytest

import subterra_env
from helpers import Game, scene
from subterra_env.games.sub_terra.core.catalogue import C_TREMOR
from subterra_env.games.sub_terra.core.state import HASH_FIELDS
from subterra_env.events import Event, decode, set_logging
from random_play import random_legal

LOGGED = np.array([0])


def logged(text: str, **cfg) -> Game:
    g = Game(text, **cfg)
    set_logging(g.st, LOGGED, True)
    return g


def test_exert_check_fails_and_costs_health():  # R-ACT-2, R-ACT-3, R-ACT-16
    g = logged(scene("start:NESW normal:EW water:W:~", cavers="medic@0,0 diver@0,0", dice="3"))
    g.play("move E")
    assert decode(g.st) == [Event("move", 0, g.tile(1, 0), 0, "R-ACT-16", 0)]
    g.play("exert", "swim E")
    water = g.tile(2, 0)
    assert decode(g.st) == [
        Event("move", 0, water, g.tile(1, 0), "R-ACT-16", 0),
        Event("check", 0, water, 0, "R-ACT-2", 3),  # die 3: failed
        Event("damage", 0, water, 1, "R-ACT-2", 2),  # 1 health lost, 2 left
        Event("turn", 1, 0, 2, "", 0),  # the diver's turn, 2 AP, on the start tile
    ]


def test_tremor_rolls_one_die_per_seat_and_names_the_cause():  # R-HZ-1, R-HZ-8, R-RND-1
    g = logged(scene("start:NESW exit:W", cavers="diver@1,0 medic@0,0 leader@0,0 scout@0,0:hp=0 geologist@0,0",
                     deck="tremor", dice="1 1 3 1 4", actor="geologist"))
    g.play("end turn")
    ev = decode(g.st)
    assert ev[0] == Event("card", -1, -1, C_TREMOR, "R-RND-1", 0)
    # every seat rolls in seat order (the diver on the exit too); the leader's 3 passes with his bonus
    assert [(e.seat, e.value, e.die) for e in ev if e.kind == "check"] == [(0, 0, 1), (1, 0, 1), (2, 1, 3),
                                                                         (3, 0, 1), (4, 1, 4)]
    assert {e.rule for e in ev if e.kind == "check"} == {"R-HZ-1"}
    assert [e for e in ev if e.kind == "damage"] == [Event("damage", 1, 0, 1, "R-HZ-1", 2)]  # only the medic
    assert [e.kind for e in ev[-2:]] == ["round", "turn"]
    assert ev[-2] == Event("round", int(g.st.start_seat[0]), -1, 2, "R-RND-1", 0)


def test_a_horror_hunts_and_knocks_out():  # R-HOR-3, R-HOR-5
    g = logged(scene("start:E normal:EW normal:EW horror:EW:x normal:W", cavers="medic@4,0 leader@0,0",
                     horrors="3,0", actor="leader", deck="gas"))
    g.play("end turn")
    ev = decode(g.st)
    medic = g.seat("medic")
    assert ev[:2] == [Event("horror_move", medic, g.tile(4, 0), g.tile(3, 0), "R-HOR-3", 0),
                      Event("damage", medic, g.tile(4, 0), 3, "R-HOR-5", 0)]


def test_reveal_logs_the_draw_the_discards_and_the_placement():  # R-ACT-5, R-CON-3, R-CON-4
    # a dead end facing the start's only open side would close the cave: discarded; the straight is placed
    g = logged(scene("start:E", cavers="medic@0,0 leader@0,0", stack="normal:D normal:I"))
    g.play("reveal E")
    ev = decode(g.st)
    kinds = [e.kind for e in ev]
    assert kinds[:2] == ["discard", "draw"]  # a discarded tile is drawn and discarded in one row
    assert ev[0].rule == "R-CON-4" and ev[0].value != ev[1].value
    placed = [e for e in ev if e.kind == "place"]
    assert len(placed) == 1 and placed[0].tile == g.tile(1, 0) and placed[0].value == ev[1].value


def test_logging_is_off_unless_asked_and_the_game_is_the_same():
    a = Game(scene("start:NESW normal:EW", cavers="medic@0,0 diver@0,0", dice="3"))
    b = logged(scene("start:NESW normal:EW", cavers="medic@0,0 diver@0,0", dice="3"))
    for g in (a, b):
        g.play("move E", "exert", "move W", "end turn")
    assert decode(a.st) == [] and decode(b.st) != []
    assert all(np.array_equal(getattr(a.st, f), getattr(b.st, f)) for f in HASH_FIELDS)


def test_env_last_events_and_result():  # R-RND-4
    env = subterra_env.raw_env(record_events=True)
    env.reset(seed=3)
    assert env.last_events == []
    rng = np.random.default_rng(0)
    seen: set[str] = set()
    while env.agents:
        mask = env.legal_mask
        env.step(random_legal(mask, rng))
        seen |= {e.kind for e in env.last_events}
        if not env.agents or env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
    assert {"draw", "place", "move", "card", "turn", "round"} <= seen
    assert int(env.state_.result[0]) == 0  # seed 3, random play: a defeat, and the last event says so
    assert env.last_events[-1] == Event("result", -1, -1, 0, "R-RND-4", 0)
    plain = subterra_env.raw_env()
    plain.reset(seed=3)
    plain.step(int(np.flatnonzero(plain.legal_mask)[0]))
    assert plain.last_events == []


def test_record_events_must_be_a_bool():
    with pytest.raises(TypeError, match="record_events"):
        subterra_env.raw_env(record_events="yes")
