"""The numba decorator every compiled rule uses, and where its machine code is cached.

``jit`` is ``numba.njit`` with its cache on: the first process after installation compiles the rules (tens of
seconds) and writes machine code to the cache; later processes load it in well under a second.

numba keys a cached function on its own source file only, so a changed rule in another module would leave a
stale cache behind. Unless ``NUMBA_CACHE_DIR`` is set, the cache therefore lives in a directory named after a
hash of every source file of ``subterra_env/games/sub_terra/core``, ``config.py`` and the numba version (under
``~/.cache/subterra_env``, or the package directory where that is not writable): editing any rule starts a
fresh cache.

The first time a process must compile rather than load a kernel, it says so in one line on stderr (once per
component: the rules core, the heuristic team, the search agent), through the ``logging`` logger
``subterra_env.compile`` at WARNING level: with no logging configured Python prints it to stderr; an application
that configures logging gets it through its own handlers. ``SUBTERRA_QUIET=1`` (or
``logging.getLogger("subterra_env.compile").setLevel(logging.ERROR)``) silences it. numba's own ``numba:compile``
event tells a compile from a cache load, so a warm cache never prints. ``python -m subterra_env.warmup`` (and
``python -m agents.warmup`` for the bots) compiles everything ahead, as ``make`` does at install.

Behind numba's cache every function has a second, read-only tier: portable machine code shipped with the package
(``portable.py``), so a fresh install loads its entry kernels in seconds instead of compiling them.
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any

import numba
import numpy as np
from numba.core import types as nb_types
from numba.core import event as numba_event

from .portable import TieredCache

_HERE = Path(__file__).resolve().parent
_CONFIG = _HERE.parents[2] / "config.py"  # subterra_env/config.py: the settings every rule reads


def _source_hash(extra: tuple[Path, ...] = ()) -> str:
    """A hash of numba's version, every module of ``core``, ``config.py`` and of the ``extra`` folders (compiled
    code freezes constants from all of them, so any edit must start a fresh cache)."""
    h = hashlib.blake2b(numba.__version__.encode(), digest_size=8)
    paths = sorted(_HERE.glob("*.py")) + [_CONFIG]
    for folder in extra:
        paths += sorted(Path(folder).glob("*.py"))
    for path in paths:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _cache_dir(stamp: str) -> str | None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "subterra_env"
    for root in (base, _HERE / "__nbcache__"):
        try:
            root.mkdir(parents=True, exist_ok=True)
            probe = root / ".write-test"
            probe.touch()
            probe.unlink()
            return str(root / f"numba-{stamp}")
        except OSError:
            continue
    return None


SOURCE_HASH = _source_hash()  # names the cache directory and stamps the shipped portable code (portable.py)
CACHE_DIR = _cache_dir(SOURCE_HASH)
PREBUILT = _HERE / "prebuilt"  # the core's shipped portable machine code
if CACHE_DIR is not None:
    numba.config.CACHE_DIR = CACHE_DIR


CORE = "the rules core"
# What the compile notice calls the compiled code of a folder that uses ``jit_beside_core``, by folder name.
_FOLDER_NAMES = {"heuristic": "the heuristic team", "search": "the search agent"}


def jit(fn=None, *, parallel: bool = False):
    """``numba.njit`` with the cache on; ``parallel=True`` for the batch loops that use ``prange``."""
    return _jit(fn, parallel=parallel, what=CORE, shipped=(PREBUILT, SOURCE_HASH))


def _plain(t):
    """The type a rule function is compiled for, whatever its caller passes: a constant's plain type, and a
    narrower integer (a record field's int8 or int16, a uint8 die) widened to int64."""
    t = nb_types.unliteral(t)
    if isinstance(t, nb_types.Integer) and t.bitwidth < 64:
        return nb_types.int64
    return t


def _unliteral_call_template(self, args, kws):
    """A call from compiled code types its constant arguments as literals (``damage(g, hurt, 1, ...)`` as
    Literal[int](1)), and its record fields as their own widths, and numba compiles the callee once per distinct
    constant or width: one small rule function became dozens of copies, and the cold start paid for each. Typing
    them as plain int64 (``_plain``) compiles one copy; the call casts each argument up, never losing a value."""
    args = tuple(_plain(a) for a in args)
    kws = {k: _plain(v) for k, v in kws.items()}
    return type(self).get_call_template(self, args, kws)


_DISPATCHERS: list = []  # every function decorated by jit or a jit_beside_core


def portable_loads() -> int:
    """Overloads this process loaded from the shipped portable code (``portable.py``)."""
    return sum(d._cache.portable_loads for d in _DISPATCHERS if isinstance(d._cache, TieredCache))


class _CacheOnDemand:
    """A dispatcher's ``TieredCache`` until numba first uses it. Building one probes the file system (numba makes
    the cache directory and writes a test file in it for every function) and only the kernels a process calls from
    Python ever use theirs: of about 160 compiled functions a first AEC step loads 5, so building them on demand
    saves most of that work at every import."""

    __slots__ = ("_dispatcher", "_py_func", "_shipped", "_cache_dir")

    def __init__(self, dispatcher, py_func, shipped: tuple[Path, str], cache_dir: str | None):
        self._dispatcher, self._py_func, self._shipped, self._cache_dir = dispatcher, py_func, shipped, cache_dir

    def __getattr__(self, name: str):
        if self._dispatcher._cache is not self:  # built already (through another reference to this stand-in)
            return getattr(self._dispatcher._cache, name)
        before = numba.config.CACHE_DIR  # numba's locator reads it: the directory the function was decorated under
        numba.config.CACHE_DIR = self._cache_dir
        try:
            cache = TieredCache(self._py_func, *self._shipped)
        finally:
            numba.config.CACHE_DIR = before
        self._dispatcher._cache = cache
        return getattr(cache, name)


def _jit(fn, *, parallel: bool, what: str, shipped: tuple[Path, str]):
    # no cache=True: numba's enable_caching() would build a FunctionCache that TieredCache (numba's cache, then the
    # shipped portable code) replaces at once; building one cache per function keeps the import quicker
    deco = numba.njit(nogil=True, parallel=parallel, error_model="numpy")

    def tagged(f):
        dispatcher = deco(f)
        # numba fixes a function's cache directory when it is decorated: remember it for the notice
        dispatcher._subterra_compile = (what, numba.config.CACHE_DIR)
        dispatcher._cache = _CacheOnDemand(dispatcher, f, shipped, numba.config.CACHE_DIR)
        _DISPATCHERS.append(dispatcher)
        dispatcher.get_call_template = types.MethodType(_unliteral_call_template, dispatcher)
        return dispatcher

    return tagged(fn) if fn is not None else tagged


def jit_beside_core(folder: Path | str, what: str | None = None):
    """A ``jit`` like this module's for compiled code outside ``core`` that calls into it (the heuristic team in
    ``agents/heuristic``): its cache directory hashes that folder's modules with core's, since numba would not
    notice that a rule it inlined had changed. ``what`` names it in the compile notice (default: by the folder's
    name, e.g. "the heuristic team")."""
    folder = Path(folder)
    stamp = _source_hash((folder,))
    cache = _cache_dir(stamp)
    name = what or _FOLDER_NAMES.get(folder.name, f"the compiled code in {folder.name}/")

    def folder_jit(fn=None, *, parallel: bool = False):
        def deco(f):
            before = numba.config.CACHE_DIR  # numba fixes a function's cache path when it is decorated
            if cache is not None:
                numba.config.CACHE_DIR = cache
            try:
                return _jit(f, parallel=parallel, what=name, shipped=(folder / "prebuilt", stamp))
            finally:
                numba.config.CACHE_DIR = before
        return deco(fn) if fn is not None else deco

    folder_jit.shipped = (folder / "prebuilt", stamp)  # its shipped portable code and the stamp it must carry
    return folder_jit


# ---------------------------------------------------------------------------------------------- compile notice
log = logging.getLogger("subterra_env.compile")


def quiet() -> bool:
    """True when ``SUBTERRA_QUIET`` is set to anything but "", "0", "false" or "no" (read at each notice)."""
    return os.environ.get("SUBTERRA_QUIET", "").strip().lower() not in ("", "0", "false", "no")


def describe_cache(cache: str) -> str:
    """A cache directory as the notice names it (under the home directory as ~/...)."""
    if not cache:
        return "numba's __pycache__ beside the sources"
    home = str(Path.home())
    return "~" + cache[len(home):] if home != "/" and cache.startswith(home + os.sep) else cache


def notice(what: str, cache: str) -> str:
    """The one line printed the first time ``what`` compiles in a process."""
    return (f"subterra_env: compiling {what} for this machine (a minute or two, once; later starts load it from the "
            f"cache in {describe_cache(cache)}) ...")


class _CompileWatch(numba_event.Listener):
    """Listens to numba's ``numba:compile`` events (sent on a cache miss only, never on a cache load). A compile
    that starts outside any other (depth 0) and belongs to one of our kernels prints the notice for its component,
    once per process; the rules' own functions that compile inside the heuristic's kernels count as the heuristic.
    Also counts our outermost compiles and their time, for ``compile_stats``."""

    def __init__(self) -> None:
        self.depth = 0
        self.announced: set[str] = set()
        self.kernels: dict[str, int] = {}
        self.seconds: dict[str, float] = {}
        self._top: tuple[str, float] | None = None
        self.roots: list = []  # the dispatchers of those outermost compiles: kernels called from Python

    def on_start(self, event) -> None:
        self.depth += 1
        if self.depth != 1:
            return
        tag = getattr(event.data.get("dispatcher"), "_subterra_compile", None) if event.data else None
        if tag is None:
            return
        what, cache = tag
        self._top = (what, time.perf_counter())
        self.roots.append(event.data["dispatcher"])
        if what not in self.announced:
            self.announced.add(what)
            if not quiet():
                log.warning(notice(what, cache))

    def on_end(self, event) -> None:
        self.depth = max(0, self.depth - 1)
        if self.depth == 0 and self._top is not None:
            what, t0 = self._top
            self._top = None
            dt = time.perf_counter() - t0
            self.kernels[what] = self.kernels.get(what, 0) + 1
            self.seconds[what] = self.seconds.get(what, 0.0) + dt
            name = getattr(getattr(event.data.get("dispatcher"), "py_func", None), "__qualname__", "?")
            log.debug("compiled %s (%s) in %.1f s", name, what, dt)


_WATCH = _CompileWatch()
numba_event.register("numba:compile", _WATCH)


def compiled_roots() -> list:
    """The dispatchers of the kernels this process compiled (rather than loaded) when called from Python, in order:
    the entry points whose machine code ``subterra_env.prebuild`` ships (each holds the rules it calls)."""
    return list(_WATCH.roots)


def compile_stats() -> dict[str, tuple[int, float]]:
    """{component: (kernels compiled, seconds)} in this process so far: entry kernels numba compiled rather than
    loaded from its cache (the functions they call are counted with them)."""
    return {what: (n, _WATCH.seconds[what]) for what, n in _WATCH.kernels.items()}


def compiled_entry(dispatcher, args: tuple):
    """The machine code ``dispatcher`` runs for exactly these arguments, as a callable that skips the dispatcher's
    typing of every argument on each call, or None where it has not been compiled for them yet. Why: at B = 1 the
    typing costs as much as the rules (1.5 against 1.3 us for the 22 arguments of ``advance_serial``). The entry
    checks nothing: call it only with arguments of these same types (in practice the same arrays)."""
    try:
        signature = tuple(argument_type(dispatcher, a) for a in args)
    except Exception:  # a value numba cannot type: the dispatcher itself will say so
        return None
    compiled = dispatcher.overloads.get(signature)
    return getattr(compiled, "entry_point", None)


_RECORD_TYPES: dict[tuple, Any] = {}  # numba's type of a record array, by everything that decides it


def argument_type(dispatcher, value: Any) -> Any:
    """numba's type of one argument, as ``dispatcher.typeof_pyval``; a record array's through a cache. Why: numba
    builds a record type afresh from the dtype's fields on every such call, 0.5-1 ms for the state's 85 fields (the
    dispatcher's own calls do not: they cache it in C)."""
    if isinstance(value, np.ndarray) and value.dtype.names is not None:
        flags = value.flags
        key = (value.dtype, value.ndim, flags.c_contiguous, flags.f_contiguous, flags.writeable, flags.aligned)
        known = _RECORD_TYPES.get(key)
        if known is None:
            known = _RECORD_TYPES[key] = dispatcher.typeof_pyval(value)
        return known
    return dispatcher.typeof_pyval(value)


PARALLEL_MIN_BATCH = 64  # batches smaller than this use the serial loops: the thread pool's start-up costs more

# numba's workqueue thread pool (its fallback where neither TBB nor OpenMP is found) aborts the process if two Python
# threads launch parallel kernels at once: every parallel launch holds this lock.
_PARALLEL_LOCK = threading.Lock()


class _OpenMP:
    """The calling thread's OpenMP thread count, read and restored around a parallel launch. numba's ``omp`` layer
    launch also sets the count of the OpenMP runtime first in the process's global scope, which is torch's own
    libgomp where torch is loaded: without a restore, one engine launch on two cores left a trainer told to use one
    torch thread on two (two runs side by side then crowded each other 4-7x: issue 41's BC stage). Looked up in the
    global scope, where numba's launch finds it; until something there exports OpenMP (no torch, or another
    threading layer), there is nothing to restore, and the lookup (about 18 us) is tried again only once more modules
    have been imported, not at every launch of the core's hot path."""

    def __init__(self) -> None:
        self.get = self.set = None
        self.modules_tried = -1  # len(sys.modules) at the last lookup that found nothing

    def bound(self) -> bool:
        if self.get is None:
            if len(sys.modules) == self.modules_tried:
                return False
            self.modules_tried = len(sys.modules)
            try:
                scope = ctypes.CDLL(None)
                self.get, self.set = scope.omp_get_max_threads, scope.omp_set_num_threads
            except (OSError, AttributeError):
                return False
        return True


_OMP = _OpenMP()


class parallel_section:
    """Context for a parallel kernel call: the lock above, the thread count (numba's setting is per calling
    thread; None keeps numba's default, every core), and the calling thread's OpenMP count as it was before."""

    def __init__(self, threads: int | None = None):
        self.threads = threads

    def __enter__(self) -> None:
        _PARALLEL_LOCK.acquire()
        self.omp_before = _OMP.get() if _OMP.bound() else None
        if self.threads is not None:
            self.before = numba.get_num_threads()
            numba.set_num_threads(self.threads)

    def __exit__(self, *exc: object) -> None:
        if self.threads is not None:
            numba.set_num_threads(self.before)
        if self.omp_before is not None:
            _OMP.set(self.omp_before)
        _PARALLEL_LOCK.release()
