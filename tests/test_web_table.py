"""The browser table's pace and its people (issue 42): forced and free bot decisions without the delay, "skip to my
turn", bots' intent lines (the search's best two actions with their values), a hint, presence, a seat handed over
to a bot, a rematch. Through the real server on loopback."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

aiohttp = pytest.importorskip("aiohttp", reason="the browser table needs the web extra: pip install -e '.[web]'")

from web_client import new_table, next_message, serving, until_turn

from subterra_game.records import load_record, replay_record
from subterra_game.web import tables
from subterra_game.web.server import STORE

# every line the heuristic's intent may take (agents/heuristic/intent.py), then the search's values
INTENT = re.compile(r"(to the exit(, \d+ tiles?)?|exploring (north|east|south|west)|walking to the unexplored cave|"
                    r"ending the turn|safe on the exit|placing the new tile|exerting for one more action|"
                    r"hiding from the horror|healing (himself|the \w+)|bandaging the \w+|directing the \w+|"
                    r"repelling the horror \w+|going to revive the \w+(, \d+ tiles?)?|[\w ]+ to clear the way|"
                    r"diving( toward the exit)?|placing a bomb|carrying a bomb to its tile(, \d+ tiles?)?|"
                    r"(handing a card to|taking the card of) the \w+)")
PAIRS = r"[a-zA-Z0-9 ]+ [+-]\d\.\d\d(, [a-zA-Z0-9 ]+ [+-]\d\.\d\d)?( \(kept [a-zA-Z0-9 ]+: no clear gain\))?"
VALUES = re.compile(" · best: " + PAIRS)


def run(coro):
    return asyncio.run(coro)


def pick(m: dict) -> int:
    legal = m["board"]["legal"]
    return next((a for a in legal if a["name"] != "end turn"), legal[0])["id"]


async def all_over(app) -> None:
    for _ in range(2400):
        if all(t.game.over for t in app[STORE].by_id.values()):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the bots did not finish")


def test_forced_and_free_bot_decisions_play_without_the_delay(tmp_path: Path, monkeypatch) -> None:
    """A bots-only table at a 5 s pace: the pause (recorded, not slept) comes before exactly the decisions worth
    watching, never an 'end turn' or a forced one, and at each pause the page already has the bot's intent."""
    paused: list[tuple[int, dict]] = []

    async def pause(self, seconds: float) -> None:
        assert seconds == 5.0
        paused.append((self.decisions, self.game.intents()))

    monkeypatch.setattr(tables.Table, "_pause", pause)

    async def go() -> str:
        with serving(tmp_path) as (base, app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_table(cs, base, seed=3, seats=["heuristic"] * 4, delay=5)
                await all_over(app)
                return doc["table"]

    tid = run(go())
    rec = load_record(tmp_path / "records" / f"{tid}.json")
    rep = replay_record(rec)
    core = rep.env.core
    names = [a["name"] for a in rec["actions"]]
    forced = {i for i in range(len(names)) if int(core.legal_mask(rep.states[i])[0].sum()) == 1}
    watched = {d for d in range(len(names)) if names[d] != "end turn" and d not in forced}
    assert forced and "end turn" in names
    assert [d for d, _ in paused] == sorted(watched)
    for d, intents in paused:
        assert INTENT.fullmatch(intents[rec["actions"][d]["seat"]]), intents


def test_skip_to_my_turn_and_the_bots_intents(tmp_path: Path) -> None:
    """At a 10 s pace the bots would take minutes to come round; after "skip" they play on at once. While they
    pause, the state tells each bot's intent."""
    async def go() -> tuple[dict, dict, dict]:
        with serving(tmp_path) as (base, _app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_table(cs, base, seed=5, delay=10)
                async with cs.ws_connect(f"{base}/ws/{doc['table']}") as ws:
                    await ws.send_json({"type": "join", "seat": 0, "token": doc["seats"][0]["token"]})
                    m = await until_turn(ws)
                    while m["actor"] == 0:  # the person's turn to its end
                        await ws.send_json({"type": "act", "action": pick(m), "step": m["decisions"]})
                        m = await next_message(ws, "state")
                    explained = m
                    while not explained["intents"]:
                        explained = await next_message(ws, "state")
                    await ws.send_json({"type": "skip"})
                    skipping = await next_message(ws, "state")
                    back = await until_turn(ws, timeout=60)
                    return explained, skipping, back

    explained, skipping, back = run(go())
    seat = str(explained["actor"])
    assert seat != "0" and INTENT.fullmatch(explained["intents"][seat]), explained["intents"]
    assert skipping["skipping"] is True
    assert back["actor"] == 0 and back["skipping"] is False and not back["over"]


def test_a_hint_and_the_search_bots_values(tmp_path: Path) -> None:
    async def go() -> tuple[dict, dict, dict]:
        with serving(tmp_path) as (base, _app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_table(cs, base, seed=2, seats=["human", "search", "heuristic", "heuristic"])
                async with cs.ws_connect(f"{base}/ws/{doc['table']}") as ws:
                    await ws.send_json({"type": "join", "seat": 0, "token": doc["seats"][0]["token"]})
                    m = await until_turn(ws)
                    await ws.send_json({"type": "hint"})
                    h = await next_message(ws, "hint")
                    seen = m
                    while not VALUES.search(seen["intents"].get("1", "")):
                        if seen["actor"] == 0 and not seen["over"]:
                            await ws.send_json({"type": "act", "action": pick(seen), "step": seen["decisions"]})
                        seen = await next_message(ws, "state", timeout=120)
                        assert not seen["over"]
                    return m, h, seen

    m, h, seen = run(go())
    assert h["bot"] == "search" and h["step"] == m["decisions"]
    assert h["action"] in {a["id"] for a in m["board"]["legal"]}
    assert h["name"] == next(a["name"] for a in m["board"]["legal"] if a["id"] == h["action"])
    why, _, values = h["why"].partition(" · search values (cavers out over the heuristic's choice): ")
    assert INTENT.fullmatch(why), h["why"]
    assert values == "" and h["why"].endswith("the only sensible choice") or re.fullmatch(PAIRS, values), h["why"]
    line = seen["intents"]["1"]
    assert INTENT.fullmatch(VALUES.split(line)[0]) and VALUES.search(line).end() == len(line), line


def test_presence_and_a_seat_handed_over_by_the_creator(tmp_path: Path) -> None:
    async def go() -> tuple[list, dict, dict, dict, dict]:
        with serving(tmp_path) as (base, _app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_table(cs, base, seats=["human", "human", "heuristic", "heuristic"])
                tid, tok = doc["table"], {s["seat"]: s["token"] for s in doc["seats"] if "token" in s}
                seen = []
                async with cs.ws_connect(f"{base}/ws/{tid}") as ws0:
                    await ws0.send_json({"type": "join", "seat": 0, "token": tok[0]})
                    first = await next_message(ws0, "state")
                    seen.append(first["present"])
                    async with cs.ws_connect(f"{base}/ws/{tid}") as ws1:
                        await ws1.send_json({"type": "join", "seat": 1, "token": tok[1]})
                        seen.append((await next_message(ws0, "presence"))["present"])
                        await ws1.send_json({"type": "handover", "seat": 0})
                        refused = await next_message(ws1, "error")
                        await ws0.send_json({"type": "handover", "seat": 1})
                        busy = await next_message(ws0, "error")
                    seen.append((await next_message(ws0, "presence"))["present"])
                    await ws0.send_json({"type": "handover", "seat": 1})
                    m = await next_message(ws0, "state")
                    async with cs.ws_connect(f"{base}/ws/{tid}") as ws1:  # the old link no longer plays
                        await ws1.send_json({"type": "join", "seat": 1, "token": tok[1]})
                        gone = await next_message(ws1, "error")
                assert first["creator"] == 0
                return seen, refused, busy, m, gone

    seen, refused, busy, m, gone = run(go())
    assert seen == [[0], [0, 1], [0]]
    assert refused["code"] == "not_creator" and "(seat 0)" in refused["message"]
    assert busy["code"] == "seat_taken"
    assert m["seats"][1]["human"] is False and m["seats"][1]["player"] == "heuristic (for person at seat 1)"
    assert "is played by the heuristic from now on" in m["events"][-1]["text"]
    assert gone["code"] == "bad_seat" and "played by a bot" in gone["message"]
    rec = load_record(next((tmp_path / "records").glob("*.json")))
    assert [s["player"] for s in rec["seats"]] == ["human", "heuristic", "heuristic", "heuristic"]
    replay_record(rec)  # the record with the handed-over seat replays to its hash
    with serving(tmp_path) as (_base, app):  # and the table resumes with the bot in that seat
        (table,) = app[STORE].by_id.values()
        assert table.game.human(0) and not table.game.human(1) and sorted(table.tokens) == [0]


def test_a_rematch_gives_each_person_their_new_seat(tmp_path: Path) -> None:
    """A person and random bots (they lose fast); after the end the person asks for a rematch and gets a link to
    the same seat at a new table with the same settings."""
    async def go() -> tuple[dict, dict, dict, dict]:
        with serving(tmp_path) as (base, _app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_table(cs, base, seed=0, seats=["human", "random", "random", "random"])
                async with cs.ws_connect(f"{base}/ws/{doc['table']}") as ws:
                    await ws.send_json({"type": "join", "seat": 0, "token": doc["seats"][0]["token"]})
                    m = await until_turn(ws)
                    await ws.send_json({"type": "rematch"})
                    early = await next_message(ws, "error")
                    while not m["over"]:
                        end = next(a["id"] for a in m["board"]["legal"] if a["name"] == "end turn")
                        await ws.send_json({"type": "act", "action": end, "step": m["decisions"]})
                        m = await until_turn(ws)
                    await ws.send_json({"type": "rematch"})
                    link = await next_message(ws, "rematch")
                    after = await next_message(ws, "state")
                token = link["link"].split("token=")[1]
                async with cs.ws_connect(f"{base}/ws/{link['table']}") as ws:
                    await ws.send_json({"type": "join", "seat": 0, "token": token})
                    new = await next_message(ws, "state")
                return early, link, after, new

    early, link, after, new = run(go())
    assert early["code"] == "not_over"
    assert link["seat"] == 0 and link["link"].startswith(f"/table/{link['table']}#seat=0&token=")
    assert after["next"] == link["table"]
    assert new["you"] == 0 and new["decisions"] == 0 and not new["over"]
    assert [s["player"] for s in new["seats"]] == ["you", "random", "random", "random"]
    assert " · tiny · normal · 4 cavers" in new["title"]
