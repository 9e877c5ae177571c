"""The numba decorator of In the Cave's compiled rules: core's ``jit`` with a cache keyed on Sub Terra's core and
this folder's sources (``jit_beside_core``), so editing a rule here starts a fresh cache without touching core's."""

from pathlib import Path

from subterra_env.games.sub_terra.core.jit import jit_beside_core

jit = jit_beside_core(Path(__file__).resolve().parent, what="the In the Cave rules")
