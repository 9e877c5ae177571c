"""Game records: one JSON document per game, replayable to the identical result, and samples for behaviour cloning.

The document itself (its format, ``GameRecord``, ``save_record``, ``load_record``, ``parse_record``,
``state_hash``) is ``record_json``'s (the schema is described there), re-exported here; this module plays a
record again (``replay_record``, ``verify_result``) and makes samples (``to_samples``) and pictures (``frames``,
PNG files, a GIF) from the replay.

    rec = load_record("game.json")            # RecordError naming what is wrong: bad JSON, missing key, ...
    replay = replay_record(rec)               # plays it through the env; RecordError on an illegal action at
    replay.states[-1]                         # step N, a result or final hash mismatch; one State per decision + 1
    samples = to_samples(rec, obs_radius=7)   # observation / scalars / action_mask / action arrays per decision
    write_gif(rec, "game.gif")                # frames = decisions + 1 (the start, then after every decision)
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from subterra_env import episode
from subterra_env.config import CAVER_NAMES
from subterra_env.env import raw_env
from subterra_env.events import Event
from subterra_env.game import IllegalActionError
from subterra_env.games.sub_terra.core.actions import num_actions
from subterra_env.games.sub_terra.core.observe import observe
from subterra_env.games.sub_terra.core.state import RUNNING, State
from subterra_env.info import game_info, result_name

from .record_json import (FORMAT, PLAYER_KINDS, REQUIRED_KEYS, SCHEMA_VERSION, GameRecord,  # noqa: F401
                          RecordError, check_actions, config_from_json, default_record_name, events_to_json,
                          load_record, parse_record, record_config, save_record, settings_to_json, state_hash)


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
