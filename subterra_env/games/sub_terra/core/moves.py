"""Legal actions of the acting caver (R-ACT, R-CON, R-TILE-6..8, R-CAV): one compiled function per game.

Directions that a caver may take are 4-bit masks (bit d = side d), computed once per decision by ``around``.
"""

from __future__ import annotations

from .abilities import water_tile
from .actions import (A_BANDAGE, A_DEMOLISH, A_DIG, A_DIG_HERE, A_DIRECT, A_DIVE, A_END, A_EXCAVATE, A_EXCAVATE_HERE,
                      A_EXERT, A_EXPLORE, A_GEAR, A_HEAL, A_HIDE, A_MOVE, A_PICK, A_REDRAW, A_REPEL, A_REVEAL,
                      A_ROPE, A_ROTATE, A_RUN, A_SPRINT, A_SQUEEZE, A_STEP, A_STOP, A_SURFACE, A_SWIM, A_PLACE_BOMB,
                      A_GIVE, A_TAKE, A_GAS_MASK_DECLINE, A_GAS_MASK_USE)
from .catalogue import BIT, SC_ANNIHILATION, SC_EXTRACTION, SC_INVESTIGATION, T_BOMB, T_LEDGE, T_SLIDE, T_WATER
from .effects import (RANK_BODYGUARD, RANK_CLIMBER, RANK_DIVER, RANK_ENGINEER, RANK_GEOLOGIST, RANK_LEADER,
                      RANK_MEDIC)
from .items import rinv20_wetsuit
from .item_moves import items_mask
from .jit import jit
from .sides import _EMPTY, _FLOODED, _HAS, _HORROR, _PASSABLE, _REVEALABLE, _RUBBLE, _SQUEEZE, _WALK, _ZONE, around, has
from .placing import scout_can_redraw
from .state import P_NONE, P_PICK, P_PLACE, P_RUN, P_SURFACE, RUNNING


@jit
def walk_any(g, P):
    """The acting caver can take a Move step in some direction (R-ACT-6)."""
    seat = max(g.actor, 0)
    dirs = around(g, P, max(g.c_tile[seat], 0), g.c_rank[seat], rinv20_wetsuit(g, seat))
    for d in range(4):
        if has(dirs, d, _WALK):
            return True
    return False


@jit
def legal_mask(g, P, m):
    """Write the legal actions of the game's acting caver into the row m (all 0 once the game has ended)."""
    m[:] = 0
    if g.result != RUNNING:
        return
    if g.r_seat >= 0:  # R-INV-18 (explicit_reactions, Investigation only): the asked holder answers, nothing else
        m[A_GAS_MASK_USE] = 1
        m[A_GAS_MASK_DECLINE] = 1
        return
    lax = not P.no_effect_actions_illegal  # R-ACT-15 off: actions without effect stay legal
    seat = max(g.actor, 0)
    tile = max(g.c_tile[seat], 0)  # a Diver under water decides only where to surface
    rank = g.c_rank[seat]
    dirs = around(g, P, tile, rank, rinv20_wetsuit(g, seat))
    ap = g.ap
    normal = g.pend == P_NONE
    running = g.pend == P_RUN
    directed = g.directing >= 0  # acting under the Leader's Direct: one 1-AP action (ap is 1)
    one, two = normal and ap >= 1, normal and ap >= 2
    m[A_END] = normal
    m[A_EXERT] = normal and not g.exerted and not directed
    can_draw = g.stack_pos < P.stack_size or (rank == RANK_GEOLOGIST and g.aside_tile >= 0)  # R-CON-4, R-CAV-3
    walk = False
    for d in range(4):
        revealable = has(dirs, d, _REVEALABLE) and can_draw
        m[A_REVEAL + d] = one and revealable
        m[A_EXPLORE + d] = normal and ap >= P.explore_cost and revealable
        m[A_MOVE + d] = one and has(dirs, d, _WALK)
        m[A_STEP + d] = running and has(dirs, d, _WALK)
        walk = walk or has(dirs, d, _WALK)
        passable = has(dirs, d, _PASSABLE)
        m[A_SWIM + d] = two and passable and has(dirs, d, _FLOODED)
        m[A_SQUEEZE + d] = two and passable and has(dirs, d, _SQUEEZE) and not has(dirs, d, _RUBBLE)
        m[A_DIG + d] = two and (has(dirs, d, _RUBBLE) or (has(dirs, d, _HAS) and lax))
    m[A_RUN] = two and walk
    m[A_STOP] = running and g.run_taken >= 1
    m[A_DIG_HERE] = two and (g.t_rubble[tile] or lax)
    ttype = g.t_type[tile]
    ropeable = (ttype == T_LEDGE or ttype == T_SLIDE) and (not g.t_rope[tile] or lax) and g.ropes_left > 0
    m[A_ROPE] = two and ropeable
    m[A_HIDE] = two and (not g.c_hidden[seat] or lax)
    # Heal (and Bandage) a caver of rank r: on my tile, not devoured, hurt (R-ACT-9).
    heal_ok = normal and ap >= P.heal_cost
    for s in range(g.n_seats):
        here = g.c_tile[s] == tile and not g.c_dead[s] and (g.c_hp[s] < g.c_max[s] or lax)
        m[A_HEAL + g.c_rank[s] - 1] = heal_ok and here
        m[A_BANDAGE + g.c_rank[s] - 1] = one and rank == RANK_MEDIC and here and s != seat  # R-CAV-6
    if g.pend == P_PLACE:
        for r in range(4):
            m[A_ROTATE + r] = (g.pend_rots >> r) & 1 != 0
    # The cavers' abilities (R-CAV); an acting caver is conscious, so R-CAV-9 holds by construction.
    m[A_GEAR] = one and rank == RANK_CLIMBER and ropeable  # R-CAV-5
    m[A_SPRINT] = one and rank == RANK_MEDIC and walk  # R-CAV-6
    for d in range(4):
        m[A_REPEL + d] = one and rank == RANK_BODYGUARD and (has(dirs, d, _HORROR) or (has(dirs, d, _HAS) and lax))
        m[A_EXCAVATE + d] = one and rank == RANK_GEOLOGIST and (has(dirs, d, _RUBBLE) or (has(dirs, d, _HAS) and lax))
        closed = (g.t_open[tile] & BIT[d]) == 0  # R-CAV-4: demolish a side that is not connected
        target = not has(dirs, d, _HAS) and (not has(dirs, d, _EMPTY) or closed) and not has(dirs, d, _ZONE)
        m[A_DEMOLISH + d] = two and rank == RANK_ENGINEER and g.explosives > 0 and target
    m[A_EXCAVATE_HERE] = one and rank == RANK_GEOLOGIST and (g.t_rubble[tile] or lax)  # R-CAV-3
    if one and rank == RANK_LEADER and not g.direct_used and not directed:  # R-CAV-8, once per turn
        for s in range(g.n_seats):
            if g.c_hp[s] > 0 and not g.c_dead[s] and not g.c_under[s] and g.c_rank[s] != RANK_LEADER:
                m[A_DIRECT + g.c_rank[s] - 1] = 1
    m[A_REDRAW] = scout_can_redraw(g, P)  # R-CAV-2
    m[A_PICK] = g.pend == P_PICK  # R-CAV-3
    m[A_PICK + 1] = g.pend == P_PICK
    m[A_DIVE] = two and rank == RANK_DIVER and ttype == T_WATER and not g.c_under[seat]  # R-CAV-1
    if g.pend == P_SURFACE:
        for k in range(8):
            m[A_SURFACE + k] = water_tile(g, k + 1) >= 0
    if P.scenario == SC_ANNIHILATION or P.scenario == SC_EXTRACTION:  # the row is wider only in a scenario
        bomb_mask(g, P, m, seat, tile, normal)
    elif P.scenario == SC_INVESTIGATION:
        items_mask(g, P, m, seat, tile, dirs, normal, can_draw)


@jit
def bomb_mask(g, P, m, seat, tile, normal):
    """The scenarios' card actions: Place Bomb (R-ANN-6, Annihilation only), Transfer a bomb card (R-ANN-7) or a
    biosample (R-EXT-9)."""
    cards = g.c_samples if P.scenario == SC_EXTRACTION else g.c_bombs
    holding = cards[seat] > 0
    m[A_PLACE_BOMB] = (normal and g.ap >= P.cost[A_PLACE_BOMB] and g.c_bombs[seat] > 0 and g.t_type[tile] == T_BOMB
                       and not g.t_bomb[tile])
    moving = normal and g.ap >= P.cost[A_GIVE]
    for s in range(g.n_seats):
        here = s != seat and g.c_tile[s] == tile and not g.c_dead[s]
        m[A_GIVE + g.c_rank[s] - 1] = moving and holding and here
        m[A_TAKE + g.c_rank[s] - 1] = moving and here and g.c_hp[s] == 0 and cards[s] > 0
