"""PettingZoo conformance and the AEC environment's contract: spaces, errors, determinism, rewards."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import subterra_env
from subterra_env import Core, GameConfig, IllegalActionError, action_id
from subterra_env.games.sub_terra.core.actions import NUM_ACTIONS
from subterra_env.rewards import WAY_CAP, TeamReward, exit_way, horror_danger
from subterra_env.scenario import build
from random_play import random_legal, play_random_aec


def test_api_test_default() -> None:
    api_test(subterra_env.env(), num_cycles=1000)


@pytest.mark.parametrize("kw", [{"num_cavers": 5, "difficulty": "expert"}, {"num_cavers": 6, "obs_radius": 4}])
def test_api_test_settings(kw: dict) -> None:
    api_test(subterra_env.env(**kw), num_cycles=1000)


def test_seed_test() -> None:
    seed_test(subterra_env.env, num_cycles=500)


def test_metadata_and_agents() -> None:
    e = subterra_env.env(num_cavers=5)
    e.reset(seed=3)
    assert e.metadata["name"] == "subterra_v1"
    assert e.possible_agents == list(subterra_env.CAVER_NAMES)
    assert len(e.agents) == 5 and set(e.agents) <= set(e.possible_agents)
    ranks = [subterra_env.CAVER_NAMES.index(a) + 1 for a in e.agents]
    assert ranks == sorted(ranks)  # R-SET-6: seats in rank order
    assert e.agent_selection == e.agents[0]
    assert e.action_space(e.agents[0]).n == NUM_ACTIONS


def test_fixed_cavers_setting() -> None:
    e = subterra_env.env(cavers=("leader", "diver", "medic", "scout"))
    e.reset(seed=0)
    assert e.agents == ["diver", "scout", "medic", "leader"]


def _play(e, seed: int, steps: int) -> list:
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = []
    for _ in range(steps):
        obs, rew, term, trunc, info = e.last()
        if term or trunc:
            break
        a = random_legal(obs["action_mask"], rng)
        trace.append((e.agent_selection, a, obs["observation"].sum(), rew))
        e.step(a)
    return trace


def test_same_seed_same_game_different_seed_different_game() -> None:
    assert _play(subterra_env.env(), 11, 300) == _play(subterra_env.env(), 11, 300)
    assert _play(subterra_env.env(), 11, 300) != _play(subterra_env.env(), 12, 300)


def test_illegal_action_names_action_and_legal_ones_and_changes_nothing() -> None:
    e = subterra_env.env(cavers=("diver", "scout", "medic", "leader"))
    e.reset(seed=0)
    before = e.unwrapped.state_.copy()
    with pytest.raises(IllegalActionError, match=r"'move N'.*legal:.*'end turn'"):
        e.step(action_id("move N"))  # nothing placed north of the start tile yet
    with pytest.raises(IllegalActionError, match="out of range"):
        e.step(NUM_ACTIONS)
    with pytest.raises(IllegalActionError, match="None"):
        e.step(None)
    with pytest.raises(IllegalActionError, match="integer"):
        e.step("end turn")
    assert e.unwrapped.state_.equals(before)
    assert e.agent_selection == "diver"


def test_terminate_illegal_wrapper_option() -> None:
    e = subterra_env.env(illegal_action="terminate")
    e.reset(seed=0)
    assert e.agent_selection == "scout" and not e.observe("scout")["action_mask"][action_id("move N")]
    e.step(action_id("move N"))  # illegal: the game ends, the offender alone gets -1
    assert e.terminations == {"scout": True, "engineer": True, "climber": True, "bodyguard": True}
    assert e.rewards == {"scout": -1, "engineer": 0, "climber": 0, "bodyguard": 0}


def test_bad_settings_name_the_key() -> None:
    with pytest.raises(subterra_env.ConfigError, match="num_cavers"):
        subterra_env.env(num_cavers=7)
    with pytest.raises(subterra_env.ConfigError, match="unknown setting.*colour"):
        subterra_env.env(colour="red")
    with pytest.raises(ValueError, match="max_cycles"):
        subterra_env.env(max_cycles=0)


def test_team_reward_at_the_end_is_the_same_for_everyone() -> None:
    e = subterra_env.env()
    e.reset(seed=5)
    rng = np.random.default_rng(5)
    totals = {a: 0.0 for a in e.agents}

    def add(agent: str, last: tuple) -> None:
        totals[agent] += last[1]

    info = play_random_aec(e, rng, on_last=add)
    assert info["result"] in (0, 1, 2, 3)  # defeat, bronze, silver, gold
    expected = (0.0, 1 / 3, 2 / 3, 1.0)[info["result"]]
    assert all(v == pytest.approx(expected) for v in totals.values())


def test_truncation_after_max_cycles_rounds() -> None:
    e = subterra_env.env(max_cycles=2)
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, rew, term, trunc, info = e.last()
        if term or trunc:
            assert trunc and not term and info["round"] == 3
            e.step(None)
            continue
        e.step(action_id("end turn"))


def test_info_fields() -> None:
    e = subterra_env.env(cavers=("diver", "scout", "medic", "leader"))
    e.reset(seed=2)
    info = e.infos[e.agent_selection]
    assert info == {"result": -1, "escaped": 0, "round": 1, "hazard_cards_left": 23, "tiles_left": 65}
    e = subterra_env.env(cavers=("geologist", "scout", "medic", "leader"))
    e.reset(seed=2)
    assert e.infos["geologist"]["tiles_left"] == 64  # R-CAV-3: one tile set aside face up


def test_render_test() -> None:
    from pettingzoo.test import render_test

    render_test(subterra_env.env)


def test_rgb_render_through_env() -> None:
    e = subterra_env.env(render_mode="rgb_array")
    e.reset(seed=0)
    img = e.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3


def test_shaping_rewards() -> None:
    """reward_tile pays per tile placed, reward_health per health point lost (a negative value penalises)."""
    e = subterra_env.env(cavers=("diver", "scout", "medic", "leader"), reward_tile=0.5, reward_health=-0.25)
    e.reset(seed=0)
    e.step(action_id("reveal N"))
    if e.unwrapped.state_.pend[0]:  # a rotation to choose
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert e.rewards["scout"] == 0.5 and e._cumulative_rewards["leader"] == 0.5
    st = e.unwrapped.state_
    before = e.unwrapped.team_reward.snapshot(st)
    st.c_hp[0, 2] -= 2
    assert e.unwrapped.team_reward(before, st)[0] == -0.5


WAY_MAP = """
map:
  start:E   normal:EW   normal:EW   exit:W
cavers: diver@0,0 scout@1,0 medic@3,0 leader:dead
actor: scout
"""


def test_reward_way_pays_each_step_the_team_closes_on_the_exit() -> None:
    """``reward_way``: the team's way to the exit is each caver's steps to it through connected sides, capped at
    WAY_CAP = 20 (a dead caver's too, everyone's before the exit is placed, and anyone's off the exit once the game
    is over); a step pays the weight per step of it closed. Here: diver 3 + scout 2 + medic 0 (on the exit) + the
    dead leader 20."""
    st = build(WAY_MAP)
    assert WAY_CAP == 20 and exit_way(st).tolist() == [25]
    e = subterra_env.env(reward_way=0.1)
    assert e.unwrapped.team_reward == TeamReward(way=0.1)
    e.reset(seed=0)
    assert exit_way(e.unwrapped.state_).tolist() == [80]  # no exit on the table yet: four cavers at the cap
    team = TeamReward(way=0.1)
    before = team.snapshot(st)
    Core().step(st, np.array([action_id("move E")]))  # the scout, one step nearer the exit
    assert exit_way(st).tolist() == [24] and team(before, st).tolist() == [pytest.approx(0.1)]
    before = team.snapshot(st)
    st.c_dead[0, 0], st.c_tile[0, 0] = True, -1  # the diver devoured 3 steps from the exit: its way goes to the cap
    assert exit_way(st).tolist() == [41] and team(before, st).tolist() == [pytest.approx(-1.7)]
    before = team.snapshot(st)
    st.result[0] = 0  # a defeat: the scout, one step short, is lost too (the result itself pays 0)
    assert exit_way(st).tolist() == [60] and team(before, st).tolist() == [pytest.approx(-1.9)]


DANGER_MAP = """
map:
  start:E   normal:EW   normal:EW   normal:EW   horror:W
cavers: {cavers}
horrors: {horrors}
"""


def _danger(cavers: str, horrors: str = "", **settings) -> int:
    text = DANGER_MAP.format(cavers=cavers, horrors=horrors)
    if not horrors:
        text = text.replace("horrors: \n", "")
    cfg = GameConfig(**settings)
    return int(horror_danger(build(text, cfg), Core(cfg).params)[0])


def test_horror_danger_counts_the_cavers_a_horror_reaches_first() -> None:
    """``horror_danger``: victims (R-HOR-2) that a horror one step away hunts (its closest victim, R-HOR-3) or that
    stand on an empty horror tile (R-HOR-4), in running games."""
    assert _danger("diver@0,0 scout@1,0 medic@2,0 leader@4,0") == 1  # the leader on the empty horror tile
    assert _danger("diver@0,0 medic@2,0 leader@3,0 scout@4,0") == 0  # the Scout is never a victim
    assert _danger("diver@0,0 medic@2,0 leader@4,0:hidden scout@1,0") == 0  # nor a hidden caver
    assert _danger("diver@0,0 medic@1,0 leader@3,0 scout@2,0", "4,0") == 1  # the leader, a step from the horror
    # a step apart on both sides: the horror hunts one caver, the lower rank (the medic, 6, before the leader, 8)
    assert _danger("diver@0,0 medic@1,0 leader@3,0 scout@2,0", "2,0") == 1
    # the hidden leader beside the horror is skipped: it hunts the diver, a step the other way
    assert _danger("diver@2,0 medic@0,0 leader@4,0:hidden scout@1,0", "3,0") == 1
    assert _danger("diver@0,0 medic@1,0 leader@1,0 scout@2,0", "4,0") == 0  # three steps: not yet
    assert _danger("diver@0,0:hp=0 medic@1,0 scout@2,0 leader:dead") == 0  # unconscious or devoured: lost, not in reach
    # the leader on the empty horror tile, a horror two steps from the diver and the medic; at the limit of horrors
    # (here 1) no spawn comes, and the tile is no danger
    assert _danger("diver@2,0 medic@2,0 scout@1,0 leader@4,0", "0,0") == 1
    assert _danger("diver@2,0 medic@2,0 scout@1,0 leader@4,0", "0,0", horror_limit=1) == 0


def _danger_steps(cavers: str, actor: str, moves: tuple[str, ...]) -> list[float]:
    """The ``reward_danger=-0.25`` team reward of each move of ``actor``."""
    st = build(DANGER_MAP.format(cavers=cavers, horrors="").replace("horrors: \n", "") + f"actor: {actor}\n")
    core, team, paid = Core(), TeamReward(danger=-0.25), []
    for move in moves:
        before = team.snapshot(st, core.params)
        core.step(st, np.array([action_id(move)]))
        paid.append(round(float(team(before, st, core.params)[0]), 6))
    return paid


def test_reward_danger_prices_every_step_a_caver_stays_in_reach() -> None:
    """``reward_danger`` pays its weight after each step per caver then in a horror's reach: the leader stepping
    onto the empty horror tile and back; the medic's two moves while the leader stands on it."""
    assert _danger_steps("diver@0,0 scout@1,0 medic@2,0 leader@3,0", "leader", ("move E", "move W")) == [-0.25, 0.0]
    assert _danger_steps("diver@0,0 scout@1,0 medic@2,0 leader@4,0", "medic", ("move E", "move W")) == [-0.25, -0.25]
    with pytest.raises(ValueError, match="params"):
        TeamReward(danger=-0.25).snapshot(build(DANGER_MAP.format(cavers="diver@0,0", horrors="").replace(
            "horrors: \n", "")))
    e = subterra_env.env(reward_danger=-0.25)
    assert e.unwrapped.team_reward == TeamReward(danger=-0.25)


def test_reward_knockout_charges_the_fall_and_pays_back_the_heal() -> None:
    """``reward_knockout`` is a potential over the cavers down (no health, or devoured): the leader's step onto the
    horror's tile knocks it out (R-HOR-5) and costs the weight at once; a heal pays it back; a caver devoured while
    unconscious costs nothing more here (the way reward charges a caver lost); the other moves pay nothing."""
    st = build(DANGER_MAP.format(cavers="diver@0,0 scout@1,0 medic@2,0 leader@3,0", horrors="4,0")
               + "actor: leader\n")
    core, team = Core(), TeamReward(knockout=-0.5)
    before = team.snapshot(st, core.params)
    core.step(st, np.array([action_id("move E")]))
    assert st.c_hp[0].tolist()[3] == 0 and team(before, st, core.params).tolist() == [-0.5]
    before = team.snapshot(st, core.params)
    st.c_hp[0, 3] = 1  # healed to 1: conscious again
    assert team(before, st, core.params).tolist() == [0.5]
    st.c_hp[0, 3] = 0
    before = team.snapshot(st, core.params)
    st.c_dead[0, 3], st.c_tile[0, 3] = True, -1  # devoured while down
    assert team(before, st, core.params).tolist() == [0.0]
    e = subterra_env.env(reward_knockout=-0.5)
    assert e.unwrapped.team_reward == TeamReward(knockout=-0.5)
