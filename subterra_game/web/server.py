"""``subterra serve``: the browser table (aiohttp: HTTP, the websocket and the static page in one small stack).

    subterra serve                       # http://127.0.0.1:8765/ ; tables kept in ./subterra-tables
    subterra serve --port 8000 --data ~/subterra --delay 0.3
    subterra serve --host 0.0.0.0        # open it to the network (people at other machines join by link)

Routes: ``/`` and ``/table/ID`` the page; ``/static/*`` its script and style; ``POST /api/tables`` a new table
(JSON: preset, num_cavers, difficulty, seed, seats, delay; ``"game": "itc"`` an In the Cave table: preset,
num_players, seed, seats, delay); ``GET /api/tables`` the tables here;
``GET /api/records/ID.json`` a table's game record; ``/replay/ID.json`` the page replaying it (``GET
/api/replay/ID.json`` its steps; ``POST /api/replay`` a record file's steps); ``/ws/ID`` the table's websocket
(``protocol``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from aiohttp import WSCloseCode, WSMsgType, web

from subterra_env.config import DIFFICULTIES, LEARNABLE_PRESETS, PRESETS
from subterra_env.games.in_the_cave.config import PRESETS as ITC_PRESETS
from ..records import RecordError
from subterra_env.palette import CAVER_COLOURS, FLOOD_COLOUR, TYPE_CODES, TYPE_COLOURS
from .itc_view import palette as itc_palette
from .protocol import (BOT_KINDS, GAMES, ITC_BOT_KINDS, MAX_MESSAGE_BYTES, ClientError, check_record_name, loads,
                       parse_message, parse_table_request)
from . import social
from .replay import replay_views
from .view import TILE_RULES
from .tables import Table, TableStore

log = logging.getLogger("subterra.web")
STATIC = resources.files("subterra_game.web") / "static"
MAX_RECORD_BYTES = 2 * 1024 * 1024  # a full game's record is about 150 KB
STORE: web.AppKey[TableStore] = web.AppKey("store", TableStore)
CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'"


def _error(e: ClientError, status: int = 400) -> web.Response:
    return web.json_response(e.to_json(), status=status)


async def page(request: web.Request) -> web.Response:
    text = (STATIC / "index.html").read_text()
    return web.Response(text=text, content_type="text/html", headers={"Content-Security-Policy": CSP,
                                                                      "Cache-Control": "no-cache"})


async def static(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    types = {"app.js": "application/javascript", "board.js": "application/javascript",
             "social.js": "application/javascript", "zoom.js": "application/javascript",
             "lobby.js": "application/javascript",
             "itc_board.js": "application/javascript", "svg.js": "application/javascript", "style.css": "text/css"}
    if name not in types:  # a fixed list: no path from a client ever reaches the file system
        return _error(ClientError("not_found", f"no static file {name[:60]!r}"), 404)
    return web.Response(text=(STATIC / name).read_text(), content_type=types[name],
                        headers={"Cache-Control": "no-cache"})


async def options(request: web.Request) -> web.Response:
    """What the new-table form offers."""
    store = request.app[STORE]
    kinds = [k for k in BOT_KINDS if k != "policy" or store.policy.is_file()]
    palette = {"types": TYPE_COLOURS, "codes": TYPE_CODES, "cavers": CAVER_COLOURS, "flood": FLOOD_COLOUR,
               "rules": TILE_RULES}
    itc = {"presets": list(ITC_PRESETS), "bots": list(ITC_BOT_KINDS), "palette": itc_palette()}
    return web.json_response({"presets": list(LEARNABLE_PRESETS) + [p for p in PRESETS if p not in LEARNABLE_PRESETS],
                              "difficulties": list(DIFFICULTIES), "bots": kinds, "palette": palette,
                              "games": GAMES, "itc": itc})


async def new_table(request: web.Request) -> web.Response:
    try:
        if (request.content_length or 0) > MAX_MESSAGE_BYTES * 4:
            raise ClientError("too_large", f"a new table's settings fit in {MAX_MESSAGE_BYTES * 4} bytes")
        body = loads(await request.read(), "new table (a JSON object)")
        req = parse_table_request(body)
        table, tokens = await asyncio.to_thread(request.app[STORE].create, req)
    except ClientError as e:
        return _error(e)
    table.kick()
    seats = [{k: v for k, v in s.items() if k != "human"} | ({"token": tokens[i], "link": f"/table/{table.id}#seat={i}"
              f"&token={tokens[i]}"} if i in tokens else {}) for i, s in enumerate(table.game.seats())]
    return web.json_response({"table": table.id, "game": table.game.kind, "link": f"/table/{table.id}",
                              "seed": table.game.seed, "seats": seats}, status=201)


async def replay_table(request: web.Request) -> web.Response:
    """A table's record of this server, step by step for the page (``replay.replay_views``)."""
    store = request.app[STORE]
    try:
        name = check_record_name(request.match_info["name"])
        store.get(name[:-5]).check_record_public()
        try:
            doc = json.loads((store.records / name).read_text())
        except (OSError, ValueError) as e:
            raise RecordError(f"{name}: cannot read the record: {e}") from None
        return web.json_response(await asyncio.to_thread(replay_views, doc, name))
    except ClientError as e:
        return _error(e, {"no_table": 404, "hidden": 403}.get(e.code, 400))
    except RecordError as e:
        return _error(ClientError("bad_record", str(e)))


async def replay_upload(request: web.Request) -> web.Response:
    """A record sent by the page (a file the person picked): checked, replayed, step by step."""
    try:
        doc = loads(await request.read(), "record")
        return web.json_response(await asyncio.to_thread(replay_views, doc, "the uploaded record"))
    except ClientError as e:
        return _error(e)
    except RecordError as e:
        return _error(ClientError("bad_record", str(e)))


async def list_tables(request: web.Request) -> web.Response:
    """The tables in memory: games in progress and the latest finished ones."""
    return web.json_response({"tables": request.app[STORE].listing()})


async def record(request: web.Request) -> web.Response:
    store = request.app[STORE]
    try:
        name = check_record_name(request.match_info["name"])
        store.get(name[:-5]).check_record_public()  # only a table of this server: never any other file
    except ClientError as e:
        return _error(e, {"no_table": 404, "hidden": 403}.get(e.code, 400))
    return web.FileResponse(store.records / name, headers={"Content-Disposition": f"attachment; filename={name}"})


async def socket(request: web.Request) -> web.WebSocketResponse:
    """One browser at one table: join (a seat with its token, or watch), then act / set the bots' delay."""
    # aiohttp closes a connection past 64 KiB by itself; below that parse_message answers in words
    # decode_text=False: text arrives as bytes, so invalid UTF-8 is answered in words (parse_message), not by a
    # bare close 1007
    ws = web.WebSocketResponse(max_msg_size=64 * 1024, heartbeat=30, decode_text=False)
    await ws.prepare(request)
    try:
        table: Table | None = request.app[STORE].get(request.match_info["table"])
    except ClientError as e:
        await ws.send_json(e.to_json())
        await ws.close()
        return ws
    seat: int | None = None
    joined = False
    try:
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                if msg.type == WSMsgType.BINARY:
                    await ws.send_json(ClientError("bad_message", "send text (JSON), not binary").to_json())
                continue
            try:
                m = parse_message(msg.data)
                if m["type"] == "join":
                    if m.get("seat") is not None:
                        table.check_token(m["seat"], m["token"])
                    was = table.present()
                    seat, joined = m.get("seat"), True
                    table.listeners[ws] = seat
                    await ws.send_json({**table.view(seat), "you": seat})
                    if table.present() != was:  # the others see who is at the table
                        await table.tell_presence(exclude=ws)
                elif not joined:
                    raise ClientError("not_joined", "send join first (your seat and its token, or seat null)")
                elif m["type"] == "act":
                    await table.act(seat, m["action"], m["step"])
                elif m["type"] == "delay":
                    if seat is None:
                        raise ClientError("not_seated", "only a person at the table sets the bots' pace")
                    table.delay = float(m["seconds"])
                    table.save_meta()
                    await table.broadcast()
                elif m["type"] == "skip":
                    table.skip(seat)
                    await table.broadcast()
                elif m["type"] == "hint":
                    await ws.send_json(await social.hint(table, seat))
                elif m["type"] == "handover":
                    await social.hand_over(table, seat, m["seat"])
                elif m["type"] == "rematch":
                    await social.rematch(table, seat)
            except ClientError as e:
                await ws.send_json(e.to_json())
            except Exception as e:  # a fault of ours: said and logged; the connection and the game stay
                log.exception("table %s: a message failed", table.id)
                await ws.send_json({"type": "error", "code": "server_error",
                                    "message": f"the server failed on this message ({type(e).__name__}); the game "
                                    "is unchanged"})
    finally:
        was = table.present()
        table.listeners.pop(ws, None)
        if table.present() != was:
            await table.tell_presence()
    return ws


SWEEP_S = 3600.0  # how often games in progress are checked for abandonment (tables.EXPIRE_DAYS)


def make_app(data: str | Path, policy: str | Path | None = None, resume: bool = True,
             expire_days: float | None = None) -> web.Application:
    app = web.Application(client_max_size=MAX_RECORD_BYTES)  # the largest body: an uploaded record
    store = TableStore(data, policy)
    if expire_days is not None:
        store.expire_s = expire_days * 86400.0
    app[STORE] = store
    sweeper: list[asyncio.Task] = []

    async def sweep() -> None:
        while True:
            await asyncio.sleep(SWEEP_S)
            store.expire_idle()

    async def on_start(app: web.Application) -> None:
        if resume:
            tables = await asyncio.to_thread(store.resume_all)
            for t in tables:
                t.kick()
            if tables:
                log.warning("resumed %d table(s) from %s", len(tables), store.data)
        sweeper.append(asyncio.get_running_loop().create_task(sweep()))

    async def on_stop(app: web.Application) -> None:
        for task in sweeper:
            task.cancel()
        for t in store.by_id.values():
            if t.driver is not None:
                t.driver.cancel()
            for ws in list(t.listeners):  # else the server waits for every open page before it stops
                await ws.close(code=WSCloseCode.GOING_AWAY, message=b"the server is stopping")

    app.on_startup.append(on_start)
    app.on_shutdown.append(on_stop)
    app.add_routes([web.get("/", page), web.get("/table/{table}", page), web.get("/replay/{name}", page),
                    web.get("/static/{name}", static), web.get("/api/options", options),
                    web.post("/api/tables", new_table), web.get("/api/tables", list_tables),
                    web.get("/api/records/{name}", record), web.get("/api/replay/{name}", replay_table),
                    web.post("/api/replay", replay_upload), web.get("/ws/{table}", socket)])
    return app


def serve_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="subterra serve", description="Play Sub Terra or In the Cave in the browser: "
                                "people and bots at one table; each person's seat has its own link.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine "
                   "only; 0.0.0.0 opens it to the network)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    p.add_argument("--data", default="subterra-tables", help="folder for tables and game records (default "
                   "./subterra-tables); games in progress there are resumed on start")
    p.add_argument("--policy", help="the checkpoint that 'policy' seats play (default: the shipped team, its ONNX "
                   "export where onnxruntime is installed)")
    p.add_argument("--expire-days", type=float, default=None, help="a game in progress that nobody has played or "
                   "watched for this many days is put aside in DATA/expired and never resumed again (default 14)")
    p.add_argument("--open", action="store_true", help="open the page in this machine's web browser")
    return p


def serve_main(argv: Sequence[str]) -> int:
    args = serve_parser().parse_args(list(argv))
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    app = make_app(args.data, args.policy, expire_days=args.expire_days)
    print(f"Sub Terra and In the Cave tables: http://{args.host}:{args.port}/   (Ctrl-C stops; tables are kept in {args.data})",
          flush=True)

    def started(_: str) -> None:  # aiohttp calls this once the server listens
        if args.open:
            import webbrowser

            host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
            webbrowser.open(f"http://{host}:{args.port}/")

    web.run_app(app, host=args.host, port=args.port, print=started)
    return 0
