"""Whole-turn plans of the acting caver, valued in AP units; the best one is started (and replanned at the next
decision, so a run's steps and the rest of the turn follow the same valuation).

* Exit hidden ("draw" mode): "walk to tile v (c AP), then draw there with the r AP left" is worth one per tile,
  less the danger of where the turn ends: v itself if it only reveals, a tile not drawn yet if the last draw is an
  explore (the remaining tiles' public mix), and ``pos`` per AP the next turn needs to reach the frontier. "Walk
  to v and stop" competes with it, and so do heal, hide and clearing the way (rope, dig, Repel).
* A goal tile ("goto" mode): the exit once it is placed, or a knocked-out teammate this caver is the closest one
  to reach. "Walk to v" is worth ``time_w`` per AP it leaves to go, less the danger of stopping on v; reaching the
  goal with the AP it needs earns a bonus. The Diver may dive and surface near the goal (R-CAV-1), the Engineer
  blasts through walls once the exit is placed (R-CAV-4, see ``board.adjacency``).
* Exert (R-ACT-2) when one more AP reaches the exit (nothing can hurt a caver there, so the failed check is free),
  draws one more tile while healthy, or gets on faster once the exit is placed; the Leader directs a teammate
  (R-CAV-8) when that teammate's free action is worth more than the Leader's last AP.

A plan is (value, kind, tile, detail, detail2): kind one of the PK_* below; detail is, for a draw, 1 when the
last draw only reveals (stay on v), for a prep the side and edge kind of the crossing to clear.
"""

from __future__ import annotations

import numpy as np

from subterra_env.games.sub_terra.core.actions import (
    A_BANDAGE, A_DIRECT, A_DIVE, A_END, A_EXERT, A_EXPLORE, A_HEAL, A_HIDE, A_REVEAL,
)
from subterra_env.games.sub_terra.core.catalogue import T_BOMB, T_WATER
from subterra_env.games.sub_terra.core.effects import RANK_CLIMBER, RANK_DIVER, RANK_GEOLOGIST, RANK_LEADER, RANK_MEDIC, RANK_SCOUT

from .board import (
    E_BLAST, HEAP, INF, NT, adjacency, barred, can_draw, conscious, empty_around_cell, end_danger, field_to,
    horror_danger, in_cave, n_revealable, new_tile_danger, revealable, reverse_crossings, shortest_paths,
)
from .jit import jit
from .paths import SEG_SINGLE, first_action, first_segment_kind, path_to, reach_plan, step_pure
from .tiles import SIDE_ROOM
from .weights import (
    CARE, DIRECT_STEP, DRAW_MORE, ESCAPE, EXERT_HP, EXERT_MARGIN, EXIT_EXERT_GAIN, EXIT_EXERT_HP, EXPLORE_POS, HEAL1,
    HEAL2, HEAL3, HIDE, HP_AP, PACE, POS, RESCUE_RANGE, REVIVE, TILE, TIME_W, URGENT_CARDS,
)

PK_END, PK_DRAW, PK_HEAL, PK_BANDAGE, PK_HIDE, PK_DIVE, PK_PREP = range(7)

# The plans of one acting caver: its paths from where it stands, its goal field and its crossings.
PLAN = np.dtype([
    ("cost", np.float64, (NT,)), ("apc", np.float64, (NT,)),  # cheapest way there: AP + health, AP alone
    ("pu", np.int64, (NT,)), ("pd", np.int64, (NT,)), ("pk", np.int64, (NT,)),  # the step into each tile
    ("goal", np.float64, (NT,)),  # cost from each tile to the goal (the exit, a teammate, the frontier)
    ("apto", np.float64, (NT,)),  # AP to stand on each tile with runs and sprints (-1 = not computed yet)
    # per tile, computed once per decision (best_plan runs up to three times): the danger of ending the round
    # there, the horrors' part of it, the sides a caver there may reveal (-1 = not computed yet)
    ("dv", np.float64, (NT,)), ("hd", np.float64, (NT,)), ("nrev", np.int64, (NT,)),
    ("av", np.int64, (NT, 4)), ("ad", np.int64, (NT, 4)), ("aa", np.float64, (NT, 4)), ("ap", np.float64, (NT, 4)),
    ("ak", np.int64, (NT, 4)), ("cnt", np.int64, (NT,)),  # the caver's crossings (board.adjacency)
    ("su", np.int64, (NT,)), ("sd", np.int64, (NT,)), ("sk", np.int64, (NT,)),  # a path's steps
    ("best", np.float64, (NT + 1,)), ("how_from", np.int64, (NT + 1,)), ("how_kind", np.int64, (NT + 1,)),
    # scratch: another caver's crossings and paths, the reversed crossings of a field, targets, a flag per tile
    ("xv", np.int64, (NT, 4)), ("xd", np.int64, (NT, 4)), ("xa", np.float64, (NT, 4)), ("xp", np.float64, (NT, 4)),
    ("xk", np.int64, (NT, 4)), ("xcnt", np.int64, (NT,)),
    ("xcost", np.float64, (NT,)), ("xapc", np.float64, (NT,)), ("xu", np.int64, (NT,)), ("xsd", np.int64, (NT,)),
    ("xsk", np.int64, (NT,)), ("back", np.float64, (NT,)),
    ("ru", np.int64, (NT, 4)), ("rw", np.float64, (NT, 4)), ("rcnt", np.int64, (NT,)),
    ("targets", np.float64, (NT,)), ("hc", np.float64, (HEAP,)), ("hu", np.int64, (HEAP,)), ("hps", np.int64, (8,)),
    ("s", np.int64), ("t0", np.int64), ("free", np.int64), ("target", np.int64), ("bonus", np.float64),
    ("need", np.float64), ("goto", np.bool_), ("can_draw", np.bool_), ("surface_to", np.float64),
    ("new_danger", np.float64), ("medic", np.bool_), ("medic_seat", np.int64), ("bandages", np.int64),
], align=True)


@jit
def heal_value(wt, hp):
    """Worth of one more health point at this health, in AP."""
    if hp == 1:
        return wt[HEAL1]
    if hp == 2:
        return wt[HEAL2]
    if hp == 3:
        return wt[HEAL3]
    if hp == 4:
        return 0.5
    return 0.3


@jit
def caver_field(g, P, bd, pl, k, hp_w, cost):
    """Cost for caver k from every tile to the cheapest of pl.targets (through horrors: plans beyond this turn)."""
    adjacency(g, P, bd, k, True, pl.xv, pl.xd, pl.xa, pl.xp, pl.xk, pl.xcnt)
    reverse_crossings(bd.n, hp_w, pl.xv, pl.xa, pl.xp, pl.xcnt, pl.ru, pl.rw, pl.rcnt)
    field_to(bd.n, pl.targets, pl.ru, pl.rw, pl.rcnt, pl.hc, pl.hu, cost)


@jit
def only_target(pl, n, t):
    """pl.targets = {t: 0}."""
    for i in range(n):
        pl.targets[i] = INF
    pl.targets[t] = 0.0


@jit
def worth_reviving(g, P, bd, wt, pl, k, reach):
    """Exit placed: only while a rescuer reach AP away can revive teammate k and he can still walk out before Out
    of Time (about pace AP per turn)."""
    if bd.exit < 0:
        return True
    if g.out_of_time:
        return False
    only_target(pl, bd.n, bd.exit)
    caver_field(g, P, bd, pl, k, 0.0, pl.back)
    b = pl.back[g.c_tile[k]]
    return b < INF and (reach + P.heal_cost + b) / wt[PACE] <= bd.cards_left - 0.5


@jit
def victim(g, P, bd, wt, pl):
    """Tile of a knocked-out teammate to revive: this caver is the one who reaches him cheapest, within
    rescue_range AP while the exit is hidden, and with time to bring him out once it is placed."""
    s = pl.s
    best, target = INF, -1
    for k in range(bd.seats):
        if k == s or g.c_dead[k] or g.c_under[k] or g.c_hp[k] > 0 or g.c_tile[k] < 0 or g.c_tile[k] == g.exit_tile:
            continue
        u = g.c_tile[k]
        mine = pl.cost[u]
        if mine >= INF or (bd.exit < 0 and mine > wt[RESCUE_RANGE]) or not worth_reviving(
                g, P, bd, wt, pl, k, pl.apc[u]):
            continue
        closer = False
        for j in range(bd.seats):
            if j != s and j != k and conscious(g, j) and in_cave(g, j) and g.c_tile[j] >= 0:
                adjacency(g, P, bd, j, False, pl.xv, pl.xd, pl.xa, pl.xp, pl.xk, pl.xcnt)
                shortest_paths(bd.n, g.c_tile[j], wt[HP_AP], pl.xv, pl.xd, pl.xa, pl.xp, pl.xk, pl.xcnt, pl.xcost,
                               pl.xapc, pl.xu, pl.xsd, pl.xsk, pl.hc, pl.hu)
                theirs = pl.xcost[u]
                if theirs < mine or (theirs == mine and j < s):
                    closer = True
                    break
        if not closer and mine < best:
            best, target = mine, u
    return target


@jit
def nearest_open_bomb(g, bd, pl):
    """The placed bomb tile without a token that the acting caver reaches cheapest (pl.cost), -1 if none."""
    best, u = INF, -1
    for t in range(bd.n):
        if g.t_type[t] == T_BOMB and not g.t_bomb[t] and pl.cost[t] < best:
            best, u = pl.cost[t], t
    return u


@jit
def init_plans(g, P, bd, wt, pl, s, free):
    """The plans of caver s (the acting caver); free: steps left in a run or sprint already paid for."""
    hp_w = wt[HP_AP]
    n = bd.n
    pl.s, pl.t0, pl.free = s, g.c_tile[s], free
    adjacency(g, P, bd, s, False, pl.av, pl.ad, pl.aa, pl.ap, pl.ak, pl.cnt)
    shortest_paths(n, pl.t0, hp_w, pl.av, pl.ad, pl.aa, pl.ap, pl.ak, pl.cnt, pl.cost, pl.apc, pl.pu, pl.pd, pl.pk,
                   pl.hc, pl.hu)
    for t in range(n):
        pl.apto[t] = -1.0
        pl.nrev[t] = -1
    pl.target, pl.bonus, pl.need = -1, 0.0, 0.0
    v = victim(g, P, bd, wt, pl)
    if v >= 0:
        pl.target, pl.bonus, pl.need = v, wt[REVIVE], float(P.heal_cost)
        only_target(pl, n, v)
        caver_field(g, P, bd, pl, s, hp_w, pl.goal)
    elif bd.exit >= 0:
        only_target(pl, n, bd.exit)
        caver_field(g, P, bd, pl, s, hp_w, pl.goal)  # the goal field too, if the exit can be reached
        if pl.goal[pl.t0] < INF:
            pl.target, pl.bonus = bd.exit, wt[ESCAPE]
    elif bd.bombs_open > 0 and g.c_bombs[s] > 0:  # Annihilation: carry a bomb card to the nearest open bomb tile
        u = nearest_open_bomb(g, bd, pl)
        if u >= 0:
            only_target(pl, n, u)
            caver_field(g, P, bd, pl, s, hp_w, pl.goal)
            pl.target, pl.bonus, pl.need = u, wt[ESCAPE], float(P.place_bomb_cost)
    pl.goto = pl.target >= 0
    pl.can_draw = can_draw(g, bd, g.c_rank[s]) and not pl.goto
    pl.surface_to = INF  # the Diver: AP from the best water tile to surface on to the goal
    if pl.goto:
        if g.c_rank[s] == RANK_DIVER:
            k = 0
            low = INF
            for t in range(n):
                if g.t_type[t] == T_WATER and k < 8:
                    k += 1
                    low = min(low, pl.goal[t])
            if k > 0:
                pl.surface_to = low + 1.0
                if pl.surface_to < INF:  # a dive from any water tile: 2 AP, the turn, 1 AP to surface
                    k = 0
                    for t in range(n):
                        if g.t_type[t] == T_WATER and k < 8:
                            k += 1
                            pl.targets[t] = pl.surface_to + 2.5
                    caver_field(g, P, bd, pl, s, hp_w, pl.goal)
    else:
        fronts = 0
        for t in range(n):
            pl.targets[t] = INF
            if pl.can_draw and n_revealable(g, bd, t) > 0:
                pl.targets[t] = 0.0
                fronts += 1
        if fronts:
            caver_field(g, P, bd, pl, s, hp_w, pl.goal)
        else:
            for t in range(n):
                pl.goal[t] = 0.0
    pl.new_danger = new_tile_danger(g, P, bd, s) if pl.can_draw else 0.0
    pl.medic = g.c_rank[s] == RANK_MEDIC and g.directing < 0
    m = bd.seat_of[RANK_MEDIC]
    pl.medic_seat = m if m >= 0 and m != s and conscious(g, m) and in_cave(g, m) else -1
    pl.bandages = 0


@jit
def path_of(pl, v):
    """Write the path from t0 to v into pl.su/sd/sk; returns its length."""
    return path_to(pl.t0, v, pl.pu, pl.pd, pl.pk, pl.su, pl.sd, pl.sk)


@jit
def ap_to(g, P, bd, pl, v):
    """AP to stand on v (runs and sprints included; steps of a run in progress are free)."""
    if pl.apto[v] < 0.0:
        if v == pl.t0:
            pl.apto[v] = 0.0
        else:
            n = path_of(pl, v)
            if n == 0:
                pl.apto[v] = INF
            else:
                reach_plan(g, P, bd, pl.s, pl.su, pl.sd, pl.sk, n, pl.free, pl.best, pl.how_from, pl.how_kind)
                pl.apto[v] = pl.best[n]
    return pl.apto[v]


@jit
def care_value(g, wt, pl, v):
    """A hurt caver ending his turn on the Medic's tile gets bandaged (1 AP for him) when the Medic acts."""
    s, m = pl.s, pl.medic_seat
    if m < 0 or g.c_tile[m] != v or g.c_hp[s] >= g.c_max[s] or g.c_hp[s] <= 0:
        return 0.0
    return wt[CARE] * heal_value(wt, g.c_hp[s])


@jit
def bandage_gain(g, bd, wt, pl, v, ap):
    """Worth of the Medic's bandages on tile v with ap AP, the lowest health first (sets pl.bandages)."""
    hps = pl.hps
    m = 0
    for k in range(bd.seats):
        if k != pl.s and g.c_tile[k] == v and not g.c_dead[k] and 0 < g.c_hp[k] < g.c_max[k]:
            hps[m] = g.c_hp[k]
            m += 1
    gain, used = 0.0, 0
    while m > 0 and used < ap:
        lo = 0
        for i in range(1, m):
            if hps[i] < hps[lo]:
                lo = i
        h = hps[lo]
        gain += heal_value(wt, h)
        used += 1
        if h + 1 < 3:
            hps[lo] = h + 1
        else:
            hps[lo] = hps[m - 1]
            m -= 1
    pl.bandages = used
    return gain


@jit
def best_plan(g, P, bd, wt, pl, budget):
    """(value, kind, tile, detail, detail2) of the best plan with this many AP (kinds: PK_*)."""
    s = pl.s
    W = wt[HP_AP]
    hp = np.int64(g.c_hp[s])
    rank = g.c_rank[s]
    directed = g.directing >= 0
    bv, bk, bt, b1, b2 = -INF, PK_END, pl.t0, 0, 0
    for v in range(bd.n):
        if pl.apc[v] > budget + 2 or pl.cost[v] >= INF:
            continue
        c = ap_to(g, P, bd, pl, v)
        if c > budget + 1e-9:
            continue
        r = budget - c
        pen = pl.cost[v] - pl.apc[v]  # health the way costs (active gas, rough terrain), in AP
        if pl.nrev[v] < 0:
            pl.dv[v] = end_danger(g, P, bd, s, v)
            pl.hd[v] = horror_danger(g, bd, s, v)
            pl.nrev[v] = n_revealable(g, bd, v)
        dv = pl.dv[v]
        nrev = pl.nrev[v]
        if pl.goto:
            val = -wt[TIME_W] * pl.goal[v] - W * dv - pen
            if v == pl.target and r >= pl.need:
                val += pl.bonus
            if val > bv:
                bv, bk, bt, b1, b2 = val, PK_END, v, 0, 0
        else:
            care = care_value(g, wt, pl, v)
            val = care - W * dv - wt[POS] * pl.goal[v] - pen
            if val > bv:
                bv, bk, bt, b1, b2 = val, PK_END, v, 0, 0
            nf = nrev if pl.can_draw else 0
            if nf and r >= 1:
                k = min(r, float(nf))
                m = k + wt[DRAW_MORE] * max(0.0, r - nf)
                stay = wt[TILE] * k + care - W * dv - wt[POS] * (0.0 if nf > r else 1.0)  # reveal only, stay on v
                go = wt[TILE] * m - W * pl.new_danger - wt[POS] * wt[EXPLORE_POS]  # the last draw an explore
                val = max(stay, go) - pen
                if val > bv:
                    bv, bk, bt, b1, b2 = val, PK_DRAW, v, 1 if stay >= go else 0, 0
        if r >= P.heal_cost and hp < g.c_max[s] and not directed and (hp <= 1 or not pl.goto):
            val = heal_value(wt, hp) - W * dv - pen - (wt[TIME_W] if pl.goto else wt[POS]) * pl.goal[v]
            if r - P.heal_cost >= 1 and pl.can_draw and nrev > 0:
                val += wt[TILE] * (r - P.heal_cost)
            if val > bv:
                bv, bk, bt, b1, b2 = val, PK_HEAL, v, 0, 0
        if pl.medic and r >= 1:  # the Medic's Bandage (R-CAV-6): 1 AP per health for a teammate on v
            gain = bandage_gain(g, bd, wt, pl, v, np.int64(r))
            if gain > 0:
                left = r - pl.bandages
                val = gain - W * dv - pen - (wt[TIME_W] if pl.goto else wt[POS]) * pl.goal[v]
                if left >= 1 and pl.can_draw and nrev > 0:
                    val += wt[TILE] * min(left, float(nrev))
                if val > bv:
                    bv, bk, bt, b1, b2 = val, PK_BANDAGE, v, 0, 0
        hd = pl.hd[v]
        if hd > 0 and r >= 2 and not directed:  # Hide (R-ACT-14): not a victim if the check passes
            ok = (2 / 3 if rank == RANK_LEADER else 0.5) * wt[HIDE]
            val = -W * (dv - hd * ok) - pen - wt[POS] * pl.goal[v]
            if val > bv:
                bv, bk, bt, b1, b2 = val, PK_HIDE, v, 0, 0
    if (pl.surface_to < INF and g.t_type[pl.t0] == T_WATER and budget >= 2 and not directed
            and not g.c_under[s]):
        val = -wt[TIME_W] * (pl.surface_to + 0.5)
        if val > bv:
            bv, bk, bt, b1, b2 = val, PK_DIVE, pl.t0, 0, 0
    if not directed:
        val, v, d, kind = prep_plan(g, P, bd, wt, pl, budget)
        if v >= 0 and val > bv:
            bv, bk, bt, b1, b2 = val, PK_PREP, v, d, kind
    return bv, bk, bt, b1, b2


@jit
def prep_plan(g, P, bd, wt, pl, budget):
    """Clear the way toward the goal from here when the crossing cannot be finished this turn: a rope on a ledge or
    slide (R-ACT-13, the Climber's gear), a dig or excavation of rubble, a Repel, a blast. (value, tile, side,
    edge kind); tile -1 = none."""
    s, t0 = pl.s, pl.t0
    rank = g.c_rank[s]
    bv, bt, bd_, bkind = -INF, -1, 0, 0
    for i in range(pl.cnt[t0]):
        v, d, a, pen, kind = pl.av[t0, i], pl.ad[t0, i], pl.aa[t0, i], pl.ap[t0, i], pl.ak[t0, i]
        if pl.goal[v] >= INF:
            continue
        if kind == E_BLAST:
            ap, saved = 2, 2.5
        elif barred(g, t0, d):
            if rank == RANK_CLIMBER:
                ap, saved = 1, 1.0
            else:
                ap, saved = 2, 4.0 * (2 / 3 if rank == RANK_LEADER else 0.5)
        elif bd.is_horror[v] and rank != RANK_SCOUT:
            ap, saved = 1, 1.0
        elif g.t_rubble[v] and rank != RANK_CLIMBER:
            if rank == RANK_GEOLOGIST:
                ap, saved = 1, 1.0
            else:
                ap, saved = 2, 2.0
        else:
            continue
        if ap > budget:
            continue
        left = pl.goal[v] + a + pen * wt[HP_AP] - saved
        val = -(wt[TIME_W] if pl.goto else wt[POS]) * left - wt[HP_AP] * end_danger(g, P, bd, s, t0)
        if bt < 0 or val > bv:
            bv, bt, bd_, bkind = val, v, d, kind
    return bv, bt, bd_, bkind


# ---------------------------------------------------------------------------------------------- acting
@jit
def decide_plan(g, P, bd, wt, pl, mask):
    """The acting caver's action from its best plan (an Exert or the Leader's Direct first when worth it)."""
    s = pl.s
    ap = np.int64(g.ap)
    directed = g.directing >= 0
    val, kind, v, d1, d2 = best_plan(g, P, bd, wt, pl, ap)
    if not directed and not g.exerted and mask[A_EXERT] and should_exert(g, P, bd, wt, pl, val):
        return A_EXERT
    if g.c_rank[s] == RANK_LEADER and not directed and ap >= 1 and not g.direct_used:
        a = direct(g, P, bd, wt, mask, val - best_plan(g, P, bd, wt, pl, ap - 1)[0])
        if a >= 0:
            return a
    return plan_action(g, P, bd, pl, kind, v, d1, d2, mask)


@jit
def should_exert(g, P, bd, wt, pl, val):
    s = pl.s
    val2, kind2, v2, _, _ = best_plan(g, P, bd, wt, pl, np.int64(g.ap) + 1)
    hp = g.c_hp[s]
    if pl.goto:
        if v2 == bd.exit and kind2 == PK_END and val2 > val:
            return True  # the check comes at the end of the turn, on the exit: no damage
        urgent = bd.exit >= 0 and (g.out_of_time or bd.cards_left <= wt[URGENT_CARDS])
        return hp >= (2 if urgent else wt[EXIT_EXERT_HP]) and val2 > val + wt[EXIT_EXERT_GAIN]
    if kind2 != PK_DRAW or hp < wt[EXERT_HP]:
        return False
    fail = 1 / 3 if g.c_rank[s] == RANK_LEADER else 0.5
    return val2 - wt[HP_AP] * fail > val + wt[EXERT_MARGIN]


@jit
def plan_action(g, P, bd, pl, kind, v, d1, d2, mask):
    s = pl.s
    if kind == PK_PREP:
        return first_action(g, bd, s, pl.t0, d1, d2, SEG_SINGLE, mask)
    if v != pl.t0:
        n = path_of(pl, v)
        if n == 0:
            return -1
        reach_plan(g, P, bd, s, pl.su, pl.sd, pl.sk, n, pl.free, pl.best, pl.how_from, pl.how_kind)
        e = 0
        for i in range(n + 1):
            if pl.best[i] <= g.ap + 1e-9:
                e = i
        e = max(e, 1)
        seg = first_segment_kind(pl.how_from, pl.how_kind, e)
        return first_action(g, bd, s, pl.su[0], pl.sd[0], pl.sk[0], seg, mask)
    if kind == PK_DRAW:
        best, side, sides = -INF, -1, 0
        for d in range(4):
            if revealable(g, bd, v, d):
                sides += 1
                sc = SIDE_ROOM * empty_around_cell(g, v, d)
                if sc > best:
                    best, side = sc, d
        explore = d1 == 0 and (g.ap > sides or g.ap == 1)
        a = (A_EXPLORE if explore else A_REVEAL) + side
        if mask[a]:
            return a
        return A_REVEAL + side if mask[A_REVEAL + side] else -1
    if kind == PK_BANDAGE:
        k = -1
        for j in range(bd.seats):
            if j != s and g.c_tile[j] == v and not g.c_dead[j] and 0 < g.c_hp[j] < g.c_max[j]:
                if k < 0 or g.c_hp[j] < g.c_hp[k]:
                    k = j
        return A_BANDAGE + g.c_rank[k] - 1
    if kind == PK_HEAL:
        return A_HEAL + g.c_rank[s] - 1
    if kind == PK_DIVE:
        return A_DIVE
    if kind == PK_HIDE:
        return A_HIDE
    return A_END


@jit
def direct(g, P, bd, wt, mask, own_value):
    """The Leader's Direct when a teammate's free 1-AP action is worth more than his own AP: a reveal at the
    frontier (exit hidden), a step onto the exit or toward it (exit placed)."""
    return free_action_for(g, bd, wt, mask, own_value, A_DIRECT)


@jit
def free_action_for(g, bd, wt, mask, own_value, first_id):
    """The teammate whose free 1-AP action is worth most, if more than ``own_value``: the id ``first_id + rank -
    1`` (Direct, R-CAV-8, or Investigation's Signal Booster, R-INV-8), -1 if none."""
    best, best_a = own_value, -1
    for k in range(bd.seats):
        r = g.c_rank[k]
        a = first_id + r - 1
        if not mask[a] or not conscious(g, k) or not in_cave(g, k):
            continue
        t = g.c_tile[k]
        val = 0.0
        if bd.exit < 0:
            if can_draw(g, bd, r) and n_revealable(g, bd, t) > 0:
                val = wt[TILE]
        else:
            for d in range(4):
                if g.t_nbr[t, d] == bd.exit and step_pure(g, bd, k, t, d, 0):
                    val = wt[ESCAPE]
            if val == 0.0:
                val = wt[DIRECT_STEP] * wt[TIME_W]
        if val > best:
            best, best_a = val, a
    return best_a
