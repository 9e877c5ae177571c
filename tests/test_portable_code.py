"""The portable machine code shipped in the package (subterra_env/games/sub_terra/core/portable.py, python -m subterra_env.prebuild):
current with the sources, and a fresh install plays from it without compiling, the same games as this machine's
own code."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

from agents import prebuild
from subterra_env.games.sub_terra.core import portable

# A fresh process: the AEC env and the heuristic team play 40 decisions of one seeded game; prints what compiled,
# how many overloads came from the shipped code, and the actions and rewards (the game's trajectory).
PLAY = r"""
import json
import subterra_env
from agents.heuristic import HeuristicAgent
from subterra_env.games.sub_terra.core.jit import compile_stats, portable_loads
env = subterra_env.env()
env.reset(seed=11)
bot = HeuristicAgent(env)
actions, rewards = [], []
for _ in range(40):
    obs, reward, over, cut, _ = env.last()
    if over or cut:
        break
    a = int(bot.act(obs["observation"], obs["action_mask"].astype(bool)))
    actions.append(a)
    rewards.append(float(reward))
    env.step(a)
print(json.dumps({"compiled": {k: n for k, (n, _) in compile_stats().items()}, "portable_loads": portable_loads(),
                  "actions": actions, "rewards": rewards, "state": env.unwrapped.state().tolist()}))
"""


def play_fresh(tmp_path, portable_on: bool) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "SUBTERRA_PORTABLE": "1" if portable_on else "0",
           "SUBTERRA_QUIET": "1"}
    done = subprocess.run([sys.executable, "-c", PLAY], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_shipped_portable_code_matches_the_sources():
    folders = prebuild.shipped_folders()
    assert len(folders) == 3  # the rules core, the heuristic team, the search agent
    stale = prebuild.prebuild.check(folders)
    assert stale == [], ("the shipped portable code is stale; rebuild it with `python -m agents.prebuild` "
                         "(make prebuilt): " + "; ".join(stale))


def shipped_for_this_interpreter() -> bool:
    """The shipped code was built on x86-64 Linux for this Python version (numba names its files .pyXY.nbi)."""
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}"
    return (platform.system() == "Linux" and platform.machine() == "x86_64"
            and any(folder.glob(f"*.{tag}.nbi") for folder in prebuild.shipped_folders()))


@pytest.mark.skipif(not shipped_for_this_interpreter(),
                    reason="the shipped portable code serves x86-64 Linux and the Python it was built with")
def test_a_fresh_install_plays_from_the_shipped_code_without_compiling_the_same_game(tmp_path):
    fresh = play_fresh(tmp_path, portable_on=True)
    assert fresh["compiled"] == {}  # nothing compiled: the rules core and the heuristic loaded from prebuilt/
    assert fresh["portable_loads"] >= 5
    assert len(fresh["actions"]) == 40
    # this machine's own code (the warm cache the test session uses) plays the same game
    here = subprocess.run([sys.executable, "-c", PLAY], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "SUBTERRA_PORTABLE": "0", "SUBTERRA_QUIET": "1"})
    assert here.returncode == 0, here.stderr[-3000:]
    mine = json.loads(here.stdout.strip().splitlines()[-1])
    assert mine["portable_loads"] == 0
    for key in ("actions", "rewards", "state"):
        assert fresh[key] == mine[key]


@pytest.mark.parametrize("value, on", [("1", True), ("", True), ("0", False), ("false", False), ("No", False)])
def test_subterra_portable_turns_the_shipped_tier_off(monkeypatch, value, on):
    monkeypatch.setenv("SUBTERRA_PORTABLE", value)
    assert portable.portable_enabled() is on
    portable.use_portable(False)
    try:
        assert portable.portable_enabled() is False
    finally:
        portable.use_portable(True)
