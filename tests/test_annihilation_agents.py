"""The heuristic team in the Annihilation scenario (R-ANN-6, R-ANN-7, R-ANN-9): it places bombs, carries its card to
an open bomb tile, takes an unconscious teammate's card, goes out once the bombs are down, and wins games random
play never wins; the search still refuses the scenario."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from agents.heuristic import HeuristicAgent
from agents.search import SearchAgent
from subterra_env.config import GameConfig, preset
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RUNNING

from heuristic_moves import heuristic_decisions

ANN = GameConfig(scenario="annihilation")
DECK = "deck: tremor tremor tremor tremor tremor out-of-time"
STACK = "stack: " + "normal:4 " * 10 + "bomb"


def decisions(text: str, n: int = 1) -> list[str]:
    """The heuristic's next n decisions on an Annihilation map (each one played)."""
    return heuristic_decisions(ANN, text, n)


def test_places_the_bomb_it_stands_on():  # R-ANN-6
    assert decisions(f"""
map:
  .          exit:S      .
  .          start:NESW  bomb:W
cavers: medic@2,1:bombs=1 leader@1,1:bombs=1 scout@1,1:bombs=1 diver@1,1
actor: medic
{STACK}
{DECK}
""") == ["place bomb"]


def test_carries_its_card_toward_an_open_bomb_tile_not_to_the_exit():  # R-ANN-6, R-ANN-9
    assert decisions(f"""
map:
  .          exit:S      .          .
  .          start:NESW  normal:EW  bomb:W
cavers: diver@1,1:bombs=1 leader@1,1:bombs=1 scout@1,1:bombs=1 medic@1,1
actor: diver
{STACK}
{DECK}
""", 4) == ["exert", "move E", "move E", "place bomb"]  # a third AP reaches it this turn


def test_takes_the_card_of_an_unconscious_teammate():  # R-ANN-7
    assert decisions(f"""
map:
  .          exit:S      .
  .          start:NESW  normal:W
cavers: medic@2,1 leader@2,1:hp=0:bombs=1 scout@1,1:bombs=1 diver@1,1:bombs=1
actor: medic
{STACK}
{DECK}
""") == ["take card from caver 8"]


def test_goes_out_once_every_bomb_is_placed():  # R-ANN-9: then the medal counts the cavers out
    assert decisions(f"""
map:
  bomb:E:B   exit:S      .
  bomb:E:B   start:NESW  normal:EW  bomb:W:B
cavers: diver@2,1 leader@1,1 scout@1,1 medic@1,1
actor: diver
{STACK}
{DECK}
""", 2) == ["move W", "move N"]


def test_wins_games_that_random_play_never_wins():  # the heuristic vs random on 64 seeded setups
    core = Core(preset("annihilation"))
    st = core.init(np.arange(64))
    taken = HeuristicAgent(SimpleNamespace(core=core, state=st)).play(core, st, max_round=200)
    assert (st.result != RUNNING).all() and taken.min() > 0
    # bombs placed per game (0..3); random play places all three in none of them (test_annihilation.py)
    assert np.bincount(st.t_bomb.sum(1), minlength=4).tolist() == [5, 13, 25, 21]
    assert np.bincount(st.result, minlength=4).tolist() == [56, 2, 3, 3]  # defeat, bronze, silver, gold


def test_the_search_refuses_the_scenario():
    core = Core(ANN)
    st = core.init(np.arange(1))
    agent = SearchAgent(SimpleNamespace(core=core, state=st))
    with pytest.raises(ValueError, match="not the scenario 'annihilation'"):
        agent.act(None, core.legal_mask(st)[0])
