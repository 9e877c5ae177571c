"""The numba decorator every compiled rule uses, and where its machine code is cached.

``jit`` is ``numba.njit(cache=True)``: the first process after installation compiles the rules (tens of
seconds) and writes machine code to the cache; later processes load it in well under a second.

numba keys a cached function on its own source file only, so a changed rule in another module would leave a
stale cache behind. Unless ``NUMBA_CACHE_DIR`` is set, the cache therefore lives in a directory named after a
hash of every source file of ``subterra_env/core``, ``config.py`` and the numba version (under
``~/.cache/subterra_env``, or the package directory where that is not writable): editing any rule starts a
fresh cache.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import numba

_HERE = Path(__file__).resolve().parent


def _source_hash(extra: tuple[Path, ...] = ()) -> str:
    """A hash of numba's version, every module of ``core``, ``config.py`` and of the ``extra`` folders (compiled
    code freezes constants from all of them, so any edit must start a fresh cache)."""
    h = hashlib.blake2b(numba.__version__.encode(), digest_size=8)
    paths = sorted(_HERE.glob("*.py")) + [_HERE.parent / "config.py"]
    for folder in extra:
        paths += sorted(Path(folder).glob("*.py"))
    for path in paths:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _cache_dir(extra: tuple[Path, ...] = ()) -> str | None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "subterra_env"
    for root in (base, _HERE / "__nbcache__"):
        try:
            root.mkdir(parents=True, exist_ok=True)
            probe = root / ".write-test"
            probe.touch()
            probe.unlink()
            return str(root / f"numba-{_source_hash(extra)}")
        except OSError:
            continue
    return None


CACHE_DIR = _cache_dir()
if CACHE_DIR is not None:
    numba.config.CACHE_DIR = CACHE_DIR


def jit(fn=None, *, parallel: bool = False):
    """``numba.njit`` with the cache on; ``parallel=True`` for the batch loops that use ``prange``."""
    deco = numba.njit(cache=True, nogil=True, parallel=parallel, error_model="numpy")
    return deco(fn) if fn is not None else deco


def jit_beside_core(folder: Path | str):
    """A ``jit`` like this module's for compiled code outside ``core`` that calls into it (the heuristic team in
    ``agents/heuristic``): its cache directory hashes that folder's modules with core's, since numba would not
    notice that a rule it inlined had changed."""
    cache = _cache_dir((Path(folder),))

    def folder_jit(fn=None, *, parallel: bool = False):
        def deco(f):
            before = numba.config.CACHE_DIR  # numba fixes a function's cache path when it is decorated
            if cache is not None:
                numba.config.CACHE_DIR = cache
            try:
                return jit(f, parallel=parallel)
            finally:
                numba.config.CACHE_DIR = before
        return deco(fn) if fn is not None else deco

    return folder_jit


PARALLEL_MIN_BATCH = 64  # batches smaller than this use the serial loops: the thread pool's start-up costs more

# numba's default thread pool (workqueue) aborts the process if two Python threads launch parallel kernels at once:
# every parallel launch holds this lock.
_PARALLEL_LOCK = threading.Lock()


class parallel_section:
    """Context for a parallel kernel call: the lock above, and the thread count (numba's setting is per calling
    thread; None keeps numba's default, every core)."""

    def __init__(self, threads: int | None = None):
        self.threads = threads

    def __enter__(self) -> None:
        _PARALLEL_LOCK.acquire()
        if self.threads is not None:
            self.before = numba.get_num_threads()
            numba.set_num_threads(self.threads)

    def __exit__(self, *exc: object) -> None:
        if self.threads is not None:
            numba.set_num_threads(self.before)
        _PARALLEL_LOCK.release()
