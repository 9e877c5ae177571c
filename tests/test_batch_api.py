"""The batch API a trainer drives (``subterra_env.vector.BatchedGames``, ``docs/batch_api.md``): seeds at
construction, ``reset(out=)`` and ``step_batch(out=, checked=True)`` into the caller's arrays, ``BatchStep.ended``
(the finished games' State, one row per finished game), and unknown keywords refused with ``seed`` listed."""

from __future__ import annotations

import numpy as np
import pytest

from subterra_env.config import preset
from subterra_env.spaces import grid_shape, num_scalars
from subterra_env.vector import BatchedGames

N, RADIUS = 16, 2


def arrays(games: BatchedGames) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    scenario = games.config.scenario
    return (np.full((games.num_envs, *grid_shape(RADIUS, scenario)), -1, np.int8),
            np.full((games.num_envs, num_scalars(scenario)), -1, np.int8),
            np.zeros((games.num_envs, games.num_actions), bool))


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly drawn legal action per row (Gumbel-max over the mask)."""
    return np.where(mask, rng.gumbel(size=mask.shape), -np.inf).argmax(axis=1)


def test_seed_at_construction_equals_seed_call() -> None:
    a = BatchedGames(N, preset("tiny"), obs_radius=RADIUS, seed=3)
    b = BatchedGames(N, preset("tiny"), obs_radius=RADIUS)
    b.seed(3)
    oa, ob = a.reset(), b.reset()
    np.testing.assert_array_equal(a.seeds, b.seeds)
    np.testing.assert_array_equal(oa["observation"], ob["observation"])
    np.testing.assert_array_equal(oa["scalars"], ob["scalars"])
    np.testing.assert_array_equal(a.mask, b.mask)


def test_seed_at_construction_is_a_seed_stream() -> None:
    """What holds today: the constructor's seed fixes the games (same seed, same games; another seed, others),
    and re-seeding both with the same seed makes them play the same games."""
    a = BatchedGames(N, preset("tiny"), obs_radius=RADIUS, seed=3)
    b = BatchedGames(N, preset("tiny"), obs_radius=RADIUS, seed=3)
    c = BatchedGames(N, preset("tiny"), obs_radius=RADIUS, seed=4)
    oa, ob = a.reset(), b.reset()
    c.reset()
    np.testing.assert_array_equal(a.seeds, b.seeds)
    np.testing.assert_array_equal(oa["observation"], ob["observation"])
    assert (a.seeds != c.seeds).all()
    d = BatchedGames(N, preset("tiny"), obs_radius=RADIUS)
    for g in (a, d):
        g.seed(7)
    np.testing.assert_array_equal(a.reset()["observation"], d.reset()["observation"])
    np.testing.assert_array_equal(a.seeds, d.seeds)


def test_reset_out_writes_into_the_callers_arrays() -> None:
    games = BatchedGames(N, preset("tiny"), obs_radius=RADIUS, copy_obs=False, seed=0)
    grid, scalars, mask = arrays(games)
    obs = games.reset(out=(grid, scalars, mask))
    assert obs["observation"] is grid and obs["scalars"] is scalars
    assert games.mask is mask
    assert (grid >= 0).all() and (scalars >= 0).all()  # every cell written (they started at -1)
    assert mask.any(axis=1).all()  # every acting caver has a legal action
    ref = BatchedGames(N, preset("tiny"), obs_radius=RADIUS, seed=0)
    ref_obs = ref.reset()
    np.testing.assert_array_equal(grid, ref_obs["observation"])
    np.testing.assert_array_equal(scalars, ref_obs["scalars"])
    np.testing.assert_array_equal(mask, ref.mask)


def test_step_batch_out_checked_and_ended() -> None:
    """Random legal actions with checked=True, observations into two alternating sets of the caller's arrays;
    the same games stepped without out= and with the check give the same observations; ``ended`` holds one
    State row per finished game (None in steps where nothing ended)."""
    games = BatchedGames(N, preset("tiny"), obs_radius=RADIUS, copy_obs=False, seed=1, max_cycles=60)
    ref = BatchedGames(N, preset("tiny"), obs_radius=RADIUS, seed=1, max_cycles=60)
    bufs = [arrays(games), arrays(games)]
    games.reset(out=bufs[0])
    ref.reset()
    rng = np.random.default_rng(0)
    finished = quiet = 0
    for t in range(200):
        cur, nxt = bufs[t % 2], bufs[(t + 1) % 2]
        actions = random_legal(cur[2], rng)
        assert cur[2][np.arange(N), actions].all()
        s = games.step_batch(actions, out=nxt, checked=True)
        r = ref.step_batch(actions)
        ref_obs = ref.observations()
        np.testing.assert_array_equal(nxt[0], ref_obs["observation"])
        np.testing.assert_array_equal(nxt[1], ref_obs["scalars"])
        np.testing.assert_array_equal(nxt[2], ref.mask)
        assert games.mask is nxt[2]
        np.testing.assert_array_equal(s.reward, r.reward)
        np.testing.assert_array_equal(s.done, r.done)
        assert s.reward.shape == s.terminated.shape == s.truncated.shape == (N,)  # per slot
        if len(s.done):
            finished += len(s.done)
            assert s.ended is not None and s.ended.batch_size == len(s.done)
            assert s.final_grid.shape[0] == s.final_scalars.shape[0] == len(s.done)  # per finished game
            assert len(s.episode_return) == len(s.episode_length) == len(s.done)
            for key, v in s.final_info.items():
                assert len(v) == len(s.done), key
            np.testing.assert_array_equal(s.ended.result, s.final_info["result"])
            assert (s.terminated[s.done] | s.truncated[s.done]).all()
        else:
            quiet += 1
            assert s.ended is None
            assert s.final_grid.shape[0] == 0
    assert finished > 0 and quiet > 0


def test_without_autoreset_ended_is_none_and_finished_games_are_skipped() -> None:
    games = BatchedGames(8, preset("tiny"), obs_radius=RADIUS, autoreset=False, seed=2, max_cycles=60)
    games.reset()
    rng = np.random.default_rng(1)
    saw_done = False
    while not games.over.all():
        over_before = games.over.copy()
        rounds_before = games.state.round.copy()
        # finished games get an arbitrary action: with checked=True the core skips them
        actions = np.where(over_before, 0, random_legal(games.mask, rng))
        s = games.step_batch(actions, checked=True)
        np.testing.assert_array_equal(games.state.round[over_before], rounds_before[over_before])
        if len(s.done):
            saw_done = True
            assert s.ended is None
            assert len(s.final_info["result"]) == len(s.done)
    assert saw_done


def test_unknown_keyword_lists_seed() -> None:
    with pytest.raises(ValueError, match="sed") as e:
        BatchedGames(4, preset("tiny"), sed=3)
    assert "'seed'" in str(e.value)
    assert "environment settings" in str(e.value)
