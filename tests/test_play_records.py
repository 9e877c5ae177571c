"""Game records (subterra_game.records): replay to the identical result, clear refusals of corrupt or mismatched
records, behaviour-cloning samples equal to the env's observations, and the narration of steps."""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import subterra_env
from subterra_env import scenario
from subterra_env.config import GameConfig
from subterra_env.games.sub_terra.core.actions import action_id
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.env import raw_env
from subterra_game.narrate import ACTION_HELP, describe_action, narrate
from subterra_game.records import (GameRecord, RecordError, config_from_json, events_to_json, load_record, parse_record,
                                  replay_record, save_record, settings_to_json, state_hash, to_samples)

TINY = subterra_env.load(Path(__file__).resolve().parent.parent / "configs" / "tiny.yaml")


def bot_game(seed: int = 4, cfg: GameConfig = TINY, humans: tuple[int, ...] = (0,)) -> dict:
    """A record of a heuristic game, with the seats in ``humans`` marked as people."""
    from agents.heuristic import HeuristicAgent

    env = raw_env(cfg, record_events=True)
    env.reset(seed=seed)
    bot = HeuristicAgent(env)
    ranks = [int(r) for r in env.state_.c_rank[0]]
    rec = GameRecord(cfg, seed, seats=[{"seat": i, "caver": subterra_env.CAVER_NAMES[r - 1],
                                        "player": "human" if i in humans else "heuristic"}
                                       for i, r in enumerate(ranks)])
    while env.state_.result[0] == -1:
        seat = int(env.state_.actor[0])
        a = bot.act(None, env.legal_mask)
        env.step(a)
        rec.add(seat, subterra_env.CAVER_NAMES[ranks[seat] - 1], a, "human" if seat in humans else "heuristic", 1.0,
                env.last_events)
    rec.finish(env.state_)
    return rec.to_json()


@pytest.fixture(scope="module")
def record() -> dict:
    return bot_game()


def test_save_load_replay_identical(tmp_path, record):
    path = save_record(record, tmp_path / "r.json")
    doc = load_record(path)
    assert doc == json.loads(json.dumps(record))
    rep = replay_record(doc)
    assert state_hash(rep.final) == record["final_state_hash"]
    assert int(rep.final.result[0]) == record["result"]["code"] and record["result"]["finished"]
    assert len(rep.states) == len(record["actions"]) + 1
    # the rules' log of every decision is stored and replayed: the first decision of seed 4 draws a tile to turn
    assert [events_to_json(ev) for ev in rep.events] == [a["events"] for a in record["actions"]]
    assert record["actions"][0]["name"].startswith("reveal") and record["actions"][0]["events"][-1][0] == "draw"
    assert config_from_json(settings_to_json(TINY)) == TINY
    big = GameConfig(num_cavers=6, cavers=("diver", "scout", "geologist", "engineer", "medic", "leader"),
                     difficulty="expert")
    assert config_from_json(json.loads(json.dumps(settings_to_json(big)))) == big


def _golden_hash():
    path = Path(__file__).resolve().parent / "golden" / "record.py"
    spec = importlib.util.spec_from_file_location("golden_record_for_play", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["golden_record_for_play"] = mod
    spec.loader.exec_module(mod)
    return mod.state_hash_reference


def test_state_hash_is_the_golden_hash(record):
    ref = _golden_hash()
    st = replay_record(record).final
    assert state_hash(st) == f"{ref(st):016x}"


def _broken(record: dict, change) -> dict:
    doc = copy.deepcopy(record)
    change(doc)
    return doc


@pytest.mark.parametrize("change, message", [
    (lambda d: d.pop("seed"), "missing key 'seed'"),
    (lambda d: d.pop("actions"), "missing key 'actions'"),
    (lambda d: d.update(schema_version=2), "schema version 2 is not supported"),
    (lambda d: d.update(format="chess"), "not a Sub Terra game record"),
    (lambda d: d.update(seed="7"), "'seed' must be int"),
    (lambda d: d["settings"].update(num_cavers=9), "bad settings"),
    (lambda d: d["actions"][5].update(action=89), "step 5: action 89 ('surface 8') is not legal"),
    (lambda d: d["actions"][3].update(action=900), "step 3: action 900 is out of range"),
    (lambda d: d["actions"][2].pop("action"), "step 2: missing key 'action'"),
    (lambda d: d["actions"][4].update(seat=(d["actions"][4]["seat"] + 1) % 4), "step 4: the record has seat"),
    (lambda d: d["result"].update(code=(d["result"]["code"] + 1) % 4, name="other"), "result mismatch"),
    (lambda d: d.update(final_state_hash="0" * 16), "final state hash mismatch"),
    (lambda d: d["actions"][0]["events"][-1].__setitem__(3, 99), "step 0: the replayed events differ"),
    (lambda d: d.update(actions=d["actions"][:-3]), "result mismatch: the record says the game finished"),
    (lambda d: d["actions"].append(dict(d["actions"][-1])), "the game is already over"),
    (lambda d: d.update(seed=d["seed"] + 1), r"seat \d is '\w+' in the record but '\w+' in the replayed game"),
])
def test_corrupt_records_are_refused_naming_the_problem(record, change, message):
    pattern = message if message.startswith("seat \\d") else message.replace("(", r"\(").replace(")", r"\)")
    with pytest.raises(RecordError, match=pattern):
        replay_record(_broken(record, change))


def test_bad_files(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"format": "subterra-record", "schema_version": 1,')
    with pytest.raises(RecordError, match=r"x.json: bad JSON at line 1"):
        load_record(p)
    p.write_text("[1, 2]")
    with pytest.raises(RecordError, match="not a Sub Terra game record"):
        load_record(p)
    with pytest.raises(RecordError, match="cannot read the record"):
        load_record(tmp_path / "missing.json")
    with pytest.raises(RecordError, match="missing key 'settings'"):
        parse_record({"format": "subterra-record", "schema_version": 1})


def test_to_samples_are_the_env_observations(record):
    s = to_samples(record, obs_radius=7)
    n = len(record["actions"])
    assert s["observation"].shape == (n, 34, 15, 15) and s["scalars"].shape == (n, 49)
    assert s["action_mask"].shape == (n, 90) and s["action"].shape == (n,) and s["observation"].dtype == np.int8
    assert (s["action_mask"][np.arange(n), s["action"]] == 1).all()  # every recorded action was legal
    assert s["human"].sum() == sum(a["player"] == "human" for a in record["actions"])
    env = raw_env(config_from_json(record["settings"]))
    env.reset(seed=record["seed"])
    for i, entry in enumerate(record["actions"]):  # literally what the env gives the acting caver
        if i in (0, 7, n - 1):
            obs = env.observe(env.agent_selection)
            assert np.array_equal(obs["observation"], s["observation"][i])
            assert np.array_equal(obs["scalars"], s["scalars"][i])
            assert np.array_equal(obs["action_mask"], s["action_mask"][i])
        env.step(entry["action"])
    mine = to_samples(record, obs_radius=3, only_human=True)
    assert mine["observation"].shape[1:] == (34, 7, 7) and mine["human"].all()
    assert len(mine["action"]) == s["human"].sum() and (mine["seat"] == 0).all()


def test_action_help_covers_every_action():
    core = Core(TINY)
    assert ACTION_HELP[0][0] == "end turn" and ACTION_HELP[44][0].startswith("rotate")
    st = core.init(np.array([3]))
    for a in np.flatnonzero(core.legal_mask(st)[0]):
        assert describe_action(core, st, int(a)).startswith(subterra_env.ACTION_NAMES[a])


def test_narration_of_a_hazard_and_health():
    core = Core()
    st = scenario.build("""
map:
  start:NESW   water:EW
cavers: diver@0,0 scout@1,0
deck: flood
actor: scout
start: diver
""", core=core)
    before = st.copy()
    core.step(st, np.array([action_id("end turn")]))
    text = [e.text for e in narrate(core, before, st, action_id("end turn"))]
    assert text[0] == "scout: end turn"
    assert any(t.startswith("HAZARD: FLOOD") for t in text)
    assert "flooded: E1" in text
    assert "scout loses 1 health (3 -> 2) to the flood" in text
    assert any("round 2 begins" in t for t in text)
    st = scenario.build("""
map:
  start:NESW   normal:EW   horror:W
cavers: diver@0,0 scout@1,0
horrors: 2,0
actor: scout
start: diver
""", core=core)
    before = st.copy()
    core.step(st, np.array([action_id("end turn")]))
    text = [e.text for e in narrate(core, before, st, action_id("end turn"))]
    assert "a horror moves from E2 to E1" in text, text
