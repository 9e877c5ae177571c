"""Docs that state a rule say what the rule file says: R-ANN-9's defeat (any bomb tile without a token, not "fewer
than 3 tokens"), RULES_VAR's "set aside" (not "held") for tiles, and In the Cave's "How to run" naming the
checkpoints that are not shipped."""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _row(path: str, first_cell: str) -> str:
    text = (DOCS / path).read_text()
    return next(line for line in text.splitlines() if line.startswith(f"| {first_cell} |"))


def test_scalar_56_states_r_ann_9():
    rows = [line for line in (DOCS / "actions_observation.md").read_text().splitlines()
            if line.startswith("| 56 | bomb tokens placed |")]
    assert rows == ["| 56 | bomb tokens placed | bomb tokens on the table; the game is a defeat if any bomb tile "
                    "(placed, in the stack or set aside) lacks a token at the end (R-ANN-9): with a dealt game's 3 "
                    "bomb tiles, fewer than 3 tokens |"]


def test_scenarios_say_set_aside_for_tiles():
    assert _row("scenarios.md", "R-ANN-9").startswith(
        "| R-ANN-9 | defeat if a bomb tile (placed, in the stack or set aside) lacks a token; else medals as usual |")
    text = (DOCS / "scenarios.md").read_text()
    assert "in the stack or held" not in text and "placed, held or in the stack" not in text
    assert "| 55 | bomb tiles not placed | bomb tiles still in the stack or set aside (where in the stack is hidden) |" \
        in (DOCS / "actions_observation.md").read_text()


def test_in_the_cave_how_to_run_names_the_checkpoints_not_shipped():
    text = (DOCS / "in_the_cave.md").read_text()
    section = text[text.index("## How to run"):text.index("## Actions")]
    assert "No In the Cave checkpoint is shipped: `runs/itc_dagger/model.zip`" in section
    assert "(21 MB each, not in the repository)" in section
