"""What people at a table ask of it beyond their moves: a hint for their seat, a rematch, a seat handed over to a
bot for a person who left (the table's creator decides). Each checks who asks and changes the game only through
its ``games`` face (``hint``, ``hand_over``), under the table's lock.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..narrate import Event
from .protocol import ClientError, parse_table_request
from .tables import Table


async def hint(table: Table, seat: int | None) -> dict[str, Any]:
    """What the strongest bot here would do in ``seat``'s place now, and why (for that person only)."""
    if seat is None:
        raise ClientError("not_seated", "you are watching this table: hints are for the person to act")
    async with table.lock:
        g = table.game
        if g.over:
            raise ClientError("game_over", "the game is over: no more decisions")
        g.check_turn(seat)
        out = await asyncio.to_thread(g.hint, seat)
        return {"type": "hint", "step": table.decisions, **out}


async def hand_over(table: Table, by: int | None, seat: int) -> None:
    """The creator gives the seat of a person who is not at the table to the heuristic bot."""
    if by is None or by != table.creator:
        who = f"seat {table.creator}" if table.creator is not None else "nobody here"
        raise ClientError("not_creator", f"only the table's creator ({who}) hands a seat to a bot")
    async with table.lock:
        g = table.game
        if g.over:
            raise ClientError("game_over", "the game is over: no seat to hand over")
        if seat >= len(g.labels):
            raise ClientError("bad_seat", f"seat {seat} does not exist at this table (seats 0..{len(g.labels) - 1})")
        if seat in table.present():
            raise ClientError("seat_taken", f"seat {seat}'s person is at the table: only a seat left empty is "
                              "handed over")
        was = g.labels[seat]
        label = g.hand_over(seat)
        table.tokens.pop(seat, None)  # the old link no longer plays
        table.save()
        table.save_meta()
        table.note([Event("info", f"seat {seat} ({was}) is played by the heuristic from now on: {label}")])
    await table.changed()


async def rematch(table: Table, seat: int | None) -> dict[str, Any]:
    """After the end: a new table with the same settings and seats (a new seed); the people connected now get
    their seats' links (``{"type": "rematch", ...}``), everyone the new table's id in the state (``next``)."""
    if seat is None:
        raise ClientError("not_seated", "only a person at the table asks for a rematch")
    if not table.game.over:
        raise ClientError("not_over", "a rematch starts once this game is over")
    if table.request is None:
        raise ClientError("no_rematch", "this table was made before rematches were kept: start a new table")
    async with table.lock:
        if table.next_table is None:
            req = parse_table_request({**table.request, "seed": None})
            new, tokens = await asyncio.to_thread(table.store.create, req)
            new.kick()
            table.next_table, table.next_tokens = new.id, tokens
            table.save_meta()
            table.note([Event("info", f"rematch: table {new.id}")])
    nid = table.next_table
    for ws, s in list(table.listeners.items()):
        if s is not None and s in table.next_tokens:
            tok = table.next_tokens[s]
            try:
                await ws.send_json({"type": "rematch", "table": nid, "seat": s,
                                    "link": f"/table/{nid}#seat={s}&token={tok}"})
            except (ConnectionError, RuntimeError):
                pass
    await table.broadcast()
    return {"table": nid}
