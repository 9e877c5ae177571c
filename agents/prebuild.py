"""Rebuild the portable machine code shipped for the rules core and the compiled bots (``make prebuilt``).

    python -m agents.prebuild [--check]

``subterra_env.prebuild`` with the bots' warm-up phases (the heuristic team, the search agent) and their shipped
folders (``agents/heuristic/prebuilt``, ``agents/search/prebuilt``) added; see it for how. Run it after editing the
rules core, the heuristic or the search kernels: a test fails until the shipped code matches the sources.
"""

from __future__ import annotations

import sys
from pathlib import Path

from subterra_env import prebuild
from subterra_env.games.sub_terra.core import jit as core_jit

from .heuristic.jit import jit as heuristic_jit
from .search.jit import jit as search_jit


def shipped_folders() -> dict[Path, str]:
    """{shipped folder: the hash of its component's sources} for the rules core and both compiled bots."""
    return {core_jit.PREBUILT: core_jit.SOURCE_HASH, **dict((heuristic_jit.shipped, search_jit.shipped))}


def main(argv: list[str] | None = None) -> int:
    return prebuild.main(argv, prog="python -m agents.prebuild", phases=("subterra_env.warmup", "agents.warmup"),
                         folders=shipped_folders())


if __name__ == "__main__":
    sys.exit(main())
