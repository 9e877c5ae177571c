"""In the Cave at the browser table (``subterra serve``), through the real HTTP API and websockets on loopback: a
person (played by the heuristic, deciding from the server's game and sending each choice over the socket) and a bot
play to the end and the record replays with ``subterra itc replay``; bad input is refused with the game intact; the
hidden initial packing stays hidden; bots-only games finish and replay in the page; a table resumes after a
restart and the person's link still works."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest

aiohttp = pytest.importorskip("aiohttp", reason="the browser table needs the web extra: pip install -e '.[web]'")

from web_client import expect_refused, new_itc_table, next_message, serving, table_state, until_turn

from agents.in_the_cave import heuristic_action
from subterra_game.in_the_cave import records as R
from subterra_game.in_the_cave.play import itc_main
from subterra_game.in_the_cave.play import resume as itc_resume
from subterra_game.web.server import STORE
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.actions import NUM_ACTIONS


def run(coro):
    return asyncio.run(coro)


def heuristic_choice(app, table_id: str) -> int:
    """What the heuristic would do for the team to act (the scripted person's brain)."""
    game = app[STORE].get(table_id).game.table
    return int(heuristic_action(game.g, game.env.core.P, game.env._mask))


def first_other(m: dict) -> int:
    """A plain scripted person: the first legal action that is not end_turn."""
    legal = m["board"]["legal"]
    return next((a for a in legal if a["name"] != "end_turn"), legal[0])["id"]


def test_a_person_and_a_bot_play_in_the_cave_to_the_end_and_the_record_replays(tmp_path: Path, capsys) -> None:
    async def go() -> tuple[dict, dict, dict]:
        with serving(tmp_path) as (base, app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_itc_table(cs, base)
                assert doc["game"] == "itc" and doc["seed"] == 7
                assert [s["team"] for s in doc["seats"]] == ["team 0", "team 1"]
                assert [s["player"] for s in doc["seats"]] == ["you", "heuristic"]
                assert doc["seats"][0]["link"] == f"/table/{doc['table']}#seat=0&token={doc['seats'][0]['token']}"
                assert "token" not in doc["seats"][1]
                first = None
                async with cs.ws_connect(f"{base}/ws/{doc['table']}") as ws:
                    await ws.send_json({"type": "join", "seat": 0, "token": doc["seats"][0]["token"]})
                    for _ in range(3000):
                        m = await until_turn(ws)
                        first = first or m
                        if m["over"]:
                            return doc, first, m
                        me = m["board"]["teams"][0]
                        for a in m["board"]["legal"]:  # moves and placements point at a cell beside the pawn
                            if a["name"].startswith(("move_", "dive_", "crawl_", "place_", "boulder_")):
                                assert abs(a["x"] - me["x"]) + abs(a["y"] - me["y"]) == 1, a
                        action = heuristic_choice(app, doc["table"])
                        assert action in {a["id"] for a in m["board"]["legal"]}
                        await ws.send_json({"type": "act", "action": action, "step": m["decisions"]})
        raise AssertionError("the game did not end")

    doc, first, final = run(go())
    assert first["game"] == "itc" and first["actor"] == 0 and first["board"]["turn"]["packing"]
    assert first["board"]["tiles"][0]["kind"] == "home" and (first["board"]["tiles"][0]["x"],
                                                              first["board"]["tiles"][0]["y"]) == (0, 0)
    names = {a["name"] for a in first["board"]["legal"]}
    assert "pack_done" in names and "take_consumable" in names
    assert any(line.startswith("tiles left I ") for line in first["board"]["turn"]["lines"])
    path = tmp_path / "records" / f"{doc['table']}.json"
    rec = R.load(path)
    env = R.replay(rec, str(path))  # the saved record plays again to its stored result and final hash
    turn = final["board"]["turn"]
    assert rec["result"]["finished"] is True and rec["result"]["decisions"] == final["decisions"]
    assert rec["result"]["result"] == turn["result"] == "ended" and rec["result"]["round"] == turn["round"]
    assert rec["result"]["scores"] == [t["score"] for t in final["board"]["teams"]]
    assert rec["result"]["winners"] == [int(t["winner"]) for t in final["board"]["teams"]]
    assert int(env.game[L.N_TILES]) == len(final["board"]["tiles"])  # every tile the page drew
    assert [s["player"] for s in rec["seats"]] == ["human", "heuristic"]
    people = [a for a in rec["actions"] if a["player"] == "human"]
    assert people and all(a["seat"] == 0 and "think_s" in a for a in people)
    assert {a["player"] for a in rec["actions"]} == {"human", "heuristic"}
    assert final["events"][-1]["text"].startswith("game over: winner") and \
        final["events"][-1]["text"].endswith(f"record saved as {doc['table']}.json")
    assert any(e["text"].startswith("final scores") for e in final["events"])
    capsys.readouterr()
    assert itc_main(["replay", str(path), "--auto", "--delay", "0"]) == 0  # the terminal's replay reads it
    out = capsys.readouterr().out
    assert f"{len(rec['actions'])} decisions replayed to the recorded final scores {rec['result']['scores']}" in out


def test_bad_input_at_an_itc_table_gets_a_clear_error_and_changes_nothing(tmp_path: Path) -> None:
    async def go() -> None:
        with serving(tmp_path) as (base, app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_itc_table(cs, base, seats=["human", "human:bob", "random"], num_players=3)
                tid, tok = doc["table"], {s["seat"]: s["token"] for s in doc["seats"] if "token" in s}
                assert sorted(tok) == [0, 1] and doc["seats"][1]["player"] == "bob"
                async with cs.ws_connect(f"{base}/ws/{tid}") as ws0, cs.ws_connect(f"{base}/ws/{tid}") as ws1:
                    await ws0.send_json({"type": "join", "seat": 0, "token": tok[0]})
                    await ws1.send_json({"type": "join", "seat": 1, "token": tok[1]})
                    m = await until_turn(ws0)
                    while m["actor"] != 0:
                        m1 = await until_turn(ws1)
                        await ws1.send_json({"type": "act", "action": first_other(m1), "step": m1["decisions"]})
                        m = await until_turn(ws0)
                    before = table_state(app, tid)
                    legal = {a["id"] for a in m["board"]["legal"]}
                    illegal = next(a for a in range(NUM_ACTIONS) if a not in legal)

                    async def expect(ws, payload, code: str, contains: str) -> None:
                        await expect_refused(ws, payload, code, contains, app, tid, before)

                    step = m["decisions"]
                    await expect(ws0, {"type": "act", "action": illegal, "step": step}, "illegal_action",
                                 "is not legal now for team 0; legal: ")
                    await expect(ws0, {"type": "act", "action": 85, "step": step}, "bad_action", "out of range 0..80")
                    await expect(ws0, {"type": "act", "action": first_other(m), "step": step + 1}, "stale", "moved on")
                    await expect(ws1, {"type": "act", "action": first_other(m), "step": step}, "not_your_turn",
                                 "it is team 0's turn (person 1), not seat 1's")
                    await expect(ws0, {"type": "act", "action": "3", "step": step}, "bad_action", "integer")
                    await expect(ws0, {"type": "join", "seat": 2, "token": "x"}, "bad_seat", "played by a bot")
                    await expect(ws0, {"type": "join", "seat": 3, "token": "x"}, "bad_seat", "does not exist")
                    await expect(ws0, {"type": "join", "seat": 1, "token": tok[0]}, "bad_token", "wrong token")
                    # a legal action is accepted: one decision more, in the record on disk
                    action = first_other(m)
                    await ws0.send_json({"type": "join", "seat": 0, "token": tok[0]})
                    await next_message(ws0, "state")
                    await ws0.send_json({"type": "act", "action": action, "step": step})
                    after = await next_message(ws0, "state")
                    assert after["decisions"] == step + 1
                rec = R.load(tmp_path / "records" / f"{tid}.json")
                assert rec["actions"][-1]["action"] == action and rec["actions"][-1]["seat"] == 0
                for body, says in [
                        ({"preset": "../../etc/passwd"}, "is not one of default, first_game"),
                        ({"preset": "configs/in_the_cave/four.yaml"}, "never read files"),
                        ({"num_players": 6, "seats": ["human"] * 6}, "num_players 6: 2 to 5 teams"),
                        ({"num_players": 3}, "2 seats but 3 teams play"),
                        ({"preset": "four"}, "2 seats but 4 teams play"),
                        ({"seats": ["human", "search"]}, "seat 1 'search': one of human"),
                        ({"seats": ["human", "policy:/etc/passwd"]}, "seat 1 'policy:/etc/passwd'"),
                        ({"seats": ["human"]}, "one entry per team (2 to 5)"),
                        ({"game": "chess"}, "game \"chess\": one of subterra, itc"),
                        ({"max_rounds": 0}, "max_rounds")]:
                    async with cs.post(f"{base}/api/tables", json={"game": "itc", "seats": ["human", "heuristic"],
                                                                   **body}) as r:
                        err = await r.json()
                        assert r.status == 400 and err["code"] == "bad_table" and says in err["message"], (body, err)
                async with cs.get(f"{base}/api/tables") as r:
                    assert [(t["table"], t["game"]) for t in (await r.json())["tables"]] == [(tid, "itc")]

    run(go())


def test_the_initial_packing_stays_hidden_from_the_other_people(tmp_path: Path) -> None:
    """R-ITC-SET-9 at a table with people: each person sees only their own team's kit while the teams pack, a
    watcher none, and what happened tells only that a team is done packing; afterwards everything is public."""
    async def go() -> tuple[dict, dict, dict, dict]:
        with serving(tmp_path) as (base, _app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_itc_table(cs, base, seats=["human", "human"])
                tok = {s["seat"]: s["token"] for s in doc["seats"]}
                async with cs.ws_connect(f"{base}/ws/{doc['table']}") as ws0, \
                        cs.ws_connect(f"{base}/ws/{doc['table']}") as ws1, \
                        cs.ws_connect(f"{base}/ws/{doc['table']}") as watch:
                    await ws0.send_json({"type": "join", "seat": 0, "token": tok[0]})
                    await ws1.send_json({"type": "join", "seat": 1, "token": tok[1]})
                    await watch.send_json({"type": "join", "seat": None})
                    await next_message(watch, "state")
                    m = await until_turn(ws0)
                    for name in ("take_consumable", "take_rope", "pack_done"):
                        a = next(x["id"] for x in m["board"]["legal"] if x["name"] == name)
                        await ws0.send_json({"type": "act", "action": a, "step": m["decisions"]})
                        m = await next_message(ws0, "state")
                    seen1 = await until_turn(ws1)
                    for _ in range(3):
                        seen_w = await next_message(watch, "state")
                    for url in (f"/api/records/{doc['table']}.json", f"/api/replay/{doc['table']}.json"):
                        async with cs.get(base + url) as r:  # the record would tell the packing
                            err = await r.json()
                            assert r.status == 403 and err["code"] == "hidden" and "R-ITC-SET-9" in err["message"]
                    a = next(x["id"] for x in seen1["board"]["legal"] if x["name"] == "pack_done")
                    await ws1.send_json({"type": "act", "action": a, "step": seen1["decisions"]})
                    after = await next_message(watch, "state")
                    async with cs.get(f"{base}/api/records/{doc['table']}.json") as r:
                        assert r.status == 200 and len((await r.json())["actions"]) == 4
                    return m, seen1, seen_w, after

    own, other, watcher, after = run(go())
    assert own["board"]["teams"][0]["backpack"] == "1 consumable, 1 rope"
    assert other["board"]["teams"][0]["backpack"] is None and other["board"]["teams"][1]["backpack"] == "empty"
    assert [t["backpack"] for t in watcher["board"]["teams"]] == [None, None]
    assert other["board"]["legal"] and watcher["board"]["legal"] == []  # only the team to act gets its actions
    said = " ".join(e["text"] for e in other["events"])
    assert "take_" not in said and "team 0 (person 1): done packing (hidden until every team has packed)" in said
    assert after["board"]["turn"]["packing"] is False
    assert after["board"]["teams"][0]["backpack"] == "1 consumable, 1 rope"  # public once all have packed


def test_bots_finish_an_itc_game_and_it_replays_in_the_page(tmp_path: Path) -> None:
    async def go() -> tuple[dict, dict, dict, list]:
        with serving(tmp_path) as (base, _app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_itc_table(cs, base, seed=1, seats=["heuristic", "random", "heuristic"],
                                          num_players=3)
                for _ in range(1200):
                    async with cs.get(f"{base}/api/tables") as r:
                        listed = (await r.json())["tables"][0]
                    if listed["over"]:
                        break
                    await asyncio.sleep(0.05)
                async with cs.get(f"{base}/api/replay/{doc['table']}.json") as r:
                    assert r.status == 200
                    steps = await r.json()
                rec = json.loads((tmp_path / "records" / f"{doc['table']}.json").read_text())
                async with cs.post(f"{base}/api/replay", json=rec) as r:
                    assert r.status == 200 and (await r.json()) == steps
                bad = json.loads(json.dumps(rec))
                bad["actions"][5]["action"] = next(a for a in range(NUM_ACTIONS) if a != bad["actions"][5]["action"])
                async with cs.post(f"{base}/api/replay", json=bad) as r:
                    refused = (r.status, await r.json())
                return listed, steps, rec, refused

    listed, steps, rec, refused = run(go())
    assert listed["over"] and listed["game"] == "itc" and listed["title"].startswith("In the Cave · seed 1")
    R.replay(rec)
    assert rec["result"]["finished"] and [s["player"] for s in rec["seats"]] == ["heuristic", "random", "heuristic"]
    n = len(rec["actions"])
    assert steps["game"] == "itc" and steps["decisions"] == n and len(steps["steps"]) == n + 1
    last = steps["steps"][-1]["board"]
    assert last["turn"]["result"] == rec["result"]["result"]
    assert [t.get("score", 0) for t in last["teams"]] == rec["result"]["scores"]
    assert steps["steps"][1]["events"][0]["text"].startswith("team ")
    assert all(s["board"]["legal"] == [] for s in steps["steps"][::50])
    assert refused[0] == 400 and refused[1]["code"] == "bad_record" and "step 5" in refused[1]["message"]


def test_an_itc_table_survives_a_restart_and_the_person_comes_back(tmp_path: Path) -> None:
    async def part(n_moves: int, doc: dict | None) -> tuple[dict, tuple[int, str], dict]:
        with serving(tmp_path) as (base, app):
            async with aiohttp.ClientSession() as cs:
                doc = doc or await new_itc_table(cs, base, seed=11, seats=["human", "heuristic", "random"],
                                                 num_players=3)
                tid = doc["table"]
                async with cs.ws_connect(f"{base}/ws/{tid}") as ws:
                    await ws.send_json({"type": "join", "seat": 0, "token": doc["seats"][0]["token"]})
                    m = await until_turn(ws)
                    for _ in range(n_moves):
                        await ws.send_json({"type": "act", "action": heuristic_choice(app, tid),
                                            "step": m["decisions"]})
                        m = await until_turn(ws)
                return doc, table_state(app, tid), m

    doc, saved, m1 = run(part(14, None))  # through the packing into the first rounds
    assert m1["board"]["turn"]["round"] >= 1
    _, resumed, m2 = run(part(0, doc))  # a new server on the same folder
    assert resumed == saved and m2["decisions"] == m1["decisions"]
    assert m2["events"][-1]["text"] == f"resumed after {m1['decisions']} decisions"
    assert m2["board"]["tiles"] == m1["board"]["tiles"] and m2["board"]["teams"] == m1["board"]["teams"]
    _, _, m3 = run(part(1, doc))  # and plays on
    assert m3["decisions"] > m2["decisions"]
    path = tmp_path / "records" / f"{doc['table']}.json"
    rec = R.load(path)
    assert rec["result"]["finished"] is False and len(rec["actions"]) == m3["decisions"]
    table = itc_resume(str(path), None)  # the terminal's --resume goes on with it too
    assert len(table.doc["actions"]) == m3["decisions"] and R.game_hash(table.g) == rec["final_hash"]
    meta = json.loads((tmp_path / "tables" / f"{doc['table']}.json").read_text())
    assert meta["game"] == "itc" and doc["seats"][0]["token"] not in json.dumps(meta)
    assert np.__name__


def test_the_first_game_preset_starts_with_a_turn_and_watchers_see_the_kit(tmp_path: Path) -> None:
    """``first_game`` packs every team's fixed kit (no initial packing): the table starts in round 1 with a turn
    line, every backpack public; 4 teams with one person."""
    async def go() -> dict:
        with serving(tmp_path) as (base, _app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_itc_table(cs, base, preset="first_game", num_players=4, seed=3,
                                          seats=["heuristic", "human:ann", "random", "heuristic"])
                assert [s["player"] for s in doc["seats"]] == ["heuristic", "ann", "random", "heuristic"]
                async with cs.ws_connect(f"{base}/ws/{doc['table']}") as ws:
                    await ws.send_json({"type": "join", "seat": None})
                    return await next_message(ws, "state")

    m = run(go())
    assert m["you"] is None and m["board"]["turn"]["round"] == 1 and not m["board"]["turn"]["packing"]
    assert m["title"] == "In the Cave · seed 3 · first_game · 4 teams"
    assert all(t["backpack"] == "4 consumable, 1 rope, 1 oxygen (2 tanks), camera, raft"
               for t in m["board"]["teams"]), m["board"]["teams"]
    assert m["events"][0]["text"].startswith("In the Cave: seed 3, 4 teams: team 0 heuristic, team 1 ann")
    assert any(e["kind"] == "turn" and e["text"].startswith("-- round 1: team ") for e in m["events"])
