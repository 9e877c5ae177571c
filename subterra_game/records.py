"""Game records: one JSON document per game, replayable to the identical result, and samples for behaviour cloning.

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

    rec = load_record("game.json")            # RecordError naming what is wrong: bad JSON, missing key, ...
    replay = replay_record(rec)               # plays it through the env; RecordError on an illegal action at
    replay.states[-1]                         # step N, a result or final hash mismatch; one State per decision + 1
    samples = to_samples(rec, obs_radius=7)   # observation / scalars / action_mask / action arrays per decision
    write_gif(rec, "game.gif")                # frames = decisions + 1 (the start, then after every decision)
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from subterra_env import episode
from subterra_env.config import CAVER_NAMES, SCENARIOS, ConfigError, GameConfig, from_dict, to_dict
from subterra_env.games.sub_terra.core.actions import ACTION_NAMES, NUM_ACTIONS_ALL, num_actions
from subterra_env.games.sub_terra.core.observe import observe
from subterra_env.games.sub_terra.core.state import HASH_FIELDS, RUNNING, State, scenario_hash_fields
from subterra_env.env import raw_env
from subterra_env.events import Event
from subterra_env.game import IllegalActionError
from subterra_env.info import game_info, result_name

FORMAT = "subterra-record"
SCHEMA_VERSION = 1
REQUIRED_KEYS = ("format", "schema_version", "settings", "max_cycles", "seed", "seats", "actions", "result",
                 "final_state_hash")
PLAYER_KINDS = ("human", "search", "heuristic", "random", "policy")


def add_replay_options(p: argparse.ArgumentParser, delay: float, cell: int, unit: str) -> None:
    """The options every replay command shares (``subterra replay``, ``subterra itc replay``): stepping, and
    writing the frames as PNG files or a GIF, ``cell`` pixels per ``unit`` of the map."""
    p.add_argument("--auto", action="store_true", help="advance by itself every --delay seconds")
    p.add_argument("--delay", type=float, default=delay, help=f"seconds per step with --auto, and per GIF frame "
                   f"(default {delay})")
    p.add_argument("--png", metavar="DIR", help="write frame_0000.png (the start) .. one per decision into DIR")
    p.add_argument("--gif", metavar="FILE", help="write an animated GIF (frames = decisions + 1)")
    p.add_argument("--cell", type=int, default=cell, help=f"pixels per {unit} in PNG/GIF frames (default {cell})")
    p.add_argument("--no-color", action="store_true", help="no colours on the map (also: NO_COLOR)")


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


# ---------------------------------------------------------------------------------------------- replaying
@dataclass
class Replay:
    """A record played again: the env at the end, the State before the first decision and after each one, and
    what the rules did in each decision (``events[i]``: the rules' log of decision i, ``subterra_env.events``)."""

    env: raw_env
    states: list[State]
    record: dict[str, Any]
    events: list[list[Event]] = field(default_factory=list)

    @property
    def final(self) -> State:
        return self.states[-1]


def replay_record(doc: dict[str, Any], where: str = "record", verify: bool = True, keep_states: bool = True,
                  on_step: Callable[[int, raw_env, int], None] | None = None) -> Replay:
    """Play a record's actions through the env from its seed and settings.

    RecordError names the first problem: an action not legal at step N, a seat acting out of turn, decisions
    after the end; with ``verify`` also a result or final state hash that differs from the record's.
    ``on_step(step, env, action)`` is called before each action (``to_samples`` uses it).
    """
    parse_record(doc, where)
    cfg = record_config(doc, where)
    try:
        env = raw_env(cfg, max_cycles=doc["max_cycles"], record_events=True)
    except ValueError as e:
        raise RecordError(f"{where}: {e}") from None
    env.reset(seed=doc["seed"])
    seats = doc["seats"]
    ranks = [int(r) for r in env.state_.c_rank[0]]
    if len(seats) != len(ranks):
        raise RecordError(f"{where}: {len(seats)} seats in the record but the settings seat {len(ranks)} cavers")
    for i, s in enumerate(seats):
        if "caver" in s and s["caver"] != CAVER_NAMES[ranks[i] - 1]:
            raise RecordError(f"{where}: seat {i} is {s['caver']!r} in the record but {CAVER_NAMES[ranks[i] - 1]!r} "
                              "in the replayed game (settings or seed differ)")
    states = [env.state_.copy()] if keep_states else []
    events: list[list[Event]] = []
    for i, entry in enumerate(doc["actions"]):
        st = env.state_
        action = int(entry["action"])
        if env.episodes.over[0]:
            raise RecordError(f"{where}: step {i}: the game is already over ({env.episodes.outcome(0)}) but "
                              f"the record has {len(doc['actions']) - i} more action(s)")
        actor = int(st.actor[0])
        if entry["seat"] != actor:
            raise RecordError(f"{where}: step {i}: the record has seat {entry['seat']} acting, but in the game it is "
                              f"seat {actor} ({CAVER_NAMES[st.c_rank[0, actor] - 1]})")
        if on_step is not None:
            on_step(i, env, action)
        try:  # legality is the env's to check (one action check); an illegal action changes nothing
            env.step(action)
        except IllegalActionError as e:
            raise RecordError(f"{where}: step {i}: {e}") from None
        events.append(env.last_events)
        if verify and "events" in entry and entry["events"] != events_to_json(events[-1]):
            raise RecordError(f"{where}: step {i}: the replayed events differ from the record's: "
                              f"{events_to_json(events[-1])} != {entry['events']}")
        if keep_states:
            states.append(env.state_.copy())
    if not keep_states:
        states = [env.state_.copy()]
    if verify:
        verify_result(doc, env.state_, where, env.max_cycles)
    return Replay(env, states, doc, events)


def verify_result(doc: dict[str, Any], st: State, where: str = "record", max_cycles: int = 200) -> None:
    """RecordError unless the replayed final State matches the record's result and hash."""
    want = doc["result"]
    code = int(st.result[0])
    cut_off = bool(episode.truncated(st, max_cycles)[0])
    if want.get("finished") and code == RUNNING and not cut_off:
        raise RecordError(f"{where}: result mismatch: the record says the game finished "
                          f"({want.get('name', want['code'])}) but after its {len(doc['actions'])} actions it is "
                          "still running")
    if code != int(want["code"]):
        raise RecordError(f"{where}: result mismatch: the replay ends {result_name(code)} but the record says "
                          f"{want.get('name', want['code'])}")
    for key, value in (("escaped", game_info(st, 0)["escaped"]),
                       ("round", int(st.round[0]))):
        if key in want and want[key] != value:
            raise RecordError(f"{where}: result mismatch: {key} is {value} in the replay, {want[key]} in the record")
    got = state_hash(st)
    if doc["final_state_hash"] != got:
        raise RecordError(f"{where}: final state hash mismatch: the replay reaches {got}, the record says "
                          f"{doc['final_state_hash']} (the record was changed, or the rules changed since)")


# ---------------------------------------------------------------------------------------------- learning from records
def to_samples(record: dict[str, Any] | str | Path, obs_radius: int = 7, only_human: bool = False
               ) -> dict[str, np.ndarray]:
    """(observation, mask, action) samples, one per decision of the record, for behaviour cloning.

    Returns arrays with one row per decision (N rows; with ``only_human``, people's decisions only):
    ``observation`` int8 (N, 34, 2R+1, 2R+1) and ``scalars`` int8 (N, 49): the acting caver's observation v1
    at ``obs_radius`` R, exactly what the env's ``observe()`` gives (a scenario's record: its env's planes, scalars and
    actions, e.g. 38, 57 and 107 for Annihilation); ``action_mask`` int8 (N, 90); ``action``
    int64 (N,); ``seat`` int8, ``rank`` int8 (1..8), ``step`` int32 (index in the record), ``human`` bool.
    The record is replayed and verified first (RecordError if it does not replay)."""
    doc = load_record(record) if isinstance(record, (str, Path)) else record
    obs, scal, masks, acts, seats, ranks, steps, human = [], [], [], [], [], [], [], []

    def grab(i: int, env: raw_env, action: int) -> None:
        entry = doc["actions"][i]
        is_human = str(entry.get("player", "")).startswith("human")
        if only_human and not is_human:
            return
        st = env.state_
        seat = int(st.actor[0])
        grid, sc = observe(env.core.cat, st, np.array([seat]), obs_radius)
        obs.append(grid[0])
        scal.append(sc[0])
        masks.append(env.legal_mask.astype(np.int8))
        acts.append(action)
        seats.append(seat)
        ranks.append(int(st.c_rank[0, seat]))
        steps.append(i)
        human.append(is_human)

    replay_record(doc, keep_states=False, on_step=grab)
    side = 2 * obs_radius + 1
    from subterra_env.games.sub_terra.core.observe import grid_channels, scalars_of

    scenario = record_config(doc).scenario  # a scenario's observation and actions extend the base game's
    return {
        "observation": np.array(obs, dtype=np.int8).reshape(-1, len(grid_channels(scenario)), side, side),
        "scalars": np.array(scal, dtype=np.int8).reshape(-1, len(scalars_of(scenario))),
        "action_mask": np.array(masks, dtype=np.int8).reshape(-1, num_actions(scenario)),
        "action": np.array(acts, dtype=np.int64),
        "seat": np.array(seats, dtype=np.int8),
        "rank": np.array(ranks, dtype=np.int8),
        "step": np.array(steps, dtype=np.int32),
        "human": np.array(human, dtype=bool),
    }


# ---------------------------------------------------------------------------------------------- pictures
def seat_labels(doc: dict[str, Any]) -> list[str]:
    """A short label per seat for pictures: the person's name or the bot kind (policies by file stem)."""
    out = []
    for s in doc["seats"]:
        player = str(s.get("player", "?"))
        if player == "human":
            out.append(str(s.get("name") or "human"))
        elif player.startswith("policy:"):
            out.append("policy " + Path(player[7:]).stem)
        else:
            out.append(player)
    return out


def frames(doc: dict[str, Any], cell: int | None = None, replay: Replay | None = None) -> Iterator[np.ndarray]:
    """The record's pictures (``render_rgb`` with status strip and legend), all the same size: the start, then
    the game after every decision (decisions + 1 frames), each captioned with the step."""
    from subterra_env.frames import FRAME_CELL, render_rgb

    from .narrate import short_action

    replay = replay or replay_record(doc)
    cfg = replay.env.config
    final = replay.final
    tiles = np.nonzero(final.t_type[0] >= 0)[0]
    bbox = (int(final.t_x[0, tiles].min()), int(final.t_y[0, tiles].min()), int(final.t_x[0, tiles].max()),
            int(final.t_y[0, tiles].max()))  # tiles are never removed: the final box holds every frame
    labels = seat_labels(doc)
    n = len(doc["actions"])
    for i, st in enumerate(replay.states):
        if i == 0:
            caption = f"start (seed {doc['seed']}), {n} decisions"
        else:
            a = doc["actions"][i - 1]
            prev = replay.states[i - 1]
            caption = f"step {i}/{n}: {CAVER_NAMES[prev.c_rank[0, a['seat']] - 1]}: {short_action(prev, a['action'])}"
        yield render_rgb(st, cell=cell or FRAME_CELL, cfg=cfg, bbox=bbox, players=labels, caption=caption)


def write_pngs(doc: dict[str, Any], directory: str | Path, cell: int | None = None,
               replay: Replay | None = None) -> list[Path]:
    """``frame_0000.png`` (the start) .. ``frame_NNNN.png`` (after decision N) in ``directory``."""
    return save_pngs(frames(doc, cell, replay), directory)


def save_pngs(images: Iterable[np.ndarray], directory: str | Path) -> list[Path]:
    """``frame_0000.png`` .. one file per image (any game's frames: Sub Terra's, In the Cave's)."""
    from PIL import Image

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, img in enumerate(images):
        p = directory / f"frame_{i:04d}.png"
        Image.fromarray(img).save(p)
        paths.append(p)
    return paths


def write_gif(doc: dict[str, Any], path: str | Path, delay: float = 0.5, cell: int | None = None,
              replay: Replay | None = None, hold_last: float = 3.0) -> Path:
    """An animated GIF with one frame per picture of ``frames`` (decisions + 1), ``delay`` seconds each, the
    last held ``hold_last`` seconds; loops forever."""
    return save_gif(frames(doc, cell, replay), path, delay, hold_last)


def save_gif(frames_: Iterable[np.ndarray], path: str | Path, delay: float = 0.5, hold_last: float = 3.0) -> Path:
    """An animated GIF of same-sized (H, W, 3) images, ``delay`` seconds each, the last held ``hold_last`` seconds;
    loops forever (any game's frames: Sub Terra's, In the Cave's)."""
    from PIL import Image

    images = [Image.fromarray(img) for img in frames_]
    # one palette for the whole animation, from a sample of frames (the last one holds the result colours):
    # flat colours without dithering keep the file small and the text crisp
    sample = images[:: max(1, len(images) // 8)] + [images[-1]]
    w, h = images[0].size
    sheet = Image.new("RGB", (w, h * len(sample)))
    for i, im in enumerate(sample):
        sheet.paste(im, (0, i * h))
    palette = sheet.quantize(colors=255, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    images = [im.quantize(palette=palette, dither=Image.Dither.NONE) for im in images]
    ms = max(20, round(delay * 1000))
    durations = [ms] * (len(images) - 1) + [max(ms, int(hold_last * 1000))]
    path = Path(path)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(path, save_all=True, append_images=images[1:], duration=durations, loop=0)
    return path


__all__ = [
    "FORMAT",
    "SCHEMA_VERSION",
    "GameRecord",
    "RecordError",
    "Replay",
    "config_from_json",
    "frames",
    "load_record",
    "parse_record",
    "record_config",
    "replay_record",
    "save_gif",
    "save_pngs",
    "save_record",
    "settings_to_json",
    "state_hash",
    "to_samples",
    "verify_result",
    "write_gif",
    "write_pngs",
]
