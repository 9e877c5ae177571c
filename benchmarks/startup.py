"""Start-up cost of the compiled core: the first process after installation (numba compiles every kernel) and a
process that finds them in numba's cache.

    python benchmarks/startup.py [--runs 2] [--out benchmarks/results/startup.json]

Each run is a fresh Python process that imports subterra_env, makes the first calls at B = 2 (the serial
kernels) and at B = 64 (the threaded ones) and one AEC reset and step. The cold runs use an empty cache directory
(``NUMBA_CACHE_DIR`` pointing to a new temporary directory): "cold" as a fresh install starts (numba's cache is
empty; the portable machine code shipped in ``subterra_env/core/prebuilt`` loads), "cold, compile" with the
shipped code off (``SUBTERRA_PORTABLE=0``: numba compiles every kernel, as ``python -m subterra_env.warmup`` does
for this machine's own code). The warm runs reuse that compiled cache. Prints a table and writes JSON.

Two more rows, each the median (and the fastest) of ``--start-runs`` warm processes: "user start" is what a user's
first cell costs (import subterra_env, ``env()``, ``reset``, the first ``step``), and "numba floor" what any numba
program with these dependencies pays before doing anything of ours (import numpy, numba, gymnasium, pettingzoo and
yaml, and call one cached one-line numba function): the difference is ours. The probes run with bytecode caching on
(``PYTHONDONTWRITEBYTECODE`` removed), as an installed package runs. Where scipy is installed, numba imports
``scipy.linalg`` at its first compile or cache load (its BLAS check): about 0.3 s more on both rows; the JSON and
the table say whether it is.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
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
from subterra_env.core.observe import observe
from subterra_env.core.rules import Core
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
from subterra_env.core.jit import compile_stats
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

FLOOR_PROBE = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy, numba, gymnasium, pettingzoo, yaml
sys.path.insert(0, sys.argv[1])
from subterra_floor import one
one(1)
print(json.dumps({"total_s": time.perf_counter() - t0}))
"""
FLOOR_MODULE = "import numba\n\n\n@numba.njit(cache=True)\ndef one(x):\n    return x + 1\n"


def run_probe(cache_dir: str, portable: bool = True, probe: str = PROBE, *args: str) -> dict[str, float]:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir, "SUBTERRA_PORTABLE": "1" if portable else "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package's modules load from their bytecode cache
    done = subprocess.run([sys.executable, "-c", probe, *args], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def median_start(cache_dir: str, runs: int, probe: str, *args: str) -> dict[str, float]:
    """The median and the fastest total of ``runs`` warm processes of ``probe`` (after one that fills caches)."""
    run_probe(cache_dir, False, probe, *args)
    totals = sorted(run_probe(cache_dir, False, probe, *args)["total_s"] for _ in range(max(1, runs)))
    return {"median_s": totals[(len(totals) - 1) // 2], "min_s": totals[0], "runs": len(totals)}


def cache_bytes(path: str) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=2, help="warm runs after the cold one [default: 2]")
    p.add_argument("--start-runs", type=int, default=9,
                   help="processes for each of the user start and numba floor rows [default: 9]")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON results [default: %(default)s]")
    args = p.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="subterra-numba-") as cache:
        print("cold run (empty numba cache: the shipped portable code loads) ...", flush=True)
        rows.append({"run": "cold", **run_probe(cache)})
        print("cold run with the shipped code off (every kernel compiles) ...", flush=True)
        rows.append({"run": "cold, compile", **run_probe(cache, portable=False)})
        for i in range(args.runs):
            rows.append({"run": f"warm {i + 1}", **run_probe(cache, portable=False)})
        size = cache_bytes(cache)
        print(f"user start and numba floor, {args.start_runs} warm processes each ...", flush=True)
        floor_dir = Path(cache) / "floor"
        floor_dir.mkdir()
        (floor_dir / "subterra_floor.py").write_text(FLOOR_MODULE)
        starts = {"user start": median_start(cache, args.start_runs, USER_PROBE),
                  "numba floor": median_start(cache, args.start_runs, FLOOR_PROBE, str(floor_dir))}
    keys = ("import_s", "serial_first_calls_s", "threaded_first_calls_s", "aec_first_step_s", "total_s")
    print(f"\n{'run':<14}{'compiled':>9}" + "".join(f"{k[:-2]:>24}" for k in keys))
    for r in rows:
        print(f"{r['run']:<14}{r['compiled_kernels']:>9}" + "".join(f"{r[k]:>23.2f}s" for k in keys))
    print(f"\n{'warm start':<14}{'median':>9}{'fastest':>9}   (import, env(), reset, first step; the floor: numba "
          f"and the dependencies alone)")
    for name, r in starts.items():
        print(f"{name:<14}{r['median_s']:>8.2f}s{r['min_s']:>8.2f}s")
    scipy = importlib.util.find_spec("scipy") is not None
    print(f"ours: {starts['user start']['median_s'] - starts['numba floor']['median_s']:+.2f} s over the floor "
          f"(medians); scipy {'installed: numba imports scipy.linalg in both' if scipy else 'not installed'}")
    print(f"\nnumba cache: {size / 2**20:.1f} MiB")
    result = {"rows": rows, "starts": starts, "scipy_installed": scipy, "cache_bytes": size}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(f"wrote {args.out}")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
