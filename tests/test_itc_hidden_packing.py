"""The hidden initial packing (R-ITC-SET-9): while the teams pack, nothing a team is shown (observation, state(),
info, the env's render for that team, the terminal's status lines) depends on what another team packed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from subterra_env.in_the_cave import env
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.actions import ACTION_NAMES
from subterra_env.games.in_the_cave.observe import VECTOR_NAMES
from subterra_game.in_the_cave import screen as S
from subterra_game.web import itc_view

# Two packings of team 0 that differ in every pile of the bank and in the camp (packed or left at home).
LIGHT = ("take_consumable",) * 8 + ("pack_done",)
HEAVY = ("take_rope",) * 3 + ("camp_take_consumable",) * 2 + ("camp_take_rope",) + ("camp_repack", "pack_done")
SETTINGS = ({"num_players": 3}, {"num_players": 3, "limited_bank": True, "bank_consumables": 60,
                                 "bank_ropes": 60, "bank_oxygen": 60})


def _after_team0(packing: tuple[str, ...], settings: dict[str, Any]):
    e = env(**settings)
    e.reset(seed=11)
    for name in packing:
        assert e.agent_selection == "team_0"
        e.step(ACTION_NAMES.index(name))
    assert e.agent_selection == "team_1"  # team 1 packs now, team 0's choice must stay hidden from it
    return e


def _view(e, seat: int) -> dict[str, Any]:
    """Everything team ``seat`` is shown now."""
    raw = e.unwrapped
    agent = f"team_{seat}"
    labels = [f"p{s}" for s in range(raw.seats)]
    obs = e.observe(agent)
    view = {f"obs_{k}": v.tolist() for k, v in obs.items()}
    view["info"] = e.infos[agent]
    view["render_seat"] = raw.render_text(seat)
    view["screen"] = S.status_lines(raw.game, raw.core.P, labels, viewer=seat)
    if raw.agent_selection == agent:  # state() and the default render are the acting team's
        view["state"] = e.state().tolist()
        view["render"] = raw.render_text()
        view["rgb"] = raw.render_rgb().tobytes()
    return view


@pytest.mark.parametrize("settings", SETTINGS)
def test_a_teams_whole_view_is_the_same_whatever_a_rival_packed(settings):
    light, heavy = _after_team0(LIGHT, settings), _after_team0(HEAVY, settings)
    gl, gh = light.unwrapped.game, heavy.unwrapped.game
    # the two games differ in the bank and the camp: the leak would show here
    assert [int(v) for v in gl[L.BANK:L.BANK + 3]] != [int(v) for v in gh[L.BANK:L.BANK + 3]]
    assert (int(gl[L.CAMP]), int(gh[L.CAMP])) == (0, L.CAMP_PACKED)
    for seat in (1, 2):
        a, b = _view(light, seat), _view(heavy, seat)
        assert a.keys() == b.keys()
        for key in a:
            assert a[key] == b[key], f"team {seat}'s {key} tells team 0's packing"


@pytest.mark.parametrize("settings", SETTINGS)
def test_the_bank_shown_while_packing_is_the_bank_before_packing(settings):
    e = _after_team0(HEAVY, settings)
    v = e.observe("team_1")["vector"]
    names = list(VECTOR_NAMES)
    bank = [int(v[names.index(n)]) for n in ("bank_consumables", "bank_ropes", "bank_oxygen")]
    start = (60, 60, 60) if settings.get("limited_bank") else (50, 40, 20)
    assert bank == list(start)
    # the other team's camp shows on the home base (where it starts), not packed
    assert [int(v[names.index(f"other2_camp_{f}")]) for f in ("packed", "placed", "gone")] == [0, 1, 0]


def test_the_live_bank_shows_once_everyone_has_packed():
    e = _after_team0(HEAVY, SETTINGS[1])
    for team in ("team_1", "team_2"):
        assert e.agent_selection == team
        e.step(ACTION_NAMES.index("pack_done"))
    g = e.unwrapped.game
    assert int(g[L.PEND]) != L.P_SETUP
    v = e.observe("team_1")["vector"]
    assert [int(v[VECTOR_NAMES.index(n)]) for n in ("bank_consumables", "bank_ropes", "bank_oxygen")] == [58, 56, 60]
    assert int(v[VECTOR_NAMES.index("other2_camp_packed")]) == 1  # team 0 is two seats after team 1


def test_the_terminal_bank_line_while_packing_is_the_bank_before_packing():
    e = _after_team0(HEAVY, SETTINGS[1])
    raw = e.unwrapped
    lines = S.head_lines(raw.game, raw.core.P, ["a", "b", "c"])
    assert lines[-1] == "bank: 60 consumables, 60 ropes, 60 oxygen"


def test_the_browser_view_of_a_person_while_packing_does_not_tell_a_rivals_packing():
    """The page's board for the person at seat 1 (``web.itc_view`` reads the fixed terminal lines)."""
    views = []
    for packing in (LIGHT, HEAVY):
        raw = _after_team0(packing, SETTINGS[1]).unwrapped
        board = itc_view.board(raw.game, raw.core, ["a", "b", "c"], ["bot", "human", "bot"], 1, raw._mask)
        views.append(board)
    assert views[0] == views[1]


def test_render_text_hides_the_other_teams_backpacks_while_packing():
    e = _after_team0(LIGHT, SETTINGS[0])
    lines = e.unwrapped.render_text(1).splitlines()
    team0 = next(line for line in lines if line.startswith("team 0:"))
    assert team0.startswith("team 0: backpack hidden while the teams pack")
    team1 = next(line for line in lines if line.startswith("team 1:"))
    assert team1.startswith("team 1: backpack {'consumable': 0,")


def test_observations_agree_with_a_team_packing_against_itself():
    """The team packing sees its own backpack (the hiding is only of the others)."""
    e = env(num_players=3)
    e.reset(seed=11)
    for _ in range(3):
        e.step(ACTION_NAMES.index("take_consumable"))
    v = e.observe("team_0")["vector"]
    assert int(v[VECTOR_NAMES.index("bp_consumable")]) == 3
    assert int(v[VECTOR_NAMES.index("bank_consumables")]) == 50
    assert np.array_equal(e.observe("team_1")["vector"], _fresh_vector("team_1"))


def _fresh_vector(agent: str) -> np.ndarray:
    e = env(num_players=3)
    e.reset(seed=11)
    return e.observe(agent)["vector"]
