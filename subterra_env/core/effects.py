"""Dice, damage, entering effects and horrors (R-ACT-3, R-TILE, R-HOR): compiled per-game functions.

Sets of seats are bitmasks (bit s = seat s), so nothing here allocates except the distance scratch of the
horror phase (``horror_distances``).
"""

from __future__ import annotations

import numpy as np

from .board import FAR, distances_from
from .catalogue import T_GAS, T_HORROR, T_ROUGH
from .events import (E_CHECK, E_DAMAGE, E_HORROR_LEAVE, E_HORROR_MOVE, E_HORROR_SPAWN, E_MOVE, E_PROTECTED,
                     R_BODYGUARD, R_GAS, R_HORROR_MOVE, R_HORROR_SPAWN, R_HORROR_TOUCH, R_MOVEMENT, R_ROUGH, log)
from .jit import jit
from .rng import draw_one
from .state import FORCED, MAX_SEATS, MAX_TILES

RANK_DIVER, RANK_SCOUT, RANK_GEOLOGIST, RANK_ENGINEER, RANK_CLIMBER, RANK_MEDIC, RANK_BODYGUARD, RANK_LEADER = range(1, 9)
KNOCK_OUT = 127  # damage that takes any caver to 0 health (a horror's touch, R-HOR-5)
_SIX, _ONE = np.uint64(6), np.uint64(1)


@jit
def roll_d6(g):
    """One die roll from the game's own stream; scenario dice replace the stream's first FORCED draws."""
    c = g.ctr
    face = np.int64(draw_one(g.key, c) % _SIX) + 1
    g.ctr = c + _ONE
    if c < FORCED and g.forced[c] > 0:
        face = g.forced[c]
    return face


@jit
def skill_pass(g, P, seat, roll):
    """Skill check outcome of a seat with a roll (R-ACT-3; the conscious Leader adds his bonus, R-CAV-8)."""
    bonus = P.leader_bonus if g.c_rank[seat] == RANK_LEADER and g.c_hp[seat] > 0 else 0
    return roll + bonus >= P.skill_target


@jit
def check_one(g, P, seat, why):
    """Roll and check once for one seat (``why``: the rule asking, for the event log)."""
    roll = roll_d6(g)
    ok = skill_pass(g, P, seat, roll)
    log(g, E_CHECK, seat, g.c_tile[seat], ok, why, roll)
    return ok


@jit
def on_exit(g, seat):
    """The caver stands on the exit tile."""
    return g.exit_tile >= 0 and g.c_tile[seat] == g.exit_tile


@jit
def guard_tile(g):
    """Tile of the conscious Bodyguard (R-CAV-7, R-CAV-9), -9 = none."""
    for s in range(g.n_seats):
        if g.c_rank[s] == RANK_BODYGUARD and g.c_hp[s] > 0 and not g.c_dead[s]:
            return g.c_tile[s]
    return -9


@jit
def damage(g, hurt, amount, shielded, vigilant_amount, why):
    """Seats in the bitmask ``hurt`` lose health; nobody on the exit tile or devoured does (R-TILE-1).

    shielded: Flood, Gas, Cave-in or Tremor damage, which the Bodyguard's Protector stops for the others on his
    tile (R-CAV-7); who is protected is settled before anyone is hurt. vigilant_amount >= 0: the Engineer loses
    that much instead (a cave-in, R-CAV-4). why: the rule doing it, for the event log."""
    guard = guard_tile(g) if shielded else -9
    for s in range(g.n_seats):
        if not (hurt >> s) & 1 or on_exit(g, s) or g.c_dead[s]:
            continue
        if g.c_tile[s] == guard and g.c_rank[s] != RANK_BODYGUARD:
            log(g, E_PROTECTED, s, g.c_tile[s], amount, R_BODYGUARD, why)  # die column: the rule it stopped
            continue
        lose = vigilant_amount if vigilant_amount >= 0 and g.c_rank[s] == RANK_ENGINEER else amount
        before = g.c_hp[s]
        g.c_hp[s] = max(before - lose, 0)
        if g.c_hp[s] < before:
            log(g, E_DAMAGE, s, g.c_tile[s], before - g.c_hp[s], why, g.c_hp[s])


@jit
def enter_tile(g, P, seat, dest):
    """Move a caver onto a tile with its entering effects: gas (R-HZ-3), rough terrain (R-TILE-9).

    Horrors on the tile are handled by horror_contact, which the step runs after every action (R-HOR-5)."""
    log(g, E_MOVE, seat, dest, g.c_tile[seat], R_MOVEMENT, 0)
    g.c_tile[seat] = dest
    ttype = g.t_type[dest]
    if ttype == T_GAS and g.gas_active:
        damage(g, 1 << seat, P.gas_enter_damage, True, -1, R_GAS)
    if ttype == T_ROUGH and not check_one(g, P, seat, R_ROUGH):
        damage(g, 1 << seat, 1, False, -1, R_ROUGH)


@jit
def horror_contact(g):
    """Every conscious caver sharing a tile with a horror falls unconscious, except the Scout and on the exit
    (R-HOR-5)."""
    hurt = 0
    for s in range(g.n_seats):
        if g.c_tile[s] < 0 or g.c_rank[s] == RANK_SCOUT or g.c_hp[s] <= 0:
            continue
        for h in range(3):
            if g.h_tile[h] >= 0 and g.h_tile[h] == g.c_tile[s]:
                hurt |= 1 << s
    if hurt:
        damage(g, hurt, KNOCK_OUT, False, -1, R_HORROR_TOUCH)


@jit
def is_victim(g, s):
    """A caver a horror may choose (R-HOR-2): conscious, not hidden, in the cave off the exit, not the Scout."""
    return (g.c_hp[s] > 0 and not g.c_dead[s] and not g.c_hidden[s] and not on_exit(g, s)
            and g.c_rank[s] != RANK_SCOUT and g.c_tile[s] >= 0)


@jit
def horror_distances(g, P):
    """(MAX_SEATS, MAX_TILES) steps from each caver's tile, within the horror range (allocates)."""
    dist = np.empty((MAX_SEATS, MAX_TILES), dtype=np.int64)
    queue = np.empty(MAX_TILES, dtype=np.int64)
    for s in range(g.n_seats):
        distances_from(g, g.c_tile[s], P.horror_range, dist[s], queue)
    return dist


@jit
def move_horrors(g, P):
    """Each horror, oldest first, steps toward its closest victim or leaves the cave (R-HOR-3)."""
    if g.h_tile[0] < 0 and g.h_tile[1] < 0 and g.h_tile[2] < 0:
        return
    dist = horror_distances(g, P)
    for h in range(3):
        ht = g.h_tile[h]
        if ht < 0:
            continue
        # Closest victim; ties go to the lowest rank (R-HOR-2).
        best, victim = 1 << 30, 0
        for s in range(g.n_seats):
            d = dist[s, ht] if is_victim(g, s) else FAR
            key = d * 16 + g.c_rank[s]
            if key < best:
                best, victim = key, s
        vd = best // 16
        if vd > P.horror_range:
            log(g, E_HORROR_LEAVE, -1, ht, 0, R_HORROR_MOVE, 0)
            g.h_tile[h] = -1
        elif vd > 0:
            # First direction in N, E, S, W order on a shortest path [default tie-break].
            for d in range(4):
                nb = g.t_nbr[ht, d]
                if nb >= 0 and dist[victim, nb] == vd - 1:
                    log(g, E_HORROR_MOVE, victim, nb, ht, R_HORROR_MOVE, 0)  # seat: the victim it hunts
                    g.h_tile[h] = nb
                    break
            horror_contact(g)
    compact_horrors(g)


@jit
def compact_horrors(g):
    """Keep horror slots oldest first with empty slots last."""
    k = 0
    for h in range(3):
        if g.h_tile[h] >= 0:
            g.h_tile[k] = g.h_tile[h]
            k += 1
    for h in range(k, 3):
        g.h_tile[h] = -1


@jit
def spawn_horror(g, P):
    """Spawn one horror on the horror tile closest to its closest victim, within range (R-HOR-4)."""
    count = 0
    for h in range(3):
        if g.h_tile[h] >= 0:
            count += 1
    if count >= P.horror_limit:
        return
    dist = horror_distances(g, P)
    best, tile = FAR + 1, -1
    for t in range(g.n_tiles):  # ties: the tile placed first [default]
        if g.t_type[t] != T_HORROR or t == g.h_tile[0] or t == g.h_tile[1] or t == g.h_tile[2]:
            continue
        closest = FAR
        for s in range(g.n_seats):
            if is_victim(g, s) and dist[s, t] < closest:
                closest = dist[s, t]
        if closest < best:
            best, tile = closest, t
    if tile >= 0 and best <= P.horror_range:
        log(g, E_HORROR_SPAWN, -1, tile, 0, R_HORROR_SPAWN, 0)
        g.h_tile[count] = tile
        horror_contact(g)
