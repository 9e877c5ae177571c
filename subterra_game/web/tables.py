"""Tables: games in progress on the server, each a ``play.Session`` (the terminal game's own seating, bots,
stepping and record), with a secret token per person's seat, saved after every decision and resumed on start.

On disk, under the server's data folder::

    tables/ID.json     the table: created, the bots' delay, a SHA-256 of each person's seat token
    records/ID.json    the game record (``subterra_game.records``, schema 1): ``subterra replay`` reads it

A seat's token is shown once, in its link; only its hash is kept, so a stolen data folder gives no seat away.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import hashlib
import hmac
import json
import logging
import os
import secrets
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from subterra_env.config import CAVER_NAMES
from subterra_env.core.actions import ACTION_NAMES
from ..narrate import Event
from ..play import PlayError, Seat, SeatPlan, Session, parse_kind, seat_from_record, shipped_team_path, table_config
from ..records import RecordError, load_record, record_config
from .protocol import ClientError, TableRequest, check_table_id
from .view import board_view

log = logging.getLogger("subterra.web")
EVENTS_KEPT = 40  # lines of "what happened" a table keeps (the page shows them newest last)
SAVE_EVERY_S = 1.0  # the longest a run of bot decisions goes unsaved
KEEP_FINISHED = 50  # finished games kept in memory; older ones are loaded from their files when asked for


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _write_json(path: Path, doc: dict[str, Any]) -> None:
    """Write then rename: a crash mid-write never leaves half a file where a table was."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1))
    os.replace(tmp, path)


class Table:
    """One game and the browsers watching it. Every change of the game happens under ``lock``."""

    def __init__(self, table_id: str, session: Session, token_hashes: dict[int, str], delay: float,
                 store: TableStore, created: str | None = None):
        self.id, self.session, self.tokens, self.delay, self.store = table_id, session, token_hashes, delay, store
        self.created = created or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        self.events: deque[Event] = deque(maxlen=EVENTS_KEPT)
        self.lock = asyncio.Lock()
        self.listeners: dict[Any, int | None] = {}  # websocket -> seat it plays (None: watching)
        self.driver: asyncio.Task | None = None
        self.turn_began = time.monotonic()  # a person's think time runs from the last change
        self.saved_at = 0.0

    # --- who may act
    def check_token(self, seat: int, token: str) -> None:
        if seat >= len(self.session.seats):
            raise ClientError("bad_seat", f"seat {seat} does not exist at this table (seats 0..{len(self.session.seats) - 1})")
        want = self.tokens.get(seat)
        if want is None:
            raise ClientError("bad_seat", f"seat {seat} is played by a bot ({self.session.labels[seat]}): nobody joins it")
        if not hmac.compare_digest(want, _hash(token)):
            raise ClientError("bad_token", f"wrong token for seat {seat}: open the link made for that seat")

    @property
    def decisions(self) -> int:
        return len(self.session.record.actions)

    def view(self) -> dict[str, Any]:
        s = self.session
        env = s.env
        over = bool(s.over)
        return {"type": "state", "table": self.id, "title": s.title(), "decisions": self.decisions, "over": over,
                "truncated": bool(s.truncated), "delay": self.delay, "record": f"{self.id}.json",
                "seats": [{"seat": i, "caver": CAVER_NAMES[int(env.state_.c_rank[0, i]) - 1], "player": s.labels[i],
                           "human": seat.human} for i, seat in enumerate(s.seats)],
                "board": board_view(env.core, env.state_, env.legal_mask, s.labels, s.humans, env.max_cycles),
                "events": [{"kind": e.kind, "text": e.text} for e in self.events]}

    # --- changing the game
    async def act(self, seat: int | None, action: int, step: int) -> None:
        """A person's decision; ClientError (the game untouched) for anything not legal for them now."""
        async with self.lock:
            s = self.session
            if seat is None:
                raise ClientError("not_seated", "you are watching this table: open a seat's link to play")
            if s.over:
                raise ClientError("game_over", "the game is over: no more decisions")
            actor = int(s.env.state_.actor[0])
            if seat != actor:
                raise ClientError("not_your_turn", f"it is the {CAVER_NAMES[int(s.env.state_.c_rank[0, actor]) - 1]}'s "
                                  f"turn (seat {actor}, {s.labels[actor]}), not seat {seat}'s")
            if step != self.decisions:
                raise ClientError("stale", f"the game moved on (decision {self.decisions} now; the click was made "
                                  f"on decision {step}): look again and choose")
            if not s.env.legal_mask[action]:
                legal = ", ".join(ACTION_NAMES[a] for a in np.flatnonzero(s.env.legal_mask))
                raise ClientError("illegal_action", f"{ACTION_NAMES[action]!r} (action {action}) is not legal now "
                                  f"for the {CAVER_NAMES[int(s.env.state_.c_rank[0, seat]) - 1]}; legal: {legal}")
            self._apply(action, s.seats[seat].player, time.monotonic() - self.turn_began, person=True)
        await self.changed()

    def _apply(self, action: int, player: str, think_s: float | None = None, person: bool = False) -> None:
        """One decision, then the record on disk: at once after a person's decision, when a person is to act next
        and at the end; during a run of bot decisions at most every SAVE_EVERY_S (a crash there costs only bot
        moves, which the bots play again on resume; saving the whole record after each was most of the server's
        work with many tables)."""
        self.events.extend(self.session.apply(action, player, think_s))
        self.turn_began = time.monotonic()
        s = self.session
        if person or s.over or s.seats[int(s.env.state_.actor[0])].human \
                or self.turn_began - self.saved_at >= SAVE_EVERY_S:
            self.save()
        if self.session.over:
            self.events.append(Event("result", f"game over: {self.session.record.result.get('name', '?')}; "
                                     f"record saved as {self.id}.json"))
            self.store.put_away()

    async def changed(self) -> None:
        await self.broadcast()
        self.kick()

    def kick(self) -> None:
        """Start the bots if one of them is to act (one driver per table)."""
        s = self.session
        if s.over or s.seats[int(s.env.state_.actor[0])].human:
            return
        if self.driver is None or self.driver.done():
            self.driver = asyncio.get_running_loop().create_task(self._drive())
            self.driver.add_done_callback(self._driver_done)

    def _driver_done(self, task: asyncio.Task) -> None:
        """A bot that fails stops its table (never silently): the error goes to the log and to the page."""
        if task.cancelled() or task.exception() is None:
            return
        e = task.exception()
        log.error("table %s: the bots stopped: %r", self.id, e, exc_info=e)
        self.events.append(Event("error", f"the bots stopped: {type(e).__name__}: {e}"))

    async def _drive(self) -> None:
        """The bots' turns at the table's pace; a bot thinks in a worker thread so other tables go on."""
        s = self.session
        while not s.over:
            seat = int(s.env.state_.actor[0])
            if s.seats[seat].human:
                return
            if self.delay:
                await asyncio.sleep(self.delay)
            async with self.lock:
                seat = int(s.env.state_.actor[0])
                if s.over or s.seats[seat].human:
                    return
                action = await asyncio.to_thread(s.bots[seat].act, s.env, seat)
                self._apply(int(action), s.seats[seat].player)
            await self.broadcast()

    async def broadcast(self) -> None:
        if not self.listeners:
            return
        doc = self.view()
        for ws, seat in list(self.listeners.items()):
            try:
                await ws.send_str(json.dumps({**doc, "you": seat}))
            except (ConnectionError, RuntimeError):  # a closed browser: forget it
                self.listeners.pop(ws, None)

    def save(self) -> None:
        self.saved_at = time.monotonic()
        self.session.save(self.store.records / f"{self.id}.json.tmp")
        os.replace(self.store.records / f"{self.id}.json.tmp", self.store.records / f"{self.id}.json")

    def save_meta(self) -> None:
        _write_json(self.store.tables / f"{self.id}.json", {
            "id": self.id, "created": self.created, "delay": self.delay, "record": f"{self.id}.json",
            "tokens": {str(k): v for k, v in self.tokens.items()}})


def default_policy() -> Path:
    """The shipped team: its ONNX export where onnxruntime is installed (no torch needed), else the .zip."""
    onnx = shipped_team_path().with_suffix(".onnx")
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return shipped_team_path()
    return onnx if onnx.is_file() else shipped_team_path()


class TableStore:
    """Every table of this server, kept under ``data`` (see the module docstring)."""

    def __init__(self, data: str | Path, policy: str | Path | None = None):
        self.data = Path(data)
        self.tables, self.records = self.data / "tables", self.data / "records"
        self.tables.mkdir(parents=True, exist_ok=True)
        self.records.mkdir(parents=True, exist_ok=True)
        self.policy = Path(policy) if policy else default_policy()  # what the "policy" seat plays
        self.by_id: dict[str, Table] = {}

    def get(self, table_id: str) -> Table:
        """A table in memory, or one saved here (a finished game put away, loaded again from its record)."""
        check_table_id(table_id)
        table = self.by_id.get(table_id)
        if table is None:
            meta = self.tables / f"{table_id}.json"
            if not meta.is_file():
                raise ClientError("no_table", f"no table {table_id} on this server")
            try:
                table = self.resume(meta)
            except (OSError, ValueError, KeyError, TypeError, RecordError, PlayError) as e:
                raise ClientError("no_table", f"table {table_id} cannot be loaded: {e}") from None
        return table

    def put_away(self) -> None:
        """Keep at most KEEP_FINISHED finished games in memory (their files stay: ``get`` loads one again), so a
        server that hosts game after game stays the same size."""
        done = [t for t in self.by_id.values() if t.session.over and not t.listeners]
        for t in done[: max(0, len(done) - KEEP_FINISHED)]:  # oldest first: dicts keep insertion order
            del self.by_id[t.id]

    def seat(self, entry: str) -> Seat:
        kind, _, name = entry.partition(":")
        if kind == "policy":
            if not self.policy.is_file():
                raise ClientError("bad_table", f"no policy bot on this server (no checkpoint at {self.policy.name})")
            return Seat("policy", path=str(self.policy))
        return Seat("human", name=name or None) if kind == "human" else parse_kind(kind)

    def create(self, req: TableRequest) -> tuple[Table, dict[int, str]]:
        """A new table (blocking: loading bots may take a second; the server runs it in a thread). Returns the
        table and each person's seat token (shown once)."""
        try:
            cfg, name = table_config(req.preset, req.num_cavers, req.difficulty, files=False)
            seats = [self.seat(e) for e in req.seats]
            if len(seats) != cfg.num_cavers:
                raise ClientError("bad_table", f"{len(seats)} seats but {cfg.num_cavers} cavers play: one seat each")
            seed = req.seed if req.seed is not None else secrets.randbelow(10**6)
            session = Session(cfg, seed, SeatPlan(by_seat=seats), max_cycles=req.max_rounds, name=name)
        except PlayError as e:
            raise ClientError("bad_table", str(e)) from None
        table_id = secrets.token_hex(6)
        tokens = {i: secrets.token_urlsafe(18) for i, s in enumerate(session.seats) if s.human}
        table = Table(table_id, session, {i: _hash(t) for i, t in tokens.items()}, req.delay, self)
        table.events.extend(Event("info", line) for line in session.notice)
        table.save_meta()
        table.save()
        self.by_id[table_id] = table
        return table, tokens

    def resume(self, meta_path: Path) -> Table:
        """A table saved before (its record played again through a Session, as ``subterra play --resume``)."""
        meta = json.loads(meta_path.read_text())
        table_id = check_table_id(str(meta["id"]))
        doc = load_record(self.records / f"{table_id}.json")
        seats = [seat_from_record(s) for s in doc["seats"]]
        session = Session(record_config(doc, table_id), int(doc["seed"]), SeatPlan(by_seat=seats),
                          max_cycles=int(doc["max_cycles"]), name=table_id)
        session.record.created = str(doc.get("created", session.record.created))
        table = Table(table_id, session, {int(k): str(v) for k, v in meta["tokens"].items()}, float(meta["delay"]),
                      self, created=meta.get("created"))
        session.replay(doc["actions"], table_id, on_step=table.events.extend)
        table.events.append(Event("info", f"resumed after {table.decisions} decisions"))
        self.by_id[table_id] = table
        return table

    def resume_all(self, say: Callable[[str], Any] = log.warning) -> list[Table]:
        """Every saved game in progress (finished ones load when asked for, ``get``); one that cannot be read is
        named and skipped (its files are left as they are)."""
        out = []
        for p in sorted(self.tables.glob("*.json")):
            try:
                doc = json.loads((self.records / p.name).read_text())
                if isinstance(doc, dict) and isinstance(doc.get("result"), dict) and doc["result"].get("finished"):
                    continue
                out.append(self.resume(p))
            except (OSError, ValueError, KeyError, TypeError, RecordError, PlayError, ClientError) as e:
                say(f"table {p.name} not resumed: {e}")
        return out
