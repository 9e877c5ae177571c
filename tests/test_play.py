"""The play command as a person meets it: a scripted player at a pseudo-terminal (pexpect) plays whole games beside
heuristic bots on the tiny cave, bad input is re-asked with its reason, Ctrl-C offers to save, a saved game
resumes and replays (terminal, PNG, GIF)."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

from subterra_game.play import main
from subterra_game.seats import PlayError, Seat, SeatPlan, parse_kind, seat_plan
from subterra_env.config import load
from subterra_game.records import load_record, replay_record

ROOT = Path(__file__).resolve().parent.parent
TINY = load(ROOT / "configs" / "tiny.yaml")
PROMPT = r"choose 1-(\d+) \(\? help"
GAME = ["-m", "subterra_game.play", "--config", "configs/tiny.yaml", "--seed", "3", "--bots", "heuristic",
        "--delay", "0"]


def spawn(args: list[str]) -> pexpect.spawn:
    env = dict(os.environ, PYTHONUNBUFFERED="1", COLUMNS="160", LINES="50", TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    # Ctrl-C must reach the game as it does at a person's terminal: a shell without job control starts background
    # jobs with SIGINT ignored, and the ignore is inherited (a CI run started with `bash .ci/run &` hung on it)
    return pexpect.spawn(sys.executable, args, cwd=str(ROOT), env=env, dimensions=(50, 160), timeout=60,
                         encoding="utf-8", codec_errors="replace",
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def play_out(child: pexpect.spawn, choice: str = "1", limit: int = 400) -> int:
    """Answer every prompt with ``choice`` until the result is shown; returns the number of human decisions."""
    n = 0
    while True:
        i = child.expect([PROMPT, r"RESULT: (GOLD|SILVER|BRONZE|DEFEAT)"])
        if i == 1:
            return n
        child.sendline(choice)
        n += 1
        assert n < limit, "the game did not end"


def test_person_plays_a_whole_game_with_bad_input_and_the_record_replays(tmp_path):
    save = tmp_path / "game.json"
    child = spawn(GAME + ["--human", "0", "--save", str(save)])
    child.expect(r"Bots: heuristic \(as asked\)")  # the start line says which bots sit at the table
    child.expect(PROMPT)
    n = int(child.match.group(1))
    for bad, reason in (("abc", "'abc' is not a number"), ("0", "0 is out of range"),
                        (str(n + 1), f"{n + 1} is out of range: choose a number from 1 to {n}"),
                        ("", "type the number of an action"),
                        ("move N", "'move N' is not legal now"), ("? 1", r"Legal when: always")):
        child.sendline(bad)
        child.expect(reason)
        child.expect(PROMPT)  # asked again, the game goes on
    child.sendline("?")
    child.expect("the rules in short")
    child.sendline("")
    child.expect("the actions")
    child.sendline("")
    child.expect(PROMPT)
    child.sendline("1")  # end turn
    decisions = 1 + play_out(child)
    child.expect(f"game record saved to {re.escape(str(save))}")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    rec = load_record(save)
    human = [a for a in rec["actions"] if a["player"] == "human"]
    assert len(human) == decisions and all(a["action"] == 0 for a in human)  # option 1 was always "end turn"
    assert [s["player"] for s in rec["seats"]] == ["human", "heuristic", "heuristic", "heuristic"]
    assert rec["bots"] == "heuristic (as asked)"
    assert rec["result"]["finished"] and rec["result"]["name"] in ("defeat", "bronze", "silver", "gold")
    replay = replay_record(rec)  # raises unless the result and final state hash match
    assert len(replay.states) == len(rec["actions"]) + 1

    # the same seed and the same choices give the same game: the bots are deterministic
    gif, pngs = tmp_path / "game.gif", tmp_path / "frames"
    assert main(["replay", str(save), "--gif", str(gif), "--png", str(pngs), "--cell", "32"]) == 0
    from PIL import Image

    with Image.open(gif) as im:
        assert im.n_frames == len(rec["actions"]) + 1  # the start, then one frame per decision
    files = sorted(pngs.glob("frame_*.png"))
    assert len(files) == len(rec["actions"]) + 1
    sizes = {Image.open(p).size for p in files[:: max(1, len(files) // 5)]}
    assert len(sizes) == 1  # every frame the same size


def test_ctrl_c_offers_to_save_and_the_game_resumes(tmp_path):
    part = tmp_path / "part.json"
    child = spawn(GAME + ["--human", "0"])
    child.expect(PROMPT)
    child.sendline("1")  # end turn: bots play on
    child.expect(PROMPT)
    child.sendintr()
    child.expect(r"game paused: \[c\] continue")
    child.sendline("c")  # continue: nothing lost
    child.expect(PROMPT)
    child.sendline("q")
    child.expect("game paused")
    child.sendline("s")
    child.expect("file name")
    child.sendline(str(part))
    child.expect("saved to")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    rec = load_record(part)
    assert not rec["result"]["finished"] and rec["actions"][0]["player"] == "human"
    replay_record(rec)  # an unfinished record replays to its stored state too

    done = tmp_path / "done.json"
    child = spawn(["-m", "subterra_game.play", "--resume", str(part), "--delay", "0", "--save", str(done)])
    child.expect(f"resumed after {len(rec['actions'])} decisions")
    child.expect(r"Bots: heuristic \(as in the saved game\)")
    play_out(child)
    child.expect(pexpect.EOF)
    child.close()
    full = load_record(done)
    assert full["actions"][:len(rec["actions"])] == rec["actions"] and full["result"]["finished"]
    replay_record(full)


def test_replay_steps_in_the_terminal(tmp_path):
    save = tmp_path / "bots.json"
    assert main(["--config", "configs/tiny.yaml", "--seed", "5", "--watch", "--bots", "heuristic", "--delay", "0",
                 "--save", str(save)]) == 0
    n = len(load_record(save)["actions"])
    child = spawn(["-m", "subterra_game.play", "replay", str(save)])
    child.expect(f"step 0/{n}")
    child.sendline("")
    child.expect(f"step 1/{n}")
    child.sendline("b")
    child.expect(f"step 0/{n}")
    child.sendline(str(n))
    child.expect(f"step {n}/{n}")
    child.sendline("q")
    child.expect("RESULT: ")
    child.expect(pexpect.EOF)


def test_bad_records_are_refused_by_the_command(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["replay", str(bad)]) == 2
    out = capsys.readouterr().out
    assert "bad JSON at line 1" in out and str(bad) in out.replace("\n", "")


def test_seat_specs():
    assert parse_kind("human:ann") == parse_kind("human:ann") and parse_kind("human:ann").name == "ann"
    assert parse_kind("random").player == "random" and parse_kind("bot").kind == "auto"
    assert parse_kind("search") == Seat("search")
    with pytest.raises(PlayError, match="expected human, human:NAME, search, heuristic"):
        parse_kind("robot")
    with pytest.raises(PlayError, match="no policy checkpoint"):
        parse_kind("policy:/nope.zip")
    ranks = [2, 3, 6, 8]  # scout, geologist, medic, leader
    plan = seat_plan(None, ["medic:bob", "scout"], "heuristic", False)
    assert [s.kind for s in plan.resolve(ranks)] == ["human", "heuristic", "human", "heuristic"]
    assert plan.resolve(ranks)[2].name == "bob"
    assert [s.kind for s in seat_plan("human,random,heuristic,human", [], "auto", False).resolve(ranks)] == \
        ["human", "random", "heuristic", "human"]
    assert [s.kind for s in seat_plan("leader=human", [], "random", False).resolve(ranks)] == \
        ["random", "random", "random", "human"]
    assert seat_plan(None, [], "heuristic", False).resolve(ranks)[0].human  # default: you play seat 0
    assert not any(s.human for s in seat_plan(None, [], "heuristic", True).resolve(ranks))
    with pytest.raises(PlayError, match="diver is not at the table in this game"):
        seat_plan(None, ["diver"], "heuristic", False).resolve(ranks)
    with pytest.raises(PlayError, match="'wizard' is not a caver"):
        seat_plan(None, ["wizard"], "heuristic", False).resolve(ranks)
    with pytest.raises(PlayError, match="--seats lists 2 seats but 4 cavers play"):
        seat_plan("human,heuristic", [], "auto", False).resolve(ranks)
    with pytest.raises(PlayError, match="--bots 'human' is not a bot: --bots must be a bot kind: search, heuristic"):
        seat_plan(None, [], "human", False)
    assert isinstance(SeatPlan().resolve(ranks), list)


def test_bad_settings_and_missing_train_extra_are_clear(capsys, monkeypatch):
    assert main(["--config", "nope.yaml", "--watch"]) == 2
    assert "no such file, and not a preset" in capsys.readouterr().out
    assert main(["--cavers", "diver,scout", "--num-cavers", "4", "--watch"]) == 2
    assert "cavers" in capsys.readouterr().out
    import builtins

    real = builtins.__import__

    def no_torch(name, *a, **k):
        if name in ("torch", "sb3_contrib"):
            raise ImportError(f"No module named {name!r}", name=name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_torch)
    zip_path = ROOT / "tests" / "golden" / "README.md"  # any existing file: the import fails first
    assert main(["--seats", f"policy:{zip_path},heuristic,heuristic,heuristic", "--watch", "--seed", "1"]) == 2
    out = capsys.readouterr().out.replace("\n", "")
    assert "need the train extra" in out and "pip install -e '.[train]'" in out


def test_watch_writes_a_json_record(tmp_path):
    save = tmp_path / "w.json"
    assert main(["--config", "tiny", "--seed", "11", "--watch", "--bots", "random", "--delay", "0",
                 "--save", str(save)]) == 0
    doc = json.loads(save.read_text())
    assert doc["schema_version"] == 1 and doc["seed"] == 11 and len(doc["actions"]) == doc["result"]["decisions"]
    assert all(s["player"] == "random" for s in doc["seats"])


def test_auto_seats_search_when_it_answers_in_time_else_the_heuristic():
    from subterra_game.bots import SEARCH_LIMIT_S, choose_bots

    fast = choose_bots(lambda: [0.085, 0.09, 0.3])
    assert fast.seat == Seat("search") and fast.why == "strongest that answers in time: 90 ms per decision"
    assert choose_bots(lambda: [0.1], worlds=4).seat == Seat("search", worlds=4)
    slow = choose_bots(lambda: [0.9, 0.95])
    assert slow.seat == Seat("heuristic")
    assert slow.why == "search took 925 ms per decision here, over 0.5 s; --bots search to insist"
    assert choose_bots(lambda: [0.2, 3.0, 2.0]).seat.kind == "heuristic"  # the median decides, not the fastest
    assert choose_bots(lambda: [SEARCH_LIMIT_S]).seat.kind == "search"  # at most the limit

    def broken() -> list[float]:
        raise ImportError("No module named 'numba'")

    assert choose_bots(broken).seat.kind == "heuristic" and "does not load here" in choose_bots(broken).why


def test_the_timing_probe_is_short_and_leaves_the_game_alone():
    from subterra_env.env import raw_env
    from subterra_game.bots import time_search
    from subterra_game.records import state_hash

    env = raw_env(TINY)
    env.reset(seed=7)
    before = state_hash(env.state_)
    times = time_search(env.core, env.state_, 200, worlds=2)
    assert 1 <= len(times) <= 3 and all(0 < t < 5 for t in times)
    assert state_hash(env.state_) == before  # the probe plays copies: the game at the table is untouched
    slow = time_search(env.core, env.state_, 200, worlds=2, limit=0.0, budget=60)  # all "slow": two settle it
    assert len(slow) == 2
    assert len(time_search(env.core, env.state_, 200, worlds=2, limit=0.0, budget=0.0)) == 1  # out of time


def test_bots_flag_seats_search_or_heuristic_and_says_so(monkeypatch):
    from agents.heuristic import HeuristicAgent
    from agents.search import DEFAULT_WORLDS, SearchAgent
    from subterra_game import session

    s = session.Session(TINY, 3, seat_plan(None, [], "search", False), search_worlds=2)
    assert [x.kind for x in s.seats] == ["human", "search", "search", "search"]
    agent = s.bots[1].agent
    assert isinstance(agent, SearchAgent) and agent.worlds == 2 and not agent.clairvoyant
    assert agent.view.source is s.env  # bound to the live game, as the heuristic is
    assert s.bots_line == "Bots: search with 2 worlds (as asked)" and s.notice[0] == s.bots_line
    assert s.record.seats[1] == {"seat": 1, "caver": s.record.seats[1]["caver"], "player": "search", "worlds": 2}
    assert s.labels[1:] == ["search"] * 3

    s = session.Session(TINY, 3, seat_plan(None, [], "heuristic", True))
    assert all(isinstance(b.agent, HeuristicAgent) for b in s.bots.values()) and len(s.bots) == 4
    assert s.bots_line == "Bots: heuristic (as asked)"

    calls = []
    monkeypatch.setattr(session, "time_search", lambda *a, **k: calls.append(a) or [0.9, 1.2, 0.8])
    s = session.Session(TINY, 3, seat_plan(None, [], "auto", False))
    assert len(calls) == 1 and [x.kind for x in s.seats] == ["human", "heuristic", "heuristic", "heuristic"]
    assert s.bots_line == "Bots: heuristic (search took 900 ms per decision here, over 0.5 s; --bots search to insist)"
    monkeypatch.setattr(session, "time_search", lambda *a, **k: [0.05, 0.04])
    s = session.Session(TINY, 3, seat_plan("auto,random,auto,human", [], "auto", False))
    assert [x.kind for x in s.seats] == ["search", "random", "search", "human"]
    assert s.seats[0].worlds == DEFAULT_WORLDS
    assert s.bots_line == "Bots: search (strongest that answers in time: 45 ms per decision); random (as asked)"
    s = session.Session(TINY, 3, seat_plan("human,human,human,human", [], "auto", False))
    assert s.bots_line == "" and s.notice == [] and "bots" not in s.record.to_json()  # no bots: nothing timed


def test_a_scenario_table_seats_only_bots_that_play_it(monkeypatch):
    """Annihilation: auto seats the heuristic without timing the search (which plans the base game only); asking
    for the search or a policy there is a clear error before the game starts, never a failure mid-game."""
    from subterra_env.config import preset
    from subterra_game import session

    ann = preset("annihilation")
    monkeypatch.setattr(session, "time_search", lambda *a, **k: pytest.fail("timed a search that cannot sit there"))
    s = session.Session(ann, 3, seat_plan(None, [], "auto", False))
    assert [x.kind for x in s.seats] == ["human", "heuristic", "heuristic", "heuristic"]
    assert s.bots_line == "Bots: heuristic (the search bot does not play annihilation yet)"
    with pytest.raises(PlayError, match="the search bot does not play annihilation yet: pick --bots heuristic"):
        session.Session(ann, 3, seat_plan(None, [], "search", True))
    with pytest.raises(PlayError, match="policy bots play the base game only .* not annihilation"):
        session.Session(ann, 3, seat_plan(None, [], "policy:agents/shipped/team.zip", True))


def test_bots_on_the_command_line(tmp_path, capsys, monkeypatch):
    from subterra_game import session

    assert main(["--config", "tiny", "--watch", "--bots", "robot"]) == 2
    out = capsys.readouterr().out.replace("\n", "")
    assert "--bots 'robot' is not a bot" in out and "search, heuristic, random, policy:PATH or auto" in out
    assert main(["--config", "tiny", "--watch", "--bots", "search", "--search-worlds", "0"]) == 2
    assert "--search-worlds 0: at least 1 world" in capsys.readouterr().out

    monkeypatch.setattr(session, "time_search", lambda *a, **k: [0.7, 0.8])  # a slow machine: auto seats the heuristic
    save = tmp_path / "auto.json"
    assert main(["--config", "tiny", "--seed", "4", "--watch", "--delay", "0", "--save", str(save)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Bots: heuristic (search took 750 ms per decision here")
    doc = load_record(save)
    assert {s["player"] for s in doc["seats"]} == {"heuristic"} and doc["bots"].startswith("heuristic (search took")

    save = tmp_path / "search.json"  # search bots play a whole game, and it replays
    assert main(["--config", "tiny", "--seed", "4", "--watch", "--bots", "search", "--search-worlds", "2",
                 "--delay", "0", "--save", str(save)]) == 0
    assert capsys.readouterr().out.startswith("Bots: search with 2 worlds (as asked)")
    doc = load_record(save)
    assert [(s["player"], s["worlds"]) for s in doc["seats"]] == [("search", 2)] * 4
    assert {a["player"] for a in doc["actions"]} == {"search"}
    replay_record(doc)


def test_saved_seats_come_back_old_records_included():
    from subterra_game.seats import seat_from_record

    assert seat_from_record({"player": "search", "worlds": 4}) == Seat("search", worlds=4)
    assert seat_from_record({"player": "search"}) == Seat("search")
    assert seat_from_record({"player": "heuristic"}) == Seat("heuristic")  # records before the search bots
    assert seat_from_record({"player": "human", "name": "ann"}) == Seat("human", name="ann")
    assert seat_from_record({"player": "human"}) == Seat("human")
