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
        {"team": "random", "decisions": 1280, "horror within 1 step": 0.0031, "hunted within 1 step": 0.0023,
         "on an empty horror tile": 0.0891, "next spawn within 1 step": 0.1117, "hand-overs": 382,
         "horror within 1 step at hand-over": 0.0131, "hunted within 1 step at hand-over": 0.0052,
         "on an empty horror tile at hand-over": 0.1126, "next spawn within 1 step at hand-over": 0.1204}]
    assert json.loads(out.read_text()) == rows


def test_an_unknown_team_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        horror_exposure.main(["--team", "heurstic", "--games", "2", "--decisions", "1"])
    assert "--team heurstic: unknown team entry 'heurstic'" in capsys.readouterr().err
