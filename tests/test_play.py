"""The play command as a person meets it: a scripted player at a pseudo-terminal (pexpect) plays whole games beside
heuristic bots on the tiny cave, bad input is re-asked with its reason, Ctrl-C offers to save, a saved game
resumes and replays (terminal, PNG, GIF)."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

from subterra_env.play import PlayError, SeatPlan, main, parse_kind, seat_plan
from subterra_env.records import load_record, replay_record

ROOT = Path(__file__).resolve().parent.parent
PROMPT = r"choose 1-(\d+) \(\? help"
GAME = ["-m", "subterra_env.play", "--config", "configs/tiny.yaml", "--seed", "3", "--bots", "heuristic",
        "--delay", "0"]


def spawn(args: list[str]) -> pexpect.spawn:
    env = dict(os.environ, PYTHONUNBUFFERED="1", COLUMNS="160", LINES="50", TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    return pexpect.spawn(sys.executable, args, cwd=str(ROOT), env=env, dimensions=(50, 160), timeout=60,
                         encoding="utf-8", codec_errors="replace")


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
    child = spawn(["-m", "subterra_env.play", "--resume", str(part), "--delay", "0", "--save", str(done)])
    child.expect(f"resumed after {len(rec['actions'])} decisions")
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
    child = spawn(["-m", "subterra_env.play", "replay", str(save)])
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
    with pytest.raises(PlayError, match="expected human, human:NAME, heuristic"):
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
    with pytest.raises(PlayError, match="--bots must be a bot kind"):
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


def test_auto_bots_fall_back_to_the_heuristic_with_a_notice(tmp_path, monkeypatch):
    import builtins

    from subterra_env import play

    notice: list[str] = []
    monkeypatch.setattr(play, "shipped_team_path", lambda: tmp_path / "team.zip")
    assert play.resolve_auto(notice).kind == "heuristic" and "not in agents/shipped/ yet" in notice[-1]
    (tmp_path / "team.zip").write_bytes(b"PK")
    real = builtins.__import__

    def no_torch(name, *a, **k):
        if name in ("torch", "sb3_contrib"):
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_torch)
    assert play.resolve_auto(notice).kind == "heuristic" and "needs the train extra" in notice[-1]
    monkeypatch.setattr(builtins, "__import__", real)
    pytest.importorskip("sb3_contrib")
    assert play.resolve_auto(notice) == play.Seat("policy", path=str(tmp_path / "team.zip"))
