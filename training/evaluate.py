"""Evaluate teams of agents on seeded Sub Terra games: medal rates, cavers escaped, cross-play.

    python training/evaluate.py --config configs/default.yaml --team random --team heuristic \\
        --team policy:agents/shipped/team.zip --games 1000 --out runs/eval/NAME

Team specs (``--team``, or ``team=`` of :func:`evaluate_team`):

* ``random``: uniform legal play, one random stream per game (batch-invariant, see below);
* ``heuristic``: ``agents.heuristic.HeuristicAgent``;
* ``policy:PATH``: ``agents.policy_agent.PolicyAgent`` loading the MaskablePPO checkpoint PATH (greedy unless
  ``--stochastic``); its observations use the policy's own ``obs_radius``;
* ``rllib:PATH``: ``agents.rllib_agent.RLlibAgent`` loading the shared module of an RLlib checkpoint written by
  ``training/train_rllib.py`` (``RUN/final``, ``RUN/checkpoints/iter_N``, the run directory or the module
  directory), greedy unless ``--stochastic``, at its own ``obs_radius``; needs Ray (``pip install -e
  .[distributed]``), imported only for such an entry;
* a comma list ``A,B,...``: seat i (seating order: seat 0 moves first in round 1) gets entry ``i mod len``, so
  ``policy:A.zip,heuristic`` alternates; a list longer than the table is an error;
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

Outputs under ``--out``: ``results.json`` (every row with per-game seeds, results, escaped, rounds), ``results.md``,
``medals.png``; with ``--cross-play``: ``crossplay.json``, ``crossplay.md``, ``crossplay.png``. Exit status 0;
2 for bad input; 3 when any agent played an illegal action.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT) not in sys.path:  # run as a script: make `training` and `agents` importable
    sys.path.insert(0, str(_ROOT))

from subterra_env.config import ConfigError, GameConfig, load, to_dict  # noqa: E402
from subterra_env.core.rules import Core  # noqa: E402
from subterra_env.core.state import RESULT_NAMES, RUNNING  # noqa: E402
from subterra_env.rewards import escaped  # noqa: E402
from training import eval_report  # noqa: E402
from training.eval_agents import (DEFAULT_OBS_RADIUS, AgentCache, EvalError, SeededRandomAgent,  # noqa: E402,F401
                                  GamesHolder, as_entry, entry_label, needs_observation, observations, parse_team,
                                  team_label)

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


def evaluate_team(config: GameConfig | str | Path | None, team: str | Sequence[Any], num_games: int = 1000,
                  seed: int = 0, batch: int = 100, max_cycles: int = 200, progress: bool = False, *,
                  settings: str | None = None, cache: AgentCache | None = None) -> EvalResult:
    """Play ``num_games`` seeded games of ``team`` (see the module docstring) and summarise them.

    ``config``: a GameConfig or a YAML path. ``settings``: the row's setting label (default: 'default' or the
    settings that differ from it). ``cache``: share loaded policies between calls."""
    cfg = _config(config)
    if not isinstance(num_games, int) or num_games < 1:
        raise EvalError(f"num_games={num_games!r}: expected a positive integer")
    if not isinstance(batch, int) or batch < 1:
        raise EvalError(f"batch={batch!r}: expected a positive integer")
    if not isinstance(max_cycles, int) or max_cycles < 1:
        raise EvalError(f"max_cycles={max_cycles!r}: expected a positive integer (rounds)")
    entries = parse_team(team)
    n_seats = cfg.num_cavers
    if len(entries) > n_seats:
        raise EvalError(f"team {team!r} has {len(entries)} entries but the game has {n_seats} seats")
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
    decisions, t0 = 0, time.perf_counter()
    label = team_label(entries)
    bar = _Progress(num_games, f"{settings or settings_label(cfg)} / {label}", progress)
    for lo in range(0, num_games, batch):
        hi = min(lo + batch, num_games)
        games.seeds = seeds[lo:hi]
        st = games.state = core.init(games.seeds)
        if groups is None:  # build once; game-bound agents follow games.state
            built = [cache.build(e, games, salt=i) for i, e in enumerate(entries)]
            seat_agent = [built[s % len(entries)] for s in range(n_seats)]
            uniq = list({id(a): a for a in seat_agent}.values())
            groups = [(a, np.array([s for s in range(n_seats) if seat_agent[s] is a]),
                       entry_label(entries[seat_agent.index(a) % len(entries)])) for a in uniq]
        stopped = np.zeros(hi - lo, bool)
        done_before = 0
        while True:
            live = (st.result == RUNNING) & ~stopped
            if not live.any():
                break
            mask = core.legal_mask(st)
            actions = np.zeros(hi - lo, np.intp)
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
                ok = (a >= 0) & (a < mask.shape[1])
                ok[ok] = mask[idx[ok], a[ok].astype(np.intp)]
                for g, bad in zip(idx[~ok], a[~ok]):
                    illegal.append({"seed": int(seeds[lo + g]), "round": int(st.round[g]), "step": int(st.steps[g]),
                                    "seat": int(st.actor[g]), "agent": who, "action": int(bad),
                                    "legal": np.flatnonzero(mask[g]).tolist()})
                    stopped[g] = True
                    status[lo + g] = 2
                actions[idx[ok]] = a[ok]
            if stopped.any():  # step only the running games that are not stopped
                keep = np.flatnonzero((st.result == RUNNING) & ~stopped)
                sub = st.take(keep)
                core.step(sub, actions[keep])
                st.put(keep, sub)
            else:
                core.step(st, actions)
            over = (st.result == RUNNING) & ~stopped & (st.round > max_cycles)
            stopped |= over
            status[lo:hi][over] = 1
            done = int(((st.result != RUNNING) | stopped).sum())
            bar.update(done - done_before)
            done_before = done
        res[lo:hi] = np.maximum(st.result, 0)  # truncated and stopped games are defeats
        esc[lo:hi] = escaped(st)
        rounds[lo:hi] = st.round
    bar.close()
    secs = time.perf_counter() - t0
    counts = {m: int((res == RESULT_NAMES.index(m)).sum()) for m in ("gold", "silver", "bronze", "defeat")}
    sd = float(esc.std(ddof=1)) if num_games > 1 else 0.0
    return EvalResult(
        team=label, settings=settings or settings_label(cfg), num_games=num_games, seed=seed,
        seats=[g[2] for s in range(n_seats) for g in groups if s in g[1]], counts=counts,
        rates={m: c / num_games for m, c in counts.items()}, escaped_mean=float(esc.mean()), escaped_sd=sd,
        escaped_ci95=1.96 * sd / float(np.sqrt(num_games)), rounds_mean=float(rounds.mean()),
        truncated=int((status == 1).sum()), illegal=len(illegal), decisions=decisions, seconds=secs,
        decisions_per_second=decisions / max(secs, 1e-9), illegal_actions=illegal, game_seeds=seeds,
        game_results=res, game_escaped=esc, game_rounds=rounds, game_status=status)


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
        prog="python training/evaluate.py", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__[__doc__.index("Team specs"):])
    p.add_argument("--config", action="append", metavar="YAML",
                   help="game settings file (repeatable: one row group per file); default: GameConfig() as 'default'")
    p.add_argument("--team", action="append", metavar="SPEC",
                   help="team spec (repeatable): random | heuristic | policy:PATH | rllib:PATH | comma list per "
                        "seat, e.g. "
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
    p.add_argument("--stochastic", action="store_true", help="sample policy actions instead of the greedy action")
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
        teams = args.team if args.team is not None else ([] if args.cross_play else ["random", "heuristic"])
        for t in teams:
            parse_team(t)
        cross = [as_entry(e) for e in args.cross_play or []]
        for e in cross:
            parse_team([e])
        for name in ("games", "batch", "max_cycles", "cross_games"):
            v = getattr(args, name)
            if v is not None and v < 1:
                raise EvalError(f"--{name.replace('_', '-')}={v}: expected a positive integer")
    except (EvalError, ConfigError) as e:
        parser.error(str(e))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cache = AgentCache(deterministic=not args.stochastic, seed=args.seed)
    common = dict(seed=args.seed, batch=args.batch, max_cycles=args.max_cycles, progress=not args.no_progress,
                  cache=cache)
    command = ["python", "training/evaluate.py", *(sys.argv[1:] if argv is None else argv)]
    meta = {"seed": args.seed, "games": args.games, "batch": args.batch, "max_cycles": args.max_cycles,
            "stochastic": args.stochastic, "command": " ".join(shlex.quote(a) for a in command),
            "configs": {name: to_dict(cfg) for name, cfg in configs}}
    try:
        rows = [evaluate_team(cfg, t, args.games, settings=name, **common) for name, cfg in configs for t in teams]
        crossplays = [cross_play(cfg, cross, args.cross_games or args.games, settings=name, **common)
                      for name, cfg in configs] if cross else []
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
    if crossplays:
        cps = [c.to_dict() for c in crossplays]
        md = eval_report.crossplay_markdown(cps)
        print("\n" + md)
        (out / "crossplay.json").write_text(_dumps({"meta": meta, "crossplay": cps}))
        (out / "crossplay.md").write_text(md)
        if not args.no_plots:
            _plot(eval_report.plot_crossplay, cps, out / "crossplay.png")
        illegal += sum(int(np.sum(c.matrix("illegal"))) for c in crossplays)
    print(f"\nwrote {out}/", file=sys.stderr)
    if illegal:
        print(f"error: {illegal} illegal action(s) played; see 'illegal_actions' in the JSON", file=sys.stderr)
        return 3
    return 0


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
