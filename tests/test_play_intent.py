"""Bots that explain themselves in the terminal game: the heuristic's intent is read from its own plan without
changing a decision, the search adds its best two actions with their values, and the team panel shows the lines."""

from __future__ import annotations

import io
import re

from rich.console import Console

from agents.heuristic.intent import heuristic_intent
from subterra_game.explain import RANDOM_WORDS
from subterra_game.seats import Seat, SeatPlan
from subterra_game.session import Session, table_config
from subterra_game.tui import team_panel


def session(preset: str, seed: int, kinds: list[str]) -> Session:
    cfg, name = table_config(preset, 4, None, files=False)
    return Session(cfg, seed, SeatPlan(by_seat=[Seat(k) for k in kinds]), name=name)


def test_reading_the_intent_changes_no_decision() -> None:
    """The same games with and without the intent lines: the same actions, decision for decision; and the
    intent's own action is the bot's at every decision (full cave and Annihilation)."""
    for preset, seed in (("full", 1), ("annihilation", 4)):
        plain, told = session(preset, seed, ["heuristic"] * 4), session(preset, seed, ["heuristic"] * 4)
        while not plain.over:
            seat = int(plain.env.state_.actor[0])
            it = heuristic_intent(plain.env.core, plain.env.state_, plain.env.legal_mask)
            a = int(plain.bots[seat].act(plain.env, seat))
            assert it.action == a
            assert told.bot_act(seat) == a
            plain.apply(a, "heuristic")
            told.apply(a, "heuristic")
        assert told.over and told.record.actions == plain.record.actions


def test_the_team_panel_shows_each_bots_intent() -> None:
    s = session("tiny", 2, ["heuristic", "random", "search", "heuristic"])
    while len(s.intents) < 3 and not s.over:
        seat = int(s.env.state_.actor[0])
        s.apply(s.bot_act(seat), s.seats[seat].player)
    assert s.intents[1] == RANDOM_WORDS
    assert re.search(r" · best: .+ [+-]\d\.\d\d", s.intents[2]), s.intents[2]
    console = Console(file=io.StringIO(), width=160, color_system=None)
    console.print(team_panel(s.env.core, s.env.state_, s.labels, intents=s.intents))
    text = console.file.getvalue()
    assert f"› {s.intents[0]}" in text and f"› {RANDOM_WORDS}" in text
