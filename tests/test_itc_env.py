"""In the Cave's PettingZoo environment, random games under the invariant checker, and batch independence."""

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from subterra_env.in_the_cave import env, preset
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.actions import ACTION_NAMES, NUM_ACTIONS, IllegalActionError
from subterra_env.games.in_the_cave.core.game import ItcCore
from subterra_env.games.in_the_cave.invariants import check
from random_play import random_legal


@pytest.mark.parametrize("kw", [{}, {"num_players": 4, "initial_pack": "fixed"}])
def test_pettingzoo_api_and_seed(kw):
    api_test(env(**kw), num_cycles=200)
    seed_test(lambda: env(**kw), num_cycles=200)


def test_spaces_hold_every_observation_and_state():
    """The Dict observation, the Discrete action and state() stay inside their declared gymnasium spaces."""
    e = env(num_players=3, initial_pack="fixed")
    e.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(300):
        if not e.agents or all(e.terminations.values()) or all(e.truncations.values()):
            break
        agent = e.agent_selection
        for a in e.agents:
            assert e.observation_space(a).contains(e.observe(a))
        assert e.unwrapped.state_space.contains(e.state())
        mask = e.observe(agent)["action_mask"]
        assert e.action_space(agent).n == NUM_ACTIONS and mask.any()
        e.step(random_legal(mask, rng))


def test_bad_action_names_legal_ones_and_keeps_state():
    """An illegal or malformed action raises IllegalActionError naming it and the legal ones; nothing changes."""
    e = env(initial_pack="fixed")
    e.reset(seed=1)
    before = e.unwrapped.G.copy()
    with pytest.raises(IllegalActionError, match=r"action 13 \('reveal'\) is not legal.*legal: 0 \('end_turn'\)"):
        e.step(13)
    with pytest.raises(IllegalActionError, match="float"):
        e.step(1.0)
    with pytest.raises(IllegalActionError, match="out of range"):
        e.step(NUM_ACTIONS)
    assert (e.unwrapped.G == before).all()


def test_set9_initial_packing_hidden_in_env():
    """R-ITC-SET-9: the teams pack in seat order; until all have, the others' backpacks read as zeros."""
    e = env()
    e.reset(seed=2)
    assert e.agent_selection == "team_0"
    e.step(ACTION_NAMES.index("take_camera"))
    from subterra_env.games.in_the_cave.observe import VECTOR_NAMES
    i = VECTOR_NAMES.index("other1_bp_camera")
    assert e.observe("team_1")["vector"][i] == 0
    e.step(ACTION_NAMES.index("pack_done"))
    assert e.agent_selection == "team_1"
    e.step(ACTION_NAMES.index("pack_done"))
    assert e.observe("team_1")["vector"][i] == 1


def test_rewards_are_score_differences():
    """Rewards at the end: own score minus the mean of the others' (R-ITC-END-3 documented reward)."""
    e = env(num_players=3, initial_pack="fixed")
    e.reset(seed=0)
    g = e.unwrapped.game
    g[L.PHOTO + 0] = 2  # 4 VP + 8 majority
    g[L.END_TRIG] = 1
    while e.agents and not any(e.terminations.values()):
        e.step(ACTION_NAMES.index("end_turn") if e.observe(e.agent_selection)["action_mask"][0] else
               int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert e.infos["team_0"]["scores"] == [12, 0, 0]
    assert sum(e._cumulative_rewards.values()) == pytest.approx(0.0)
    assert e._cumulative_rewards["team_0"] == pytest.approx(12.0)


def random_game_checked(cfg, seed, max_steps=1500):
    core = ItcCore(cfg)
    G = core.init([seed])
    rng = np.random.default_rng(seed)
    w = np.ones(NUM_ACTIONS)
    w[0] = 0.05  # end turns rarely, so the cave grows
    w[13:34] = 20.0
    for _ in range(max_steps):
        mask = core.masks(G)[0]
        if not mask.any():
            break
        assert core.step(G, [random_legal(mask, rng, weights=w)])[0] == 0
        errs = check(G[0], cfg)
        assert not errs, errs
    return G[0]


@pytest.mark.parametrize("players", [2, 3, 5])
def test_invariants_in_random_games(players):
    """Token conservation, slot limits, connectivity, depth consistency and scores hold after every step."""
    cfg = preset("first_game", num_players=players, limited_bank=True, max_rounds=40)
    for seed in range(3):
        g = random_game_checked(cfg, seed)
        assert int(g[L.N_TILES]) > 4


def test_invariants_free_packing():
    cfg = preset("default", max_rounds=30)
    random_game_checked(cfg, 7)


def test_batch_plays_the_same_as_games_alone():
    """Counter-based randomness per game: 6 games in one batch end exactly as each played alone."""
    core = ItcCore(preset("first_game", num_players=3, max_rounds=30))
    seeds = [11, 12, 13, 14, 15, 16]
    G = core.init(seeds)
    core.random_playout(G, seeds)
    for i, s in enumerate(seeds):
        alone = core.init([s])
        core.random_playout(alone, [s])
        assert np.array_equal(alone[0], G[i])
    assert len({G[i, L.STACK:L.STACK + 56].tobytes() for i in range(6)}) == 6


def test_render_and_snapshots():
    """PettingZoo's render_test (ansi and human text); get_state/set_state continue identically."""
    from pettingzoo.test import render_test

    render_test(lambda render_mode=None: env(render_mode=render_mode, initial_pack="fixed"), custom_tests={})
    e = env(initial_pack="fixed")
    e.reset(seed=3)
    snap = e.unwrapped.get_state()
    rng = np.random.default_rng(1)
    first = []
    for _ in range(40):
        a = random_legal(e.observe(e.agent_selection)["action_mask"], rng)
        first.append(a)
        e.step(a)
    end, rewards = e.unwrapped.G.copy(), dict(e._cumulative_rewards)
    e.unwrapped.set_state(snap)
    for a in first:
        e.step(a)
    assert np.array_equal(e.unwrapped.G, end) and dict(e._cumulative_rewards) == rewards


@pytest.mark.parametrize("settings", [
    {"num_players": 2, "limited_bank": True, "bank_ropes": 6, "bank_oxygen": 4},
    {"num_players": 5, "initial_pack": "fixed", "limited_bank": True},
])
def test_soak_random_batches(settings):
    """A small soak: 150 random games in one batch, every invariant checked every 40 steps until all end."""
    cfg = preset("default", max_rounds=60, **settings)
    core = ItcCore(cfg)
    seeds = np.arange(150) + 500
    G = core.init(seeds)
    for chunk in range(200):
        core.random_playout(G, seeds + 1000 * chunk, max_steps=40)
        for i in range(len(seeds)):
            errs = check(G[i], cfg)
            assert not errs, (int(seeds[i]), errs)
        if (G[:, L.OVER] != L.RUNNING).all():
            break
    assert (G[:, L.OVER] != L.RUNNING).all()


def test_mask_agrees_with_step():
    """On positions of random games, every masked action steps (code 0) and every other one is refused (code 1)
    with the record unchanged."""
    cfg = preset("default", num_players=3, max_rounds=30)
    core = ItcCore(cfg)
    seeds = np.arange(12) + 40
    G = core.init(seeds)
    for chunk in range(6):
        core.random_playout(G, seeds + 77 * chunk, max_steps=25)
        masks = core.masks(G)
        for i in range(len(seeds)):
            if G[i, L.OVER] != L.RUNNING:
                continue
            for a in range(NUM_ACTIONS):
                one = G[i:i + 1].copy()
                code = core.step(one, [a])[0]
                assert code == (0 if masks[i, a] else 1), (i, ACTION_NAMES[a])
                if not masks[i, a]:
                    assert np.array_equal(one[0], G[i])


def test_vector_env_self_play():
    """ItcVectorEnv: batched observations for each game's actor, masks respected, bad actions refused with no game
    stepped, games that end are scored (rewards sum to zero per game) and replaced; seeded runs repeat."""
    from subterra_env.in_the_cave.vector import ItcVectorEnv

    def run(seed):
        v = ItcVectorEnv(4, preset("first_game", max_rounds=8), seed=seed)
        obs = v.reset()
        assert obs["observation"].shape == (4, 25, 15, 15) and obs["vector"].shape == (4, 202)
        rng = np.random.default_rng(0)
        ended = 0
        total = np.zeros(4)
        for _ in range(400):
            acts = random_legal(obs["action_mask"], rng)
            obs, rew, term, trunc, info = v.step(acts)
            assert np.allclose(rew.sum(1), 0.0)
            total += rew.sum(1)
            ended += int(term.sum() + trunc.sum())
        return ended, v.G.copy()

    ended, G = run(5)
    assert ended > 0
    again = run(5)
    assert again[0] == ended and np.array_equal(again[1], G)
    v = ItcVectorEnv(2, preset("first_game"), seed=1)
    v.reset()
    before = v.G.copy()
    acts = np.array([0, ACTION_NAMES.index("reveal")])
    with pytest.raises(IllegalActionError, match=r"slot 1: action 13 \('reveal'\) is not legal now"):
        v.step(acts)
    assert np.array_equal(v.G, before)
