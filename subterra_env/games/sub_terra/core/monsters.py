"""Monsters (R-HOR; Extraction's leapers, R-EXT-3..8): compiled per-game functions.

Horrors sit in ``h_tile`` and leapers in ``l_tile``, each 3 slots kept oldest first with empty slots (-1) last.
In the base game there are no leapers and no sanctuary, and every function here does exactly what the horror
rules did before leapers existed (the golden trajectories pin that). In Extraction ``h_born``/``l_born`` stamp
each spawn so that the monsters move oldest first across both kinds (R-EXT-4).

Slots are compacted only at the end of a monster phase, a spawn or a step (``monster_contact``): a slash during
the phase empties a slot in place so the phase's bookkeeping by slot stays valid.
"""

from __future__ import annotations

import numpy as np

from .board import FAR, distances_from
from .catalogue import SC_EXTRACTION, T_HORROR, T_SANCTUARY
from .effects import KNOCK_OUT, RANK_SCOUT, damage, on_exit
from .events import (E_HORROR_LEAVE, E_HORROR_MOVE, E_HORROR_SPAWN, E_LEAPER_LEAVE, E_LEAPER_MOVE, E_LEAPER_SPAWN,
                     E_SLASH, R_CUT_OFF, R_HORROR_MOVE, R_HORROR_SPAWN, R_HORROR_TOUCH, R_LEAPER_MOVE,
                     R_LEAPER_SPAWN, R_SLASH, log)
from .jit import jit
from .state import MAX_SEATS, MAX_TILES

SLASH_DAMAGE = 2  # R-EXT-6: health a slashed caver loses
LEAPER_STEPS = 2  # R-EXT-5: steps a leaper takes whenever horrors move


@jit
def horror_contact(g):
    """R-HOR-5: every conscious caver sharing a tile with a horror falls unconscious, except the Scout and on the
    exit; then the leapers there slash (R-EXT-6: a horror knocks out first)."""
    hurt = 0
    for s in range(g.n_seats):
        if g.c_tile[s] < 0 or g.c_rank[s] == RANK_SCOUT or g.c_hp[s] <= 0:
            continue
        for h in range(3):
            if g.h_tile[h] >= 0 and g.h_tile[h] == g.c_tile[s]:
                hurt |= 1 << s
    if hurt:
        damage(g, hurt, KNOCK_OUT, False, -1, R_HORROR_TOUCH)
    if g.l_tile[0] >= 0 or g.l_tile[1] >= 0 or g.l_tile[2] >= 0:
        slash(g)


@jit
def slash(g):
    """R-EXT-6 Slash: a leaper sharing a tile with a conscious caver that is not the Scout and not on the exit
    leaves the cave, and the lowest-numbered such caver there (hidden ones included) loses 2 health; several
    leapers slash oldest first, each choosing again. Protector does not stop it (it names only hazards). The slot
    is emptied in place (see the module docstring)."""
    for k in range(3):
        lt = g.l_tile[k]
        if lt < 0:
            continue
        target, best = -1, 99
        for s in range(g.n_seats):
            if (g.c_tile[s] == lt and g.c_hp[s] > 0 and not g.c_dead[s] and g.c_rank[s] != RANK_SCOUT
                    and not on_exit(g, s) and g.c_rank[s] < best):
                target, best = s, g.c_rank[s]
        if target >= 0:
            log(g, E_SLASH, target, lt, SLASH_DAMAGE, R_SLASH, 0)
            g.l_tile[k] = -1
            damage(g, 1 << target, SLASH_DAMAGE, False, -1, R_SLASH)


@jit
def monster_contact(g):
    """Contact after a change of state (R-HOR-5, R-EXT-6), then the slots compacted: what a step runs."""
    horror_contact(g)
    compact_monsters(g)


@jit
def is_victim(g, s):
    """A caver a monster may choose (R-HOR-2): conscious, not hidden, in the cave off the exit, not the Scout,
    and not on the sanctuary (R-EXT-7)."""
    return (g.c_hp[s] > 0 and not g.c_dead[s] and not g.c_hidden[s] and g.c_tile[s] >= 0 and not on_exit(g, s)
            and g.c_rank[s] != RANK_SCOUT and g.t_type[g.c_tile[s]] != T_SANCTUARY)


@jit
def avoids_sanctuary(P, leaper):
    """The tile type a monster's paths never enter: the sanctuary for leapers (R-EXT-7), for horrors too with
    the setting sanctuary_blocks_horrors; -1 (none) otherwise."""
    return T_SANCTUARY if leaper or P.sanctuary_blocks_horrors else -1


@jit
def monster_distances(g, P, leaper):
    """(MAX_SEATS, MAX_TILES) steps from each caver's tile within the horror range, by the paths of a horror or
    of a leaper (allocates)."""
    dist = np.empty((MAX_SEATS, MAX_TILES), dtype=np.int64)
    queue = np.empty(MAX_TILES, dtype=np.int64)
    avoid = avoids_sanctuary(P, leaper)
    for s in range(g.n_seats):
        distances_from(g, g.c_tile[s], P.horror_range, dist[s], queue, avoid)
    return dist


@jit
def monster_step(g, P, tiles, k, dist, leaper):
    """R-HOR-3 (R-EXT-5 for a leaper's each step): the monster in slot k of ``tiles`` finds its closest victim
    (ties: the lowest rank, R-HOR-2); none within range: it leaves the cave (R-EXT-8: a leaper cut off by the
    sanctuary too); else one step along a shortest path, the first direction in N, E, S, W order [default]."""
    mt = tiles[k]
    best, victim = 1 << 30, 0
    for s in range(g.n_seats):
        d = dist[s, mt] if is_victim(g, s) else FAR
        key = d * 16 + g.c_rank[s]
        if key < best:
            best, victim = key, s
    vd = best // 16
    if vd > P.horror_range:
        if leaper:
            log(g, E_LEAPER_LEAVE, -1, mt, 0, R_CUT_OFF, 0)
        else:
            log(g, E_HORROR_LEAVE, -1, mt, 0, R_HORROR_MOVE, 0)
        tiles[k] = -1
    elif vd > 0:
        for d in range(4):
            nb = g.t_nbr[mt, d]
            if nb >= 0 and dist[victim, nb] == vd - 1:
                if leaper:
                    log(g, E_LEAPER_MOVE, victim, nb, mt, R_LEAPER_MOVE, 0)  # seat: the victim it hunts
                else:
                    log(g, E_HORROR_MOVE, victim, nb, mt, R_HORROR_MOVE, 0)
                tiles[k] = nb
                break
        horror_contact(g)


@jit
def next_monster(g, moved):
    """The oldest monster that has not moved in this phase: slot k for a horror, 3 + k for a leaper, -1 when
    none is left (R-EXT-4; ties, as among a scenario map's monsters: horrors first, then by slot)."""
    pick, best = -1, np.int64(1) << 40
    for k in range(6):
        tile = g.h_tile[k] if k < 3 else g.l_tile[k - 3]
        if tile < 0 or (moved >> k) & 1:
            continue
        born = np.int64(g.h_born[k] if k < 3 else g.l_born[k - 3])
        key = born * 8 + k
        if key < best:
            pick, best = k, key
    return pick


@jit
def move_monsters(g, P):
    """Horrors move (R-HOR-3; the horror phase, Horror and Leaper cards): each monster, oldest first, a horror one
    step, a leaper two (R-EXT-5), each step toward the victim found again; a slashing leaper takes no more."""
    if g.h_tile[0] < 0 and g.h_tile[1] < 0 and g.h_tile[2] < 0 and g.l_tile[0] < 0:
        return
    dist = monster_distances(g, P, False)
    ldist = monster_distances(g, P, True) if g.l_tile[0] >= 0 else dist
    moved = 0
    while True:
        k = next_monster(g, moved)
        if k < 0:
            break
        moved |= 1 << k
        if k < 3:
            monster_step(g, P, g.h_tile, k, dist, False)
        else:
            for _ in range(LEAPER_STEPS):
                if g.l_tile[k - 3] < 0:
                    break
                monster_step(g, P, g.l_tile, k - 3, ldist, True)
    compact_monsters(g)


@jit
def compact_slots(tiles, born):
    """Keep one kind's slots oldest first with empty slots last."""
    k = 0
    for h in range(3):
        if tiles[h] >= 0:
            tiles[k] = tiles[h]
            born[k] = born[h]
            k += 1
    for h in range(k, 3):
        tiles[h] = -1
        born[h] = 0


@jit
def compact_monsters(g):
    compact_slots(g.h_tile, g.h_born)
    compact_slots(g.l_tile, g.l_born)


@jit
def spawn_monster(g, P, leaper):
    """R-HOR-4 (R-EXT-3 for a leaper): below the kind's limit, spawn on the horror tile without a monster that is
    fewest steps (by the kind's paths, R-EXT-7) from its closest victim, if within range; ties: the tile placed
    first [default]."""
    tiles = g.l_tile if leaper else g.h_tile
    count = 0
    for k in range(3):
        if tiles[k] >= 0:
            count += 1
    if count >= (P.leaper_limit if leaper else P.horror_limit):
        return
    dist = monster_distances(g, P, leaper)
    best, tile = FAR + 1, -1
    for t in range(g.n_tiles):
        if g.t_type[t] != T_HORROR or occupied(g, t):
            continue
        closest = FAR
        for s in range(g.n_seats):
            if is_victim(g, s) and dist[s, t] < closest:
                closest = dist[s, t]
        if closest < best:
            best, tile = closest, t
    if tile >= 0 and best <= P.horror_range:
        tiles[count] = tile
        if P.scenario == SC_EXTRACTION:  # spawn order, for oldest-first moves across kinds (R-EXT-4)
            if leaper:
                g.l_born[count] = g.born_n
            else:
                g.h_born[count] = g.born_n
            g.born_n += 1
        if leaper:
            log(g, E_LEAPER_SPAWN, -1, tile, 0, R_LEAPER_SPAWN, 0)
        else:
            log(g, E_HORROR_SPAWN, -1, tile, 0, R_HORROR_SPAWN, 0)
        monster_contact(g)


@jit
def occupied(g, t):
    """A monster of either kind stands on tile t (R-EXT-4: neither kind spawns there)."""
    for k in range(3):
        if g.h_tile[k] == t or g.l_tile[k] == t:
            return True
    return False


@jit
def remove_oldest_on(g, t):
    """Repel (R-CAV-7; R-EXT-4 for leapers): the oldest monster on tile t leaves; returns 0 when none was there,
    1 for a horror, 2 for a leaper."""
    pick, best = -1, np.int64(1) << 40
    for k in range(6):
        tile = g.h_tile[k] if k < 3 else g.l_tile[k - 3]
        if tile != t:
            continue
        key = np.int64(g.h_born[k] if k < 3 else g.l_born[k - 3]) * 8 + k
        if key < best:
            pick, best = k, key
    if pick < 0:
        return 0
    if pick < 3:
        g.h_tile[pick] = -1
    else:
        g.l_tile[pick - 3] = -1
    compact_monsters(g)
    return 1 if pick < 3 else 2
