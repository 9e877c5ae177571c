"""The browser table's server (``subterra serve``) through its real HTTP API and websockets on loopback: a whole
game by a scripted person beside bots, the record it saves, resuming after a restart, and bad client input
(each answered with a clear error, the game left as it was)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

aiohttp = pytest.importorskip("aiohttp", reason="the browser table needs the web extra: pip install -e '.[web]'")

from web_client import expect_refused, new_table, next_message, serving, table_state, until_turn

from subterra_game.play import main as subterra_main
from subterra_game.records import load_record, replay_record, to_samples
from subterra_game.web.protocol import MAX_MESSAGE_BYTES
from subterra_game.web.server import STORE


def run(coro):
    return asyncio.run(coro)


def pick(m: dict) -> int:
    """A scripted person: the first legal action that is not 'end turn' (each costs AP, so turns end)."""
    legal = m["board"]["legal"]
    others = [a for a in legal if a["name"] != "end turn"]
    return (others or legal)[0]["id"]


def test_a_person_plays_a_whole_game_with_bots_and_the_record_replays(tmp_path: Path) -> None:
    async def go() -> tuple[dict, dict]:
        with serving(tmp_path) as (base, _app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_table(cs, base)
                assert [s["player"] for s in doc["seats"]] == ["you", "heuristic", "heuristic", "heuristic"]
                assert doc["seats"][0]["link"] == f"/table/{doc['table']}#seat=0&token={doc['seats'][0]['token']}"
                assert "token" not in doc["seats"][1]  # bots have no key
                async with cs.ws_connect(f"{base}/ws/{doc['table']}") as ws:
                    await ws.send_json({"type": "join", "seat": 0, "token": doc["seats"][0]["token"]})
                    for _ in range(2000):
                        m = await until_turn(ws)
                        if m["over"]:
                            return doc, m
                        # on the board: every move/explore points at a cell next to the acting caver
                        me = m["board"]["cavers"][0]
                        for a in m["board"]["legal"]:
                            if a["name"].startswith(("move ", "explore ", "reveal ")):
                                assert abs(a["x"] - me["x"]) + abs(a["y"] - me["y"]) == 1, a
                        await ws.send_json({"type": "act", "action": pick(m), "step": m["decisions"]})
        raise AssertionError("the game did not end")

    doc, final = run(go())
    path = tmp_path / "records" / f"{doc['table']}.json"
    rec = load_record(path)
    rep = replay_record(rec)  # the saved record plays again to its stored result and final state hash
    st = rep.final
    team = final["board"]["team"]
    assert rec["result"]["finished"] is True and rec["result"]["decisions"] == final["decisions"]
    assert rec["result"]["name"] == team["result"] and rec["result"]["escaped"] == team["escaped"]
    assert int(st.round[0]) == team["round"]
    assert [s["player"] for s in rec["seats"]] == ["human", "heuristic", "heuristic", "heuristic"]
    humans = [a for a in rec["actions"] if a["player"] == "human"]
    assert humans and all(a["seat"] == 0 and "think_s" in a for a in humans)
    samples = to_samples(rec, only_human=True)
    assert len(samples["action"]) == len(humans)
    assert subterra_main(["replay", str(path), "--png", str(tmp_path / "frames")]) == 0
    assert len(list((tmp_path / "frames").glob("*.png"))) == len(rec["actions"]) + 1
    assert final["events"][-1]["text"] == f"game over: {team['result']}; record saved as {doc['table']}.json"


def test_bad_client_input_gets_a_clear_error_and_changes_nothing(tmp_path: Path) -> None:
    async def go() -> None:
        with serving(tmp_path) as (base, app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_table(cs, base, seats=["human", "human", "heuristic", "heuristic"])
                tid, tok = doc["table"], {s["seat"]: s["token"] for s in doc["seats"] if "token" in s}
                async with cs.ws_connect(f"{base}/ws/{tid}") as ws0, cs.ws_connect(f"{base}/ws/{tid}") as ws1:
                    await ws0.send_json({"type": "join", "seat": 0, "token": tok[0]})
                    await ws1.send_json({"type": "join", "seat": 1, "token": tok[1]})
                    m = await until_turn(ws0)
                    while m["board"]["team"]["actor"] != 0:  # the person at seat 1 acts until seat 0 is on
                        m1 = await until_turn(ws1)
                        await ws1.send_json({"type": "act", "action": pick(m1), "step": m1["decisions"]})
                        m = await until_turn(ws0)
                    before = table_state(app, tid)
                    mask = {a["id"] for a in m["board"]["legal"]}
                    illegal = next(a for a in range(90) if a not in mask)

                    async def expect(ws, payload, code: str, contains: str) -> None:
                        await expect_refused(ws, payload, code, contains, app, tid, before)

                    step = m["decisions"]
                    await expect(ws0, {"type": "act", "action": illegal, "step": step}, "illegal_action",
                                 "is not legal now for the")
                    await expect(ws0, {"type": "act", "action": pick(m), "step": step + 1}, "stale", "moved on")
                    await expect(ws1, {"type": "act", "action": pick(m), "step": step}, "not_your_turn",
                                 "not seat 1's")
                    await expect(ws0, {"type": "act", "action": 999, "step": step}, "bad_action", "out of range")
                    await expect(ws0, {"type": "act", "action": "12", "step": step}, "bad_action", "integer")
                    await expect(ws0, {"type": "act", "action": True, "step": step}, "bad_action", "integer")
                    await expect(ws0, "{not json", "bad_json", "not JSON")
                    await expect(ws0, "[1, 2]", "bad_message", "JSON object")
                    await expect(ws0, {"type": "shout"}, "bad_message", "unknown message type")
                    big = json.dumps({"type": "act", "action": pick(m), "step": step, "pad": "x" * MAX_MESSAGE_BYTES})
                    await expect(ws0, big, "too_large", f"over the limit of {MAX_MESSAGE_BYTES}")
                    await expect(ws0, {"type": "delay", "seconds": -1}, "bad_delay", "from 0 to 10")
                async with cs.ws_connect(f"{base}/ws/{tid}") as ws:  # joining a seat not yours
                    await expect(ws, {"type": "act", "action": pick(m), "step": step}, "not_joined", "join first")
                    await expect(ws, {"type": "join", "seat": 0, "token": tok[1]}, "bad_token", "wrong token for seat 0")
                    await expect(ws, {"type": "join", "seat": 2, "token": "x"}, "bad_seat", "played by a bot")
                    await expect(ws, {"type": "join", "seat": 5, "token": "x"}, "bad_seat", "does not exist")
                    await expect(ws, {"type": "join", "seat": 0}, "bad_token", "token")
                    await ws.send_json({"type": "join", "seat": None})  # watching is fine, acting is not
                    assert (await next_message(ws, "state"))["you"] is None
                    await expect(ws, {"type": "act", "action": pick(m), "step": step}, "not_seated", "watching")
                async with cs.ws_connect(f"{base}/ws/{tid}") as ws:  # far past any message: aiohttp closes it
                    await ws.send_str("x" * 100_000)
                    closing = await ws.receive(timeout=30)
                    assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
                    assert ws.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
                assert table_state(app, tid) == before
                async with cs.ws_connect(f"{base}/ws/{tid}") as ws0:  # the game goes on as before
                    await ws0.send_json({"type": "join", "seat": 0, "token": tok[0]})
                    m = await until_turn(ws0)
                    await ws0.send_json({"type": "act", "action": pick(m), "step": m["decisions"]})
                    assert (await next_message(ws0, "state"))["decisions"] == before[0] + 1

                # HTTP: paths in file names, files named by a client, bad settings
                for url, status, code in [
                        ("/api/records/..%2F..%2Fetc%2Fpasswd", 400, "bad_file_name"),
                        ("/api/records/..%5Ctables%5Cx.json", 400, "bad_file_name"),
                        ("/api/records/passwd", 400, "bad_file_name"),
                        ("/api/records/000000000000.json", 404, "no_table"),
                        ("/static/..%2Fserver.py", 404, None), ("/static/index.html", 404, "not_found")]:
                    async with cs.get(base + url) as r:
                        assert r.status in (status, 404), (url, r.status)
                        body = await r.text()
                        assert "import" not in body and "root:" not in body
                        if code and r.status == status:
                            assert json.loads(body)["code"] == code, (url, body)
                async with cs.get(f"{base}/api/records/{tid}.json") as r:
                    assert r.status == 200 and (await r.json())["format"] == "subterra-record"
                for body, says in [
                        ({"preset": "../../etc/passwd", "seats": ["human"] * 4}, "is not one of"),
                        ({"preset": "configs/tiny.yaml", "seats": ["human"] * 4}, "never read files"),
                        ({"preset": "tiny", "seats": ["human", "policy:/etc/passwd", "random", "random"]},
                         "seat 1 'policy:/etc/passwd'"),
                        ({"preset": "tiny", "seats": ["human"] * 5}, "5 seats but 4 cavers"),
                        ({"preset": "tiny", "seed": "7", "seats": ["human"] * 4}, "'seed' must be an integer"),
                        ({"preset": "tiny", "seats": ["human"] * 4, "difficulty": "brutal"}, "difficulty"),
                        ([1, 2], "JSON object")]:
                    async with cs.post(f"{base}/api/tables", json=body) as r:
                        err = await r.json()
                        assert r.status == 400 and err["code"] == "bad_table" and says in err["message"], err
                async with cs.post(f"{base}/api/tables", data="{x", headers={"Content-Type": "application/json"}) as r:
                    assert r.status == 400 and (await r.json())["code"] == "bad_json"
                async with cs.get(f"{base}/api/tables") as r:
                    assert [t["table"] for t in (await r.json())["tables"]] == [tid]  # no stray tables

    run(go())


def test_a_table_survives_a_restart_and_a_person_comes_back(tmp_path: Path) -> None:
    async def part(n_moves: int, doc: dict | None) -> tuple[dict, tuple[int, str], dict]:
        with serving(tmp_path) as (base, app):
            async with aiohttp.ClientSession() as cs:
                doc = doc or await new_table(cs, base, seed=11)
                tid = doc["table"]
                async with cs.ws_connect(f"{base}/ws/{tid}") as ws:
                    await ws.send_json({"type": "join", "seat": 0, "token": doc["seats"][0]["token"]})
                    m = await until_turn(ws)
                    for _ in range(n_moves):
                        if m["over"]:
                            break
                        await ws.send_json({"type": "act", "action": pick(m), "step": m["decisions"]})
                        m = await until_turn(ws)
                return doc, table_state(app, tid), m

    doc, saved, m1 = run(part(3, None))
    _, resumed, m2 = run(part(0, doc))  # a new server on the same folder
    assert resumed == saved and m2["decisions"] == m1["decisions"]
    assert m2["events"][-1]["text"] == f"resumed after {m1['decisions']} decisions"
    assert m2["board"]["tiles"] == m1["board"]["tiles"] and m2["board"]["cavers"] == m1["board"]["cavers"]
    rec = load_record(tmp_path / "records" / f"{doc['table']}.json")
    assert rec["result"]["finished"] is False and len(rec["actions"]) == m1["decisions"]
    meta = json.loads((tmp_path / "tables" / f"{doc['table']}.json").read_text())
    assert doc["seats"][0]["token"] not in json.dumps(meta)  # only the token's hash is kept


def test_serve_is_a_subcommand_of_subterra(capsys) -> None:
    try:
        subterra_main(["serve", "--help"])
    except SystemExit as e:
        assert e.code == 0
    out = capsys.readouterr().out
    assert "--host" in out and "default 127.0.0.1" in out and "--port" in out and "--data" in out


def test_the_page_and_its_options(tmp_path: Path) -> None:
    async def go() -> None:
        with serving(tmp_path) as (base, _app):
            async with aiohttp.ClientSession() as cs:
                async with cs.get(base + "/") as r:
                    html = await r.text()
                    assert r.status == 200 and '<svg id="board"' in html and "default-src 'self'" in \
                        r.headers["Content-Security-Policy"]
                for name in ("app.js", "board.js", "itc_board.js", "svg.js", "social.js", "zoom.js", "lobby.js",
                             "style.css"):  # every script the page loads
                    async with cs.get(f"{base}/static/{name}") as r:
                        assert r.status == 200 and len(await r.text()) > 1000
                async with cs.get(base + "/api/options") as r:
                    opts = await r.json()
                assert opts["presets"][:4] == ["tiny", "small", "medium", "full"]
                assert {"heuristic", "search", "random", "auto"} <= set(opts["bots"])
                assert opts["palette"]["codes"]["exit"] == "EXT"
                assert opts["games"] == {"subterra": "Sub Terra", "itc": "In the Cave"}
                assert opts["difficulties"] == ["easier", "normal", "advanced", "expert"]

    run(go())


def test_every_bot_kind_sits_at_a_table(tmp_path: Path) -> None:
    """The policy seat plays the shipped team (its ONNX export where onnxruntime is installed), beside random and
    heuristic bots, to the end of a tiny game; the record names each."""
    async def go() -> dict:
        with serving(tmp_path) as (base, _app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_table(cs, base, seed=3, seats=["human", "policy", "random", "heuristic"])
                async with cs.ws_connect(f"{base}/ws/{doc['table']}") as ws:
                    await ws.send_json({"type": "join", "seat": 0, "token": doc["seats"][0]["token"]})
                    for _ in range(2000):
                        m = await until_turn(ws)
                        if m["over"]:
                            return doc
                        await ws.send_json({"type": "act", "action": pick(m), "step": m["decisions"]})
        raise AssertionError("the game did not end")

    doc = run(go())
    rec = load_record(tmp_path / "records" / f"{doc['table']}.json")
    replay_record(rec)
    players = [s["player"] for s in rec["seats"]]
    assert players[0] == "human" and players[2:] == ["random", "heuristic"]
    assert players[1].startswith("policy:") and players[1].endswith(("team.onnx", "team.zip"))
    assert {a["player"] for a in rec["actions"]} == set(players)


def test_a_record_replays_in_the_page_step_by_step(tmp_path: Path) -> None:
    """A bots-only table plays out; its record comes back as the page's steps (GET by table, POST as a file), each
    the board after one decision; a changed record is refused naming the step."""
    async def go() -> tuple[dict, dict, dict, list]:
        with serving(tmp_path) as (base, _app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_table(cs, base, seats=["heuristic"] * 4)
                for _ in range(600):
                    async with cs.get(f"{base}/api/tables") as r:
                        if (await r.json())["tables"][0]["over"]:
                            break
                    await asyncio.sleep(0.05)
                async with cs.get(f"{base}/api/replay/{doc['table']}.json") as r:
                    assert r.status == 200
                    by_table = await r.json()
                rec = load_record(tmp_path / "records" / f"{doc['table']}.json")
                async with cs.post(f"{base}/api/replay", json=rec) as r:
                    assert r.status == 200
                    uploaded = await r.json()
                errors = []
                bad = json.loads(json.dumps(rec))
                bad["actions"][3]["action"] = next(a for a in range(90) if a != bad["actions"][3]["action"])
                for url, kw in [("/api/replay", {"json": bad}), ("/api/replay", {"data": "{x"}),
                                ("/api/replay", {"json": {"format": "x"}}),
                                ("/api/replay/..%2Frecords%2Fx.json", {}), ("/api/replay/abc.json", {})]:
                    method = cs.post if url == "/api/replay" else cs.get
                    async with method(base + url, **kw) as r:
                        errors.append((r.status, await r.json()))
                return rec, by_table, uploaded, errors

    rec, by_table, uploaded, errors = run(go())
    assert by_table == uploaded
    n = len(rec["actions"])
    assert by_table["decisions"] == n and len(by_table["steps"]) == n + 1
    last = by_table["steps"][-1]["board"]["team"]
    assert (last["result"], last["escaped"]) == (rec["result"]["name"], rec["result"]["escaped"])
    assert by_table["steps"][0]["events"] == [] and by_table["steps"][1]["events"][0]["text"].startswith(
        f"{rec['actions'][0]['caver']}: ")
    assert all(s["board"]["legal"] == [] for s in by_table["steps"])  # a replay offers no actions
    (s1, e1), (s2, e2), (s3, e3), (s4, e4), (s5, e5) = errors
    assert s1 == 400 and e1["code"] == "bad_record" and "step 3" in e1["message"], e1
    assert s2 == 400 and e2["code"] == "bad_json"
    assert s3 == 400 and e3["code"] == "bad_record" and "not a Sub Terra game record" in e3["message"]
    assert s4 == 400 and e4["code"] == "bad_file_name" and s5 == 400 and e5["code"] == "bad_file_name"


def test_finished_games_are_put_away_and_load_again_when_asked_for(tmp_path: Path, monkeypatch) -> None:
    """A server hosting game after game keeps only the latest finished ones in memory (the files stay); an older
    one loads again from its record when its link is opened, and a restart resumes only games in progress."""
    from subterra_game.web import tables

    monkeypatch.setattr(tables, "KEEP_FINISHED", 1)

    async def go() -> tuple[list[str], list[str], dict, list[str]]:
        with serving(tmp_path) as (base, app):
            async with aiohttp.ClientSession() as cs:
                ids = [(await new_table(cs, base, seed=s, seats=["heuristic"] * 4))["table"] for s in (1, 2, 3)]
                for _ in range(600):
                    if all(t.game.over for t in app[STORE].by_id.values()) and len(app[STORE].by_id) == 1:
                        break
                    await asyncio.sleep(0.05)
                in_memory = list(app[STORE].by_id)
                async with cs.ws_connect(f"{base}/ws/{ids[0]}") as ws:  # the first game, put away: loads again
                    await ws.send_json({"type": "join", "seat": None})
                    first = await next_message(ws, "state")
        with serving(tmp_path) as (base, app):  # a restart: nothing in progress, nothing resumed
            after_restart = list(app[STORE].by_id)
        return ids, in_memory, first, after_restart

    ids, in_memory, first, after_restart = run(go())
    assert in_memory == [ids[2]]
    rec = load_record(tmp_path / "records" / f"{ids[0]}.json")
    assert first["over"] is True and first["decisions"] == len(rec["actions"])
    assert first["board"]["team"]["result"] == rec["result"]["name"]
    assert after_restart == []
