"""``training/horror_exposure.py`` (issue 41): the share of decisions whose acting caver stands where the horror
rules will reach it, and of hand-overs that leave a caver there, on seeded small games (literal values), and the
error for a team it cannot make."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the train extra: pip install -e '.[train]'")

from training import horror_exposure


def test_the_heuristic_leaves_its_cavers_on_horror_tiles_far_less_than_random_play(tmp_path: Path) -> None:
    out = tmp_path / "exposure.json"
    rows = horror_exposure.main(["--team", "heuristic", "--team", "random", "--games", "32", "--decisions", "40",
                                 "--json", str(out)])
    assert rows == [
        {"team": "heuristic", "decisions": 1280, "horror within 1 step": 0.0094, "hunted within 1 step": 0.0086,
         "on an empty horror tile": 0.0234, "next spawn within 1 step": 0.0836, "hand-overs": 335,
         "horror within 1 step at hand-over": 0.003, "hunted within 1 step at hand-over": 0.003,
         "on an empty horror tile at hand-over": 0.009, "next spawn within 1 step at hand-over": 0.1075},
        {"team": "random", "decisions": 1280, "horror within 1 step": 0.0109, "hunted within 1 step": 0.0055,
         "on an empty horror tile": 0.0734, "next spawn within 1 step": 0.0898, "hand-overs": 355,
         "horror within 1 step at hand-over": 0.031, "hunted within 1 step at hand-over": 0.0085,
         "on an empty horror tile at hand-over": 0.1324, "next spawn within 1 step at hand-over": 0.1352}]
    assert json.loads(out.read_text()) == rows


def test_an_unknown_team_is_named() -> None:
    with pytest.raises(ValueError, match="--team 'heurstic': expected heuristic, random or policy:PATH"):
        horror_exposure.main(["--team", "heurstic", "--games", "2", "--decisions", "1"])
