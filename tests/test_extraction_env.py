"""The Extraction scenario through every interface: its own spaces and name, PettingZoo's and Gymnasium's
checkers (tests/test_scenario_envs.py), events, narration and the text board, and what stays hidden."""

from __future__ import annotations

import numpy as np

import subterra_env
from subterra_env.config import preset
from subterra_env.games.sub_terra.core.observe import EXTRACTION_CHANNELS, EXTRACTION_SCALARS, GRID_CHANNELS, grid_channels, scalars_of


def test_its_own_name_and_spaces_and_the_base_game_unchanged() -> None:
    env = subterra_env.env(scenario="extraction", obs_radius=3)
    base = subterra_env.env(obs_radius=3)
    assert env.metadata["name"] == "subterra_extraction_v1" and base.metadata["name"] == "subterra_v1"
    assert env.action_space("diver").n == 107 and base.action_space("diver").n == 90
    space = env.observation_space("diver")
    assert space["observation"].shape == (37, 7, 7) and space["scalars"].shape == (57,)
    assert base.observation_space("diver")["observation"].shape == (34, 7, 7)
    assert grid_channels("extraction")[34:] == EXTRACTION_CHANNELS
    assert scalars_of("extraction")[49:] == EXTRACTION_SCALARS


MAP = """map:
  start:E  normal:EW  sanctuary:EW:x  normal:EW  horror:W
cavers: diver@0,0:samples=1 medic@0,0:hp=0:samples=2 leader@2,0 climber@0,0
leapers: 3,0:1 4,0:0
horrors: 4,0:2
"""


def test_observation_shows_leapers_the_sanctuary_the_move_order_and_biosamples() -> None:  # R-EXT-4, -7, -9
    env = subterra_env.env(scenario="extraction", biosamples=True, obs_radius=2, agent_names="seat")
    env.reset(seed=0, options={"scenario": MAP})
    grid, sc = env.observe("caver_0")["observation"], env.observe("caver_0")["scalars"]
    # window 5x5 centred on the diver at the start (2, 2): the row is y = 2, x = 2..4 holds (0..2, 0)
    assert grid[34, 2].tolist() == [0, 0, 0, 0, 0]  # leapers at (3,0) and (4,0): outside the window
    assert grid[35, 2].tolist() == [0, 0, 0, 0, 1]  # the sanctuary at (2,0)
    assert grid[GRID_CHANNELS.index("type normal"), 2, 4] == 1  # a normal tile in the base type planes
    assert sc[49:55].tolist() == [1, 2, 0, 0, 0, 0] and sc[55:].tolist() == [2, 0]
    grid = env.observe("caver_2")["observation"]  # the leader at (2,0) sees (0..4, 0) as x = 0..4
    assert grid[34, 2].tolist() == [0, 0, 0, 1, 1]
    assert grid[36, 2].tolist() == [0, 0, 0, 2, 1]  # (4,0): the leaper spawned first moves first; (3,0) second
    assert grid[GRID_CHANNELS.index("horrors"), 2].tolist() == [0, 0, 0, 0, 1]
    assert env.observe("caver_1")["scalars"][49:53].tolist() == [2, 0, 0, 1]  # relative seats


def test_hidden_information_stays_hidden() -> None:  # the stack and deck order (where the sanctuary is)
    def obs(seed_game: int) -> tuple[np.ndarray, np.ndarray]:
        env = subterra_env.env(scenario="extraction", obs_radius=3, agent_names="seat")
        env.reset(seed=seed_game)
        st = env.state_
        st.stack[0] = st.stack[0][::-1].copy()  # another stack and deck order, same public state
        st.deck[0, :-1] = st.deck[0, :-1][::-1].copy()
        o = env.observe("caver_0")
        return o["observation"], o["scalars"]
    env = subterra_env.env(scenario="extraction", obs_radius=3, agent_names="seat")
    env.reset(seed=5)
    plain = env.observe("caver_0")
    grid, sc = obs(5)
    assert np.array_equal(grid, plain["observation"]) and np.array_equal(sc, plain["scalars"])


SLASH_MAP = """map:
  start:E  normal:EW  sanctuary:W
cavers: diver@0,0:samples=1 medic@1,0:hp=0:samples=1 leader@2,0:samples=1 climber@0,0
leapers: 1,0
"""


def test_events_narration_and_text_board_show_leapers_slashes_sanctuary_and_biosamples() -> None:
    from subterra_env.games.sub_terra.core.actions import action_id
    from subterra_game.narrate import describe_action, narrate

    env = subterra_env.env(scenario="extraction", biosamples=True, agent_names="seat", record_events=True,
                           render_mode="ansi")
    env.reset(seed=0, options={"scenario": SLASH_MAP})
    core = env.core
    board = env.render()
    assert "SAN" in board and "L" in board and "biosamples: diver 1, medic 1, leader 1" in board
    assert "leapers 1" in board
    from rich.console import Console

    from subterra_game.tui import cave_text, team_panel
    from subterra_game.web.view import horrors

    assert "SAN" in cave_text(env.state_, colour=False, core=core).plain  # the terminal map
    console = Console(record=True, width=160)
    console.print(team_panel(core, env.state_, ["a", "b", "c", "d"]))
    assert "leapers 1" in console.export_text()
    assert horrors(env.state_) == [{"x": 1, "y": 0, "leaper": True}]  # the browser board (map-relative cells)
    before = env.state_.copy()
    move = action_id("move E")
    env.step(move)  # the diver enters the leaper's tile: slashed (R-EXT-6)
    assert [(e.kind, e.value, e.rule) for e in env.last_events if e.kind in ("slash", "damage")] == [
        ("slash", 2, "R-EXT-6"), ("damage", 2, "R-EXT-6")]
    lines = " ".join(e.text for e in narrate(core, before, env.state_, move))
    assert "a leaper SLASHES diver" in lines and "(3 -> 1) to a leaper's slash" in lines
    take = action_id("take card from caver 6")
    assert describe_action(core, env.state_, take) == ("take card from caver 6: the unconscious medic's biosample "
                                                       "(1 held)")
    before = env.state_.copy()
    env.step(take)
    assert "diver passes a biosample to" not in " ".join(e.text for e in narrate(core, before, env.state_, take))
    assert "medic passes a biosample to diver" in " ".join(e.text for e in narrate(core, before, env.state_, take))


def test_sb3_and_torchrl_adapters_take_the_scenario() -> None:
    import pytest

    from subterra_env.sb3 import SubterraVecEnv

    venv = SubterraVecEnv(2, preset("extraction"), seed=0, obs_radius=2)
    obs = venv.reset()
    assert venv.action_space.n == 107 and obs["observation"].shape == (2, 37, 5, 5) and obs["scalars"].shape == (2, 57)
    pytest.importorskip("torchrl")
    from torchrl.envs.utils import check_env_specs

    from subterra_env.torchrl_env import SubterraTorchRLEnv

    env = SubterraTorchRLEnv(2, preset("extraction", biosamples=True), seed=0, obs_radius=2)
    check_env_specs(env)
    td = env.reset()
    assert tuple(td["observation"].shape) == (2, 37, 5, 5) and tuple(td["action_mask"].shape) == (2, 107)
def test_the_browser_board_shows_the_biosamples_held() -> None:  # R-EXT-9
    from subterra_env.config import preset
    from subterra_game.seats import seat_plan
    from subterra_game.session import Session
    from subterra_game.web.view import board_view

    s = Session(preset("extraction", biosamples=True), 5, seat_plan(None, [], "heuristic", True))
    view = board_view(s.env.core, s.env.state_, s.env.legal_mask, s.labels, set(), 200)
    assert [(c["caver"], c["samples"]) for c in view["cavers"]] == [("diver", 1), ("geologist", 1), ("engineer", 1),
                                                                    ("leader", 0)]
    assert view["team"]["status"][-1] == "biosamples: diver 1, geologist 1, engineer 1" and view["team"]["leapers"] == 0
