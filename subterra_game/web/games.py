"""The games a table can hold, behind the one small face that ``tables``, ``server`` and the page share.

A game (``SubTerraGame`` here, ``itc_game.ItcGame`` for In the Cave) wraps the game app's session, the one the
terminal plays too (Sub Terra's ``session.Session``, In the Cave's ``in_the_cave.session.Table``): its seats, bots,
stepping, narration and record. A table never steps an env itself and never decides anything about the rules; it
asks its game:

    kind                      "subterra" or "itc" (the page picks its board by it)
    seed, labels, private     the seed; who plays each seat; whether views differ by viewer (hidden information)
    actor() / human(seat)     the seat to act now (-1 after the end); whether a person plays a seat
    over, truncated, decisions, title(), seats()
    check_turn(seat)                               ClientError (the game untouched) when not
    apply(action, seat, think_s) -> [Event]        one decision; what to tell everyone. The env checks it: an
                                                   action out of range or not legal now is a ClientError
                                                   (bad_action, illegal_action), the game untouched
    bot_action(seat) -> action                     a bot's choice (called in a worker thread)
    view(viewer) -> dict      what the page draws for the person at seat ``viewer`` (None: watching)
    secret()                  whether the record would tell hidden information now (it is not served then)
    save(path), result_name(), state_hash(), notice (what "what happened" starts with: [Event])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from subterra_env.config import CAVER_NAMES, PRESETS, ConfigError, GameConfig, preset
from subterra_env.games.sub_terra.core.actions import ACTION_NAMES
from subterra_env.env import IllegalActionError
from ..bots import build_bots
from ..narrate import Event
from ..records import load_record, record_config, settings_to_json, state_hash
from ..seats import PlayError, Seat, SeatPlan, seat_from_record
from ..session import Session, table_config
from .protocol import ClientError, TableRequest
from .view import board_view


def preset_name(cfg: GameConfig) -> str:
    """The preset a game's settings come from (its table size and difficulty aside), or "custom"."""
    want = settings_to_json(cfg)
    for name in sorted(PRESETS, key=lambda n: n == "default"):  # "full" before "default", the same settings
        try:  # the table's size, difficulty and cavers are the table's choice, not the cave's
            p = preset(name).replace(num_cavers=cfg.num_cavers, difficulty=cfg.difficulty, cavers=cfg.cavers)
        except ConfigError:
            continue
        if settings_to_json(p) == want:
            return name
    return "custom"


class SubTerraGame:
    """A Sub Terra game at a table: ``session.Session`` (the terminal game's seating, bots, stepping and record)."""

    kind = "subterra"
    private = False  # every viewer sees the same board

    def __init__(self, session: Session):
        self.session = session
        self.seed, self.labels = session.seed, session.labels
        self.notice = [Event("info", line) for line in session.notice]

    @classmethod
    def create(cls, req: TableRequest, seat: Callable[[str], Seat], seed: int) -> SubTerraGame:
        """A new game from a checked request; ``seat`` turns a request's seat entry into a Seat."""
        try:
            cfg, name = table_config(req.preset, req.num_cavers, req.difficulty, files=False)
            seats = [seat(e) for e in req.seats]
            if sum(s.human for s in seats) > 1:  # named by their seat, as the page's header and links say
                seats = [replace(s, name=s.name or f"person at seat {i}") if s.human else s
                         for i, s in enumerate(seats)]
            if len(seats) != cfg.num_cavers:
                raise ClientError("bad_table", f"{len(seats)} seats but {cfg.num_cavers} cavers play: one seat each")
            return cls(Session(cfg, seed, SeatPlan(by_seat=seats), max_cycles=req.max_rounds, name=name))
        except PlayError as e:
            raise ClientError("bad_table", str(e)) from None

    @classmethod
    def resume(cls, path: Path, name: str, on_step: Callable[[list[Event]], Any],
               title_name: str | None = None) -> SubTerraGame:
        """A game saved before (its record played again through a Session, as ``subterra play --resume``); ``name``
        says where the record is in errors, ``title_name`` is the cave's name for the title (tables saved before
        it was kept: the preset whose settings the record has, else "custom")."""
        doc = load_record(path)
        seats = [seat_from_record(s) for s in doc["seats"]]
        cfg = record_config(doc, name)
        session = Session(cfg, int(doc["seed"]), SeatPlan(by_seat=seats), max_cycles=int(doc["max_cycles"]),
                          name=title_name if isinstance(title_name, str) else preset_name(cfg))
        session.record.created = str(doc.get("created", session.record.created))
        session.replay(doc["actions"], name, on_step=on_step)
        return cls(session)

    @property
    def name(self) -> str:
        """The cave's name (the preset): the title's, kept in the table's file."""
        return self.session.name

    # --- the game now
    def actor(self) -> int:
        return int(self.session.env.state_.actor[0])

    def human(self, seat: int) -> bool:
        return self.session.seats[seat].human

    @property
    def over(self) -> bool:
        return bool(self.session.over)

    @property
    def truncated(self) -> bool:
        return bool(self.session.truncated)

    @property
    def decisions(self) -> int:
        return len(self.session.record.actions)

    def title(self) -> str:
        return self.session.title()

    def caver(self, seat: int) -> str:
        return CAVER_NAMES[int(self.session.env.state_.c_rank[0, seat]) - 1]

    def seats(self) -> list[dict[str, Any]]:
        return [{"seat": i, "caver": self.caver(i), "player": self.labels[i], "human": s.human}
                for i, s in enumerate(self.session.seats)]

    # --- a decision
    def check_turn(self, seat: int) -> None:
        actor = self.actor()
        if seat != actor:
            raise ClientError("not_your_turn", f"it is the {self.caver(actor)}'s turn (seat {actor}, "
                              f"{self.labels[actor]}), not seat {seat}'s")

    def apply(self, action: int, seat: int, think_s: float | None = None) -> list[Event]:
        """One decision of ``seat``, checked by the env: one it refuses (``IllegalActionError``) is a ClientError
        saying why, the game and the record as they were."""
        try:
            return self.session.apply(action, self.session.seats[seat].player, think_s)
        except IllegalActionError:
            raise self.refused(seat, action) from None

    def refused(self, seat: int, action: int) -> ClientError:
        """The client's error for an action the env refused: out of this table's range (a scenario's actions go
        past the base game's 90) or not legal now, with the legal ones by name."""
        mask = self.session.env.legal_mask
        if not 0 <= action < len(mask):
            return ClientError("bad_action", f"'action' {action} is out of range 0..{len(mask) - 1} at this table")
        legal = ", ".join(ACTION_NAMES[a] for a in np.flatnonzero(mask))
        return ClientError("illegal_action", f"{ACTION_NAMES[action]!r} (action {action}) is not legal now for the "
                           f"{self.caver(seat)}; legal: {legal}")

    def bot_action(self, seat: int) -> int:
        """The bot's decision (its own), keeping its intent line (``intents``)."""
        return self.session.bot_act(seat)

    def intents(self) -> dict[int, str]:
        """Each bot seat's latest intent line (``subterra_game.explain``)."""
        return {s: t for s, t in self.session.intents.items() if t and not self.human(s)}

    def quick(self, action: int) -> bool:
        """A decision nobody needs to watch: forced (the only legal action) or free (ending the turn)."""
        return int(self.session.env.legal_mask.sum()) <= 1 or ACTION_NAMES[action] == "end turn"

    def hint(self, seat: int) -> dict[str, Any]:
        """What the strongest bot here would do in ``seat``'s place, and why (blocking)."""
        from ..explain import hint

        try:
            return hint(self.session, seat)
        except ValueError as e:
            raise ClientError("no_hint", str(e)) from None

    def hand_over(self, seat: int) -> str:
        """A person's seat played by the heuristic from now on (the person left); the record says so. Returns the
        seat's new label."""
        s = self.session
        if not s.seats[seat].human:
            raise ClientError("bad_seat", f"seat {seat} is already played by a bot ({self.labels[seat]})")
        s.seats[seat] = Seat("heuristic")
        s.bots[seat] = build_bots(s.env, [Seat("heuristic")], self.seed)[0]
        s.humans.discard(seat)
        self.labels[seat] = f"heuristic (for {self.labels[seat]})"
        s.record.seats[seat]["player"] = "heuristic"
        return self.labels[seat]

    # --- what the page and the files get
    def view(self, viewer: int | None = None) -> dict[str, Any]:
        s, env = self.session, self.session.env
        return board_view(env.core, env.state_, env.legal_mask, s.labels, s.humans, env.max_cycles)

    def secret(self) -> bool:
        return False  # everything in a Sub Terra record is public

    def save(self, path: Path) -> Path:
        return self.session.save(path)

    def result_name(self) -> str:
        return str(self.session.record.result.get("name", "?"))

    def state_hash(self) -> str:
        return state_hash(self.session.env.state_)

