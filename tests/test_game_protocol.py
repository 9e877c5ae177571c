"""The Game protocol (subterra_env.game): both games satisfy it, step with codes, and run on one episode layer with
one action check, one error class and one seed stream per slot."""

import numpy as np
import pytest

from subterra_env import EnvSnapshot, GameConfig, IllegalActionError
from subterra_env import preset as subterra_preset
from subterra_env.games.sub_terra.core import rng
from subterra_env.games.sub_terra.core.board import cell_slot as subterra_cell_slot
from subterra_env.episode import Episodes
from subterra_env.game import STEP_DONE, STEP_ILLEGAL, STEP_OVER, Game
from subterra_env.in_the_cave import ItcVectorEnv, env, preset
from subterra_env.games.in_the_cave.core import actions as itc_actions
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.cave import add_tile, tile_at
from subterra_env.games.in_the_cave.core.game import ItcCore
from subterra_env.games.in_the_cave.game import InTheCave
from subterra_env.rewards import TeamReward
from subterra_env.games.sub_terra.game import SubTerra


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


@pytest.mark.parametrize("game", [SubTerra(subterra_preset("tiny"), team_reward=TeamReward(tile=0.5)),
                                  InTheCave(preset("first_game", num_players=4), reward_vp=1.0)])
def test_rewards_from_before_and_after_agree_with_the_episode_step(game):
    """Game.rewards(before, after) is (B, S) and equals what the episode layer's step reports: Sub Terra's team
    reward in every seat (EpisodeStep.rewards None), In the Cave's per seat (EpisodeStep.reward: the actor's)."""
    ep = Episodes(4, game=game, seed=3, max_cycles=3)  # short episodes: some end within the test
    ep.reset()
    moves = np.random.default_rng(0)
    nonzero = ends = 0
    for _ in range(300):
        before, actor = game.reward_snapshot(ep.state), np.maximum(game.actor(ep.state), 0).copy()
        s = ep.step(np.array([int(moves.choice(np.flatnonzero(m))) for m in ep.mask]))
        after = game.take(ep.state, np.arange(4))
        if len(s.done):  # the games that ended, as they ended (the autoreset replaced them in ep.state)
            game.put(after, s.done, s.ended)
            ends += len(s.done)
        expected = game.rewards(before, after)
        assert expected.shape == (4, game.num_seats)
        if game.shared_reward:
            assert s.rewards is None and np.array_equal(expected, np.repeat(s.reward[:, None], game.num_seats, 1))
        else:
            assert np.array_equal(expected, s.rewards)
            assert np.array_equal(s.reward, s.rewards[np.arange(4), actor])
        nonzero += int(expected.any())
    assert ends > 0 and nonzero > 0
    assert ep.book.ep_return.shape == ((4,) if game.shared_reward else (4, 4))


def test_episodes_takes_a_game_or_a_config_not_both():
    with pytest.raises(ValueError, match="carries its own config"):
        Episodes(1, GameConfig(), game=InTheCave())
    with pytest.raises(ValueError, match="reward_"):  # any term of the team reward, the newest too
        Episodes(1, game=InTheCave(), reward_way=0.1)
    assert Episodes(1, game=InTheCave(), reward_result=[0, 1 / 3, 2 / 3, 1]).game.name == InTheCave().name


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


def test_itc_slots_wait_while_others_step():
    """Episodes.step(actions, slots): only those slots' games step; the others keep their records, reward 0."""
    ep = Episodes(3, game=InTheCave(preset("first_game")), seed=4)
    ep.reset()
    before = ep.state.copy()
    action = int(np.flatnonzero(ep.mask[1])[0])
    s = ep.step(np.array([action]), slots=np.array([1]))
    changed = [not np.array_equal(before[i], ep.state[i]) for i in range(3)]
    assert changed == [False, True, False]
    assert s.rewards[[0, 2]].tolist() == [[0.0, 0.0], [0.0, 0.0]] and ep.book.ep_length.tolist() == [0, 1, 0]
    legal, bad = int(np.flatnonzero(ep.mask[0])[0]), int(np.flatnonzero(~ep.mask[2])[0])
    with pytest.raises(IllegalActionError, match=rf"slot 2: action {bad} \('\w+'\) is not legal now; legal: "):
        ep.step(np.array([legal, bad]), slots=np.array([0, 2]))
    assert ep.book.ep_length.tolist() == [0, 1, 0]


@pytest.mark.parametrize("make", [lambda: SubTerra(), lambda: InTheCave()])
def test_a_reset_restarts_the_games_in_place_as_init_starts_them(make):
    """Episodes.reset without options reuses its batch: the new games are exactly those a fresh init deals."""
    game = make()
    eps = Episodes(3, game=game, seed=5)
    eps.reset()
    batch = eps.state
    for _ in range(10):  # move the games on, so that a reset must rewrite them
        eps.step(eps.mask.argmax(axis=1))
    eps.reset()
    assert eps.state is batch
    assert _bytes(game, eps.state) == _bytes(game, game.init(eps.seeds))
