"""The compiled core's contract beyond the rules: checked steps that never corrupt a game, clear errors for bad
action arrays, the packed state behind the named fields, and the same games at any batch size and thread count."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from subterra_env import IllegalActionError
from subterra_env.config import GameConfig
from subterra_env.games.sub_terra.core.actions import NUM_ACTIONS, action_id
from subterra_env.games.sub_terra.core.observe import observe
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RECORD, RUNNING, alloc, put_rows, take_rows


def _random_play(core: Core, seeds: np.ndarray, steps: int, salt: int = 0):
    """Play seeded random legal actions; each game's choices depend only on its seed and step count."""
    st = core.init(seeds)
    for _ in range(steps):
        mask = core.legal_mask(st)
        draw = (seeds * 7919 + st.steps.astype(np.int64) * 104729 + salt) % 9973
        n = np.maximum(mask.sum(1), 1)
        k = draw % n
        core.step(st, (np.cumsum(mask, axis=1) > k[:, None]).argmax(axis=1))
    return st


def test_illegal_action_raises_and_changes_no_game() -> None:
    core = Core()
    st = core.init([3, 4, 5])
    before = st.copy()
    actions = np.array([action_id("end turn"), action_id("surface 8"), action_id("end turn")])
    with pytest.raises(IllegalActionError, match=r"game 1: action 89 \(surface 8\) is not legal .*legal: \['0 end turn'"):
        core.step(st, actions)
    assert st.equals(before)


def test_out_of_range_action_is_named() -> None:
    core = Core()
    st = core.init([0])
    with pytest.raises(IllegalActionError, match=r"action 90 \(out of range 0..89\)"):
        core.step(st, np.array([NUM_ACTIONS]))
    with pytest.raises(IllegalActionError, match=r"action -1 \(out of range"):
        core.step(st, np.array([-1]))


def test_bad_action_arrays_are_refused() -> None:
    core = Core()
    st = core.init([0, 1])
    before = st.copy()
    with pytest.raises(ValueError, match=r"actions must have shape \(2,\), one per game; got shape \(1,\)"):
        core.step(st, np.array([0]))
    with pytest.raises(TypeError, match="actions must be integers .* got dtype float64"):
        core.step(st, np.array([0.0, 0.0]))
    with pytest.raises(TypeError, match="got dtype bool"):
        core.step(st, np.array([True, False]))
    assert st.equals(before)


def test_unchecked_step_applies_legal_actions_the_same() -> None:
    core = Core()
    a, b = core.init([7]), core.init([7])
    for _ in range(30):
        act = np.array([np.flatnonzero(core.legal_mask(a)[0])[-1]])
        core.step(a, act)
        core.step(b, act, check=False)
    assert a.equals(b) and a.steps[0] == 30


def test_fields_are_views_of_the_packed_state() -> None:
    st = alloc(2, 4, 66, 65, 23)
    st.c_hp[1, 2] = 5
    st.t_flood[0, 3] = True
    assert st.packed["c_hp"][1, 2] == 5 and st.packed["t_flood"][0, 3] == 1
    assert st.c_hp.shape == (2, 4) and st.t_nbr.shape == (2, 66, 4) and st.deck.shape == (2, 23)
    assert st.t_flood.dtype == np.bool_ and st.grid.shape == (2, 133, 133) and st.grid_side == 133
    # the grid is derived, not stored; 776 of the bytes are the event log (core/events.py), 104 the scenario fields
    assert RECORD.itemsize == 2448 and st.nbytes_per_game() == 2448  # 104 bytes Investigation, 6 its Gas Mask decision


def test_copy_take_and_pickle_keep_the_packing() -> None:
    core = Core()
    st = _random_play(core, np.arange(4), 20)
    for other in (st.copy(), st.take([0, 1, 2, 3]), pickle.loads(pickle.dumps(st))):
        assert other.equals(st)
        other.c_hp[0, 0] = 99
        assert other.packed["c_hp"][0, 0] == 99 and st.c_hp[0, 0] != 99
    again = pickle.loads(pickle.dumps(st))
    mask = core.legal_mask(st)
    act = mask.argmax(1)
    core.step(st, act)
    core.step(again, act)
    assert again.equals(st)


def test_rows_are_taken_and_put_as_bytes_field_for_field() -> None:
    """take_rows / put_rows copy packed records as bytes (numpy's field-by-field copy costs ~55 µs a call): the
    same records as numpy's indexing for index arrays, lists, boolean masks, slices and no rows, a copy for a slice,
    and numpy's own copy for a strided array; put_rows writes its rows and no other."""
    core = Core()
    st = _random_play(core, np.arange(6), 15)
    packed = st.packed
    cases = ((np.array([4, 1]), 2), ([0, 5, 2], 3), (np.array([True, False, False, True, False, True]), 3),
             (slice(1, 4), 3), (np.array([], dtype=np.int64), 0))
    for rows, n in cases:
        sub = take_rows(packed, rows)
        assert sub.dtype == RECORD and sub.shape == (n,)
        assert all(np.array_equal(sub[f], packed[rows][f]) for f in RECORD.names)
    part = take_rows(packed, slice(0, 2))
    part["c_hp"][0, 0] = 77
    assert packed["c_hp"][0, 0] != 77 and part["c_hp"][0, 0] == 77
    strided = take_rows(packed[::2], [0, 2])
    assert all(np.array_equal(strided[f], packed[[0, 4]][f]) for f in RECORD.names)
    other = _random_play(core, np.arange(10, 12), 5)
    before = st.copy()
    put_rows(packed, np.array([3, 0]), other.packed)
    assert st.take([3, 0]).equals(other)
    assert st.take([1, 2, 4, 5]).equals(before.take([1, 2, 4, 5]))
    assert not st.take([0]).equals(before.take([0]))


def test_a_game_plays_the_same_alone_in_a_batch_and_on_any_thread_count() -> None:
    seeds = np.arange(100, 196)  # 96 games: the multi-threaded loops (batches of 64 or more)
    cfg = GameConfig(num_cavers=5, seat_order="random")
    batched = _random_play(Core(cfg), seeds, 60)
    serial = _random_play(Core(cfg, threads=1), seeds, 60)
    assert batched.equals(serial)
    for i in (0, 41, 95):
        alone = _random_play(Core(cfg), seeds[i:i + 1], 60)
        assert alone.equals(batched.take([i]))
    assert (batched.result == RUNNING).sum() < 96 or batched.steps.min() == 60


def test_thread_count_is_checked() -> None:
    with pytest.raises(ValueError, match="threads=0 is out of range"):
        Core(threads=0)


def test_observe_refuses_bad_seats_and_buffers() -> None:
    core = Core()
    st = core.init([0])
    with pytest.raises(ValueError, match=r"game 0: seat 4 is out of range 0..3"):
        observe(core.cat, st, np.array([4]), 2)
    with pytest.raises(ValueError, match="grid_out must be a C-contiguous int8 array of shape"):
        observe(core.cat, st, np.array([0]), 2, grid_out=np.zeros((1, 34, 5, 5), dtype=np.int16))


def test_legal_mask_out_buffer() -> None:
    core = Core()
    st = core.init([0, 1])
    out = np.ones((2, NUM_ACTIONS), dtype=bool)
    assert core.legal_mask(st, out=out) is out
    assert out.sum() == core.legal_mask(st).sum()
    with pytest.raises(ValueError, match=r"out must be a C-contiguous \(2, 90\) bool array"):
        core.legal_mask(st, out=np.zeros((2, NUM_ACTIONS), dtype=np.int8))


def test_deck_limit_of_the_packed_state() -> None:
    from subterra_env.config import ConfigError

    with pytest.raises(ConfigError, match="at most 63 cards dealt"):
        base = GameConfig()
        GameConfig(hazard_deck={**base.hazard_deck, "tremor": 70},
                   deal={**base.deal, 4: {"normal": 64, "advanced": 64, "expert": 64}})


def test_reset_starts_new_games_in_place() -> None:
    core = Core(GameConfig(num_cavers=5, seat_order="random"))
    st = _random_play(core, np.arange(6), 40)
    core.reset(st, [1, 4], [1001, 1004])
    fresh = core.init([1001, 1004])
    assert st.take([1, 4]).equals(fresh)
    assert st.take([0]).equals(_random_play(core, np.arange(1), 40))
    with pytest.raises(ValueError, match="2 games but 1 seeds"):
        core.reset(st, [0, 1], [5])
    with pytest.raises(IndexError, match="out of range 0..5"):
        core.reset(st, [6], [5])
    with pytest.raises(ValueError, match=r"games \[4 1 4\] name a slot more than once"):
        core.reset(st, [4, 1, 4], [7, 8, 9])
    assert st.take([1, 4]).equals(fresh)  # the refused reset changed nothing


def test_threaded_reset_sets_up_the_same_games_as_the_serial_one() -> None:
    """From PARALLEL_MIN_RESET games a reset (an autoreset, init) spreads the setups over the threads: the same
    records as one thread sets up, whatever the order of the slots."""
    seeds = np.arange(100, 140)
    slots = np.random.default_rng(3).permutation(64)[:40]
    states = []
    for threads in (1, 2):
        core = Core(GameConfig(num_cavers=5, seat_order="random"), threads=threads)
        st = _random_play(core, np.arange(64), 30)
        core.reset(st, slots, seeds)
        states.append(st)
    assert states[0].equals(states[1])
    assert states[0].take(slots[:3]).equals(Core(GameConfig(num_cavers=5, seat_order="random")).init(seeds[:3]))


def test_seed_keys_are_splitmix64_of_the_seed_in_numpy_and_in_the_compiled_setup() -> None:
    """A game's key from its seed: the splitmix64 finaliser of seed * golden + 0x5EED, negative seeds wrapped to
    uint64 as numpy's astype does; ``rng.seed_keys`` (numpy) and the setup's compiled ``seed_key`` agree."""
    from subterra_env.games.sub_terra.core import rng
    seeds = np.array([1, 2, 0, -1, 2**63 - 1])
    literal = [716632666546416052, 6139096880363046005, 11641637725690733631, 11961283914518568649,
               12860573965931421308]
    assert rng.seed_keys(seeds).tolist() == literal
    for threads in (1, 2):  # the serial setup, and the threaded one from PARALLEL_MIN_RESET games
        st = Core(threads=threads).init(np.repeat(seeds, 4))
        assert st.key.tolist() == np.repeat(np.array(literal, dtype=np.uint64), 4).tolist()
