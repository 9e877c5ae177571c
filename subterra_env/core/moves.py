"""Legal actions of the acting caver (R-ACT, R-CON, R-TILE-6..8), vectorised over the batch."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .actions import (A_BANDAGE, A_DIG, A_DIG_HERE, A_DIRECT, A_END, A_EXCAVATE, A_EXCAVATE_HERE, A_EXERT,
                      A_EXPLORE, A_GEAR, A_HEAL, A_HIDE, A_MOVE, A_REPEL, A_REVEAL, A_ROPE, A_ROTATE, A_RUN, A_SPRINT,
                      A_SQUEEZE, A_STEP, A_STOP, A_SWIM, A_PICK, A_REDRAW, A_DEMOLISH, A_DIVE, A_SURFACE,
                      NUM_ACTIONS)
from .catalogue import BIT, DX, DY, OPPOSITE, T_LEDGE, T_SLIDE, T_SQUEEZE, T_WATER
from .effects import (RANK_BODYGUARD, RANK_CLIMBER, RANK_DIVER, RANK_ENGINEER, RANK_GEOLOGIST, RANK_LEADER,
                      RANK_MEDIC)
from .state import P_NONE, P_PICK, P_PLACE, P_RUN, P_SURFACE, RUNNING, State

if TYPE_CHECKING:
    from .rules import Core


def leave_blocked(st: State, g: np.ndarray, tile: np.ndarray) -> np.ndarray:
    """(n, 4) leaving the tile through side d is barred: a ledge's arrow side, a slide's back side, unless roped
    (R-TILE-7, R-TILE-8)."""
    ttype = st.t_type[g, tile][:, None]
    arrow = st.t_arrow[g, tile][:, None]
    d = np.arange(4)[None, :]
    barred = ((ttype == T_LEDGE) & (arrow == d)) | ((ttype == T_SLIDE) & (arrow == OPPOSITE[d]))
    return barred & ~st.t_rope[g, tile][:, None]


class Around:
    """What lies in each direction of the acting caver's tile, for games g."""

    def __init__(self, st: State, g: np.ndarray):
        seat = np.maximum(st.actor[g], 0).astype(np.intp)
        self.seat = seat
        self.tile = np.maximum(st.c_tile[g, seat], 0).astype(np.intp)
        self.nbr = st.t_nbr[g, self.tile].astype(np.intp)  # (n, 4)
        self.has = self.nbr >= 0
        safe = np.maximum(self.nbr, 0)
        rows = g[:, None]
        barred = leave_blocked(st, g, self.tile)
        self.passable = self.has & ~barred
        self.flooded = self.has & st.t_flood[rows, safe]
        self.rubble = self.has & st.t_rubble[rows, safe]
        self.squeeze = self.has & (st.t_type[rows, safe] == T_SQUEEZE)
        self.horror = self.has & (st.h_tile[g][:, None, :] == self.nbr[:, :, None]).any(2)
        self.rank = st.c_rank[g, seat]
        # Move (and Run, Sprint) as this caver may take it (R-ACT-6), with the passives that widen it:
        # the Diver's Amphibious enters floods (R-CAV-1), the Climber's Agility squeezes and rubble (R-CAV-5).
        amphibious = (self.rank == RANK_DIVER)[:, None]
        agile = (self.rank == RANK_CLIMBER)[:, None]
        self.walk = self.passable & (~self.flooded | amphibious) & (~(self.squeeze | self.rubble) | agile)
        # Reveal targets: an open side facing an empty cell (R-CON-4), not barred by a ledge (R-TILE-7).
        x = st.t_x[g, self.tile][:, None] + DX[None, :]
        y = st.t_y[g, self.tile][:, None] + DY[None, :]
        empty = st.grid[rows, y, x] < 0
        self.empty = empty
        opened = (st.t_open[g, self.tile][:, None] & BIT[None, :]) != 0
        self.revealable = opened & empty & ~barred


def step_targets(core: "Core", st: State, g: np.ndarray) -> np.ndarray:
    """(n, 4) directions a Move (or run step) may take (R-ACT-6)."""
    return Around(st, g).walk


def legal_mask(core: "Core", st: State) -> np.ndarray:
    cfg = core.cfg
    b = st.batch_size
    mask = np.zeros((b, NUM_ACTIONS), dtype=bool)
    g = np.nonzero(st.result == RUNNING)[0]
    if not len(g):
        return mask
    lax = not cfg.no_effect_actions_illegal  # R-ACT-15 off: actions without effect stay legal
    ar = Around(st, g)
    ap = st.ap[g]
    normal = st.pend[g] == P_NONE
    placing = st.pend[g] == P_PLACE
    running = st.pend[g] == P_RUN
    m = mask[g]
    directed = st.directing[g] >= 0  # acting under the Leader's Direct: one 1-AP action (ap is 1)
    m[:, A_END] = normal
    m[:, A_EXERT] = normal & ~st.exerted[g] & ~directed
    can_draw = ((st.stack_pos[g] < st.stack.shape[1])  # R-CON-4; the Geologist may place his set-aside tile
                | ((ar.rank == RANK_GEOLOGIST) & (st.aside_tile[g] >= 0)))[:, None]
    m[:, A_REVEAL:A_REVEAL + 4] = (normal & (ap >= 1))[:, None] & ar.revealable & can_draw
    m[:, A_EXPLORE:A_EXPLORE + 4] = (normal & (ap >= cfg.explore_cost))[:, None] & ar.revealable & can_draw
    walk = ar.walk
    m[:, A_MOVE:A_MOVE + 4] = (normal & (ap >= 1))[:, None] & walk
    m[:, A_RUN] = normal & (ap >= 2) & walk.any(1)
    m[:, A_STEP:A_STEP + 4] = running[:, None] & walk
    m[:, A_STOP] = running & (st.run_taken[g] >= 1)
    two = (normal & (ap >= 2))[:, None]
    m[:, A_SWIM:A_SWIM + 4] = two & ar.passable & ar.flooded
    m[:, A_SQUEEZE:A_SQUEEZE + 4] = two & ar.passable & ar.squeeze & ~ar.rubble
    rubble_here = st.t_rubble[g, ar.tile]
    m[:, A_DIG_HERE] = two[:, 0] & (rubble_here | lax)
    m[:, A_DIG:A_DIG + 4] = two & (ar.rubble | (ar.has & lax))
    ttype = st.t_type[g, ar.tile]
    ropeable = ((ttype == T_LEDGE) | (ttype == T_SLIDE)) & (~st.t_rope[g, ar.tile] | lax)
    m[:, A_ROPE] = two[:, 0] & ropeable & (st.ropes_left[g] > 0)
    m[:, A_HIDE] = two[:, 0] & (~st.c_hidden[g, ar.seat] | lax)
    # Heal caver of rank r: on my tile, not devoured, hurt (R-ACT-9).
    here = (st.c_tile[g] == ar.tile[:, None]) & ~st.c_dead[g] & ((st.c_hp[g] < st.c_max[g]) | lax)
    heal_ok = (normal & (ap >= cfg.heal_cost))[:, None] & here  # (n, S)
    ranks = st.c_rank[g].astype(np.intp) - 1
    rows = np.arange(len(g))[:, None]
    heal = np.zeros((len(g), 8), dtype=bool)
    heal[rows, ranks] = heal_ok
    m[:, A_HEAL:A_HEAL + 8] = heal
    m[:, A_ROTATE:A_ROTATE + 4] = placing[:, None] & ((st.pend_rots[g][:, None] & BIT[None, :]) != 0)
    _abilities(core, st, g, ar, m, normal, here)
    m[:, A_DIRECT:A_DIRECT + 8] &= ~directed[:, None]
    mask[g] = m
    return mask


def _abilities(core: "Core", st: State, g: np.ndarray, ar: Around, m: np.ndarray, normal: np.ndarray,
               here: np.ndarray) -> None:
    """The cavers' ability actions (R-CAV); an acting caver is conscious, so R-CAV-9 holds by construction."""
    from . import abilities, placing  # late: they import this module's neighbours

    lax = not core.cfg.no_effect_actions_illegal
    one = normal & (st.ap[g] >= 1)
    two = normal & (st.ap[g] >= 2)
    rank = ar.rank
    rows = np.arange(len(g))[:, None]
    ttype = st.t_type[g, ar.tile]
    if (rank == RANK_CLIMBER).any():  # Gear: a rope on this ledge or slide, no check (R-CAV-5)
        ropeable = ((ttype == T_LEDGE) | (ttype == T_SLIDE)) & (~st.t_rope[g, ar.tile] | lax)
        m[:, A_GEAR] = one & (rank == RANK_CLIMBER) & ropeable & (st.ropes_left[g] > 0)
    if (rank == RANK_MEDIC).any():  # Bandage another caver here; Sprint (R-CAV-6)
        others = here & (np.arange(st.num_seats)[None, :] != ar.seat[:, None])
        bandage = np.zeros((len(g), 8), dtype=bool)
        bandage[rows, st.c_rank[g].astype(np.intp) - 1] = (one & (rank == RANK_MEDIC))[:, None] & others
        m[:, A_BANDAGE:A_BANDAGE + 8] = bandage
        m[:, A_SPRINT] = one & (rank == RANK_MEDIC) & ar.walk.any(1)
    if (rank == RANK_BODYGUARD).any():  # Repel a horror from a connected tile (R-CAV-7)
        m[:, A_REPEL:A_REPEL + 4] = (one & (rank == RANK_BODYGUARD))[:, None] & (ar.horror | (ar.has & lax))
    if (rank == RANK_GEOLOGIST).any():  # Excavate rubble here or on a connected tile (R-CAV-3)
        geo = one & (rank == RANK_GEOLOGIST)
        m[:, A_EXCAVATE_HERE] = geo & (st.t_rubble[g, ar.tile] | lax)
        m[:, A_EXCAVATE:A_EXCAVATE + 4] = geo[:, None] & (ar.rubble | (ar.has & lax))
    if (rank == RANK_LEADER).any():  # Direct another conscious caver, once per turn (R-CAV-8)
        lead = one & (rank == RANK_LEADER) & ~st.direct_used[g]
        able = (st.c_hp[g] > 0) & ~st.c_dead[g] & ~st.c_under[g] & (st.c_rank[g] != RANK_LEADER)
        direct = np.zeros((len(g), 8), dtype=bool)
        direct[rows, st.c_rank[g].astype(np.intp) - 1] = lead[:, None] & able
        m[:, A_DIRECT:A_DIRECT + 8] = direct
    m[:, A_REDRAW] = placing.scout_can_redraw(core, st, g)  # R-CAV-2
    picking = st.pend[g] == P_PICK  # R-CAV-3
    m[:, A_PICK] = picking
    m[:, A_PICK + 1] = picking
    if (rank == RANK_ENGINEER).any():  # Demolish a side that is not connected (R-CAV-4)
        closed = (st.t_open[g, ar.tile][:, None] & BIT[None, :]) == 0
        target = ~ar.has & (~ar.empty | closed)
        m[:, A_DEMOLISH:A_DEMOLISH + 4] = (two & (rank == RANK_ENGINEER) & (st.explosives[g] > 0))[:, None] & target
    if (rank == RANK_DIVER).any():  # Dive from a water tile; surface on a water tile (R-CAV-1)
        m[:, A_DIVE] = two & (rank == RANK_DIVER) & (ttype == T_WATER) & ~st.c_under[g, ar.seat]
        surfacing = st.pend[g] == P_SURFACE
        m[:, A_SURFACE:A_SURFACE + 8] = surfacing[:, None] & (abilities.water_tiles(st, g) >= 0)
