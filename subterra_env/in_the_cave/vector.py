"""``ItcVectorEnv``: B games of In the Cave stepped together, for self-play training.

Each game's acting team decides: ``step(actions)`` takes one action per game, for whichever team acts there
(``obs["actor"]``). A game that ends (or is truncated) is scored and replaced at once by the slot's next game;
the observation returned for it is the new game's first. Rewards are per game and seat, (B, S): the AEC env's
(own final score minus the mean of the others' when the game ends, 0 when truncated, plus ``reward_vp`` per VP
gained), so a self-play learner credits each seat's decisions with that seat's column. Observations are the AEC
env's, batched.

It runs on the shared episode layer (``subterra_env.episode.Episodes`` over ``InTheCave``), as Sub Terra's vector
envs do: one action check (``IllegalActionError`` naming the slot, the action and the legal ones; a refused batch
steps no game) and one seed stream per slot: slot i draws each of its games from the stream (seed, i), so a slot's
games are the same at any batch size and whenever the other slots' games end.

Version history:
- since the shared episode layer: per-slot seed streams (before, one stream fed every slot's next game in the
  order games ended, so a seed gave other games than now); ``reward_vp`` shaping; refused actions name the slot
  (``slot 1: action 13 ...``) instead of the game.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from subterra_env.episode import Episodes
from subterra_env.games.in_the_cave.config import ItcConfig, from_dict
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.game import InTheCave


class ItcVectorEnv:
    def __init__(self, num_envs: int, config: ItcConfig | None = None, *, obs_radius: int = 7,
                 seed: int | None = None, reward_vp: float = 0.0, **settings: Any):
        """``seed``: the slots' streams (slot i from (seed, i); None: fresh entropy), as ``reset(seed)`` sets
        them later; ``reward_vp``: shaping per VP gained."""
        if not isinstance(num_envs, int) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r}: expected a positive integer")
        self.config = from_dict(settings) if settings and config is None else (config or ItcConfig())
        game = InTheCave(self.config, reward_vp=reward_vp)
        self.episodes = Episodes(num_envs, game=game, max_cycles=self.config.max_rounds, seed=seed)
        # seeded again after the placeholder games drew from the streams, so that reset() plays each slot's first
        self.episodes.seed(seed)
        self.core = game.core
        self.num_envs, self.obs_radius, self.seats = num_envs, obs_radius, self.config.num_players
        self._started = False

    @property
    def G(self) -> np.ndarray | None:
        """The (B, RECORD_SIZE) records of the games now (None before ``reset``)."""
        return self.episodes.state if self._started else None

    def reset(self, seed: int | None = None) -> dict[str, np.ndarray]:
        if seed is not None:
            self.episodes.seed(seed)
        self.episodes.reset()
        self._started = True
        return self._observe()

    def _observe(self) -> dict[str, np.ndarray]:
        G = self.episodes.state
        actor = G[:, L.ACTOR].astype(np.int64)
        out = self.episodes.game.observe(G, np.maximum(actor, 0), self.obs_radius)
        out["action_mask"] = self.episodes.mask.astype(np.int8)
        out["actor"] = actor
        return out

    def step(self, actions: np.ndarray | list[int]) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray,
                                                              np.ndarray, dict[str, Any]]:
        """One action per game. Returns (obs, rewards (B, S) float32, terminated (B,), truncated (B,), info) where
        info["scores"] (B, S) and info["winners"] (B, S) hold the final scores of the games that just ended by the
        rules (zeros elsewhere)."""
        s = self.episodes.step(actions)
        info = {"scores": np.zeros((self.num_envs, self.seats), dtype=np.int32),
                "winners": np.zeros((self.num_envs, self.seats), dtype=np.int8)}
        scored = s.terminated[s.done]  # rows of the finished games that ended by the rules
        for key, value in info.items():
            value[s.done[scored]] = s.final_info[key][scored]
        return self._observe(), s.rewards.astype(np.float32), s.terminated, s.truncated, info
