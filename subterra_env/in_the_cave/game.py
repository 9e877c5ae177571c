"""In the Cave as a ``Game`` (``subterra_env.game``): a thin adapter over ``ItcCore`` and its packed batch (a
(B, RECORD_SIZE) int32 array), so that its envs run on the shared episode layer (``subterra_env.episode``).

The rules, the end of the game (R-ITC-END-2) and its own truncation (R-ITC-END-4, ``max_rounds``) stay in the
compiled core; this class adds the per-seat reward (R-ITC-END-3, below), the info and the observations.

Reward, per seat (``rewards``): when the game ends, once, the seat's final score minus the mean of the others'
(eliminated teams score 0), 0 when it is truncated; plus ``reward_vp`` per VP gained as it happens (shaping,
default 0). Float64, as the AEC env has always reported it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..game import EpisodeBook
from .config import ItcConfig
from .core import layout as L
from .core.actions import ACTION_NAMES, NUM_ACTIONS
from .core.game import ItcCore
from .observe import GRID_CHANNELS, VECTOR_SIZE, grid, vector, vp

RESULTS = ("running", "ended", "truncated")  # by the record's OVER flag


class InTheCave:
    """In the Cave's rules for one ``ItcConfig`` as a ``Game``; ``reward_vp``: shaping per VP gained."""

    name = "in_the_cave"
    version = 0
    shared_reward = False  # each seat scores apart
    action_names = ACTION_NAMES
    num_actions = NUM_ACTIONS

    def __init__(self, config: ItcConfig | None = None, *, reward_vp: float = 0.0):
        self.config = config or ItcConfig()
        self.core = ItcCore(self.config)
        self.num_seats = self.config.num_players
        self.reward_vp = float(reward_vp)

    # ------------------------------------------------------------------ new games
    def init(self, seeds: np.ndarray, options: dict | None = None, seats: int | None = -1) -> np.ndarray:
        """New games. In the Cave has no reset options: any given are ignored (PettingZoo's api_test passes some)."""
        return self.core.init(seeds)

    def reset(self, G: np.ndarray, slots: np.ndarray, seeds: np.ndarray) -> None:
        G[slots] = self.core.init(seeds)

    def legal_mask(self, G: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        return self.core.legal_mask(G, out)

    # ------------------------------------------------------------------ stepping
    def step(self, G: np.ndarray, actions: np.ndarray, mask_out: np.ndarray | None = None) -> np.ndarray:
        codes = self.core.step(G, actions)
        if mask_out is not None:
            self.core.legal_mask(G, mask_out)
        return codes

    def advance(self, G: np.ndarray, actions: np.ndarray, book: EpisodeBook, slots: np.ndarray | None = None,
                mask_out: np.ndarray | None = None) -> int:
        before = self.reward_snapshot(G)
        actor = np.maximum(G[:, L.ACTOR], 0)  # the seat choosing in each game
        if slots is None:
            self.core.step(G, actions)  # an ended game is left as it is
            live = ~book.over
        else:  # only these slots step: the others wait, reward 0
            sub = G[slots]
            self.core.step(sub, actions)
            G[slots] = sub
            live = np.zeros(book.num_games, dtype=bool)
            live[slots] = True
            live &= ~book.over
        rewards = self.rewards(before, G)
        rewards[~live] = 0.0
        book.rewards = rewards
        book.reward = rewards[np.arange(book.num_games), actor]
        book.ep_return[live] += rewards[live]
        book.ep_length[live] += 1
        terminated, truncated = self._ends(G, book.max_cycles)
        book.terminated[live], book.truncated[live] = terminated[live], truncated[live]
        np.logical_and(live, terminated | truncated, out=book.done)
        book.over[live] = book.done[live]
        if mask_out is not None:
            self.core.legal_mask(G, mask_out)
        return int(book.done.sum())

    # ------------------------------------------------------------------ flags, rewards, info
    def actor(self, G: np.ndarray) -> np.ndarray:
        return G[:, L.ACTOR]

    @staticmethod
    def _ends(G: np.ndarray, max_cycles: int) -> tuple[np.ndarray, np.ndarray]:
        """(terminated, truncated): ended by the rules (R-ITC-END-2); cut off by the game's own round limit
        (R-ITC-END-4) or after ``max_cycles`` rounds."""
        over = G[:, L.OVER]
        cut = (over == L.RUNNING) & (G[:, L.ROUND] > max_cycles)
        return over == L.ENDED, (over == L.TRUNCATED) | cut

    def flags(self, G: np.ndarray, max_cycles: int, terminated: np.ndarray, truncated: np.ndarray,
              over: np.ndarray) -> int:
        terminated[:], truncated[:] = self._ends(G, max_cycles)
        np.logical_or(terminated, truncated, out=over)
        return int(over.sum())

    def reward_snapshot(self, G: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Each game's OVER flag and, with shaping, each seat's VP so far."""
        return G[:, L.OVER].copy(), self._vps(G) if self.reward_vp else None

    def _vps(self, G: np.ndarray) -> np.ndarray:
        return np.array([[vp(g, s) for s in range(self.num_seats)] for g in G], dtype=np.int64).reshape(
            len(G), self.num_seats)

    def rewards(self, before: tuple[np.ndarray, np.ndarray | None], G: np.ndarray) -> np.ndarray:
        """(B, S) float64 (see the module docstring): the end reward in the step in which a game ends, plus the
        VP shaping."""
        over_before, vp_before = before
        n = self.num_seats
        out = np.zeros((len(G), n))
        if vp_before is not None:
            out += self.reward_vp * (self._vps(G) - vp_before)
        ended = (G[:, L.OVER] == L.ENDED) & (over_before == L.RUNNING)
        if ended.any():
            scores = G[ended, L.SCORE:L.SCORE + n].astype(np.float64)
            out[ended] += scores - (scores.sum(1, keepdims=True) - scores) / (n - 1)
        return out

    def info(self, G: np.ndarray) -> dict[str, np.ndarray]:
        """``round`` and ``over`` (0 running, 1 ended, 2 truncated: ``RESULTS``) (B,); the final ``scores`` (B, S)
        int32 and ``winners`` (B, S) int8 (zeros while running)."""
        n = self.num_seats
        return {"round": G[:, L.ROUND].astype(np.int64), "over": G[:, L.OVER].astype(np.int64),
                "scores": G[:, L.SCORE:L.SCORE + n].astype(np.int32),
                "winners": G[:, L.WIN:L.WIN + n].astype(np.int8)}

    def game_info(self, G: np.ndarray, slot: int) -> dict[str, Any]:
        """``round``, ``result`` ("running", "ended", "truncated"), ``scores`` and ``winners`` (lists by seat)."""
        g, n = G[slot], self.num_seats
        return {"round": int(g[L.ROUND]), "result": RESULTS[int(g[L.OVER])],
                "scores": [int(v) for v in g[L.SCORE:L.SCORE + n]], "winners": [int(v) for v in g[L.WIN:L.WIN + n]]}

    def outcome(self, G: np.ndarray, slot: int) -> str:
        return RESULTS[int(G[slot, L.OVER])]

    # ------------------------------------------------------------------ slots and observations
    def take(self, G: np.ndarray, slots: np.ndarray) -> np.ndarray:
        return G[slots]

    def put(self, G: np.ndarray, slots: np.ndarray, sub: np.ndarray) -> None:
        G[slots] = sub

    def observe(self, G: np.ndarray, seats: np.ndarray, radius: int) -> dict[str, np.ndarray]:
        """The grid centred on each seat's pawn and its vector (``subterra_env.in_the_cave.observe``)."""
        b, w = len(G), 2 * radius + 1
        out = {"observation": np.zeros((b, GRID_CHANNELS, w, w), dtype=np.int8),
               "vector": np.zeros((b, VECTOR_SIZE), dtype=np.int16)}
        for i, (g, s) in enumerate(zip(G, seats)):
            s = int(s)
            pos = int(g[L.POS + s])
            out["observation"][i] = grid(g, s, radius, int(g[L.TX + pos]), int(g[L.TY + pos]), self.num_seats)
            out["vector"][i] = vector(g, self.core.P, s, self.num_seats)
        return out

    def __repr__(self) -> str:
        return f"InTheCave({self.name}_v{self.version}, {self.num_seats} teams)"
