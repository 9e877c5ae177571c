"""SearchAgent: public-information Monte Carlo search over the compiled heuristic team.

At each decision with more than one legal action, every legal action is tried in the same ``worlds`` sampled
futures (``worlds.sample_world``: the unseen stack and deck redrawn as every player knows them, new dice), and the
heuristic team plays each (action, world) pair for ``horizon`` rounds, then the value estimate takes over (below), or
to the end of the game. The actions that might beat the heuristic's own choice (within ``keep_z`` standard errors of
it) and that choice may then be played in ``more_worlds`` further futures. The heuristic's choice stands unless
another action gets more cavers out over the same worlds by more than ``margin`` and by ``z`` standard errors of the
paired difference (then the best such action is taken). All rollouts
of a stage run as one batch through the rules core and the compiled heuristic (threads for large batches).

Why pairs, common dice and the test: on the full game the actions of one decision mostly differ by a few
hundredths of a caver out, while one rollout's outcome varies by about 0.7 caver. The rollouts use common random
numbers (``rollout_core``): each turn and hazard phase draws its dice by round and seat, so rollouts of one world
that began with different actions meet the same later dice (with the game's sequential dice one extra roll shifts
every later die and the worlds decorrelate). An argmax over a few worlds is still mostly noise (0.00 against 1.02
cavers out over 40 full games, sequential dice, 8 worlds), so an action must beat the heuristic's choice by a
paired test. How the defaults were chosen: ``training/search_headroom.py`` values every action of sampled full-game
decisions in 300 worlds (the truth) and replays the search's rule on other worlds; docs/training.md ("Search").

**Horizon** (the default on the base game): rollouts stop after ``horizon`` rounds (counted from the decision's
round, its end included) and are valued by ``value.ValueNet``, the heuristic team's expected cavers out from there,
fitted and calibrated on seeded heuristic games (``training/fit_value.py``). A short rollout costs a fraction of
a whole game and its paired difference varies far less (the later dice and cards are averaged inside the
estimate), so many more futures fit the budget. On 2,152 sampled full-game decisions whose every action had been
valued in 200 futures to the end (``training/search_headroom.py``), 32 futures to a 4-round horizon gained 6.5
thousandths of a caver per decision at 89 ms (z = 1), the two-stage search to the end 0.7 at 106 ms
(docs/training.md, "Search"). ``horizon=0`` plays to the end, as the scenarios do (the
estimate knows only the base game) and the ceiling does (it knows the future).

``clairvoyant=True`` is a diagnostic, never a teammate: it searches the true future (the real stack and deck order
and the game's own dice), so each action's outcome under the heuristic team is known exactly. It measures a ceiling:
how well a player who knew the future (and then played on as the heuristic) does.

Reproducible: the worlds of a decision depend on the agent's ``seed``, the game's public decision count and the
world index, never on hidden information (tests: permuting the real game's hidden orders or its dice stream does not
change a decision).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from subterra_env.games.sub_terra.core.catalogue import SC_BASE
from subterra_env.games.sub_terra.core.kernels import cavers_out_batch
from subterra_env.games.sub_terra.core.rng import mix
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import State, put_rows, take_rows

from ..base import GameBoundAgent, GameView, game_view
from ..heuristic import HeuristicAgent
from .value import ValueNet
from .worlds import sample_worlds

DEFAULT_HORIZON = 4  # rounds a rollout plays before the value estimate takes over (base game)
# The defaults by kind of rollout: (worlds every legal action is rolled out in, further worlds for the contenders and
# the heuristic's action, standard errors of the paired difference an action needs to replace the heuristic's).
# About 90 ms a decision on the full game either way.
HORIZON_DEFAULTS = (32, 0, 1.0)
TO_THE_END_DEFAULTS = (4, 12, 1.5)
DEFAULT_WORLDS, DEFAULT_MORE_WORLDS, DEFAULT_Z = HORIZON_DEFAULTS
DEFAULT_KEEP_Z = 0.5  # a contender is within this many standard errors of beating the heuristic's action
_VALUE_NET: list[ValueNet] = []  # loaded once, on the first search with a horizon
MAX_ROUND = 200  # rollouts stop here, as training/evaluate.py truncates games (max_cycles)


def rollout_core(core: Core) -> Core:
    """A copy of ``core`` whose rules draw each turn's, exert check's and hazard phase's dice from a block of the
    counter keyed by round and seat (``effects.resync_dice``): the rollouts of one sampled world meet the same later
    dice whatever action they started with (common random numbers), so the paired differences measure the actions.
    The dice stay fair and unseen: each world's key is fresh."""
    rules = copy.copy(core)
    params = core.params.copy()
    params["crn_dice"] = 1
    params.flags.writeable = False
    rules.params = params
    rules._scratch = {}
    return rules


class SearchAgent(GameBoundAgent):
    """Monte Carlo search over the compiled heuristic (see the module docstring), bound to its games as the
    heuristic is. ``worlds``: sampled futures every legal action is played in (worlds x legal actions rollouts);
    ``more_worlds``: further futures for the contenders (within ``keep_z`` standard errors of beating the
    heuristic's choice) and the heuristic's choice, 0 for one stage; ``margin`` and ``z``: how many more cavers out
    on average, and how many standard errors of that paired difference over all their worlds, an action needs to
    replace the heuristic's choice; ``common_dice``: rollouts with common random numbers (``rollout_core``);
    ``threads``: None uses numba's pool for large rollout batches, 1 never; ``horizon``: rounds a rollout plays
    before the value estimate takes over, 0 to the end (None: ``DEFAULT_HORIZON`` on the base game, else 0).
    ``worlds``, ``more_worlds`` and ``z`` left None take ``HORIZON_DEFAULTS`` or ``TO_THE_END_DEFAULTS``."""

    def __init__(self, source: Any, slot: int | None = None, seed: int = 0, worlds: int | None = None,
                 more_worlds: int | None = None, keep_z: float = DEFAULT_KEEP_Z, margin: float = 0.0,
                 z: float | None = None, clairvoyant: bool = False, threads: int | None = None,
                 max_round: int = MAX_ROUND, common_dice: bool = True, horizon: int | None = None,
                 **weights: float):
        self.view: GameView = game_view(source, slot)
        base_game = int(self.view.core.params["scenario"][0]) == SC_BASE
        if horizon is None:
            horizon = DEFAULT_HORIZON if base_game and not clairvoyant else 0
        if isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer)) or horizon < 0:
            raise ValueError(f"horizon={horizon!r} is out of range: a whole number of rounds, at least 0 "
                             "(0: to the end)")
        if horizon and not base_game:
            raise ValueError(f"horizon={horizon}: the value estimate knows only the base game; use horizon=0 here")
        defaults = HORIZON_DEFAULTS if horizon else TO_THE_END_DEFAULTS
        worlds = defaults[0] if worlds is None else worlds
        more_worlds = defaults[1] if more_worlds is None else more_worlds
        z = defaults[2] if z is None else z
        for name, value, low in (("worlds", worlds, 1), ("more_worlds", more_worlds, 0), ("max_round", max_round, 1)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise ValueError(f"{name}={value!r} is out of range: a whole number, at least {low}")
        for name, value in (("margin", margin), ("z", z), ("keep_z", keep_z)):
            if not np.isfinite(value) or value < 0:
                raise ValueError(f"{name}={value!r} is out of range: a finite number, at least 0")
        self.seed = int(seed)
        self.worlds = 1 if clairvoyant else int(worlds)  # the true future is one world
        self.more_worlds = 0 if clairvoyant else int(more_worlds)
        self.keep_z = float(keep_z)
        self.margin = float(margin)
        self.z = float(z)
        self.clairvoyant = bool(clairvoyant)
        self.threads = threads
        self.max_round = int(max_round)
        self.common_dice = bool(common_dice) and not clairvoyant  # the ceiling plays the game's own dice
        self.horizon = 0 if clairvoyant else int(horizon)
        if self.horizon and not _VALUE_NET:
            _VALUE_NET.append(ValueNet())
        self.rollouts = 0  # rollouts played so far (for budgets and reports)
        # After each decide(): per row, every searched action's mean gain in cavers out over the heuristic's choice
        # in the same worlds (NaN: not searched, e.g. a row with one legal action). Distillation learns from it.
        self.last_gains = np.empty((0, 0))
        self.heuristic = HeuristicAgent(source, slot, threads=threads, **weights)

    # ------------------------------------------------------------------ search
    def decide(self, core: Core, st: State, games: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The searched actions for games ``games`` of ``st`` (rows of ``masks``: their legal masks)."""
        games = np.asarray(games, dtype=np.int64)
        masks = np.ascontiguousarray(masks, dtype=np.bool_)
        out = self.heuristic.decide(core, st, games, masks)
        rows = [i for i in range(len(games)) if masks[i].sum() > 1]
        self.last_gains = np.full(masks.shape, np.nan)
        if not rows:
            return out
        rules = rollout_core(core) if self.common_dice else core
        cands = [np.flatnonzero(masks[i]) for i in rows]
        values = self._rollouts(core, rules, st, games[rows], cands, 0, self.worlds)
        if self.more_worlds and not self.clairvoyant:  # stage 2: the contenders and the heuristic's action only
            self._record_gains(rows, cands, values, out)  # the dropped actions keep their first-stage gains
            again = []
            for j, i in enumerate(rows):
                keep = self._contenders(values[j], int(np.flatnonzero(cands[j] == out[i])[0]))
                if len(keep) > 1:
                    again.append((j, keep))
            if again:
                more = self._rollouts(core, rules, st, games[[rows[j] for j, _ in again]],
                                      [cands[j][keep] for j, keep in again], self.worlds, self.more_worlds)
                for (j, keep), extra in zip(again, more):
                    cands[j] = cands[j][keep]
                    values[j] = np.concatenate([values[j][keep], extra], axis=1)
        self._record_gains(rows, cands, values, out)
        for j, i in enumerate(rows):
            out[i] = self._choose(cands[j], values[j], int(out[i]))
        return out

    def _record_gains(self, rows: list[int], cands: list[np.ndarray], values: list[np.ndarray],
                      heuristic: np.ndarray) -> None:
        for j, i in enumerate(rows):
            h = np.flatnonzero(cands[j] == heuristic[i])[0]
            self.last_gains[i, cands[j]] = (values[j] - values[j][h]).mean(axis=1)

    def _rollouts(self, core: Core, rules: Core, st: State, games: np.ndarray, cands: list[np.ndarray], first: int,
                  n: int) -> list[np.ndarray]:
        """Cavers out of every candidate action of each game in worlds first..first+n-1 of its decision, played out
        by the heuristic team as one batch: per game a (candidates x n) float array, the same worlds in each row."""
        blocks, actions = [], []
        for g, legal in zip(games, cands):
            base = np.repeat(st.packed[g:g + 1], n)
            if not self.clairvoyant:
                sample_worlds(base, core.params, self._world_keys(st, int(g), n, first))
            blocks.append(np.tile(base, len(legal)))  # candidate k plays worlds [k * n, (k + 1) * n)
            actions.append(np.repeat(legal, n))
        packed = np.concatenate(blocks)
        trial = State.from_packed(packed, st._sizes)
        rules.step(trial, np.concatenate(actions).astype(np.int64), check=False)  # legal by construction
        if self.horizon:
            stop = np.concatenate([np.full(len(legal) * n, int(st.round[g]) + self.horizon - 1)
                                   for g, legal in zip(games, cands)])
            for last in np.unique(stop):  # one batch per last round: play stops once the round passes it
                rows = np.flatnonzero(stop == last)
                part = State.from_packed(take_rows(packed, rows), st._sizes)
                self.heuristic.play(rules, part, max_round=min(int(last), self.max_round))
                put_rows(packed, rows, part.packed)
            value = _VALUE_NET[0].values(trial)
        else:
            self.heuristic.play(rules, trial, max_round=self.max_round)
            value = np.empty(len(packed), dtype=np.int64)
            cavers_out_batch(packed, value)
            value = value.astype(np.float64)
        self.rollouts += len(packed)
        out, at = [], 0
        for legal in cands:
            out.append(value[at:at + len(legal) * n].reshape(len(legal), n))
            at += len(legal) * n
        return out

    def _contenders(self, v: np.ndarray, h: int) -> np.ndarray:
        """Indices of the candidates worth more worlds: those whose paired gain over the heuristic's action h is
        within keep_z standard errors of beating it (an action that ties it in every world is dropped), then h."""
        diff = v - v[h]
        gain = diff.mean(axis=1)
        se = diff.std(axis=1, ddof=1) / np.sqrt(v.shape[1]) if v.shape[1] > 1 else np.full(len(v), np.inf)
        keep = np.flatnonzero(gain + self.keep_z * se > 0)
        return np.append(keep[keep != h], h)

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

    def _world_keys(self, st: State, g: int, n: int, first: int = 0) -> np.ndarray:
        """Keys of worlds first..first+n-1 of game g's next decision: the agent's seed, the game's public decision
        count and the world index (nothing hidden)."""
        with np.errstate(over="ignore"):
            base = mix(np.uint64(self.seed & 0xFFFFFFFFFFFFFFFF) * np.uint64(0x9E3779B97F4A7C15)
                       + np.uint64(int(st.steps[g])))
            return mix(base + np.arange(first + 1, first + n + 1, dtype=np.uint64) * np.uint64(0xD1B54A32D192ED03))
