"""The numba decorator of the search agent: core's, with a cache keyed on this folder's sources too."""

from pathlib import Path

from subterra_env.games.sub_terra.core.jit import jit_beside_core

jit = jit_beside_core(Path(__file__).resolve().parent)
