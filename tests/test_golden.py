"""Golden trajectories (tests/golden/): today's core replays every recorded game bit for bit.

The fixture was recorded one game at a time (B=1); the replay here runs each settings group as one batch, so it
also checks that a game plays the same inside a batch as alone. A mismatch is a change of behaviour: fix it, or
document it and regenerate the fixture (tests/golden/README.md).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from subterra_env.config import CAVER_NAMES, SCENARIO_SETTINGS
from subterra_env.games.sub_terra.core.actions import ACTION_NAMES, NUM_ACTIONS
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RUNNING, State

GOLDEN = Path(__file__).resolve().parent / "golden"
FIXTURE = Path(os.environ.get("SUBTERRA_GOLDEN", GOLDEN / "trajectories.npz"))
STATED_GAMES = 500  # the recorder's default (tests/golden/README.md)


def _load_record() -> ModuleType:
    """tests/golden/record.py by path (tests/ is not a package), registered for its dataclass use."""
    name = "golden_record"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, GOLDEN / "record.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


rec = _load_record()


@pytest.fixture(scope="module")
def fx() -> dict:
    if not FIXTURE.exists():
        pytest.fail(f"{FIXTURE} is missing: python tests/golden/record.py")
    return rec.load_fixture(FIXTURE)


def _describe(fx: dict, gi: int, seed: int, step: int, action: int | None, what: str) -> str:
    group = fx["meta"]["groups"][gi]
    act = "setup" if action is None else f"action {action} {ACTION_NAMES[action]!r}"
    return (f"group {group['name']} {group['settings'] or 'defaults'}, seed {seed}, step {step} ({act}): {what}")


def replay_group(fx: dict, gi: int) -> dict:
    """Replay one group's games as one batch; the first hash / mask mismatch of each game and the ranks seen."""
    idx = np.flatnonzero(fx["group"] == gi)
    seeds, off = fx["seed"][idx], fx["offsets"]
    start, lens = off[idx], off[idx + 1] - off[idx]
    core = Core(rec.group_config(fx["meta"]["groups"][gi]))
    st = core.init(seeds)
    ranks = set(np.unique(st.c_rank).tolist())
    bad_hash: list[tuple[int, int, int | None, str]] = []  # (step, game in group, action, message)
    bad_mask: list[tuple[int, int, int | None, str]] = []
    diverged = np.zeros(len(idx), dtype=bool)

    def compare(t: int, games: np.ndarray, want_hash: np.ndarray, want_mask: np.ndarray, actions) -> None:
        got = rec.state_hashes(st.take(games))
        mask = rec.pack_masks(core.legal_mask(st)[games])
        for j in np.flatnonzero(got != want_hash):
            g = games[j]
            a = None if actions is None else int(actions[g])
            bad_hash.append((t, g, a, f"state hash {int(got[j]):#018x}, recorded {int(want_hash[j]):#018x}"))
            diverged[g] = True
            st.result[g] = 0  # freeze the diverged game: its recorded actions may be illegal from here on
        for j in np.flatnonzero((mask != want_mask).any(1)):
            g = games[j]
            a = None if actions is None else int(actions[g])
            have = np.unpackbits(mask[j])[:NUM_ACTIONS].astype(bool)
            want = np.unpackbits(want_mask[j])[:NUM_ACTIONS].astype(bool)
            extra = [ACTION_NAMES[k] for k in np.flatnonzero(have & ~want)]
            missing = [ACTION_NAMES[k] for k in np.flatnonzero(want & ~have)]
            bad_mask.append((t, g, a, f"legal mask differs: now legal {extra}, no longer legal {missing}"))

    everyone = np.arange(len(idx))
    compare(0, everyone, fx["init_hash"][idx], fx["init_mask"][idx], None)
    for t in range(int(lens.max(initial=0))):
        live = np.flatnonzero((lens > t) & ~diverged)
        if not len(live):
            break
        actions = np.zeros(len(idx), dtype=np.intp)
        actions[live] = fx["actions"][start[live] + t]
        core.step(st, actions)
        compare(t + 1, live, fx["hashes"][start[live] + t], fx["masks"][start[live] + t], actions)
    # A game recorded as over must be over here too (implied by equal hashes; said plainly if not).
    still = np.flatnonzero((st.result == RUNNING) & ~diverged)
    for g in still:
        bad_hash.append((int(lens[g]), g, None, "still running after its last recorded step"))

    def first(rows):
        return [_describe(fx, gi, int(seeds[g]), t, a, msg) for t, g, a, msg in sorted(rows, key=lambda r: r[:2])]

    return {"hash": first(bad_hash), "mask": first(bad_mask), "ranks": ranks, "steps": int(lens.sum())}


@pytest.fixture(scope="module")
def replay(fx: dict) -> list[dict]:
    return [replay_group(fx, gi) for gi in range(len(fx["meta"]["groups"]))]


# ---------------------------------------------------------------------------------------------- the fixture
def test_fixture_holds_the_stated_games(fx):
    meta, n = fx["meta"], len(fx["seed"])
    assert meta["format"] == rec.FORMAT
    assert n == meta["games"] == STATED_GAMES
    assert len(fx["group"]) == len(fx["init_hash"]) == len(fx["result"]) == len(fx["init_mask"]) == n
    off = fx["offsets"]
    assert off[0] == 0 and (np.diff(off) > 0).all() and off[-1] == meta["steps"]
    assert len(fx["actions"]) == len(fx["hashes"]) == len(fx["masks"]) == meta["steps"]
    assert int(fx["actions"].max()) < NUM_ACTIONS
    assert sorted(set(fx["group"].tolist())) == list(range(len(meta["groups"])))
    assert len(set(zip(fx["group"].tolist(), fx["seed"].tolist()))) == n, "a (group, seed) pair recorded twice"
    assert set(fx["result"].tolist()) <= {0, 1, 2, 3}, "every recorded game was played to its end"
    assert meta["state_fields"] == rec.hashed_fields(), \
        "State's fields changed: the hash covers them in order, so this is a format change (regenerate)"
    for key in ("numpy", "python", "git_revision"):
        assert meta[key]


def test_groups_build_the_recorded_configs(fx):
    """Each group's stored settings still resolve to the stored full config: no default moved underneath."""
    for group in fx["meta"]["groups"]:
        now = rec.resolved(rec.group_config(group))
        moved = {k: (group["resolved"].get(k), v) for k, v in now.items() if group["resolved"].get(k) != v
                 and not (k in SCENARIO_SETTINGS and k not in group["resolved"])}  # added later; base: unread
        assert now["scenario"] == "base"
        moved.update({k: (v, None) for k, v in group["resolved"].items() if k not in now})
        assert not moved, f"group {group['name']}: settings (recorded, now) differ: {moved}"


def test_every_caver_appears(fx, replay):
    fixed = {n for g in fx["meta"]["groups"] for n in (g["settings"].get("cavers") or ())}
    assert fixed == set(CAVER_NAMES), "the fixed line-ups miss some cavers"
    seen = set().union(*(r["ranks"] for r in replay))
    assert seen == set(range(1, 9)), f"ranks seen in the recorded games: {sorted(seen)}"


# ---------------------------------------------------------------------------------------------- the replay
def test_replay_reproduces_every_state_hash(fx, replay):
    bad = [m for r in replay for m in r["hash"]]
    steps = sum(r["steps"] for r in replay)
    assert steps == fx["meta"]["steps"]
    assert not bad, f"{len(bad)} game(s) diverge from the golden trajectories; first: {bad[0]}" + \
        "".join(f"\n  {m}" for m in bad[1:10])


def test_replay_names_the_first_divergence(fx):
    """The checker checks: another legal action at one step, or one altered hash, is reported with its place."""
    gi = [g["name"] for g in fx["meta"]["groups"]].index("numbers")
    game = int(np.flatnonzero(fx["group"] == gi)[3])
    seed, at = int(fx["seed"][game]), int(fx["offsets"][game]) + 5  # the game's 6th action
    recorded = int(fx["actions"][at])
    legal = np.flatnonzero(np.unpackbits(fx["masks"][at - 1])[:NUM_ACTIONS])
    other = int(legal[legal != recorded][0])
    changed = {**fx, "actions": fx["actions"].copy()}
    changed["actions"][at] = other
    bad = replay_group(changed, gi)["hash"]
    assert len(bad) == 1 and f"seed {seed}, step 6 (action {other} {ACTION_NAMES[other]!r})" in bad[0], bad
    changed = {**fx, "hashes": fx["hashes"].copy()}
    changed["hashes"][at] ^= np.uint64(1)
    bad = replay_group(changed, gi)["hash"]
    assert len(bad) == 1 and f"seed {seed}, step 6 (action {recorded} " in bad[0], bad


def test_replay_reproduces_every_legal_mask(fx, replay):
    bad = [m for r in replay for m in r["mask"]]
    assert not bad, f"{len(bad)} legal-mask mismatch(es); first: {bad[0]}" + "".join(f"\n  {m}" for m in bad[1:10])


# ---------------------------------------------------------------------------------------------- the hash
def _mid_game(batch: int = 3, steps: int = 40) -> State:
    soak = rec.load_soak()
    core = Core()
    seeds = np.arange(batch, dtype=np.int64) + 7
    st, keys = core.init(seeds), soak.action_keys(seeds)
    for _ in range(steps):
        core.step(st, soak.choose_actions(keys, st.steps, core.legal_mask(st)))
    return st


def test_hash_of_a_slice_equals_the_hash_alone():
    st = _mid_game()
    batched = rec.state_hashes(st)
    assert len(set(batched.tolist())) == st.batch_size
    for i in range(st.batch_size):
        alone = st.take([i])
        assert batched[i] == rec.state_hashes(alone)[0] == rec.state_hash_reference(alone)


def test_hash_sees_every_field_of_one_game():
    st = _mid_game()
    base = rec.state_hashes(st)
    for f in dataclasses.fields(State):
        changed = st.copy()
        arr = getattr(changed, f.name)
        flat = arr[1].reshape(-1)
        flat[-1] = ~flat[-1] if arr.dtype == bool else flat[-1] ^ np.array(1, arr.dtype)
        arr[1] = flat.reshape(arr.shape[1:])
        h = rec.state_hashes(changed)
        assert h[1] != base[1], f"changing {f.name} of game 1 does not change its hash"
        assert h[0] == base[0] and h[2] == base[2], f"changing {f.name} of game 1 changes another game's hash"


def test_hash_sees_dtype_and_shape():
    st = _mid_game(batch=1)
    base = rec.state_hashes(st)[0]
    wider = st.copy()
    wider.round = wider.round.astype(np.int64)  # same value, other dtype
    assert rec.state_hashes(wider)[0] != base
    longer = st.copy()
    longer.h_tile = np.concatenate([longer.h_tile, np.full((1, 1), -1, np.int8)], axis=1)
    assert rec.state_hashes(longer)[0] != base
