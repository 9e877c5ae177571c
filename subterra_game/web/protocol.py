"""What a browser may send, checked before anything touches a game.

Every message is one JSON object with a ``type``; anything else is answered with an error naming the problem
(``ClientError``: a stable ``code`` for tests and scripts, a ``message`` for people) and changes nothing.

    {"type": "join", "seat": 0, "token": "..."}     # seat null (or absent): watch without playing
    {"type": "act", "action": 12, "step": 31}       # step: the decisions so far that the click was made on
    {"type": "delay", "seconds": 0.5}               # the bots' pace at this table
    {"type": "skip"}                                # the bots play on without the delay until a person's turn
    {"type": "hint"}                                # what the strongest bot would do in my seat now, and why
    {"type": "rematch"}                             # after the end: a new table, the same seats (each person
                                                    # connected gets their seat's new link)
    {"type": "handover", "seat": 2}                 # the table's creator (its first person's seat) gives a
                                                    # person's seat to the heuristic bot (the person left)

New tables (``POST /api/tables``) are checked by ``parse_table_request``: a preset name, never a file path;
``"game": "itc"`` makes an In the Cave table (``ItcTableRequest``: preset, num_players, seed, seats, delay).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from subterra_env.config import DIFFICULTIES, PRESETS
from subterra_env.games.in_the_cave.config import PRESETS as ITC_PRESETS

MAX_MESSAGE_BYTES = 4096  # the largest message a client needs is ~100 bytes
# Action ids are checked against the table's own game (a scenario has more than the base game's 90, In the Cave
# fewer); here only a bound that no game reaches, so absurd numbers never get as far as a game.
MAX_ACTION_ID = 10_000
MAX_DELAY_S = 10.0
MAX_SEED = 2**31 - 1
BOT_KINDS = ("heuristic", "search", "random", "policy", "auto")
SEAT_KINDS = ("human",) + BOT_KINDS
ITC_BOT_KINDS = ("heuristic", "random")  # agents.in_the_cave
GAMES = {"subterra": "Sub Terra", "itc": "In the Cave"}
TABLE_ID = re.compile(r"[0-9a-f]{12}")
RECORD_NAME = re.compile(r"[0-9a-f]{12}\.json")
PERSON_NAME = re.compile(r"[\w .'-]{1,24}")


class ClientError(ValueError):
    """Bad input from a client: ``code`` (e.g. ``illegal_action``) and a message saying what and how to fix it."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, str]:
        return {"type": "error", "code": self.code, "message": self.message}


def show(v: Any, n: int = 40) -> str:
    """A client's value, short, for an error message: never fails (a deeply nested value is not dumped)."""
    if isinstance(v, (list, dict)):
        return "an array" if isinstance(v, list) else "an object"
    try:
        return json.dumps(v)[:n]
    except (TypeError, ValueError, RecursionError):
        return type(v).__name__


def loads(text: str | bytes, what: str = "message") -> Any:
    """JSON from a client; ClientError ``bad_json`` for anything else, deeply nested arrays included (Python's
    parser raises RecursionError there, which is no reason to drop a connection or answer 500)."""
    try:
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ClientError("bad_json", f"the {what} is not JSON: {e}") from None
    except RecursionError:
        raise ClientError("bad_json", f"the {what} is nested too deeply to be read (arrays or objects inside each "
                          "other hundreds of times)") from None


def _int(msg: dict[str, Any], key: str, lo: int, hi: int, code: str) -> int:
    v = msg.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise ClientError(code, f"{key!r} must be an integer, got {type(v).__name__} {show(v)}")
    if not lo <= v <= hi:
        raise ClientError(code, f"{key!r} {v} is out of range {lo}..{hi}")
    return v


def parse_message(text: str | bytes) -> dict[str, Any]:
    """A client's websocket message (its UTF-8 bytes as received, or text) as a checked dict; ClientError for
    anything malformed. The size limit counts bytes, as the error says (3,000 "é" are 6,000 bytes)."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    if len(data) > MAX_MESSAGE_BYTES:
        raise ClientError("too_large", f"message of {len(data)} bytes is over the limit of {MAX_MESSAGE_BYTES}")
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ClientError("bad_utf8", f"the message is not valid UTF-8 text (byte {e.start}: {e.reason}): send "
                          "JSON as UTF-8") from None
    msg = loads(decoded)
    if not isinstance(msg, dict):
        raise ClientError("bad_message", f"a message must be a JSON object, got {type(msg).__name__}")
    kind = msg.get("type")
    if kind == "join":
        seat = msg.get("seat")
        if seat is not None:
            _int(msg, "seat", 0, 5, "bad_seat")
            if not isinstance(msg.get("token"), str) or len(msg["token"]) > 100 or not msg["token"].isascii():
                raise ClientError("bad_token", "joining a seat needs that seat's token (a string from its link)")
        return msg
    if kind == "act":
        _int(msg, "action", 0, MAX_ACTION_ID, "bad_action")  # the table checks its own range
        _int(msg, "step", 0, 10**7, "bad_step")
        return msg
    if kind == "delay":
        v = msg.get("seconds")
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or not 0 <= v <= MAX_DELAY_S:
            raise ClientError("bad_delay", f"'seconds' must be a number from 0 to {MAX_DELAY_S:g}")
        return msg
    if kind in ("skip", "hint", "rematch"):
        return msg
    if kind == "handover":
        _int(msg, "seat", 0, 5, "bad_seat")
        return msg
    raise ClientError("bad_message", f"unknown message type {show(kind)}: expected join, act, delay, skip, hint, "
                      "rematch or handover")


@dataclass(frozen=True)
class TableRequest:
    preset: str
    num_cavers: int | None
    difficulty: str | None
    seed: int | None
    seats: list[str]  # "human", "human:NAME" or a bot kind, in seat order
    delay: float
    max_rounds: int


@dataclass(frozen=True)
class ItcTableRequest:
    preset: str
    num_players: int | None
    seed: int | None
    seats: list[str]  # "human", "human:NAME", "heuristic" or "random", in seat order
    delay: float
    max_rounds: int | None


def _seats(body: dict[str, Any], lo: int, hi: int, bots: tuple[str, ...], what: str) -> list[str]:
    seats = body.get("seats")
    if not isinstance(seats, list) or not lo <= len(seats) <= hi:
        raise ClientError("bad_table", f"seats: a list with one entry per {what} ({lo} to {hi}): human or a bot kind "
                          f"({', '.join(bots)})")
    for i, s in enumerate(seats):
        if not isinstance(s, str):
            raise ClientError("bad_table", f"seat {i}: a string, got {type(s).__name__}")
        kind, _, name = s.partition(":")
        if kind not in ("human",) + bots or (name and (kind != "human" or not PERSON_NAME.fullmatch(name))):
            raise ClientError("bad_table", f"seat {i} {s[:40]!r}: one of human, human:NAME (letters, digits, "
                              f"spaces, up to 24), {', '.join(bots)}")
    return list(seats)


def _delay(body: dict[str, Any]) -> float:
    delay = body.get("delay", 0.5)
    if not isinstance(delay, (int, float)) or isinstance(delay, bool) or not 0 <= delay <= MAX_DELAY_S:
        raise ClientError("bad_table", f"delay: seconds per bot decision, 0 to {MAX_DELAY_S:g}")
    return float(delay)


def parse_itc_table_request(body: dict[str, Any]) -> ItcTableRequest:
    """An In the Cave table: a preset of ``subterra_env.games.in_the_cave.config`` (never a file), 2-5 teams, seats
    human / heuristic / random, the round limit (default the preset's, 100)."""
    preset = body.get("preset", "default")
    if not isinstance(preset, str) or preset not in ITC_PRESETS:
        raise ClientError("bad_table", f"preset {show(preset, 60)} is not one of {', '.join(ITC_PRESETS)} "
                          "(an In the Cave preset name: tables never read files named by a client)")
    num = body.get("num_players")
    if num is not None and (isinstance(num, bool) or num not in (2, 3, 4, 5)):
        raise ClientError("bad_table", f"num_players {show(num, 20)}: 2 to 5 teams")
    seed = _int(body, "seed", 0, MAX_SEED, "bad_table") if body.get("seed") is not None else None
    seats = _seats(body, 2, 5, ITC_BOT_KINDS, "team")
    if num is not None and len(seats) != num:
        raise ClientError("bad_table", f"{len(seats)} seats but {num} teams play: one seat each")
    rounds = body.get("max_rounds")
    if rounds is not None and (not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= 1000):
        raise ClientError("bad_table", "max_rounds: an integer from 1 to 1000")
    return ItcTableRequest(preset, num, seed, seats, _delay(body), rounds)


def parse_table_request(body: Any) -> TableRequest | ItcTableRequest:
    """The new-table form as a checked request (``ClientError`` code ``bad_table`` naming the field)."""
    if not isinstance(body, dict):
        raise ClientError("bad_table", "a new table is a JSON object: preset, num_cavers, difficulty, seed, seats")
    game = body.get("game", "subterra")
    if not isinstance(game, str) or game not in GAMES:  # a list is no key of a dict: TypeError, not 400
        raise ClientError("bad_table", f"game {show(game, 30)}: one of {', '.join(GAMES)}")
    if game == "itc":
        return parse_itc_table_request(body)
    preset = body.get("preset", "tiny")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ClientError("bad_table", f"preset {show(preset, 60)} is not one of {', '.join(PRESETS)} "
                          "(a preset name: tables never read files named by a client)")
    num = body.get("num_cavers")
    if num is not None and (isinstance(num, bool) or num not in (4, 5, 6)):
        raise ClientError("bad_table", f"num_cavers {show(num, 20)}: 4, 5 or 6")
    diff = body.get("difficulty")
    if diff is not None and (not isinstance(diff, str) or diff not in DIFFICULTIES):
        raise ClientError("bad_table", f"difficulty {show(diff, 30)}: one of {', '.join(DIFFICULTIES)}")
    seed = body.get("seed")
    if seed is not None:
        seed = _int(body, "seed", 0, MAX_SEED, "bad_table")
    seats = _seats(body, 4, 6, BOT_KINDS, "caver")
    rounds = body.get("max_rounds", 200)
    if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= 1000:
        raise ClientError("bad_table", "max_rounds: an integer from 1 to 1000")
    return TableRequest(preset, num, diff, seed, seats, _delay(body), rounds)


def check_table_id(table_id: str) -> str:
    if not TABLE_ID.fullmatch(table_id):
        raise ClientError("bad_table_id", f"{table_id[:40]!r} is not a table id (12 hex digits)")
    return table_id


def check_record_name(name: str) -> str:
    """A record's file name as the client gives it: a table id and .json, never a path."""
    if "/" in name or "\\" in name or ".." in name or not RECORD_NAME.fullmatch(name):
        raise ClientError("bad_file_name", f"{name[:60]!r} is not a record name: a table id and .json "
                          "(12 hex digits), with no path")
    return name
