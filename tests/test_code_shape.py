"""Functions stay short enough to read (issue 43): none of the project's code is over 80 lines, compiled kernels
included. Tests are scenarios told start to end and are not held to it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("subterra_env", "subterra_game", "agents", "training", "benchmarks")
LONGEST = 80


def long_functions(path: Path, root: Path, longest: int = LONGEST) -> list[str]:
    """``file:line name (N lines)`` for each function or method of ``path`` longer than ``longest`` lines, its
    decorators not counted, its docstring and comments counted."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = node.end_lineno - node.lineno + 1
            if lines > longest:
                found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_the_counter_finds_a_long_method_and_passes_a_short_one(tmp_path: Path) -> None:
    body = "\n".join(f"        x{i} = {i}" for i in range(80))
    (tmp_path / "m.py").write_text(f"class C:\n    @staticmethod\n    def long():\n{body}\n\n    def short():\n"
                                   "        return 1\n")
    assert long_functions(tmp_path / "m.py", tmp_path) == ["m.py:3 long (81 lines)"]
    assert long_functions(tmp_path / "m.py", tmp_path, longest=81) == []


def test_no_function_of_the_project_is_over_80_lines() -> None:
    files = sorted(p for folder in FOLDERS for p in (ROOT / folder).rglob("*.py"))
    assert len(files) > 100  # the scan sees the project, not an empty folder
    offenders = [line for path in files for line in long_functions(path, ROOT)]
    assert offenders == [], "split these functions:\n" + "\n".join(offenders)
