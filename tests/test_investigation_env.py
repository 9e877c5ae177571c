"""The Investigation scenario through every interface: its own spaces and name, PettingZoo's and Gymnasium's
checkers (tests/test_scenario_envs.py), the observation's public items, what stays hidden, events, narration and
the text board."""

from __future__ import annotations

import numpy as np

import subterra_env
from subterra_env.games.sub_terra.core.catalogue import ITEM_NAMES
from subterra_env.games.sub_terra.core.observe import GRID_CHANNELS, INVESTIGATION_CHANNELS, INVESTIGATION_SCALARS, grid_channels, \
    scalars_of


def test_its_own_name_and_spaces_and_the_base_game_unchanged() -> None:
    env = subterra_env.env(scenario="investigation", obs_radius=3)
    base = subterra_env.env(obs_radius=3)
    assert env.metadata["name"] == "subterra_investigation_v1" and base.metadata["name"] == "subterra_v1"
    assert env.action_space("diver").n == 154 and base.action_space("diver").n == 90
    space = env.observation_space("diver")
    assert space["observation"].shape == (36, 7, 7) and space["scalars"].shape == (160,)
    assert base.observation_space("diver")["observation"].shape == (34, 7, 7)
    assert grid_channels("investigation")[34:] == INVESTIGATION_CHANNELS
    assert scalars_of("investigation")[49:] == INVESTIGATION_SCALARS


MAP = """map:
  start:E  item:EW:Ix  item:W
cavers: diver@0,0:items=flare,wetsuit medic@2,0:items=gas-mask leader@0,0 scout@0,0
items: shovel grenade
doom: on
battery: medic
"""


def test_observation_shows_item_tiles_tokens_items_held_and_out_doom_and_batteries() -> None:  # R-INV-1..9
    env = subterra_env.env(scenario="investigation", obs_radius=2, agent_names="seat")
    env.reset(seed=0, options={"scenario": MAP})
    grid, sc = env.observe("caver_0")["observation"], env.observe("caver_0")["scalars"]
    assert grid[34, 2].tolist() == [0, 0, 0, 1, 1] and grid[35, 2].tolist() == [0, 0, 0, 1, 0]
    assert grid[GRID_CHANNELS.index("type normal"), 2, 3] == 1  # an item tile: a normal tile in the base planes
    names = scalars_of("investigation")
    assert sc[49:54].tolist() == [1, 2, 0, 0, 0]  # doom pending, 2 items in the deck
    holds = {names[i] for i in range(54, 138) if sc[i]}
    assert holds == {"caver 0 holds flare", "caver 0 holds wetsuit", "caver 1 holds gas mask"}
    gone = {names[i] for i in range(138, 152) if sc[i]}
    assert len(gone) == 14 - 5 and "shovel out of the game" not in gone
    assert sc[152:158].tolist() == [0, 1, 0, 0, 0, 0]
    sc1 = env.observe("caver_1")["scalars"]  # relative seats: the medic is caver 0
    assert sc1[54 + ITEM_NAMES.index("gas mask")] == 1 and sc1[152] == 1


def test_the_item_deck_order_stays_hidden() -> None:  # R-INV-2
    def obs(shuffle: bool):
        env = subterra_env.env(scenario="investigation", obs_radius=3, agent_names="seat")
        env.reset(seed=5)
        if shuffle:
            env.state_.i_deck[0] = env.state_.i_deck[0][::-1].copy()
        o = env.observe("caver_0")
        return o["observation"], o["scalars"]
    (g1, s1), (g2, s2) = obs(False), obs(True)
    assert np.array_equal(g1, g2) and np.array_equal(s1, s2)


def test_events_narration_and_text_board_show_items() -> None:  # R-INV-3, R-INV-4, R-INV-5
    from subterra_env.games.sub_terra.core.actions import action_id
    from subterra_game.narrate import describe_action, narrate

    env = subterra_env.env(scenario="investigation", agent_names="seat", record_events=True, render_mode="ansi")
    env.reset(seed=0, options={"scenario": MAP})
    core = env.core
    board = env.render()
    assert "ITM" in board and "items: diver: flare, wetsuit; medic: gas mask" in board and "DOOM pending" in board
    before = env.state_.copy()
    move = action_id("move E")
    env.step(move)  # the diver takes the token: the top item, the shovel
    assert [(e.kind, e.value, e.rule) for e in env.last_events if e.kind == "item_draw"] == [
        ("item_draw", 0, "R-INV-4")]
    lines = " ".join(e.text for e in narrate(core, before, env.state_, move))
    assert "takes the item token" in lines and "SHOVEL" in lines
    flare = action_id("flare")
    assert describe_action(core, env.state_, flare).startswith("flare: reveal a tile beyond")
    from rich.console import Console

    from subterra_game.tui import cave_text, team_panel
    assert "ITM" in cave_text(env.state_, colour=False, core=core).plain
    console = Console(record=True, width=160)
    console.print(team_panel(core, env.state_, ["a", "b", "c", "d"]))


def test_narration_of_whole_heuristic_games_tells_the_items() -> None:  # R-INV-4, R-INV-5
    """Every step of heuristic games narrates (no fallback line): items drawn and used are told."""
    from agents import HeuristicAgent
    from subterra_game.narrate import narrate

    lines, ends = [], []
    for seed in range(6):
        env = subterra_env.env(scenario="investigation", record_events=True)
        env.reset(seed=seed)
        bot = HeuristicAgent(env)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action, before = bot.act(None, obs["action_mask"]), env.state_.copy()
            env.step(action)
            lines += [e.text for e in narrate(env.core, before, env.state_, action)]
        ends += [line for line in lines if line.startswith("GAME OVER")][-1:]
    assert not [line for line in lines if "narration failed" in line]
    assert len(ends) == 6 and sum("takes the item token" in line for line in lines) == ITEM_TOKENS_TAKEN
    assert sum(" uses the " in line for line in lines) == ITEMS_USED


ITEM_TOKENS_TAKEN, ITEMS_USED = 15, 7  # 7: a Signal Booster among them


def test_the_terminal_and_browser_tables_draw_items() -> None:  # R-INV-4
    """A heuristic table of Investigation: once an item is drawn, the terminal map shows the item tile and the
    browser's board view the tile, the caver's items and the team status line."""
    from subterra_env.config import preset
    from subterra_game.seats import seat_plan
    from subterra_game.session import Session
    from subterra_game.tui import cave_text
    from subterra_game.web.view import board_view

    s = Session(preset("investigation"), 1, seat_plan(None, [], "heuristic", True))
    while not s.env.state_.c_items[0].any() and s.env.state_.result[0] < 0:
        seat = int(s.env.state_.actor[0])
        s.apply(s.bots[seat].act(s.env, seat), "heuristic")
    st = s.env.state_
    assert st.c_items[0].any()
    assert "ITM" in cave_text(st, 0)
    view = board_view(s.env.core, st, s.env.legal_mask, s.labels, set(), 200)
    assert [t["type"] for t in view["tiles"]].count("item") >= 1
    assert sum(len(c["items"]) for c in view["cavers"]) == 1
    assert any(line.startswith("items: ") for line in view["team"]["status"])
