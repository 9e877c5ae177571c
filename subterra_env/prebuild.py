"""Build the portable machine code the package ships, so a fresh install starts without compiling.

    python -m subterra_env.prebuild [--check]     # the rules core
    python -m agents.prebuild [--check]           # the rules core and the compiled bots (make prebuilt)

A child process with an empty numba cache runs the warm-up phases (``subterra_env.warmup``; ``agents.warmup``
too for the bots) with numba compiling for a generic CPU (``NUMBA_CPU_NAME=generic``). The index and data files of
every entry kernel it compiled (a kernel called from Python: its machine code holds every rule it calls) are then
copied into the ``prebuilt/`` folder of the kernel's component (``subterra_env/games/sub_terra/core/prebuilt``,
``agents/heuristic/prebuilt``, ...), stamped with the hash of that component's sources (``core/portable.py``
explains the tiers). Run it after editing the rules core or the compiled bots; a test fails until the shipped code
matches the sources. ``--check`` only reports whether each shipped folder is current (exit status 1 if not).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from numba.core.caching import IndexDataCacheFile

from .games.sub_terra.core import jit
from .games.sub_terra.core.portable import STAMP_FILE, shipped_stamp


def _child(modules: list[str], out: str) -> None:
    """In the generic-CPU process: run the phases, then write what compiled as JSON."""
    import importlib

    from .games.sub_terra.core.portable import use_portable
    from .warmup import run

    use_portable(False)
    steps = [step for module in modules for step in importlib.import_module(module).phases()]
    run(steps, "portable build", out=sys.stderr)
    roots = {}
    for d in jit.compiled_roots():
        cache = d._cache
        roots[cache.filename_base] = {"what": d._subterra_compile[0], "folder": str(cache.folder),
                                      "stamp": cache._shipped._source_stamp, "cache": cache.cache_path}
    Path(out).write_text(json.dumps(roots, indent=1))


def _ship(base: str, root: dict) -> int:
    """Copy one kernel's index and data files into its shipped folder, restamped; returns the bytes copied."""
    src, dst = Path(root["cache"]), Path(root["folder"])
    with open(src / f"{base}.nbi", "rb") as f:
        pickle.load(f)  # numba's version: the new index is written with the same one
        _, overloads = pickle.loads(f.read())
    size = 0
    for name in set(overloads.values()):
        shutil.copyfile(src / name, dst / name)
        size += (dst / name).stat().st_size
    IndexDataCacheFile(str(dst), base, root["stamp"])._save_index(overloads)
    return size + (dst / f"{base}.nbi").stat().st_size


def build(modules: list[str]) -> dict[str, dict]:
    """Compile the phases of ``modules`` for a generic CPU and replace the shipped folders of what they compiled.
    Returns {folder: {"stamp", "kernels", "bytes"}}."""
    with tempfile.TemporaryDirectory(prefix="subterra-prebuild-") as tmp:
        out = Path(tmp) / "roots.json"
        env = {**os.environ, "NUMBA_CPU_NAME": "generic", "NUMBA_CACHE_DIR": str(Path(tmp) / "cache"),
               "SUBTERRA_QUIET": "1"}
        env.pop("NUMBA_CPU_FEATURES", None)  # numba's default for the generic CPU: no extra features
        code = f"from subterra_env.prebuild import _child; _child({modules!r}, {str(out)!r})"
        subprocess.run([sys.executable, "-c", code], env=env, check=True)
        roots = json.loads(out.read_text())
        report: dict[str, dict] = {}
        for folder in sorted({r["folder"] for r in roots.values()}):
            path = Path(folder)
            if path.exists():
                shutil.rmtree(path)
            path.mkdir(parents=True)
        for base, root in sorted(roots.items()):
            row = report.setdefault(root["folder"], {"stamp": root["stamp"], "kernels": 0, "bytes": 0})
            row["kernels"] += 1
            row["bytes"] += _ship(base, root)
        for folder, row in report.items():
            (Path(folder) / STAMP_FILE).write_text(row["stamp"] + "\n")
    return report


def check(folders: dict[Path, str] | None = None) -> list[str]:
    """The shipped folders ({folder: its sources' hash}, default the rules core's) that do not match their
    sources, one line each (empty when all are current)."""
    folders = {jit.PREBUILT: jit.SOURCE_HASH} if folders is None else folders
    return [f"{folder}: built from {shipped_stamp(folder) or 'nothing'}, the sources are {stamp}"
            for folder, stamp in folders.items() if shipped_stamp(folder) != stamp]


def main(argv: list[str] | None = None, prog: str = "python -m subterra_env.prebuild",
         phases: tuple[str, ...] = ("subterra_env.warmup",), folders: dict[Path, str] | None = None) -> int:
    """The command line; ``agents.prebuild`` calls it with the bots' phases and folders too."""
    p = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="only report whether the shipped code is current")
    args = p.parse_args(argv)
    if args.check:
        stale = check(folders)
        print("\n".join(stale) if stale else "the shipped portable code matches the sources")
        return 1 if stale else 0
    t0 = time.perf_counter()
    for folder, row in build(list(phases)).items():
        print(f"{folder}: {row['kernels']} kernels, {row['bytes'] / 2**20:.1f} MiB, sources {row['stamp']}")
    print(f"done in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
