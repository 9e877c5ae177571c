"""The heuristic team in the Extraction scenario (R-EXT-4..9): leapers avoided like horrors, the sanctuary used as
a refuge, biosamples pooled on one carrier and an unconscious teammate's taken to be carried out; it wins games
random play does not."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from agents.heuristic import HeuristicAgent
from subterra_env.config import GameConfig, preset
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RUNNING

from heuristic_moves import heuristic_decisions

EXT = GameConfig(scenario="extraction")
DECK = "deck: tremor tremor tremor tremor tremor out-of-time"


def decisions(text: str, n: int = 1, cfg: GameConfig = EXT) -> list[str]:
    """The heuristic's next n decisions on an Extraction map (each one played)."""
    return heuristic_decisions(cfg, text, n)


@pytest.mark.parametrize("leaper, first_step", [("1,0", "move S"), ("1,2", "run")])
def test_goes_around_a_leaper_like_a_horror(leaper, first_step):  # R-EXT-4
    # two equally long ways to the exit: the north row and the south row; the leaper blocks one of them ("run"
    # north: the clear way is walked as a run)
    assert decisions(f"""
map:
  normal:ES  normal:EW  normal:EW  normal:SW
  start:NES:x  .          .          exit:N
  normal:NE  normal:EW  normal:EW  normal:NW
cavers: diver@0,1 leader@0,1 scout@0,1 medic@0,1
leapers: {leaper}
actor: diver
{DECK}
""", 2) == ["exert", first_step]


@pytest.mark.parametrize("east, decision", [("sanctuary", "move E"), ("normal", "end turn")])
def test_takes_refuge_on_the_sanctuary(east, decision):  # R-EXT-7: no monster picks a caver there
    assert decisions(f"""
map:
  normal:E  normal:EW  normal:EW  start:EW:x  {east}:W
cavers: diver@3,0 leader@3,0 scout@3,0 medic@3,0
leapers: 0,0
actor: diver
ap: 1
{DECK}
""") == [decision]


def test_takes_the_biosample_of_an_unconscious_teammate():  # R-EXT-9 with R-ANN-7
    assert decisions(f"""
map:
  start:E  normal:EW  exit:W
cavers: medic@1,0 leader@1,0:hp=0:samples=1 scout@0,0:samples=1 diver@0,0:samples=1
actor: medic
{DECK}
""", cfg=GameConfig(scenario="extraction", biosamples=True)) == ["take card from caver 8"]


@pytest.mark.parametrize("carrier, given", [("leader", "give card to caver 8"), ("scout", "give card to caver 2")])
def test_pools_the_biosamples_on_one_carrier(carrier, given):  # R-EXT-9: -1 per holder, any loss a defeat
    # the medic hands her biosample to the Leader (his +1 cancels the -1), without him to the Scout
    assert decisions(f"""
map:
  start:E  normal:EW  exit:W
cavers: medic@0,0:samples=1 {carrier}@0,0:samples=1 diver@0,0:samples=1 climber@1,0
actor: medic
{DECK}
""", cfg=GameConfig(scenario="extraction", biosamples=True)) == [given]


@pytest.mark.parametrize("biosamples, results", [(False, [48, 13, 1, 2]), (True, [63, 1, 0, 0])])
def test_plays_whole_games(biosamples, results):  # the heuristic on 64 seeded setups
    core = Core(preset("extraction", biosamples=biosamples))
    st = core.init(np.arange(64))
    taken = HeuristicAgent(SimpleNamespace(core=core, state=st)).play(core, st, max_round=200)
    assert (st.result != RUNNING).all() and taken.min() > 0
    assert np.bincount(st.result, minlength=4).tolist() == results  # defeat, bronze, silver, gold
