"""The Game protocol (subterra_env.game): both games satisfy it, step with codes, and run on one episode layer with
one action check, one error class and one seed stream per slot."""

import numpy as np
import pytest

from subterra_env import EnvSnapshot, GameConfig, IllegalActionError
from subterra_env.core import rng
from subterra_env.core.board import cell_slot as subterra_cell_slot
from subterra_env.episode import Episodes
from subterra_env.game import STEP_DONE, STEP_ILLEGAL, STEP_OVER, Game
from subterra_env.in_the_cave import ItcVectorEnv, env, preset
from subterra_env.in_the_cave.core import actions as itc_actions
from subterra_env.in_the_cave.core import layout as L
from subterra_env.in_the_cave.core.cave import add_tile, tile_at
from subterra_env.in_the_cave.core.game import ItcCore
from subterra_env.in_the_cave.game import InTheCave
from subterra_env.sub_terra import SubTerra


def test_both_games_satisfy_the_protocol():
    sub, itc = SubTerra(), InTheCave(preset("three"))
    for game in (sub, itc):
        assert isinstance(game, Game)
        assert len(game.action_names) == game.num_actions
    assert (sub.name, sub.version, sub.num_actions, sub.num_seats, sub.shared_reward) == ("subterra", 1, 90, 4, True)
    assert (itc.name, itc.version, itc.num_actions, itc.num_seats, itc.shared_reward) == ("in_the_cave", 0, 81, 3,
                                                                                          False)


def _end(game, batch, slot: int) -> None:
    """End one game by hand: Sub Terra's result defeat, In the Cave's OVER flag."""
    if isinstance(game, SubTerra):
        batch.result[slot] = 0
    else:
        batch[slot, L.OVER] = L.ENDED


def _bytes(game, sub) -> bytes:
    """A game's contents (Sub Terra's record field by field: its padding bytes are not part of the game)."""
    if isinstance(game, SubTerra):
        return b"".join(sub.packed[name].tobytes() for name in sub.packed.dtype.names)
    return sub.tobytes()


@pytest.mark.parametrize("make", [lambda: SubTerra(), lambda: InTheCave(preset("first_game"))])
def test_step_codes_never_raise_for_one_game(make):
    """step: a legal action is taken (0), an illegal one leaves its game unchanged (1), an ended game stays (2);
    with mask_out the new masks come from the same call."""
    game = make()
    batch = game.init(np.array([3, 4, 5]))
    mask = game.legal_mask(batch)
    legal, illegal = int(np.flatnonzero(mask[0])[0]), int(np.flatnonzero(~mask[1])[0])
    _end(game, batch, 2)
    kept = {slot: _bytes(game, game.take(batch, np.array([slot]))) for slot in (0, 1, 2)}
    out = np.zeros_like(mask)
    codes = game.step(batch, np.array([legal, illegal, legal]), mask_out=out)
    assert codes.tolist() == [STEP_DONE, STEP_ILLEGAL, STEP_OVER]
    assert np.array_equal(out, game.legal_mask(batch)) and not out[2].any()
    after = {slot: _bytes(game, game.take(batch, np.array([slot]))) for slot in (0, 1, 2)}
    assert [after[slot] == kept[slot] for slot in (0, 1, 2)] == [False, True, True]


def test_one_error_class_and_one_hash():
    """One IllegalActionError; both cores index cells with core.rng.cell_hash (In the Cave's first probe of a
    cell is its hash slot when that slot is free)."""
    assert itc_actions.IllegalActionError is IllegalActionError
    for x, y in ((0, 0), (3, -2), (-7, 11)):
        assert subterra_cell_slot(x, y) == rng.cell_hash(x, y, 128) == (x * 73 + y * 151) & 127
    g = ItcCore(preset("two")).init([1])[0]
    g[L.CELLS:L.CELLS + L.CELL_SLOTS] = -1
    g[L.N_TILES] = 0
    t = add_tile(g, 40, -9, L.K_PLAIN, 0b0101, 0)
    assert g[L.CELLS + rng.cell_hash(40, -9, L.CELL_SLOTS)] == t == tile_at(g, 40, -9)


def test_per_seat_rewards_and_the_team_reward():
    """A team game reports reward (B,) and no per-seat rewards; In the Cave reports (B, S) and, as reward, the
    column of the seat that acted."""
    sub = Episodes(2, GameConfig(), seed=1)
    sub.reset()
    s = sub.step(np.array([int(np.flatnonzero(m)[0]) for m in sub.mask]))
    assert s.rewards is None and s.reward.shape == (2,)
    itc = Episodes(2, game=InTheCave(preset("first_game", num_players=3), reward_vp=1.0), seed=1)
    itc.reset()
    assert itc.book.ep_return.shape == (2, 3)
    s = itc.step(np.array([int(np.flatnonzero(m)[0]) for m in itc.mask]))
    assert s.rewards.shape == (2, 3) and s.reward.shape == (2,)
    with pytest.raises(ValueError, match="carries its own config"):
        Episodes(1, GameConfig(), game=InTheCave())


def _trajectory(num_envs: int, steps: int) -> tuple[list, int]:
    """Slot 0's observations, rewards and flags over ``steps`` steps of an ItcVectorEnv of num_envs slots (seed 9);
    slot 0 picks from its own random stream, the other slots from another."""
    v = ItcVectorEnv(num_envs, preset("first_game", max_rounds=2), seed=9)
    obs = v.reset()
    mine, others = np.random.default_rng(0), np.random.default_rng(num_envs)
    out, ends = [], 0
    for _ in range(steps):
        acts = np.array([int(others.choice(np.flatnonzero(m))) for m in obs["action_mask"]])
        acts[0] = int(mine.choice(np.flatnonzero(obs["action_mask"][0])))
        obs, rew, term, trunc, info = v.step(acts)
        ends += int(term[0] or trunc[0])
        out.append((obs["observation"][0].tobytes(), obs["vector"][0].tobytes(), int(obs["actor"][0]),
                    rew[0].tolist(), bool(term[0]), bool(trunc[0]), info["scores"][0].tolist(), v.G[0].tobytes()))
    return out, ends


def test_vector_slot_games_do_not_depend_on_the_batch_size():
    """Slot 0 plays the same games, step for step and across autoresets, alone and beside four other slots."""
    alone, ends = _trajectory(1, 160)
    beside, _ = _trajectory(5, 160)
    assert ends >= 2
    assert alone == beside


def test_itc_aec_env_keeps_its_seed_to_game_mapping():
    """reset(seed=s) plays the game of seed default_rng(s).integers(0, 2**62), as before the episode layer (the
    recorded games replay); an unseeded reset continues that stream."""
    e = env(initial_pack="fixed")
    e.reset(seed=123)
    stream = np.random.default_rng(123)
    core = ItcCore(preset("first_game"))
    assert np.array_equal(e.unwrapped.G, core.init([int(stream.integers(0, 2**62))]))
    e.reset()
    assert np.array_equal(e.unwrapped.G, core.init([int(stream.integers(0, 2**62))]))


def test_itc_snapshot_is_the_shared_one_and_refuses_other_settings():
    """In the Cave's get_state is Sub Terra's EnvSnapshot (one snapshot code for both AEC envs); a snapshot of
    other settings is refused naming them (the replay is test_itc_env.test_render_and_snapshots)."""
    e = env(initial_pack="fixed")
    e.reset(seed=5)
    snap = e.unwrapped.get_state()
    assert isinstance(snap, EnvSnapshot) and snap.agents == ("team_0", "team_1")
    other = env(initial_pack="fixed", num_players=3)
    other.reset(seed=5)
    with pytest.raises(ValueError, match="differing: num_players"):
        other.unwrapped.set_state(snap)
    with pytest.raises(TypeError, match="EnvSnapshot"):
        other.unwrapped.set_state({"G": None})
