"""The team reward, shared by the AEC environment and the vector interfaces (one definition, batched).

At the end of a game every caver gets ``result[outcome]`` (defeat, bronze, silver, gold); optional shaping adds
``escape`` per caver reaching the exit, ``health`` per health point lost, ``tile`` per tile placed, ``way`` per
step of the way to the exit the team closes, ``knockout`` per caver knocked out (unconscious or devoured): each a
weight times the change of a count across a step (a potential difference), so a count that goes back pays back
what it earned. ``danger`` is a price, not a difference: paid
after every step for each caver then within a horror's reach (``horror_danger``), so a caver left there pays at
every decision until it leaves (as a potential difference it stalled learning: see ``TeamReward.danger``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .games.sub_terra.core.kernels import cavers_out_batch, exit_way_batch, horror_danger_batch
from .games.sub_terra.core.state import State

DEFAULT_RESULT = (0.0, 1 / 3, 2 / 3, 1.0)  # defeat, bronze, silver, gold
# A caver's way to the exit counts at most this many steps: also a dead caver's, everyone's before the exit is
# placed, and anyone's off the exit when the game ends. So placing the exit pays the team for how near it lies (the
# tiny and small caves are at most about 14 steps across), a caver lost costs what its way had been short of the
# cap, and a whole game pays the cap per caver out, as ``escape`` would, only sooner.
WAY_CAP = 20
# The team reward's keywords in the envs (``reward_*``): each interface passes these through, and
# ``TeamReward.from_keywords`` reads them, so a new shaping term is named here once.
REWARD_KEYWORDS = ("reward_result", "reward_escape", "reward_health", "reward_tile", "reward_way", "reward_danger",
                   "reward_knockout")


def exit_way(st: State) -> np.ndarray:
    """(B,) int64 the team's way to the exit: each caver's steps to it through connected sides, at most
    ``WAY_CAP`` (the cap also when dead, out of sight under water, before the exit is placed, or off the exit once
    the game is over)."""
    out = np.empty(st.batch_size, dtype=np.int64)
    exit_way_batch(st.packed, WAY_CAP, out)
    return out


def horror_danger(st: State, params: np.ndarray) -> np.ndarray:
    """(B,) int64 cavers within a horror's reach in running games: a caver the horrors may choose (R-HOR-2) that is
    the closest victim of a horror one step away (the horror phase moves it there, R-HOR-3) or stands on a horror
    tile without a monster while fewer than the limit are out (a horror card's spawn comes there first, R-HOR-4).
    ``params``: the rules' record (``Core.params``: the horrors' range and limit)."""
    out = np.empty(st.batch_size, dtype=np.int64)
    horror_danger_batch(st.packed, params, out)
    return out


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
    way: float = 0.0
    # Paid per caver in a horror's reach after each step (negative: a price on exposure; it changes what is best, as
    # intended). As a potential difference with the lost cavers counted (tried on 2026-12-02) it stalled learning:
    # the small cave's teams stayed at a return of -0.80 (every caver lost) for 7.8M env-steps.
    danger: float = 0.0
    # Paid per caver that falls (unconscious or devoured), as a potential difference: a heal pays it back, and a
    # knocked-out caver devoured later costs nothing more here (the way reward charges a caver lost). The way reward
    # alone pays a step of the way even when it ends on a horror's tile: the knock-out's cost came rounds later.
    knockout: float = 0.0

    def __post_init__(self) -> None:
        if len(self.result) != 4:
            raise ValueError(f"reward_result={self.result!r}: four values for defeat, bronze, silver, gold")
        # The end-of-game reward by result code + 1 (index 0: the game runs on): one lookup per step.
        object.__setattr__(self, "_by_result", np.array((0.0,) + tuple(self.result), dtype=np.float64))
        object.__setattr__(self, "by_result32", self._by_result.astype(np.float32))  # the episode layer's kernel
        object.__setattr__(self, "by_result64", self._by_result)  # what the one-call kernel reads (core/advance.py)

    @classmethod
    def from_keywords(cls, reward_result: tuple[float, ...] = DEFAULT_RESULT, reward_escape: float = 0.0,
                      reward_health: float = 0.0, reward_tile: float = 0.0, reward_way: float = 0.0,
                      reward_danger: float = 0.0, reward_knockout: float = 0.0) -> TeamReward:
        """The team reward of the envs' ``reward_*`` keywords (``REWARD_KEYWORDS``)."""
        return cls(tuple(float(r) for r in reward_result), reward_escape, reward_health, reward_tile, reward_way,
                   reward_danger, reward_knockout)

    @property
    def shaped(self) -> bool:
        return bool(self.escape or self.health or self.tile or self.way or self.danger or self.knockout)

    def snapshot(self, st: State, params: np.ndarray | None = None) -> np.ndarray | None:
        """(B, 6) what shaping compares across a step: health total, tiles placed, cavers escaped, the team's way
        to the exit, cavers in danger, cavers down (None when no shaping is set: then nothing needs comparing,
        which keeps one-game stepping cheap; the way and the danger only when their weights are set, as they search
        the cave; the danger needs ``params``, the rules' record)."""
        if not self.shaped:
            return None
        zeros = np.zeros(st.batch_size, dtype=np.int64)
        way = exit_way(st) if self.way else zeros
        if self.danger and params is None:
            raise ValueError("TeamReward(danger=...) needs the rules' params (Core.params) to count horror danger")
        danger = horror_danger(st, params) if self.danger else zeros
        # Down: no health left, or devoured (the seats a game lacks count alike in every state, so never differ).
        down = ((st.c_hp <= 0) | st.c_dead).sum(1, dtype=np.int64)
        return np.stack([st.c_hp.sum(1, dtype=np.int64), st.n_tiles.astype(np.int64), escaped(st), way, danger,
                         down], axis=1)

    def __call__(self, before: np.ndarray | None, st: State, params: np.ndarray | None = None) -> np.ndarray:
        """(B,) float32 team reward of the step that led from `before` (a snapshot) to st (``params`` as for
        ``snapshot``)."""
        if before is None:
            return self.by_result32[st.result + 1]
        r = self._by_result[st.result + 1]
        d = self.snapshot(st, params) - before
        r = r - self.health * d[:, 0] + self.tile * d[:, 1] + self.escape * d[:, 2] - self.way * d[:, 3] \
            + self.danger * (d[:, 4] + before[:, 4]) + self.knockout * d[:, 5]  # danger: the count after the step
        return r.astype(np.float32)
