"""Helpers for the browser-table tests: a server on loopback (in this process) and a scripted websocket client."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

aiohttp = pytest.importorskip("aiohttp", reason="the browser table needs the web extra: pip install -e '.[web]'")

from aiohttp import web

from subterra_game.web.server import STORE, make_app

TINY_SEATS = ["human", "heuristic", "heuristic", "heuristic"]


@contextmanager
def serving(data: Path) -> Iterator[tuple[str, web.Application]]:
    """``subterra serve`` on 127.0.0.1 and a free port, in a thread of this process; yields (base URL, app)."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)  # the server's own loop: tests may run theirs
    thread.start()

    def call(coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, loop).result(120)

    app = make_app(data)
    runner = web.AppRunner(app)
    call(runner.setup())
    call(web.TCPSite(runner, "127.0.0.1", 0).start())
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        call(runner.cleanup())
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def table_state(app: web.Application, table_id: str) -> tuple[int, str]:
    """(decisions so far, hash of the game's State): what must not change after bad input."""
    t = app[STORE].get(table_id)
    return t.decisions, t.game.state_hash()


async def new_table(cs: Any, base: str, **body: Any) -> dict[str, Any]:
    body = {"preset": "tiny", "seed": 7, "seats": TINY_SEATS, "delay": 0, **body}
    async with cs.post(f"{base}/api/tables", json=body) as r:
        doc = await r.json()
        assert r.status == 201, doc
        return doc


async def new_itc_table(cs: Any, base: str, **body: Any) -> dict[str, Any]:
    """An In the Cave table: by default 2 teams, a person and the heuristic, seed 7, no bot delay."""
    body = {"game": "itc", "preset": "default", "seed": 7, "seats": ["human", "heuristic"], "delay": 0, **body}
    async with cs.post(f"{base}/api/tables", json=body) as r:
        doc = await r.json()
        assert r.status == 201, doc
        return doc


async def until_turn(ws: Any, seat: int | None = None, timeout: float = 120) -> dict[str, Any]:
    """The next state in which ``seat`` (default: the joined seat) is to act, or the game is over."""
    while True:
        m = await ws.receive_json(timeout=timeout)
        if m["type"] == "presence":  # who is at the table: not a turn
            continue
        assert m["type"] == "state", m
        you = m["you"] if seat is None else seat
        if m["over"] or m["actor"] == you:
            return m


async def next_message(ws: Any, kind: str, timeout: float = 60) -> dict[str, Any]:
    while True:
        m = await ws.receive_json(timeout=timeout)
        if m["type"] == kind:
            return m


async def expect_refused(ws: Any, payload: Any, code: str, contains: str, app: web.Application, table_id: str,
                         before: tuple[int, str]) -> None:
    """Send ``payload`` (a JSON object, or raw text); the server must answer with error ``code`` whose message
    holds ``contains``, and the table must be as ``before`` (``table_state``)."""
    await (ws.send_str(payload) if isinstance(payload, str) else ws.send_json(payload))
    err = await next_message(ws, "error")
    assert err["code"] == code and contains in err["message"], err
    assert table_state(app, table_id) == before
