"""The browser table's defects of issue 42, each through the real server on loopback: a scenario action sent by a
person, deeply nested JSON, the size limit in bytes, invalid UTF-8, the title and the lobby after a restart, what
the page shows after the end, seat names, In the Cave's button labels, abandoned tables."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

aiohttp = pytest.importorskip("aiohttp", reason="the browser table needs the web extra: pip install -e '.[web]'")

from web_client import new_itc_table, new_table, next_message, serving, table_state, until_turn

from subterra_game.play import main as subterra_main
from subterra_game.web.server import STORE

NESTED = "[" * 2000 + "]" * 2000  # 4,000 bytes: under the size limit, past Python's JSON recursion limit


def run(coro):
    return asyncio.run(coro)


async def wait_over(cs, base: str, table: str) -> None:
    for _ in range(1200):
        async with cs.get(f"{base}/api/tables") as r:
            if any(t["table"] == table and t["over"] for t in (await r.json())["tables"]):
                return
        await asyncio.sleep(0.05)
    raise AssertionError(f"table {table} did not finish")


def test_a_person_places_a_bomb_at_an_annihilation_table(tmp_path: Path) -> None:
    """Scenario actions have ids past the base game's 90 ("place bomb" is 90): the table's own count decides."""
    async def go() -> tuple[dict, dict]:
        with serving(tmp_path) as (base, app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_table(cs, base, preset="annihilation", seed=4)
                tid = doc["table"]
                async with cs.ws_connect(f"{base}/ws/{tid}") as ws:
                    await ws.send_json({"type": "join", "seat": 0, "token": doc["seats"][0]["token"]})
                    for _ in range(300):
                        m = await until_turn(ws)
                        assert not m["over"], "the game ended before the person could place a bomb"
                        ids = {a["id"]: a["name"] for a in m["board"]["legal"]}
                        if 90 in ids:
                            assert ids[90] == "place bomb"
                            await ws.send_json({"type": "act", "action": 90, "step": m["decisions"]})
                            after = await ws.receive_json(timeout=60)
                            return m, after
                        session = app[STORE].get(tid).game.session  # the person thinks as the heuristic
                        action = int(session.bots[1].act(session.env, 0))
                        await ws.send_json({"type": "act", "action": action, "step": m["decisions"]})
        raise AssertionError("place bomb never came")

    before, after = run(go())
    assert after["type"] == "state", after
    assert after["decisions"] == before["decisions"] + 1
    assert sum(t["bomb"] for t in after["board"]["tiles"]) == sum(t["bomb"] for t in before["board"]["tiles"]) + 1


def test_nested_huge_and_non_utf8_messages_are_answered_in_words(tmp_path: Path) -> None:
    async def go() -> None:
        with serving(tmp_path) as (base, app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_table(cs, base, seats=["human"] * 4)
                tid, tok = doc["table"], doc["seats"][0]["token"]
                before = table_state(app, tid)
                async with cs.ws_connect(f"{base}/ws/{tid}") as ws:
                    await ws.send_str(NESTED)
                    err = await next_message(ws, "error")
                    assert err["code"] == "bad_json" and "nested too deeply" in err["message"], err
                    text = '{"type": "delay", "pad": "' + "\u00e9" * 3000 + '"}'  # 3,028 characters
                    await ws.send_str(text)
                    err = await next_message(ws, "error")
                    assert err == {"type": "error", "code": "too_large",
                                   "message": "message of 6028 bytes is over the limit of 4096"}, err
                    await ws.send_frame(b'{"type": "join", \xff\xfe}', aiohttp.WSMsgType.TEXT)
                    err = await next_message(ws, "error")
                    assert err["code"] == "bad_utf8" and "not valid UTF-8 text (byte 17" in err["message"], err
                    await ws.send_json({"type": "join", "seat": 0, "token": tok})  # the connection is still there
                    assert (await next_message(ws, "state"))["you"] == 0
                for url in ("/api/tables", "/api/replay"):
                    async with cs.post(base + url, data=NESTED, headers={"Content-Type": "application/json"}) as r:
                        body = await r.json()
                        assert r.status == 400 and body["code"] == "bad_json", (url, r.status, body)
                        assert "nested too deeply" in body["message"]
                async with cs.post(f"{base}/api/tables", json={"game": [1], "seats": ["human"] * 4}) as r:
                    assert r.status == 400 and (await r.json())["code"] == "bad_table"
                assert table_state(app, tid) == before

    run(go())


def test_a_restart_keeps_the_caves_name_and_finished_games_stay_in_the_lobby(tmp_path: Path) -> None:
    async def first() -> tuple[dict, str, str]:
        with serving(tmp_path) as (base, _app):
            async with aiohttp.ClientSession() as cs:
                live = await new_table(cs, base, preset="small", seed=21)
                done = await new_table(cs, base, seed=2, seats=["heuristic"] * 4)
                await wait_over(cs, base, done["table"])
                async with cs.get(f"{base}/api/tables") as r:
                    titles = {t["table"]: t["title"] for t in (await r.json())["tables"]}
                return live, done["table"], titles[live["table"]]

    async def second(live: dict) -> tuple[dict, list]:
        with serving(tmp_path) as (base, _app):
            async with aiohttp.ClientSession() as cs:
                async with cs.ws_connect(f"{base}/ws/{live['table']}") as ws:
                    await ws.send_json({"type": "join", "seat": None})
                    m = await next_message(ws, "state")
                async with cs.get(f"{base}/api/tables") as r:
                    return m, (await r.json())["tables"]

    live, done_id, title = run(first())
    m, tables = run(second(live))
    assert title == "seed 21 · small · normal · 4 cavers"
    assert m["title"] == title
    listed = {t["table"]: t for t in tables}
    assert set(listed) == {live["table"], done_id}
    assert listed[done_id]["over"] is True and listed[done_id]["title"] == "seed 2 · tiny · normal · 4 cavers"
    assert listed[live["table"]]["over"] is False


def test_after_the_end_no_warning_a_defeat_in_red_and_events_keep_their_numbers(tmp_path: Path) -> None:
    """Random bots on the tiny cave, seed 0: a defeat after Out of Time came (the warning goes with the end)."""
    async def go() -> dict:
        with serving(tmp_path) as (base, _app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_table(cs, base, seed=0, seats=["random"] * 4)
                await wait_over(cs, base, doc["table"])
                async with cs.ws_connect(f"{base}/ws/{doc['table']}") as ws:
                    await ws.send_json({"type": "join", "seat": None})
                    return await next_message(ws, "state")

    m = run(go())
    team = m["board"]["team"]
    assert m["over"] is True and team["result"] == "defeat"
    assert team["warnings"] == []
    assert m["events"][-1]["kind"] == "defeat" and m["events"][-1]["text"].startswith("game over: defeat")
    assert [e["kind"] for e in m["events"] if e["text"].startswith("GAME OVER: DEFEAT")] == ["defeat"]
    assert len(m["events"]) == 40 and m["events_first"] > 1  # the kept lines are the last 40 of many


def test_people_are_named_by_their_seat_and_the_leader_in_words(tmp_path: Path) -> None:
    async def go() -> dict:
        with serving(tmp_path) as (base, _app):
            async with aiohttp.ClientSession() as cs:
                return await new_table(cs, base, seats=["human", "heuristic", "human:ann", "human"])

    from subterra_game.narrate import status_words  # new with issue 42 (imported here: the test fails, not the file)

    doc = run(go())
    assert [s["player"] for s in doc["seats"]] == ["person at seat 0", "heuristic", "ann", "person at seat 3"]
    assert status_words(["scout redraws 1", "leader directed no", "leader directed yes"]) == [
        "scout redraws 1", "Leader: may still direct one caver this turn", "Leader: has directed a caver this turn"]


def test_in_the_caves_buttons_are_words(tmp_path: Path) -> None:
    from subterra_game.web.itc_view import action_label  # new with issue 42

    assert action_label("camp_take_consumable") == "camp: take consumable"
    assert action_label("pack_done") == "done packing"
    assert action_label("place_W_r3") == "place it west, turned 270\u00b0"

    async def go() -> dict:
        with serving(tmp_path) as (base, _app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_itc_table(cs, base)
                async with cs.ws_connect(f"{base}/ws/{doc['table']}") as ws:
                    await ws.send_json({"type": "join", "seat": 0, "token": doc["seats"][0]["token"]})
                    return await until_turn(ws)

    m = run(go())
    labels = [a["label"] for a in m["board"]["legal"]]
    assert labels and all("_" not in x for x in labels), labels


def test_abandoned_tables_expire_and_are_not_replayed_on_start(tmp_path: Path) -> None:
    async def make() -> str:
        with serving(tmp_path) as (base, _app):
            async with aiohttp.ClientSession() as cs:
                return (await new_table(cs, base))["table"]

    tid = run(make())
    old = time.time() - 20 * 86400
    for p in (tmp_path / "tables" / f"{tid}.json", tmp_path / "records" / f"{tid}.json"):
        os.utime(p, (old, old))
    with serving(tmp_path) as (_base, app):
        assert list(app[STORE].by_id) == [] and app[STORE].listing() == []
    assert sorted(p.name for p in (tmp_path / "expired").iterdir()) == [f"{tid}.records.json", f"{tid}.tables.json"]
    assert not (tmp_path / "tables" / f"{tid}.json").exists()

    tid2 = run(make())  # in memory: expired by the sweep once idle past the limit
    with serving(tmp_path) as (_base, app):
        store = app[STORE]
        assert store.expire_idle(time.monotonic()) == []
        assert store.expire_idle(time.monotonic() + store.expire_s + 1) == [tid2]
        assert tid2 not in store.by_id


def test_subterra_help_lists_every_command(capsys) -> None:
    assert subterra_main(["--help"]) == 0
    out = capsys.readouterr().out
    head = out.split("\n\n")[0].splitlines()
    assert head[0] == "subterra COMMAND ...   commands:"
    assert [line.split()[0] for line in head[1:5]] == ["play", "replay", "serve", "itc"]
