"""State snapshots (get_state/set_state, deepcopy, pickle), PettingZoo's state checks and bad input everywhere."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test.state_test import test_state as pz_state_test
from pettingzoo.test.state_test import test_state_space as pz_state_space_test

import subterra_env
from subterra_env import GameOverError, IllegalActionError
from subterra_env.config import ConfigError, load
from subterra_env.games.sub_terra.core.observe import SCALARS, split_state
from subterra_env.vector import BatchedGames, SubterraVectorEnv
from random_play import random_legal, play_random_aec


def _trace(e, steps: int, seed: int) -> list:
    """Play `steps` decisions (through game ends and resets) and record everything an agent sees."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        if not e.agents:
            e.reset()
        agent = e.agent_selection
        obs, rew, term, trunc, info = e.last()
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), rew, term, trunc,
                    info["result"]))
        e.step(None if term or trunc else random_legal(obs["action_mask"], rng))
    return out


def test_aec_snapshot_restores_the_identical_continuation() -> None:
    e = subterra_env.env()
    e.reset(seed=11)
    _trace(e, 40, seed=1)
    snap = e.get_state()
    first = _trace(e, 400, seed=2)  # long enough to end the game and start the next from the seed stream
    assert any(r is not None for *_, r in first)
    e.set_state(snap)
    assert _trace(e, 400, seed=2) == first
    other = subterra_env.env()  # a fresh environment with the same settings continues the same way
    other.reset(seed=999)
    other.set_state(snap)
    assert _trace(other, 400, seed=2) == first


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_aec_env_copies_continue_identically(how: str) -> None:
    e = subterra_env.env(num_cavers=5)
    e.reset(seed=5)
    _trace(e, 30, seed=3)
    twin = copy.deepcopy(e) if how == "deepcopy" else pickle.loads(pickle.dumps(e))
    assert _trace(twin, 300, seed=4) == _trace(e, 300, seed=4)


def test_vector_slot_snapshot_moves_between_slots_and_envs() -> None:
    a = BatchedGames(3, obs_radius=3)
    a.seed(7)
    a.reset()
    rng = np.random.default_rng(0)
    for _ in range(25):
        a.step(np.argmax(rng.random((3, 90)) * a.action_masks(), 1))
    snap = a.get_state(1)
    b = SubterraVectorEnv(2, obs_radius=3)
    b.reset(seed=123)
    b.set_state(0, snap)
    np.testing.assert_array_equal(b.action_masks()[0], a.action_masks()[1])
    rng_a, rng_b = np.random.default_rng(9), np.random.default_rng(9)
    for _ in range(300):  # through the game's end and an autoreset seeded from the restored stream
        act = np.argmax(rng_a.random(90) * a.action_masks()[1])
        assert act == np.argmax(rng_b.random(90) * b.action_masks()[0])
        full_a = np.argmax(a.action_masks(), 1)
        full_a[1] = act
        full_b = np.argmax(b.games.action_masks(), 1)
        full_b[0] = act
        oa, ra, ta, _, _ = a.step(full_a)
        ob, rb, tb, _, _ = b.step(full_b)
        for key in oa:
            np.testing.assert_array_equal(oa[key][1], ob[key][0])
        assert (ra[1], ta[1]) == (rb[0], tb[0])


def test_sb3_vec_env_pickles_and_snapshots() -> None:
    from subterra_env.sb3 import SubterraVecEnv

    v = SubterraVecEnv(4, seed=3, obs_radius=2)
    v.reset()
    twin = pickle.loads(pickle.dumps(v))
    np.testing.assert_array_equal(twin.action_masks(), v.action_masks())
    snap = v.get_state(2)
    v.set_state(0, snap)
    np.testing.assert_array_equal(v.action_masks()[0], v.action_masks()[2])


def test_snapshot_errors_name_the_problem() -> None:
    e = subterra_env.env()
    with pytest.raises(RuntimeError, match="reset"):
        e.unwrapped.get_state()
    e.reset(seed=1)
    five = subterra_env.env(num_cavers=5)
    five.reset(seed=1)
    with pytest.raises(ValueError, match="num_cavers"):
        e.set_state(five.get_state())
    with pytest.raises(TypeError, match="EnvSnapshot"):
        e.set_state({"game": None})
    g = BatchedGames(2)
    with pytest.raises(IndexError, match="slot 5"):
        g.get_state(5)
    with pytest.raises(ValueError, match="other settings"):
        g.set_state(0, BatchedGames(1, num_cavers=6).get_state(0))


def test_pettingzoo_state_checks() -> None:
    # test_state samples unmasked actions, so an illegal one ends the game (PettingZoo's terminate wrapper).
    e = subterra_env.env(state_radius=6, illegal_action="terminate")
    pz_state_space_test(e)
    pz_state_test(e, num_cycles=50)
    e = subterra_env.env(state_radius=6)
    e.reset(seed=0)
    s = e.state()
    assert s.shape == (34 * 13 * 13 + 49,)
    grid, scalars = split_state(s, 6)
    assert grid.shape == (34, 13, 13) and grid[0, 6, 6] == 1  # the start tile sits at the centre of the state
    assert scalars[SCALARS.index("round")] == 1 and scalars[SCALARS.index("tiles left")] == 65
    assert e.state_space.contains(s)


@pytest.mark.parametrize("bad,needle", [
    ("3", "not an integer id"), (3.5, "not a single integer"), (np.array([3, 4]), "not a single integer"),
    (True, "not an integer id"), (float("nan"), "not a single integer"), (-1, "out of range"),
    (90, "out of range"), (None, "must choose"), (10, "not legal"),
])
def test_bad_aec_actions_are_refused_and_change_nothing(bad, needle: str) -> None:
    e = subterra_env.env()
    e.reset(seed=3)
    before = e.unwrapped.get_state()
    with pytest.raises(IllegalActionError, match=needle):
        e.step(bad)
    after = e.unwrapped.get_state()
    assert after.game.equals(before.game) and after.agent_selection == before.agent_selection
    e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))  # and the game goes on


def test_step_after_the_end_raises_game_over() -> None:
    e = subterra_env.env()
    e.reset(seed=2)
    _trace(e, 1, seed=0)
    play_random_aec(e, np.random.default_rng(0))
    with pytest.raises(GameOverError, match=r"after the game ended \(defeat\): call reset"):  # random play loses
        e.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        subterra_env.raw_env().step(0)


@pytest.mark.parametrize("text,needle", [
    ("num_cavers: [4\n", "not valid YAML"), ("- 4\n- 5\n", "expected a mapping"),
    ("num_cavers: 9\n", "num_cavers"), ("preset: mythic\n", "preset"),
])
def test_bad_config_files_name_file_and_problem(tmp_path: Path, text: str, needle: str) -> None:
    f = tmp_path / "game.yaml"
    f.write_text(text)
    with pytest.raises(ConfigError, match=needle):
        load(f)
