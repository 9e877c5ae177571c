"""Start-up cost of the compiled core: the first process after installation (numba compiles every kernel) and a
process that finds them in numba's cache.

    python -m benchmarks.startup [--runs 2] [--out benchmarks/results/startup.json]

Each run is a fresh Python process that imports subterra_env, makes the first calls at B = 2 (the serial
kernels) and at B = 64 (the threaded ones) and one AEC reset and step. The cold runs use an empty cache directory
(``NUMBA_CACHE_DIR`` pointing to a new temporary directory): "cold" as a fresh install starts (numba's cache is
empty; the portable machine code shipped in ``subterra_env/games/sub_terra/core/prebuilt`` loads), "cold, compile" with the
shipped code off (``SUBTERRA_PORTABLE=0``: numba compiles every kernel, as ``python -m subterra_env.warmup`` does
for this machine's own code). The warm runs reuse that compiled cache. Prints a table and writes JSON.

Two more rows, each the median (and the fastest) of ``--start-runs`` warm processes: "user start" is what a user's
first cell costs (import subterra_env, ``env()``, ``reset``, the first ``step``), and "numba floor" what any numba
program with these dependencies pays before doing anything of ours (import numpy, numba, gymnasium, pettingzoo and
yaml, and call one cached one-line numba function): the difference is ours. The floor's cache load refreshes numba's
target context (importing every lowering registry, and ``scipy.linalg`` for numba's BLAS check where scipy is
installed: about 0.3 s more); the package's loads skip that refresh (``core/portable.py``), so the user start can
come in under the floor. The probes run with bytecode caching on (``PYTHONDONTWRITEBYTECODE`` removed), as an
installed package runs. The JSON and the table say whether scipy is installed.

The start rows run interleaved (one process of each row in turn, so a busy spell of the machine falls on every row
alike). ``--start-only`` measures just them, against the package's own warm cache (as an installed package starts);
``--against DIR`` adds a row for another checkout (``git worktree add /tmp/old HEAD~1``: an A/B of a start-up
change; its first process may compile its kernels, once); ``--hide-scipy`` runs the probes as if scipy were not
installed (a stand-in ``scipy`` package that fails to import: numba then skips its BLAS check, as on a machine
without scipy); ``--breakdown`` takes each user-start row apart in the process (our import, numba's first cache
load, the other loads, the Python work, the garbage collector, the LLVM bitcode parsed).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT_OUT = Path(__file__).parent / "results" / "startup.json"

PROBE = r"""
import json, time
t0 = time.perf_counter()
import numpy as np
import subterra_env
from subterra_env.games.sub_terra.core.observe import observe
from subterra_env.games.sub_terra.core.rules import Core
t1 = time.perf_counter()
core = Core()
for b in (2, 64):
    st = core.init(np.arange(b))
    core.step(st, core.legal_mask(st).argmax(1))
    observe(core.cat, st, np.maximum(st.actor, 0), 7)
    if b == 2:
        t2 = time.perf_counter()
t3 = time.perf_counter()
env = subterra_env.env()
env.reset(seed=0)
obs, *_ = env.last()
env.step(int(np.flatnonzero(obs["action_mask"])[0]))
t4 = time.perf_counter()
from subterra_env.games.sub_terra.core.jit import compile_stats
print(json.dumps({"compiled_kernels": sum(n for n, _ in compile_stats().values()), "import_s": t1 - t0,
                  "serial_first_calls_s": t2 - t1, "threaded_first_calls_s": t3 - t2,
                  "aec_first_step_s": t4 - t3, "total_s": t4 - t0}))
"""


USER_PROBE = r"""
import json, time
t0 = time.perf_counter()
import numpy as np
import subterra_env
env = subterra_env.env()
env.reset(seed=0)
obs, *_ = env.last()
env.step(int(np.flatnonzero(obs["action_mask"])[0]))
print(json.dumps({"total_s": time.perf_counter() - t0}))
"""

# The user start taken apart in the process (``--breakdown``): our import, numba's first cache load (numba starting
# its target context, runtime and JIT engine), the other loads, the Python work left, and inside those the garbage
# collector and the LLVM bitcode parsed and scanned for symbols (what lazy_link.py defers).
BREAKDOWN_PROBE = r"""
import gc, json, time
t0 = time.perf_counter()
import numpy as np, numba, gymnasium, pettingzoo, yaml
t1 = time.perf_counter()
import subterra_env
t2 = time.perf_counter()
import llvmlite.binding as ll
from numba.core import caching, codegen
spent = {"loads": [], "bitcode": 0.0, "gc": 0.0}
def timed(fn, key):
    def wrapper(*args):
        t = time.perf_counter()
        try:
            return fn(*args)
        finally:
            dt = time.perf_counter() - t
            spent[key].append(dt) if key == "loads" else spent.__setitem__(key, spent[key] + dt)
    return wrapper
caching.Cache.load_overload = timed(caching.Cache.load_overload, "loads")
from subterra_env.games.sub_terra.core.portable import TieredCache
if "load_overload" in vars(TieredCache):  # its own (without numba's context refresh) where the checkout has one
    TieredCache.load_overload = timed(TieredCache.load_overload, "loads")
ll.parse_bitcode = timed(ll.parse_bitcode, "bitcode")
codegen.JitEngine._load_defined_symbols = timed(codegen.JitEngine._load_defined_symbols, "bitcode")
gc_start = []
gc.callbacks.append(lambda phase, info: gc_start.append(time.perf_counter()) if phase == "start" else
                    spent.__setitem__("gc", spent["gc"] + time.perf_counter() - gc_start.pop()))
env = subterra_env.env()
env.reset(seed=0)
obs, *_ = env.last()
env.step(int(np.flatnonzero(obs["action_mask"])[0]))
t3 = time.perf_counter()
loads = spent["loads"]
print(json.dumps({"dependencies_s": t1 - t0, "import_s": t2 - t1, "first_load_s": loads[0],
                  "other_loads_s": sum(loads[1:]), "python_s": t3 - t2 - sum(loads), "gc_s": spent["gc"],
                  "bitcode_s": spent["bitcode"], "loads": len(loads), "total_s": t3 - t0}))
"""

FLOOR_PROBE = r"""
import json, time
t0 = time.perf_counter()
import numpy, numba, gymnasium, pettingzoo, yaml
from subterra_floor import one  # from the folder on PYTHONPATH (run_probe's ``path``)
one(1)
print(json.dumps({"total_s": time.perf_counter() - t0}))
"""
FLOOR_MODULE = "import numba\n\n\n@numba.njit(cache=True)\ndef one(x):\n    return x + 1\n"


HIDDEN_SCIPY = 'raise ImportError("scipy hidden by python -m benchmarks.startup --hide-scipy")\n'


def run_probe(cache_dir: str | None, portable: bool = True, probe: str = PROBE, *args: str, root: str | None = None,
              path: str = "") -> dict[str, float]:
    """One fresh process of ``probe``. ``cache_dir`` None: the package's own cache; ``root``: import the package
    from that checkout; ``path``: folders put first on the import path
    (``--hide-scipy``'s stand-in, the floor's module), joined by ``os.pathsep``."""
    env = {**os.environ, "SUBTERRA_PORTABLE": "1" if portable else "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package's modules load from their bytecode cache
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    paths = [p for p in (path, root) if p]
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    done = subprocess.run([sys.executable, "-c", probe, *args], env=env, capture_output=True, text=True, check=True,
                          cwd=root)
    return json.loads(done.stdout.strip().splitlines()[-1])


def interleaved_runs(cases: dict[str, dict], runs: int) -> dict[str, list[dict]]:
    """{row: what each of ``runs`` warm processes printed}: each case (``run_probe``'s keywords: cache_dir, probe,
    args, root, path) runs once to fill its caches, then the rows take turns, one process each."""
    def run(case: dict) -> dict:
        return run_probe(case.get("cache_dir"), False, case["probe"], *case.get("args", ()), root=case.get("root"),
                         path=case.get("path", ""))

    for case in cases.values():
        run(case)
    samples: dict[str, list[dict]] = {name: [] for name in cases}
    for _ in range(max(1, runs)):
        for name, case in cases.items():
            samples[name].append(run(case))
    return samples


def interleaved_starts(cases: dict[str, dict], runs: int) -> dict[str, dict[str, float]]:
    """{row: median, fastest and count of the totals of ``runs`` warm processes} (``interleaved_runs``)."""
    out = {}
    for name, rows in interleaved_runs(cases, runs).items():
        t = sorted(r["total_s"] for r in rows)
        out[name] = {"median_s": t[(len(t) - 1) // 2], "min_s": t[0], "runs": len(t)}
    return out


def start_breakdowns(cases: dict[str, dict], runs: int) -> dict[str, dict[str, float]]:
    """{row: the medians of each part of ``BREAKDOWN_PROBE``'s user start} over ``runs`` interleaved processes
    (the cases as for ``interleaved_runs``, their probe replaced)."""
    probes = {name: {**case, "probe": BREAKDOWN_PROBE} for name, case in cases.items()}
    return {name: {k: statistics.median(r[k] for r in rows) for k in rows[0]}
            for name, rows in interleaved_runs(probes, runs).items()}


def median_start(cache_dir: str | None, runs: int, probe: str, *args: str, path: str = "") -> dict[str, float]:
    """The median and the fastest total of ``runs`` warm processes of ``probe`` (after one that fills caches);
    ``path`` as for ``run_probe``."""
    return interleaved_starts({"start": {"cache_dir": cache_dir, "probe": probe, "args": args, "path": path}},
                              runs)["start"]


def cache_bytes(path: str) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=2, help="warm runs after the cold one [default: 2]")
    p.add_argument("--start-runs", type=int, default=9,
                   help="processes for each of the user start and numba floor rows [default: 9]")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON results [default: %(default)s]")
    p.add_argument("--start-only", action="store_true",
                   help="only the user start and numba floor rows, on the package's own warm cache")
    p.add_argument("--against", type=Path, metavar="DIR",
                   help="add a user start row for the checkout in DIR (an A/B of a start-up change)")
    p.add_argument("--hide-scipy", action="store_true", help="run the probes as if scipy were not installed")
    p.add_argument("--breakdown", action="store_true",
                   help="also take each user start row apart in the process (medians of --start-runs, "
                   "interleaved)")
    args = p.parse_args(argv)
    if args.against is not None and not (args.against / "subterra_env" / "__init__.py").is_file():
        p.error(f"--against {args.against}: not a checkout of this repository (no subterra_env/__init__.py)")
    rows, size = [], None
    with tempfile.TemporaryDirectory(prefix="subterra-numba-") as cache:
        hidden = Path(cache) / "hidden"
        if args.hide_scipy:
            (hidden / "scipy").mkdir(parents=True)
            (hidden / "scipy" / "__init__.py").write_text(HIDDEN_SCIPY)
        path = str(hidden) if args.hide_scipy else ""
        if not args.start_only:
            print("cold run (empty numba cache: the shipped portable code loads) ...", flush=True)
            rows.append({"run": "cold", **run_probe(cache, path=path)})
            print("cold run with the shipped code off (every kernel compiles) ...", flush=True)
            rows.append({"run": "cold, compile", **run_probe(cache, portable=False, path=path)})
            for i in range(args.runs):
                rows.append({"run": f"warm {i + 1}", **run_probe(cache, portable=False, path=path)})
            size = cache_bytes(cache)
        print(f"user start and numba floor, {args.start_runs} warm processes each, interleaved ...", flush=True)
        floor_dir = Path(cache) / "floor"
        floor_dir.mkdir()
        (floor_dir / "subterra_floor.py").write_text(FLOOR_MODULE)
        ours = None if args.start_only else cache
        cases = {"user start": {"cache_dir": ours, "probe": USER_PROBE, "path": path},
                 "numba floor": {"cache_dir": cache, "probe": FLOOR_PROBE,
                                 "path": os.pathsep.join(p for p in (path, str(floor_dir)) if p)}}
        if args.against is not None:
            cases[f"user start, {args.against}"] = {"cache_dir": None, "probe": USER_PROBE, "path": path,
                                                     "root": str(args.against.resolve())}
        starts = interleaved_starts(cases, args.start_runs)
        users = {name: case for name, case in cases.items() if name.startswith("user start")}
        breakdowns = start_breakdowns(users, args.start_runs) if args.breakdown else None
    keys = ("import_s", "serial_first_calls_s", "threaded_first_calls_s", "aec_first_step_s", "total_s")
    if rows:
        print(f"\n{'run':<14}{'compiled':>9}" + "".join(f"{k[:-2]:>24}" for k in keys))
        for r in rows:
            print(f"{r['run']:<14}{r['compiled_kernels']:>9}" + "".join(f"{r[k]:>23.2f}s" for k in keys))
    width = max(14, *(len(name) + 1 for name in starts))
    print(f"\n{'warm start':<{width}}{'median':>9}{'fastest':>9}   (import, env(), reset, first step; the floor: "
          f"numba and the dependencies alone)")
    for name, r in starts.items():
        print(f"{name:<{width}}{r['median_s']:>8.2f}s{r['min_s']:>8.2f}s")
    scipy = importlib.util.find_spec("scipy") is not None and not args.hide_scipy
    print(f"ours: {starts['user start']['median_s'] - starts['numba floor']['median_s']:+.2f} s against the floor "
          f"(medians); scipy {'installed: the floor imports scipy.linalg' if scipy else 'not installed'}"
          f"{' (hidden)' if args.hide_scipy else ''}")
    for name, parts in (breakdowns or {}).items():
        print(f"\n{name} taken apart (medians, s): " + ", ".join(
            f"{k[:-2].replace('_', ' ')} {v:.3f}" for k, v in parts.items() if k.endswith("_s")))
    if size is not None:
        print(f"\nnumba cache: {size / 2**20:.1f} MiB")
    result = {"rows": rows, "starts": starts, "scipy_installed": scipy, "cache_bytes": size}
    if breakdowns is not None:
        result["breakdowns"] = breakdowns
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(f"wrote {args.out}")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
