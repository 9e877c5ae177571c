"""Where a row's time goes: one interface's row of ``benchmarks/sps.py`` under cProfile, its functions' own time
summed by layer, then the functions that cost most.

    python -m benchmarks.profile_row --row torchrl --batch 1024     # the TorchRL env's step_and_maybe_reset
    python -m benchmarks.profile_row --row sb3 --batch 8 --top 15 --out /tmp/profile.json

Rows: ``core`` (``sps.core_stepper``, step + mask + observations), ``torchrl``, ``sb3``, ``gymnasium`` (the
interfaces' steppers, random legal actions). Layers, by where a function lives: the compiled kernels (numba's
dispatchers, which cProfile times as one call each: the machine code's own time, the dispatcher's typing included),
subterra_env's Python, torchrl and tensordict, torch, numpy, numba's Python (typing in Python, compiling), the
benchmark's policy, functions written in C (numpy's and torch's operations, Python's built-ins) and the rest.
The unprofiled time of a call comes first: cProfile slows every Python call and no kernel, so the shares
overstate Python somewhat. Under Python 3.12 (numba 0.68) cProfile sees no dispatcher call at all: a kernel's time
then counts in the Python function that called it, and the report says so.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numba
from numba.core.registry import CPUDispatcher

from . import sps

ROWS: dict[str, Callable[[int, int], sps.Step]] = {
    "core": lambda batch, seed: sps.core_stepper(batch, True, seed), "torchrl": sps.torchrl_stepper,
    "sb3": sps.sb3_stepper, "gymnasium": sps.gym_vector_stepper}
# (layer, a piece of the path of the files it holds), the first that matches
LAYERS = (("torchrl and tensordict", "/torchrl/"), ("torchrl and tensordict", "/tensordict/"),
          ("torch", "/torch/"), ("numpy", "/numpy/"), ("numba's Python", "/numba/"),
          ("benchmark policy", "/benchmarks/"), ("subterra_env Python", "/subterra_env/"))


def kernels() -> set[tuple[str, int, str]]:
    """cProfile's keys (file, first line, name) of every numba dispatcher loaded so far."""
    found = set()
    for module in list(sys.modules.values()):
        for value in list(getattr(module, "__dict__", {}).values()):
            if isinstance(value, CPUDispatcher):
                code = value.py_func.__code__
                found.add((code.co_filename, code.co_firstlineno, code.co_name))
    return found


def layer(key: tuple[str, int, str], compiled: set[tuple[str, int, str]]) -> str:
    if key in compiled:
        return "compiled kernels"
    if key[0] == "~":  # cProfile's name for functions written in C
        return "C built-ins (numpy, torch, Python)"
    for name, piece in LAYERS:
        if piece in key[0].replace("\\", "/"):
            return name
    return "the rest"


def profile(row: str, batch: int, seconds: float, seed: int = 0, top: int = 12) -> dict[str, Any]:
    """The row's unprofiled ms a call, then ``seconds`` of it under cProfile: ms a call by layer and the ``top``
    functions by their own time."""
    step = ROWS[row](batch, seed)
    sps.timed_run(step, 1.0)  # compiled, loaded, warm
    rate, calls_per_s, _ = sps.timed_run(step, seconds)
    profiler, calls = cProfile.Profile(), 0
    profiler.enable()
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        step()
        calls += 1
    profiler.disable()
    compiled = kernels()
    stats = pstats.Stats(profiler).stats  # {(file, line, name): (calls, primitive calls, own s, cumulative s, ...)}
    layers: dict[str, float] = {}
    for key, (_, _, own, _, _) in stats.items():
        layers[layer(key, compiled)] = layers.get(layer(key, compiled), 0.0) + own
    total = sum(layers.values())
    worst = sorted(stats.items(), key=lambda kv: -kv[1][2])[:top]
    return {"row": row, "batch": batch, "threads": numba.get_num_threads(), "env_steps_per_s": rate,
            "ms_per_call": 1e3 / calls_per_s, "profiled_ms_per_call": 1e3 * total / calls,
            "layers_ms_per_call": {k: 1e3 * v / calls for k, v in sorted(layers.items(), key=lambda kv: -kv[1])},
            "top": [{"function": f"{Path(k[0]).name}:{k[1]}({k[2]})", "layer": layer(k, compiled),
                     "calls_per_call": v[0] / calls, "own_ms_per_call": 1e3 * v[2] / calls} for k, v in worst]}


def show(report: dict[str, Any]) -> None:
    print(f"{report['row']} at B = {report['batch']}, {report['threads']} numba threads: "
          f"{report['ms_per_call']:.3f} ms a call unprofiled ({report['env_steps_per_s']:,.0f} env-steps/s), "
          f"{report['profiled_ms_per_call']:.3f} ms under cProfile")
    total = report["profiled_ms_per_call"]
    for name, ms in report["layers_ms_per_call"].items():
        print(f"  {name:36s} {ms:8.3f} ms  {100 * ms / total:5.1f}%")
    if "compiled kernels" not in report["layers_ms_per_call"]:
        print("  (no compiled kernel seen: this Python's profiler misses numba's dispatcher calls, so each kernel's"
              " time counts in the function that called it)")
    print("functions by own time (ms a call):")
    for f in report["top"]:
        print(f"  {f['own_ms_per_call']:8.3f}  x{f['calls_per_call']:<6.2f} {f['function']}  [{f['layer']}]")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--row", choices=tuple(ROWS), default="torchrl", help="the interface to profile [torchrl]")
    p.add_argument("--batch", type=int, default=1024, help="games in the batch (the vector envs' slots) [1024]")
    p.add_argument("--seconds", type=float, default=2.0, help="profiled seconds (and unprofiled) [2]")
    p.add_argument("--top", type=int, default=12, help="functions listed [12]")
    p.add_argument("--out", type=Path, help="also write the report as JSON here")
    args = p.parse_args(argv)
    if args.batch < 1 or args.seconds <= 0 or args.top < 0:
        p.error("--batch must be at least 1, --seconds > 0, --top >= 0")
    report = profile(args.row, args.batch, args.seconds, top=args.top)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2))
    show(report)
    return report


if __name__ == "__main__":
    main()
