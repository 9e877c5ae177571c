"""The package's old module paths, kept working after the games' rules moved into ``subterra_env/games/`` (issue 43).

``subterra_env.core.rules``, ``subterra_env.sub_terra`` and In the Cave's rule modules under their old package
(``subterra_env.in_the_cave.core``, ``.config``, ``.game``, ...; its envs stay there) give the very module objects of
their new homes (``subterra_env.games.sub_terra.core.rules``, ``subterra_env.games.sub_terra.game``,
``subterra_env.games.in_the_cave.core``, ...), not second copies: one ``State`` class, one compiled kernel, and
pickles that name an old path load as before. New code imports the new paths; these names stay for code written
against the old ones.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType

MOVED = {
    "subterra_env.core": "subterra_env.games.sub_terra.core",
    "subterra_env.in_the_cave.config": "subterra_env.games.in_the_cave.config",
    "subterra_env.in_the_cave.core": "subterra_env.games.in_the_cave.core",
    "subterra_env.in_the_cave.game": "subterra_env.games.in_the_cave.game",
    "subterra_env.in_the_cave.observe": "subterra_env.games.in_the_cave.observe",
    "subterra_env.in_the_cave.invariants": "subterra_env.games.in_the_cave.invariants",
    "subterra_env.in_the_cave.scenario": "subterra_env.games.in_the_cave.scenario",
    "subterra_env.sub_terra": "subterra_env.games.sub_terra.game",
}


def new_name(name: str) -> str | None:
    """The module path ``name`` now has, or None if it did not move."""
    for old, new in MOVED.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old):]
    return None


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path and loads it as the module at the new one (imported there first)."""

    def __init__(self) -> None:
        self._own_specs: dict[str, importlib.machinery.ModuleSpec] = {}

    def find_spec(self, name: str, path: object, target: object = None) -> importlib.machinery.ModuleSpec | None:
        if not name.startswith("subterra_env."):  # first on sys.meta_path: every import of the process asks here
            return None
        new = new_name(name)
        return None if new is None else importlib.machinery.ModuleSpec(name, self, origin=new)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(spec.origin)
        self._own_specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # importlib gave the module the old path's spec: give it back its own, so that it still names its real
        # home (reload, python -m); its name, file and classes never changed
        module.__spec__ = self._own_specs.pop(module.__name__, module.__spec__)


def install() -> None:
    """Put the finder on ``sys.meta_path`` once (``subterra_env/__init__.py`` does, at import)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())
