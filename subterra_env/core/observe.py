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
       "horrors", "revealable cell", "explosives sides (bits N=1 E=2 S=4 W=8)")
    + tuple(f"caver {k} health+1" for k in range(MAX_SEATS))
    # scalar planes
    + ("AP left", "exerted", "pending decision", "run steps left", "run steps taken", "pending tile type+1",
       "pending tile shape+1", "pending direction+1", "hazard cards left", "tiles left", "out of time",
       "gas active", "round", "horrors in cave", "ropes left", "last hazard card+1", "exit placed",
       "starting caver offset")
    + tuple(f"caver {k} rank" for k in range(MAX_SEATS))
    + tuple(f"caver {k} hidden" for k in range(MAX_SEATS))
    + tuple(f"caver {k} devoured" for k in range(MAX_SEATS))
    + ("Leader has directed this turn", "acting under Direct")
    + tuple(f"caver {k} under water" for k in range(MAX_SEATS))
    + ("set-aside tile type+1", "set-aside tile shape+1", "Scout redraws left", "explosives left",
       "Scout redrew this placement")
)
NUM_CHANNELS = len(CHANNELS)
_C = {name: i for i, name in enumerate(CHANNELS)}
_TYPE0, _ARROW0, _CAVER0 = _C["type start"], _C["arrow N"], _C["caver 0 health+1"]
_SCALAR0, _RANK0 = _C["AP left"], _C["caver 0 rank"]
_N_SCALARS = _RANK0 - _SCALAR0
_TILE_PLANES = _C["horrors"]  # planes 0.._TILE_PLANES-1 describe the tile in a cell
_TYPES = np.arange(len(TILE_TYPES))
_DIRS = np.arange(4)


def _static_features() -> np.ndarray:
    """Tile planes that depend only on (type, open sides, arrow): one row per combination, looked up per tile."""
    table = np.zeros((len(TILE_TYPES), 16, 5, _TILE_PLANES), dtype=np.int8)
    for t in range(len(TILE_TYPES)):
        for m in range(16):
            for a in range(-1, 4):
                row = table[t, m, a + 1]
                row[0] = 1
                row[1:5] = (m & BIT) != 0
                row[_TYPE0 + t] = 1
                if a >= 0:
                    row[_ARROW0 + a] = 1
    return table.reshape(-1, _TILE_PLANES)


_STATIC = _static_features()
assert _C["caver 0 hidden"] == _RANK0 + MAX_SEATS and _C["caver 0 devoured"] == _RANK0 + 2 * MAX_SEATS


def observe(cat: Catalogue, st: State, seats: np.ndarray, radius: int, out: np.ndarray | None = None,
            centre: np.ndarray | None = None) -> np.ndarray:
    """(B, C, 2R+1, 2R+1) int8 observations of the given seat of every game (written into out if given).

    The window is centred on the observer's tile, or on the tile index ``centre`` per game when given (the global
    state of ``raw_env.state()`` is centred on the start tile, tile 0)."""
    b, s = st.batch_size, st.num_seats
    w = 2 * radius + 1
    if out is None:
        out = np.zeros((b, NUM_CHANNELS, w, w), dtype=np.int8)
    else:
        out[:, :_SCALAR0] = 0  # the scalar planes are overwritten whole below
    games = np.arange(b)
    seats = np.asarray(seats, dtype=np.intp)
    me = np.maximum(st.c_tile[games, seats], 0) if centre is None else np.asarray(centre, dtype=np.intp)
    # (a devoured or diving observer sees from the start tile)
    cx, cy = st.t_x[games, me], st.t_y[games, me]

    # Tiles: one feature row per visible tile, scattered in one write.
    rx = (st.t_x - cx[:, None]).astype(np.intp) + radius
    ry = (st.t_y - cy[:, None]).astype(np.intp) + radius
    seen = (st.t_cat >= 0) & (rx >= 0) & (rx < w) & (ry >= 0) & (ry < w)
    bi, ti = np.nonzero(seen)
    x, y = rx[bi, ti], ry[bi, ti]
    opened = st.t_open[bi, ti]
    tcat = st.t_cat[bi, ti]
    feats = _STATIC[(st.t_type[bi, ti].astype(np.intp) * 16 + opened) * 5 + st.t_arrow[bi, ti] + 1]
    feats[:, _C["flooded"]] = st.t_flood[bi, ti]
    feats[:, _C["rubble"]] = st.t_rubble[bi, ti]
    feats[:, _C["rope"]] = st.t_rope[bi, ti]
    feats[:, _C["cave-in die a"]] = cat.die_a[tcat]
    feats[:, _C["cave-in die b"]] = cat.die_b[tcat]
    out[bi, :_TILE_PLANES, y, x] = feats
    # Revealable cells: beyond an open side, empty (R-CON-4).
    fx, fy = x[:, None] + DX[None, :], y[:, None] + DY[None, :]
    gx, gy = st.t_x[bi, ti][:, None] + DX[None, :], st.t_y[bi, ti][:, None] + DY[None, :]
    free = (feats[:, 1:5] != 0) & (st.grid[bi[:, None], gy, gx] < 0) & (fx >= 0) & (fx < w) & (fy >= 0) & (fy < w)
    fb, fd = np.nonzero(free)
    out[bi[fb], _C["revealable cell"], fy[fb, fd], fx[fb, fd]] = 1
    out[bi, _C["explosives sides (bits N=1 E=2 S=4 W=8)"], y, x] = st.t_blast[bi, ti]

    # Horrors
    ht = st.h_tile.astype(np.intp)
    hb, hs = np.nonzero((ht >= 0) & seen[games[:, None], np.maximum(ht, 0)])
    np.add.at(out, (hb, _C["horrors"], ry[hb, ht[hb, hs]], rx[hb, ht[hb, hs]]), 1)

    # Cavers by relative seat k (k = 0 is the observer).
    others = (seats[:, None] + np.arange(s)[None, :]) % s  # (B, S)
    rows = games[:, None]
    tile = st.c_tile[rows, others].astype(np.intp)
    vis = (tile >= 0) & seen[rows, np.maximum(tile, 0)]
    vb, vk = np.nonzero(vis)
    vt = tile[vb, vk]
    out[vb, _CAVER0 + vk, ry[vb, vt], rx[vb, vt]] = st.c_hp[vb, others[vb, vk]] + 1

    # Scalar planes, one write.
    pend_tile = np.maximum(st.pend_tile, 0)
    pending = st.pend_tile >= 0
    scalars = np.zeros((b, NUM_CHANNELS - _SCALAR0), dtype=np.int8)
    scalars[:, :_N_SCALARS] = np.stack((
        st.ap, st.exerted, st.pend, st.run_left, st.run_taken,
        np.where(pending, cat.tile_type[pend_tile] + 1, 0), np.where(pending, cat.tile_shape[pend_tile] + 1, 0),
        st.pend_dir + 1, (st.deck >= 0).sum(1) - st.deck_pos, st.stack.shape[1] - st.stack_pos, st.out_of_time,
        st.gas_active, np.minimum(st.round, 127), (st.h_tile >= 0).sum(1), st.ropes_left, st.last_card + 1,
        st.exit_tile >= 0, (st.start_seat - seats) % s,
    ), axis=1)
    r0 = _RANK0 - _SCALAR0
    scalars[:, r0:r0 + s] = st.c_rank[rows, others]
    scalars[:, r0 + MAX_SEATS:r0 + MAX_SEATS + s] = st.c_hidden[rows, others]
    scalars[:, r0 + 2 * MAX_SEATS:r0 + 2 * MAX_SEATS + s] = st.c_dead[rows, others]
    scalars[:, _C["Leader has directed this turn"] - _SCALAR0] = st.direct_used
    scalars[:, _C["acting under Direct"] - _SCALAR0] = st.directing >= 0
    u0 = _C["caver 0 under water"] - _SCALAR0
    scalars[:, u0:u0 + s] = st.c_under[rows, others]
    aside = np.maximum(st.aside_tile, 0)
    has_aside = st.aside_tile >= 0
    scalars[:, _C["set-aside tile type+1"] - _SCALAR0] = np.where(has_aside, cat.tile_type[aside] + 1, 0)
    scalars[:, _C["set-aside tile shape+1"] - _SCALAR0] = np.where(has_aside, cat.tile_shape[aside] + 1, 0)
    scalars[:, _C["Scout redraws left"] - _SCALAR0] = st.scout_redraws
    scalars[:, _C["explosives left"] - _SCALAR0] = st.explosives
    scalars[:, _C["Scout redrew this placement"] - _SCALAR0] = st.pend_redrawn
    out[:, _SCALAR0:] = scalars[:, :, None, None]
    return out
