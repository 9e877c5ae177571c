"""Observation tensors: an int8 grid (C, 2R+1, 2R+1) centred on the observing caver.

Cells are relative to the observer (row 0 = north). Seats are relative too: "caver k" is the caver k seats
after the observer in seating order (k = 0 is the observer). Hidden information (the stack order and the
hazard deck order) never enters: only counts do. Scalar features fill whole planes. CHANNELS lists every
plane; its order is the channel order.
"""

from __future__ import annotations

import numpy as np

from ..config import TILE_TYPES
from .catalogue import BIT, DX, DY, Catalogue
from .state import State

MAX_SEATS = 6

CHANNELS: tuple[str, ...] = (
    ("tile", "open N", "open E", "open S", "open W")
    + tuple(f"type {t}" for t in TILE_TYPES)
    + ("flooded", "rubble", "rope", "arrow N", "arrow E", "arrow S", "arrow W", "cave-in die a", "cave-in die b",
       "horrors", "revealable cell")
    + tuple(f"caver {k} health+1" for k in range(MAX_SEATS))
    # scalar planes
    + ("AP left", "exerted", "pending decision", "run steps left", "run steps taken", "pending tile type+1",
       "pending tile shape+1", "pending direction+1", "hazard cards left", "tiles left", "out of time",
       "gas active", "round", "horrors in cave", "ropes left", "last hazard card+1", "exit placed",
       "starting caver offset")
    + tuple(f"caver {k} rank" for k in range(MAX_SEATS))
    + tuple(f"caver {k} hidden" for k in range(MAX_SEATS))
    + tuple(f"caver {k} devoured" for k in range(MAX_SEATS))
)
NUM_CHANNELS = len(CHANNELS)
_C = {name: i for i, name in enumerate(CHANNELS)}
_TYPE0, _ARROW0, _CAVER0 = _C["type start"], _C["arrow N"], _C["caver 0 health+1"]
_SCALAR0, _RANK0, _HIDDEN0, _DEAD0 = _C["AP left"], _C["caver 0 rank"], _C["caver 0 hidden"], _C["caver 0 devoured"]


def observe(cat: Catalogue, st: State, seats: np.ndarray, radius: int, out: np.ndarray | None = None) -> np.ndarray:
    """(B, C, 2R+1, 2R+1) int8 observations of the given seat of every game (written into out if given)."""
    b, s = st.batch_size, st.num_seats
    w = 2 * radius + 1
    if out is None:
        out = np.zeros((b, NUM_CHANNELS, w, w), dtype=np.int8)
    else:
        out[...] = 0
    games = np.arange(b)
    seats = np.asarray(seats, dtype=np.intp)
    me = np.maximum(st.c_tile[games, seats], 0)  # a devoured observer sees from the start tile
    cx, cy = st.t_x[games, me], st.t_y[games, me]

    # Tiles
    rx = (st.t_x - cx[:, None]).astype(np.int32) + radius
    ry = (st.t_y - cy[:, None]).astype(np.int32) + radius
    seen = (st.t_cat >= 0) & (rx >= 0) & (rx < w) & (ry >= 0) & (ry < w)
    bi, ti = np.nonzero(seen)
    x, y = rx[bi, ti], ry[bi, ti]
    out[bi, 0, y, x] = 1
    opened = st.t_open[bi, ti]
    for d in range(4):
        out[bi, 1 + d, y, x] = (opened & BIT[d]) != 0
        out[bi, _ARROW0 + d, y, x] = st.t_arrow[bi, ti] == d
    out[bi, _TYPE0 + st.t_type[bi, ti].astype(np.intp), y, x] = 1
    out[bi, _C["flooded"], y, x] = st.t_flood[bi, ti]
    out[bi, _C["rubble"], y, x] = st.t_rubble[bi, ti]
    out[bi, _C["rope"], y, x] = st.t_rope[bi, ti]
    # Revealable cells: beyond an open side, empty.
    for d in range(4):
        fx, fy = x + DX[d], y + DY[d]
        gx = st.t_x[bi, ti] + DX[d]
        gy = st.t_y[bi, ti] + DY[d]
        free = ((opened & BIT[d]) != 0) & (st.grid[bi, gy, gx] < 0) & (fx >= 0) & (fx < w) & (fy >= 0) & (fy < w)
        out[bi[free], _C["revealable cell"], fy[free], fx[free]] = 1

    # Horrors
    ht = st.h_tile.astype(np.intp)
    hb, hs = np.nonzero((ht >= 0) & seen[games[:, None], np.maximum(ht, 0)])
    np.add.at(out, (hb, _C["horrors"], ry[hb, ht[hb, hs]], rx[hb, ht[hb, hs]]), 1)

    # Cavers by relative seat
    for k in range(s):
        other = (seats + k) % s
        tile = st.c_tile[games, other].astype(np.intp)
        vis = (tile >= 0) & seen[games, np.maximum(tile, 0)]
        v = games[vis]
        t = tile[vis]
        out[v, _CAVER0 + k, ry[v, t], rx[v, t]] = st.c_hp[v, other[vis]] + 1
        out[:, _RANK0 + k] = st.c_rank[games, other][:, None, None]
        out[:, _HIDDEN0 + k] = st.c_hidden[games, other][:, None, None]
        out[:, _DEAD0 + k] = st.c_dead[games, other][:, None, None]

    pend_tile = st.pend_tile.astype(np.intp)
    cards_left = (st.deck >= 0).sum(1) - st.deck_pos
    scalars = (
        st.ap, st.exerted, st.pend, st.run_left, st.run_taken,
        np.where(pend_tile >= 0, cat.tile_type[np.maximum(pend_tile, 0)] + 1, 0),
        np.where(pend_tile >= 0, cat.tile_shape[np.maximum(pend_tile, 0)] + 1, 0),
        st.pend_dir + 1, cards_left, st.stack.shape[1] - st.stack_pos, st.out_of_time, st.gas_active,
        np.minimum(st.round, 127), (st.h_tile >= 0).sum(1), st.ropes_left, st.last_card + 1, st.exit_tile >= 0,
        (st.start_seat - seats) % s,
    )
    for j, v in enumerate(scalars):
        out[:, _SCALAR0 + j] = np.asarray(v).astype(np.int8)[:, None, None]
    return out

