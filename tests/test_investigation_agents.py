"""The heuristic team in the Investigation scenario (R-INV-5..16): it uses the simple items when they help (Spare
Battery before Out of Time, Painkillers when hurt, a Grenade at a monster beside it, the Shovel for the plan's Dig,
Adrenaline once the exit is found, a Flare to explore), decides the items' own decisions, and wins games random
play does not."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from agents.heuristic import HeuristicAgent
from subterra_env.config import GameConfig, preset
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RUNNING

from heuristic_moves import heuristic_decisions

INV = GameConfig(scenario="investigation")
DECK = "deck: tremor tremor tremor tremor tremor out-of-time"


def decisions(text: str, n: int = 1) -> list[str]:
    """The heuristic's next n decisions on an Investigation map (each one played)."""
    return heuristic_decisions(INV, text, n)


def test_spare_battery_when_out_of_time_is_next():  # R-INV-9
    assert decisions("""
map:
  start:E  normal:EW  normal:EW  normal:W
cavers: diver@0,0:items=spare-battery leader@0,0 scout@0,0 medic@0,0
actor: diver
deck: out-of-time
""") == ["spare battery"]


def test_painkillers_when_hurt():  # R-INV-12
    assert decisions(f"""
map:
  start:E  normal:EW  exit:W
cavers: diver@0,0:hp=1:items=painkillers leader@0,0 scout@0,0 medic@1,0
actor: diver
{DECK}
""") == ["painkillers"]


def test_grenade_at_a_horror_beside_it():  # R-INV-14
    assert decisions(f"""
map:
  start:E  normal:EW  normal:EW  exit:W
cavers: diver@0,0:items=grenade leader@0,0 scout@0,0 medic@0,0
horrors: 1,0
actor: diver
{DECK}
""") == ["grenade E"]


def test_the_shovel_instead_of_a_dig_on_the_way_out():  # R-INV-7
    assert decisions(f"""
map:
  start:E  normal:EW:*  exit:W
cavers: diver@0,0:items=shovel leader@2,0 scout@2,0 medic@2,0
actor: diver
{DECK}
""", 3) == ["exert", "shovel E", "move E"]


def test_adrenaline_once_the_exit_is_found():  # R-INV-11
    assert decisions(f"""
map:
  start:E  normal:EW  normal:EW  normal:EW  exit:W
cavers: diver@0,0:items=adrenaline leader@4,0 scout@4,0 medic@4,0
actor: diver
{DECK}
""") == ["adrenaline"]


def test_a_flare_to_explore_then_its_sides_in_order():  # R-INV-10
    assert decisions(f"""
map:
  start:NESW
cavers: diver@0,0:items=flare leader@0,0 scout@0,0 medic@0,0
actor: diver
stack: normal:4 normal:4 normal:4 normal:4 normal:4 normal:4 exit
{DECK}
""", 3) == ["flare", "flare side N", "flare side E"]


def test_a_signal_booster_gives_a_teammate_a_free_reveal():  # R-INV-8
    """The diver boosts the first teammate with a tile to draw (the leader); the leader's free 1-AP action is a
    reveal, then the turn is the diver's again."""
    assert decisions(f"""
map:
  start:NESW
cavers: diver@0,0:items=signal-booster leader@0,0 scout@0,0 medic@0,0
actor: diver
stack: normal:4 normal:4 normal:4 normal:4 normal:4 normal:4 exit
{DECK}
""", 2) == ["signal booster caver 8", "reveal N"]


def test_plays_whole_games():  # the heuristic on 64 seeded setups
    core = Core(preset("investigation"))
    st = core.init(np.arange(64))
    taken = HeuristicAgent(SimpleNamespace(core=core, state=st)).play(core, st, max_round=200)
    assert (st.result != RUNNING).all() and taken.min() > 0
    assert np.bincount(st.result, minlength=4).tolist() == RESULTS_64
    assert st.i_out.any()  # items were used


RESULTS_64 = [28, 28, 7, 1]  # defeat, bronze, silver, gold


def test_steps_onto_an_item_tile_beside_it_while_the_exit_is_hidden():  # R-INV-4
    assert decisions(f"""
map:
  start:NESW  item:W:I
cavers: diver@0,0 leader@0,0 scout@0,0 medic@0,0
actor: diver
stack: normal:4 normal:4 normal:4 normal:4 exit
items: wetsuit
{DECK}
""") == ["move E"]




def test_gas_mask_decision_always_uses_it():  # R-INV-18, R-INV-5
    """explicit_reactions: the heuristic answers as the automatic rule would (use the mask), whatever the health at
    stake and its own. The diver stands on the gas tile with no AP left (exerted), and a Gas card comes at the
    round's end, whatever the others play."""
    from subterra_env import scenario
    from subterra_env.games.sub_terra.core.actions import A_GAS_MASK_USE, ACTION_NAMES

    text = """
map:
  start:E  gas:W
cavers: diver@1,0:{hp}items=gas-mask leader@0,0 scout@0,0 engineer@0,0
actor: diver
ap: 0
exerted: yes
deck: gas
"""
    for damage, hp in ((2, ""), (1, ""), (1, "hp=1:")):
        core = Core(GameConfig(scenario="investigation", explicit_reactions=True, gas_damage=damage))
        st = scenario.build(text.replace("{hp}", hp), core=core)
        agent = HeuristicAgent(SimpleNamespace(core=core, state=st))
        for _ in range(60):
            mask = core.legal_mask(st)[0]
            if mask[A_GAS_MASK_USE]:
                break
            core.step(st, np.array([agent.act(None, mask)]))
        assert mask[A_GAS_MASK_USE] and int(st.r_lose[0]) == damage
        assert ACTION_NAMES[agent.act(None, mask)] == "use gas mask"
