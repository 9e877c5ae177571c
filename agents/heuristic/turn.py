"""One decision of the heuristic: the entry point for each kind of pending decision, the overrides that come before
any plan, and a safe legal fallback. Whole-turn plans are valued in ``plans``.

Overrides, in order: a caver on the exit ends his turn (the Leader first directs a teammate onward); in
Annihilation a bomb card holder on an open bomb tile places the bomb (R-ANN-6) and a caver beside an unconscious
card holder takes the card (R-ANN-7; in Extraction a biosample, R-EXT-9), and a biosample holder hands it to the
team's carrier on its tile (``sample_carrier``); the Bodyguard
repels an adjacent horror (R-CAV-7); a knocked-out teammate on this tile is revived (the Medic bandages, R-CAV-6);
the Medic bandages a hurt teammate here; with the ``heal_at_1`` weight set, a caver on 1 health heals himself while
the exit is hidden (off by default since the retuning of 2026-11-27: the plans weigh that heal against drawing on,
``heal1``, and the team got more cavers out without the override).
"""

from __future__ import annotations

import numpy as np

from subterra_env.games.sub_terra.core.actions import (
    A_BANDAGE, A_END, A_GIVE, A_HEAL, A_MAP, A_PLACE_BOMB, A_REDRAW, A_REPEL, A_ROTATE, A_STEP, A_STOP, A_SURFACE, A_TAKE,
)
from subterra_env.games.sub_terra.core.catalogue import SC_ANNIHILATION, SC_EXTRACTION, SC_INVESTIGATION
from subterra_env.games.sub_terra.core.catalogue import T_WATER
from subterra_env.games.sub_terra.core.effects import RANK_BODYGUARD, RANK_LEADER, RANK_MEDIC, RANK_SCOUT
from subterra_env.games.sub_terra.core.state import P_PICK, P_PLACE, P_RUN, P_SURFACE

from .board import INF, end_danger, init_board, n_revealable
from .items import boost, gas_mask_answer, item_decision, item_override, item_swap, want_map
from .jit import jit
from .paths import step_pure
from .plans import best_plan, caver_field, decide_plan, direct, init_plans, path_of, worth_reviving
from .tiles import choose_pick, choose_rotation, want_redraw
from .weights import HEAL_AT_1, HP_AP


@jit
def decide(g, P, wt, bd, pl, mask):
    """The heuristic's action for game g (mask: its legal actions); always legal."""
    init_board(g, P, wt, bd)
    a = choose(g, P, wt, bd, pl, mask)
    if a < 0 or a >= mask.shape[0] or not mask[a]:
        a = fallback(mask)
    return a


@jit
def choose(g, P, wt, bd, pl, mask):
    pend = g.pend
    if P.scenario == SC_INVESTIGATION and g.r_seat >= 0:  # a Gas Mask decision, off-turn (R-INV-18)
        return gas_mask_answer(g)
    if P.scenario == SC_INVESTIGATION:  # the items' own decisions (R-INV-6, R-INV-10, R-INV-16)
        a = item_decision(g, P, bd, mask)
        if a >= 0:
            return a
        if pend == P_PLACE and want_map(g, P, mask):
            return A_MAP
    if pend == P_PLACE:
        if mask[A_REDRAW] and want_redraw(g, P, bd):
            return A_REDRAW
        return choose_rotation(g, P, bd, mask)
    if pend == P_PICK:
        return choose_pick(g, P, bd)
    if pend == P_RUN:
        return run_step(g, P, wt, bd, pl, mask)
    if pend == P_SURFACE:
        return surface(g, P, wt, bd, pl, mask)
    if g.directing >= 0:  # acting under the Leader's Direct (R-CAV-8): the best 1-AP action, or decline
        a = turn(g, P, wt, bd, pl, mask)
        return a if a >= 0 and mask[a] else A_END
    return turn(g, P, wt, bd, pl, mask)


@jit
def fallback(mask):
    """A safe legal action: end the turn, stop a run, the first rotation / step / surfacing, else anything."""
    for a in (A_END, A_STOP):
        if mask[a]:
            return a
    for lo, width in ((A_ROTATE, 4), (A_STEP, 4), (A_SURFACE, 8)):
        for a in range(lo, lo + width):
            if mask[a]:
                return a
    for a in range(mask.shape[0]):
        if mask[a]:
            return a
    return -1


@jit
def turn(g, P, wt, bd, pl, mask):
    s = np.int64(g.actor)
    if bd.exit >= 0 and g.c_tile[s] == bd.exit:
        a = direct(g, P, bd, wt, mask, -INF) if g.directing < 0 else -1
        if a < 0 and P.scenario == SC_INVESTIGATION:  # R-INV-8: from the exit, a teammate's free action
            a = boost(g, bd, wt, mask)
        return a if a >= 0 else A_END
    a = bombs(g, P, mask)
    if a < 0 and P.scenario == SC_INVESTIGATION:  # items first (R-INV-9..14)
        a = item_override(g, P, bd, wt, mask)
    if a < 0:
        a = repel(g, mask)
    if a < 0:
        a = revive_here(g, P, bd, wt, pl, mask)
    if a < 0:
        a = patch_up(g, bd, wt, mask)
    if a >= 0:
        return a
    init_plans(g, P, bd, wt, pl, s, 0)
    a = decide_plan(g, P, bd, wt, pl, mask)
    if P.scenario == SC_INVESTIGATION:  # the plan's Dig or Rope done with an item (R-INV-7, R-INV-13)
        a = item_swap(a, mask)
    return a


@jit
def run_step(g, P, wt, bd, pl, mask):
    """Inside a run or sprint: the next step toward the best plan's tile, or stop."""
    s = np.int64(g.actor)
    init_plans(g, P, bd, wt, pl, s, np.int64(g.run_left))
    v = best_plan(g, P, bd, wt, pl, np.int64(g.ap))[2]
    t0 = g.c_tile[s]
    if v != t0:
        n = path_of(pl, v)
        if n > 0 and mask[A_STEP + pl.sd[0]] and step_pure(g, bd, s, pl.su[0], pl.sd[0], pl.sk[0]):
            return A_STEP + pl.sd[0]
    if mask[A_STOP]:
        return A_STOP
    best, best_a = INF, -1  # a run must take a first step: the safest one
    for d in range(4):
        if mask[A_STEP + d]:
            x = end_danger(g, P, bd, s, g.t_nbr[t0, d])
            if best_a < 0 or x < best:
                best, best_a = x, A_STEP + d
    return best_a


@jit
def surface(g, P, wt, bd, pl, mask):
    """The Diver comes up on the water tile closest to where he is going (R-CAV-1)."""
    s = np.int64(g.actor)
    n = bd.n
    fronts = 0
    for t in range(n):
        pl.targets[t] = INF
        if bd.exit < 0 and n_revealable(g, bd, t) > 0:
            pl.targets[t] = 0.0
            fronts += 1
    if bd.exit >= 0:
        pl.targets[bd.exit] = 0.0
    elif fronts == 0:
        pl.targets[0] = 0.0
    goal = pl.goal
    caver_field(g, P, bd, pl, s, 2.0, goal)
    best, best_a = INF, -1
    k = 0
    for t in range(n):
        if g.t_type[t] != T_WATER:
            continue
        if k >= 8:
            break
        if mask[A_SURFACE + k]:
            c = goal[t] + wt[HP_AP] * end_danger(g, P, bd, s, t)
            if c < best:
                best, best_a = c, A_SURFACE + k
        k += 1
    return best_a


# ---------------------------------------------------------------------------------------------- overrides
@jit
def bombs(g, P, mask):
    """Annihilation: place a bomb here (R-ANN-6), else take the bomb card of an unconscious teammate here, who
    cannot carry it (R-ANN-7). Extraction with biosamples: take an unconscious teammate's biosample, to carry it out
    (R-EXT-9; place bomb is never legal there)."""
    if P.scenario != SC_ANNIHILATION and P.scenario != SC_EXTRACTION:
        return -1
    if mask[A_PLACE_BOMB]:
        return A_PLACE_BOMB
    for r in range(8):
        if mask[A_TAKE + r]:
            return A_TAKE + r
    if P.scenario == SC_EXTRACTION and g.c_samples[g.actor] > 0:  # pool the biosamples on one carrier
        c = sample_carrier(g)
        if c >= 0 and c != g.actor and mask[A_GIVE + g.c_rank[c] - 1]:
            return A_GIVE + g.c_rank[c] - 1
    return -1


@jit
def sample_carrier(g):
    """Extraction: the caver the team pools its biosamples on (-1: none). Any biosample not out is a defeat and
    the -1 is per holder, not per card (R-EXT-9), so one carrier risks one caver, not three: the conscious Leader
    (his +1 cancels the -1), else the Scout (never a monster's victim), else the Bodyguard (5 health), else the
    healthiest; ties: the lowest seat."""
    best, pick = -1, -1
    for s in range(g.n_seats):
        if g.c_dead[s] or g.c_hp[s] <= 0 or g.c_tile[s] < 0:
            continue
        r = g.c_rank[s]
        pref = 3 if r == RANK_LEADER else 2 if r == RANK_SCOUT else 1 if r == RANK_BODYGUARD else 0
        key = pref * 16 + g.c_hp[s]
        if key > best:
            best, pick = key, s
    return pick


@jit
def repel(g, mask):
    if g.c_rank[g.actor] != RANK_BODYGUARD:
        return -1
    for d in range(4):
        if mask[A_REPEL + d]:
            return A_REPEL + d
    return -1


@jit
def revive_here(g, P, bd, wt, pl, mask):
    s = g.actor
    for k in range(bd.seats):
        if k != s and g.c_tile[k] == g.c_tile[s] and not g.c_dead[k] and g.c_hp[k] == 0 and worth_reviving(
                g, P, bd, wt, pl, k, 0.0):
            r = g.c_rank[k]
            if mask[A_BANDAGE + r - 1]:
                return A_BANDAGE + r - 1
            if mask[A_HEAL + r - 1]:
                return A_HEAL + r - 1
    return -1


@jit
def patch_up(g, bd, wt, mask):
    s = g.actor
    t0 = g.c_tile[s]
    if g.c_rank[s] == RANK_MEDIC:
        k = -1
        for j in range(bd.seats):
            if j != s and g.c_tile[j] == t0 and not g.c_dead[j] and g.c_hp[j] < g.c_max[j] and \
                    mask[A_BANDAGE + g.c_rank[j] - 1]:
                if k < 0 or g.c_hp[j] < g.c_hp[k]:
                    k = j
        if k >= 0 and (bd.exit < 0 or g.c_hp[k] <= 1):
            return A_BANDAGE + g.c_rank[k] - 1
    if bd.exit >= 0 or g.directing >= 0:
        return -1
    if g.c_hp[s] == 1 and g.c_max[s] > 1 and wt[HEAL_AT_1] > 0:
        heal = A_HEAL + g.c_rank[s] - 1
        if mask[heal] and not (bd.guard == t0 and g.c_rank[s] != RANK_BODYGUARD):
            return heal
    return -1
