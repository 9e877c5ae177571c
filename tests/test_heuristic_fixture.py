"""The heuristic decisions fixture (tests/golden/heuristic_decisions.npz): it is whole, it replays on today's
core, and the compiled heuristic team (agents/heuristic) makes the decisions the Python heuristic it replaced made.

The fixture was recorded from the Python heuristic before it was compiled; the compiled team agreed with all 582,570
recorded decisions when it replaced it (``python tests/golden/heuristic_fixture.py`` measures the whole fixture).
Here every group is replayed for a few games, the team on the weights of the recording (``RECORDED_WEIGHTS`` in
heuristic_fixture.py: three weights were retuned since, which changes its play on purpose).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from subterra_env.config import CAVER_NAMES
from subterra_env.games.sub_terra.core.actions import NUM_ACTIONS
from subterra_env.games.sub_terra.core.rules import Core

GOLDEN = Path(__file__).resolve().parent / "golden"
FIXTURE = Path(os.environ.get("SUBTERRA_HEURISTIC_FIXTURE", GOLDEN / "heuristic_decisions.npz"))
STATED_GROUPS = 10  # record_heuristic.GROUPS
REPLAY_GAMES = 20  # games per group replayed by the consistency test
AGREE_GAMES = 12  # games per group for the agreement test (every group)


def _load(name: str, file: str) -> ModuleType:
    """A module of tests/golden by path (tests/ is not a package), registered (as test_golden.py does)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, GOLDEN / file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


hf = _load("golden_heuristic_fixture", "heuristic_fixture.py")


def agent_factory(holder: Any) -> Any:
    """The agent measured against the fixture: the compiled heuristic team on the recording's weights."""
    from agents import HeuristicAgent

    return HeuristicAgent(holder, **hf.RECORDED_WEIGHTS)


@pytest.fixture(scope="module")
def fx() -> dict:
    if not FIXTURE.exists():
        pytest.fail(f"{FIXTURE} is missing: python tests/golden/record_heuristic.py")
    return hf.load(FIXTURE)


# ---------------------------------------------------------------------------------------------- the fixture
def test_fixture_shape(fx):
    meta, n = fx["meta"], len(fx["seed"])
    groups = meta["groups"]
    assert meta["format"] == hf.FORMAT and meta["max_cycles"] == hf.MAX_CYCLES
    assert len(groups) == STATED_GROUPS
    assert len(set(hf.group_names(fx))) == len(groups)
    for key in ("group", "escaped", "result", "truncated", "rounds"):
        assert fx[key].shape == (n,), key
    assert n == meta["games"] == sum(g["games"] for g in groups)
    assert sorted(set(fx["group"].tolist())) == list(range(len(groups)))
    assert [int((fx["group"] == gi).sum()) for gi in range(len(groups))] == [g["games"] for g in groups]
    assert len(set(fx["seed"].tolist())) == n, "a seed recorded twice"
    off = fx["offsets"]
    assert off.shape == (n + 1,) and off[0] == 0 and (np.diff(off) > 0).all()
    assert off[-1] == len(fx["actions"]) == meta["decisions"] == sum(g["decisions"] for g in groups)
    assert fx["actions"].dtype == np.int8 and 0 <= fx["actions"].min() and fx["actions"].max() < NUM_ACTIONS
    fb = fx["fallback"]
    assert (np.diff(fb) > 0).all() and (len(fb) == 0 or 0 <= fb[0] and fb[-1] < off[-1])
    assert set(fx["result"].tolist()) <= {-1, 0, 1, 2, 3}
    assert ((fx["result"] == -1) == fx["truncated"]).all(), "only truncated games may still be running"
    assert ((fx["rounds"] > meta["max_cycles"]) == fx["truncated"]).all()
    for gi, g in enumerate(groups):
        cfg = hf.group_config(fx, gi)
        assert hf.config_json(cfg) == g["config"], f"group {g['name']}: the stored config does not round-trip"
        sel = fx["group"] == gi
        assert (fx["escaped"][sel] >= 0).all() and (fx["escaped"][sel] <= cfg.num_cavers).all()
        assert abs(fx["escaped"][sel].mean() - g["escaped_mean"]) < 1e-9
    assert hf.recorded_strength(fx) == pytest.approx({g["name"]: g["escaped_mean"] for g in groups})


def test_fixture_covers_settings_and_cavers(fx):
    groups = fx["meta"]["groups"]
    sizes = {hf.config_from_json(g["config"]).num_cavers for g in groups}
    assert sizes == {4, 5, 6}
    presets = {g["settings"]["preset"] for g in groups}
    assert {"tiny", "small", "medium", "full"} <= presets
    fixed = [n for g in groups for n in (g["settings"].get("cavers") or ())]
    assert all(fixed.count(c) >= 2 for c in CAVER_NAMES), f"line-ups: {sorted(fixed)}"


def test_fixture_replays_legally(fx):
    """The first games of every group replay on today's core: every recorded action legal, every game ending (or
    truncated) at its last action with the recorded result and escaped count."""
    rates = hf.agreement(None, fx, max_games=REPLAY_GAMES)
    assert rates["all"]["games"] == STATED_GROUPS * REPLAY_GAMES
    assert rates["all"]["total"] == 0  # nothing was asked


def test_replay_reports_an_illegal_recording(fx):
    gi = 0
    game = int(np.flatnonzero(fx["group"] == gi)[2])
    at = int(fx["offsets"][game]) + 1
    core = Core(hf.group_config(fx, gi))
    st = core.init(fx["seed"][[game]])
    core.step(st, hf.game_actions(fx, game)[:1])
    illegal = int(np.flatnonzero(~core.legal_mask(st)[0])[0])
    changed = {**fx, "actions": fx["actions"].copy()}
    changed["actions"][at] = illegal
    with pytest.raises(hf.FixtureReplayError, match=rf"seed {int(fx['seed'][game])}\), step 1"):
        hf.agreement(None, changed, groups=[hf.group_names(fx)[gi]], max_games=3)


def test_agreement_counts_disagreements(fx):
    """A decide that always plays the first legal action agrees only sometimes; the counts add up."""
    def first_legal(core, state, masks, games):
        return masks.argmax(axis=1).astype(np.int64)

    rates = hf.agreement(first_legal, fx, groups=["tiny"], max_games=3)
    r = rates["tiny"]
    games = np.flatnonzero(fx["group"] == 0)[:3]
    assert r["total"] == rates["all"]["total"] == int((fx["offsets"][games + 1] - fx["offsets"][games]).sum())
    assert 0 < r["agree"] < r["total"] and r["illegal"] == 0
    assert sum(a for a, _ in r["by_kind"].values()) == r["agree"]
    assert sum(t for _, t in r["by_kind"].values()) == r["total"]
    assert r["examples"] and r["rate"] == r["agree"] / r["total"]


# ---------------------------------------------------------------------------------------------- the agent
def test_agent_agrees_with_the_recording(fx):
    decide = hf.decide_with(agent_factory)
    rates = hf.agreement(decide, fx, max_games=AGREE_GAMES)
    assert set(rates) == {*hf.group_names(fx), "all"}
    assert rates["all"]["total"] > 0
    assert rates["all"]["illegal"] == 0
    assert rates["all"]["agree"] == rates["all"]["total"], \
        hf.format_agreement(rates) + f"\nfirst disagreements: {rates['all']['examples']}"
