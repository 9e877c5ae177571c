"""Scenario builder errors, and hidden information: observations never depend on the unseen order."""

from __future__ import annotations

import numpy as np
import pytest

from subterra_env.games.sub_terra.core.observe import observe
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.scenario import ScenarioError, build

BASE = """
map:
  start:NESW   water:EW:~
cavers: diver@0,0 scout@1,0:hp=2 medic@0,0 leader@0,0
"""


@pytest.mark.parametrize("text,needle", [
    (BASE.replace("water:EW:~", "lava:EW"), "lava"),
    (BASE + "stack: normal:X\n", "normal:X"),
    (BASE + "deck: earthquake\n", "earthquake"),
    (BASE + "colour: red\n", "colour"),
    (BASE.replace("scout@1,0", "scout@5,5"), "5,5"),
    (BASE.replace("scout@1,0", "wizard@1,0"), "wizard"),
    (BASE + "dice: 7\n", "dice"),
])
def test_bad_scenarios_name_the_problem(text: str, needle: str) -> None:
    with pytest.raises(ScenarioError, match=needle):
        build(text)


def test_scenario_reads_back() -> None:
    st = build(BASE + "stack: gas:L exit\ndeck: flood out-of-time\nhorrors: 1,0\n")
    assert st.n_tiles[0] == 2 and st.t_flood[0, 1] and st.c_hp[0, 1] == 2
    assert st.t_nbr[0, 0, 1] == 1 and st.t_nbr[0, 1, 3] == 0  # start E <-> water W (R-CON-1)
    assert st.stack.shape[1] - st.stack_pos[0] == 2
    assert (st.deck[0] >= 0).sum() - st.deck_pos[0] == 2
    assert st.h_tile[0, 0] == 1


def test_observations_ignore_hidden_order() -> None:
    """Permuting the unseen stack and deck changes no observation of any caver."""
    core = Core()
    st = core.init(np.arange(16))
    rng = np.random.default_rng(3)
    for _ in range(30):
        core.step(st, np.argmax(rng.random((16, core.num_actions)) * core.legal_mask(st), axis=1))
    shuffled = st.copy()
    for b in range(16):
        sp, dp = int(st.stack_pos[b]), int(st.deck_pos[b])
        shuffled.stack[b, sp:] = rng.permutation(st.stack[b, sp:])
        n = int((st.deck[b] >= 0).sum())
        shuffled.deck[b, dp:n - 1] = rng.permutation(st.deck[b, dp:n - 1])  # Out of Time stays last
    for seat in range(st.num_seats):
        seats = np.full(16, seat)
        for part, shuffled_part in zip(observe(core.cat, st, seats, 7), observe(core.cat, shuffled, seats, 7)):
            np.testing.assert_array_equal(part, shuffled_part)
    np.testing.assert_array_equal(core.legal_mask(st), core.legal_mask(shuffled))
