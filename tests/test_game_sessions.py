"""The game app's sessions as the browser tables use them (issue 43, part 4): the env checks every action, once;
the table turns what it refuses into the client's error and the game is as it was; the command line routes each
command, ``subterra dataset`` included."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import numpy as np
import pytest

from subterra_env.config import load
from subterra_env.games.sub_terra.core.actions import ACTION_NAMES
from subterra_env.games.in_the_cave.config import preset as itc_preset
from subterra_env.games.in_the_cave.core.actions import ACTION_NAMES as ITC_ACTION_NAMES
from subterra_game.in_the_cave.records import game_hash
from subterra_game.in_the_cave.session import Table
from subterra_game.play import main
from subterra_game.records import RecordError, state_hash
from subterra_game.seats import Seat, SeatPlan
from subterra_game.session import Session
from subterra_game.web.games import SubTerraGame
from subterra_game.web.itc_game import ItcGame
from subterra_game.web.protocol import ClientError

TINY = load(Path(__file__).resolve().parents[1] / "configs" / "tiny.yaml")


def sub_terra_game() -> SubTerraGame:
    return SubTerraGame(Session(TINY, 3, SeatPlan(by_seat=[Seat("human", name="ann")] + [Seat("heuristic")] * 3)))


def test_an_action_the_env_refuses_is_the_clients_error_and_the_game_is_unchanged() -> None:
    game = sub_terra_game()
    seat = game.actor()
    mask = game.session.env.legal_mask
    illegal = int(np.flatnonzero(~mask)[0])
    before = (state_hash(game.session.env.state_), game.decisions, len(game.session.record.actions))
    with pytest.raises(ClientError) as refused:
        game.apply(illegal, seat)
    legal = ", ".join(ACTION_NAMES[a] for a in np.flatnonzero(mask))
    assert refused.value.code == "illegal_action"
    assert refused.value.message == (f"{ACTION_NAMES[illegal]!r} (action {illegal}) is not legal now for the "
                                     f"{game.caver(seat)}; legal: {legal}")
    with pytest.raises(ClientError) as out_of_range:
        game.apply(999, seat)
    assert (out_of_range.value.code, out_of_range.value.message) == (
        "bad_action", f"'action' 999 is out of range 0..{len(mask) - 1} at this table")
    assert (state_hash(game.session.env.state_), game.decisions, len(game.session.record.actions)) == before
    game.apply(int(np.flatnonzero(mask)[0]), seat)  # a legal one goes through
    assert game.decisions == before[1] + 1


def test_an_in_the_cave_action_the_env_refuses_is_the_clients_error_and_the_game_is_unchanged() -> None:
    game = ItcGame(Table(itc_preset("default"), 5, [("human", "ann"), ("heuristic", None)]))
    seat = game.actor()
    mask = game.table.env._mask
    illegal = int(np.flatnonzero(~mask)[0])
    before = (game_hash(game.g), game.decisions)
    with pytest.raises(ClientError) as refused:
        game.apply(illegal, seat)
    legal = ", ".join(ITC_ACTION_NAMES[a] for a in np.flatnonzero(mask))
    assert (refused.value.code, refused.value.message) == (
        "illegal_action", f"{ITC_ACTION_NAMES[illegal]!r} (action {illegal}) is not legal now for team {seat}; "
        f"legal: {legal}")
    with pytest.raises(ClientError) as out_of_range:
        game.apply(85, seat)
    assert (out_of_range.value.code, out_of_range.value.message) == (
        "bad_action", "'action' 85 is out of range 0..80 (In the Cave)")
    assert (game_hash(game.g), game.decisions) == before


def test_a_record_step_the_env_refuses_does_not_replay() -> None:
    session = sub_terra_game().session
    illegal = int(np.flatnonzero(~session.env.legal_mask)[0])
    before = state_hash(session.env.state_)
    with pytest.raises(RecordError, match=rf"^game\.json: step 0 does not replay \(illegal action {illegal}: "):
        session.replay([{"action": illegal, "player": "human"}], "game.json")
    assert state_hash(session.env.state_) == before and session.record.actions == []


def test_the_command_line_routes_dataset_to_its_own_command(monkeypatch, capsys) -> None:
    """``subterra dataset ...`` reaches ``subterra_game.datasets.cli.main`` with the rest of the line (a stand-in
    module here: the dataset command is its own), and the help lists it."""
    got = []
    stand_in = types.ModuleType("subterra_game.datasets.cli")
    stand_in.main = lambda argv: got.append(list(argv)) or 7  # type: ignore[attr-defined]
    try:
        import subterra_game.datasets  # noqa: F401 (the package the stand-in sits in)
    except ModuleNotFoundError:
        monkeypatch.setitem(sys.modules, "subterra_game.datasets", types.ModuleType("subterra_game.datasets"))
    monkeypatch.setitem(sys.modules, "subterra_game.datasets.cli", stand_in)
    assert main(["dataset", "build", "--games", "3"]) == 7
    assert got == [["build", "--games", "3"]]
    assert main(["--help"]) == 0
    assert "  dataset  datasets of recorded games" in capsys.readouterr().out
