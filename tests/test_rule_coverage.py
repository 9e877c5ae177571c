"""Every rule ID of the Sub Terra rules (``../shared/RULES.md``) and its scenarios (``../shared/RULES_VAR.md``) is
named by a test under tests/ (In the Cave's: tests/test_itc_coverage.py). Skipped where the shared folder is not
beside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
SHARED = TESTS.parents[1] / "shared"
RULE_ID = re.compile(r"^- (R-[A-Z]+-\d+)\b", re.M)  # a rule's own line: "- R-HZ-3 Gas: ..."


def rule_ids(name: str) -> list[str]:
    path = SHARED / name
    if not path.exists():
        pytest.skip(f"{path} is not here (the shared folder beside the repository)")
    return RULE_ID.findall(path.read_text())


def named_in_tests() -> str:
    return "\n".join(p.read_text() for p in TESTS.rglob("*.py") if p.name != Path(__file__).name)


@pytest.mark.parametrize("rules", ["RULES.md", "RULES_VAR.md"])
def test_every_rule_id_is_named_by_a_test(rules: str) -> None:
    ids = rule_ids(rules)
    assert len(ids) > 30 and len(set(ids)) == len(ids)
    text = named_in_tests()
    # R-HZ-1 must not count as named by R-HZ-10: an ID followed by a digit is another ID
    missing = [i for i in ids if not re.search(re.escape(i) + r"(?!\d)", text)]
    assert missing == []
