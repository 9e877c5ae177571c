"""In the Cave golden trajectories (tests/golden/itc_trajectories.npz): today's compiled rules replay every recorded
game bit for bit: the record's hash and the legal mask after setup and after every step, the result and the scores.

The fixture was recorded one game at a time (B=1); the replay runs each group as one batch, so it also checks that
a game plays the same inside a batch as alone. A mismatch is a change of behaviour: fix it, or document it and
regenerate with ``python tests/golden/record_itc.py`` (tests/golden/README.md). This test never records.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.actions import ACTION_NAMES, NUM_ACTIONS
from subterra_env.games.in_the_cave.core.game import ItcCore

GOLDEN = Path(__file__).resolve().parent / "golden"
FIXTURE = GOLDEN / "itc_trajectories.npz"
STATED_GAMES = 100


def _load_recorder():
    name = "golden_record_itc"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, GOLDEN / "record_itc.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


rec = _load_recorder()


@pytest.fixture(scope="module")
def fx() -> dict:
    if not FIXTURE.exists():
        pytest.fail(f"{FIXTURE} is missing: python tests/golden/record_itc.py")
    return rec.load_fixture(FIXTURE)


def replay_group(fx: dict, gi: int) -> dict:
    """Replay one group's games as one batch: every mismatch (first per game) as a message, and the final records."""
    group = fx["meta"]["groups"][gi]
    idx = np.flatnonzero(fx["group"] == gi)
    off = fx["offsets"]
    start, lens = off[idx], off[idx + 1] - off[idx]
    hstart = start + idx  # hashes and masks hold one more row per game (setup)
    core = ItcCore(rec.group_config(group))
    G = core.init(fx["seed"][idx])
    bad: list[str] = []
    diverged = np.zeros(len(idx), dtype=bool)

    def compare(t: int, live: np.ndarray, actions: np.ndarray | None) -> None:
        got_h = rec.record_hashes(G[live])
        got_m = rec.pack_masks(core.masks(G[live]))
        for j, g in enumerate(live):
            want_h, want_m = fx["hashes"][hstart[g] + t], fx["masks"][hstart[g] + t]
            what = []
            if got_h[j] != want_h:
                what.append(f"record hash {int(got_h[j]):#018x}, recorded {int(want_h):#018x}")
            if (got_m[j] != want_m).any():
                have = np.unpackbits(got_m[j])[:NUM_ACTIONS].astype(bool)
                want = np.unpackbits(want_m)[:NUM_ACTIONS].astype(bool)
                what.append(f"legal mask differs: now legal {[ACTION_NAMES[k] for k in np.flatnonzero(have & ~want)]}"
                            f", no longer legal {[ACTION_NAMES[k] for k in np.flatnonzero(want & ~have)]}")
            if what:
                act = "setup" if actions is None else f"action {int(actions[g])} {ACTION_NAMES[int(actions[g])]!r}"
                bad.append(f"group {group['name']}, seed {int(fx['seed'][idx[g]])}, step {t} ({act}): "
                           + "; ".join(what))
                diverged[g] = True  # its recorded actions may be illegal from here on: stop it

    compare(0, np.arange(len(idx)), None)
    for t in range(int(lens.max(initial=0))):
        live = np.flatnonzero((lens > t) & ~diverged)
        if not len(live):
            break
        actions = np.full(len(idx), -1, dtype=np.int64)  # -1: refused, so finished and diverged games stay put
        actions[live] = fx["actions"][start[live] + t]
        codes = core.step(G, actions)[live]
        for j, g in enumerate(live):
            if codes[j] != 0:
                bad.append(f"group {group['name']}, seed {int(fx['seed'][idx[g]])}, step {t + 1}: recorded action "
                           f"{int(actions[g])} {ACTION_NAMES[int(actions[g])]!r} refused (code {int(codes[j])})")
                diverged[g] = True
        compare(t + 1, live[~diverged[live]], actions)
    return {"bad": bad, "G": G, "idx": idx, "diverged": diverged}


@pytest.fixture(scope="module")
def replay(fx: dict) -> list[dict]:
    return [replay_group(fx, gi) for gi in range(len(fx["meta"]["groups"]))]


def test_fixture_holds_the_stated_games(fx):
    meta, n = fx["meta"], len(fx["seed"])
    assert meta["format"] == rec.FORMAT
    assert n == meta["games"] == STATED_GAMES
    assert sorted(set(meta["groups"][g]["settings"].get("num_players") for g in set(fx["group"].tolist()))) == \
        [2, 3, 4, 5]
    off = fx["offsets"]
    assert off[0] == 0 and (np.diff(off) > 0).all() and off[-1] == meta["steps"] == len(fx["actions"])
    assert len(fx["hashes"]) == len(fx["masks"]) == meta["steps"] + n
    assert int(fx["actions"].max()) < NUM_ACTIONS
    assert len(set(fx["seed"].tolist())) == n
    assert set(fx["result"].tolist()) == {L.ENDED, L.TRUNCATED}, "both ended and truncated games are recorded"
    assert FIXTURE.stat().st_size < 2_000_000


def test_groups_build_the_recorded_configs(fx):
    """Each group's stored settings still resolve to the stored full config: no default moved underneath."""
    for group in fx["meta"]["groups"]:
        now = rec.resolved(rec.group_config(group))
        assert now == group["resolved"], f"group {group['name']}: the settings resolve differently now"


def test_replay_reproduces_every_hash_and_mask(fx, replay):
    bad = [m for r in replay for m in r["bad"]]
    assert not bad, f"{len(bad)} game(s) diverge from the golden trajectories; first: {bad[0]}" + \
        "".join(f"\n  {m}" for m in bad[1:10])


def test_replay_ends_with_the_recorded_results_and_scores(fx, replay):
    for r in replay:
        G, idx = r["G"], r["idx"]
        for j, i in enumerate(idx):
            seats = fx["meta"]["groups"][int(fx["group"][i])]["settings"]["num_players"]
            assert int(G[j, L.OVER]) == int(fx["result"][i]), f"seed {int(fx['seed'][i])}: result differs"
            assert list(G[j, L.SCORE:L.SCORE + seats]) == list(fx["scores"][i, :seats]), \
                f"seed {int(fx['seed'][i])}: scores differ"


def test_replay_names_the_first_divergence(fx):
    """The checker checks: another legal action at one step is reported with its group, seed and step."""
    gi = [g["name"] for g in fx["meta"]["groups"]].index("heuristic3")
    game = int(np.flatnonzero(fx["group"] == gi)[2])
    seed, at = int(fx["seed"][game]), int(fx["offsets"][game]) + 9  # the game's 10th action
    recorded = int(fx["actions"][at])
    legal = np.flatnonzero(np.unpackbits(fx["masks"][at + game])[:NUM_ACTIONS])  # the mask before that action
    other = int(legal[legal != recorded][0])
    changed = {**fx, "actions": fx["actions"].copy()}
    changed["actions"][at] = other
    bad = replay_group(changed, gi)["bad"]
    assert len(bad) == 1 and f"seed {seed}, step 10 (action {other} {ACTION_NAMES[other]!r})" in bad[0], bad


def test_hash_of_a_row_is_the_same_alone_and_sees_every_value():
    core = ItcCore(rec.group_config({"settings": {"num_players": 3}}))
    G = core.init([5, 6, 7])
    core.random_playout(G, [5, 6, 7], max_steps=50)
    h = rec.record_hashes(G)
    assert len(set(h.tolist())) == 3
    for i in range(3):
        assert rec.record_hashes(G[i:i + 1])[0] == h[i]
    for pos in (0, L.RECORD_SIZE // 2, L.RECORD_SIZE - 1):
        changed = G.copy()
        changed[1, pos] ^= 1
        got = rec.record_hashes(changed)
        assert got[1] != h[1] and got[0] == h[0] and got[2] == h[2]
