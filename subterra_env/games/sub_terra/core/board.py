"""The cave as a tile graph: placing tiles, connections (R-CON), the dead-end rule (R-CON-4), distances.

Compiled per-game functions. Conventions in every compiled module: ``g`` is one game's packed record (see
``state.py``) and ``P`` the config record (``params.py``); functions change ``g`` in place and allocate nothing
unless a docstring says so. Which tile lies in a grid cell is looked up in the record's cell index
(``tile_at``), a hash table that ``place`` fills.
"""

from __future__ import annotations

import numpy as np

from .catalogue import BIT, DX, DY, OPPOSITE, POPCOUNT, ROT_MASK, SC_ANNIHILATION, T_BOMB, T_EXIT, T_ITEM, T_LEDGE, T_SLIDE
from .events import E_DISCARD, E_DRAW, R_CLOSED, R_REVEAL, log
from .jit import jit
from .rng import cell_hash
from .state import CELL_SLOTS, MAX_TILES, State

FAR = 99  # distance meaning "beyond any range"
NO_TILE = -1


@jit
def actor_tile(g):
    """Tile of the acting caver (-1 under water)."""
    return g.c_tile[g.actor]


@jit
def cell_slot(x, y):
    """The first slot of the cell index to probe for cell (x, y) (the hash both games share)."""
    return cell_hash(x, y, CELL_SLOTS)


@jit
def tile_at(g, x, y):
    """Tile index in cell (x, y), -1 = empty cell (linear probing from cell_slot; tiles are never removed)."""
    i = cell_slot(x, y)
    while g.cells[i] >= 0:
        t = g.cells[i]
        if g.t_x[t] == x and g.t_y[t] == y:
            return t
        i = (i + 1) & (CELL_SLOTS - 1)
    return -1


@jit
def index_cell(g, t):
    """Enter tile t (its cell in t_x, t_y) into the cell index."""
    i = cell_slot(g.t_x[t], g.t_y[t])
    while g.cells[i] >= 0:
        i = (i + 1) & (CELL_SLOTS - 1)
    g.cells[i] = t


@jit
def in_zone(g, P, x, y):
    """R-ANN-2: the empty cell (x, y) is in Annihilation's no-placement zone: one of the 8 cells around the exit,
    except those across an open side of the start tile. No tile is placed there and a side facing it is not an
    open side (R-CON-4)."""
    e = g.exit_tile
    if P.scenario != SC_ANNIHILATION or e < 0:
        return False
    dx, dy = x - g.t_x[e], y - g.t_y[e]
    return -1 <= dx <= 1 and -1 <= dy <= 1 and not open_beside_start(g, x, y)


@jit
def open_beside_start(g, x, y):
    """The cell is across an open side of the start tile (tile 0): R-ANN-2 leaves such cells outside the zone."""
    for d in range(4):
        if (g.t_open[0] & BIT[d]) != 0 and g.t_x[0] + DX[d] == x and g.t_y[0] + DY[d] == y:
            return True
    return False


@jit
def free_cell(g, P, x, y):
    """A tile may be placed in cell (x, y): it is empty and not barred (R-ANN-2)."""
    return tile_at(g, x, y) < 0 and not in_zone(g, P, x, y)


@jit
def tile_beyond(g, tile, d):
    """Tile index in the cell beyond side d of a tile, -1 = empty cell."""
    return tile_at(g, g.t_x[tile] + DX[d], g.t_y[tile] + DY[d])


@jit
def faces_back(g, nb, d):
    """The neighbour nb (in direction d of a cell) has an open side facing back toward the cell."""
    return nb >= 0 and (g.t_open[nb] & BIT[OPPOSITE[d]]) != 0


@jit
def blasted_back(g, nb, d):
    """The neighbour nb (in direction d of a cell) has an explosives token on its side facing the cell."""
    return nb >= 0 and (g.t_blast[nb] & BIT[OPPOSITE[d]]) != 0


@jit
def place(g, P, cat_id, x, y, rot):
    """Put a catalogue tile on the empty cell (x, y) turned rot; returns its tile index (R-CON-1).

    Explosives tokens facing the cell open the new tile's side toward them (R-CAV-4)."""
    i = g.n_tiles
    ttype = P.tile_type[cat_id]
    blast = 0
    for d in range(4):
        if blasted_back(g, tile_at(g, x + DX[d], y + DY[d]), d):
            blast |= BIT[d]
    opened = ROT_MASK[P.tile_mask[cat_id], rot] | blast
    g.t_blast[i] = blast
    g.t_cat[i] = cat_id
    g.t_type[i] = ttype
    g.t_x[i] = x
    g.t_y[i] = y
    g.t_open[i] = opened
    g.t_arrow[i] = rot if ttype == T_LEDGE or ttype == T_SLIDE else -1
    index_cell(g, i)
    # Open sides of the cave: the new tile's open sides facing empty cells, less the sides that faced this cell.
    change = 0
    for d in range(4):
        nb = tile_at(g, x + DX[d], y + DY[d])
        mine = (opened & BIT[d]) != 0
        back = faces_back(g, nb, d)
        if mine and back:
            g.t_nbr[i, d] = nb
            g.t_nbr[nb, OPPOSITE[d]] = i
        if mine and nb < 0 and not in_zone(g, P, x + DX[d], y + DY[d]):
            change += 1
        if back:
            change -= 1
    g.open_sides += change
    g.n_tiles += 1
    if ttype == T_EXIT:
        g.exit_tile = i
    if ttype == T_ITEM:  # R-INV-4: a newly placed item tile gets an item token
        g.t_item[i] = 1
    return i


@jit
def legal_rotations(g, P, cat_id, x, y, d):
    """Bitmask of rotations to offer for placing cat_id at (x, y), revealed from the tile beyond side OPPOSITE[d].

    A rotation must open toward the revealer (or an explosives token faces it: any rotation connects, R-CAV-4);
    ledges and slides point their arrow away (rotation = d); identical orientations are offered once (the lowest
    rotation); rotations that would leave the cave with no open side are withheld while another keeps it open
    (R-CON-4), except that the exit (R-CON-4 [default]) and a bomb tile (R-ANN-4) are never discarded. 0 means the
    tile must be discarded.
    """
    base_open = g.open_sides
    empty_bits = 0
    for e in range(4):
        nb = tile_at(g, x + DX[e], y + DY[e])
        if faces_back(g, nb, e):
            base_open -= 1
        if nb < 0 and not in_zone(g, P, x + DX[e], y + DY[e]):
            empty_bits |= BIT[e]
    back_dir = OPPOSITE[d]
    through_token = blasted_back(g, tile_at(g, x + DX[back_dir], y + DY[back_dir]), back_dir)
    ttype = P.tile_type[cat_id]
    fixed = ttype == T_LEDGE or ttype == T_SLIDE
    base = P.tile_mask[cat_id]
    ok_bits = 0
    keep_bits = 0
    for r in range(4):
        m = ROT_MASK[base, r]
        ok = (m & BIT[back_dir]) != 0 or through_token
        if fixed:
            ok = ok and r == d
        else:
            for q in range(r):  # drop duplicates of an earlier rotation
                if ROT_MASK[base, q] == m:
                    ok = False
        if ok:
            ok_bits |= BIT[r]
            if base_open + POPCOUNT[m & empty_bits] > 0:
                keep_bits |= BIT[r]
    if keep_bits == 0 and ((P.exit_never_discarded and ttype == T_EXIT) or ttype == T_BOMB):
        return ok_bits
    return keep_bits


@jit
def rotations_for(g, P, cat_id):
    """Legal rotations for placing cat_id by the acting caver through the pending side (0 = must discard)."""
    tile = actor_tile(g)
    d = g.pend_dir
    return legal_rotations(g, P, cat_id, g.t_x[tile] + DX[d], g.t_y[tile] + DY[d], d)


@jit
def tiles_left(g, stack_size):
    """Tiles of the stack not drawn yet (public count): the info, the observation, the bots."""
    return stack_size - g.stack_pos


@jit
def draw_for_reveal(g, P):
    """Draw the top tile for the pending reveal, discarding dead ends (R-CON-4).

    Sets pend_tile and pend_rots; a stack that runs out while discarding leaves pend_tile = -1."""
    g.pend_tile = -1
    g.pend_rots = 0
    while g.stack_pos < P.stack_size:
        cat_id = g.stack[g.stack_pos]
        g.stack_pos += 1
        rots = rotations_for(g, P, cat_id)
        g.pend_tile = cat_id
        g.pend_rots = rots
        if rots != 0:
            log(g, E_DRAW, g.actor, -1, cat_id, R_REVEAL, 0)
            return
        log(g, E_DISCARD, g.actor, -1, cat_id, R_CLOSED, 0)  # drawn and discarded: one row (a reveal late in a
        # game can discard dozens)
    g.pend_tile = -1


@jit
def distances_from(g, source, max_steps, dist, queue, avoid):
    """Steps from the source tile to every tile through connected edges (R-CON-2), FAR beyond max_steps; a path
    never enters a tile of type ``avoid`` (-1: none; the sanctuary for leapers, R-EXT-7).

    Writes dist[:n_tiles]; ``queue`` is scratch of the same length."""
    n = g.n_tiles
    for t in range(n):
        dist[t] = FAR
    if source < 0:
        return
    dist[source] = 0
    queue[0] = source
    head, tail = 0, 1
    while head < tail:
        t = queue[head]
        head += 1
        if dist[t] >= max_steps:
            continue
        for d in range(4):
            nb = g.t_nbr[t, d]
            if nb >= 0 and dist[nb] == FAR and g.t_type[nb] != avoid:
                dist[nb] = dist[t] + 1
                queue[tail] = nb
                tail += 1


def relink(st: State, g: np.ndarray, params: np.ndarray) -> None:
    """Rebuild the cell index, connections and the open-side count of games g from their tile arrays (t_x, t_y,
    t_open, n_tiles): for states written field by field (scenarios, checks). ``params``: the config's record."""
    link_tiles(st.packed, params, np.ascontiguousarray(np.atleast_1d(g), dtype=np.int64))


@jit
def count_open_sides(g, P):
    """Open sides of the cave facing a cell where a tile may be placed (R-CON-4, R-ANN-2)."""
    n = 0
    for t in range(g.n_tiles):
        for d in range(4):
            if (g.t_open[t] & BIT[d]) != 0 and free_cell(g, P, g.t_x[t] + DX[d], g.t_y[t] + DY[d]):
                n += 1
    return n


@jit
def link_tiles(states, params, games):
    for i in range(games.shape[0]):
        g = states[games[i]]
        g.cells[:] = -1
        for t in range(g.n_tiles):
            index_cell(g, t)
        for t in range(g.n_tiles):
            for d in range(4):
                nb = tile_beyond(g, t, d)
                mine = (g.t_open[t] & BIT[d]) != 0
                g.t_nbr[t, d] = nb if mine and faces_back(g, nb, d) else -1
        g.open_sides = count_open_sides(g, params[0])


@jit
def unindexed_tiles(states, bad):
    """bad[b] = some placed tile of game b is not found at its cell by the cell index (the invariant checker)."""
    for b in range(states.shape[0]):
        g = states[b]
        for t in range(g.n_tiles):
            if tile_at(g, g.t_x[t], g.t_y[t]) != t:
                bad[b] = True


assert MAX_TILES < FAR
