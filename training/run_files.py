"""What every training script of this folder writes and reads the same way: the game of a ``game`` mapping, seed
streams, the package versions of a run, and JSON-lines logs."""

from __future__ import annotations

import json
import platform
import subprocess
from pathlib import Path
from typing import Any

import numpy as np

from training.schema import SettingsError

REPO = Path(__file__).resolve().parents[1]


def build_game(spec: dict[str, Any], key: str = "game"):
    """A GameConfig from a stage's ``game`` mapping (``preset`` file or name, plus GameConfig keys)."""
    from subterra_env.config import ConfigError, from_dict, load, preset, to_dict

    spec = dict(spec or {})
    name = spec.pop("preset", None)
    try:
        if name is None:
            base = {}
        elif str(name).endswith((".yaml", ".yml")):
            path = Path(name) if Path(name).exists() else REPO / name
            if not path.exists():
                raise SettingsError(f"{key}.preset={name!r}: no such file (looked in . and {REPO})")
            base = to_dict(load(path))
        else:
            base = to_dict(preset(str(name)))
        return from_dict({**base, **spec})
    except ConfigError as e:
        raise SettingsError(f"{key}: {e}") from e


def stream_seed(*parts: int) -> int:
    """One 31-bit seed from several integers (seed, stage, segment): distinct streams, reproducible."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0] & 0x7FFFFFFF)


def versions() -> dict[str, Any]:
    """Package versions and the git revision of the code that trained the run."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, Any] = {"python": platform.python_version(), "platform": platform.platform()}
    for pkg in ("subterra-env", "numpy", "torch", "stable-baselines3", "sb3-contrib", "gymnasium", "pettingzoo",
                "tensorboard", "tqdm"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None

    def git(*cmd: str) -> str | None:
        try:
            return subprocess.run(["git", *cmd], cwd=REPO, capture_output=True, text=True, timeout=10,
                                  check=True).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return None

    out["git_revision"] = git("rev-parse", "HEAD")
    status = git("status", "--porcelain")
    out["git_dirty"] = None if status is None else bool(status)
    return out


def append_jsonl(path: Path, record: dict) -> None:
    with path.open("a") as f:
        f.write(json.dumps(record) + "\n")


def read_jsonl(path: Path) -> list[dict]:
    """The records of a JSON-lines file, blank lines skipped; a last line without its newline (a record still being
    appended by ``append_jsonl`` in another process) is left out."""
    text = Path(path).read_text()
    lines = text.splitlines()
    if lines and not text.endswith("\n"):
        lines.pop()
    return [json.loads(line) for line in lines if line.strip()]
