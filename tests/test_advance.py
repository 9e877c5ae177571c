"""The one-trip decision (``core/advance.py``) writes exactly what the separate calls write: the step, the
episode bookkeeping (``kernels.after_step``), the legal masks, the info counts and the acting cavers'
observations, serial and threaded, base game and a scenario."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from subterra_env.config import GameConfig
from subterra_env.games.sub_terra.core.advance import Advance, advance
from subterra_env.games.sub_terra.core.jit import argument_type, compiled_entry
from subterra_env.games.sub_terra.core.kernels import after_step, counts_batch
from subterra_env.games.sub_terra.core.observe import observe
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.rewards import TeamReward

MAX_CYCLES = 12  # short: some episodes end truncated, most by the rules


class Slots:
    """The per-slot arrays of the episode layer, for one batch."""

    def __init__(self, b: int, num_actions: int):
        self.reward = np.zeros(b, dtype=np.float32)
        self.ep_return, self.ep_length = np.zeros(b), np.zeros(b, dtype=np.int64)
        self.flags = tuple(np.zeros(b, dtype=bool) for _ in range(4))  # terminated, truncated, over, done
        self.mask = np.zeros((b, num_actions), dtype=bool)
        self.counts = np.zeros((5, b), dtype=np.int64)

    def arrays(self) -> list[np.ndarray]:
        return [self.reward, self.ep_return, self.ep_length, *self.flags, self.mask, self.counts]


def separate_calls(core: Core, st, actions, slots: Slots, stepped, team: TeamReward
                   ) -> tuple[int, np.ndarray, np.ndarray]:
    before = team.snapshot(st)
    core.step(st, actions, check=False)
    slots.reward[:] = team(before, st)
    te, tr, over, done = slots.flags
    n = after_step(slots.reward, team.by_result32, not team.shaped, stepped, slots.ep_return, slots.ep_length,
                   st.result, st.round, MAX_CYCLES, te, tr, over, done)
    core.legal_mask(st, out=slots.mask)
    counts_batch(st.packed, st.stack.shape[1], slots.counts)
    grid, scalars = observe(core.cat, st, np.maximum(st.actor, 0), 7)
    return n, grid, scalars


@pytest.mark.parametrize("batch", [5, 70])  # 70: the threaded kernel (PARALLEL_MIN_BATCH is 64)
@pytest.mark.parametrize("scenario, team", [("base", TeamReward()), ("investigation", TeamReward())])
def test_one_trip_writes_what_the_separate_calls_write(batch: int, scenario: str, team: TeamReward) -> None:
    core = Core(GameConfig(scenario=scenario))
    st_a, st_b = core.init(np.arange(batch)), core.init(np.arange(batch))
    a, b = Slots(batch, core.num_actions), Slots(batch, core.num_actions)
    core.legal_mask(st_a, out=a.mask)
    rng = np.random.default_rng(7)
    grid = np.zeros((batch, *observe(core.cat, st_a.take([0]), np.zeros(1, np.int64), 7)[0].shape[1:]), np.int8)
    scalars = np.zeros((batch, observe(core.cat, st_a.take([0]), np.zeros(1, np.int64), 7)[1].shape[1]), np.int8)
    ended_total = 0
    everyone = np.ones(batch, dtype=bool)
    for step in range(400):
        noise = rng.random(a.mask.shape) * a.mask
        actions = noise.argmax(axis=1).astype(np.int64)
        n_b, grid_b, scalars_b = separate_calls(core, st_b, actions, b, everyone, team)
        n_a = advance(core, st_a, actions, everyone, a.reward, team, a.ep_return, a.ep_length, MAX_CYCLES, a.flags,
                      a.mask, a.counts, (grid, scalars), 7)
        assert n_a == n_b
        for x, y in zip(a.arrays(), b.arrays()):
            np.testing.assert_array_equal(x, y)
        assert st_a.packed.tobytes() == st_b.packed.tobytes()
        np.testing.assert_array_equal(grid, grid_b)
        np.testing.assert_array_equal(scalars, scalars_b)
        done = np.flatnonzero(a.flags[2])
        ended_total += len(np.flatnonzero(a.flags[3]))
        if len(done):  # autoreset, as the vector envs do
            seeds = 1000 + step * batch + done
            for st, s in ((st_a, a), (st_b, b)):
                core.reset(st, done, seeds)
                for f in s.flags[:3]:
                    f[done] = False
                s.ep_return[done], s.ep_length[done] = 0.0, 0
            core.legal_mask(st_a, out=a.mask)
            core.legal_mask(st_b, out=b.mask)
    assert ended_total > 0  # episodes ended on the way (by the rules or truncated), so the bookkeeping was tested


def test_without_observations_nothing_is_observed() -> None:
    core = Core()
    st = core.init(np.arange(3))
    s = Slots(3, core.num_actions)
    core.legal_mask(st, out=s.mask)
    actions = s.mask.argmax(axis=1).astype(np.int64)
    assert advance(core, st, actions, np.ones(3, dtype=bool), s.reward, TeamReward(), s.ep_return, s.ep_length,
                   MAX_CYCLES, s.flags, s.mask, s.counts) == 0
    assert s.ep_length.tolist() == [1, 1, 1]
    assert s.counts[0].tolist() == [-1, -1, -1]  # result: running
    assert s.counts[2].tolist() == [1, 1, 1]  # round 1


def test_a_shaped_team_reward_takes_the_separate_kernels() -> None:
    with pytest.raises(ValueError, match="a shaped team reward steps through the separate kernels"):
        advance(Core(), Core().init(np.arange(1)), np.zeros(1, np.int64), np.ones(1, bool), np.zeros(1, np.float32),
                TeamReward(escape=0.5), np.zeros(1), np.zeros(1, np.int64), 10, Slots(1, 90).flags,
                np.zeros((1, 90), bool), np.zeros((5, 1), np.int64))


def test_the_bound_call_gives_the_dispatchers_result_on_its_own_arrays_and_on_others() -> None:
    """``Advance.bind`` calls the compiled entry directly for actions and stepped arrays it meets a second time in a
    row (the AEC env's) and the dispatcher for any others: both play a game exactly as ``advance`` does."""
    core, team = Core(), TeamReward()
    st, ref = core.init(np.arange(4, 7)), core.init(np.arange(4, 7))
    s, r = Slots(3, core.num_actions), Slots(3, core.num_actions)
    core.legal_mask(st, out=s.mask)
    core.legal_mask(ref, out=r.mask)
    bound = Advance(core, team).bind(st, s.reward, s.ep_return, s.ep_length, MAX_CYCLES, s.flags, s.mask, s.counts)
    own, stepped = np.zeros(3, dtype=np.int64), np.ones(3, dtype=bool)
    for i in range(60):
        own[:] = s.mask.argmax(axis=1)
        actions = own if i % 3 else own.copy()  # mostly the first call's array, every third call another one
        n = bound(actions, stepped)
        assert n == advance(core, ref, own.copy(), stepped.copy(), r.reward, team, r.ep_return, r.ep_length,
                            MAX_CYCLES, r.flags, r.mask, r.counts)
        assert all(st.packed[k].tobytes() == ref.packed[k].tobytes() for k in st.packed.dtype.names)
        for a, b in zip(s.arrays(), r.arrays()):
            np.testing.assert_array_equal(a, b)
    assert int(s.ep_length.max()) > 1


def test_compiled_entry_is_none_until_the_dispatcher_compiled_those_types() -> None:
    @numba.njit
    def twice(x):
        return 2 * x

    assert compiled_entry(twice, (3,)) is None  # never called: nothing compiled
    assert twice(3) == 6
    entry = compiled_entry(twice, (4,))
    assert entry is not None and entry(21) == 42
    assert compiled_entry(twice, (1.5,)) is None  # compiled for ints only


def test_a_record_arrays_type_is_numbas_own_and_built_once() -> None:
    """``argument_type`` gives what ``typeof_pyval`` gives, for the state's record array as it is, read-only and
    strided, and builds each such type once (numba rebuilds it from the 85 fields at every ``typeof_pyval``)."""
    @numba.njit
    def first_round(packed):
        return packed[0]["round"]

    st = Core().init(np.arange(4))
    readonly = st.packed.view()
    readonly.flags.writeable = False
    for value in (st.packed, readonly, st.packed[::2], np.arange(3)):
        assert argument_type(first_round, value) == first_round.typeof_pyval(value)
    assert argument_type(first_round, st.packed) is argument_type(first_round, Core().init(np.arange(9)).packed)
    assert str(argument_type(first_round, st.packed[::2])).endswith(", 1d, A)")
    assert str(argument_type(first_round, readonly)).startswith("readonly array(")


def test_the_bound_call_looks_its_entry_up_once_and_only_for_arrays_met_twice_in_a_row(monkeypatch) -> None:
    """The lookup types every argument in Python (tens of µs): once per bound call, at the second call in a row with
    the same actions and stepped arrays (the AEC env's); arrays that change every call (the vector envs') never."""
    import subterra_env.games.sub_terra.core.advance as advance_module

    looked = []
    real = advance_module.compiled_entry
    monkeypatch.setattr(advance_module, "compiled_entry", lambda d, args: looked.append(1) or real(d, args))
    core, team = Core(), TeamReward()
    for pattern, lookups in (("AABAABAABAAB", 1), ("ABABABABABAB", 0)):
        st = core.init(np.arange(2))
        s = Slots(2, core.num_actions)
        core.legal_mask(st, out=s.mask)
        bound = Advance(core, team).bind(st, s.reward, s.ep_return, s.ep_length, MAX_CYCLES, s.flags, s.mask,
                                         s.counts)
        arrays, stepped = {"A": np.zeros(2, np.int64), "B": np.zeros(2, np.int64)}, np.ones(2, dtype=bool)
        looked.clear()
        for name in pattern:
            arrays[name][:] = s.mask.argmax(axis=1)
            bound(arrays[name], stepped)
        assert len(looked) == lookups
