"""The team reward, shared by the AEC environment and the vector interfaces (one definition, batched).

At the end of a game every caver gets ``result[outcome]`` (defeat, bronze, silver, gold); optional shaping adds
``escape`` per caver reaching the exit, ``health`` per health point lost and ``tile`` per tile placed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .games.sub_terra.core.kernels import cavers_out_batch
from .games.sub_terra.core.state import State

DEFAULT_RESULT = (0.0, 1 / 3, 2 / 3, 1.0)  # defeat, bronze, silver, gold


def escaped(st: State) -> np.ndarray:
    """(B,) int64 cavers standing on the exit tile."""
    out = np.empty(st.batch_size, dtype=np.int64)
    cavers_out_batch(st.packed, out)
    return out


@dataclass(frozen=True)
class TeamReward:
    result: tuple[float, float, float, float] = DEFAULT_RESULT
    escape: float = 0.0
    health: float = 0.0
    tile: float = 0.0

    def __post_init__(self) -> None:
        if len(self.result) != 4:
            raise ValueError(f"reward_result={self.result!r}: four values for defeat, bronze, silver, gold")
        # The end-of-game reward by result code + 1 (index 0: the game runs on): one lookup per step.
        object.__setattr__(self, "_by_result", np.array((0.0,) + tuple(self.result), dtype=np.float64))
        object.__setattr__(self, "by_result32", self._by_result.astype(np.float32))  # the episode layer's kernel
        object.__setattr__(self, "by_result64", self._by_result)  # what the one-call kernel reads (core/advance.py)

    @property
    def shaped(self) -> bool:
        return bool(self.escape or self.health or self.tile)

    def snapshot(self, st: State) -> np.ndarray | None:
        """(B, 3) what shaping compares across a step: health total, tiles placed, cavers escaped (None when no
        shaping is set: then nothing needs comparing, which keeps one-game stepping cheap)."""
        if not self.shaped:
            return None
        return np.stack([st.c_hp.sum(1, dtype=np.int64), st.n_tiles.astype(np.int64), escaped(st)], axis=1)

    def __call__(self, before: np.ndarray | None, st: State) -> np.ndarray:
        """(B,) float32 team reward of the step that led from `before` (a snapshot) to st."""
        if before is None:
            return self.by_result32[st.result + 1]
        r = self._by_result[st.result + 1]
        delta = self.snapshot(st) - before
        r = r - self.health * delta[:, 0] + self.tile * delta[:, 1] + self.escape * delta[:, 2]
        return r.astype(np.float32)
