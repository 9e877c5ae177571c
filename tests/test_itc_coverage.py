"""Every R-ITC rule ID is named by a test of tests/test_itc_*.py (in a test function's docstring), except the
ones docs/in_the_cave.md lists as not yet tested."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULE_IDS = ([f"SET-{i}" for i in range(1, 11)] + [f"TURN-{i}" for i in range(1, 5)]
            + [f"ACT-{i}" for i in range(1, 16)] + [f"TILE-{i}" for i in range(1, 4)]
            + [f"SCORE-{i}" for i in range(1, 5)] + [f"END-{i}" for i in range(1, 5)])
# "R-ITC-ACT-4/5/10" and "ACT-4, TILE-1" name ACT-4, ACT-5, ACT-10 and TILE-1
_MENTION = re.compile(r"\b(SET|TURN|ACT|TILE|SCORE|END)-(\d+(?:/\d+)*)")


def named_rule_ids() -> set[str]:
    found: set[str] = set()
    for path in sorted((ROOT / "tests").glob("test_itc_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                for prefix, nums in _MENTION.findall(ast.get_docstring(node) or ""):
                    found.update(f"{prefix}-{n}" for n in nums.split("/"))
    return found


def documented_untested() -> set[str]:
    text = (ROOT / "docs" / "in_the_cave.md").read_text()
    line = next(l for l in text.splitlines() if l.startswith("Not yet tested:"))
    return {f"{p}-{n}" for p, nums in _MENTION.findall(line) for n in nums.split("/")}


def test_rule_ids_named_by_tests():
    assert len(RULE_IDS) == 40
    missing = set(RULE_IDS) - named_rule_ids()
    assert missing == documented_untested(), f"untested: {sorted(missing)}"


def test_every_setting_is_documented():
    import dataclasses

    from subterra_env.in_the_cave import ItcConfig

    text = (ROOT / "docs" / "in_the_cave.md").read_text()
    assert [f.name for f in dataclasses.fields(ItcConfig) if f"`{f.name}`" not in text] == []
