"""Fuzzing the browser table's websocket protocol on loopback: nested, huge, non-UTF-8, wrong-typed and random
messages, a bounded number of them from a fixed seed. Every one is answered (an error naming the problem, or the
state), the connection stays open and the game is as it was."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

aiohttp = pytest.importorskip("aiohttp", reason="the browser table needs the web extra: pip install -e '.[web]'")

from web_client import new_table, next_message, serving, table_state

MESSAGES = 300  # bounded: about two seconds on loopback
TYPES = ["join", "act", "delay", "shout", "", None, 1, [], {}]


def value(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value of any type (small nested ones included)."""
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1, 89, 90, 153, 154, 2**31, -2**63, 10**30, rng.randrange(-1000, 1000)])
    if kind == 3:
        return rng.choice([0.5, -0.0, 1e308, 3.25, float(rng.randrange(100))])
    if kind in (4, 5):
        return "".join(rng.choice("aé\u2603\ud83d\ude00 \"\\{}[]") for _ in range(rng.randrange(12)))
    if kind in (6, 7):
        return [value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(["type", "seat", "token", "action", "step", "seconds", "x"]): value(rng, depth + 1)
            for _ in range(rng.randrange(4))}


def message(rng: random.Random, step: int, token: str) -> tuple[str, str | bytes]:
    """(how it is sent, what): text or a raw text frame's bytes; never one that could change the game (an act
    always names a decision that is not now: 'stale' at worst)."""
    kind = rng.randrange(7)
    if kind == 0:  # nested arrays or objects, up to the size limit
        n = rng.randrange(1, 2000)
        return "text", ("[" * n + "]" * n) if rng.random() < 0.5 else ('{"a":' * n + "1" + "}" * n)
    if kind == 1:  # huge: past 4 KiB (in bytes), under aiohttp's own 64 KiB close
        return "text", json.dumps({"type": "act", "pad": rng.choice("xé") * rng.randrange(2100, 30000)},
                                  ensure_ascii=False)
    if kind == 2:  # not UTF-8 in a text frame
        return "frame", bytes(rng.randrange(128, 256) for _ in range(rng.randrange(1, 40)))
    if kind == 3:  # the right keys, wrong types
        msg = {"type": rng.choice(["join", "act", "delay"]), "seat": value(rng), "token": value(rng),
               "action": value(rng), "step": value(rng), "seconds": value(rng)}
        if msg["type"] == "act" and isinstance(msg["step"], int) and not isinstance(msg["step"], bool):
            msg["step"] = step + 1 + abs(msg["step"]) % 1000
        return "text", json.dumps(msg)
    if kind == 4:  # a join: a wrong token, or the right one (then the state comes back)
        return "text", json.dumps({"type": "join", "seat": rng.choice([0, 1, 2, 3, 4, 5, None]),
                                   "token": rng.choice([token, "x", ""])})
    if kind == 5:  # random JSON of any shape
        return "text", json.dumps(value(rng))
    return "text", "".join(rng.choice('{}[]":,1aé\\ ') for _ in range(rng.randrange(1, 60)))  # not JSON mostly


def test_the_protocol_survives_fuzzing(tmp_path: Path) -> None:
    async def go() -> tuple[dict[str, int], tuple, tuple]:
        rng = random.Random(42)
        with serving(tmp_path) as (base, app):
            async with aiohttp.ClientSession() as cs:
                doc = await new_table(cs, base, seats=["human"] * 4)  # no bots: nothing moves but us
                tid, tok = doc["table"], doc["seats"][0]["token"]
                before = table_state(app, tid)
                answers: dict[str, int] = {}
                async with cs.ws_connect(f"{base}/ws/{tid}") as ws:
                    await ws.send_json({"type": "join", "seat": 0, "token": tok})
                    await next_message(ws, "state")
                    for _ in range(MESSAGES):
                        how, what = message(rng, before[0], tok)
                        if how == "frame":
                            await ws.send_frame(what, aiohttp.WSMsgType.TEXT)
                        else:
                            await ws.send_str(what)
                        reply = await ws.receive_json(timeout=30)  # one answer per message, never a close
                        key = reply.get("code", reply["type"])
                        answers[key] = answers.get(key, 0) + 1
                    assert not ws.closed
                    await ws.send_json({"type": "join", "seat": 0, "token": tok})
                    m = await next_message(ws, "state")
                    await ws.send_json({"type": "act", "action": m["board"]["legal"][0]["id"], "step": m["decisions"]})
                    after = await next_message(ws, "state")
                    assert after["decisions"] == before[0] + 1  # the game goes on as before
                return answers, before, table_state(app, tid)

    answers, before, after = asyncio.run(go())
    assert "server_error" not in answers, answers
    assert {"bad_json", "too_large", "bad_utf8", "bad_message"} <= set(answers), answers
    assert sum(answers.values()) == MESSAGES
    assert after[0] == before[0] + 1
