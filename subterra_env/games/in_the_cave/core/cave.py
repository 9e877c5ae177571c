"""The shared cave as a tile graph: the cell index, connections (R-ITC-TILE-1), legal placements (R-ITC-ACT-1),
placing a tile or a boulder choke (R-ITC-ACT-2/3).

Compiled per-game functions on ``g`` (one game's int32 record, ``layout.py``) and ``P`` (the params vector).
The geometry tables (directions, rotations) are Sub Terra's; its placing code is not reused because it works on
its own record and its rules differ (here every neighbour must match, and boulder chokes match anything and
connect through one side only).
"""

from __future__ import annotations

from subterra_env.games.sub_terra.core.catalogue import BIT, DX, DY, OPPOSITE, ROT_MASK
from subterra_env.games.sub_terra.core.rng import cell_hash

from .jit import jit
from .layout import (
    CELL_SLOTS,
    CELLS,
    K_BOULDER,
    K_DESCENT,
    K_HOME,
    K_SQUEEZE,
    K_WATER,
    K_WONDER,
    N_TILES,
    PR_CAT_KIND,
    PR_CAT_MASK,
    PR_CAT_SQ,
    PR_DEPTH_STEP,
    TBSIDE,
    TCAT,
    TDEPTH,
    TKIND,
    TOPEN,
    TROPE,
    TSQ,
    TTOKEN,
    TX,
    TY,
)


@jit
def tile_at(g, x, y):
    """Tile index in cell (x, y), -1 = empty (linear probing from the hash both games share; tiles are never
    removed)."""
    i = cell_hash(x, y, CELL_SLOTS)
    while g[CELLS + i] >= 0:
        t = g[CELLS + i]
        if g[TX + t] == x and g[TY + t] == y:
            return t
        i = (i + 1) & (CELL_SLOTS - 1)
    return -1


@jit
def add_tile(g, x, y, kind, opened, depth):
    """Append a tile on the empty cell (x, y) and index it; returns its index."""
    t = g[N_TILES]
    g[TX + t] = x
    g[TY + t] = y
    g[TKIND + t] = kind
    g[TOPEN + t] = opened
    g[TDEPTH + t] = depth
    g[TTOKEN + t] = 0
    g[TSQ + t] = 0
    g[TBSIDE + t] = -1
    g[TROPE + t] = 0
    g[TCAT + t] = -1
    i = cell_hash(x, y, CELL_SLOTS)
    while g[CELLS + i] >= 0:
        i = (i + 1) & (CELL_SLOTS - 1)
    g[CELLS + i] = t
    g[N_TILES] = t + 1
    return t


@jit
def beyond(g, t, d):
    """Tile in the cell beyond side d of tile t, -1 = empty."""
    return tile_at(g, g[TX + t] + DX[d], g[TY + t] + DY[d])


@jit
def connected(g, t, d):
    """R-ITC-TILE-1: the tile connected to t through side d, or -1. Both sides open, or one of them is a boulder
    choke and the edge is the one it was placed at (its only passage)."""
    nb = beyond(g, t, d)
    if nb < 0:
        return -1
    if g[TKIND + t] == K_BOULDER:
        return nb if g[TBSIDE + t] == d else -1
    if g[TKIND + nb] == K_BOULDER:
        return nb if g[TBSIDE + nb] == OPPOSITE[d] else -1
    if (g[TOPEN + t] & BIT[d]) != 0 and (g[TOPEN + nb] & BIT[OPPOSITE[d]]) != 0:
        return nb
    return -1


@jit
def unexplored_exits(g, t):
    """R-ITC-TILE-1: bitmask of t's open sides facing an empty cell."""
    m = 0
    for d in range(4):
        if (g[TOPEN + t] & BIT[d]) != 0 and beyond(g, t, d) < 0:
            m |= 1 << d
    return m


@jit
def any_unexplored(g):
    """Some space a team could reveal from (not the home base, not a boulder) has an unexplored exit (END-1)."""
    for t in range(g[N_TILES]):
        if g[TKIND + t] != K_HOME and g[TKIND + t] != K_BOULDER and unexplored_exits(g, t) != 0:
            return True
    return False


@jit
def fits(g, x, y, opened):
    """Every side of a tile with open sides ``opened`` on cell (x, y) matches every placed neighbour: opening to
    opening, rock to rock; a boulder choke matches anything (R-ITC-ACT-1)."""
    for e in range(4):
        nb = tile_at(g, x + DX[e], y + DY[e])
        if nb < 0 or g[TKIND + nb] == K_BOULDER:
            continue
        mine = (opened & BIT[e]) != 0
        theirs = (g[TOPEN + nb] & BIT[OPPOSITE[e]]) != 0
        if mine != theirs:
            return False
    return True


@jit
def placements(g, P, t, cat):
    """R-ITC-ACT-1: legal placements of catalogue tile ``cat`` revealed from tile t, as bits 4d + r (exit d,
    rotation r); rotations giving the same open sides are offered once (the lowest r)."""
    mask = 0
    exits = unexplored_exits(g, t)
    base = P[PR_CAT_MASK + cat]
    for d in range(4):
        if (exits & (1 << d)) == 0:
            continue
        x = g[TX + t] + DX[d]
        y = g[TY + t] + DY[d]
        for r in range(4):
            opened = ROT_MASK[base, r]
            dup = False
            for r0 in range(r):
                if ROT_MASK[base, r0] == opened:
                    dup = True
            if not dup and fits(g, x, y, opened):
                mask |= 1 << (4 * d + r)
    return mask


@jit
def place_tile(g, P, t, cat, d, r):
    """R-ITC-ACT-1/3: put catalogue tile ``cat`` beyond exit d of tile t turned r; its token and depth."""
    kind = P[PR_CAT_KIND + cat]
    depth = g[TDEPTH + t] + (P[PR_DEPTH_STEP] if kind == K_DESCENT else 0)
    n = add_tile(g, g[TX + t] + DX[d], g[TY + t] + DY[d], kind, ROT_MASK[P[PR_CAT_MASK + cat], r], depth)
    g[TCAT + n] = cat
    g[TSQ + n] = P[PR_CAT_SQ + cat]
    if kind == K_WATER or kind == K_WONDER or kind == K_SQUEEZE:
        g[TTOKEN + n] = 1
    return n


@jit
def place_boulder(g, t, d):
    """R-ITC-ACT-2/3: a boulder choke beyond exit d of tile t, passable only back toward t, at t's depth."""
    n = add_tile(g, g[TX + t] + DX[d], g[TY + t] + DY[d], K_BOULDER, 0, g[TDEPTH + t])
    g[TBSIDE + n] = OPPOSITE[d]
    return n


@jit
def rope_edge(g, t, d):
    """Mark the edge between t and its neighbour beyond side d as roped, on both tiles."""
    nb = beyond(g, t, d)
    g[TROPE + t] |= 1 << d
    g[TROPE + nb] |= 1 << OPPOSITE[d]
