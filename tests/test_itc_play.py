"""subterra itc: a person against bot teams in the terminal (scripted input), records and their replays, and the
ITC env's rgb render (issue 21)."""

from __future__ import annotations

import io
import json
import sys

import numpy as np
import pytest

from subterra_env.in_the_cave import env
from subterra_env.games.in_the_cave.config import ItcConfig
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.actions import ACTION_NAMES
from subterra_env.in_the_cave.render import CELL, KIND_COLOURS, render_rgb, text_map
from subterra_game.in_the_cave import screen as S
from subterra_game.in_the_cave.play import itc_main, play
from subterra_game.in_the_cave.screen import Terminal
from subterra_game.in_the_cave.session import Table
from subterra_game.play import main


class Script:
    """Input fed from a list; remembers the game record as it was at each prompt."""

    def __init__(self, answers: list[str], table: Table | None = None):
        self.answers, self.table, self.seen = list(answers), table, []

    def __call__(self, prompt: str) -> str:
        if self.table is not None:
            self.seen.append(self.table.g.copy())
        if not self.answers:
            raise EOFError
        return self.answers.pop(0)


def human_table(seed: int = 3) -> Table:
    return Table(ItcConfig(), seed, [("human", None), ("heuristic", None)])


def test_pick_reads_numbers_and_name_prefixes():
    legal = [ACTION_NAMES.index(n) for n in ("end_turn", "move_N", "move_E", "reveal", "pack")]
    assert S.pick("2", legal) == ACTION_NAMES.index("move_N")
    assert S.pick("rev", legal) == ACTION_NAMES.index("reveal")
    assert S.pick("Move e", legal) == ACTION_NAMES.index("move_E")  # case, a space for the underscore
    assert S.pick("pack", legal) == ACTION_NAMES.index("pack")  # a whole name wins over longer names
    assert S.pick("0", legal) == "0 is not an option: choose a number from 1 to 5"
    assert S.pick("mo", legal) == "'mo' is ambiguous: it could be move_N, move_E (type more of the name, or the number)"
    assert S.pick("move_S", legal) == "move_S is not legal now; the legal actions are the numbered ones"
    assert S.pick("dive", legal) == "'dive' names no legal action now; the legal actions are the numbered ones"
    assert S.pick("fly", legal) == ("'fly' is not an action: type a number from 1 to 5 or the start of an action "
                                    "name (? for help)")
    assert S.pick("  ", legal) == "type the number of an option (1-5) or an action name; ? for help"
    done = [ACTION_NAMES.index("pack_done")]
    assert S.pick("pack", done) == "pack is not legal now (did you mean pack_done?); the legal actions are the " \
                                   "numbered ones"


def test_scripted_human_game_refuses_bad_input_and_keeps_the_game():
    """Bad input gives its message and changes nothing; a name prefix picks the action; q quits without saving."""
    table = human_table()
    out: list[str] = []
    script = Script(["99", "move", "take_c", "take_cam", "?", "take_c", "q", "n"], table)
    code = play(table, Terminal(script, out.append))
    assert code == 130
    text = "\n".join(out)
    assert "  99 is not an option: choose a number from 1 to 12" in out
    assert "  'move' names no legal action now; the legal actions are the numbered ones" in out
    assert "  'take_c' is ambiguous: it could be take_consumable, take_camera (type more of the name, or the " \
           "number)" in out
    assert "initial packing · team 0 (you) packs: take up to 8 tokens (free), then pack_done" in text
    assert "backpack and camp: hidden while the teams pack" in text  # the other team's packing is hidden
    assert "| 13 | reveal | 1 | R-ITC-ACT-1 |" in text  # ? shows the help with the action table
    # the first three answers changed nothing; "take_cam" took the camera, then "take_c" (the camera is taken)
    # could only mean take_consumable
    assert all((g == script.seen[0]).all() for g in script.seen[:4])
    assert [a["name"] for a in table.doc["actions"]] == ["take_camera", "take_consumable"]
    assert "  team 0 (you): take_camera" in out and out[-2:] == ["game stopped", "not saved"]
    assert list(table.g[L.BP:L.BP + L.NK]) == [1, 0, 0, 0, 1, 0]


def test_hot_seat_people_do_not_see_each_others_packing():
    """R-ITC-SET-9: while the teams pack, people see neither the others' kit nor what they take, only that they
    are done."""
    table = Table(ItcConfig(), 3, [("human", "ann"), ("human", "bob")])
    out: list[str] = []
    play(table, Terminal(Script(["take_cam", "take_raft", "pack_done", "take_rope", "q", "n"]), out.append))
    assert "  team 0 (ann): done packing (hidden until every team has packed)" in out
    assert not [ln for ln in out if "take_" in ln and ln.startswith("  team")]
    bob = "\n".join(out[out.index("  team 0 (ann): done packing (hidden until every team has packed)"):])
    assert "      backpack and camp: hidden while the teams pack" in bob  # ann's, on bob's screen
    assert "your move, team 1 (bob) · packing:" in bob


def test_human_turn_shows_costs_and_placements_and_moves_by_prefix():
    """Past the packing: the menu shows each option's AP; "move_n" and a placement by number go through."""
    table = human_table(seed=11)
    out: list[str] = []
    answers = ["take_cam", "take_raft"] + ["take_cons"] * 5 + ["take_rope", "pack_d"]
    play(table, Terminal(Script(answers + ["move_n", "mo", "q", "n"], table), out.append))
    text = "\n".join(out)
    assert "move_N (1 AP)" in text and "crawl_N (the whole turn)" in text
    assert "  'mo' is ambiguous: it could be move_N, move_S (type more of the name, or the number)" in out
    assert [a["name"] for a in table.doc["actions"] if a["seat"] == 0][-2:] == ["pack_done", "move_N"]
    assert "  team 0 (you): move_N -> N1, 0 m" in out


def test_cli_through_subterra_main(monkeypatch, capsys):
    """``subterra itc`` reads the person's answers from standard input; q then n quits without a file."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\nn\n"))
    assert main(["itc", "--seed", "3", "--delay", "0"]) == 130
    got = capsys.readouterr().out
    assert "In the Cave: seed 3, 2 teams: team 0 you, team 1 heuristic" in got
    assert "game stopped" in got and "not saved" in got


@pytest.mark.parametrize("argv, message", [
    (["--seats", "human,robot"], "error: --seats entry 1 'robot': expected human, human:NAME, heuristic or random"),
    (["--players", "3", "--seats", "human,random"], "error: --seats lists 2 seats but 3 teams play: give one per "
                                                    "team"),
    (["--watch", "--seats", "human,random"], "error: --watch plays bots only: drop the human seats"),
    (["--config", "nowhere"], "error: --config 'nowhere': no such file, and not a preset (default, first_game, two, "
                              "three, four, five)"),
])
def test_bad_command_lines_say_why(argv, message):
    out: list[str] = []
    assert itc_main(argv, read=Script([]), write=out.append) == 2
    assert out == [message]


def test_watched_game_saved_then_replayed_to_the_same_scores(tmp_path):
    path = tmp_path / "g.json"
    out: list[str] = []
    assert itc_main(["--watch", "--players", "3", "--seed", "5", "--delay", "0", "--save", str(path)],
                    write=out.append) == 0
    doc = json.loads(path.read_text())
    assert doc["format"] == "in-the-cave-record" and doc["schema_version"] == 1 and doc["seed"] == 5
    assert [s["player"] for s in doc["seats"]] == ["heuristic"] * 3 and doc["config"]["num_players"] == 3
    assert doc["result"]["finished"] and doc["result"]["decisions"] == len(doc["actions"]) > 100
    final = out[out.index("final scores:"):out.index("final scores:") + 5]
    assert [f"  team {s} (heuristic): {doc['result']['scores'][s]}" for s in range(3)] == \
        [ln.replace("  WINNER", "") for ln in final[1:4]]
    again: list[str] = []
    assert itc_main(["replay", str(path), "--auto", "--delay", "0"], read=Script([]), write=again.append) == 0
    assert again[0] == (f"{path}: {len(doc['actions'])} decisions replayed to the recorded final scores "
                        f"{doc['result']['scores']} (ended)")
    assert again[-5:] == final  # the same final scores and winner
    stepped: list[str] = []  # stepping by hand: Enter, b(ack), a number jumps, q
    assert itc_main(["replay", str(path)], read=Script(["", "", "b", "9", "q"]), write=stepped.append) == 0
    steps = [ln.split(":")[0] for ln in stepped if ln.startswith("step ")]
    assert steps == ["step 1/%d" % len(doc["actions"]), "step 2/%d" % len(doc["actions"]),
                     "step 1/%d" % len(doc["actions"]), "step 9/%d" % len(doc["actions"])]


def test_tampered_records_are_refused(tmp_path):
    path = tmp_path / "g.json"
    assert itc_main(["--watch", "--seed", "2", "--delay", "0", "--save", str(path)], write=lambda s: None) == 0
    doc = json.loads(path.read_text())
    scores = doc["result"]["scores"]

    def replay_of(d) -> list[str]:
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(d))
        out: list[str] = []
        assert itc_main(["replay", str(bad), "--auto", "--delay", "0"], write=out.append) == 2
        return out

    d = json.loads(path.read_text())
    d["result"]["scores"] = [scores[0] + 1] + scores[1:]
    assert replay_of(d) == [f"error: {tmp_path / 'bad.json'}: final scores mismatch: the replay reaches {scores}, "
                            f"the record says {d['result']['scores']}"]
    d = json.loads(path.read_text())
    d["actions"][0]["action"] = ACTION_NAMES.index("reveal")  # no reveal while packing
    assert replay_of(d)[0].startswith(f"error: {tmp_path / 'bad.json'}: step 0: action 13 (reveal) is not legal "
                                      "for team 0; legal were: camp_repack, take_consumable")
    d = json.loads(path.read_text())
    d["actions"] = d["actions"][:-1]  # the game no longer ends
    assert "result mismatch: the record says the game finished (ended)" in replay_of(d)[0]
    d = json.loads(path.read_text())
    d["format"] = "subterra-record"
    assert replay_of(d) == [f"error: {tmp_path / 'bad.json'}: not an In the Cave record ('format' should be "
                            "'in-the-cave-record', got 'subterra-record')"]


def test_quit_saves_an_unfinished_game_that_replays(tmp_path):
    table = human_table()
    path = tmp_path / "so_far.json"
    out: list[str] = []
    assert play(table, Terminal(Script(["take_cam", "q", str(path)]), out.append)) == 130
    assert out[-1] == f"saved to {path}; replay it with: subterra itc replay {path}"
    doc = json.loads(path.read_text())
    assert doc["result"]["finished"] is False and [a["name"] for a in doc["actions"]] == ["take_camera"]
    again: list[str] = []
    assert itc_main(["replay", str(path), "--auto", "--delay", "0"], write=again.append) == 0
    assert again[0] == f"{path}: 1 decisions replayed to the recorded final scores [0, 0] (running, unfinished)"
    assert again[-1] == "the game is not over (stopped in round 0): no final scores"
    later: list[str] = []  # --resume: the saved decisions again, then the person goes on
    path2 = tmp_path / "later.json"
    assert itc_main(["--resume", str(path), "--delay", "0"], read=Script(["take_raft", "q", str(path2)]),
                    write=later.append) == 130
    assert later[0] == f"resumed {path} after 1 decisions"
    assert [a["name"] for a in json.loads(path2.read_text())["actions"]] == ["take_camera", "take_raft"]
    done: list[str] = []
    finished = tmp_path / "finished.json"
    assert itc_main(["--watch", "--seed", "2", "--delay", "0", "--save", str(finished)], write=lambda s: None) == 0
    assert itc_main(["--resume", str(finished)], read=Script([]), write=done.append) == 2
    assert done == [f"error: the game in {finished} is over: replay it with: subterra itc replay {finished}"]


def test_text_map_draws_passages_pawns_and_unexplored_exits():
    e = env(initial_pack="fixed")
    e.reset(seed=0)
    g = e.unwrapped.game
    start = int(g[L.ACTOR])
    assert text_map(g, 2) == [
        " ?",
        " |",
        " +",
        " |",
        f"{start}H - + - ?",
        " |",
        " +",
        " |",
        " ?"]


def test_colour_map_paints_pawns_kinds_and_exits_only():
    e = env(initial_pack="fixed")
    e.reset(seed=0)
    lines = text_map(e.unwrapped.game, 2)
    painted = S.colour_map(lines)
    start = int(e.unwrapped.game[L.ACTOR])
    assert painted[4] == (f"\x1b[{S.TEAM_ANSI[start]}m{start}\x1b[0m\x1b[1;33mH\x1b[0m - \x1b[37m+\x1b[0m - "
                          "\x1b[1;93m?\x1b[0m")
    assert painted[1] == lines[1] == " |"  # passages between rows stay plain
    import re

    assert [re.sub(r"\x1b\[[0-9;]*m", "", ln) for ln in painted] == lines


def test_rgb_render_shape_colours_and_change_after_a_move():
    e = env(render_mode="rgb_array", initial_pack="fixed")
    e.reset(seed=0)
    img = e.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and img.shape[1] >= 600
    g = e.unwrapped.game
    bare = render_rgb(g, 2, status=False)
    cell = CELL
    assert bare.shape == (11 * cell, 11 * cell, 3)  # at least 5 cells around home, one empty cell of margin
    hx = hy = 5 * cell  # home (0, 0) is the middle cell
    assert tuple(bare[hy + 6, hx + 6]) == KIND_COLOURS[L.K_HOME]
    assert tuple(bare[hy + 6, hx + cell + 6]) == KIND_COLOURS[L.K_BOARD]  # the east arm
    assert tuple(bare[hy + cell // 2, hx - cell // 2]) == (12, 12, 14)  # no west arm at 2 teams: empty
    e.step(ACTION_NAMES.index("move_E"))
    after = e.render()
    assert after.shape == img.shape and not np.array_equal(after, img)


def test_render_test_covers_rgb_array():
    from pettingzoo.test import render_test

    assert "rgb_array" in env().metadata["render_modes"]
    render_test(lambda render_mode=None: env(render_mode=render_mode, initial_pack="fixed"),
                custom_tests={"rgb_array": lambda img: img.shape[1] >= 600 and img.shape[2] == 3})


def test_replay_writes_png_frames_and_a_gif_of_one_size(tmp_path):
    path = tmp_path / "short.json"
    assert itc_main(["--watch", "--seed", "2", "--max-rounds", "2", "--delay", "0", "--save", str(path)],
                    write=lambda s: None) == 0
    n = len(json.loads(path.read_text())["actions"])
    out: list[str] = []
    assert itc_main(["replay", str(path), "--png", str(tmp_path / "frames"), "--gif", str(tmp_path / "g.gif"),
                     "--delay", "0.1"], write=out.append) == 0
    assert out[1:] == [f"wrote {n + 1} frames: {tmp_path / 'frames' / 'frame_0000.png'} .. "
                       f"{tmp_path / 'frames' / f'frame_{n:04d}.png'}",
                       f"wrote {tmp_path / 'g.gif'} ({n + 1} frames, 0.1 s each)"]
    from PIL import Image

    sizes = {Image.open(p).size for p in (tmp_path / "frames").glob("*.png")}
    assert len(sizes) == 1  # the final cave's box for every frame
    with Image.open(tmp_path / "g.gif") as gif:
        assert gif.n_frames == n + 1 and gif.size == sizes.pop()
