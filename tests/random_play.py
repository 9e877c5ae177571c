"""Random legal play for the tests: one definition instead of a copy of the loop in every file.

``random_legal(mask, rng)`` draws exactly as the copies it replaced did (``rng.choice`` over the legal ids, in
order), so tests whose literal outcomes depend on the draws keep them; ``random_legal_rows(masks, rng)`` draws a
whole batch at once. ``play_random_aec(env, rng)`` plays an AEC env (Sub Terra's or In the Cave's) to its end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def random_legal(mask: np.ndarray, rng: np.random.Generator | Sequence[np.random.Generator],
                 weights: np.ndarray | None = None, prefer_from: int | None = None, prefer_p: float = 0.0,
                 empty: int = 0) -> Any:
    """A uniformly random legal action: an int for one mask (1-D), an int64 array for a batch of masks (2-D, one
    draw per row; ``rng`` may then be one generator per row). A row without a legal action gets ``empty``.

    ``weights`` (one per action id) draws with those relative weights instead of uniformly. ``prefer_from``: when
    a row has a legal action with id >= prefer_from (a scenario's own actions), one of those is drawn with
    probability ``prefer_p``, so that rarely offered actions are exercised (the coin is drawn only then)."""
    mask = np.asarray(mask)
    if mask.ndim == 2:
        rngs = rng if isinstance(rng, Sequence) else [rng] * len(mask)
        return np.array([random_legal(m, r, weights, prefer_from, prefer_p, empty) for m, r in zip(mask, rngs)],
                        dtype=np.int64)
    if isinstance(rng, Sequence):
        raise TypeError("one mask takes one generator")
    if not mask.any():
        return empty
    if prefer_from is not None and mask[prefer_from:].any() and rng.random() < prefer_p:
        return int(rng.choice(np.flatnonzero(mask[prefer_from:]) + prefer_from))
    legal = np.flatnonzero(mask)
    if weights is None:
        return int(rng.choice(legal))
    return int(rng.choice(legal, p=weights[legal] / weights[legal].sum()))


def random_legal_rows(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of a (B, A) mask in one vectorised draw (faster than
    ``random_legal`` for wide batches; other draws, so not interchangeable with it where outcomes are pinned)."""
    masks = np.asarray(masks)
    return np.argmax(rng.random(masks.shape) * masks, axis=1)


def play_random_aec(env: Any, rng: np.random.Generator,
                    on_last: Callable[[str, tuple], None] | None = None) -> dict:
    """Play an AEC env (already reset) to its end with random legal actions; returns the last ``info`` seen.
    ``on_last(agent, env.last())`` is called before each step (the finished agents' ``None`` steps included)."""
    info: dict = {}
    for agent in env.agent_iter():
        last = env.last()
        obs, _reward, terminated, truncated, info = last
        if on_last is not None:
            on_last(agent, last)
        env.step(None if terminated or truncated else random_legal(obs["action_mask"], rng))
    return info
