"""The layers of docs/architecture.md, read from the sources: nothing imports from a layer above it."""

from __future__ import annotations

import ast
import sys
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
    for file, names in package_imports("subterra_env/games/sub_terra/core").items():
        for name in names:
            if name.startswith("subterra_env.") and not (name.startswith("subterra_env.games.sub_terra.core")
                                                         or name == "subterra_env.config"):
                bad.append(f"{file} imports {name}")
    assert bad == []


def test_agents_import_neither_the_game_app_nor_training() -> None:
    assert offenders("agents", ("training", "subterra_game", "benchmarks")) == []


def test_game_app_imports_no_training_code() -> None:
    assert offenders("subterra_game", ("training", "benchmarks")) == []


@pytest.mark.parametrize("module", ["subterra_env.env", "subterra_env.vector", "subterra_env.single",
                                    "subterra_env.in_the_cave.env_aec", "subterra_env.in_the_cave.vector",
                                    "subterra_env.episode"])
def test_adapters_step_the_core_only_through_the_episode_layer(module: str) -> None:
    """The env adapters of both games step no core and no game themselves: ``episode.py`` steps games, in one
    place, through the Game protocol's ``advance`` (``subterra_env.game``; the games' adapters step their cores)."""
    path = ROOT / (module.replace(".", "/") + ".py")

    def owner(node: ast.expr) -> str:
        return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""

    calls = [node.func.attr for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
             and node.func.attr in ("step", "advance") and owner(node.func.value) in ("core", "game")]
    assert calls == (["advance"] if module == "subterra_env.episode" else [])


# ---------------------------------------------------------------------------------------------- no import circles
PROJECT_PACKAGES = ("subterra_env", "agents", "subterra_game", "training", "benchmarks")
SCRIPT_FOLDERS = ("training", "benchmarks")  # scripts there may import a neighbour by its bare name


def module_name(path: Path) -> str:
    """``a/b/c.py`` -> ``a.b.c``; a package's ``a/b/__init__.py`` -> ``a.b``."""
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    """Every module of the project's packages, by its dotted name."""
    return {module_name(p): p for pkg in PROJECT_PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def import_edges(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules that importing ``name`` (at ``path``) runs, read from every import statement in the
    file, those inside functions included (a lazy import closes a circle as surely as one at the top).

    - ``import a.b.c`` and ``from a.b import c`` run ``a.b.c`` (when ``c`` is a module; else the name comes from
      ``a.b``) and the ``__init__`` of every package above it, ``a`` and ``a.b``. A package above the importing
      module itself is left out: its ``__init__`` has already begun when one of its own modules runs, so a
      package's ``__init__`` importing its own submodules is no circle by itself (``from . import x`` inside a
      package is not an edge back to the ``__init__``; ``from . import NAME_DEFINED_IN_INIT`` is).
    - Relative imports are resolved against the module's package.
    - A script's plain import of a neighbour in its folder (``import common`` in ``training/x.py``, run as
      ``python training/x.py``) is the neighbour's module (``training.common``).
    - Anything outside the project (the standard library, numpy, ...) is no edge."""
    is_pkg = path.name == "__init__.py"
    package = name if is_pkg else name.rpartition(".")[0]
    parts_of_name = name.split(".")
    own_ancestors = {".".join(parts_of_name[:i]) for i in range(1, len(parts_of_name))} | ({name} if is_pkg else set())
    targets: set[str] = set()

    def add(module: str) -> None:
        parts = module.split(".")
        if parts[0] not in PROJECT_PACKAGES and package in SCRIPT_FOLDERS and f"{package}.{parts[0]}" in known:
            parts = package.split(".") + parts  # a script's neighbour, imported without its package
        for i in range(1, len(parts) + 1):
            mod = ".".join(parts[:i])
            if mod in known and mod not in own_ancestors:
                targets.add(mod)

    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            add(source)
            for alias in node.names:  # ``from a import b``: b may be the module a.b
                sub = f"{source}.{alias.name}"
                add(sub)  # only what is a known module becomes an edge
    targets.discard(name)
    return targets


def import_graph(prefix: str = "") -> dict[str, set[str]]:
    """Module -> the project modules it imports (``prefix``: only modules whose name starts with it, and edges
    between them)."""
    mods = project_modules()
    known = set(mods)
    graph = {n: import_edges(n, p, known) for n, p in mods.items()}
    if prefix:
        graph = {n: {t for t in ts if t.startswith(prefix)} for n, ts in graph.items() if n.startswith(prefix)}
    return graph


def import_groups(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of two or more modules (Tarjan's algorithm), each sorted: every module of a
    group imports, directly or through the others, every other one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(groups)


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One shortest circle per strongly connected group (``import_groups``): a breadth-first search from the
    group's first module back to itself, as [m0, m1, ..., m0]."""
    cycles = []
    for group in import_groups(graph):
        members, start = set(group), group[0]
        came: dict[str, str] = {}
        frontier, path = [start], None
        while frontier and path is None:
            nxt = []
            for v in frontier:
                for w in sorted(graph[v] & members):
                    if w == start:
                        path = [start]
                        while v != start:
                            path.append(v)
                            v = came[v]
                        path = [start] + path[1:][::-1] + [start]
                        break
                    if w not in came:
                        came[w] = v
                        nxt.append(w)
                if path is not None:
                    break
            frontier = nxt
        cycles.append(path or group)
    return cycles


def describe_cycles(graph: dict[str, set[str]]) -> str:
    """Each circle module by module, with the whole group when more modules take part: what a failure says."""
    lines = []
    for group, cycle in zip(import_groups(graph), import_cycles(graph)):
        more = set(group) - set(cycle)
        lines.append(" -> ".join(cycle) + (f" (and in the same circle: {', '.join(sorted(more))})" if more else ""))
    return "; ".join(lines)


def test_the_import_scan_counts_lazy_relative_and_package_imports(tmp_path: Path) -> None:
    """The scanner on a small made-up tree: a lazy import is an edge, relative imports resolve, ``import a.b``
    runs ``a/__init__``, a package's ``__init__`` importing its own modules is no circle, a script's bare import
    of a neighbour is the neighbour."""
    files = {
        "pkg/__init__.py": "from . import low\nfrom .high import top\n",
        "pkg/low.py": "import json\nX = 1\n",
        "pkg/high.py": "from .low import X\n\ndef top():\n    from pkg.sub import deep\n    return deep\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/deep.py": "from .. import high\n",
        "other.py": "import pkg.low\n",
        "training/run.py": "import helper\n",
        "training/helper.py": "",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    names = {rel.removesuffix(".py").removesuffix("/__init__").replace("/", "."): tmp_path / rel for rel in files}
    known = set(names)
    graph = {n: import_edges(n, p, known) for n, p in names.items()}
    assert graph["pkg"] == {"pkg.low", "pkg.high"}
    assert graph["pkg.low"] == set()
    assert graph["pkg.high"] == {"pkg.low", "pkg.sub", "pkg.sub.deep"}
    assert graph["pkg.sub.deep"] == {"pkg.high"}
    assert graph["other"] == {"pkg", "pkg.low"}
    assert graph["training.run"] == {"training.helper"}
    assert import_cycles(graph) == [["pkg.high", "pkg.sub.deep", "pkg.high"]]
    assert describe_cycles(graph) == "pkg.high -> pkg.sub.deep -> pkg.high"


def test_the_game_app_has_no_import_cycle() -> None:
    """``subterra_game``: the session below the terminal and the browser, the command line on top (issue 43)."""
    graph = import_graph("subterra_game")
    assert import_cycles(graph) == [], f"import circles: {describe_cycles(graph)}"


def test_the_project_has_no_import_cycle() -> None:
    """No module of the project imports itself through others, lazy imports inside functions included."""
    graph = import_graph()
    assert import_cycles(graph) == [], f"import circles: {describe_cycles(graph)}"


COMMAND_LINES = ("subterra_game.play", "subterra_game.in_the_cave.play")


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module that importing ``start`` may run, lazy imports included."""
    seen, todo = set(), [start]
    while todo:
        for w in graph.get(todo.pop(), ()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def test_the_command_lines_are_on_top_and_the_web_reaches_the_session_only() -> None:
    """Nothing imports a command line but the command line ``subterra`` (which dispatches to ``subterra itc``);
    the browser tables reach the game through the sessions (``session``, ``in_the_cave.session``)."""
    graph = import_graph()
    importers = sorted(f"{m} imports {c}" for m, ts in graph.items() for c in COMMAND_LINES if c in ts)
    assert importers == ["subterra_game.play imports subterra_game.in_the_cave.play"]
    web = reachable(graph, "subterra_game.web.server")
    assert {"subterra_game.session", "subterra_game.in_the_cave.session"} <= web
    assert sorted(web & set(COMMAND_LINES)) == []
