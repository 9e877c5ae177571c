"""The Annihilation scenario through every interface: its own spaces and name, PettingZoo's and Gymnasium's
checkers (tests/test_scenario_envs.py), and the base game's spaces unchanged beside it."""

from __future__ import annotations


import subterra_env
from subterra_env.games.sub_terra.core.observe import GRID_CHANNELS, ANNIHILATION_CHANNELS, ANNIHILATION_SCALARS, grid_channels, scalars_of


def test_its_own_name_and_spaces_and_the_base_game_unchanged() -> None:
    env = subterra_env.env(scenario="annihilation", obs_radius=3)
    base = subterra_env.env(obs_radius=3)
    assert env.metadata["name"] == "subterra_annihilation_v1" and base.metadata["name"] == "subterra_v1"
    assert env.action_space("diver").n == 107 and base.action_space("diver").n == 90
    space = env.observation_space("diver")
    assert space["observation"].shape == (38, 7, 7) and space["scalars"].shape == (57,)
    assert space["action_mask"].shape == (107,)
    assert base.observation_space("diver")["observation"].shape == (34, 7, 7)
    assert grid_channels("annihilation")[34:] == ANNIHILATION_CHANNELS
    assert scalars_of("annihilation")[49:] == ANNIHILATION_SCALARS


def test_observation_shows_the_zone_the_bomb_cards_and_the_bombs_to_place() -> None:  # R-ANN-1, R-ANN-2, R-ANN-5
    env = subterra_env.env(scenario="annihilation", obs_radius=2, agent_names="seat")
    env.reset(seed=0)  # the exit south of the start; bomb cards with seats 0, 1 and 3
    obs = env.observe("caver_0")
    grid, sc = obs["observation"], obs["scalars"]
    zone = grid[36]
    # window 5x5 centred on the start (2, 2); the exit at (2, 3); zone: its sides and the row below it
    assert zone.tolist() == [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [0, 1, 0, 1, 0], [0, 1, 1, 1, 0]]
    assert grid[GRID_CHANNELS.index("type exit"), 3, 2] == 1
    revealable = grid[GRID_CHANNELS.index("revealable cell")]
    assert revealable.tolist() == [[0, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 1, 0, 1, 0], [0, 0, 0, 0, 0],
                                   [0, 0, 0, 0, 0]]  # the start's three sides away from the exit, none in the zone
    assert grid[34:36].sum() == 0  # no bomb tile on the table yet
    assert sc[49:55].tolist() == [1, 1, 0, 1, 0, 0] and sc[55:].tolist() == [3, 0]
    assert env.observe("caver_2")["scalars"][49:53].tolist() == [0, 1, 1, 1]  # relative seats


BOMB_MAP = """map:
  .          exit:S      .
  .          start:NESW  bomb:W
cavers: diver@2,1:bombs=1 medic@2,1:hp=0:bombs=1 scout@1,1:bombs=1 leader@1,1
"""


def test_events_narration_and_text_board_show_the_bombs() -> None:  # R-ANN-6, R-ANN-7
    from subterra_env.games.sub_terra.core.actions import action_id
    from subterra_game.narrate import describe_action, narrate

    env = subterra_env.env(scenario="annihilation", agent_names="seat", record_events=True,
                           render_mode="ansi")
    env.reset(seed=0, options={"scenario": BOMB_MAP})
    core, before = env.core, env.state_.copy()
    take = action_id("take card from caver 6")
    assert describe_action(core, env.state_, take) == "take card from caver 6: the unconscious medic's bomb card (1 held)"
    env.step(take)
    assert [e.kind for e in env.last_events] == ["transfer"]
    lines = [e.text for e in narrate(core, before, env.state_, take)]
    assert "medic passes a bomb card to diver" in lines
    before = env.state_.copy()
    env.step(action_id("place bomb"))
    assert [(e.kind, e.value) for e in env.last_events] == [("bomb", 1)]
    assert "diver places a BOMB on" in " ".join(e.text for e in narrate(core, before, env.state_,
                                                                          action_id("place bomb")))
    board = env.render()
    assert "BMB" in board and "bombs placed 1/3; bomb cards: diver 1, scout 1" in board


def test_narration_of_whole_heuristic_games_names_the_result() -> None:  # R-ANN-9
    """Every step of two heuristic games narrates (no fallback line), and the last line says why it ended."""
    from agents import HeuristicAgent
    from subterra_game.narrate import narrate

    ends = {}
    for seed in (4, 9):
        env = subterra_env.env(scenario="annihilation", record_events=True)
        env.reset(seed=seed)
        bot, lines = HeuristicAgent(env), []
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action, before = bot.act(None, obs["action_mask"]), env.state_.copy()
            env.step(action)
            lines += [e.text for e in narrate(env.core, before, env.state_, action)]
        assert not [line for line in lines if "narration failed" in line]
        ends[seed] = [line for line in lines if line.startswith("GAME OVER")]
    assert ends == {4: ["GAME OVER: BRONZE (2 of 4 cavers escaped)"],
                    9: ["GAME OVER: DEFEAT (1 of 4 cavers escaped; a bomb tile has no bomb (R-ANN-9))"]}


def test_the_terminal_and_browser_tables_draw_the_bombs() -> None:  # R-ANN-6
    """A heuristic table of Annihilation (seed 9): once the first bomb is down, the terminal map shows the bomb
    tile and its token, and the browser's board view the tile, the token, the cards held and the progress."""
    from subterra_env.config import preset
    from subterra_game.seats import seat_plan
    from subterra_game.session import Session
    from subterra_game.tui import cave_text
    from subterra_game.web.view import board_view

    s = Session(preset("annihilation"), 9, seat_plan(None, [], "heuristic", True))
    while not s.env.state_.t_bomb[0].any():
        seat = int(s.env.state_.actor[0])
        s.apply(s.bots[seat].act(s.env, seat), "heuristic")
    st = s.env.state_
    text = cave_text(st, 0)
    assert "BMB" in text and "B █" in text
    view = board_view(s.env.core, st, s.env.legal_mask, s.labels, set(), 200)
    assert [(t["where"], t["bomb"]) for t in view["tiles"] if t["type"] == "bomb"] == [("W2 S1", True)]
    assert [c["bombs"] for c in view["cavers"]] == [0, 0, 1, 1]
    assert view["team"]["status"][-1] == "bombs placed 1/3; bomb cards: engineer 1, leader 1"
    # R-ANN-2: the cells beside the exit (0, -1) are no frontier: a side facing the zone is not open
    assert [(c["x"], c["y"]) for c in view["frontier"]] == [(-4, -2), (-4, 1), (-3, -2), (-3, 2), (-2, -2), (-2, 3),
                                                            (-1, 4), (1, 3), (1, 4)]


def test_a_scenario_game_is_recorded_replayed_and_turned_into_samples(tmp_path) -> None:
    """A heuristic Annihilation table's record (its actions reach the scenario's ids 90+) replays to the same final
    state, and behaviour-cloning samples have the scenario's shapes."""
    from subterra_env.config import preset
    from subterra_game.seats import seat_plan
    from subterra_game.session import Session
    from subterra_game.records import load_record, replay_record, to_samples

    s = Session(preset("annihilation"), 4, seat_plan(None, [], "heuristic", True))
    while not s.over:
        seat = int(s.env.state_.actor[0])
        s.apply(s.bots[seat].act(s.env, seat), "heuristic")
    doc = load_record(s.save(tmp_path / "ann.json"))
    assert max(a["action"] for a in doc["actions"]) >= 90 and doc["settings"]["scenario"] == "annihilation"
    assert int(replay_record(doc, keep_states=False).env.state_.result[0]) == 1  # bronze, as played
    samples = to_samples(doc, obs_radius=3)
    n = len(doc["actions"])
    assert samples["observation"].shape == (n, 38, 7, 7) and samples["scalars"].shape == (n, 57)
    assert samples["action_mask"].shape == (n, 107)


def test_the_terminal_help_explains_the_scenario() -> None:
    from rich.console import Console

    from subterra_env.config import preset
    from subterra_env.games.sub_terra.core.rules import Core
    from subterra_game.tui import help_pages

    def first_page(cfg) -> str:
        console = Console(width=120, record=True)
        console.print(help_pages(Core(cfg))[0])
        return console.export_text()

    assert "Annihilation (R-ANN)" in first_page(preset("annihilation"))
    assert "Extraction (R-EXT)" in first_page(preset("extraction"))
    base = first_page(preset("full"))
    assert "Annihilation (R-ANN)" not in base and "Extraction (R-EXT)" not in base
