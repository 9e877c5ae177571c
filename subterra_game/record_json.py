"""The JSON game record: its format, building and writing it, reading and checking it, and the state hash.

A record (schema version 1) holds everything needed to play the game again through the environment::

    {
      "format": "subterra-record", "schema_version": 1, "env": "subterra_v1", "package_version": "0.1.0",
      "created": "2025-01-01T12:00:00+00:00",
      "settings": {...every GameConfig field...}, "max_cycles": 200, "seed": 7,
      "seats": [{"seat": 0, "caver": "diver", "player": "human", "name": "you"},
                {"seat": 1, "caver": "scout", "player": "search", "worlds": 16}, ...],
      "bots": "search (strongest that answers in time: 85 ms per decision)",
      "actions": [{"step": 0, "seat": 0, "caver": "diver", "action": 2, "name": "reveal N", "player": "human",
                   "think_s": 3.2, "events": [["draw", 0, -1, 12, "R-ACT-5", 0], ["place", 0, 1, 12,
                   "R-CON-3", 1], ["turn", 0, 0, 1, "", 0]]}, ...],
      "result": {"code": 3, "name": "gold", "escaped": 4, "round": 5, "finished": true, "decisions": 57},
      "final_state_hash": "9f2c4e1a0b7d3c55"
    }

``events`` (optional, absent in older records) is what the rules did in that decision, as the rules logged it
(``subterra_env.events``: ``[kind, seat, tile, value, rule, die]`` rows); a replay plays them again and checks
that they are the same.
``seed`` is the seed given to ``env.reset(seed=...)``; ``settings`` rebuild the GameConfig (``from_dict``);
``seats`` say who played each caver (``player``: human, search, heuristic, random or policy:PATH; a search bot's
``worlds``); ``bots`` (optional, absent in older records) is the line the play command showed at the start: which
bots sat at the table and why. ``actions`` are every decision in order (bots' too), with who took it (``player``)
and, for people, the seconds they thought. ``result.finished`` is false for a game saved before
its end (Ctrl-C); such a record can be resumed (``subterra play --resume FILE``). ``final_state_hash`` is a 64-bit
blake2b of every field of the final State (``state_hash``), so a replay proves it reached the same game.

The document alone, apart from ``records`` (playing a record again through the env, and the samples and pictures
made from a replay): it needs no env, and In the Cave's records reuse its checks and writer (``_need``,
``check_actions``, ``save_record``). ``records`` re-exports every public name.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from subterra_env.config import SCENARIOS, ConfigError, GameConfig, from_dict, to_dict
from subterra_env.events import Event
from subterra_env.games.sub_terra.core.actions import ACTION_NAMES, NUM_ACTIONS_ALL, num_actions
from subterra_env.games.sub_terra.core.state import HASH_FIELDS, RUNNING, State, scenario_hash_fields
from subterra_env.info import game_info, result_name

FORMAT = "subterra-record"
SCHEMA_VERSION = 1
REQUIRED_KEYS = ("format", "schema_version", "settings", "max_cycles", "seed", "seats", "actions", "result",
                 "final_state_hash")
PLAYER_KINDS = ("human", "search", "heuristic", "random", "policy")


class RecordError(ValueError):
    """A record that cannot be read or does not replay; the message names the file and what is wrong."""


# ---------------------------------------------------------------------------------------------- hashing
def events_to_json(events: list[Event]) -> list[list[Any]]:
    """A decision's events as a record stores them: ``[kind, seat, tile, value, rule, die]`` rows."""
    return [[e.kind, e.seat, e.tile, e.value, e.rule, e.die] for e in events]


def state_hash(st: State, g: int = 0) -> str:
    """16 hex digits: blake2b (8 bytes) over every State field of game g, each preceded by its name, dtype and
    per-game shape (the same bytes as ``tests/golden/record.py``'s ``state_hash_reference``). A scenario's own
    fields follow only when one is set (they are zero in the base game, so its hashes never changed)."""
    one = st.take([g]) if st.batch_size > 1 else st  # the grid is computed for this game only
    h = hashlib.blake2b(digest_size=8)
    for name in HASH_FIELDS + scenario_hash_fields(one, 0):
        arr = getattr(one, name)
        h.update(f"{name}:{arr.dtype.str}:{'x'.join(str(n) for n in arr.shape[1:])};".encode())
        h.update(np.ascontiguousarray(arr[0]).tobytes())
    return f"{int.from_bytes(h.digest(), 'little'):016x}"


# ---------------------------------------------------------------------------------------------- settings as JSON
def _plain(v: Any) -> Any:
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    if isinstance(v, np.generic):
        return v.item()
    return v


def settings_to_json(cfg: GameConfig) -> dict[str, Any]:
    """Every GameConfig field as plain JSON data (``config_from_json`` inverts it)."""
    return {k: _plain(v) for k, v in to_dict(cfg).items()}


def config_from_json(settings: Any, where: str = "record") -> GameConfig:
    if not isinstance(settings, dict):
        raise RecordError(f"{where}: 'settings' must be a mapping of game settings, got {type(settings).__name__}")
    d = dict(settings)
    if isinstance(d.get("deal"), dict):
        try:
            d["deal"] = {int(k): v for k, v in d["deal"].items()}
        except ValueError:
            raise RecordError(f"{where}: settings.deal keys must be table sizes (4, 5, 6)") from None
    try:
        return from_dict(d)
    except ConfigError as e:
        raise RecordError(f"{where}: bad settings: {e}") from None


# ---------------------------------------------------------------------------------------------- building
@dataclass
class GameRecord:
    """A record being written during a game (``to_json()`` gives the document)."""

    config: GameConfig
    seed: int
    max_cycles: int = 200
    seats: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)
    final_state_hash: str = ""
    bots: str = ""  # the play command's start line: which bots sat at the table and why ("" leaves it out)
    created: str = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))

    def add(self, seat: int, caver: str, action: int, player: str, think_s: float | None = None,
            events: list[Event] | None = None) -> None:
        entry: dict[str, Any] = {"step": len(self.actions), "seat": int(seat), "caver": caver, "action": int(action),
                                 "name": ACTION_NAMES[int(action)], "player": player}
        if think_s is not None:
            entry["think_s"] = round(float(think_s), 2)
        if events is not None:
            entry["events"] = events_to_json(events)
        self.actions.append(entry)

    def finish(self, st: State, truncated: bool = False) -> None:
        """Store the result and the final state's hash (call at the end, or when saving an unfinished game)."""
        code = int(st.result[0])
        escaped = game_info(st, 0)["escaped"]
        self.result = {"code": code, "name": result_name(code), "escaped": escaped, "round": int(st.round[0]),
                       "finished": code != RUNNING or truncated, "truncated": bool(truncated),
                       "decisions": len(self.actions)}
        self.final_state_hash = state_hash(st)

    def to_json(self) -> dict[str, Any]:
        from subterra_env import __version__

        return {"format": FORMAT, "schema_version": SCHEMA_VERSION, "env": "subterra_v1",
                "package_version": __version__, "created": self.created, "settings": settings_to_json(self.config),
                "max_cycles": self.max_cycles, "seed": self.seed, "seats": self.seats,
                **({"bots": self.bots} if self.bots else {}), "actions": self.actions, "result": self.result,
                "final_state_hash": self.final_state_hash}


def save_record(record: GameRecord | dict[str, Any], path: str | Path) -> Path:
    """Write the record as one indented JSON document (an action per line); returns the path."""
    doc = record.to_json() if isinstance(record, GameRecord) else record
    path = Path(path)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    head = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in doc.items() if k != "actions"]
    acts = ",\n  ".join(json.dumps(a) for a in doc.get("actions", []))
    text = "{\n" + ",\n".join(head + [f' "actions": [\n  {acts}\n ]']) + "\n}\n"
    json.loads(text)  # never write a document that does not read back
    path.write_text(text)
    return path


# ---------------------------------------------------------------------------------------------- reading
def default_record_name(seed: int, finished: bool = True, prefix: str = "subterra") -> str:
    """A file name for a record saved without one: ``subterra-20261127-233500-seed7[-unfinished].json`` (the
    local time; ``prefix`` "itc" for In the Cave's)."""
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return f"{prefix}-{stamp}-seed{seed}{'' if finished else '-unfinished'}.json"


def _need(doc: dict, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in doc:
        raise RecordError(f"{where}: missing key {key!r}")
    v = doc[key]
    if not isinstance(v, kind) or isinstance(v, bool) and kind is not bool:
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise RecordError(f"{where}: {key!r} must be {names}, got {type(v).__name__} {v!r:.60}")
    return v


def parse_record(doc: Any, where: str = "record") -> dict[str, Any]:
    """Check a record's structure (keys, types, schema version, seats and actions); returns it unchanged."""
    if not isinstance(doc, dict):
        raise RecordError(f"{where}: not a Sub Terra game record (a JSON object expected, got {type(doc).__name__})")
    if doc.get("format") != FORMAT:
        raise RecordError(f"{where}: not a Sub Terra game record ('format' should be {FORMAT!r}, "
                          f"got {doc.get('format')!r})")
    version = _need(doc, "schema_version", int, where)
    if version != SCHEMA_VERSION:
        raise RecordError(f"{where}: schema version {version} is not supported (this version of subterra_env "
                          f"reads schema version {SCHEMA_VERSION})")
    for key in REQUIRED_KEYS:
        if key not in doc:
            raise RecordError(f"{where}: missing key {key!r}")
    _need(doc, "seed", int, where)
    _need(doc, "max_cycles", int, where)
    _need(doc, "final_state_hash", str, where)
    result = _need(doc, "result", dict, where)
    for key, kind in (("code", int), ("finished", bool)):
        _need(result, key, kind, f"{where}: result")
    seats = _need(doc, "seats", list, where)
    for i, s in enumerate(seats):
        if not isinstance(s, dict):
            raise RecordError(f"{where}: seats[{i}] must be an object")
        _need(s, "player", str, f"{where}: seats[{i}]")
    settings = doc["settings"] if isinstance(doc["settings"], dict) else {}
    scenario = settings.get("scenario", "base")  # a scenario's own action ids follow the base game's
    n_actions = num_actions(scenario) if scenario in SCENARIOS else NUM_ACTIONS_ALL
    check_actions(doc, where, n_actions)
    return doc


def check_actions(doc: dict[str, Any], where: str, n_actions: int) -> None:
    """A record's ``actions``: a list of objects, each with an ``action`` id in 0..n_actions-1 and a ``seat``
    (both games' records, Sub Terra's and In the Cave's)."""
    for i, a in enumerate(_need(doc, "actions", list, where)):
        if not isinstance(a, dict):
            raise RecordError(f"{where}: actions[{i}] (step {i}) must be an object, got {type(a).__name__}")
        act = _need(a, "action", int, f"{where}: step {i}")
        if not 0 <= act < n_actions:
            raise RecordError(f"{where}: step {i}: action {act} is out of range 0..{n_actions - 1}")
        _need(a, "seat", int, f"{where}: step {i}")


def load_record(path: str | Path) -> dict[str, Any]:
    """Read and check a record file (structure only; ``replay_record`` checks that it plays)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise RecordError(f"{path}: cannot read the record: {e.strerror or e}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"{path}: bad JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    return parse_record(doc, str(path))


def record_config(doc: dict[str, Any], where: str = "record") -> GameConfig:
    return config_from_json(doc["settings"], where)
