"""What both soaks (``benchmarks.soak``, ``benchmarks.soak_itc``) share: the per-game stream of random legal actions
and of the coin that picks a random decision, keyed by seed and decision number (batch-independent and replayable),
and the process's memory readings. Its own module so that either soak imports it without importing the other."""

from __future__ import annotations

import resource
from pathlib import Path

import numpy as np

from subterra_env.games.sub_terra.core import rng

_ACTION_SALT = np.uint64(0xA11C7)  # separates the action stream from the game's own dice stream
_COIN_SALT = np.uint64(0xC017)  # separates the heuristic-or-random coin from the random action's draw


def action_keys(seeds: np.ndarray) -> np.ndarray:
    """Per-game keys of the action stream (independent of the dice, which use the game's own key)."""
    return rng.mix(rng.seed_keys(seeds) ^ _ACTION_SALT)


def choose_actions(keys: np.ndarray, steps: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A uniform legal action per game from draw number `steps` of its stream: batch-independent and replayable."""
    draw = rng.stream(keys, steps.astype(np.uint64), 1)[:, 0]
    count = np.maximum(mask.sum(1), 1).astype(np.uint64)
    k = (draw % count).astype(np.intp)
    return np.argmax(np.cumsum(mask, axis=1) > k[:, None], axis=1)


def random_decisions(keys: np.ndarray, steps: np.ndarray, epsilon: float) -> np.ndarray:
    """(B,) bool: decision number `steps` of each game is a random one (probability epsilon), from a stream of its
    own (the random action's draw stays the same as with epsilon 1, so --epsilon 1 plays the old soak's games)."""
    if epsilon >= 1:
        return np.ones(len(keys), dtype=bool)
    draw = rng.stream(rng.mix(keys ^ _COIN_SALT), steps.astype(np.uint64), 1)[:, 0]
    return (draw >> np.uint64(11)).astype(np.float64) * 2.0 ** -53 < epsilon


# ---------------------------------------------------------------------------------------------- memory
def _proc_status_mb(key: str) -> float | None:
    """A memory line of /proc/self/status (kB) in MB, or None where /proc is missing."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def peak_rss_mb() -> float:
    """Peak resident memory: VmHWM, else getrusage's ru_maxrss (kB on Linux)."""
    peak = _proc_status_mb("VmHWM")
    return peak if peak is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_mb() -> float:
    """Resident memory now: VmRSS, else the peak."""
    now = _proc_status_mb("VmRSS")
    return now if now is not None else peak_rss_mb()
