"""Portable machine code shipped with the package: the first process on a new machine starts in seconds.

numba compiles the rules core for the machine it runs on (a minute or more on 2 cores) and caches the result
(``jit.py``). To spare a fresh install that wait, the package also carries the core's entry kernels compiled for a
generic CPU of the same architecture (``NUMBA_CPU_NAME=generic``: baseline instructions only, so they run on any
x86-64 machine) in ``core/prebuilt/``. ``TieredCache`` looks in numba's cache first (this machine's own code) and
then in the shipped folder, read-only; a compile writes only to numba's cache.

Why a second tier rather than shipping numba's cache: numba keys each cache entry on the host CPU's name and
features (another machine never finds it) and stamps it with the hash of the function's own source file only (a
rule inlined from another module could change unnoticed). The shipped index is looked up under the generic CPU's
key and stamped with the hash of all the sources (``jit.SOURCE_HASH``: every module of ``core``, ``config.py`` and
numba's version; a bot's folder adds its own modules). Any edit changes the hash, so stale shipped code is never
loaded (the code compiles as before, with its notice) until ``python -m agents.prebuild`` rebuilds the folders; a
test checks the shipped folders match the sources.

The generic code is somewhat slower than this machine's own; ``python -m subterra_env.warmup`` (run by ``make`` at
install) skips the shipped tier and compiles native code into the cache, which is found first from then on.
``SUBTERRA_PORTABLE=0`` turns the shipped tier off in any process.
"""

from __future__ import annotations

import os
from pathlib import Path

from numba.core.caching import FunctionCache, IndexDataCacheFile
from numba.core.runtime import rtsys

from . import lazy_link

PORTABLE_CPU = ("generic", "")  # the CPU name and feature string the shipped code was compiled for
STAMP_FILE = "SOURCES"  # in a shipped folder: the sources' hash it was built from, for the freshness check
_enabled = True


def use_portable(on: bool) -> None:
    """Turn the shipped tier on or off for this process (the warm-up turns it off to compile native code)."""
    global _enabled
    _enabled = bool(on)


def portable_enabled() -> bool:
    """On unless ``use_portable(False)`` or ``SUBTERRA_PORTABLE`` is "0", "false" or "no" (read at each load)."""
    return _enabled and os.environ.get("SUBTERRA_PORTABLE", "1").strip().lower() not in ("0", "false", "no")


class TieredCache(FunctionCache):
    """numba's cache of one function, then the read-only shipped tier in ``folder`` (stamped ``stamp``)."""

    def __init__(self, py_func, folder: Path, stamp: str):
        super().__init__(py_func)
        self.folder = Path(folder)
        self._shipped = IndexDataCacheFile(str(folder), self._impl.filename_base, stamp)
        self.portable_loads = 0  # overloads this process took from the shipped tier

    @property
    def filename_base(self) -> str:
        """The stem of this function's index and data files (the same in both tiers)."""
        return self._impl.filename_base

    def load_overload(self, sig, target_context):
        # numba's FunctionCache.load_overload without its ``target_context.refresh()``: that imports and installs
        # every lowering registry (numba.np.arraymath, linalg and its scipy BLAS check, npdatetime, typed containers:
        # 0.2-0.6 s, most of a cached start) although only a compile uses them, and every compile refreshes the
        # context itself (numba's CompilerBase). Loaded code needs numba's runtime (NRT), which refresh would have
        # started: it is started here.
        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    def _load_overload(self, sig, target_context):
        # numba's FunctionCache._load_overload, then the shipped tier; both rebuild through lazy_link
        if not self._enabled:
            return None
        sig_key, magic, code = self._index_key(sig, target_context.codegen())
        data = self._cache_file.load((sig_key, magic, code))
        if data is None and portable_enabled():
            data = self._shipped.load((sig_key, (magic[0], *PORTABLE_CPU), code))  # same architecture, generic CPU
            self.portable_loads += data is not None
        return None if data is None else lazy_link.rebuild(self._impl, target_context, data)


def shipped_stamp(folder: Path) -> str | None:
    """The sources' hash a shipped folder was built from (None when it holds none)."""
    try:
        return (Path(folder) / STAMP_FILE).read_text().strip()
    except OSError:
        return None
