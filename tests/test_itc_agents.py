"""In the Cave teams: the heuristic plays legal, finishes the cave and beats random; the evaluation's interval."""

import numpy as np
import pytest

from agents.in_the_cave import HeuristicTeam, RandomTeam, heuristic_action
from agents.in_the_cave.evaluate import play, wilson
from subterra_env.in_the_cave import env, preset
from subterra_env.games.in_the_cave.core import actions as A
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.game import ItcCore
from subterra_env.games.in_the_cave.invariants import check


def test_heuristic_self_play_finishes_the_cave():
    """R-ITC-END-1/2/3: two heuristic teams draw all 48 tiles, come home and are scored (seed 0: literal)."""
    cfg = preset("default")
    core = ItcCore(cfg)
    G = core.init([0])
    while G[0, L.OVER] == L.RUNNING:
        mask = core.masks(G)[0]
        a = heuristic_action(G[0], core.P, mask)
        assert mask[a]
        core.step(G, [a])
    g = G[0]
    assert check(g, cfg) == []
    assert (int(g[L.OVER]), int(g[L.STACK_POS]), int(g[L.ROUND])) == (L.ENDED, 48, 29)
    assert [int(v) for v in g[L.SCORE:L.SCORE + 2]] == [63, 39] and [int(v) for v in g[L.POS:L.POS + 2]] == [0, 0]


def test_heuristic_beats_random_seeded():
    """R-ITC-SCORE-3, END-3: the heuristic wins seeded games against the random team in either seat (the random
    team, not home at the end, scores 0; literal scores and rounds)."""
    core = ItcCore(preset("default"))
    for seed, seat, score, rounds in ((0, 0, 72, 47), (3, 1, 52, 40)):
        g = play(core, seed, seat)
        assert (int(g[L.OVER]), int(g[L.ROUND])) == (L.ENDED, rounds)
        assert [int(v) for v in g[L.WIN:L.WIN + 2]] == [int(seat == 0), int(seat == 1)]
        assert int(g[L.SCORE + seat]) == score and int(g[L.SCORE + 1 - seat]) == 0


def test_teams_through_the_env():
    """HeuristicTeam and RandomTeam play through the AEC env with legal actions only."""
    e = env(num_players=3, max_rounds=15)
    e.reset(seed=9)
    teams = {"team_0": HeuristicTeam(e), "team_1": RandomTeam(1), "team_2": HeuristicTeam(e)}
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else teams[agent].act(obs, obs["action_mask"]))
    assert e.unwrapped.game[L.OVER] != L.RUNNING


def test_wilson_interval():
    lo, hi = wilson(5, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.2366, 0.7634)
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        RandomTeam(0).act(None, np.zeros(81, dtype=np.int8))


def test_heuristic_sets_out_with_a_fixed_kit_and_a_limited_bank():
    """R-ITC-SET-9 first_game: the fixed starting kit fills the backpack and the bank cannot top it up to the
    heuristic's plan; the team sets out with what it has and packs (2 AP) only to change its kit (it used to pack
    for nothing every turn at home, and never left)."""
    core = ItcCore(preset("first_game", num_players=3))
    G = core.init([1])
    packs, futile, before = 0, 0, None
    while G[0, L.OVER] == L.RUNNING:
        mask = core.masks(G)[0]
        a = heuristic_action(G[0], core.P, mask)
        s = int(G[0, L.ACTOR])
        kit = G[0, L.BP + s * L.NK:L.BP + (s + 1) * L.NK].copy()
        if a == A.A_PACK:
            packs, before = packs + 1, kit
        elif a == A.A_PACK_DONE:
            futile += int((kit == before).all())
        core.step(G, [a])
    g = G[0]
    assert (int(g[L.OVER]), int(g[L.ROUND]), packs, futile) == (L.ENDED, 46, 23, 0)
