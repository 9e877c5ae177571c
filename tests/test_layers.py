"""The layers of docs/architecture.md, read from the sources: nothing imports from a layer above it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def imported_modules(path: Path, package: str) -> set[str]:
    """Absolute names of the modules a file imports (relative imports resolved against ``package``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - node.level + 1]
                names.add(".".join(base + ([node.module] if node.module else [])))
            elif node.module:
                names.add(node.module)
    return names


def package_imports(folder: str) -> dict[str, set[str]]:
    out = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        package = ".".join(rel.parts[:-1]) if rel.name != "__init__" else ".".join(rel.parts[:-1])
        out[str(path.relative_to(ROOT))] = imported_modules(path, package)
    return out


def offenders(folder: str, forbidden: tuple[str, ...]) -> list[str]:
    return [f"{file} imports {name}" for file, names in package_imports(folder).items() for name in sorted(names)
            if name.split(".")[0] in forbidden or any(name.startswith(f + ".") or name == f for f in forbidden)]


def test_environment_imports_nothing_above_it() -> None:
    assert offenders("subterra_env", ("agents", "training", "subterra_game", "benchmarks")) == []


def test_rules_core_imports_only_the_settings_of_the_package() -> None:
    bad = []
    for file, names in package_imports("subterra_env/core").items():
        for name in names:
            if name.startswith("subterra_env.") and not (name.startswith("subterra_env.core")
                                                         or name == "subterra_env.config"):
                bad.append(f"{file} imports {name}")
    assert bad == []


def test_agents_import_neither_the_game_app_nor_training() -> None:
    assert offenders("agents", ("training", "subterra_game", "benchmarks")) == []


def test_game_app_imports_no_training_code() -> None:
    assert offenders("subterra_game", ("training", "benchmarks")) == []


@pytest.mark.parametrize("module", ["subterra_env.env", "subterra_env.vector", "subterra_env.single",
                                    "subterra_env.episode"])
def test_adapters_step_the_core_only_through_the_episode_layer(module: str) -> None:
    """The env adapters call the core's ``step`` nowhere but in ``episode.py``: one place steps games."""
    path = ROOT / (module.replace(".", "/") + ".py")
    calls = [node for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "step"
             and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "core"]
    assert len(calls) == (2 if module == "subterra_env.episode" else 0)
