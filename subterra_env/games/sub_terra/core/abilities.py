"""The cavers' ability actions (R-CAV): compiled per-game functions, one per ability, dispatched by the step."""

from __future__ import annotations

from .actions import HERE
from .board import actor_tile, tile_beyond
from .catalogue import BIT, OPPOSITE, T_WATER
from .monsters import remove_oldest_on
from .hazards import cave_in
from .events import (E_BLAST, E_DIRECT, E_DIVE, E_HORROR_LEAVE, E_LEAPER_LEAVE, E_SURFACE, R_BODYGUARD, R_DIVER,
                     R_ENGINEER, R_LEADER, log)
from .jit import jit
from .state import P_NONE, P_RUN


@jit
def seat_of_rank(g, rank):
    for s in range(g.n_seats):
        if g.c_rank[s] == rank:
            return s
    return 0


@jit
def mend(g, rank):
    """Heal (R-ACT-9) and Bandage (R-CAV-6): the caver of that rank regains 1 health, up to his start health.
    Returns the health gained."""
    s = seat_of_rank(g, rank)
    before = g.c_hp[s]
    g.c_hp[s] = min(before + 1, g.c_max[s])
    return g.c_hp[s] - before


@jit
def clear_rubble(g, where):
    """Dig (R-ACT-12) and Excavate (R-CAV-3): remove the rubble here (where = HERE) or on the connected tile.
    Returns that tile."""
    tile = actor_tile(g)
    target = tile if where == HERE else g.t_nbr[tile, where]
    g.t_rubble[target] = 0
    return target


@jit
def fix_rope(g):
    """Rope (R-ACT-13, after its check) and Gear (R-CAV-5): a rope on this ledge or slide. Returns the tile."""
    tile = actor_tile(g)
    g.t_rope[tile] = 1
    g.ropes_left -= 1
    return tile


@jit
def start_run(g, steps):
    """Run (R-ACT-8) and Sprint (R-CAV-6): up to ``steps`` Move steps, each its own decision."""
    g.pend = P_RUN
    g.run_left = steps
    g.run_taken = 0


@jit
def repel(g, d):
    """R-CAV-7: the oldest monster (R-EXT-4: a leaper too) on the connected tile leaves the cave."""
    target = g.t_nbr[actor_tile(g), d]
    if target < 0:
        return  # with R-ACT-15 off, a Repel toward no tile does nothing
    gone = remove_oldest_on(g, target)
    if gone:
        log(g, E_HORROR_LEAVE if gone == 1 else E_LEAPER_LEAVE, g.actor, target, 0, R_BODYGUARD, 0)


@jit
def direct(g, rank):
    """R-CAV-8: the chosen caver takes one 1-AP action, free; the Leader waits with his AP saved."""
    g.direct_used = 1
    log(g, E_DIRECT, seat_of_rank(g, rank), g.c_tile[seat_of_rank(g, rank)], 0, R_LEADER, 0)
    g.directing = g.actor
    g.saved_ap = g.ap
    g.actor = seat_of_rank(g, rank)
    g.ap = 1
    g.pend = P_NONE


@jit
def finish_direct(g):
    """Hand the turn back to the Leader when the directed action is over (done, declined or knocked out)."""
    if g.pend == P_NONE or g.c_hp[g.actor] == 0:
        g.actor = g.directing
        g.ap = g.saved_ap
        g.directing = -1
        g.pend = P_NONE


@jit
def demolish(g, P, d):
    """R-CAV-4: an explosives token on side d (connecting the neighbour, or opening toward an empty cell), then a
    Cave-in event at once."""
    g.explosives -= 1
    blast(g, P, d, R_ENGINEER)


@jit
def blast(g, P, d, why):
    """An explosives token on side d of the actor's tile, then a Cave-in event (R-CAV-4; Investigation's
    Explosive, R-INV-15, with its own token). why: the rule, for the event log."""
    tile = actor_tile(g)
    other = tile_beyond(g, tile, d)
    log(g, E_BLAST, g.actor, tile, d, why, 0)  # value: the side blasted
    newly_open = (g.t_open[tile] & BIT[d]) == 0
    g.t_blast[tile] |= BIT[d]
    g.t_open[tile] |= BIT[d]
    if other >= 0:
        back = OPPOSITE[d]
        g.t_blast[other] |= BIT[back]
        g.t_open[other] |= BIT[back]
        g.t_nbr[tile, d] = other
        g.t_nbr[other, back] = tile
    elif newly_open:
        g.open_sides += 1  # a new open side facing an empty cell (R-CON-4)
    cave_in(g, P)


@jit
def dive(g):
    """R-CAV-1: the Diver leaves the cave under water; his turn ends (the step sees him under water)."""
    log(g, E_DIVE, g.actor, g.c_tile[g.actor], 0, R_DIVER, 0)
    g.c_under[g.actor] = 1
    g.c_tile[g.actor] = -1


@jit
def water_tile(g, k):
    """Index of the k-th water tile in placement order (k from 1), -1 where fewer."""
    for t in range(g.n_tiles):
        if g.t_type[t] == T_WATER:
            k -= 1
            if k == 0:
                return t
    return -1


@jit
def surface(g, k):
    """R-CAV-1: the Diver comes up on the k-th water tile placed."""
    g.c_tile[g.actor] = water_tile(g, k)
    log(g, E_SURFACE, g.actor, g.c_tile[g.actor], 0, R_DIVER, 0)
    g.c_under[g.actor] = 0
    g.pend = P_NONE
