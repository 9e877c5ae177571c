"""Observation v1: an int8 grid (C, 2R+1, 2R+1) centred on the observing caver, and an int8 scalar vector.

Cells are relative to the observer (row 0 = north). Seats are relative too: "caver k" is the caver k seats
after the observer in seating order (k = 0 is the observer). Hidden information (the stack order and the
hazard deck order) never enters: only counts do.

The grid holds what differs from cell to cell (tiles, markers, horrors, cavers); the scalars hold the rest (the
turn, counts, who is who), once each rather than as constant planes. ``GRID_CHANNELS`` and ``SCALARS`` name every
entry; their order is the tensor order. Each section below writes one block and the offsets are asserted.
Version history: v0 (env ``subterra_v0``) put the 49 scalars into constant planes of the grid: (83, W, W).
"""

from __future__ import annotations

import numpy as np

from ..config import TILE_TYPES
from .catalogue import BIT, DX, DY, Catalogue
from .state import State

MAX_SEATS = 6

TILE_CHANNELS: tuple[str, ...] = (
    ("tile", "open N", "open E", "open S", "open W")
    + tuple(f"type {t}" for t in TILE_TYPES)
    + ("flooded", "rubble", "rope", "arrow N", "arrow E", "arrow S", "arrow W", "cave-in die a", "cave-in die b")
)
GRID_CHANNELS: tuple[str, ...] = (
    TILE_CHANNELS
    + ("horrors", "revealable cell", "explosives sides (bits N=1 E=2 S=4 W=8)")
    + tuple(f"caver {k} health+1" for k in range(MAX_SEATS))
)
TURN_SCALARS: tuple[str, ...] = (
    "AP left", "exerted", "pending decision", "run steps left", "run steps taken", "pending tile type+1",
    "pending tile shape+1", "pending direction+1", "hazard cards left", "tiles left", "out of time",
    "gas active", "round", "horrors in cave", "ropes left", "last hazard card+1", "exit placed",
    "starting caver offset",
)
SEAT_SCALARS: tuple[str, ...] = (
    tuple(f"caver {k} rank" for k in range(MAX_SEATS))
    + tuple(f"caver {k} hidden" for k in range(MAX_SEATS))
    + tuple(f"caver {k} devoured" for k in range(MAX_SEATS))
)
ABILITY_SCALARS: tuple[str, ...] = (
    ("Leader has directed this turn", "acting under Direct")
    + tuple(f"caver {k} under water" for k in range(MAX_SEATS))
    + ("set-aside tile type+1", "set-aside tile shape+1", "Scout redraws left", "explosives left",
       "Scout redrew this placement")
)
SCALARS: tuple[str, ...] = TURN_SCALARS + SEAT_SCALARS + ABILITY_SCALARS
NUM_GRID_CHANNELS, NUM_SCALARS = len(GRID_CHANNELS), len(SCALARS)
_C = {name: i for i, name in enumerate(GRID_CHANNELS)}
_S = {name: i for i, name in enumerate(SCALARS)}
_TILE_PLANES = len(TILE_CHANNELS)  # planes 0.._TILE_PLANES-1 describe the tile in a cell
_CAVER0 = _C["caver 0 health+1"]
assert (NUM_GRID_CHANNELS, NUM_SCALARS) == (34, 49) and _TILE_PLANES == _C["horrors"]
assert _S["caver 0 rank"] == len(TURN_SCALARS) and _S["Leader has directed this turn"] == len(TURN_SCALARS) + 18


def _static_features() -> np.ndarray:
    """Tile planes that depend only on (type, open sides, arrow): one row per combination, looked up per tile."""
    table = np.zeros((len(TILE_TYPES), 16, 5, _TILE_PLANES), dtype=np.int8)
    for t in range(len(TILE_TYPES)):
        for m in range(16):
            for a in range(-1, 4):
                row = table[t, m, a + 1]
                row[0] = 1
                row[1:5] = (m & BIT) != 0
                row[_C["type start"] + t] = 1
                if a >= 0:
                    row[_C["arrow N"] + a] = 1
    return table.reshape(-1, _TILE_PLANES)


_STATIC = _static_features()


def observe(cat: Catalogue, st: State, seats: np.ndarray, radius: int, grid_out: np.ndarray | None = None,
            scalars_out: np.ndarray | None = None, centre: np.ndarray | None = None,
            ) -> tuple[np.ndarray, np.ndarray]:
    """(grid (B, 34, 2R+1, 2R+1), scalars (B, 49)) int8 observations of the given seat of every game.

    Written into ``grid_out`` / ``scalars_out`` when given. The window is centred on the observer's tile, or on
    the tile index ``centre`` per game when given (the global ``raw_env.state()`` is centred on the start tile)."""
    b, w = st.batch_size, 2 * radius + 1
    if grid_out is None:
        grid_out = np.zeros((b, NUM_GRID_CHANNELS, w, w), dtype=np.int8)
    else:
        grid_out[...] = 0
    if scalars_out is None:
        scalars_out = np.zeros((b, NUM_SCALARS), dtype=np.int8)
    seats = np.asarray(seats, dtype=np.intp)
    games = np.arange(b)
    me = np.maximum(st.c_tile[games, seats], 0) if centre is None else np.asarray(centre, dtype=np.intp)
    # (a devoured or diving observer sees from the start tile)
    rx = (st.t_x - st.t_x[games, me][:, None]).astype(np.intp) + radius  # (B, T) window column of each tile
    ry = (st.t_y - st.t_y[games, me][:, None]).astype(np.intp) + radius
    seen = (st.t_cat >= 0) & (rx >= 0) & (rx < w) & (ry >= 0) & (ry < w)
    others = (seats[:, None] + np.arange(st.num_seats)[None, :]) % st.num_seats  # (B, S) seat of caver k
    _write_tiles(cat, st, grid_out, rx, ry, seen, w)
    _write_horrors(st, grid_out, rx, ry, seen)
    _write_cavers(st, grid_out, rx, ry, seen, others)
    _write_turn_scalars(cat, st, scalars_out, seats)
    _write_seat_scalars(st, scalars_out, others)
    _write_ability_scalars(cat, st, scalars_out, others)
    return grid_out, scalars_out


def _write_tiles(cat: Catalogue, st: State, out: np.ndarray, rx: np.ndarray, ry: np.ndarray, seen: np.ndarray,
                 w: int) -> None:
    """Channels "tile" .. "cave-in die b", "revealable cell" and "explosives sides": one row per visible tile."""
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


def _write_horrors(st: State, out: np.ndarray, rx: np.ndarray, ry: np.ndarray, seen: np.ndarray) -> None:
    """Channel "horrors": the number of horrors on each visible tile."""
    ht = st.h_tile.astype(np.intp)
    games = np.arange(st.batch_size)
    hb, hs = np.nonzero((ht >= 0) & seen[games[:, None], np.maximum(ht, 0)])
    np.add.at(out, (hb, _C["horrors"], ry[hb, ht[hb, hs]], rx[hb, ht[hb, hs]]), 1)


def _write_cavers(st: State, out: np.ndarray, rx: np.ndarray, ry: np.ndarray, seen: np.ndarray,
                  others: np.ndarray) -> None:
    """Channels "caver k health+1": caver k (k seats after the observer) stands here, with this health + 1."""
    rows = np.arange(st.batch_size)[:, None]
    tile = st.c_tile[rows, others].astype(np.intp)
    vb, vk = np.nonzero((tile >= 0) & seen[rows, np.maximum(tile, 0)])
    vt = tile[vb, vk]
    out[vb, _CAVER0 + vk, ry[vb, vt], rx[vb, vt]] = st.c_hp[vb, others[vb, vk]] + 1


def _write_turn_scalars(cat: Catalogue, st: State, out: np.ndarray, seats: np.ndarray) -> None:
    """Scalars "AP left" .. "starting caver offset" (TURN_SCALARS)."""
    pend_tile = np.maximum(st.pend_tile, 0)
    pending = st.pend_tile >= 0
    out[:, :len(TURN_SCALARS)] = np.stack((
        st.ap, st.exerted, st.pend, st.run_left, st.run_taken,
        np.where(pending, cat.tile_type[pend_tile] + 1, 0), np.where(pending, cat.tile_shape[pend_tile] + 1, 0),
        st.pend_dir + 1, (st.deck >= 0).sum(1) - st.deck_pos, st.stack.shape[1] - st.stack_pos, st.out_of_time,
        st.gas_active, np.minimum(st.round, 127), (st.h_tile >= 0).sum(1), st.ropes_left, st.last_card + 1,
        st.exit_tile >= 0, (st.start_seat - seats) % st.num_seats,
    ), axis=1)


def _write_seat_scalars(st: State, out: np.ndarray, others: np.ndarray) -> None:
    """Scalars "caver k rank" / "hidden" / "devoured" (SEAT_SCALARS); 0 where the table has no seat k."""
    rows, s = np.arange(st.batch_size)[:, None], st.num_seats
    r0 = _S["caver 0 rank"]
    out[:, r0:r0 + 3 * MAX_SEATS] = 0
    out[:, r0:r0 + s] = st.c_rank[rows, others]
    out[:, r0 + MAX_SEATS:r0 + MAX_SEATS + s] = st.c_hidden[rows, others]
    out[:, r0 + 2 * MAX_SEATS:r0 + 2 * MAX_SEATS + s] = st.c_dead[rows, others]


def _write_ability_scalars(cat: Catalogue, st: State, out: np.ndarray, others: np.ndarray) -> None:
    """Scalars "Leader has directed this turn" .. "Scout redrew this placement" (ABILITY_SCALARS)."""
    rows, s = np.arange(st.batch_size)[:, None], st.num_seats
    out[:, _S["Leader has directed this turn"]] = st.direct_used
    out[:, _S["acting under Direct"]] = st.directing >= 0
    u0 = _S["caver 0 under water"]
    out[:, u0:u0 + MAX_SEATS] = 0
    out[:, u0:u0 + s] = st.c_under[rows, others]
    aside = np.maximum(st.aside_tile, 0)
    has_aside = st.aside_tile >= 0
    out[:, _S["set-aside tile type+1"]] = np.where(has_aside, cat.tile_type[aside] + 1, 0)
    out[:, _S["set-aside tile shape+1"]] = np.where(has_aside, cat.tile_shape[aside] + 1, 0)
    out[:, _S["Scout redraws left"]] = st.scout_redraws
    out[:, _S["explosives left"]] = st.explosives
    out[:, _S["Scout redrew this placement"]] = st.pend_redrawn


def split_state(flat: np.ndarray, radius: int) -> tuple[np.ndarray, np.ndarray]:
    """The (grid, scalars) of a flat ``raw_env.state()`` vector (or a batch of them) with window ``radius``."""
    w = 2 * radius + 1
    n = NUM_GRID_CHANNELS * w * w
    flat = np.asarray(flat)
    return flat[..., :n].reshape(*flat.shape[:-1], NUM_GRID_CHANNELS, w, w), flat[..., n:]
