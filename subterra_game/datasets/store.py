"""Writing a Minari dataset (arrow backend) so that a failure leaves nothing behind.

The episodes go into a hidden staging directory beside the dataset's place under Minari's data path
(``MINARI_DATASETS_PATH``, else ``~/.minari/datasets``); only when every episode and the metadata are written is it
renamed into place (and its namespace created), replacing an existing dataset only with ``overwrite``. Any error,
or Ctrl-C, removes the staging directory and the namespace folders this write created.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path
from typing import Any, Iterable

import gymnasium

from subterra_env.registration import ENV_ID

EXTRA_HINT = 'pip install -e ".[datasets]" (Minari with its arrow backend)'
DATA_FORMAT = "arrow"


class DatasetError(ValueError):
    """Bad dataset input (id, team, config, record) or a dataset that does not replay; the message names it."""


def minari_module() -> Any:
    """``minari``, or a DatasetError saying how to install it."""
    try:
        import minari
        import pyarrow  # noqa: F401  (the arrow backend)
    except ImportError as e:
        raise DatasetError(f"datasets need Minari and pyarrow ({e.name} is not installed): {EXTRA_HINT}") from None
    return minari


def check_id(dataset_id: str) -> tuple[str | None, str, int | None]:
    """(namespace, name, version) of a Minari dataset id such as ``subterra/tiny/heuristic-v0``."""
    from minari.dataset.minari_dataset import parse_dataset_id

    try:
        return parse_dataset_id(dataset_id)
    except (ValueError, TypeError):
        raise DatasetError(f"dataset id {dataset_id!r} is malformed: expected (namespace/)name-vN, for example "
                           "subterra/tiny/heuristic-v0") from None


def dataset_dir(dataset_id: str) -> Path:
    from minari.storage.datasets_root_dir import get_dataset_path

    return Path(get_dataset_path(dataset_id))


def check_free(dataset_id: str, overwrite: bool) -> None:
    """DatasetError if the id is malformed, or names an existing dataset and ``overwrite`` is False."""
    check_id(dataset_id)
    if dataset_dir(dataset_id).exists() and not overwrite:
        raise DatasetError(f"dataset {dataset_id!r} already exists at {dataset_dir(dataset_id)}: pass --overwrite "
                           "to replace it, or choose another id (a new version: -v1)")


def env_spec(settings: dict[str, Any], max_cycles: int, obs_radius: int) -> gymnasium.envs.registration.EnvSpec:
    """The spec of ``subterra/SubTerra-v0`` with these settings (plain JSON data), as the dataset stores it."""
    spec = gymnasium.spec(ENV_ID)
    return dataclasses.replace(spec, kwargs={"config": settings, "max_cycles": max_cycles, "obs_radius": obs_radius})


class DatasetWriter:
    """Stage a dataset, then publish it (``with DatasetWriter(...) as w: w.add(episodes); w.publish(meta)``)."""

    def __init__(self, dataset_id: str, spec: gymnasium.envs.registration.EnvSpec, overwrite: bool = False):
        minari_module()
        check_free(dataset_id, overwrite)
        self.dataset_id, self.overwrite = dataset_id, overwrite
        self.final = dataset_dir(dataset_id)
        self.created = _missing_parents(self.final)
        self.final.parent.mkdir(parents=True, exist_ok=True)
        self.staging = self.final.parent / f".{self.final.name}.partial-{os.getpid()}"
        shutil.rmtree(self.staging, ignore_errors=True)
        self.staging.mkdir()
        from minari.dataset.minari_storage import MinariStorage

        env = gymnasium.make(spec, disable_env_checker=True)  # the spaces, and a check that the spec makes the game
        self.storage = MinariStorage.new(self.staging / "data", observation_space=env.observation_space,
                                         action_space=env.action_space, env_spec=spec, data_format=DATA_FORMAT,
                                         jpeg_encoding=False)  # lossless: observations replay bit for bit
        env.close()
        # Minari re-measures the whole dataset on disk after every episode it writes (a walk over all its files:
        # quadratic in the episodes, a minute for 1,000); the size is measured once, in publish()
        self.storage.get_size = lambda: 0.0
        self.published = False

    def __enter__(self) -> "DatasetWriter":
        return self

    def __exit__(self, kind: Any, error: Any, tb: Any) -> None:
        if not self.published:
            self.abort()

    def add(self, episodes: Iterable[Any]) -> None:
        self.storage.update_episodes(episodes)

    def publish(self, metadata: dict[str, Any]) -> Path:
        """Write the metadata and move the dataset into place; returns its directory."""
        import minari
        from minari.namespace import create_namespace, list_local_namespaces

        self.storage.update_metadata({"dataset_id": self.dataset_id, "minari_version": minari.__version__,
                                      "dataset_size": round(megabytes(self.staging / "data"), 1), **metadata})
        namespace = check_id(self.dataset_id)[0]
        if self.final.exists():  # checked at the start; another process may have written it since
            if not self.overwrite:
                raise DatasetError(f"dataset {self.dataset_id!r} appeared at {self.final} while this one was built: "
                                   "pass --overwrite to replace it")
            old = self.final.parent / f".{self.final.name}.old-{os.getpid()}"
            os.replace(self.final, old)
            shutil.rmtree(old)
        os.replace(self.staging, self.final)
        if namespace is not None and namespace not in list_local_namespaces():
            create_namespace(namespace)
        self.published = True
        return self.final

    def abort(self) -> None:
        """Remove the staging directory and the empty folders this write created."""
        shutil.rmtree(self.staging, ignore_errors=True)
        for folder in reversed(self.created):
            try:
                folder.rmdir()
            except OSError:  # not empty (someone else's dataset), or already gone
                pass


def _missing_parents(path: Path) -> list[Path]:
    """The ancestors of ``path`` that do not exist yet, outermost first."""
    missing = []
    for parent in reversed(path.parents):
        if not parent.exists():
            missing.append(parent)
    return missing


def load(dataset_id: str) -> Any:
    """``minari.load_dataset(dataset_id)``, or a DatasetError naming a missing or malformed id."""
    minari = minari_module()
    check_id(dataset_id)
    if not (dataset_dir(dataset_id) / "data").exists():
        raise DatasetError(f"no dataset {dataset_id!r} under {dataset_dir('')} (MINARI_DATASETS_PATH): build it "
                           "with subterra dataset build, or list them with minari list local")
    return minari.load_dataset(dataset_id)


def megabytes(path: Path) -> float:
    """The size of the files under ``path`` in MB (10^6 bytes), as Minari reports ``dataset_size``."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6
