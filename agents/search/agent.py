"""SearchAgent: public-information Monte Carlo search over the compiled heuristic team.

At each decision with more than one legal action, every legal action is tried in the same ``worlds`` sampled
futures (``worlds.sample_world``: the unseen stack and deck redrawn as every player knows them, new dice), and the
heuristic team plays each (action, world) pair to the end of the game. The heuristic's own choice stands unless
another action gets more cavers out over the same worlds by more than ``margin`` and by ``z`` standard errors of
the paired difference (then the best such action is taken). All rollouts of a call run as one batch through the
rules core and the compiled heuristic (threads for large batches).

Why the test: on the full game the actions of one decision differ by a few hundredths of a caver out on average,
while one rollout's outcome varies by about 0.7 caver (the dice are drawn in order, so a different action meets
different dice and the worlds decorrelate); an argmax over a few worlds is mostly noise and played far worse than
the heuristic (0.00 against 1.02 cavers out over 40 full games with 8 worlds). The test keeps the search from
leaving the heuristic on noise.

``clairvoyant=True`` is a diagnostic, never a teammate: it searches the true future (the real stack and deck order
and the game's own dice), so each action's outcome under the heuristic team is known exactly. It measures a ceiling:
how well a player who knew the future (and then played on as the heuristic) does.

Reproducible: the worlds of a decision depend on the agent's ``seed``, the game's public decision count and the
world index, never on hidden information (tests: permuting the real game's hidden orders or its dice stream does not
change a decision).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from subterra_env.core.kernels import cavers_out_batch
from subterra_env.core.rng import mix
from subterra_env.core.rules import Core
from subterra_env.core.state import State

from ..base import GameBoundAgent, GameView, game_view
from ..heuristic import HeuristicAgent
from .worlds import sample_worlds

DEFAULT_WORLDS = 8  # worlds per decision (every legal action is rolled out in each): about 80 ms a decision on one core
DEFAULT_Z = 2.0  # standard errors of the paired difference an action needs to replace the heuristic's
MAX_ROUND = 200  # rollouts stop here, as training/evaluate.py truncates games (max_cycles)


class SearchAgent(GameBoundAgent):
    """Monte Carlo search over the compiled heuristic (see the module docstring), bound to its games as the
    heuristic is. ``worlds``: sampled futures per decision (the cost is about worlds x legal actions rollouts);
    ``margin`` and ``z``: how many more cavers out on average, and how many standard errors of that paired
    difference, an action needs to replace the heuristic's choice; ``threads``: None uses numba's pool for large rollout batches, 1 never."""


    def __init__(self, source: Any, slot: int | None = None, seed: int = 0, worlds: int = DEFAULT_WORLDS,
                 margin: float = 0.0, z: float = DEFAULT_Z, clairvoyant: bool = False, threads: int | None = None,
                 max_round: int = MAX_ROUND, **weights: float):
        for name, value, low in (("worlds", worlds, 1), ("max_round", max_round, 1)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise ValueError(f"{name}={value!r} is out of range: a whole number, at least {low}")
        for name, value in (("margin", margin), ("z", z)):
            if not np.isfinite(value) or value < 0:
                raise ValueError(f"{name}={value!r} is out of range: a finite number, at least 0")
        self.view: GameView = game_view(source, slot)
        self.seed = int(seed)
        self.worlds = 1 if clairvoyant else int(worlds)  # the true future is one world
        self.margin = float(margin)
        self.z = float(z)
        self.clairvoyant = bool(clairvoyant)
        self.threads = threads
        self.max_round = int(max_round)
        self.rollouts = 0  # rollouts played so far (for budgets and reports)
        self.heuristic = HeuristicAgent(source, slot, threads=threads, **weights)

    # ------------------------------------------------------------------ search
    def decide(self, core: Core, st: State, games: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The searched actions for games ``games`` of ``st`` (rows of ``masks``: their legal masks)."""
        games = np.asarray(games, dtype=np.int64)
        masks = np.ascontiguousarray(masks, dtype=np.bool_)
        out = self.heuristic.decide(core, st, games, masks)
        rows = [i for i in range(len(games)) if masks[i].sum() > 1]
        if not rows:
            return out
        n = self.worlds
        blocks, actions, spans = [], [], []
        for i in rows:
            legal = np.flatnonzero(masks[i])
            base = np.repeat(st.packed[games[i]:games[i] + 1], n)
            if not self.clairvoyant:
                sample_worlds(base, core.params, self._world_keys(st, int(games[i]), n))
            blocks.append(np.tile(base, len(legal)))  # candidate k plays worlds [k * n, (k + 1) * n)
            actions.append(np.repeat(legal, n))
            spans.append(legal)
        packed = np.concatenate(blocks)
        trial = State.from_packed(packed, st._sizes)
        core.step(trial, np.concatenate(actions).astype(np.int64), check=False)  # legal by construction
        self.heuristic.play(core, trial, max_round=self.max_round)
        self.rollouts += len(packed)
        value = np.empty(len(packed), dtype=np.int64)
        cavers_out_batch(packed, value)
        at = 0
        for i, legal in zip(rows, spans):
            v = value[at:at + len(legal) * n].reshape(len(legal), n).astype(np.float64)
            at += len(legal) * n
            out[i] = self._choose(legal, v, int(out[i]))
        return out

    def _choose(self, legal: np.ndarray, v: np.ndarray, heuristic: int) -> int:
        """The heuristic's action, unless another beats it over the same worlds (v: candidates x worlds) by more
        than margin and z standard errors of the paired difference; clairvoyant: by any amount."""
        h = int(np.flatnonzero(legal == heuristic)[0])
        diff = v - v[h]
        gain = diff.mean(axis=1)
        if self.clairvoyant:
            ok = gain > 0
        else:
            se = diff.std(axis=1, ddof=1) / np.sqrt(v.shape[1]) if v.shape[1] > 1 else np.full(len(legal), np.inf)
            ok = (gain > self.margin) & (gain > self.z * se)
        if not ok.any():
            return heuristic
        return int(legal[np.flatnonzero(ok)[np.argmax(gain[ok])]])

    def _world_keys(self, st: State, g: int, n: int) -> np.ndarray:
        """Keys of the n worlds of game g's next decision: the agent's seed, the game's public decision count and
        the world index (nothing hidden)."""
        with np.errstate(over="ignore"):
            base = mix(np.uint64(self.seed & 0xFFFFFFFFFFFFFFFF) * np.uint64(0x9E3779B97F4A7C15)
                       + np.uint64(int(st.steps[g])))
            return mix(base + np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0xD1B54A32D192ED03))
