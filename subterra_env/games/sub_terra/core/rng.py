"""The engine pieces both games' cores share (Sub Terra's ``core`` and In the Cave's ``in_the_cave/core`` import
them from here, so each is written once): counter-based randomness and the cell hash.

Randomness: every game owns a key (``seed_keys``: from its seed alone) and a counter, so a game draws the same
numbers alone or inside any batch. Values come from splitmix64 of (key + counter * golden ratio), fully
vectorised (``stream``) or one at a time in compiled code (``draw_one``).

The cell hash (``cell_hash``): where a board's cell index starts probing for grid cell (x, y)."""

from __future__ import annotations

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_SEED_SALT = np.uint64(0x5EED)  # added to seed * golden ratio before mixing: numpy's seed_keys and compiled seed_key


def mix(z: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser; uint64 arithmetic wraps, as intended."""
    z = np.asarray(z, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def seed_keys(seeds: np.ndarray) -> np.ndarray:
    """Per-game keys from integer seeds (any int64 values); ``seed_key`` is the same for one seed in compiled
    code (the setup's, where these ten small numpy operations took 15-50 us of each autoreset at large batches)."""
    s = np.asarray(seeds, dtype=np.int64).astype(np.uint64)
    with np.errstate(over="ignore"):
        return mix(s * _GOLDEN + _SEED_SALT)


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


# ---------------------------------------------------------------------------------------------- compiled draws
from .jit import jit  # noqa: E402

_GOLDEN_U = np.uint64(0x9E3779B97F4A7C15)
_M1_U = np.uint64(0xBF58476D1CE4E5B9)
_M2_U = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


@jit
def mix_one(z):
    """splitmix64 finaliser of one uint64 (the same numbers as ``mix``)."""
    z = (z ^ (z >> _S30)) * _M1_U
    z = (z ^ (z >> _S27)) * _M2_U
    return z ^ (z >> _S31)


@jit
def seed_key(seed):
    """A game's key from its seed (an int64, wrapped to uint64 as numpy's ``astype`` does): ``seed_keys``."""
    return mix_one(np.uint64(seed) * _GOLDEN_U + _SEED_SALT)


@jit
def draw_one(key, ctr):
    """The draw at counter ``ctr`` of a game's stream (the same number as ``stream(key, ctr, 1)``)."""
    return mix_one(key + ctr * _GOLDEN_U)


@jit
def cell_hash(x, y, slots):
    """The first slot of a cell index of ``slots`` slots (a power of two) to probe for grid cell (x, y): both
    games index their tiles by cell in an open-addressing table (linear probing from here; tiles are never
    removed). Small primes spread neighbouring cells over the table."""
    return (x * 73 + y * 151) & (slots - 1)
