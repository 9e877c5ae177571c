"""Vector interfaces over the same core: gymnasium VectorEnv, SB3 VecEnv, seeding, autoreset, MaskablePPO."""

from __future__ import annotations

import numpy as np
import pytest

from subterra_env.games.sub_terra.core.actions import NUM_ACTIONS
from subterra_env.games.sub_terra.core.observe import observe
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.vector import BatchedGames, SubterraVectorEnv
from random_play import random_legal_rows


def _assert_slot_obs_equal(a: dict, i: int, b: dict, j: int) -> None:
    for key in ("observation", "scalars"):
        np.testing.assert_array_equal(a[key][i], b[key][j])


def test_gymnasium_vector_env_spaces_masks_and_autoreset() -> None:
    env = SubterraVectorEnv(6, obs_radius=4)
    assert env.metadata["autoreset_mode"].value == "SameStep"
    obs, info = env.reset(seed=1)
    assert obs["observation"].shape == (6, 34, 9, 9) and obs["observation"].dtype == np.int8
    assert obs["scalars"].shape == (6, 49) and obs["scalars"].dtype == np.int8
    assert env.observation_space.contains(obs)
    assert info["action_mask"].shape == (6, NUM_ACTIONS) and info["action_mask"].any(1).all()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(800):
        obs, rew, term, trunc, info = env.step(random_legal_rows(info["action_mask"], rng))
        assert info["action_mask"].any(1).all()  # every slot always has a live game
        if term.any():
            finished += int(term.sum())
            assert set(info["final_info"]["result"][term]) <= {0, 1, 2, 3}  # defeat .. gold
            assert info["_final_obs"][term].all() and (rew[term] >= 0).all()
            for fobs in info["final_obs"][term]:
                assert env.single_observation_space.contains(fobs)
            # the returned observation is already the new game's first: round 1, no tile but the start
            assert (env.games.state.round[term] == 1).all() and (env.games.state.n_tiles[term] == 1).all()
    assert finished > 0


def test_slot_sequences_do_not_depend_on_num_envs() -> None:
    """Seeded per slot: slot i plays the same games whether 1 or 37 slots run (batch invariance)."""
    big = BatchedGames(37, obs_radius=3)
    big.seed(list(range(100, 137)))
    small = BatchedGames(1, obs_radius=3)
    small.seed([117])
    ob, os_ = big.reset(), small.reset()
    _assert_slot_obs_equal(ob, 17, os_, 0)
    rng = np.random.default_rng(5)
    for _ in range(300):
        a = random_legal_rows(big.action_masks(), rng)
        ob, rb, tb, _, _ = big.step(a)
        os_, rs, ts, _, _ = small.step(a[17:18])
        _assert_slot_obs_equal(ob, 17, os_, 0)
        assert rb[17] == rs[0] and tb[17] == ts[0]
        np.testing.assert_array_equal(big.action_masks()[17], small.action_masks()[0])


def test_same_seed_same_games_different_seed_different_games() -> None:
    a, b, c = BatchedGames(4), BatchedGames(4), BatchedGames(4)
    a.seed(3), b.seed(3), c.seed(4)
    oa, ob = a.reset(), b.reset()
    for key in oa:
        np.testing.assert_array_equal(oa[key], ob[key])
    oa, oc = a.reset(), c.reset()
    assert not np.array_equal(oa["observation"], oc["observation"]) or not a.state.equals(c.state)


def test_observation_is_the_acting_cavers_view() -> None:
    g = BatchedGames(5, obs_radius=5)
    obs = g.reset()
    grid, scalars = observe(g.core.cat, g.state, g.state.actor, 5)
    np.testing.assert_array_equal(obs["observation"], grid)
    np.testing.assert_array_equal(obs["scalars"], scalars)
    np.testing.assert_array_equal(g.action_masks(), Core(g.config).legal_mask(g.state))


@pytest.mark.parametrize("bad,needle", [
    (np.zeros(3, dtype=int), "shape"), (np.full(4, 0.5), "integer"), (np.full(4, 999), "out of range"),
    (np.full(4, 10), "not legal"),  # "move N": nothing placed north of the start yet
])
def test_bad_actions_are_refused_and_change_nothing(bad: np.ndarray, needle: str) -> None:
    g = BatchedGames(4)
    g.reset()
    before = g.state.copy()
    with pytest.raises(ValueError, match=needle):
        g.step(bad)
    assert g.state.equals(before)


def test_the_action_check_names_the_first_bad_slot_whatever_is_wrong_with_it() -> None:
    g = BatchedGames(4)
    g.reset()
    legal = random_legal_rows(g.mask, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^slot 1: action 10 \('move N'\) is not legal now; legal: "):
        g.step(np.array([legal[0], 10, 999, -1]))
    with pytest.raises(ValueError, match=r"^slot 2: action 999 is out of range 0..89$"):
        g.step(np.array([legal[0], legal[1], 999, 10], dtype=np.int32))
    with pytest.raises(ValueError, match=r"actions of dtype bool"):
        g.step(np.ones(4, dtype=bool))
    assert g.step_batch(legal.astype(np.uint8)).reward.tolist() == [0.0] * 4  # unsigned ids are ids


def test_settings_errors() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        BatchedGames(0)
    with pytest.raises(ValueError, match="unknown setting"):
        BatchedGames(2, flavour="x")
    with pytest.raises(TypeError, match=r"config='small': expected a GameConfig \(subterra_env.preset\('small'\)"):
        BatchedGames(2, "small")


def test_maskable_ppo_trains_on_the_sb3_vecenv() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_checker import check_env  # noqa: F401  (imported: the extra is present)

    from subterra_env.sb3 import SubterraVecEnv

    venv = SubterraVecEnv(num_envs=16, seed=0, obs_radius=3)
    obs = venv.reset()
    assert obs["observation"].shape == (16, 34, 7, 7) and obs["scalars"].shape == (16, 49)
    assert venv.action_masks().shape == (16, NUM_ACTIONS)
    model = MaskablePPO("MultiInputPolicy", venv, n_steps=128, batch_size=256, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [64]})
    model.learn(total_timesteps=4096)
    assert model.num_timesteps >= 4096
    action, _ = model.predict(venv.reset(), action_masks=venv.action_masks())
    assert venv.action_masks()[np.arange(16), action].all()  # the policy only picks legal actions


def test_sb3_infos_carry_terminal_observation() -> None:
    pytest.importorskip("stable_baselines3")
    from subterra_env.sb3 import SubterraVecEnv

    venv = SubterraVecEnv(num_envs=8, seed=1, obs_radius=3)
    venv.reset()
    rng = np.random.default_rng(1)
    for _ in range(600):
        obs, rew, done, infos = venv.step(random_legal_rows(venv.action_masks(), rng))
        for i in np.flatnonzero(done):
            assert venv.observation_space.contains(infos[i]["terminal_observation"])
            assert infos[i]["result"] in (0, 1, 2, 3)  # defeat .. gold
            assert infos[i]["TimeLimit.truncated"] is False
        if done.any():
            return
    pytest.fail("no game finished in 600 steps")


def test_sb3_infos_carry_episode_statistics_and_shared_keys() -> None:
    """A finished game's info has SB3's ``episode`` entry (return, length, time) and the AEC env's info keys."""
    pytest.importorskip("stable_baselines3")
    from subterra_env.sb3 import SubterraVecEnv

    venv = SubterraVecEnv(num_envs=4, seed=2, obs_radius=2, reward_tile=0.5)
    venv.reset()
    rng = np.random.default_rng(2)
    returns, lengths = np.zeros(4), np.zeros(4, dtype=int)
    for _ in range(2000):
        obs, rew, done, infos = venv.step(random_legal_rows(venv.action_masks(), rng))
        returns += rew
        lengths += 1
        for i in np.flatnonzero(done):
            info = infos[i]
            assert set(info) >= {"result", "escaped", "round", "hazard_cards_left", "tiles_left", "episode"}
            assert info["episode"]["l"] == lengths[i] and info["episode"]["t"] >= 0
            assert info["episode"]["r"] == pytest.approx(returns[i], abs=1e-4)
            return
    pytest.fail("no game finished")


def test_copy_obs_false_alternates_two_buffers() -> None:
    games = BatchedGames(4, copy_obs=False)
    rng = np.random.default_rng(0)
    first = games.reset()
    kept = {k: v.copy() for k, v in first.items()}
    second = games.step(random_legal_rows(games.action_masks(), rng))[0]
    # The previous step's arrays stay valid through one more step (what SB3's rollout collection reads) ...
    assert all(np.array_equal(first[k], kept[k]) for k in first)
    assert second["observation"] is not first["observation"]
    third = games.step(random_legal_rows(games.action_masks(), rng))[0]
    # ... and the step after that writes into them again.
    assert third["observation"] is first["observation"] and third["scalars"] is first["scalars"]
    grid, scalars = observe(games.core.cat, games.state, np.maximum(games.state.actor, 0), games.obs_radius)
    assert np.array_equal(third["observation"], grid) and np.array_equal(third["scalars"], scalars)


def test_copy_obs_true_returns_fresh_arrays_and_is_checked() -> None:
    games = BatchedGames(2)
    first = games.reset()
    second = games.step(random_legal_rows(games.action_masks(), np.random.default_rng(1)))[0]
    assert games.copy_obs is True and second["observation"] is not first["observation"]
    assert first["observation"].base is None
    with pytest.raises(TypeError, match="copy_obs='no': expected True or False"):
        BatchedGames(2, copy_obs="no")


@pytest.mark.parametrize("num_envs", [1, 8])  # below PARALLEL_MIN_BATCH: the one-trip serial call
def test_small_batches_step_without_numba_typing_the_state_record(num_envs: int, monkeypatch) -> None:
    """The vector env's steps alternate between two observation buffers, so the one-trip call is bound anew each
    step; numba's record type of the state (85 fields, 0.5-1 ms to build) must not be built again for it (it was,
    twice a step: 4,500 SB3 steps/s at 8 envs instead of 74,000)."""
    import numba.np.numpy_support as numpy_support

    games = BatchedGames(num_envs, seed=3, copy_obs=False)
    games.reset()
    rng = np.random.default_rng(0)
    for _ in range(3):  # compiled or loaded, and every type met once
        games.step(random_legal_rows(games.mask, rng))
    built = []
    real = numpy_support.from_struct_dtype
    monkeypatch.setattr(numpy_support, "from_struct_dtype", lambda dtype: built.append(dtype) or real(dtype))
    for _ in range(40):
        games.step(random_legal_rows(games.mask, rng))
    assert len(built) == 0


@pytest.mark.parametrize("threads", [1, None])  # the serial and the threaded one call
def test_a_large_batch_steps_alike_through_the_one_call_and_the_separate_kernels(threads, monkeypatch) -> None:
    """From PARALLEL_MIN_BATCH games the episode layer takes the one call (core/advance.py ``one_call_taken``),
    before 2026-12-04 the separate kernels (``ONE_CALL_AT_SCALE`` False): the same games, observations, masks,
    rewards, flags, infos and finished games either way (the one call's infos are its own counts,
    ``counted_info``)."""
    from subterra_env.games.sub_terra.core import advance

    def play(one_call: bool) -> tuple[list, int, set[bool]]:
        monkeypatch.setattr(advance, "ONE_CALL_AT_SCALE", one_call)
        games = BatchedGames(70, seed=5, threads=threads, max_cycles=15)  # short: truncations as well as endings
        games.reset()
        rng, seen, ended, paths = np.random.default_rng(2), [], 0, set()
        for _ in range(120):
            s = games.step_batch(random_legal_rows(games.mask, rng), info_all=True)
            paths.add(games.book.counted_info() is not None)  # counts after the one call only (kept by restarts)
            ended += len(s.done)
            seen.append((games.observations(), games.mask.copy(), s.reward, s.terminated, s.truncated, s.info,
                         s.done, s.final_grid, s.final_scalars, s.final_info, s.episode_length))
        return seen, ended, paths

    one, ended, one_paths = play(True)
    apart, _, apart_paths = play(False)
    assert (True in one_paths, apart_paths) == (True, {False})
    assert ended == 59  # games ended on the way, so the bookkeeping, the autoreset and the finals were compared
    for a, b in zip(one, apart):
        for x, y in zip(a, b):
            if isinstance(x, dict):
                assert x.keys() == y.keys()
                for k in x:
                    np.testing.assert_array_equal(x[k], y[k])
            else:
                np.testing.assert_array_equal(x, y)


def test_a_slots_next_seed_is_its_streams_integers_below_2_to_the_62() -> None:
    """The episode layer draws a slot's next game seed as the raw word >> 2 (Episodes._next_seeds), which must be
    numpy's ``integers(0, 2**62)`` on the same stream: the seeds of every slot's games rest on it."""
    games = BatchedGames(3, seed=11)
    slots = np.array([0, 2, 2, 1])
    twins = [np.random.default_rng([11, i]) for i in range(3)]
    assert games._next_seeds(slots).tolist() == [int(twins[i].integers(0, 2**62)) for i in slots]
    assert games._next_seeds(np.array([1])).tolist() == [int(twins[1].integers(0, 2**62))]
