"""Evaluate teams of agents on seeded Sub Terra games: medal rates, cavers escaped, cross-play, partner matrix.

    python -m training.evaluate --config configs/default.yaml --team random --team heuristic \\
        --team policy:agents/shipped/team.zip --games 1000 --out runs/eval/NAME

Team specs (``--team``, or ``team=`` of :func:`evaluate_team`):

* ``random``: uniform legal play, one random stream per game (batch-invariant, see below);
* ``heuristic``: ``agents.heuristic.HeuristicAgent``;
* ``search``: ``agents.search.SearchAgent``, Monte Carlo search over the heuristic team (sampled futures of the
  hidden stack and deck, every legal action played in each); ``search:WORLDS`` with WORLDS sampled futures per
  decision (a whole number >= 1; plain ``search`` takes the agent's defaults);
* ``ceiling``: the search made clairvoyant (it plays out the true stack and deck order): a diagnostic of how much
  better perfect knowledge of the future could do, an upper bound, never a fair teammate;
* ``policy:PATH``: ``agents.policy_agent.PolicyAgent`` loading the MaskablePPO checkpoint PATH (greedy unless
  ``--stochastic``); its observations use the policy's own ``obs_radius``;
* ``rllib:PATH``: ``agents.rllib_agent.RLlibAgent`` loading the shared module of an RLlib checkpoint written by
  ``training/train_rllib.py`` (``RUN/final``, ``RUN/checkpoints/iter_N``, the run directory or the module
  directory), greedy unless ``--stochastic``, at its own ``obs_radius``; needs Ray (``pip install -e
  .[distributed]``), imported only for such an entry;
* ``torchrl:PATH``: ``agents.torchrl_agent.TorchRLAgent`` loading the ``policy.pt`` of
  ``training/train_torchrl.py`` (greedy unless ``--stochastic``), at its own ``obs_radius``;
* a comma list ``A,B,...``: seat i (seating order: seat 0 moves first in round 1) gets entry ``i mod len``, so
  ``policy:A.zip,heuristic`` alternates; a list longer than the table is an error; equal entries are one agent
  (``random,random`` plays exactly as ``random``);
* from Python, also a list of built agents (one per seat, or fewer: again ``i mod len``).

Each setting plays games with seeds ``seed .. seed + games - 1`` (``Core.init``), ``batch`` at a time, stepping
only running games. Each step, every distinct agent answers for the running games whose acting seat it holds
(``act_batch(obs, masks, games=idx)``; observations are built only for agents that read them). An action outside
the legal mask is an error of the agent: it is counted and recorded, and that game stops (counted as defeat); a
game still running after ``max_cycles`` rounds is truncated (counted as defeat, reported separately).

Determinism: the same arguments give the same report. Per-game outcomes do not depend on ``batch`` for
``random`` (its draws are keyed by the game's seed and decision number), for ``heuristic`` as far as the
heuristic keys any randomness by game, and for greedy policies up to float rounding that differs between batch
shapes in torch (an argmax can flip only on an exact near-tie). A stochastic policy or a user-built agent with
one RNG for all games (``agents.RandomAgent``) depends on the batch split.

Partner matrix (``--partner-matrix BOT ...``, or :func:`partner_matrix`): does a bot lift the team it joins, or
drag its partners down? Each bot X (one agent spec each: any team-spec entry, or a checkpoint path) plays alone
(every seat), and with each partner kind Y (``--partners``, default the bots) holding k of the seats
(``--partner-seats``, default 1 2 3; each 1 .. seats - 1) and X the rest::

    python -m training.evaluate --config configs/full.yaml --partner-matrix random heuristic \\
        policy:agents/shipped/team.zip policy:runs/seed2/final.zip --games 1000 --out runs/eval/partners

A cell (X, Y, k) plays the seeds ``seed .. seed + games - 1`` (``--partner-games``, default ``--games``), the same
for every cell (paired comparisons), spread evenly over every choice of Y's k seats: the C(seats, k) patterns
(lexicographic; the first ones get one game more when they do not divide the games) are the team specs 'X,X,Y,X',
..., each on the next block of seeds. The cell pools their games: mean escaped with its 95% interval over all of
them, medal rates. Since equal specs are one agent, the cell (X, X, k) is X alone, game for game. Checkpoints that
share a file name are labelled by enough of their path to tell them apart ('policy:seed1/final').

Outputs under ``--out``: ``results.json`` (every row with per-game seeds, results, escaped, rounds), ``results.md``,
``losses.md`` with ``--losses`` (each row's knock-outs, health lost and cavers devoured by cause, the horrors'
knock-outs by how they came: ``training/eval_losses.py``),
``medals.png``; with ``--cross-play``: ``crossplay.json``, ``crossplay.md``, ``crossplay.png``; with
``--partner-matrix``: ``partners.json`` (per setting the matrices and every cell with its seat patterns and
per-game outcomes; ``PartnerMatrix.from_dict`` reads one back), ``partners.md`` (a table of mean escaped and one of
medal rates per setting: rows bots, columns 'alone' then 'Y ×k'), ``partners.png`` (the heatmap of mean escaped).
Given ``--cross-play`` or ``--partner-matrix`` and no ``--team``, no team rows are played (else the default teams
are random and heuristic). Exit status 0; 2 for bad input; 3 when any agent played an illegal action.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import shlex
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from subterra_env.config import ConfigError, GameConfig, load, to_dict
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RESULT_NAMES
from subterra_env.episode import Episodes
from subterra_env.rewards import escaped
from training import eval_report
from training.eval_agents import (DEFAULT_OBS_RADIUS, AgentCache, EvalError, GamesHolder,  # noqa: F401
                                  SeededRandomAgent, as_entry, check_team_size, entry_label, needs_observation,
                                  observations, parse_team, seat_groups, team_label)
from training.eval_losses import LossTally, losses_markdown

STATUS = ("ended", "truncated", "illegal")


# ---------------------------------------------------------------------------------------------- results
@dataclass
class EvalResult:
    team: str
    settings: str
    num_games: int
    seed: int
    seats: list[str]
    counts: dict[str, int]
    rates: dict[str, float]
    escaped_mean: float
    escaped_sd: float
    escaped_ci95: float
    rounds_mean: float
    truncated: int
    illegal: int
    decisions: int
    seconds: float
    decisions_per_second: float
    illegal_actions: list[dict[str, Any]] = field(default_factory=list)
    losses: dict[str, Any] | None = None
    """with ``losses=True``: knock-outs, health lost and cavers devoured per game by cause (``eval_losses``)"""
    game_seeds: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)
    game_results: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8), repr=False)
    game_escaped: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8), repr=False)
    game_rounds: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32), repr=False)
    game_status: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8), repr=False)
    """per game: 0 ended by the rules, 1 truncated, 2 stopped on an illegal action (STATUS)"""

    def to_dict(self, per_game: bool = True) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if not k.startswith("game_")}
        if per_game:
            d["games"] = {"seed": self.game_seeds.tolist(),
                          "result": [RESULT_NAMES[r] for r in self.game_results],
                          "escaped": self.game_escaped.tolist(), "rounds": self.game_rounds.tolist(),
                          "status": [STATUS[s] for s in self.game_status]}
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "EvalResult":
        """The inverse of ``to_dict`` (per-game arrays empty when it was written with ``per_game=False``)."""
        kw = {k: v for k, v in d.items() if k != "games"}
        g = d.get("games")
        if g is not None:
            kw.update(game_seeds=np.array(g["seed"], np.int64),
                      game_results=np.array([RESULT_NAMES.index(r) for r in g["result"]], np.int8),
                      game_escaped=np.array(g["escaped"], np.int8), game_rounds=np.array(g["rounds"], np.int32),
                      game_status=np.array([STATUS.index(x) for x in g["status"]], np.int8))
        return cls(**kw)


def summarise(team: str, settings: str, seed: int, seats: list[str], seeds: np.ndarray, results: np.ndarray,
              esc: np.ndarray, rounds: np.ndarray, status: np.ndarray, illegal: list[dict[str, Any]],
              decisions: int, seconds: float) -> EvalResult:
    """An EvalResult from per-game outcomes: medal counts and rates, mean escaped with its 95% interval
    1.96 sd / sqrt(n)."""
    n = len(seeds)
    counts = {m: int((results == RESULT_NAMES.index(m)).sum()) for m in ("gold", "silver", "bronze", "defeat")}
    sd = float(esc.std(ddof=1)) if n > 1 else 0.0
    return EvalResult(
        team=team, settings=settings, num_games=n, seed=seed, seats=seats, counts=counts,
        rates={m: c / n for m, c in counts.items()}, escaped_mean=float(esc.mean()), escaped_sd=sd,
        escaped_ci95=1.96 * sd / float(np.sqrt(n)), rounds_mean=float(rounds.mean()),
        truncated=int((status == 1).sum()), illegal=len(illegal), decisions=decisions, seconds=seconds,
        decisions_per_second=decisions / max(seconds, 1e-9), illegal_actions=illegal, game_seeds=seeds,
        game_results=results, game_escaped=esc, game_rounds=rounds, game_status=status)


def pool(results: Sequence[EvalResult], team: str, seats: list[str] | None = None) -> EvalResult:
    """One result from several (the seat patterns of a partner-matrix cell): the per-game outcomes pooled in the
    given order, then summarised over all of them (mean and interval over the pooled games, not a mean of
    means)."""
    if not results:
        raise EvalError("nothing to pool")
    cat = lambda name: np.concatenate([getattr(r, name) for r in results])  # noqa: E731
    return summarise(team, results[0].settings, int(min(r.seed for r in results)),
                     seats if seats is not None else results[0].seats, cat("game_seeds"), cat("game_results"),
                     cat("game_escaped"), cat("game_rounds"), cat("game_status"),
                     [a for r in results for a in r.illegal_actions], sum(r.decisions for r in results),
                     sum(r.seconds for r in results))


def settings_label(config: GameConfig) -> str:
    """'default', or the settings that differ from GameConfig()."""
    base, cur = to_dict(GameConfig()), to_dict(config)
    diff = [k for k in cur if cur[k] != base[k]]
    if not diff:
        return "default"
    return ", ".join(f"{k}={cur[k]}" if isinstance(cur[k], (int, str, bool)) else f"{k}=custom" for k in diff)


def _config(config: GameConfig | str | Path | None) -> GameConfig:
    if config is None:
        return GameConfig()
    if isinstance(config, GameConfig):
        return config
    if not Path(config).is_file():
        raise EvalError(f"config file not found: {str(config)!r}")
    return load(config)


def _choose_actions(groups: list[tuple[Any, np.ndarray, str]], core: Core, eps: Episodes, st, live: np.ndarray,
                    stopped: np.ndarray, status: np.ndarray, seeds: np.ndarray,
                    illegal: list[dict[str, Any]]) -> tuple[np.ndarray, int]:
    """One decision of every live game of a batch, each asked of the agent on the acting seat: (actions, decisions
    made). An illegal action is recorded in ``illegal`` (seed, round, seat, the legal actions) and stops its game
    (``stopped``, ``status`` 2: the batch's slices, written in place); it is not played."""
    mask = eps.mask
    actions = np.zeros(len(live), np.intp)
    decisions = 0
    for agent, agent_seats, who in groups:
        idx = np.flatnonzero(live & np.isin(st.actor, agent_seats))
        if not len(idx):
            continue
        obs = None
        if needs_observation(agent):
            obs = observations(core, st, idx, int(getattr(agent, "obs_radius", DEFAULT_OBS_RADIUS)))
        a = np.asarray(agent.act_batch(obs, mask[idx], games=idx)).reshape(-1)
        if a.shape != idx.shape:
            raise EvalError(f"agent {who}: act_batch returned {a.shape[0]} actions for {len(idx)} games")
        decisions += len(idx)
        ok = eps.legal(a, idx)
        for g, bad in zip(idx[~ok], a[~ok]):
            illegal.append({"seed": int(seeds[g]), "round": int(st.round[g]), "step": int(st.steps[g]),
                            "seat": int(st.actor[g]), "agent": who, "action": int(bad),
                            "legal": np.flatnonzero(mask[g]).tolist()})
            stopped[g] = True
            status[g] = 2
        actions[idx[ok]] = a[ok]
    return actions, decisions


def _step_running(eps: Episodes, st, actions: np.ndarray, stopped: np.ndarray, tally: LossTally | None) -> None:
    """Step the batch's running games (not the ended, truncated or stopped ones); with a ``tally``, count where
    their cavers are lost from the step's events."""
    keep = np.flatnonzero(~eps.over & ~stopped)
    before = (st.exit_tile[keep] < 0, st.c_hp[keep].copy(), eps.mask[keep].sum(1) == 1) if tally is not None else None
    if stopped.any() or eps.truncated.any():  # step only the running games
        eps.step(actions[keep], slots=keep, checked=True)
    else:  # the core skips the games that ended
        eps.step(actions, checked=True)
    if before is not None:
        for j, g in enumerate(keep):
            tally.add(eps.events(g), bool(before[0][j]), before[1][j], int(actions[g]), bool(before[2][j]))


def evaluate_team(config: GameConfig | str | Path | None, team: str | Sequence[Any], num_games: int = 1000,
                  seed: int = 0, batch: int = 100, max_cycles: int = 200, progress: bool = False, *,
                  settings: str | None = None, cache: AgentCache | None = None,
                  progress_bar: "_Progress | None" = None, losses: bool = False) -> EvalResult:
    """Play ``num_games`` seeded games of ``team`` (see the module docstring) and summarise them.

    ``config``: a GameConfig or a YAML path. ``settings``: the row's setting label (default: 'default' or the
    settings that differ from it). ``cache``: share loaded policies between calls. ``progress_bar``: a bar shared
    by several calls (updated, not closed; ``progress`` is then ignored). ``losses``: also tally where cavers are
    lost, from the core's event log (``EvalResult.losses``; the games are the same)."""
    cfg = _config(config)
    for name, value, unit in (("num_games", num_games, ""), ("batch", batch, ""),
                              ("max_cycles", max_cycles, " (rounds)")):
        if not isinstance(value, int) or value < 1:
            raise EvalError(f"{name}={value!r}: expected a positive integer{unit}")
    entries = parse_team(team)
    n_seats = cfg.num_cavers
    check_team_size(entries, team, n_seats)
    cache = cache or AgentCache(seed=seed)
    core = Core(cfg)
    games = GamesHolder(core)
    seeds = seed + np.arange(num_games, dtype=np.int64)
    res = np.zeros(num_games, np.int8)
    esc = np.zeros(num_games, np.int8)
    rounds = np.zeros(num_games, np.int32)
    status = np.zeros(num_games, np.int8)
    illegal: list[dict[str, Any]] = []
    groups: list[tuple[Any, np.ndarray, str]] | None = None
    for e in entries:  # load checkpoints (and Ray) before the clock starts: decisions/s is play only
        if isinstance(e, str) and e.startswith(("policy:", "rllib:")):
            cache.build(e, games, salt=0)
    tally = LossTally(num_games)
    decisions, t0 = 0, time.perf_counter()
    label = team_label(entries)
    bar = progress_bar or _Progress(num_games, f"{settings or settings_label(cfg)} / {label}", progress)
    for lo in range(0, num_games, batch):
        hi = min(lo + batch, num_games)
        if games.episodes is None or games.episodes.num_games != hi - lo:
            games.episodes = Episodes(hi - lo, cfg, max_cycles=max_cycles, autoreset=False, core=core,
                                      record_events=losses)
        eps = games.episodes
        eps.reset(seeds=seeds[lo:hi])
        st = eps.state
        if groups is None:  # build once; game-bound agents follow games.state
            groups = seat_groups(entries, cache, games, n_seats)
        stopped = np.zeros(hi - lo, bool)  # an agent played an illegal action here: the game stops
        done_before = 0
        while True:
            live = ~eps.over & ~stopped
            if not live.any():
                break
            actions, n = _choose_actions(groups, core, eps, st, live, stopped, status[lo:hi], seeds[lo:hi], illegal)
            decisions += n
            _step_running(eps, st, actions, stopped, tally if losses else None)
            status[lo:hi][eps.truncated & ~stopped] = 1
            done = int((eps.over | stopped).sum())
            bar.update(done - done_before)
            done_before = done
        res[lo:hi] = np.maximum(st.result, 0)  # truncated and stopped games are defeats
        esc[lo:hi] = escaped(st)
        rounds[lo:hi] = st.round
    if progress_bar is None:
        bar.close()
    secs = time.perf_counter() - t0
    result = summarise(label, settings or settings_label(cfg), seed,
                       [g[2] for s in range(n_seats) for g in groups if s in g[1]], seeds, res, esc, rounds, status,
                       illegal, decisions, secs)
    result.losses = tally.summary() if losses else None
    return result


@dataclass
class CrossPlay:
    """k x k mixed teams: row entry on even seats, column entry on odd seats (diagonal = self-play)."""

    settings: str
    labels: list[str]
    num_games: int
    num_seats: int
    results: list[list[EvalResult]]

    def matrix(self, key: str = "escaped_mean") -> np.ndarray:
        return np.array([[getattr(r, key) for r in row] for row in self.results])

    def to_dict(self) -> dict[str, Any]:
        return {"settings": self.settings, "labels": self.labels, "num_games": self.num_games,
                "num_seats": self.num_seats, "escaped": self.matrix().tolist(),
                "escaped_ci95": self.matrix("escaped_ci95").tolist(),
                "gold_rate": [[r.rates["gold"] for r in row] for row in self.results],
                "illegal": self.matrix("illegal").tolist(),
                "cells": [[r.to_dict(per_game=False) for r in row] for row in self.results]}


def cross_play(config: GameConfig | str | Path | None, entries: Sequence[Any], num_games: int = 1000,
               seed: int = 0, batch: int = 100, max_cycles: int = 200, progress: bool = False, *,
               settings: str | None = None, cache: AgentCache | None = None) -> CrossPlay:
    """Every ordered pair (Ei, Ej) of ``entries`` (specs such as 'policy:PATH' or 'rllib:PATH', a bare .zip path
    or RLlib checkpoint directory, or agents)."""
    entries = [as_entry(e) for e in entries]
    for e in entries:
        parse_team([e])
    cfg = _config(config)
    cache = cache or AgentCache(seed=seed)
    labels = [entry_label(e) for e in entries]
    if len(set(labels)) < len(labels):
        labels = [f"{i}:{label}" for i, label in enumerate(labels)]
    results = [[evaluate_team(cfg, [a] if i == j else [a, b], num_games, seed, batch, max_cycles, progress,
                              settings=settings, cache=cache)
                for j, b in enumerate(entries)] for i, a in enumerate(entries)]
    return CrossPlay(settings or settings_label(cfg), labels, num_games, cfg.num_cavers, results)


@dataclass
class PartnerCell:
    """One cell of a partner matrix: ``bot`` in every seat but the ``k`` held by ``partner`` (``k = 0``,
    ``partner = None``: the bot alone). ``patterns``: one entry per choice of the partner's seats (``seats``, the
    seat numbers it held), with that pattern's ``team``, ``seed``, ``games`` and ``escaped_mean``; ``result``: the
    pooled games of every pattern (seeds ``seed .. seed + games - 1`` of the matrix, in pattern order)."""

    bot: str
    partner: str | None
    k: int
    patterns: list[dict[str, Any]]
    result: EvalResult

    @property
    def column(self) -> str:
        return "alone" if self.partner is None else f"{self.partner} ×{self.k}"

    def to_dict(self, per_game: bool = True) -> dict[str, Any]:
        return {"bot": self.bot, "partner": self.partner, "k": self.k, "column": self.column,
                "patterns": self.patterns, "result": self.result.to_dict(per_game)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "PartnerCell":
        return cls(d["bot"], d["partner"], d["k"], d["patterns"], EvalResult.from_dict(d["result"]))


@dataclass
class PartnerMatrix:
    """Each bot alone and with each partner holding k of the seats (see :func:`partner_matrix`).

    ``rows[i]``: bot i's cells in column order, ``columns()``: 'alone', then for each partner its k values."""

    settings: str
    num_seats: int
    num_games: int
    seed: int
    bots: list[str]
    partners: list[str]
    partner_seats: list[int]
    rows: list[list[PartnerCell]]
    specs: dict[str, str] = field(default_factory=dict)
    """label -> the spec it was built from (agents built in Python: their label)"""

    def columns(self) -> list[str]:
        return ["alone"] + [f"{p} ×{k}" for p in self.partners for k in self.partner_seats]

    def cell(self, bot: str | int, partner: str | int | None = None, k: int = 0) -> PartnerCell:
        """The cell of ``bot`` (label or index) with ``partner`` (label or index) on ``k`` seats; no partner (or
        ``k = 0``): the bot alone."""
        i = bot if isinstance(bot, int) else self._index(self.bots, bot, "bot")
        if partner is None or k == 0:
            return self.rows[i][0]
        j = partner if isinstance(partner, int) else self._index(self.partners, partner, "partner")
        if k not in self.partner_seats:
            raise KeyError(f"k={k}: the matrix has partner seats {self.partner_seats}")
        return self.rows[i][1 + j * len(self.partner_seats) + self.partner_seats.index(k)]

    @staticmethod
    def _index(labels: list[str], label: str, what: str) -> int:
        if label not in labels:
            raise KeyError(f"{what} {label!r} not in {labels}")
        return labels.index(label)

    def matrix(self, key: str = "escaped_mean") -> np.ndarray:
        """bots x columns of an EvalResult field ('escaped_mean', 'escaped_ci95', 'illegal', ...) or a medal rate
        ('gold', 'silver', 'bronze', 'defeat')."""
        get = (lambda r: r.rates[key]) if key in ("gold", "silver", "bronze", "defeat") else \
            (lambda r: getattr(r, key))
        return np.array([[get(c.result) for c in row] for row in self.rows], dtype=float)

    def to_dict(self, per_game: bool = True) -> dict[str, Any]:
        return {"settings": self.settings, "num_seats": self.num_seats, "num_games": self.num_games,
                "seed": self.seed, "bots": self.bots, "partners": self.partners,
                "partner_seats": self.partner_seats, "specs": self.specs, "columns": self.columns(),
                "escaped": self.matrix().tolist(), "escaped_ci95": self.matrix("escaped_ci95").tolist(),
                **{f"{m}_rate": self.matrix(m).tolist() for m in ("gold", "silver", "bronze")},
                "illegal": self.matrix("illegal").astype(int).tolist(),
                "rows": [[c.to_dict(per_game) for c in row] for row in self.rows]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "PartnerMatrix":
        """The inverse of ``to_dict`` (e.g. of a cell of partners.json); the summary matrices are recomputed."""
        return cls(d["settings"], d["num_seats"], d["num_games"], d["seed"], list(d["bots"]), list(d["partners"]),
                   list(d["partner_seats"]), [[PartnerCell.from_dict(c) for c in row] for row in d["rows"]],
                   dict(d.get("specs", {})))


DEFAULT_PARTNER_SEATS = (1, 2, 3)


def seat_patterns(num_seats: int, k: int) -> list[tuple[int, ...]]:
    """Every choice of k of the seats, in lexicographic order: (0,), (1,), ... for k = 1."""
    return list(itertools.combinations(range(num_seats), k))


def split_games(num_games: int, parts: int) -> list[int]:
    """``num_games`` split over ``parts`` as evenly as possible (the first ones get one more)."""
    base, extra = divmod(num_games, parts)
    return [base + (i < extra) for i in range(parts)]


def _matrix_entries(specs: Sequence[Any], what: str) -> list[Any]:
    """Validated entries: one agent spec each (bare checkpoint paths allowed), none twice."""
    if isinstance(specs, str) or not len(specs):
        raise EvalError(f"{what}: expected a non-empty list of agent specs, got {specs!r}")
    entries: list[Any] = []
    for e in specs:
        if isinstance(e, str) and "," in e:
            raise EvalError(f"{what} entry {e!r} is a comma list: give one agent spec per {what[:-1]} (the matrix "
                            "builds the mixed teams)")
        e = as_entry(e)
        parse_team([e])
        if any(e is f or (isinstance(e, str) and e == f) for f in entries):
            raise EvalError(f"{what} lists {entry_label(e)!r} twice")
        entries.append(e)
    return entries


def matrix_labels(entries: Sequence[Any]) -> list[str]:
    """Labels for partner-matrix entries, one per distinct entry (equal specs share one): ``entry_label``, and
    where two checkpoints share a file name, enough of their paths to tell them apart ('policy:shipped/team',
    'policy:seed2/team'); else an index prefix."""
    keys = list(dict.fromkeys(e if isinstance(e, str) else id(e) for e in entries))
    first = {k: next(e for e in entries if (e if isinstance(e, str) else id(e)) == k) for k in keys}
    label = {k: entry_label(first[k]) for k in keys}
    for k in keys:
        same = [j for j in keys if label[j] == label[k]]
        if len(same) < 2:
            continue
        if all(isinstance(j, str) and j.startswith("policy:") for j in same):
            parts = {j: Path(j[len("policy:"):]).with_suffix("").parts for j in same}
            for depth in range(2, max(len(v) for v in parts.values()) + 1):
                tail = {j: "/".join(parts[j][-depth:]) for j in same}
                if len(set(tail.values())) == len(same):
                    label.update({j: f"policy:{tail[j]}" for j in same})
                    break
        if len({label[j] for j in same}) < len(same):
            label.update({j: f"{keys.index(j)}:{label[j]}" for j in same})
    return [label[e if isinstance(e, str) else id(e)] for e in entries]


def row_labels(teams: Sequence[str]) -> list[str]:
    """The rows' team labels: ``team_label``, and where checkpoints of two teams share a file name, enough of their
    paths to tell them apart, as ``matrix_labels`` does (two runs' final.pt: 'policy:run-a/final' and
    'policy:run-b/final'), so that a results file names each row once (``training/compare.py --team-a``)."""
    parsed = [parse_team(t) for t in teams]
    names = iter(matrix_labels([e for entries in parsed for e in entries]))
    return [",".join(next(names) for _ in entries) for entries in parsed]


def check_partner_seats(partner_seats: Sequence[int] | None, num_seats: int) -> list[int]:
    """The k values of a partner matrix on ``num_seats`` seats: None gives 1, 2, 3; each must be 1 .. seats - 1."""
    ks = list(DEFAULT_PARTNER_SEATS if partner_seats is None else partner_seats)
    if not ks:
        raise EvalError("partner_seats is empty: expected some of 1 .. seats - 1")
    for k in ks:
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or not 1 <= k < num_seats:
            raise EvalError(f"partner seats k={k!r}: the game has {num_seats} seats, so a partner holds 1 to "
                            f"{num_seats - 1} of them (the bot keeps at least one)")
    if len(set(ks)) < len(ks):
        raise EvalError(f"partner seats {ks}: repeated k")
    return sorted(int(k) for k in ks)


def check_partner_games(num_games: int, num_seats: int, partner_seats: Sequence[int]) -> None:
    """A cell plays every choice of the partner's seats at least once."""
    most = max(partner_seats, key=lambda k: len(seat_patterns(num_seats, k)))
    if num_games < len(seat_patterns(num_seats, most)):
        raise EvalError(f"{num_games} games per partner-matrix cell: a cell spreads its games over every choice of "
                        f"the partner's seats, {len(seat_patterns(num_seats, most))} for k={most} of {num_seats} "
                        "seats; play at least that many")


def partner_matrix(config: GameConfig | str | Path | None, bots: Sequence[Any], partners: Sequence[Any] | None = None,
                   partner_seats: Sequence[int] | None = None, num_games: int = 1000, seed: int = 0,
                   batch: int = 100, max_cycles: int = 200, progress: bool = False, *, settings: str | None = None,
                   cache: AgentCache | None = None) -> PartnerMatrix:
    """How each bot plays with each partner: for every (bot X, partner Y, k in ``partner_seats``) Y holds k seats
    and X the rest; also X alone (every seat). ``bots``/``partners``: one agent spec each (anything a team spec
    entry accepts: 'random', 'heuristic', 'policy:PATH', 'rllib:PATH', a bare checkpoint path, or built agents);
    ``partners`` defaults to ``bots``; ``partner_seats`` to 1, 2, 3 (each must leave X a seat).

    Every cell plays the seeds ``seed .. seed + num_games - 1`` (the same for all cells: paired comparisons),
    spread evenly over every choice of Y's k seats (C(seats, k) patterns, lexicographic, the first ones one game
    more when it does not divide): pattern i is the team spec 'X,X,Y,X' on the next block of seeds. Equal specs
    in a team are one agent, so the cell (X, X, k) plays exactly X alone."""
    cfg = _config(config)
    bot_entries = _matrix_entries(bots, "bots")
    partner_entries = bot_entries if partners is None else _matrix_entries(partners, "partners")
    labels = matrix_labels(bot_entries + partner_entries)
    bot_labels, partner_labels = labels[:len(bot_entries)], labels[len(bot_entries):]
    n = cfg.num_cavers
    ks = check_partner_seats(partner_seats, n)
    if not isinstance(num_games, int) or num_games < 1:
        raise EvalError(f"num_games={num_games!r}: expected a positive integer")
    check_partner_games(num_games, n, ks)
    settings = settings or settings_label(cfg)
    cache = cache or AgentCache(seed=seed)
    n_cells = len(bot_entries) * (1 + len(partner_entries) * len(ks))
    bar = _Progress(n_cells * num_games, f"{settings} / partner matrix ({n_cells} cells)", progress)
    common = dict(batch=batch, max_cycles=max_cycles, settings=settings, cache=cache, progress_bar=bar)
    rows = []
    for x, xl in zip(bot_entries, bot_labels):
        alone = evaluate_team(cfg, [x], num_games, seed, **common)
        row = [PartnerCell(xl, None, 0, [{"seats": [], "team": alone.team, "seed": seed, "games": num_games,
                                          "escaped_mean": alone.escaped_mean}], alone)]
        for y, yl in zip(partner_entries, partner_labels):
            for k in ks:
                patterns, results, lo = [], [], 0
                for combo, games in zip(seat_patterns(n, k), split_games(num_games, len(seat_patterns(n, k)))):
                    team = [y if s in combo else x for s in range(n)]
                    r = evaluate_team(cfg, team, games, seed + lo, **common)
                    patterns.append({"seats": list(combo), "team": r.team, "seed": seed + lo, "games": games,
                                     "escaped_mean": r.escaped_mean})
                    results.append(r)
                    lo += games
                row.append(PartnerCell(xl, yl, k, patterns, pool(results, f"{xl} / {yl} ×{k}", [f"{xl}|{yl}"] * n)))
        rows.append(row)
    bar.close()
    specs = {label: (e if isinstance(e, str) else label)
             for label, e in zip(bot_labels + partner_labels, bot_entries + partner_entries)}
    return PartnerMatrix(settings, n, num_games, seed, bot_labels, partner_labels, ks, rows, specs)


class _Progress:
    """tqdm when installed and asked for; else a line every ~10% on stderr."""

    def __init__(self, total: int, desc: str, enabled: bool):
        self.total, self.desc, self.enabled, self.n, self.next_print = total, desc, enabled, 0, 0.1
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, desc=desc, unit="game", leave=False)
            except ImportError:
                pass

    def update(self, k: int) -> None:
        if not self.enabled or k <= 0:
            return
        self.n += k
        if self.bar is not None:
            self.bar.update(k)
        elif self.n / self.total >= self.next_print:
            print(f"  {self.desc}: {self.n}/{self.total} games", file=sys.stderr, flush=True)
            self.next_print += 0.1

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# ---------------------------------------------------------------------------------------------- CLI
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m training.evaluate", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__[__doc__.index("Team specs"):])
    p.add_argument("--config", action="append", metavar="YAML",
                   help="game settings file (repeatable: one row group per file); default: GameConfig() as 'default'")
    p.add_argument("--team", action="append", metavar="SPEC",
                   help="team spec (repeatable): random | heuristic | search | search:WORLDS | ceiling | "
                        "policy:PATH | rllib:PATH | torchrl:PATH | comma list per seat, e.g. "
                        "'policy:A.zip,heuristic,heuristic,heuristic'; default: random and heuristic")
    p.add_argument("--games", type=int, default=1000, help="games per (setting, team) (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="first game seed; games use seed .. seed+games-1")
    p.add_argument("--batch", type=int, default=100, help="games stepped together (results do not depend on it)")
    p.add_argument("--max-cycles", type=int, default=200, help="rounds before a game is truncated (a defeat)")
    p.add_argument("--out", default="runs/eval/latest", help="output folder (default runs/eval/latest)")
    p.add_argument("--cross-play", nargs="+", metavar="POLICY",
                   help="policy checkpoints (a .zip, an RLlib checkpoint directory, or specs) for the k x k "
                        "cross-play matrix of mean escaped")
    p.add_argument("--cross-games", type=int, help="games per cross-play cell (default: --games)")
    p.add_argument("--partner-matrix", nargs="+", metavar="SPEC",
                   help="bots for the partner matrix (one agent spec each: random | heuristic | search | "
                        "search:WORLDS | ceiling | policy:PATH | rllib:PATH | torchrl:PATH | a checkpoint path): "
                        "each alone, and with each partner on k seats")
    p.add_argument("--partners", nargs="+", metavar="SPEC",
                   help="partner kinds of the partner matrix (default: the --partner-matrix bots)")
    p.add_argument("--partner-seats", nargs="+", type=int, metavar="K",
                   help="seats given to the partner, each 1 .. seats-1 (default: 1 2 3)")
    p.add_argument("--partner-games", type=int, metavar="N",
                   help="games per partner-matrix cell, spread over the partner's seat choices (default: --games)")
    p.add_argument("--stochastic", action="store_true", help="sample policy actions instead of the greedy action")
    p.add_argument("--losses", action="store_true",
                   help="also tally each team row's knock-outs, health lost and cavers devoured by cause (the "
                        "core's event log; losses.md, and 'losses' in results.json)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG charts")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    configs: list[tuple[str, GameConfig]] = []
    try:
        stems = [Path(p).stem for p in args.config or []]
        for path, stem in zip(args.config or [], stems):  # label rows by file name, by path if names repeat
            configs.append((stem if stems.count(stem) == 1 else str(path), _config(path)))
        configs = configs or [("default", GameConfig())]
        teams = args.team if args.team is not None else \
            ([] if args.cross_play or args.partner_matrix else ["random", "heuristic"])
        for t in teams:
            parse_team(t)
        cross = [as_entry(e) for e in args.cross_play or []]
        for e in cross:
            parse_team([e])
        for name in ("games", "batch", "max_cycles", "cross_games", "partner_games"):
            v = getattr(args, name)
            if v is not None and v < 1:
                raise EvalError(f"--{name.replace('_', '-')}={v}: expected a positive integer")
        bots = _matrix_entries(args.partner_matrix, "bots") if args.partner_matrix else []
        for flag in ("partners", "partner_seats", "partner_games"):
            if getattr(args, flag) is not None and not bots:
                raise EvalError(f"--{flag.replace('_', '-')} needs --partner-matrix BOT ...")
        partners = _matrix_entries(args.partners, "partners") if args.partners else None
        for name, cfg in configs if bots else []:
            try:
                ks = check_partner_seats(args.partner_seats, cfg.num_cavers)
                check_partner_games(args.partner_games or args.games, cfg.num_cavers, ks)
            except EvalError as e:
                raise EvalError(f"{name}: {e}") from None
    except (EvalError, ConfigError) as e:
        parser.error(str(e))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cache = AgentCache(deterministic=not args.stochastic, seed=args.seed)
    common = dict(seed=args.seed, batch=args.batch, max_cycles=args.max_cycles, progress=not args.no_progress,
                  cache=cache)
    command = ["python", "-m", "training.evaluate", *(sys.argv[1:] if argv is None else argv)]
    meta = {"seed": args.seed, "games": args.games, "batch": args.batch, "max_cycles": args.max_cycles,
            "stochastic": args.stochastic, "command": " ".join(shlex.quote(a) for a in command),
            "configs": {name: to_dict(cfg) for name, cfg in configs}}
    try:
        rows = [replace(evaluate_team(cfg, t, args.games, settings=name, losses=args.losses, **common), team=label)
                for name, cfg in configs for t, label in zip(teams, row_labels(teams))]
        crossplays = [cross_play(cfg, cross, args.cross_games or args.games, settings=name, **common)
                      for name, cfg in configs] if cross else []
        matrices = [partner_matrix(cfg, bots, partners, args.partner_seats, args.partner_games or args.games,
                                   settings=name, **common) for name, cfg in configs] if bots else []
    except (EvalError, ConfigError) as e:
        parser.error(str(e))
    illegal = 0
    if rows:
        dicts = [r.to_dict() for r in rows]
        print(eval_report.text_table(dicts))
        (out / "results.json").write_text(_dumps({"meta": meta, "results": dicts}))
        (out / "results.md").write_text(eval_report.markdown_report(dicts, meta))
        if not args.no_plots:
            _plot(eval_report.plot_medals, dicts, out / "medals.png")
        illegal += sum(r.illegal for r in rows)
        if args.losses:
            md = losses_markdown(dicts)
            print("\n" + md)
            (out / "losses.md").write_text(md)
    if crossplays:
        cps = [c.to_dict() for c in crossplays]
        _write_section(out, "crossplay", meta, cps, eval_report.crossplay_markdown(cps), eval_report.plot_crossplay,
                       args.no_plots)
        illegal += sum(int(np.sum(c.matrix("illegal"))) for c in crossplays)
    if matrices:
        pms = [m.to_dict() for m in matrices]
        _write_section(out, "partners", meta, pms, eval_report.partners_markdown(pms, meta),
                       eval_report.plot_partners, args.no_plots)
        illegal += sum(int(np.sum(m.matrix("illegal"))) for m in matrices)
    print(f"\nwrote {out}/", file=sys.stderr)
    if illegal:
        print(f"error: {illegal} illegal action(s) played; see 'illegal_actions' in the JSON", file=sys.stderr)
        return 3
    return 0


def _write_section(out: Path, name: str, meta: dict[str, Any], data: list[dict[str, Any]], md: str, plot: Any,
                   no_plots: bool) -> None:
    """Print a report section's Markdown and write NAME.json ({"meta", NAME: data}), NAME.md and NAME.png."""
    print("\n" + md)
    (out / f"{name}.json").write_text(_dumps({"meta": meta, name: data}))
    (out / f"{name}.md").write_text(md)
    if not no_plots:
        _plot(plot, data, out / f"{name}.png")


def _plot(plot: Any, data: Any, path: Path) -> None:
    """A chart, or a note when matplotlib is missing (e.g. the Ray venv, which has no ``train`` extra)."""
    try:
        plot(data, path)
    except ImportError as e:
        print(f"note: {path.name} not drawn ({e}): pip install matplotlib, or pass --no-plots", file=sys.stderr)


def _dumps(data: Any) -> str:
    """Indented JSON with lists of numbers and strings kept on one line (the per-game arrays)."""
    text = json.dumps(data, indent=1, default=_json)
    return re.sub(r"\[[^\[\]{}]*\]", lambda m: json.dumps(json.loads(m.group(0))), text) + "\n"


def _json(o: Any) -> Any:
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (tuple, set)):
        return list(o)
    return str(o)


if __name__ == "__main__":
    sys.exit(main())
