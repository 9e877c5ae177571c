"""Records of In the Cave games (``subterra itc --save``): one JSON document, replayed through the AEC env.

A record (format ``in-the-cave-record``, schema version 1)::

    {
      "format": "in-the-cave-record", "schema_version": 1, "env": "in_the_cave_v0", "package_version": "0.1.0",
      "created": "2026-11-25T07:00:00+00:00", "config_name": "default",
      "config": {...every ItcConfig field...}, "seed": 7,
      "seats": [{"seat": 0, "team": "team_0", "player": "human", "name": "you"},
                {"seat": 1, "team": "team_1", "player": "heuristic"}],
      "actions": [{"step": 0, "seat": 0, "action": 43, "name": "take_camera", "player": "human"}, ...],
      "result": {"result": "ended", "round": 24, "scores": [25, 51], "winners": [0, 1], "finished": true,
                 "decisions": 612},
      "final_hash": "9f2c4e1a0b7d3c55"
    }

``seed`` is the seed of ``env.reset(seed=...)`` (the game follows from it and the config); ``actions`` are every
decision in order, bots' too. ``result.finished`` is false for a game stopped before its end. ``final_hash`` is a
64-bit blake2b of the final game record (``core/layout.py``), so a replay proves it reached the same game, not
only the same scores. ``replay`` plays the actions again from the seed and raises RecordError at the first
problem: a seat acting out of turn, an illegal action, final scores or result that differ from the record's.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from subterra_env.config import ConfigError
from subterra_env.games.in_the_cave.config import ItcConfig, from_dict, to_dict
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.actions import ACTION_NAMES, NUM_ACTIONS, IllegalActionError
from subterra_env.in_the_cave.env_aec import raw_env

from ..record_json import RecordError, _need, check_actions, save_record

FORMAT = "in-the-cave-record"
SCHEMA_VERSION = 1
PLAYERS = ("human", "heuristic", "random")


def game_hash(g: np.ndarray) -> str:
    """16 hex digits: blake2b (8 bytes) of one game's int32 record."""
    return hashlib.blake2b(np.ascontiguousarray(g, dtype=np.int32).tobytes(), digest_size=8).hexdigest()


def result_of(env: raw_env, decisions: int) -> dict[str, Any]:
    """The record's ``result`` for the env's game now (scores and winners are zeros while it runs)."""
    g = env.game
    info = env._info()
    return {"result": info["result"], "round": int(g[L.ROUND]), "scores": info["scores"],
            "winners": info["winners"], "finished": info["result"] != "running", "decisions": decisions}


def new_record(config: ItcConfig, seed: int, seats: list[dict[str, Any]], config_name: str = "default"
               ) -> dict[str, Any]:
    from subterra_env import __version__

    return {"format": FORMAT, "schema_version": SCHEMA_VERSION, "env": "in_the_cave_v0",
            "package_version": __version__,
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "config_name": config_name, "config": json.loads(json.dumps(to_dict(config))), "seed": int(seed),
            "seats": seats, "actions": [], "result": {}, "final_hash": ""}


def finish(doc: dict[str, Any], env: raw_env) -> dict[str, Any]:
    """Store the result and the final hash (at the end, or when saving a game stopped before it)."""
    doc["result"] = result_of(env, len(doc["actions"]))
    doc["final_hash"] = game_hash(env.game)
    return doc


def save(doc: dict[str, Any], path: str | Path) -> Path:
    """Write the record (an action per line; Sub Terra's writer)."""
    return save_record(doc, path)


def parse(doc: Any, where: str = "record") -> dict[str, Any]:
    """Check a record's structure (format, version, keys, seats, actions); returns it unchanged."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise RecordError(f"{where}: not an In the Cave record ('format' should be {FORMAT!r}, got {got!r})")
    version = _need(doc, "schema_version", int, where)
    if version != SCHEMA_VERSION:
        raise RecordError(f"{where}: schema version {version} is not supported (this version reads "
                          f"{SCHEMA_VERSION})")
    _need(doc, "config", dict, where)
    _need(doc, "seed", int, where)
    _need(doc, "final_hash", str, where)
    result = _need(doc, "result", dict, where)
    _need(result, "finished", bool, f"{where}: result")
    _need(result, "scores", list, f"{where}: result")
    for i, s in enumerate(_need(doc, "seats", list, where)):
        if not isinstance(s, dict):
            raise RecordError(f"{where}: seats[{i}] must be an object")
        if _need(s, "player", str, f"{where}: seats[{i}]") not in PLAYERS:
            raise RecordError(f"{where}: seats[{i}]: player {s['player']!r} is not one of {', '.join(PLAYERS)}")
    check_actions(doc, where, NUM_ACTIONS)
    return doc


def load(path: str | Path) -> dict[str, Any]:
    """Read and check a record file (structure only; ``replay`` checks that it plays)."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
    except OSError as e:
        raise RecordError(f"{path}: cannot read the record: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise RecordError(f"{path}: bad JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    return parse(doc, str(path))


def config_of(doc: dict[str, Any], where: str = "record") -> ItcConfig:
    try:
        return from_dict(doc["config"])
    except (ConfigError, TypeError) as e:
        raise RecordError(f"{where}: bad config: {e}") from None


def replay(doc: dict[str, Any], where: str = "record", on_step: Callable[[int, raw_env], Any] | None = None,
           verify: bool = True, env: raw_env | None = None) -> raw_env:
    """Play the record's actions through a fresh AEC env from its seed (or through ``env``, reset with the
    record's config and seed: resuming a game); returns the env at the end. ``on_step(i, env)`` is called after
    action i. RecordError names the first step that does not replay, and (``verify``) a result, final scores or
    final game that differ from the record's."""
    parse(doc, where)
    if env is None:
        env = raw_env(config_of(doc, where))
        env.reset(seed=doc["seed"])
    if len(doc["seats"]) != env.seats:
        raise RecordError(f"{where}: {len(doc['seats'])} seats in the record but its config seats {env.seats} teams")
    for i, entry in enumerate(doc["actions"]):
        g = env.game
        if g[L.OVER] != L.RUNNING:
            raise RecordError(f"{where}: step {i}: the game is already over but the record has "
                              f"{len(doc['actions']) - i} more action(s)")
        actor, a = int(g[L.ACTOR]), int(entry["action"])
        if entry["seat"] != actor:
            raise RecordError(f"{where}: step {i}: the record has team {entry['seat']} acting, but in the game it is "
                              f"team {actor}")
        try:
            env.step(a)  # the env checks the action (the one check): an illegal one leaves the game as it was
        except IllegalActionError:
            legal = ", ".join(ACTION_NAMES[x] for x in np.flatnonzero(env._mask))
            raise RecordError(f"{where}: step {i}: action {a} ({ACTION_NAMES[a]}) is not legal for team {actor}; "
                              f"legal were: {legal}") from None
        if on_step is not None:
            on_step(i, env)
    if verify:
        verify_end(doc, env, where)
    return env


def verify_end(doc: dict[str, Any], env: raw_env, where: str = "record") -> None:
    want, got = doc["result"], result_of(env, len(doc["actions"]))
    if want.get("finished") and not got["finished"]:
        raise RecordError(f"{where}: result mismatch: the record says the game finished ({want.get('result')}) but "
                          f"after its {len(doc['actions'])} actions it is still running")
    if list(want["scores"]) != got["scores"]:
        raise RecordError(f"{where}: final scores mismatch: the replay reaches {got['scores']}, the record says "
                          f"{list(want['scores'])}")
    for key in ("result", "winners", "round"):
        if key in want and want[key] != got[key]:
            raise RecordError(f"{where}: result mismatch: {key} is {got[key]} in the replay, {want[key]} in the "
                              "record")
    h = game_hash(env.game)
    if doc["final_hash"] != h:
        raise RecordError(f"{where}: final game hash mismatch: the replay reaches {h}, the record says "
                          f"{doc['final_hash']} (the record was changed, or the rules changed since)")
