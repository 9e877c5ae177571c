"""The cave as a tile graph: placing tiles, connections (R-CON), the dead-end rule (R-CON-4), distances.

Every function works on the games `g` (an index array into the batch) and writes the state in place.
"""

from __future__ import annotations

import numpy as np

from .catalogue import BIT, DX, DY, OPPOSITE, POPCOUNT, ROT_MASK, T_EXIT, T_LEDGE, T_SLIDE, Catalogue
from .state import P_NONE, State

FAR = np.int8(99)  # distance meaning "beyond any range"


def cell_of(st: State, g: np.ndarray, tile: np.ndarray, d: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
    """Grid cell beyond side d of the given tiles."""
    return st.t_x[g, tile] + DX[d], st.t_y[g, tile] + DY[d]


def neighbours_of_cell(st: State, g: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(n, 4) tile index in each direction of the cells, -1 = empty."""
    return st.grid[g[:, None], y[:, None] + DY[None, :], x[:, None] + DX[None, :]]


def open_toward_cell(st: State, g: np.ndarray, nb: np.ndarray) -> np.ndarray:
    """(n, 4) bool: the neighbour in direction d has an open side facing back toward the cell."""
    opens = st.t_open[g[:, None], np.maximum(nb, 0)]
    return (nb >= 0) & ((opens & BIT[OPPOSITE]) != 0)


def blasted_toward_cell(st: State, g: np.ndarray, nb: np.ndarray) -> np.ndarray:
    """(n, 4) bool: the neighbour in direction d has an explosives token on its side facing the cell."""
    blasts = st.t_blast[g[:, None], np.maximum(nb, 0)]
    return (nb >= 0) & ((blasts & BIT[OPPOSITE]) != 0)


def place(cat: Catalogue, st: State, g: np.ndarray, cat_id: np.ndarray, x: np.ndarray, y: np.ndarray,
          rot: np.ndarray) -> np.ndarray:
    """Put catalogue tiles on empty cells; returns their tile indices. Connections follow R-CON-1."""
    i = st.n_tiles[g].astype(np.intp)
    ttype = cat.tile_type[cat_id]
    nb = neighbours_of_cell(st, g, x, y)
    back = open_toward_cell(st, g, nb)
    blasted = blasted_toward_cell(st, g, nb)  # explosives facing this cell open the new tile's side (R-CAV-4)
    blast_bits = (blasted * BIT[None, :]).sum(1).astype(np.uint8)
    opened = ROT_MASK[cat.tile_mask[cat_id], rot] | blast_bits
    st.t_blast[g, i] = blast_bits
    st.t_cat[g, i] = cat_id
    st.t_type[g, i] = ttype
    st.t_x[g, i], st.t_y[g, i] = x, y
    st.t_open[g, i] = opened
    st.t_arrow[g, i] = np.where((ttype == T_LEDGE) | (ttype == T_SLIDE), rot, -1)
    st.grid[g, y, x] = i
    mine = (opened[:, None] & BIT[None, :]) != 0
    connected = mine & back
    for d in range(4):
        c = np.nonzero(connected[:, d])[0]
        st.t_nbr[g[c], i[c], d] = nb[c, d]
        st.t_nbr[g[c], nb[c, d], OPPOSITE[d]] = i[c]
    # Open sides of the cave: the new tile's open sides facing empty cells, less the sides that faced this cell.
    st.open_sides[g] += (mine & (nb < 0)).sum(1) - back.sum(1)
    st.n_tiles[g] += 1
    st.exit_tile[g] = np.where(ttype == T_EXIT, i, st.exit_tile[g])
    return i


def legal_rotations(cat: Catalogue, st: State, g: np.ndarray, cat_id: np.ndarray, x: np.ndarray, y: np.ndarray,
                    d: np.ndarray, never_discard_exit: bool) -> np.ndarray:
    """Bitmask of rotations to offer for placing cat_id at (x, y), revealed from the tile beyond side OPPOSITE[d].

    A rotation must open toward the revealer; ledges and slides point their arrow away (rotation = d);
    identical orientations are offered once (the lowest rotation); rotations that would leave the cave with no
    open side are withheld while another keeps it open (R-CON-4). 0 means the tile must be discarded.
    """
    nb = neighbours_of_cell(st, g, x, y)
    back = open_toward_cell(st, g, nb)
    base_open = st.open_sides[g] - back.sum(1)
    empty_bits = ((nb < 0) * BIT[None, :]).sum(1).astype(np.uint8)
    ttype = cat.tile_type[cat_id]
    fixed = (ttype == T_LEDGE) | (ttype == T_SLIDE)
    masks = ROT_MASK[cat.tile_mask[cat_id]]  # (n, 4)
    # Through an explosives token any rotation connects (R-CAV-4 [default]).
    through_token = blasted_toward_cell(st, g, nb)[np.arange(len(g)), OPPOSITE[d]]
    ok = ((masks & BIT[OPPOSITE[d]][:, None]) != 0) | through_token[:, None]
    ok &= ~fixed[:, None] | (np.arange(4)[None, :] == d[:, None])
    for r in range(1, 4):  # drop duplicates of an earlier rotation
        dup = np.zeros(len(g), dtype=bool)
        for q in range(r):
            dup |= masks[:, q] == masks[:, r]
        ok[:, r] &= ~dup | fixed
    stays_open = (base_open[:, None] + POPCOUNT[masks & empty_bits[:, None]]) > 0
    keep = ok & stays_open
    use_keep = keep.any(1) | ~(never_discard_exit & (ttype == T_EXIT))
    chosen = np.where(use_keep[:, None], keep, ok)
    return (chosen * BIT[None, :]).sum(1).astype(np.uint8)


def draw_for_reveal(cat: Catalogue, st: State, g: np.ndarray, never_discard_exit: bool) -> None:
    """Draw the top tile for the pending reveal of games g, discarding dead ends (R-CON-4).

    Sets pend_tile and pend_rots; a game whose stack runs out while discarding gets pend_tile = -1.
    """
    todo = g
    st.pend_tile[g], st.pend_rots[g] = -1, 0
    while len(todo):
        todo = todo[st.stack_pos[todo] < st.stack.shape[1]]  # an empty stack leaves pend_tile at -1
        if not len(todo):
            break
        cat_id = st.stack[todo, st.stack_pos[todo]].astype(np.intp)
        st.stack_pos[todo] += 1
        rots = rotations_for(cat, st, todo, cat_id, never_discard_exit)
        st.pend_tile[todo] = cat_id
        st.pend_rots[todo] = rots
        todo = todo[rots == 0]
    st.pend_tile[g] = np.where(st.pend_rots[g] == 0, -1, st.pend_tile[g])


def rotations_for(cat: Catalogue, st: State, g: np.ndarray, cat_id: np.ndarray, never_discard_exit: bool) -> np.ndarray:
    """Legal rotations for placing cat_id by the acting caver through the pending side (0 = must discard)."""
    tile = actor_tile(st, g)
    d = st.pend_dir[g].astype(np.intp)
    x, y = cell_of(st, g, tile, d)
    return legal_rotations(cat, st, g, cat_id, x, y, d, never_discard_exit)


def actor_tile(st: State, g: np.ndarray) -> np.ndarray:
    return st.c_tile[g, st.actor[g]].astype(np.intp)


def distances_from(st: State, g: np.ndarray, sources: np.ndarray, max_steps: int) -> np.ndarray:
    """(n, K, T') steps from each source tile (n, K) to every tile through connected edges (R-CON-2).

    Sources of -1 give FAR everywhere; tiles beyond max_steps are FAR. T' = the largest tile count in g.
    """
    n, k = sources.shape
    t = int(st.n_tiles[g].max()) if n else 1
    dist = np.full((n, k, t + 1), FAR, dtype=np.int8)  # column t is the "no tile" sink for -1 neighbours
    rows = np.nonzero(sources >= 0)
    dist[rows[0], rows[1], sources[rows]] = 0
    nbr = st.t_nbr[g, :t].astype(np.intp)
    nbr[nbr < 0] = t
    flat = nbr.reshape(n, 1, t * 4)
    for _ in range(max_steps):
        around = np.take_along_axis(dist, np.broadcast_to(flat, (n, k, t * 4)), axis=2).reshape(n, k, t, 4)
        step = np.minimum(around.min(3), FAR - 1) + 1
        np.minimum(dist[:, :, :t], step, out=dist[:, :, :t])
        dist[:, :, t] = FAR
    return dist[:, :, :t]


def relink(st: State, g: np.ndarray) -> None:
    """Rebuild grid, connections and the open-side count of games g from their tile arrays (scenarios, checks)."""
    for b in g:
        n = int(st.n_tiles[b])
        st.grid[b] = -1
        st.t_nbr[b] = -1
        st.grid[b, st.t_y[b, :n], st.t_x[b, :n]] = np.arange(n)
        nx = st.t_x[b, :n, None] + DX[None, :]
        ny = st.t_y[b, :n, None] + DY[None, :]
        nb = st.grid[b, ny, nx]  # (n, 4)
        mine = (st.t_open[b, :n, None] & BIT[None, :]) != 0
        theirs = (st.t_open[b, np.maximum(nb, 0)] & BIT[OPPOSITE][None, :]) != 0
        st.t_nbr[b, :n] = np.where(mine & theirs & (nb >= 0), nb, -1)
        st.open_sides[b] = int((mine & (nb < 0)).sum())
