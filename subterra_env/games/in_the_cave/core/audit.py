"""The compiled half of the invariant checker (``in_the_cave.invariants``): every check as a numba function on
one game's record, so the soak can afford it after every step (the plain Python version cost ~0.24 ms a game).

It recomputes what it checks from the record alone (its own cell table and connections, its own majority
recount) rather than calling the rules it audits. A violation is a row ``(code, a, b, c, d)`` in ``errs`` (the
codes below; ``invariants.py`` turns them into messages); ``scan`` returns how many there are, writing only the
rows that fit, so a zero-row ``errs`` just counts.
"""

from __future__ import annotations

import numpy as np

from .jit import jit
from .layout import (
    BANK,
    BP,
    CAMP,
    CAMP_GONE,
    CAMP_PACKED,
    CAMPC,
    CAM_LOST,
    ENDED,
    K_BOARD,
    K_BOULDER,
    K_DESCENT,
    K_HOME,
    K_SQUEEZE,
    K_WATER,
    K_WONDER,
    LOST,
    N_TILES,
    NK,
    OVER,
    P_BOULDER,
    P_PLACE,
    PEND,
    PHOTO,
    POS,
    PR_BACKPACK,
    PR_BANK0,
    PR_CAMP_SLOTS,
    PR_DEPTH_STEP,
    PR_LIMITED,
    PR_SEATS,
    RAFT_LOST,
    SCORE,
    SQ,
    STACK_POS,
    T_MAX,
    TBSIDE,
    TDEPTH,
    TKIND,
    TOPEN,
    TRAV,
    TROPE,
    TSQ,
    TTOKEN,
    TX,
    TY,
    WATER,
)
from .observe import vp
from .turns import category

# violation codes: (a, b, c, d) of each, as invariants.py formats them
BANK_SUM, BANK_NEG, BACKPACK, CAMP_FULL, EQUIP, GONE_CAMP, PAWN, TILE_COUNT = range(8)  # (b, got, total) ..
DISCONNECTED, BOARD_DEPTH, NO_PARENT, TOKEN, ROPE_ONE_SIDED, ROPE_SAME_DEPTH, EXPLORE, SQUEEZE, TRAVERSE, SCORES = \
    range(8, 18)
ERR_COLS = 5
DX = np.array([0, 1, 0, -1], dtype=np.int64)
DY = np.array([-1, 0, 1, 0], dtype=np.int64)
OPP = np.array([2, 3, 0, 1], dtype=np.int64)
SLOTS = 512  # the checker's own cell -> tile table (open addressing, load <= 0.25)


@jit
def put(errs, n, code, a, b, c, d):
    """Record violation n (if it fits) and return the new count."""
    if n < errs.shape[0]:
        errs[n, 0], errs[n, 1], errs[n, 2], errs[n, 3], errs[n, 4] = code, a, b, c, d
    return n + 1


@jit
def slot_of(keys, vals, x, y):
    """The table slot of cell (x, y): its own, or the free one (vals -1: every key is a possible cell) where it
    would go."""
    key = (np.int64(x) << 32) ^ (np.int64(y) & 0xFFFFFFFF)
    h = np.int64((x * 73856093) ^ (y * 19349663)) & (SLOTS - 1)
    while vals[h] != -1 and keys[h] != key:
        h = (h + 1) & (SLOTS - 1)
    return h, key


@jit
def cell_table(g, n, keys, vals):
    """Cell -> tile of the n placed tiles (a later tile on the same cell wins, as a dict built in order would)."""
    vals[:] = -1
    for t in range(n):
        h, key = slot_of(keys, vals, g[TX + t], g[TY + t])
        keys[h], vals[h] = key, t


@jit
def tile_at(keys, vals, x, y):
    h, key = slot_of(keys, vals, x, y)
    return vals[h] if vals[h] != -1 and keys[h] == key else -1


@jit
def linked(g, t, nb, d):
    """t and its neighbour nb on side d connect (R-ITC-TILE-1): a boulder choke only on its passage side."""
    if g[TKIND + t] == K_BOULDER:
        return g[TBSIDE + t] == d
    if g[TKIND + nb] == K_BOULDER:
        return g[TBSIDE + nb] == OPP[d]
    return ((g[TOPEN + t] >> d) & 1) != 0 and ((g[TOPEN + nb] >> OPP[d]) & 1) != 0


@jit
def links_of(g, n, keys, vals, links):
    """links[t, d] = the tile t connects to on side d, -1 = none."""
    for t in range(n):
        for d in range(4):
            nb = tile_at(keys, vals, g[TX + t] + DX[d], g[TY + t] + DY[d])
            links[t, d] = nb if nb >= 0 and linked(g, t, nb, d) else -1


@jit
def unreached(n, links):
    """Tiles not connected to the home base (tile 0), counted as n - |reached| with the home base always reached."""
    seen = np.zeros(T_MAX + 1, dtype=np.bool_)
    todo = np.empty(T_MAX + 1, dtype=np.int64)
    seen[0], todo[0], head, tail, count = True, 0, 0, 1, 1
    while head < tail:
        t = todo[head]
        head += 1
        if t >= n:
            continue
        for d in range(4):
            nb = links[t, d]
            if nb >= 0 and not seen[nb]:
                seen[nb], todo[tail] = True, nb
                tail += 1
                count += 1
    return n - count


@jit
def check_equipment(g, P, errs, m):
    """Token conservation per bank pile (R-ITC-SET-6), slot limits, one camera / raft (SET-7), pawns on tiles."""
    seats = P[PR_SEATS]
    for b in range(3):
        held = 0
        for s in range(seats):
            for k in range(NK):
                if k == b or (b == 2 and k == 3):
                    held += g[BP + s * NK + k] + g[CAMPC + s * NK + k]
        got = g[BANK + b] + held + g[LOST + b]
        if got != P[PR_BANK0 + b]:
            m = put(errs, m, BANK_SUM, b, got, P[PR_BANK0 + b], 0)
        if P[PR_LIMITED] != 0 and g[BANK + b] < 0:
            m = put(errs, m, BANK_NEG, b, 0, 0, 0)
    for s in range(seats):
        used, camp = 0, 0
        for k in range(NK):
            used += g[BP + s * NK + k]
            camp += g[CAMPC + s * NK + k]
        used += 2 if g[CAMP + s] == CAMP_PACKED else 0
        if used > P[PR_BACKPACK]:
            m = put(errs, m, BACKPACK, s, used, P[PR_BACKPACK], 0)
        if camp > P[PR_CAMP_SLOTS]:
            m = put(errs, m, CAMP_FULL, s, camp, P[PR_CAMP_SLOTS], 0)
        for k in range(4, 6):  # E_CAMERA, E_RAFT
            lost = g[(CAM_LOST if k == 4 else RAFT_LOST) + s]
            count = g[BP + s * NK + k] + g[CAMPC + s * NK + k]
            if count > 1 or (lost != 0 and count != 0):
                m = put(errs, m, EQUIP, s, k, count, lost)
        if g[CAMP + s] == CAMP_GONE and camp != 0:
            m = put(errs, m, GONE_CAMP, s, 0, 0, 0)
        if not 0 <= g[POS + s] < g[N_TILES]:
            m = put(errs, m, PAWN, s, g[POS + s], 0, 0)
    return m


@jit
def check_tiles(g, P, errs, m, links, keys, vals):
    """Draws vs tiles (R-ITC-ACT-1/2), connectivity (TILE-1), depths (ACT-3), tokens (ACT-3), ropes (ACT-5),
    exploration tokens held vs taken; the traverse lines' count is returned through the last check."""
    seats, n = P[PR_SEATS], g[N_TILES]
    placing = 1 if g[PEND] == P_PLACE or g[PEND] == P_BOULDER else 0
    if n != (5 if seats >= 3 else 4) + g[STACK_POS] - placing:
        m = put(errs, m, TILE_COUNT, n, g[STACK_POS], placing, 0)
    n = min(max(n, 0), T_MAX)  # a corrupt count must not read past the tile arrays
    cell_table(g, n, keys, vals)
    links_of(g, n, keys, vals, links)
    lost = unreached(n, links)
    if lost != 0:
        m = put(errs, m, DISCONNECTED, lost, 0, 0, 0)
    step, ropes = P[PR_DEPTH_STEP], 0
    water = photo = 0
    gone = np.zeros(4, dtype=np.int64)
    for t in range(n):
        kind, depth = g[TKIND + t], g[TDEPTH + t]
        if kind == K_HOME or kind == K_BOARD:
            if depth != 0:
                m = put(errs, m, BOARD_DEPTH, t, depth, 0, 0)
        else:
            rise = step if kind == K_DESCENT else 0
            found = False
            for d in range(4):
                if links[t, d] >= 0 and g[TDEPTH + links[t, d]] + rise == depth:
                    found = True
            if not found:
                m = put(errs, m, NO_PARENT, t, kind, depth, 0)
        if g[TTOKEN + t] != 0 and kind != K_WATER and kind != K_WONDER and kind != K_SQUEEZE:
            m = put(errs, m, TOKEN, t, kind, 0, 0)
        for d in range(4):
            if (g[TROPE + t] >> d) & 1:
                nb = tile_at(keys, vals, g[TX + t] + DX[d], g[TY + t] + DY[d])
                if nb < 0 or not (g[TROPE + nb] >> OPP[d]) & 1:
                    m = put(errs, m, ROPE_ONE_SIDED, t, d, 0, 0)
                elif g[TDEPTH + nb] == depth:
                    m = put(errs, m, ROPE_SAME_DEPTH, t, nb, 0, 0)
                elif t < nb:
                    ropes += abs(g[TDEPTH + nb] - depth) // step
        if g[TTOKEN + t] == 0:
            water += 1 if kind == K_WATER else 0
            photo += 1 if kind == K_WONDER else 0
            if kind == K_SQUEEZE and 1 <= g[TSQ + t] <= 3:
                gone[g[TSQ + t]] += 1
    return check_tokens(g, seats, errs, m, water, photo, gone, ropes)


@jit
def check_tokens(g, seats, errs, m, water, photo, gone, ropes):
    """Exploration tokens held = taken from the tiles; traverse lines = ropes on roped edges."""
    held_w = held_p = held_t = 0
    for s in range(seats):
        held_w += g[WATER + s]
        held_p += g[PHOTO + s]
        held_t += g[TRAV + s]
    if held_w != water:
        m = put(errs, m, EXPLORE, 0, held_w, water, 0)
    if held_p != photo:
        m = put(errs, m, EXPLORE, 1, held_p, photo, 0)
    for d in range(1, 4):
        have = 0
        for s in range(seats):
            have += g[SQ + 3 * s + d - 1]
        if have != gone[d]:
            m = put(errs, m, SQUEEZE, d, have, gone[d], 0)
    if held_t != ropes:
        m = put(errs, m, TRAVERSE, held_t, ropes, 0, 0)
    return m


@jit
def add_majority(vals, seats, out):
    """R-ITC-SCORE-2 for one category (vals: 0 for the eliminated and the empty-handed): sole most 8 and a sole
    second 4; two tied for most 4 each; more tied, nothing."""
    best = 0
    for s in range(seats):
        best = max(best, vals[s])
    if best == 0:
        return
    top = 0
    for s in range(seats):
        top += 1 if vals[s] == best else 0
    if top == 2:
        for s in range(seats):
            if vals[s] == best:
                out[s] += 4
    elif top == 1:
        second = 0
        for s in range(seats):
            if vals[s] < best:
                second = max(second, vals[s])
        sec = 0
        for s in range(seats):
            sec += 1 if second > 0 and vals[s] == second else 0
        for s in range(seats):
            if vals[s] == best:
                out[s] += 8
            elif sec == 1 and vals[s] == second:
                out[s] += 4


@jit
def recount(g, seats, want):
    """The final scores recounted (R-ITC-SCORE): 0 for a team off the home base, else its VP + majorities."""
    vals = np.zeros(seats, dtype=np.int64)
    for s in range(seats):
        want[s] = vp(g, s) if g[POS + s] == 0 else 0
    for c in range(4):
        for s in range(seats):
            v = category(g, s, c)
            vals[s] = v if g[POS + s] == 0 and v > 0 else 0
        add_majority(vals, seats, want)


@jit
def scan(g, P, errs, want, links, keys, vals):
    """Every invariant of one record; returns the number of violations (rows of ``errs`` as far as they fit).
    ``want`` receives the recounted scores of an ended game; links, keys, vals are scratch."""
    m = check_equipment(g, P, errs, 0)
    m = check_tiles(g, P, errs, m, links, keys, vals)
    if g[OVER] == ENDED:
        recount(g, P[PR_SEATS], want)
        for s in range(P[PR_SEATS]):
            if g[SCORE + s] != want[s]:
                m = put(errs, m, SCORES, 0, 0, 0, 0)
                break
    return m


@jit
def scan_batch(G, P, rows, counts):
    """counts[i] = the violations of game rows[i] (the batch's fast path: no messages)."""
    errs = np.zeros((0, ERR_COLS), dtype=np.int64)
    want = np.zeros(5, dtype=np.int64)
    links = np.zeros((T_MAX, 4), dtype=np.int64)
    keys = np.zeros(SLOTS, dtype=np.int64)
    vals = np.zeros(SLOTS, dtype=np.int64)
    for i in range(rows.shape[0]):
        counts[i] = scan(G[rows[i]], P, errs, want, links, keys, vals)
