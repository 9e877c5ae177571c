"""Counter-based randomness: every game owns a key and a counter, so a game draws the same numbers alone or
inside any batch. Values come from splitmix64 of (key + counter * golden ratio), fully vectorised."""

from __future__ import annotations

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def mix(z: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser; uint64 arithmetic wraps, as intended."""
    z = np.asarray(z, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def seed_keys(seeds: np.ndarray) -> np.ndarray:
    """Per-game keys from integer seeds (any int64 values)."""
    s = np.asarray(seeds, dtype=np.int64).astype(np.uint64)
    with np.errstate(over="ignore"):
        return mix(s * _GOLDEN + np.uint64(0x5EED))


def stream(keys: np.ndarray, start: np.ndarray | int, n: int) -> np.ndarray:
    """(len(keys), n) uint64 draws at counters start..start+n-1 of each key."""
    ctr = np.asarray(start, dtype=np.uint64).reshape(-1, 1) + np.arange(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return mix(keys.reshape(-1, 1) + ctr * _GOLDEN)


def permutation_keys(keys: np.ndarray, salt: int, n: int) -> np.ndarray:
    """(len(keys), n) sort keys; argsort along axis 1 gives a per-game uniform permutation."""
    with np.errstate(over="ignore"):
        salted = mix(keys ^ np.uint64(salt))
    return stream(salted, 0, n)
