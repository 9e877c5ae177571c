"""Per-decision latency of every bot a person can sit with, on one core: milliseconds per decision on the full game.

    python -m benchmarks.latency                            # 3 full games, 50 decisions of each: 1-2 min
    python -m benchmarks.latency --games 5 --decisions 80 --worlds 4 8 32 --out /tmp/latency.json
    python -m benchmarks.latency --config configs/tiny.yaml --games 1 --decisions 10 --worlds 2   # seconds

Bots (rows): ``random`` (``RandomAgent``), ``heuristic`` (the compiled ``HeuristicAgent``), ``policy`` (a trained
MaskablePPO team, by default the shipped one: ``agents/shipped/team.zip``; it needs the train extra, else its row
reads "not installed (reason)"), ``search`` (``SearchAgent``) at each world count of ``--worlds`` and at its
default (``agents.search.DEFAULT_WORLDS``; every row with the agent's other defaults: on the base game rollouts to a
``DEFAULT_HORIZON``-round horizon and the value estimate, ``DEFAULT_MORE_WORLDS`` further worlds for the
contenders; the label says which), and ``ceiling`` (``SearchAgent(clairvoyant=True)``, the diagnostic
that searches the true future; never a teammate, timed for completeness).

Decisions: ``--games`` seeded games (seeds ``--seed``, ``--seed`` + 1, ...) of ``--config`` are played by the
heuristic team to the end (or round ``agents.search.MAX_ROUND``); ``--decisions`` of each game's decisions, evenly
spread from its first to its last, are the sample. Every bot decides every sampled decision (the bots take turns
at each, so a change in the machine's load hits them alike), from a fresh copy of that game State at B = 1, through
its ``act`` (the call the play command makes; the policy also computes its observation, as the play command's bot
does). Only that call is timed. The search searches only decisions with more than one legal action (others cost
a heuristic decision), so each row is summarised over all sampled decisions and over those with more than one
legal action: median, 95th percentile (numpy's linear interpolation), mean and max in ms of wall clock, the
median and 95th percentile of the calling thread's CPU time (``time.thread_time``: on one thread, the work
itself without the waits for a core; a busy machine still slows it, through shared caches and the hypervisor),
and for the search rows the rollouts per searched decision.

One core: numba's threads are set to 1 for the run (restored at the end), every agent and the rules core get
``threads=1``, the policy uses one torch thread. The issue's budget for the search's default is at most 100 ms
per decision on one core. Prints a table and writes JSON (default benchmarks/results/latency.json) with the machine,
the settings, the sampled decisions and every row with its per-decision times. Timings are wall clock on a shared
machine: indicative.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numba
import numpy as np

import subterra_env
from subterra_env.config import GameConfig, load
from subterra_env.games.sub_terra.core.observe import observe
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RUNNING, State

from agents import SHIPPED_TEAM
from agents.heuristic import HeuristicAgent
from agents.random_agent import RandomAgent
from agents.search import DEFAULT_HORIZON, DEFAULT_WORLDS, SearchAgent
from agents.search.agent import DEFAULT_MORE_WORLDS, MAX_ROUND

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CONFIG = ROOT / "configs" / "full.yaml"
DEFAULT_OUT = Path(__file__).parent / "results" / "latency.json"
DEFAULT_WORLD_LIST = tuple(sorted({4, 8, 16} - {DEFAULT_WORLDS}))  # besides the default, always run
SEARCH_BUDGET_MS = 100.0  # the issue: the search's default budget is at most 100 ms per decision on one core
WARMUP_DECISIONS = 2  # untimed decisions per bot first (loads the compiled code from numba's cache)


class Table:
    """What a game-bound agent reads (agents.base.game_view): the rules core and the State of the decision."""

    def __init__(self, core: Core):
        self.core = core
        self.state: State | None = None


@dataclass
class Decision:
    """One sampled decision: its game (seed), the decisions taken before it, the round, the legal actions."""

    seed: int
    step: int
    round: int
    legal: int
    packed: np.ndarray = field(repr=False)  # the game's State record (B = 1)
    mask: np.ndarray = field(repr=False)


@dataclass
class Bot:
    """A row: ``act(table, mask) -> action`` decides from table.state (bound agents read it there)."""

    bot: str  # random | heuristic | policy | search | ceiling
    label: str
    act: Callable[[Table, np.ndarray], int] | None = None
    status: str = "ok"  # or "not installed (reason)"
    worlds: int | None = None
    default: bool = False
    agent: Any = None
    ms: list[float] = field(default_factory=list)  # wall clock, one per sampled decision, in order
    cpu_ms: list[float] = field(default_factory=list)  # the thread's CPU time, likewise


# ---------------------------------------------------------------------------------------------- decisions
def sample_decisions(core: Core, seeds: list[int], per_game: int) -> tuple[list[Decision], int]:
    """The heuristic team plays each seeded game (B = 1) to its end or round MAX_ROUND; returns ``per_game`` of
    each game's decisions evenly spread (all of them when fewer) and the number of decisions played."""
    out: list[Decision] = []
    played = 0
    for seed in seeds:
        table = Table(core)
        st = table.state = core.init([seed])
        team = HeuristicAgent(table, threads=1)
        game: list[Decision] = []
        while st.result[0] == RUNNING and st.round[0] <= MAX_ROUND:
            mask = core.legal_mask(st)
            game.append(Decision(seed, int(st.steps[0]), int(st.round[0]), int(mask[0].sum()), st.packed.copy(),
                                 mask[0].copy()))
            core.step(st, team.decide(core, st, np.zeros(1, np.int64), mask), check=False)
        played += len(game)
        if len(game) > per_game:
            keep = np.unique(np.linspace(0, len(game) - 1, per_game).round().astype(int))
            game = [game[i] for i in keep]
        out += game
    return out, played


# ---------------------------------------------------------------------------------------------- bots
def bound(agent: Any) -> Callable[[Table, np.ndarray], int]:
    """A game-bound agent (it reads the table's State itself): no observation."""
    return lambda table, mask: agent.act(None, mask)


def search_setting(agent: SearchAgent) -> str:
    """``32 worlds, 4-round horizon`` or ``4+12 worlds, to the end``: a search row's setting."""
    more = f"+{agent.more_worlds}" if agent.more_worlds else ""
    return f"{agent.worlds}{more} worlds, " + (f"{agent.horizon}-round horizon" if agent.horizon else "to the end")


def make_bots(core: Core, table: Table, worlds: list[int], seed: int, policy: str | None) -> list[Bot]:
    rand = RandomAgent(seed)
    bots = [Bot("random", "random", lambda table, mask: rand.act(None, mask), agent=rand)]
    heuristic = HeuristicAgent(table, threads=1)
    bots.append(Bot("heuristic", "heuristic", bound(heuristic), agent=heuristic))
    if policy:
        bots.append(policy_bot(core, table, policy, seed))
    for w in sorted(set(worlds) | {DEFAULT_WORLDS}):
        search = SearchAgent(table, seed=seed, worlds=w, threads=1)
        default = w == DEFAULT_WORLDS
        label = f"search ({search_setting(search)}{', default' if default else ''})"
        bots.append(Bot("search", label, bound(search), worlds=w, default=default, agent=search))
    ceiling = SearchAgent(table, seed=seed, clairvoyant=True, threads=1)
    bots.append(Bot("ceiling", "ceiling (clairvoyant search)", bound(ceiling), worlds=ceiling.worlds, agent=ceiling))
    return bots


def policy_bot(core: Core, table: Table, path: str, seed: int) -> Bot:
    """A MaskablePPO team as the play command seats it: the acting caver's observation, then the policy (bound to
    the table: a checkpoint trained on the heuristic's advice, as the shipped team is, computes it too)."""
    shipped = Path(path).resolve() == SHIPPED_TEAM.resolve()
    label = "policy (shipped team)" if shipped else f"policy ({Path(path).stem})"
    try:
        from agents.policy_agent import PolicyAgent

        agent = PolicyAgent(path, deterministic=True, seed=seed, torch_threads=1).bind(table)
    except (ImportError, FileNotFoundError) as e:
        return Bot("policy", label, status=f"not installed ({type(e).__name__}: {e})")

    def act(table: Table, mask: np.ndarray) -> int:
        st = table.state
        grid, scalars = observe(core.cat, st, np.array([int(st.actor[0])]), agent.obs_radius, threads=1)
        return agent.act({"observation": grid[0], "scalars": scalars[0]}, mask)

    return Bot("policy", label, act, agent=agent)


def time_bots(bots: list[Bot], table: Table, decisions: list[Decision]) -> None:
    """Every ok bot decides every decision (in turn at each), from a fresh copy of its State; fills ``Bot.ms``."""
    live = [b for b in bots if b.status == "ok"]
    sizes = table.core.init([0])._sizes
    for d in decisions[:WARMUP_DECISIONS]:
        for b in live:
            table.state = State.from_packed(d.packed.copy(), sizes)
            b.act(table, d.mask)
    for b in live:
        if b.bot in ("search", "ceiling"):
            b.agent.rollouts = 0
    for d in decisions:
        for b in live:
            table.state = State.from_packed(d.packed.copy(), sizes)
            cpu, start = time.thread_time(), time.perf_counter()
            action = b.act(table, d.mask)
            b.ms.append((time.perf_counter() - start) * 1e3)
            b.cpu_ms.append((time.thread_time() - cpu) * 1e3)
            if not d.mask[int(action)]:
                raise AssertionError(f"{b.label} chose illegal action {action} (game {d.seed}, step {d.step})")


# ---------------------------------------------------------------------------------------------- summary
def stats(ms: np.ndarray, cpu_ms: np.ndarray) -> dict[str, float] | None:
    if not len(ms):
        return None
    return {"decisions": int(len(ms)), "median_ms": float(np.median(ms)), "p95_ms": float(np.percentile(ms, 95)),
            "mean_ms": float(ms.mean()), "max_ms": float(ms.max()), "cpu_median_ms": float(np.median(cpu_ms)),
            "cpu_p95_ms": float(np.percentile(cpu_ms, 95))}


def summarise(b: Bot, decisions: list[Decision]) -> dict[str, Any]:
    row: dict[str, Any] = {"bot": b.bot, "label": b.label, "status": b.status}
    if b.worlds is not None:
        row |= {"worlds": b.worlds, "default": b.default}
    if b.status != "ok":
        return row
    ms, cpu = np.array(b.ms), np.array(b.cpu_ms)
    multi = np.array([d.legal > 1 for d in decisions], dtype=bool)
    row |= {"all": stats(ms, cpu), "multi_legal": stats(ms[multi], cpu[multi])}
    if b.bot in ("search", "ceiling") and multi.any():
        row["rollouts_per_decision"] = b.agent.rollouts / int(multi.sum())
    row["ms"] = [float(x) for x in ms]
    row["cpu_ms"] = [float(x) for x in cpu]
    return row


COLUMNS = (("bot", 46, "<"), ("n", 5, ">"), ("median ms", 11, ">"), ("p95 ms", 10, ">"), ("n>1", 6, ">"),
           ("median ms", 11, ">"), ("p95 ms", 10, ">"), ("cpu med", 9, ">"), ("cpu p95", 9, ">"),
           ("rollouts", 10, ">"))
STATUS_WIDTH = 100


def print_table(rows: list[dict[str, Any]]) -> None:
    print(f"{'':<51}{'all sampled decisions':^21}{'':6}{'> 1 legal action':^39}")
    print("".join(f"{title:{align}{width}}" for title, width, align in COLUMNS))
    print("-" * sum(width for _, width, _ in COLUMNS))
    for r in rows:
        if r["status"] != "ok":
            status = r["status"] if len(r["status"]) <= STATUS_WIDTH else r["status"][:STATUS_WIDTH - 4] + "...)"
            print(f"{r['label']:<46}  {status}")
            continue
        a, m = r["all"], r["multi_legal"] or {"decisions": 0}
        line = f"{r['label']:<46}{a['decisions']:>5}{a['median_ms']:>11.3f}{a['p95_ms']:>10.3f}{m['decisions']:>6}"
        if "median_ms" in m:
            line += f"{m['median_ms']:>11.3f}{m['p95_ms']:>10.3f}{m['cpu_median_ms']:>9.3f}{m['cpu_p95_ms']:>9.3f}"
        else:
            line += f"{'-':>11}{'-':>10}{'-':>9}{'-':>9}"
        line += f"{r['rollouts_per_decision']:>10.1f}" if "rollouts_per_decision" in r else f"{'-':>10}"
        print(line)


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (None where the OS has none): the machine is shared."""
    return list(os.getloadavg()) if hasattr(os, "getloadavg") else None


def machine() -> dict[str, Any]:
    return {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(), "load_average": load_average(),
            "python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
            "subterra_env": subterra_env.__version__}


# ---------------------------------------------------------------------------------------------- main
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", type=Path, default=DEFAULT_CONFIG,
                   help="the game's YAML config [default: configs/full.yaml]")
    p.add_argument("--games", type=int, default=3, help="seeded games to sample decisions from [default: 3]")
    p.add_argument("--decisions", type=int, default=50,
                   help="decisions sampled from each game, evenly spread over it [default: 50]")
    p.add_argument("--worlds", type=int, nargs="+", default=list(DEFAULT_WORLD_LIST), metavar="W",
                   help="world counts of the search rows, beside its default "
                        f"({DEFAULT_WORLDS}) [default: {' '.join(map(str, DEFAULT_WORLD_LIST))}]")
    p.add_argument("--policy", default=str(SHIPPED_TEAM),
                   help="the MaskablePPO checkpoint of the policy row; 'none' leaves the row out "
                        "[default: agents/shipped/team.zip]")
    p.add_argument("--seed", type=int, default=0, help="first game seed, and the agents' seed [default: 0]")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help="where to write the JSON results [default: benchmarks/results/latency.json]")
    args = p.parse_args(argv)
    if args.games < 1 or args.decisions < 1 or min(args.worlds) < 1:
        p.error("--games, --decisions and every --worlds must be >= 1")
    if args.policy.lower() == "none":
        args.policy = None
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Sample the decisions, time every bot on them, print the table, write the JSON; returns what was written."""
    args = parse_args(argv)
    info = machine()  # the load average as the run starts
    cfg: GameConfig = load(args.config)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        core = Core(cfg, threads=1)
        seeds = list(range(args.seed, args.seed + args.games))
        decisions, played = sample_decisions(core, seeds, args.decisions)
        multi = sum(d.legal > 1 for d in decisions)
        print(f"{args.config}: {args.games} games (seeds {seeds[0]}..{seeds[-1]}) played by the heuristic team, "
              f"{played} decisions; {len(decisions)} sampled, {multi} with > 1 legal action. One core (numba "
              f"threads 1); {os.cpu_count()} CPUs, load average {(info['load_average'] or [0.0])[0]:.2f}\n")
        table = Table(core)
        bots = make_bots(core, table, args.worlds, args.seed, args.policy)
        time_bots(bots, table, decisions)
        rows = [summarise(b, decisions) for b in bots]
    finally:
        numba.set_num_threads(threads)
    print_table(rows)
    default = next(r for r in rows if r.get("default"))
    if default["status"] == "ok" and default["multi_legal"]:
        m = default["multi_legal"]
        setting = default["label"][len("search ("):-len(", default)")]
        print(f"\nsearch default ({setting}), decisions with > 1 legal action: median {m['median_ms']:.1f} ms, "
              f"p95 {m['p95_ms']:.1f} ms (CPU time: median {m['cpu_median_ms']:.1f} ms, "
              f"p95 {m['cpu_p95_ms']:.1f} ms); budget: at most {SEARCH_BUDGET_MS:g} ms per decision on one core")
    result = {"machine": info | {"load_average_end": load_average()},
              "settings": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
              | {"numba_threads": 1, "default_worlds": DEFAULT_WORLDS,
                 "default_more_worlds": DEFAULT_MORE_WORLDS, "default_horizon": DEFAULT_HORIZON, "max_round": MAX_ROUND,
                 "search_budget_ms": SEARCH_BUDGET_MS},
              "decisions": {"games": args.games, "seeds": seeds, "played": played, "sampled": len(decisions),
                            "multi_legal": multi,
                            "sample": [{"seed": d.seed, "step": d.step, "round": d.round, "legal": d.legal}
                                       for d in decisions]},
              "rows": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(f"wrote {args.out}")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
