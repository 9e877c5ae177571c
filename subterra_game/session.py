"""One Sub Terra game at a table, below both the terminal (``play``) and the browser tables (``web``): the
table's settings (``table_config``), the env, who plays each seat and their bots, each decision with its narration,
the record being written. Nothing here reads a keyboard or a socket; an illegal action is refused by the env
(``IllegalActionError``), which leaves the game and the record as they were.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from subterra_env.config import CAVER_NAMES, PRESETS, ConfigError, GameConfig, load, preset
from subterra_env.env import IllegalActionError, raw_env
from .bots import BotChoice, bots_line, build_bots, choose_bots, time_search
from .explain import search_refuses
from .narrate import Event, narrate
from .records import GameRecord, RecordError, save_record
from .seats import PlayError, Seat, SeatPlan


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
        RecordError at the first one that does not replay (the env refuses an illegal action, the game unchanged).
        ``on_step`` gets each decision's narration."""
        for i, entry in enumerate(actions):
            if self.over:
                raise RecordError(f"{where}: step {i} does not replay (the game is over; action {entry['action']})")
            try:
                events = self.apply(int(entry["action"]), entry.get("player", "?"), entry.get("think_s"))
            except IllegalActionError as e:
                raise RecordError(f"{where}: step {i} does not replay (illegal action {entry['action']}: {e})"
                                  ) from None
            if on_step is not None:
                on_step(events)

    def save(self, path: str | Path) -> Path:
        self.record.finish(self.env.state_, truncated=self.truncated)
        return save_record(self.record, path)
