"""Tables: games in progress on the server, each a game of ``games`` (Sub Terra: ``session.Session``, as the
terminal plays it; In the Cave: ``in_the_cave.session.Table``, through ``itc_game``), with a secret token per
person's seat, saved after every decision and resumed on start. Nothing here knows the rules of either game.

On disk, under the server's data folder::

    tables/ID.json     the table: the game (subterra or itc), created, the bots' delay, a SHA-256 of each seat token
    records/ID.json    the game record: Sub Terra's (``records``, ``subterra replay`` reads it) or In the Cave's
                       (``in_the_cave.records``, ``subterra itc replay`` reads it)

A seat's token is shown once, in its link; only its hash is kept, so a stolen data folder gives no seat away.
"""

from __future__ import annotations

import asyncio
import dataclasses
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

from ..narrate import Event
from ..bots import shipped_team_path
from ..seats import PlayError, Seat, parse_kind
from ..records import RecordError
from .games import SubTerraGame
from .itc_game import ItcGame
from .protocol import ClientError, ItcTableRequest, TableRequest, check_table_id

Game = SubTerraGame | ItcGame
GAMES: dict[str, type[SubTerraGame] | type[ItcGame]] = {"subterra": SubTerraGame, "itc": ItcGame}

log = logging.getLogger("subterra.web")
EVENTS_KEPT = 40  # lines of "what happened" a table keeps (the page shows them newest last)
SAVE_EVERY_S = 1.0  # the longest a run of bot decisions goes unsaved
KEEP_FINISHED = 50  # finished games kept in memory; older ones are loaded from their files when asked for
EXPIRE_DAYS = 14.0  # a game in progress untouched this long is abandoned: put aside, never replayed on start again


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _write_json(path: Path, doc: dict[str, Any]) -> None:
    """Write then rename: a crash mid-write never leaves half a file where a table was."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1))
    os.replace(tmp, path)


class Table:
    """One game and the browsers watching it. Every change of the game happens under ``lock``."""

    def __init__(self, table_id: str, game: Game, token_hashes: dict[int, str], delay: float,
                 store: TableStore, created: str | None = None, request: dict[str, Any] | None = None,
                 creator: int | None = None):
        self.id, self.game, self.tokens, self.delay, self.store = table_id, game, token_hashes, delay, store
        self.created = created or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        self.events: deque[Event] = deque(maxlen=EVENTS_KEPT)
        self.events_total = 0  # every event since the table began: the page numbers the kept ones from here
        self.lock = asyncio.Lock()
        self.listeners: dict[Any, int | None] = {}  # websocket -> seat it plays (None: watching)
        self.driver: asyncio.Task | None = None
        self.turn_began = time.monotonic()  # a person's think time runs from the last change
        self.saved_at = 0.0
        self.skipping = False  # "skip to my turn": the bots play on without the delay until a person is to act
        self.wake = asyncio.Event()  # ends a bot's pause early (skip)
        self.request = request  # the new-table settings (a rematch makes another table from them)
        # the table's creator: the first person's seat (the page opens it after making the table)
        self.creator = creator if creator is not None else (min(token_hashes) if token_hashes else None)
        self.next_table: str | None = None  # the rematch's table id, once asked for
        self.next_tokens: dict[int, str] = {}  # its seat tokens, handed to the people connected here (memory only)

    def note(self, events: Any) -> None:
        """Add lines to "what happened" (counted, so the page numbers them as the table's own, not from 1)."""
        events = list(events)
        self.events.extend(events)
        self.events_total += len(events)

    # --- who may act
    def check_token(self, seat: int, token: str) -> None:
        n = len(self.game.labels)
        if seat >= n:
            raise ClientError("bad_seat", f"seat {seat} does not exist at this table (seats 0..{n - 1})")
        want = self.tokens.get(seat)
        if want is None:
            raise ClientError("bad_seat", f"seat {seat} is played by a bot ({self.game.labels[seat]}): nobody joins it")
        if not hmac.compare_digest(want, _hash(token)):
            raise ClientError("bad_token", f"wrong token for seat {seat}: open the link made for that seat")

    @property
    def decisions(self) -> int:
        return self.game.decisions

    def check_record_public(self) -> None:
        """The record (every decision) may be read now, or ClientError ``hidden``: an In the Cave table with people
        during the initial packing, which is hidden until every team has packed (R-ITC-SET-9)."""
        if self.game.secret():
            raise ClientError("hidden", "the record is shown once every team has packed (the initial packing is "
                              "hidden, R-ITC-SET-9)")

    def view(self, viewer: int | None = None) -> dict[str, Any]:
        """The table as the person at seat ``viewer`` sees it (None: watching; In the Cave's initial packing is
        hidden from the other teams, and only the team to act gets its actions)."""
        g = self.game
        return {"type": "state", "game": g.kind, "table": self.id, "title": g.title(), "decisions": self.decisions,
                "over": g.over, "truncated": g.truncated, "delay": self.delay, "record": f"{self.id}.json",
                "actor": g.actor(), "seats": g.seats(), "board": g.view(viewer),
                "events": [{"kind": e.kind, "text": e.text} for e in self.events],
                "events_first": self.events_total - len(self.events) + 1,
                "intents": {str(k): v for k, v in g.intents().items()}, "present": self.present(),
                "watchers": sum(1 for s in self.listeners.values() if s is None), "creator": self.creator,
                "skipping": self.skipping, "next": self.next_table}

    def present(self) -> list[int]:
        """The seats whose person has the table open now."""
        return sorted({s for s in self.listeners.values() if s is not None})

    # --- changing the game
    async def act(self, seat: int | None, action: int, step: int) -> None:
        """A person's decision; ClientError (the game untouched) for anything not legal for them now."""
        async with self.lock:
            g = self.game
            if seat is None:
                raise ClientError("not_seated", "you are watching this table: open a seat's link to play")
            if g.over:
                raise ClientError("game_over", "the game is over: no more decisions")
            g.check_turn(seat)
            if step != self.decisions:
                raise ClientError("stale", f"the game moved on (decision {self.decisions} now; the click was made "
                                  f"on decision {step}): look again and choose")
            self._apply(action, seat, time.monotonic() - self.turn_began, person=True)  # the env checks it
        await self.changed()

    def _apply(self, action: int, seat: int, think_s: float | None = None, person: bool = False) -> None:
        """One decision, then the record on disk: at once after a person's decision, when a person is to act next
        and at the end; during a run of bot decisions at most every SAVE_EVERY_S (a crash there costs only bot
        moves, which the bots play again on resume; saving the whole record after each was most of the server's
        work with many tables)."""
        g = self.game
        self.note(g.apply(action, seat, think_s))
        self.turn_began = time.monotonic()
        if g.over or g.human(g.actor()):
            self.skipping = False  # skipped to a person's turn (or the end): the pace is back
        if person or g.over or g.human(g.actor()) or self.turn_began - self.saved_at >= SAVE_EVERY_S:
            self.save()
        if g.over:
            name = g.result_name()  # a defeat is not told in the colour of a medal
            self.note([Event("defeat" if name == "defeat" else "result",
                             f"game over: {name}; record saved as {self.id}.json")])
            self.save_meta()  # the lobby lists the finished game from its file after a restart
            self.store.put_away()

    async def changed(self) -> None:
        await self.broadcast()
        self.kick()

    def kick(self) -> None:
        """Start the bots if one of them is to act (one driver per table)."""
        g = self.game
        if g.over or g.human(g.actor()):
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
        self.note([Event("error", f"the bots stopped: {type(e).__name__}: {e}")])

    async def _drive(self) -> None:
        """The bots' turns at the table's pace; a bot thinks in a worker thread so other tables go on. The delay
        is for decisions worth watching: a forced or free one (``game.quick``) plays at once, and none waits while
        a person has asked to skip to their turn. During the delay the page shows the bot's intent."""
        g = self.game
        try:
            while not g.over:
                async with self.lock:
                    seat = g.actor()
                    if g.over or g.human(seat):
                        return
                    step = self.decisions
                    action = int(await asyncio.to_thread(g.bot_action, seat))
                    wait = 0.0 if self.skipping or g.quick(action) else self.delay
                if wait:
                    await self.broadcast()  # the bot's intent, before its move
                    await self._pause(wait)
                async with self.lock:
                    if self.decisions != step or g.over or g.actor() != seat:
                        continue  # the table changed meanwhile: decide again
                    self._apply(action, seat)
                await self.broadcast()
        finally:
            self.skipping = False

    async def _pause(self, seconds: float) -> None:
        self.wake.clear()
        try:
            await asyncio.wait_for(self.wake.wait(), seconds)
        except asyncio.TimeoutError:
            pass

    def skip(self, seat: int | None) -> None:
        """A person's "skip to my turn": the bots play on at once until a person is to act."""
        if seat is None:
            raise ClientError("not_seated", "only a person at the table skips the bots' pace")
        if self.game.over:
            raise ClientError("game_over", "the game is over: nothing to skip")
        self.skipping = True
        self.wake.set()

    async def tell_presence(self, exclude: Any = None) -> None:
        """Who is at the table, to everyone else there (a small message, not the whole state)."""
        doc = {"type": "presence", "present": self.present(),
               "watchers": sum(1 for s in self.listeners.values() if s is None)}
        for ws in list(self.listeners):
            if ws is not exclude:
                try:
                    await ws.send_json(doc)
                except (ConnectionError, RuntimeError):
                    self.listeners.pop(ws, None)

    async def broadcast(self) -> None:
        if not self.listeners:
            return
        docs: dict[int | None, str] = {}  # one view per seat looking when views differ by viewer, else one
        for ws, seat in list(self.listeners.items()):
            key = seat if self.game.private else None
            if key not in docs:
                docs[key] = json.dumps(self.view(key))
            try:
                await ws.send_str(docs[key][:-1] + f', "you": {json.dumps(seat)}}}')
            except (ConnectionError, RuntimeError):  # a closed browser: forget it
                self.listeners.pop(ws, None)

    def save(self) -> None:
        self.saved_at = time.monotonic()
        self.game.save(self.store.records / f"{self.id}.json.tmp")
        os.replace(self.store.records / f"{self.id}.json.tmp", self.store.records / f"{self.id}.json")

    def summary(self) -> dict[str, Any]:
        """The lobby's line for this table (also kept in its file, for a finished game not in memory)."""
        return {"table": self.id, "game": self.game.kind, "title": self.game.title(), "decisions": self.decisions,
                "over": bool(self.game.over), "created": self.created}

    def save_meta(self) -> None:
        _write_json(self.store.tables / f"{self.id}.json", {
            "id": self.id, "game": self.game.kind, "created": self.created, "delay": self.delay, "record": f"{self.id}.json",
            "tokens": {str(k): v for k, v in self.tokens.items()}, "name": getattr(self.game, "name", None),
            "summary": self.summary(), "request": self.request, "creator": self.creator, "next": self.next_table})


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
        self.finished: dict[str, dict[str, Any]] = {}  # the lobby's lines of finished games not in memory
        self.expire_s = EXPIRE_DAYS * 86400.0
        self.expired = self.data / "expired"  # abandoned games' files, kept but never resumed

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
        done = [t for t in self.by_id.values() if t.game.over and not t.listeners]
        for t in done[: max(0, len(done) - KEEP_FINISHED)]:  # oldest first: dicts keep insertion order
            self.finished[t.id] = t.summary()
            del self.by_id[t.id]

    def listing(self) -> list[dict[str, Any]]:
        """Every table for the lobby: games in memory and the finished ones put away or found on start."""
        out = {**self.finished, **{t.id: t.summary() for t in self.by_id.values()}}
        return sorted(out.values(), key=lambda d: str(d.get("created") or ""))

    def expire(self, table_id: str, why: str, say: Callable[[str], Any] = log.warning) -> None:
        """Put an abandoned game's files aside (``expired/``): kept for its people, never resumed again."""
        self.expired.mkdir(exist_ok=True)
        for folder, suffix in ((self.tables, ".json"), (self.records, ".json")):
            src = folder / f"{table_id}{suffix}"
            if src.is_file():
                os.replace(src, self.expired / f"{table_id}.{folder.name}.json")
        self.by_id.pop(table_id, None)
        say(f"table {table_id} expired ({why}): its files are in {self.expired}")

    def expire_idle(self, now: float | None = None) -> list[str]:
        """Games in progress in memory that nobody has watched or played for ``expire_s``: expired."""
        now = time.monotonic() if now is None else now
        gone = [t.id for t in self.by_id.values() if not t.game.over and not t.listeners
                and now - t.turn_began >= self.expire_s]
        for tid in gone:
            self.expire(tid, f"no decision and nobody at the table for {self.expire_s / 86400:g} days")
        return gone

    def seat(self, entry: str) -> Seat:
        kind, _, name = entry.partition(":")
        if kind == "policy":
            if not self.policy.is_file():
                raise ClientError("bad_table", f"no policy bot on this server (no checkpoint at {self.policy.name})")
            return Seat("policy", path=str(self.policy))
        return Seat("human", name=name or None) if kind == "human" else parse_kind(kind)

    def create(self, req: TableRequest | ItcTableRequest) -> tuple[Table, dict[int, str]]:
        """A new table (blocking: loading bots may take a second; the server runs it in a thread). Returns the
        table and each person's seat token (shown once)."""
        seed = req.seed if req.seed is not None else secrets.randbelow(10**6)
        game = ItcGame.create(req, seed) if isinstance(req, ItcTableRequest) else \
            SubTerraGame.create(req, self.seat, seed)
        table_id = secrets.token_hex(6)
        tokens = {i: secrets.token_urlsafe(18) for i in range(len(game.labels)) if game.human(i)}
        request = {k: v for k, v in dataclasses.asdict(req).items() if k != "seed"}
        if isinstance(req, ItcTableRequest):
            request["game"] = "itc"
        table = Table(table_id, game, {i: _hash(t) for i, t in tokens.items()}, req.delay, self, request=request)
        table.note(game.notice)
        table.save_meta()
        table.save()
        self.by_id[table_id] = table
        return table, tokens

    def resume(self, meta_path: Path) -> Table:
        """A table saved before: its record played again through its game's own resume (as ``subterra play
        --resume`` or ``subterra itc --resume``)."""
        meta = json.loads(meta_path.read_text())
        table_id = check_table_id(str(meta["id"]))
        kind = str(meta.get("game", "subterra"))  # tables saved before In the Cave came are Sub Terra's
        if kind not in GAMES:
            raise ValueError(f"unknown game {kind[:20]!r}")
        events: deque[Event] = deque(maxlen=EVENTS_KEPT)
        told = [0]

        def heard(lines: list[Event]) -> None:
            events.extend(lines)
            told[0] += len(lines)

        # the cave's name for the title (not the table id: the record's "where" is the table id)
        game = GAMES[kind].resume(self.records / f"{table_id}.json", table_id, heard,
                                  title_name=meta.get("name"))
        table = Table(table_id, game, {int(k): str(v) for k, v in meta["tokens"].items()}, float(meta["delay"]),
                      self, created=meta.get("created"), request=meta.get("request"), creator=meta.get("creator"))
        table.next_table = meta.get("next")
        table.note(events)
        table.events_total = told[0]
        table.note([Event("info", f"resumed after {table.decisions} decisions")])
        self.by_id[table_id] = table
        return table

    def resume_all(self, say: Callable[[str], Any] = log.warning) -> list[Table]:
        """Every saved game in progress (finished ones load when asked for, ``get``); one that cannot be read is
        named and skipped (its files are left as they are)."""
        out = []
        now = time.time()
        for p in sorted(self.tables.glob("*.json")):
            try:
                rec = self.records / p.name
                doc = json.loads(rec.read_text())
                if isinstance(doc, dict) and isinstance(doc.get("result"), dict) and doc["result"].get("finished"):
                    self.finished[p.stem] = self._summary(p, doc)  # listed in the lobby, loaded when opened
                    continue
                idle = now - max(rec.stat().st_mtime, p.stat().st_mtime)
                if idle >= self.expire_s:
                    self.expire(p.stem, f"untouched for {idle / 86400:.0f} days", say)
                    continue
                out.append(self.resume(p))
            except (OSError, ValueError, KeyError, TypeError, RecordError, PlayError, ClientError) as e:
                say(f"table {p.name} not resumed: {e}")
        return out

    @staticmethod
    def _summary(meta_path: Path, record: dict[str, Any]) -> dict[str, Any]:
        """A finished game's lobby line from its files (tables saved before the line was kept: from the record)."""
        meta = json.loads(meta_path.read_text())
        line = meta.get("summary")
        if isinstance(line, dict):
            return line
        return {"table": meta_path.stem, "game": str(meta.get("game", "subterra")),
                "title": f"seed {record.get('seed', '?')}", "decisions": len(record.get("actions") or []),
                "over": True, "created": meta.get("created")}
