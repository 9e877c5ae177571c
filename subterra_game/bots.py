"""The bots at a Sub Terra table: which one ``auto`` seats (the strongest that answers in time, timed on this
machine), the policy and mask-only bots, and ``build_bots``, one bot per bot seat bound to the table's env.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from subterra_env.games.sub_terra.core.observe import observe
from subterra_env.env import raw_env
from subterra_env.episode import ended
from .explain import search_refuses
from .seats import PlayError, Seat

TRAIN_EXTRA_HINT = ("bots of kind policy: need the train extra (torch, sb3-contrib): "
                    "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu && "
                    "pip install -e '.[train]'")


def shipped_team_path() -> Path:
    """``agents/shipped/team.zip`` beside the ``agents`` package (where the shipped team is kept)."""
    try:
        import agents

        return Path(agents.__file__).resolve().parent / "shipped" / "team.zip"
    except ImportError:
        return Path("agents/shipped/team.zip")


SEARCH_LIMIT_S = 0.5  # auto seats search when its median decision takes at most this long on this machine
PROBE_POINTS = (0.5, 0.75, 0.25)  # where search is timed: fractions of a heuristic game's decisions, in this order
PROBE_BUDGET_S = 1.2  # the probe times no further decision once it has run this long


def time_search(core: Any, start: Any, max_cycles: int = 200, worlds: int | None = None,
                points: Sequence[float] = PROBE_POINTS, limit: float = SEARCH_LIMIT_S,
                budget: float = PROBE_BUDGET_S) -> list[float]:
    """Seconds the search bot takes per decision on this machine, at a few decisions of a game like the one at the
    table (``start``: its State; never changed).

    The heuristic team plays a copy of ``start`` to its end (fast); the search bot (``worlds``) then decides at the
    decisions with more than one legal action found at ``points`` (fractions of them, in order: early decisions
    cost most, their rollouts play the whole game), after one untimed decision that loads its compiled code. Which
    decisions are timed and what the search decides there depend on ``start`` only; how many are timed depends on
    time: the probe stops once the median's side of ``limit`` is settled (two of three samples), or once it has run
    ``budget`` seconds (so on a slow machine: the heuristic game, the loading and one search decision)."""
    from agents.heuristic import HeuristicAgent
    from agents.search import SearchAgent

    began = time.perf_counter()
    st = start.copy()
    hold = SimpleNamespace(core=core, state_=st)  # a game holder for the agents: the table's game is not touched
    heuristic = HeuristicAgent(hold)
    spots: list[tuple[Any, np.ndarray]] = []
    for _ in range(100_000):
        if ended(st, max_cycles)[0]:
            break
        mask = core.legal_mask(st)[0]
        if mask.sum() > 1:
            spots.append((st.copy(), mask))
        core.step(st, np.array([heuristic.act(None, mask)], dtype=np.int64))
    if not spots:
        return []
    hold.state_, mask = spots[-1]
    SearchAgent(hold, worlds=1).act(None, mask)  # loads the compiled rollouts: not timed
    agent = SearchAgent(hold) if worlds is None else SearchAgent(hold, worlds=worlds)
    need = len(points) // 2 + 1  # samples on one side of limit that settle the median
    times: list[float] = []
    for f in points:
        hold.state_, mask = spots[min(len(spots) - 1, int(f * len(spots)))]
        t0 = time.perf_counter()
        agent.act(None, mask)
        times.append(time.perf_counter() - t0)
        fast = sum(t <= limit for t in times)
        if fast >= need or len(times) - fast >= need or time.perf_counter() - began > budget:
            break
    return times


@dataclass(frozen=True)
class BotChoice:
    """What ``auto`` seats, and why (shown at the start and kept in the record)."""

    seat: Seat
    why: str


def _secs(t: float) -> str:
    return f"{t * 1000:.0f} ms" if t < 1 else f"{t:.1f} s"


def choose_bots(probe: Callable[[], Sequence[float]], worlds: int | None = None,
                limit: float = SEARCH_LIMIT_S) -> BotChoice:
    """The strongest bot that answers in time: ``search`` when the median of ``probe()`` (seconds per search
    decision here, as ``time_search`` measures) is at most ``limit``, else ``heuristic`` (microseconds a decision).
    Strength, best first: search, heuristic, the shipped policy team, random."""
    try:
        times = list(probe())
    except ImportError as e:
        return BotChoice(Seat("heuristic"), f"the search bot does not load here: {e}")
    if not times:
        return BotChoice(Seat("search", worlds=worlds), "the strongest; no decision to time")
    med = statistics.median(times)
    if med <= limit:
        return BotChoice(Seat("search", worlds=worlds), f"strongest that answers in time: {_secs(med)} per decision")
    return BotChoice(Seat("heuristic"), f"search took {_secs(med)} per decision here, over {limit:g} s; "
                     "--bots search to insist")


def bots_line(seats: Sequence[Seat], auto: set[int], choice: BotChoice | None, origin: str = "as asked") -> str:
    """``search (strongest that answers in time: 85 ms per decision)``: the bots at the table and why (the start
    line after ``Bots: ``, and the record's ``bots``); "" when people play every seat."""
    parts: dict[tuple[str, bool], str] = {}
    for i, s in enumerate(seats):
        if s.human:
            continue
        name = s.label
        if s.kind == "search" and s.worlds is not None:
            from agents.search import DEFAULT_WORLDS

            name = "search" if s.worlds == DEFAULT_WORLDS else f"search with {s.worlds} worlds"
        picked = i in auto and choice is not None
        parts.setdefault((name, picked), f"{name} ({choice.why if picked and choice else origin})")
    return "; ".join(parts.values())


# ---------------------------------------------------------------------------------------------- bots
class PolicyBot:
    """A MaskablePPO checkpoint playing a seat: observes at the checkpoint's own radius."""

    def __init__(self, path: str, env: raw_env):
        if str(path).endswith(".onnx"):  # exported (agents.onnx_policy): onnxruntime, no torch
            try:
                from agents.onnx_policy import OnnxPolicyAgent

                self.agent: Any = OnnxPolicyAgent(path).bind(env)  # an advised export reads the heuristic's advice
            except ImportError as e:
                raise PlayError(f"policy .onnx bots need onnxruntime: pip install -e '.[onnx]' (missing: {e.name})"
                                ) from None
            except (OSError, ValueError) as e:
                raise PlayError(f"cannot load policy {path!r}: {e}") from None
            return
        try:
            import torch  # noqa: F401
            if not str(path).endswith(".pt"):  # a MaskablePPO .zip; a .pt of training/ppo.py needs torch alone
                import sb3_contrib  # noqa: F401
        except ImportError as e:
            raise PlayError(f"{TRAIN_EXTRA_HINT} (missing: {e.name})") from None
        from agents.policy_agent import load_policy

        try:
            agent = load_policy(path)
            # an advised checkpoint reads the heuristic's advice, so it is bound to this game
            self.agent = agent.bind(env) if getattr(agent, "advised", False) else agent
        except (OSError, ValueError) as e:
            raise PlayError(f"cannot load policy {path!r}: {e}") from None

    def act(self, env: raw_env, seat: int) -> int:
        grid, scalars = observe(env.core.cat, env.state_, np.array([seat]), self.agent.obs_radius)
        return self.agent.act({"observation": grid[0], "scalars": scalars[0]}, env.legal_mask)


class ObsFreeBot:
    """A bot that decides from the mask (random) or the bound board (heuristic, search)."""

    def __init__(self, agent: Any):
        self.agent = agent

    def act(self, env: raw_env, seat: int) -> int:
        return int(self.agent.act(None, env.legal_mask))


def check_plays(env: raw_env, seats: list[Seat]) -> None:
    """A clear error for a bot seat whose bot does not know the table's scenario (never a failure mid-game)."""
    from agents.heuristic import HeuristicAgent

    scenario = env.config.scenario
    for s in seats:
        if s.kind == "search" and search_refuses(scenario):
            raise PlayError(f"{search_refuses(scenario)}: pick --bots heuristic or random")
        if s.kind == "heuristic" and not HeuristicAgent.plays(scenario):
            raise PlayError(f"the heuristic bot does not play {scenario} yet: pick --bots random")
        if s.kind == "policy" and scenario != "base":
            raise PlayError(f"policy bots play the base game only (their checkpoints read the subterra_v1 "
                            f"observation), not {scenario}: pick --bots heuristic or random")


def build_bots(env: raw_env, seats: list[Seat], seed: int) -> dict[int, Any]:
    """A bot per bot seat. Heuristic and search bots are bound to ``env`` and read its live game (public
    information only: never the clairvoyant search); one of each serves every seat it plays."""
    check_plays(env, seats)
    bots: dict[int, Any] = {}
    heuristic, searches, policies = None, {}, {}
    for i, s in enumerate(seats):
        if s.kind == "heuristic":
            if heuristic is None:
                from agents.heuristic import HeuristicAgent

                heuristic = ObsFreeBot(HeuristicAgent(env, seed=0))
            bots[i] = heuristic
        elif s.kind == "search":
            if s.worlds not in searches:
                try:
                    from agents.search import SearchAgent
                except ImportError as e:
                    raise PlayError(f"the search bots do not load here ({e}): pick --bots heuristic") from None
                kw = {} if s.worlds is None else {"worlds": s.worlds}
                searches[s.worlds] = ObsFreeBot(SearchAgent(env, seed=0, **kw))
            bots[i] = searches[s.worlds]
        elif s.kind == "random":
            from agents.random_agent import RandomAgent

            bots[i] = ObsFreeBot(RandomAgent(seed * 10 + i))
        elif s.kind == "policy":
            if s.path not in policies:
                policies[s.path] = PolicyBot(s.path, env)
            bots[i] = policies[s.path]
    return bots
