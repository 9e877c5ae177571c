"""In the Cave as a ``Game`` (``subterra_env.game``): a thin adapter over ``ItcCore`` and its packed batch (a
(B, RECORD_SIZE) int32 array), so that its envs run on the shared episode layer (``subterra_env.episode``).

The rules, the end of the game (R-ITC-END-2), its own truncation (R-ITC-END-4, ``max_rounds``), the per-seat reward
and the episode bookkeeping are compiled (``core/game.py``: ``advance_batch``, one call per step); this class
routes the episode layer's calls to them and adds the info and the observations.

Reward, per seat: when the game ends, once, the seat's final score minus the mean of the others' (eliminated teams
score 0), 0 when it is truncated; plus ``reward_vp`` per VP gained as it happens (shaping, default 0). Float64,
as the AEC env has always reported it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from subterra_env.game import EpisodeBook, restart_apart
from .config import ItcConfig
from .core import layout as L
from .core.actions import ACTION_NAMES, NUM_ACTIONS
from .core.game import ItcCore, seat_rewards
from .observe import GRID_CHANNELS, VECTOR_SIZE, vp

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

    def reset(self, G: np.ndarray, slots: np.ndarray, seeds: np.ndarray, mask_out: np.ndarray | None = None) -> None:
        new = self.core.init(seeds)
        G[slots] = new
        if mask_out is not None:
            mask_out[slots] = self.core.legal_mask(new)

    def restart(self, G: np.ndarray, slots: np.ndarray, seeds: np.ndarray, mask_out: np.ndarray,
                book: EpisodeBook) -> None:
        restart_apart(self, G, slots, seeds, mask_out, book)

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
        """One compiled call (``ItcCore.advance``): the actions, each seat's reward, the bookkeeping, the masks."""
        b = book.num_games
        if slots is None:
            stepped, acts = book.all_slots, actions
        else:  # only these slots step: the others wait, reward 0
            stepped, acts = np.zeros(b, dtype=bool), np.zeros(b, dtype=np.int64)
            stepped[slots], acts[slots] = True, actions
        out = mask_out if mask_out is not None else np.empty((b, NUM_ACTIONS), dtype=bool)
        return self.core.advance(G, acts, stepped, self.reward_vp, book.max_cycles, book, out)

    # ------------------------------------------------------------------ flags, rewards, info
    def actor(self, G: np.ndarray) -> np.ndarray:
        return G[:, L.ACTOR]

    def flags(self, G: np.ndarray, max_cycles: int, terminated: np.ndarray, truncated: np.ndarray,
              over: np.ndarray) -> int:
        return self.core.flags(G, max_cycles, terminated, truncated, over)

    def reward_snapshot(self, G: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each game's OVER flag and each seat's VP so far."""
        return G[:, L.OVER].copy(), np.array([[vp(g, s) for s in range(self.num_seats)] for g in G],
                                             dtype=np.int64).reshape(len(G), self.num_seats)

    def rewards(self, before: tuple[np.ndarray, np.ndarray], G: np.ndarray) -> np.ndarray:
        """(B, S) float64 (see the module docstring) for the step from ``before`` to ``G``: the compiled formula
        of ``advance`` (``core.game.seat_rewards``), for the games that were running before it."""
        over_before, vp_before = before
        out = np.zeros((len(G), self.num_seats))
        for b in np.flatnonzero(over_before == L.RUNNING):
            seat_rewards(G[b], self.num_seats, self.reward_vp, vp_before[b], out[b])
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
                "scores": g[L.SCORE:L.SCORE + n].tolist(), "winners": g[L.WIN:L.WIN + n].tolist()}

    def outcome(self, G: np.ndarray, slot: int) -> str:
        return RESULTS[int(G[slot, L.OVER])]

    # ------------------------------------------------------------------ slots and observations
    def take(self, G: np.ndarray, slots: np.ndarray) -> np.ndarray:
        return G[slots]

    def put(self, G: np.ndarray, slots: np.ndarray, sub: np.ndarray) -> None:
        G[slots] = sub

    def observe(self, G: np.ndarray, seats: np.ndarray, radius: int) -> dict[str, np.ndarray]:
        """The grid centred on each seat's pawn and its vector (``subterra_env.games.in_the_cave.observe``), in one
        compiled call (``ItcCore.observe``)."""
        b, w = len(G), 2 * radius + 1
        out = {"observation": np.empty((b, GRID_CHANNELS, w, w), dtype=np.int8),
               "vector": np.empty((b, VECTOR_SIZE), dtype=np.int16)}
        self.core.observe(G, seats, radius, out["observation"], out["vector"])
        return out

    def __repr__(self) -> str:
        return f"InTheCave({self.name}_v{self.version}, {self.num_seats} teams)"
