"""``subterra dataset from-records``: game records (``subterra_game.records``: the terminal and browser tables)
turned into a Minari dataset, one episode per game, with people's decisions marked (``infos["human"]``).

Every record is read and replayed first (a record of another game, a broken or changed one is a DatasetError
naming the file); all must share the same settings and ``max_cycles`` (one dataset, one environment). A game saved
before its end (``result.finished`` false) is left out and named in the metadata (``subterra.skipped``): its
episode would end in the middle of the game. ``only_human`` keeps the games at which a person held a seat.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from agents.teams import DEFAULT_OBS_RADIUS
from subterra_env import __version__
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.episode import Episodes

from ..records import RecordError, load_record, record_config, replay_record, settings_to_json
from .build import DEFAULT_BATCH, BuildSummary
from .recorder import batches, record_batch
from .store import DatasetError, DatasetWriter, env_spec, megabytes, minari_module


class RecordedMoves:
    """The recorder's ``choose`` and ``human`` for a batch of records: each game's next recorded action, and
    whether a person took it."""

    def __init__(self, docs: Sequence[dict[str, Any]], names: Sequence[str]):
        self.names = list(names)
        self.actions = [np.array([a["action"] for a in d["actions"]], np.int64) for d in docs]
        self.people = [np.array([str(a.get("player", "")).startswith("human") for a in d["actions"]], bool)
                       for d in docs]
        self.taken = np.zeros(len(docs), np.int64)

    def choose(self, eps: Episodes, live: np.ndarray, grid: np.ndarray, scalars: np.ndarray) -> np.ndarray:
        out = np.empty(len(live), np.int64)
        for j, g in enumerate(live):
            if self.taken[g] >= len(self.actions[g]):
                raise DatasetError(f"{self.names[g]}: the game goes on after its last recorded action")
            out[j] = self.actions[g][self.taken[g]]
        self.taken[live] += 1
        return out

    def human(self, live: np.ndarray, actions: np.ndarray) -> np.ndarray:
        return np.array([self.people[g][self.taken[g] - 1] for g in live], bool)


def read_records(files: Sequence[str | Path], only_human: bool) -> tuple[list[tuple[Path, dict]], list[str]]:
    """The records to write (path, document), checked and replayed, and the skipped ones ('FILE: why')."""
    if not files:
        raise DatasetError("no record files given")
    keep, skipped = [], []
    first: tuple[Path, Any, int] | None = None
    for name in files:
        path = Path(name)
        try:
            doc = load_record(path)
            cfg = record_config(doc, str(path))
            replay_record(doc, str(path), keep_states=False)
        except RecordError as e:
            raise DatasetError(str(e)) from None
        if first is None:
            first = (path, cfg, doc["max_cycles"])
        elif (cfg, doc["max_cycles"]) != first[1:]:
            what = "settings" if cfg != first[1] else f"max_cycles ({doc['max_cycles']} against {first[2]})"
            raise DatasetError(f"{path}: its {what} differ from those of {first[0]}: a dataset holds games of one "
                               "environment (build one dataset per settings)")
        if not doc["result"]["finished"]:
            skipped.append(f"{path.name}: saved before the game's end")
        elif only_human and not any(str(s.get("player", "")).startswith("human") for s in doc["seats"]):
            skipped.append(f"{path.name}: no person at the table")
        else:
            keep.append((path, doc))
    if not keep:
        raise DatasetError(f"none of the {len(files)} records can go into the dataset: {'; '.join(skipped)}")
    return keep, skipped


def dataset_from_records(files: Sequence[str | Path], dataset_id: str, *, only_human: bool = False,
                         overwrite: bool = False, obs_radius: int = DEFAULT_OBS_RADIUS, command: str = "",
                         progress: Any = None) -> BuildSummary:
    """Write the records ``files`` as the Minari dataset ``dataset_id`` (see the module docstring), episodes in
    the order of the files. ``progress``: an object with ``update(n)`` (a tqdm bar)."""
    minari_module()
    t0 = time.perf_counter()
    records, skipped = read_records(files, only_human)
    cfg, max_cycles = record_config(records[0][1]), records[0][1]["max_cycles"]
    core = Core(cfg)
    steps = 0
    with DatasetWriter(dataset_id, env_spec(settings_to_json(cfg), max_cycles, obs_radius), overwrite) as writer:
        for lo, hi in batches(len(records), DEFAULT_BATCH):
            docs = [doc for _, doc in records[lo:hi]]
            moves = RecordedMoves(docs, [str(path) for path, _ in records[lo:hi]])
            done = record_batch(core, cfg, np.array([d["seed"] for d in docs], np.int64), moves.choose,
                                max_cycles=max_cycles, obs_radius=obs_radius, first_id=lo, human=moves.human,
                                on_done=progress.update if progress is not None else None)
            steps += sum(len(ep) for ep in done)
            writer.add(done)
            writer.storage.update_episode_metadata(
                [{"record": path.name, "players": [str(s.get("player", "")) for s in doc["seats"]]}
                 for path, doc in records[lo:hi]], range(lo, hi))
        meta = {"algorithm_name": "people and bots at the game's tables", "author": {"subterra_env"},
                "description": f"{len(records)} recorded games of Sub Terra (people's seats marked in "
                               f"infos['human']; subterra_env {__version__}).",
                "requirements": [f"subterra-env=={__version__}"],
                "subterra": {"source": "records", "records": [p.name for p, _ in records], "skipped": skipped,
                             "only_human": only_human, "package_version": __version__, "command": command,
                             "max_cycles": max_cycles, "obs_radius": obs_radius}}
        path = writer.publish(meta)
    return BuildSummary(dataset_id, path, len(records), steps, time.perf_counter() - t0, megabytes(path))
