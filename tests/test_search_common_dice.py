"""Common random numbers in the search's rollouts (``agents.search.agent.rollout_core``, ``effects.resync_dice``):
rollouts of one sampled world that started with different actions meet the same later dice; real games never use
it (R-ACT-3: dice stay fair and unseen)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.search.agent import rollout_core
from agents.search.worlds import sample_worlds
from subterra_env.config import load
from subterra_env.games.sub_terra.core.actions import ACTION_NAMES
from subterra_env.games.sub_terra.core.rng import mix
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import State

ROOT = Path(__file__).resolve().parents[1]

END, EXERT = ACTION_NAMES.index("end turn"), ACTION_NAMES.index("exert")


def block(round_: int, slot: int, part: int = 0) -> int:
    return (round_ << 24) | (slot << 16) | (part << 12)


def two_worlds(core: Core, seed: int, n: int = 2) -> State:
    """n copies of one sampled world of a new game (ctr 0, fresh key)."""
    st = core.init(np.array([seed]))
    packed = np.repeat(st.packed[:1], n)
    sample_worlds(packed, core.params, np.full(n, mix(np.uint64(seed + 77)), dtype=np.uint64))
    return State.from_packed(packed, st._sizes)


def test_rollout_core_is_a_copy_with_common_dice_and_the_real_core_keeps_sequential_dice() -> None:
    core = Core(load(ROOT / "configs" / "full.yaml"))
    rules = rollout_core(core)
    assert int(rules.params["crn_dice"][0]) == 1
    assert int(core.params["crn_dice"][0]) == 0
    assert rules.cfg is core.cfg and rules.num_actions == core.num_actions


def test_exerting_or_not_the_next_turn_meets_the_same_dice() -> None:
    """Seat 0 exerts (a skill check at its turn's end) in one copy and ends its turn in the other: with common dice
    both copies start seat 1's turn at the same counter, the block of (round 1, seat 1); with the game's own
    sequential dice the copy that rolled is one draw ahead."""
    core = Core(load(ROOT / "configs" / "full.yaml"))
    for rules, same in ((rollout_core(core), True), (core, False)):
        world = two_worlds(core, 5)
        assert int(world.actor[0]) == 0 and int(world.round[0]) == 1
        a, b = world.take([0]), world.take([1])
        for act in (EXERT, END, END):  # seat 0 exerts and ends (its check rolls), seat 1 ends
            rules.step(a, np.array([act]))
        for act in (END, END):  # seats 0 and 1 end at once
            rules.step(b, np.array([act]))
        assert int(a.actor[0]) == int(b.actor[0]) == 2
        ctr = [int(a.packed["ctr"][0]), int(b.packed["ctr"][0])]
        if same:
            assert ctr == [block(1, 2), block(1, 2)]
        else:
            assert ctr == [1, 0]


def test_common_dice_are_still_a_fair_die() -> None:
    """Over 1,200 sampled worlds (fresh keys) seat 0 exerts and ends its turn under common dice: its exert check
    (R-ACT-2, R-ACT-3: 4+ on a d6) fails in about half of them, and the worlds do not all roll alike."""
    core = Core(load(ROOT / "configs" / "full.yaml"))
    rules = rollout_core(core)
    st = core.init(np.array([5]))
    assert int(st.packed["c_rank"][0, 0]) not in (8,)  # not the Leader (who passes on 3+)
    n = 1200
    packed = np.repeat(st.packed[:1], n)
    sample_worlds(packed, core.params, mix(np.arange(1, n + 1, dtype=np.uint64)))
    trial = State.from_packed(packed, st._sizes)
    hp = trial.packed["c_hp"][:, 0].copy()
    rules.step(trial, np.full(n, EXERT), check=False)
    rules.step(trial, np.full(n, END), check=False)
    lost = int((trial.packed["c_hp"][:, 0] < hp).sum())
    assert 540 <= lost <= 660, lost
