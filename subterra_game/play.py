"""Play Sub Terra in the terminal beside bot teammates, save the game, replay it (terminal, PNG frames, GIF).

    subterra play                                   # you play the first caver, three bots the others
    subterra play --config configs/tiny.yaml --seed 7 --human scout --delay 0.5 --save game.json
    subterra play --seats human:ann,human:bob,heuristic,random     # hot seat: two people, two bots, by seat
    subterra play --seats medic=human,leader=policy:runs/x/best.zip --bots heuristic   # by caver name
    subterra play --bots search --search-worlds 8   # insist on the search bots (fewer worlds: faster, weaker)
    subterra play --watch --delay 0.2               # bots only
    subterra play --resume game.json                # go on with a game saved before its end (Ctrl-C)
    subterra replay game.json [--auto --delay 0.5] [--png frames/] [--gif game.gif]
    subterra serve [--port 8765]                    # the browser table (subterra_game.web; the web extra)
    subterra itc [--players 3] [--watch]            # In the Cave against bot teams (subterra_game.itc_play)
    python -m subterra_game.play ...                 # the same command ("play" may be left out)

Seats: every caver's seat is ``human`` (optionally ``human:NAME``), ``search``, ``heuristic``, ``random``,
``policy:PATH`` (a MaskablePPO .zip, needs the ``train`` extra; a ``.pt`` of the native trainer, needs torch; or
an ONNX export, ``agents/shipped/team.onnx`` or a native run's ``best.onnx``, needs only onnxruntime) or ``auto``
(the default of ``--bots``): the strongest bot that answers in time. Strongest first: ``search`` (Monte Carlo
search over the heuristic, ``agents.search.SearchAgent``, public information only), ``heuristic``, the shipped team
(``policy:agents/shipped/team.zip``), ``random``. ``auto`` times a few search decisions at the start (on a heuristic
game of the same deal, never the game itself) and seats ``search`` when its median decision takes at most
``SEARCH_LIMIT_S`` (0.5 s) here, else ``heuristic``; one line at the start says which and why. Which cavers sit at the
table is drawn from the seed unless ``--cavers`` fixes them; ``--human CAVER`` (names, or seat numbers from 0)
picks the cavers people play after the draw. Without ``--seats``/``--human``/``--watch`` you play seat 0.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import secrets
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from subterra_env.config import CAVER_NAMES, PRESETS, ConfigError, GameConfig, load, preset
from subterra_env.core.observe import observe
from subterra_env.env import raw_env
from subterra_env.episode import ended
from subterra_env.info import game_info, result_name
from .explain import search_refuses
from .narrate import Event, narrate
from .records import (GameRecord, RecordError, add_replay_options, load_record, record_config, replay_record,
                      save_record, seat_labels, write_gif, write_pngs)

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


class PlayError(ValueError):
    """Bad command-line input (seats, settings, files); the message says what and how to fix it."""


# ---------------------------------------------------------------------------------------------- seats
BOT_KINDS = "search, heuristic, random, policy:PATH or auto"
SEARCH_LIMIT_S = 0.5  # auto seats search when its median decision takes at most this long on this machine
PROBE_POINTS = (0.5, 0.75, 0.25)  # where search is timed: fractions of a heuristic game's decisions, in this order
PROBE_BUDGET_S = 1.2  # the probe times no further decision once it has run this long


@dataclass(frozen=True)
class Seat:
    """Who plays a seat: ``kind`` human / search / heuristic / random / policy / auto; ``path`` of a policy; a
    person's name; ``worlds`` of a search bot (None: ``--search-worlds`` or the agent's default)."""

    kind: str
    path: str | None = None
    name: str | None = None
    worlds: int | None = None

    @property
    def player(self) -> str:
        """As stored in a record: ``human``, ``search``, ``heuristic``, ``random`` or ``policy:PATH``."""
        return f"policy:{self.path}" if self.kind == "policy" else self.kind

    @property
    def human(self) -> bool:
        return self.kind == "human"

    @property
    def label(self) -> str:
        """A bot's short name on screen: ``search``, ``heuristic``, ``random``, ``policy team``."""
        return f"policy {Path(self.path or '').stem}" if self.kind == "policy" else self.kind


def parse_kind(text: str, where: str = "seat") -> Seat:
    t = text.strip()
    if t in ("human", "you") or t.startswith("human:"):
        return Seat("human", name=t.partition(":")[2] or None)
    if t in ("search", "heuristic", "random", "auto", "bot"):
        return Seat("auto" if t == "bot" else t)
    if t.startswith("policy:"):
        path = t[len("policy:"):]
        if not path:
            raise PlayError(f"{where} {text!r}: policy needs a path, e.g. policy:agents/shipped/team.zip")
        if not Path(path).is_file():
            raise PlayError(f"{where} {text!r}: no policy checkpoint at {path!r} (a MaskablePPO .zip)")
        return Seat("policy", path=path)
    raise PlayError(f"{where} {text!r}: expected human, human:NAME, {BOT_KINDS}")


def seat_from_record(entry: dict[str, Any]) -> Seat:
    """A record's seat entry as a Seat (records before the search bots have no ``worlds``)."""
    player = str(entry["player"])
    if player == "human" and entry.get("name"):
        return Seat("human", name=str(entry["name"]))
    seat = parse_kind(player, "the record's seat")
    worlds = entry.get("worlds")
    return replace(seat, worlds=int(worlds)) if seat.kind == "search" and isinstance(worlds, int) else seat


@dataclass
class SeatPlan:
    """Seats as given on the command line, before the game's cavers are known."""

    by_seat: list[Seat] | None = None  # one per seat, in seat order
    by_caver: dict[str, Seat] = field(default_factory=dict)  # caver name or seat number -> seat
    others: Seat = field(default_factory=lambda: Seat("auto"))  # every seat not named

    def resolve(self, ranks: Sequence[int]) -> list[Seat]:
        names = [CAVER_NAMES[r - 1] for r in ranks]
        if self.by_seat is not None:
            if len(self.by_seat) != len(ranks):
                raise PlayError(f"--seats lists {len(self.by_seat)} seats but {len(ranks)} cavers play "
                                f"({', '.join(names)}): give one per seat, in this order")
            return list(self.by_seat)
        seats = [self.others] * len(ranks)
        for key, seat in self.by_caver.items():
            if key.isdigit():
                i = int(key)
                if not 0 <= i < len(ranks):
                    raise PlayError(f"seat {i} does not exist: seats are 0..{len(ranks) - 1} ({', '.join(names)})")
            elif key in names:
                i = names.index(key)
            elif key in CAVER_NAMES:
                raise PlayError(f"{key} is not at the table in this game (the seed drew {', '.join(names)}): pick "
                                f"one of these, or choose the cavers with --cavers {key},...")
            else:
                raise PlayError(f"{key!r} is not a caver: cavers are {', '.join(CAVER_NAMES)} (or a seat number)")
            seats[i] = seat
        return seats


def bot_seat(bots: str) -> Seat:
    """The seat of ``--bots``: a bot kind, never a person; a clear error naming anything else."""
    t = bots.strip()
    if not (t in ("search", "heuristic", "random", "auto", "bot") or t.startswith("policy:")):
        raise PlayError(f"--bots {bots!r} is not a bot: --bots must be a bot kind: {BOT_KINDS} (auto, the default, "
                        "seats the strongest that answers in time)")
    return parse_kind(t, "--bots")


def seat_plan(seats: str | None, humans: Sequence[str], bots: str, watch: bool) -> SeatPlan:
    plan = SeatPlan(others=bot_seat(bots))
    entries = [e.strip() for e in seats.split(",")] if seats else []
    if entries and all("=" in e for e in entries):
        for e in entries:
            key, _, kind = e.partition("=")
            plan.by_caver[key.strip().lower()] = parse_kind(kind, f"--seats {key}")
    elif entries:
        if any("=" in e for e in entries):
            raise PlayError("--seats: either one kind per seat (human,heuristic,...) or CAVER=KIND pairs, not both")
        plan.by_seat = [parse_kind(e, f"--seats entry {i}") for i, e in enumerate(entries)]
    for h in humans:
        for name in h.split(","):
            name = name.strip().lower()
            if name:
                who, _, person = name.partition(":")
                plan.by_caver[who] = Seat("human", name=person or None)
    if not entries and not humans and not watch:
        plan.by_caver["0"] = Seat("human", name="you")
    if watch and (humans or any(s.human for s in (plan.by_seat or []))):
        raise PlayError("--watch plays bots only: drop --human / human seats")
    return plan


# ---------------------------------------------------------------------------------------------- which bot: auto
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


# ---------------------------------------------------------------------------------------------- the game
class Session:
    """One game at the table: the env, who plays each seat, the record being written.

    ``auto`` seats get ``choose_bots`` over ``probe`` (default: ``time_search`` on this game's start);
    ``search_worlds`` sets the worlds of every search seat; ``origin`` is why the other bots sit there."""

    def __init__(self, cfg: GameConfig, seed: int, plan: SeatPlan, max_cycles: int = 200, name: str = "default",
                 notice: list[str] | None = None, search_worlds: int | None = None, origin: str = "as asked",
                 probe: Callable[[], Sequence[float]] | None = None, on_probe: Callable[[], Any] | None = None):
        self.env = raw_env(cfg, max_cycles=max_cycles, record_events=True)  # narration and records tell the log
        self.env.reset(seed=seed)
        self.seed, self.name = seed, name
        ranks = [int(r) for r in self.env.state_.c_rank[0]]
        seats = plan.resolve(ranks)
        auto = {i for i, s in enumerate(seats) if s.kind == "auto"}
        self.choice: BotChoice | None = None
        no_search = search_refuses(cfg.scenario)
        if auto and no_search:
            self.choice = BotChoice(Seat("heuristic"), no_search)
            seats = [self.choice.seat if i in auto else s for i, s in enumerate(seats)]
        elif auto:
            if on_probe is not None:
                on_probe()
            if probe is None:
                core, start = self.env.core, self.env.state_.copy()

                def probe() -> list[float]:
                    return time_search(core, start, max_cycles, search_worlds)
            self.choice = choose_bots(probe, search_worlds)
            seats = [self.choice.seat if i in auto else s for i, s in enumerate(seats)]
        if any(s.kind == "search" for s in seats):
            from agents.search import DEFAULT_WORLDS

            seats = [replace(s, worlds=search_worlds or s.worlds or DEFAULT_WORLDS) if s.kind == "search" else s
                     for s in seats]
        self.seats = seats
        self.bots_desc = bots_line(seats, auto, self.choice, origin)
        self.bots_line = f"Bots: {self.bots_desc}" if self.bots_desc else ""  # shown at the start
        self.humans = {i for i, s in enumerate(seats) if s.human}
        people = sum(1 for s in seats if s.human)
        self.labels = []
        for i, s in enumerate(seats):
            if s.human:
                self.labels.append(s.name or ("you" if people == 1 else f"person {sorted(self.humans).index(i) + 1}"))
            else:
                self.labels.append(s.label)
        self.bots = build_bots(self.env, seats, seed)
        self.record = GameRecord(cfg, seed, max_cycles, bots=self.bots_desc, seats=[
            {"seat": i, "caver": CAVER_NAMES[r - 1], "player": s.player,
             **({"name": self.labels[i]} if s.human else {}), **({"worlds": s.worlds} if s.kind == "search" else {})}
            for i, (r, s) in enumerate(zip(ranks, seats))])
        self.notice = ([self.bots_line] if self.bots_line else []) + list(notice or [])
        self.intents: dict[int, str] = {}  # each bot seat's latest intent line (subterra_game.explain)

    def bot_act(self, seat: int) -> int:
        """The bot's decision at ``seat`` (its own, unchanged), keeping its intent line in ``intents``."""
        from .explain import bot_decision

        action, words = bot_decision(self, seat)
        self.intents[seat] = words
        return action

    # --- what the screen needs
    def title(self) -> str:
        cfg = self.env.config
        return f"seed {self.seed} · {self.name} · {cfg.difficulty} · {cfg.num_cavers} cavers"

    def focus_seat(self) -> int:
        return int(self.env.state_.actor[0])

    @property
    def over(self) -> bool:
        return bool(self.env.episodes.over[0])

    @property
    def truncated(self) -> bool:
        return bool(self.env.episodes.truncated[0])

    def apply(self, action: int, player: str, think_s: float | None = None) -> list[Event]:
        """Take one decision for the acting seat; the record and narration follow. A Ctrl-C in the middle
        leaves the game as it was before."""
        env = self.env
        seat = int(env.state_.actor[0])
        snap = env.get_state()
        before = env.state_.copy()
        n = len(self.record.actions)
        try:
            env.step(int(action))
            self.record.add(seat, CAVER_NAMES[before.c_rank[0, seat] - 1], action, player, think_s,
                            env.last_events)
        except BaseException:  # Ctrl-C half way: the game and the record stay as they were
            env.set_state(snap)
            del self.record.actions[n:]
            raise
        return narrate(env.core, before, env.state_, int(action))

    def replay(self, actions: Sequence[dict[str, Any]], where: str = "record",
               on_step: Callable[[list[Event]], Any] | None = None) -> None:
        """Play a saved game's decisions again (resuming it: ``--resume``, the browser tables on a server start);
        RecordError at the first one that does not replay. ``on_step`` gets each decision's narration."""
        for i, entry in enumerate(actions):
            if self.over or not self.env.legal_mask[int(entry["action"])]:
                raise RecordError(f"{where}: step {i} does not replay (illegal action {entry['action']})")
            events = self.apply(int(entry["action"]), entry.get("player", "?"), entry.get("think_s"))
            if on_step is not None:
                on_step(events)

    def save(self, path: str | Path) -> Path:
        self.record.finish(self.env.state_, truncated=self.truncated)
        return save_record(self.record, path)


def default_record_name(seed: int, finished: bool = True, prefix: str = "subterra") -> str:
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return f"{prefix}-{stamp}-seed{seed}{'' if finished else '-unfinished'}.json"


def play_session(session: Session, ui: Any, save: str | None = None, interactive: bool = True) -> int:
    """Play to the end (or until the person stops); returns the exit code (0 played out, 130 stopped)."""
    env = session.env
    ui.add_events(Event("info", line) for line in session.notice)  # stays in "what happened"
    while not session.over:
        try:
            seat = int(env.state_.actor[0])
            spec = session.seats[seat]
            if spec.human:
                legal = [int(a) for a in np.flatnonzero(env.legal_mask)]
                caver = CAVER_NAMES[env.state_.c_rank[0, seat] - 1].upper()
                who = session.labels[seat]
                title = f"{who}: your move as the {caver} (seat {seat}) · {int(env.state_.ap[0])} AP left"
                if env.state_.r_seat[0] >= 0:  # a pause of the gas, not a turn (explicit_reactions, R-INV-18)
                    title = (f"{who}: the {caver} (seat {seat}) holds the GAS MASK · the gas would take "
                             f"{int(env.state_.r_lose[0])} health: use the mask?")
                elif env.state_.directing[0] >= 0:
                    title += " · directed by the leader: one 1-AP action (end turn declines)"
                t0 = time.monotonic()
                action = ui.choose(session, legal, title)
                ui.add_events(session.apply(action, spec.player, time.monotonic() - t0))
            else:
                action = session.bot_act(seat)
                ui.add_events(session.apply(action, spec.player))
                ui.bot_moved(session)
        except KeyboardInterrupt:
            code = paused(session, ui)
            if code is not None:
                return code
        except EOFError:
            path = session.save(default_record_name(session.seed, finished=False))
            ui.say(f"\ninput closed: the game so far is saved to {path} "
                   f"(go on with: subterra play --resume {path})", style="bold yellow")
            return 130
    ui.final(session)
    if save:
        path = session.save(save)
        ui.say(f"game record saved to {path}", style="bold green")
    elif interactive:
        try:
            default = default_record_name(session.seed)
            ans = ui.ask(f"save the game record? file name [{default}], n = no: ", default)
            if ans.lower() not in ("n", "no"):
                path = session.save(ans if ans.endswith(".json") else ans + ".json")
                ui.say(f"game record saved to {path}", style="bold green")
                ui.say(f"replay it: subterra replay {path}   or as a GIF: subterra replay {path} --gif game.gif",
                       style="dim")
        except (KeyboardInterrupt, EOFError):
            ui.say("\nnot saved")
    return 0


def paused(session: Session, ui: Any) -> int | None:
    """Ctrl-C or q: continue, save and quit, or quit. None means go on playing."""
    while True:
        try:
            ans = ui.ask("\ngame paused: [c] continue, [s] save and quit, [q] quit without saving: ", "c").lower()
        except (KeyboardInterrupt, EOFError):
            path = session.save(default_record_name(session.seed, finished=False))
            ui.say(f"\nstopped; the game so far is saved to {path}", style="bold yellow")
            return 130
        if ans in ("c", "continue"):
            return None
        if ans in ("q", "quit"):
            ui.say("quit without saving")
            return 130
        if ans in ("s", "save"):
            default = default_record_name(session.seed, finished=session.over)
            try:
                name = ui.ask(f"file name [{default}]: ", default)
            except (KeyboardInterrupt, EOFError):
                name = default
            path = session.save(name)
            ui.say(f"saved to {path}; go on later with: subterra play --resume {path}", style="bold green")
            return 130
        ui.say(f"{ans!r}: type c, s or q")


# ---------------------------------------------------------------------------------------------- command line
def game_config(args: argparse.Namespace) -> tuple[GameConfig, str]:
    """Settings from --config (a YAML file or a preset name) and the flags that override it."""
    if args.config and not Path(args.config).is_file() and args.config not in PRESETS:
        raise PlayError(f"--config {args.config!r}: no such file, and not a preset ({', '.join(PRESETS)})")
    return table_config(args.config, args.num_cavers, args.difficulty, args.cavers, files=True)


def table_config(config: str | None, num_cavers: int | None = None, difficulty: str | None = None,
                 cavers: str | None = None, files: bool = True) -> tuple[GameConfig, str]:
    """A table's settings: ``config`` a preset name (or, with ``files``, a YAML file), then the overrides; the
    terminal game and the browser tables (``subterra_game.web``, which passes ``files=False``: a client never names
    a file on the server) both build their games here."""
    try:
        if config:
            p = Path(config)
            if files and p.is_file():
                cfg, name = load(p), p.stem
            elif config in PRESETS:
                cfg, name = preset(config), config
            else:
                raise PlayError(f"{config!r} is not a preset ({', '.join(PRESETS)})")
        else:
            cfg, name = GameConfig(), "default"
        over: dict[str, Any] = {}
        if cavers:
            names = tuple(c.strip().lower() for c in cavers.split(",") if c.strip())
            over["cavers"] = names
            over["num_cavers"] = num_cavers or len(names)
        elif num_cavers:
            over["num_cavers"] = num_cavers
        if difficulty:
            over["difficulty"] = difficulty
        return (cfg.replace(**over) if over else cfg), name
    except ConfigError as e:
        raise PlayError(str(e)) from None


def play_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="subterra play", description="Play Sub Terra in the terminal with bots as "
                                "teammates (each caver's seat: human, search, heuristic, random or policy:PATH).",
                                epilog="Keys in the game: a number picks an action, ? shows the rules of every "
                                "action, ? N explains option N, q or Ctrl-C pauses (continue, save, quit).")
    p.add_argument("--config", help="game settings: a YAML file (configs/tiny.yaml) or a preset name (tiny, small, "
                   "medium, full, advanced, ...)")
    p.add_argument("--num-cavers", type=int, choices=(4, 5, 6), help="cavers at the table (default 4)")
    p.add_argument("--difficulty", choices=("easier", "normal", "advanced", "expert"))
    p.add_argument("--cavers", help="fix who plays, e.g. diver,scout,medic,leader (default: drawn from the seed)")
    p.add_argument("--seed", type=int, help="the game's seed (default: a random one, shown and saved)")
    p.add_argument("--max-rounds", type=int, default=200, help="stop the game after this many rounds (default 200)")
    who = p.add_argument_group("seats (default: you play seat 0, bots the rest)")
    who.add_argument("--human", action="append", default=[], metavar="CAVER",
                     help="a caver played by a person: a name (scout) or seat number (0); repeat or comma-separate "
                     "for several people (hot seat); CAVER:NAME names the person")
    who.add_argument("--seats", help="every seat in seat order: human[:NAME],search,heuristic,random,policy:PATH,"
                     "auto; or CAVER=KIND pairs (scout=human,medic=random), the rest --bots")
    who.add_argument("--bots", metavar="KIND", help="every other seat: auto (the default: the strongest bot that "
                     f"answers in time: search when a short timing at the start finds its median decision at most "
                     f"{SEARCH_LIMIT_S:g} s here, else heuristic; the start line says which and why), search (Monte "
                     "Carlo search over the heuristic: strongest, slowest), heuristic (fast), random, or policy:PATH "
                     "(a MaskablePPO .zip; the shipped team, weaker than the heuristic: "
                     "policy:agents/shipped/team.zip). Strongest first: search, heuristic, shipped team, random. "
                     "(bot = auto)")
    who.add_argument("--search-worlds", type=int, metavar="N",
                     help="sampled futures every legal action is played in, per search decision (default: the "
                     "agent's own, agents.search.DEFAULT_WORLDS, each played DEFAULT_HORIZON rounds and then valued "
                     "by its estimate); the cost grows with N: fewer is faster and weaker")
    who.add_argument("--watch", action="store_true", help="bots only: watch them play")
    p.add_argument("--delay", type=float, default=0.5, help="seconds to show each bot decision (default 0.5; 0 = "
                   "no pause)")
    p.add_argument("--save", metavar="FILE", help="save the game record here at the end (else you are asked)")
    p.add_argument("--resume", metavar="FILE", help="go on with a saved unfinished game (its settings, seed and "
                   "seats; --seats/--human/--bots override the seats)")
    p.add_argument("--no-color", action="store_true", help="no colours (also: the NO_COLOR environment variable)")
    return p


def replay_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="subterra replay", description="Replay a saved game record: step through it "
                                "in the terminal, or write its frames as PNG files or an animated GIF. The record "
                                "is checked first: it must replay to the result and final state it stored.")
    p.add_argument("file", help="a game record (.json) written by subterra play")
    add_replay_options(p, delay=0.5, cell=48, unit="tile")
    p.add_argument("--show", action="store_true", help="step through it in the terminal too when writing files")
    return p


def _console(no_color: bool) -> Any:
    from rich.console import Console

    return Console(highlight=False, no_color=no_color or bool(os.environ.get("NO_COLOR")))


def play_main(argv: Sequence[str]) -> int:
    args = play_parser().parse_args(list(argv))
    from .tui import TerminalUI

    ui = TerminalUI(_console(args.no_color), delay=args.delay)
    try:
        resumed = None
        if args.resume:
            resumed = load_record(args.resume)
            cfg, name, seed = record_config(resumed, args.resume), Path(args.resume).stem, int(resumed["seed"])
            max_cycles = int(resumed["max_cycles"])
            origin = "as asked"
            if args.seats or args.human or args.watch:
                plan = seat_plan(args.seats, args.human, args.bots or "auto", args.watch)
            else:
                saved = [seat_from_record(s) for s in resumed["seats"]]
                if args.bots is not None:  # --bots alone: the people stay, the bots change
                    others = bot_seat(args.bots)
                    saved = [s if s.human else others for s in saved]
                else:
                    origin = "as in the saved game"
                plan = SeatPlan(by_seat=saved)
        else:
            cfg, name = game_config(args)
            seed = args.seed if args.seed is not None else secrets.randbelow(10**6)
            max_cycles = args.max_rounds
            origin = "as asked"
            plan = seat_plan(args.seats, args.human, args.bots or "auto", args.watch)
        if args.search_worlds is not None and args.search_worlds < 1:
            raise PlayError(f"--search-worlds {args.search_worlds}: at least 1 world")

        def on_probe() -> None:
            if ui.full_screen:  # a second or so before the first screen
                ui.say("choosing the bots: timing a few search decisions ...", style="dim")

        session = Session(cfg, seed, plan, max_cycles=max_cycles, name=name, search_worlds=args.search_worlds,
                          origin=origin, on_probe=on_probe)
        if resumed is not None:
            session.replay(resumed["actions"], args.resume)
            ui.say(f"resumed after {len(resumed['actions'])} decisions", style="bold green")
    except (PlayError, RecordError) as e:
        ui.say(f"error: {e}")
        return 2
    interactive = sys.stdin.isatty()
    return play_session(session, ui, save=args.save, interactive=interactive)


class _ReplayView:
    """What the terminal screen reads, for a replayed game at one of its steps."""

    def __init__(self, doc: dict, replay: Any, name: str):
        self.doc, self.replay, self.name = doc, replay, name
        self.labels = seat_labels(doc)
        self.humans = {i for i, s in enumerate(doc["seats"]) if s.get("player") == "human"}
        self.env = SimpleNamespace(core=replay.env.core, state_=replay.states[0], max_cycles=replay.env.max_cycles,
                                   config=replay.env.config)
        self.step = 0
        self.keys = "Enter next · b back · q quit"

    def title(self) -> str:
        n = len(self.doc["actions"])
        return f"replay {self.name} · seed {self.doc['seed']} · step {self.step}/{n}"

    def focus_seat(self) -> int:
        return int(self.env.state_.actor[0])

    def events(self, i: int) -> list[Event]:
        a = self.doc["actions"][i - 1]
        return narrate(self.env.core, self.replay.states[i - 1], self.replay.states[i], int(a["action"]))


def replay_main(argv: Sequence[str]) -> int:
    args = replay_parser().parse_args(list(argv))
    from rich.text import Text

    from .tui import TerminalUI

    ui = TerminalUI(_console(args.no_color), delay=args.delay)
    try:
        doc = load_record(args.file)
        rep = replay_record(doc, where=args.file)
    except RecordError as e:
        ui.say(f"error: {e}")
        return 2
    res = doc["result"]
    n = len(doc["actions"])
    ui.say(f"{args.file}: {n} decisions replayed to the recorded result ({res.get('name', result_name(res['code']))}"
           f"{'' if res.get('finished') else ', unfinished'}) and final state hash {doc['final_state_hash']}",
           style="green")
    wrote = False
    if args.png:
        paths = write_pngs(doc, args.png, cell=args.cell, replay=rep)
        ui.say(f"wrote {len(paths)} frames: {paths[0]} .. {paths[-1]}", style="bold green")
        wrote = True
    if args.gif:
        path = write_gif(doc, args.gif, delay=args.delay, cell=args.cell, replay=rep)
        ui.say(f"wrote {path} ({n + 1} frames, {args.delay:g} s each)", style="bold green")
        wrote = True
    if wrote and not args.show:
        return 0
    view = _ReplayView(doc, rep, Path(args.file).stem)
    auto = args.auto or not sys.stdin.isatty()
    i = 0
    try:
        while True:
            view.step, view.env.state_ = i, rep.states[i]
            ui.log.clear()
            for k in range(max(1, i - 3), i + 1):
                ui.log.extend(view.events(k))
            if not ui.full_screen and i:  # a pipe: the narration as lines
                for ev in view.events(i):
                    ui.console.print(Text(ev.text))
            if ui.full_screen:
                keys = "auto" if auto else "Enter next · b back · a number jumps · q quit"
                ui.draw(view, footer=Text(f"step {i}/{n} · {keys}", style="bold yellow"))
            if i == n and auto:
                break
            if auto:
                time.sleep(args.delay)
                i += 1
                continue
            ans = ui.ask("" if ui.full_screen else f"step {i}/{n} (Enter next, b back, q quit): ").lower()
            if ans in ("q", "quit"):
                break
            if ans in ("b", "back"):
                i = max(0, i - 1)
            elif ans.isdigit():
                i = min(n, int(ans))
            elif i < n:
                i += 1
            else:
                break
    except (KeyboardInterrupt, EOFError):
        pass
    view.step, view.env.state_ = n, rep.states[-1]
    if ui.full_screen:
        ui.final(view)
    else:
        st = rep.states[-1]
        escaped = game_info(st, 0)["escaped"]
        ui.say(f"result: {result_name(int(st.result[0]))} (escaped {escaped}, round {int(st.round[0])})",
               style="bold")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``subterra [play] ...``, ``subterra replay FILE ...``, ``subterra serve ...`` or ``subterra itc ...``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "replay":
        return replay_main(argv[1:])
    if argv and argv[0] == "itc":  # In the Cave against bot teams (subterra_game.itc_play)
        from .itc_play import itc_main

        return itc_main(argv[1:])
    if argv and argv[0] == "serve":  # the browser table: its own subpackage, which needs the web extra
        try:
            from .web.server import serve_main
        except ImportError as e:
            print(f"error: subterra serve needs the web extra (missing: {e.name}): pip install -e '.[web]'",
                  file=sys.stderr)
            return 2
        return serve_main(argv[1:])
    if argv and argv[0] == "play":
        argv = argv[1:]
    if argv and argv[0] in ("-h", "--help") and len(argv) == 1:
        print("subterra COMMAND ...   commands:\n"
              "  play     Sub Terra in the terminal beside bots (the default: 'play' may be left out)\n"
              "  replay   a saved game again: terminal, PNG frames, GIF\n"
              "  serve    the browser table: people and bots, each person by a link\n"
              "  itc      In the Cave against bot teams (itc replay FILE: a saved In the Cave game)\n"
              "subterra COMMAND --help shows each one's options; subterra play's follow.\n")
        play_parser().print_help()
        print("\nsubterra replay FILE [--auto] [--delay S] [--png DIR] [--gif FILE]: see subterra replay --help")
        print("subterra serve [--host H] [--port P] [--data DIR]: play in the browser; see subterra serve --help")
        print("subterra itc [--players N] [--seats ...] | itc replay FILE: In the Cave against bot teams; see "
              "subterra itc --help")
        return 0
    return play_main(argv)


def _entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    _entry()

__all__ = ["BotChoice", "PlayError", "Seat", "SeatPlan", "Session", "choose_bots", "main", "parse_kind",
           "play_session", "seat_plan", "time_search"]
