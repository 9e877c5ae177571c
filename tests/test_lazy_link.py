"""Cached kernels load with their linking bitcode unparsed (subterra_env/games/sub_terra/core/lazy_link.py) and without numba's
context refresh (core/portable.py), and everything that needs either still gets it: a new compile that calls a
loaded kernel refreshes the context and links the kernel in, and a symbol lookup that misses parses the waiting
libraries first. Each check runs in a fresh process, so the kernels come from numba's cache
(filled at install by the warm-up) rather than from this process's earlier compiles."""

from __future__ import annotations

import json
import subprocess
import sys
import weakref

PROBE = r"""
import json
import sys
import numba
import numpy as np
from numba.core.registry import cpu_target
from subterra_env.games.sub_terra.core import kernels, lazy_link
from subterra_env.games.sub_terra.core.rules import Core

core = Core()
st = core.init(np.arange(3) + 40)
for _ in range(25):
    core.step(st, core.legal_mask(st).argmax(1))
out = np.zeros(3, np.int64)
kernels.cavers_out_batch(st.packed, out)  # called from Python: loaded from the cache, bitcode left unparsed
library = kernels.cavers_out_batch.overloads[kernels.cavers_out_batch.signatures[0]].library
engine = cpu_target.target_context.codegen()._engine
lazy = {"class": type(library).__name__, "unparsed": library._linking_bitcode is not None,
        "symbols": type(engine._defined_symbols).__name__,
        "registries_before_compile": "numba.np.arraymath" in sys.modules}


@numba.njit
def twice(states, out):  # compiled here, after the load: links cavers_out_batch's library in
    kernels.cavers_out_batch(states, out)
    return 2 * out.sum()


total = twice(st.packed, out)
lazy["parsed_after_link"] = library._linking_bitcode is None
lazy["registries_after_compile"] = "numba.np.arraymath" in sys.modules  # out.sum() is lowered from there
print(json.dumps({"lazy": lazy, "out": out.tolist(), "twice": int(total), "result": st.result.tolist(),
                  "round": st.round.tolist()}))
"""


def run_probe() -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_cached_kernel_loads_lazily_and_still_links_into_a_new_compile():
    got = run_probe()
    assert got["lazy"] == {"class": "LazyLinkLibrary", "unparsed": True, "symbols": "_LazySymbols",
                           "registries_before_compile": False, "parsed_after_link": True,
                           "registries_after_compile": True}
    assert got["twice"] == 2 * sum(got["out"])
    assert got["result"] == [-1, -1, -1] and got["round"] == [7, 7, 7]  # 25 lowest-id legal actions each


def test_symbol_lookup_that_misses_parses_the_waiting_libraries():
    from numba.core.registry import cpu_target

    from subterra_env.games.sub_terra.core import lazy_link

    codegen = cpu_target.target_context.codegen()
    assert lazy_link._install(codegen)
    symbols = codegen._engine._defined_symbols

    class Waiting:
        parsed = 0

        def _parse_linking_module(self):
            Waiting.parsed += 1
            set.add(symbols, "subterra_test_symbol")

    waiting = Waiting()
    symbols.waiting.append(weakref.ref(waiting))
    assert "subterra_test_symbol" in symbols and Waiting.parsed == 1
    assert "subterra_no_such_symbol" not in symbols and Waiting.parsed == 1  # nothing left waiting
    set.discard(symbols, "subterra_test_symbol")
