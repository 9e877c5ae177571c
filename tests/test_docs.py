"""The docs match the code: the generated tables of docs/actions_observation.md are what docs/generate.py writes
from ACTION_NAMES, GRID_CHANNELS and SCALARS today, every setting is documented, and every relative link in
README.md and docs/*.md points to a file (and heading) that exists."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
from pathlib import Path

import pytest

from subterra_env.config import GameConfig
from subterra_env.games.sub_terra.core import actions
from subterra_env.games.sub_terra.core.observe import (ANNIHILATION_CHANNELS, ANNIHILATION_SCALARS, EXTRACTION_CHANNELS, EXTRACTION_SCALARS,
                                       GRID_CHANNELS, INVESTIGATION_CHANNELS, INVESTIGATION_SCALARS, SCALARS)

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _generator():
    spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen = _generator()


def test_generated_tables_match_the_code():
    text = gen.DOC.read_text()
    assert gen.render(text) == text, "docs/actions_observation.md is out of date: run python docs/generate.py"
    assert gen.main(["--check"]) == 0


def test_tables_literally():
    text = gen.DOC.read_text()
    for row in ("| 0 | end turn | 0 | not while placing a tile or inside a run |",
                "| 35-42 | heal caver 1..8 | 2 (`heal_cost`) |",
                "| 75-76 | place drawn/set-aside tile | 0 |",
                "| 82-89 | surface 1..8 | 1 |",
                "| 28-33 | caver 0..5 health+1 |",
                "| 18-23 | caver 0..5 rank | rank of caver k (0 = no such seat): who is who |",
                "| 48 | Scout redrew this placement |"):
        assert row in text, row
    assert actions.NUM_ACTIONS == 90 and (len(GRID_CHANNELS), len(SCALARS)) == (34, 49)
    assert len(actions.ACTION_NAMES) == 154  # the scenarios' ids follow the base game's (Investigation: 154)
    # every id, channel and scalar index appears in exactly one row
    for table, n in ((gen.action_table(), 90), (gen.tables()["grid"], 34), (gen.tables()["scalars"], 49)):
        covered = []
        for line in table.splitlines()[2:]:
            first, _, last = line.split(" | ")[0].strip("| ").partition("-")
            covered += range(int(first), int(last or first) + 1)
        assert covered == list(range(n))


def test_every_explanation_is_used():
    scenario = gen.action_table(actions.NUM_ACTIONS, actions.num_actions("annihilation"))
    items = gen.action_table(actions.num_actions("annihilation"), actions.num_actions("investigation"))
    labels = {row.split(" | ")[1] for t in (gen.action_table(), scenario, items) for row in t.splitlines()[2:]}
    assert labels == set(gen.ACTION_WHEN)
    grids, scalars = (GRID_CHANNELS, ANNIHILATION_CHANNELS, EXTRACTION_CHANNELS, INVESTIGATION_CHANNELS), (
        SCALARS, ANNIHILATION_SCALARS, EXTRACTION_SCALARS)
    assert {lab for names in grids for _, _, lab in gen._groups(names)} == set(gen.GRID_MEANING)
    inv = set(INVESTIGATION_SCALARS[:5] + INVESTIGATION_SCALARS[-2:])  # the rest: one row each in investigation_scalars()
    assert {lab for names in scalars for _, _, lab in gen._groups(names)} | inv == set(gen.SCALAR_MEANING)


def test_a_renamed_action_or_feature_fails(monkeypatch):
    names = list(actions.ACTION_NAMES)
    names[names.index("move E")] = "walk E"
    monkeypatch.setattr(actions, "ACTION_NAMES", tuple(names))
    with pytest.raises(KeyError, match="move N / walk E / move S / move W"):
        gen.action_table()
    monkeypatch.undo()
    monkeypatch.setattr(gen, "SCALARS", SCALARS[:-1] + ("Scout redraws this placement",))
    with pytest.raises(KeyError, match="Scout redraws this placement"):
        gen.tables()


def test_a_changed_cost_changes_the_table(monkeypatch):
    monkeypatch.setattr(gen, "GameConfig", lambda: GameConfig(heal_cost=1))
    text = gen.DOC.read_text()
    assert "| 35-42 | heal caver 1..8 | 1 (`heal_cost`) |" in gen.render(text)
    assert gen.render(text) != text


def test_every_setting_is_documented():
    text = (ROOT / "docs" / "settings.md").read_text()
    missing = [f.name for f in dataclasses.fields(GameConfig) if f"`{f.name}`" not in text]
    assert missing == []


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped except - and _, spaces to -."""
    out = set()
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def test_relative_links_point_to_existing_files():
    checked = 0
    for page in PAGES:
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)  # links inside code blocks are code
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                continue
            file, _, anchor = target.partition("#")
            dest = (page.parent / file).resolve() if file else page
            assert dest.exists(), f"{page.relative_to(ROOT)}: link {target} points to a missing file"
            assert ROOT in dest.parents or dest == ROOT, f"{page.relative_to(ROOT)}: {target} leaves the repository"
            if anchor and dest.suffix == ".md":
                where = file or page.name
                assert anchor in _anchors(dest), f"{page.relative_to(ROOT)}: no heading #{anchor} in {where}"
            checked += 1
    assert checked >= 30


def test_readme_is_short_and_links_every_page():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 150
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"(docs/{page.name}" in readme, f"README.md does not link docs/{page.name}"
