"""The invariant checker of In the Cave: properties every reachable game record must have. ``check(g, config)``
returns the list of violations (empty = fine); tests and the soak run it after every step of random games. The
checks are compiled (``core/audit.py``, a few microseconds a game); this module words what they find.

- token conservation: bank + backpacks + camps + lost = the bank's start, per equipment pile (R-ITC-SET-6);
  exploration tokens held = tokens gone from the tiles (water, photo, squeeze by difficulty); traverse lines =
  ropes on the roped edges (R-ITC-ACT-5); one camera and one raft at most per team, none once lost (SET-7)
- slot limits: backpack (a packed camp covers 2) and camp (R-ITC-SET-7)
- tiles: one tile drawn per tile placed (R-ITC-ACT-1/2), every space reachable from the home base (TILE-1),
  tokens only on water, wonder and squeeze tiles (ACT-3)
- depth consistency: board spaces at 0; every tile at its revealer's depth, +step for a descent (ACT-3); roped
  edges symmetric and only between different depths (ACT-5)
- scores: at the end, the record's scores equal an independent recount (R-ITC-SCORE)
"""

from __future__ import annotations

import numpy as np

from .config import ItcConfig
from .core import audit
from .core import layout as L

DX, DY, OPP = (0, 1, 0, -1), (-1, 0, 1, 0), (2, 3, 0, 1)


def _cells(g: np.ndarray) -> dict[tuple[int, int], int]:
    n = int(g[L.N_TILES])
    return {(int(g[L.TX + t]), int(g[L.TY + t])): t for t in range(n)}


def neighbours(g: np.ndarray | list[int], cells: dict[tuple[int, int], int], t: int) -> list[tuple[int, int]]:
    """(side, tile) of t's connections (R-ITC-TILE-1), recomputed in Python independently of the compiled rules."""
    out = []
    for d in range(4):
        nb = cells.get((int(g[L.TX + t]) + DX[d], int(g[L.TY + t]) + DY[d]), -1)
        if nb < 0:
            continue
        if g[L.TKIND + t] == L.K_BOULDER:
            ok = g[L.TBSIDE + t] == d
        elif g[L.TKIND + nb] == L.K_BOULDER:
            ok = g[L.TBSIDE + nb] == OPP[d]
        else:
            ok = (g[L.TOPEN + t] >> d) & 1 and (g[L.TOPEN + nb] >> OPP[d]) & 1
        if ok:
            out.append((d, nb))
    return out


def check(g: np.ndarray, config: ItcConfig) -> list[str]:
    """The violations of one game's record, as messages (empty = fine)."""
    P = _params(config)
    errs, want = np.zeros((_MAX_ERRS, audit.ERR_COLS), dtype=np.int64), np.zeros(5, dtype=np.int64)
    m = audit.scan(np.ascontiguousarray(g, dtype=np.int32), P, errs, want, *_scratch())
    return [_message(g, config.num_players, row, want) for row in errs[:min(m, _MAX_ERRS)]]


def check_batch(G: np.ndarray, config: ItcConfig, rows: np.ndarray) -> dict[int, list[str]]:
    """``check`` of the games ``rows`` of a batch in one compiled call: {row: messages} of the games that fail."""
    rows = np.asarray(rows, dtype=np.int64)
    counts = np.zeros(len(rows), dtype=np.int64)
    audit.scan_batch(G, _params(config), rows, counts)
    return {int(r): check(G[r], config) for r in rows[counts != 0]}


_MAX_ERRS = 1024  # more than any record can break (6 checks a tile, a few a seat)
_PARAMS: dict[int, tuple[ItcConfig, np.ndarray]] = {}


def _params(config: ItcConfig) -> np.ndarray:
    """config.params(), kept per config object (hashing a config costs more than the whole check)."""
    if id(config) not in _PARAMS or _PARAMS[id(config)][0] is not config:
        _PARAMS[id(config)] = (config, config.params())
    return _PARAMS[id(config)][1]


def _scratch() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """links, cell keys, cell values for audit.scan."""
    return (np.zeros((L.T_MAX, 4), dtype=np.int64), np.zeros(audit.SLOTS, dtype=np.int64),
            np.zeros(audit.SLOTS, dtype=np.int64))


_BANKS = ("consumables", "ropes", "oxygen")


def _message(g: np.ndarray, seats: int, row: np.ndarray, want: np.ndarray) -> str:
    """The words of one violation row of audit.scan."""
    code, a, b, c, d = (int(v) for v in row)
    if code == audit.BANK_SUM:
        return f"{_BANKS[a]}: bank + held + lost = {b}, expected {c}"
    if code == audit.BANK_NEG:
        return f"{_BANKS[a]}: limited bank below 0"
    if code == audit.BACKPACK:
        return f"seat {a}: backpack uses {b} > {c} slots"
    if code == audit.CAMP_FULL:
        return f"seat {a}: camp holds {b} > {c}"
    if code == audit.EQUIP:
        return f"seat {a}: {L.EQUIP_NAMES[b]} count {c}, lost {d}"
    if code == audit.GONE_CAMP:
        return f"seat {a}: an abandoned camp holds tokens"
    if code == audit.PAWN:
        return f"seat {a}: pawn on tile {b}"
    if code == audit.TILE_COUNT:
        return f"{a} tiles on the table after {b} draws (placing: {bool(c)})"
    if code == audit.DISCONNECTED:
        return f"{a} tiles not connected to the home base"
    if code == audit.BOARD_DEPTH:
        return f"board space {a} at depth {b}"
    if code == audit.NO_PARENT:
        return f"tile {a} ({L.KIND_NAMES[b]}) at depth {c}: no neighbour it was revealed from"
    if code == audit.TOKEN:
        return f"tile {a} ({L.KIND_NAMES[b]}) holds a token"
    if code == audit.ROPE_ONE_SIDED:
        return f"rope on tile {a} side {b} not on both tiles"
    if code == audit.ROPE_SAME_DEPTH:
        return f"rope between tiles {a} and {b} of the same depth"
    if code == audit.EXPLORE:
        return f"{('water', 'photo')[a]} tokens held {b} != taken from tiles {c}"
    if code == audit.SQUEEZE:
        return f"squeeze {a} tokens held {b} != taken from tiles {c}"
    if code == audit.TRAVERSE:
        return f"traverse lines {a} != ropes on roped edges {b}"
    return f"scores {list(g[L.SCORE:L.SCORE + seats])} != recount {[int(v) for v in want[:seats]]}"
