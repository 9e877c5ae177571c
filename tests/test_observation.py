"""Observation v1, asserted literally on scenarios: every grid channel group cell by cell, every scalar by name.

Each expected grid lists the nonzero cells of every channel as {(row, col): value}; every channel not listed must
be all zero. Rows run north to south, columns west to east, and the observer's tile is the window's centre.
"""

from __future__ import annotations

import numpy as np
import pytest

import subterra_env
from subterra_env import scenario
from subterra_env.config import GameConfig
from subterra_env.games.sub_terra.core.actions import action_id
from subterra_env.games.sub_terra.core.observe import GRID_CHANNELS, NUM_GRID_CHANNELS, NUM_SCALARS, SCALARS, observe
from subterra_env.games.sub_terra.core.rules import Core

CAVE = """
map:
  start:NESW        water:EW:~      cave-in:ESW:26*
  ledge:NS:^r       .               horror:N
cavers: scout@0,0 medic@1,0:hp=2 engineer@2,0 climber@0,1:hidden
horrors: 2,1
stack: gas:L normal:I exit
deck: flood gas out-of-time
actor: scout
ap: 1
round: 3
ropes: 4
"""


def _observe(text: str, seat: int, radius: int, cfg: GameConfig | None = None, actions: tuple[str, ...] = ()):
    core = Core(cfg or GameConfig())
    st = scenario.build(text, core=core)
    for name in actions:
        core.step(st, np.array([action_id(name)]))
    grid, scalars = observe(core.cat, st, np.array([seat]), radius)
    return grid[0], scalars[0]


def _assert_grid(grid: np.ndarray, expected: dict[str, dict[tuple[int, int], int]]) -> None:
    for c, name in enumerate(GRID_CHANNELS):
        want = np.zeros(grid.shape[1:], dtype=np.int8)
        for (row, col), value in expected.get(name, {}).items():
            want[row, col] = value
        np.testing.assert_array_equal(grid[c], want, err_msg=f"channel {c} {name!r}")


def _assert_scalars(scalars: np.ndarray, expected: dict[str, int]) -> None:
    got = {name: int(v) for name, v in zip(SCALARS, scalars)}
    assert got == {name: expected.get(name, 0) for name in SCALARS}


def test_the_docstring_table_is_the_layout() -> None:
    from subterra_env.games.sub_terra.core import observation_layout

    table = observation_layout.layout_text()
    assert table in observation_layout.__doc__
    assert "    base           scalars  turn               18  0..17" in table.splitlines()
    assert table.splitlines()[-1] == "    investigation  scalars  gas mask            2  158..159"


def test_layout_sizes() -> None:
    assert (NUM_GRID_CHANNELS, NUM_SCALARS) == (34, 49)
    assert GRID_CHANNELS[:5] == ("tile", "open N", "open E", "open S", "open W")
    assert GRID_CHANNELS[28:] == tuple(f"caver {k} health+1" for k in range(6))
    assert SCALARS[0] == "AP left" and SCALARS[-1] == "Scout redrew this placement"
    e = subterra_env.env()
    e.reset(seed=0)
    obs = e.observe(e.agent_selection)
    assert obs["observation"].shape == (34, 15, 15) and obs["scalars"].shape == (49,)
    assert obs["observation"].size + obs["scalars"].size == 7_699  # v0: 83 * 15 * 15 = 18,675


def test_tiles_markers_horrors_and_cavers_seen_by_the_scout() -> None:
    grid, scalars = _observe(CAVE, seat=0, radius=2)
    # map cell (x, y) is window (row y + 2, col x + 2): start (2,2), water (2,3), cave-in (2,4), ledge (3,2),
    # horror (3,4)
    _assert_grid(grid, {
        "tile": {(2, 2): 1, (2, 3): 1, (2, 4): 1, (3, 2): 1, (3, 4): 1},
        "open N": {(2, 2): 1, (3, 2): 1, (3, 4): 1},
        "open E": {(2, 2): 1, (2, 3): 1, (2, 4): 1},
        "open S": {(2, 2): 1, (2, 4): 1, (3, 2): 1},
        "open W": {(2, 2): 1, (2, 3): 1, (2, 4): 1},
        "type start": {(2, 2): 1}, "type water": {(2, 3): 1}, "type cave-in": {(2, 4): 1},
        "type ledge": {(3, 2): 1}, "type horror": {(3, 4): 1},
        "flooded": {(2, 3): 1}, "rubble": {(2, 4): 1}, "rope": {(3, 2): 1}, "arrow N": {(3, 2): 1},
        "cave-in die a": {(2, 4): 2}, "cave-in die b": {(2, 4): 6},
        "horrors": {(3, 4): 1},
        # beyond the start's N and W sides and the ledge's S side; the cave-in's E side leaves the window
        "revealable cell": {(1, 2): 1, (2, 1): 1, (4, 2): 1},
        "caver 0 health+1": {(2, 2): 4},  # the scout himself, 3 health
        "caver 1 health+1": {(2, 3): 3},  # the medic, 2 health
        "caver 2 health+1": {(2, 4): 4},  # the engineer
        "caver 3 health+1": {(3, 2): 4},  # the climber, hidden (hiding is a scalar)
    })
    _assert_scalars(scalars, {
        "AP left": 1, "hazard cards left": 3, "tiles left": 3, "round": 3, "horrors in cave": 1, "ropes left": 4,
        "caver 0 rank": 2, "caver 1 rank": 6, "caver 2 rank": 4, "caver 3 rank": 5, "caver 3 hidden": 1,
        "Scout redraws left": 3, "explosives left": 3,
    })


def test_seats_and_window_are_relative_to_the_observer() -> None:
    grid, scalars = _observe(CAVE, seat=1, radius=2)  # the medic at map (1, 0): window (row y + 2, col x + 1)
    assert grid[GRID_CHANNELS.index("type start"), 2, 1] == 1 and grid[GRID_CHANNELS.index("tile"), 2, 2] == 1
    caver_planes = {name: {tuple(map(int, rc)): int(grid[GRID_CHANNELS.index(name)][tuple(rc)])
                           for rc in np.argwhere(grid[GRID_CHANNELS.index(name)])}
                    for name in GRID_CHANNELS[25:]}
    assert caver_planes == {
        "horrors": {(3, 3): 1},
        "revealable cell": {(1, 1): 1, (2, 0): 1, (2, 4): 1, (4, 1): 1},  # the cave-in's E side is inside now
        "explosives sides (bits N=1 E=2 S=4 W=8)": {},
        "caver 0 health+1": {(2, 2): 3},  # the medic
        "caver 1 health+1": {(2, 3): 4},  # the engineer, next in seat order
        "caver 2 health+1": {(3, 1): 4},  # the climber
        "caver 3 health+1": {(2, 1): 4},  # the scout
        "caver 4 health+1": {}, "caver 5 health+1": {},
    }
    _assert_scalars(scalars, {
        "AP left": 1, "hazard cards left": 3, "tiles left": 3, "round": 3, "horrors in cave": 1, "ropes left": 4,
        "starting caver offset": 3, "caver 0 rank": 6, "caver 1 rank": 4, "caver 2 rank": 5, "caver 3 rank": 2,
        "caver 2 hidden": 1, "Scout redraws left": 3, "explosives left": 3,
    })


def test_pending_placement_abilities_and_absent_cavers() -> None:
    text = """
map:
  start:NESW   water:EW:~
cavers: scout@0,0 diver:under leader:dead geologist@1,0:hp=1
stack: gas:L normal:I exit
deck: flood gas out-of-time
actor: scout
ap: 2
exerted: yes
round: 5
gas: on
out-of-time: on
explosives: 1
redraws: 2
aside: cave-in:T
"""
    cfg = GameConfig(cavers=("scout", "diver", "leader", "geologist"))
    grid, scalars = _observe(text, seat=0, radius=1, cfg=cfg, actions=("reveal N",))
    _assert_grid(grid, {
        "tile": {(1, 1): 1, (1, 2): 1}, "open N": {(1, 1): 1}, "open E": {(1, 1): 1, (1, 2): 1},
        "open S": {(1, 1): 1}, "open W": {(1, 1): 1, (1, 2): 1},
        "type start": {(1, 1): 1}, "type water": {(1, 2): 1}, "flooded": {(1, 2): 1},
        "revealable cell": {(0, 1): 1, (1, 0): 1, (2, 1): 1},  # the drawn tile is not placed yet
        "caver 0 health+1": {(1, 1): 4}, "caver 3 health+1": {(1, 2): 2},  # the diver and leader are off the map
    })
    _assert_scalars(scalars, {
        "AP left": 1, "exerted": 1, "pending decision": 1, "pending tile type+1": 5,  # gas
        "pending tile shape+1": 3, "pending direction+1": 1,  # L, north
        "hazard cards left": 3, "tiles left": 2, "out of time": 1, "gas active": 1, "round": 5, "ropes left": 6,
        "caver 0 rank": 2, "caver 1 rank": 1, "caver 2 rank": 8, "caver 3 rank": 3,
        "caver 2 devoured": 1, "caver 1 under water": 1,
        "set-aside tile type+1": 6, "set-aside tile shape+1": 2,  # the Geologist's cave-in T, face up
        "Scout redraws left": 2, "explosives left": 1,
    })


@pytest.mark.parametrize("radius", [1, 4, 7])
def test_aec_vector_and_core_agree(radius: int) -> None:
    """The AEC env, the vector env and the core give the same v1 observation for the same game."""
    from subterra_env.vector import BatchedGames

    games = BatchedGames(1, obs_radius=radius)
    games.seed([11])
    obs = games.reset()
    grid, scalars = observe(games.core.cat, games.state, games.state.actor, radius)
    np.testing.assert_array_equal(obs["observation"], grid)
    np.testing.assert_array_equal(obs["scalars"], scalars)
    assert games.observation_space.contains({k: v[0] for k, v in obs.items()})


def test_rows_observe_only_those_games_and_the_parallel_copy_is_exact() -> None:
    """``observe(rows=)`` (the autoreset's new games, no ``State.take``) gives those games' rows of the whole
    batch's observation; ``copy_observations`` copies a batch exactly on one thread and on numba's threads, and
    refuses arrays of another shape or dtype."""
    from subterra_env.games.sub_terra.core.observe import copy_observations

    core = Core(GameConfig())
    st = core.init(np.arange(100))
    rng = np.random.default_rng(0)
    for _ in range(20):  # games apart: different rounds, actors, windows
        mask = core.legal_mask(st)
        core.step(st, (rng.random(mask.shape) * mask).argmax(1))
    seats = np.maximum(st.actor, 0)
    grid, scalars = observe(core.cat, st, seats, 3)
    rows = np.array([97, 3, 3, 50])
    sub_grid, sub_scalars = observe(core.cat, st, seats[rows], 3, rows=rows)
    assert sub_grid.shape == (4, NUM_GRID_CHANNELS, 7, 7) and sub_scalars.shape == (4, NUM_SCALARS)
    np.testing.assert_array_equal(sub_grid, grid[rows])
    np.testing.assert_array_equal(sub_scalars, scalars[rows])
    assert len(np.unique(grid[rows[[0, 1, 3]]].reshape(3, -1), axis=0)) == 3  # three different games' windows
    for threads in (1, 2):
        out = np.zeros_like(grid)
        copy_observations(grid, out, threads)
        np.testing.assert_array_equal(out, grid)
    with pytest.raises(ValueError, match="two C-contiguous int8 arrays of one shape"):
        copy_observations(grid, np.zeros(grid.shape[:-1], np.int8))
    with pytest.raises(ValueError, match="int8"):
        copy_observations(grid, grid.astype(np.int16))
