"""Turning a path on the tile graph into actions: the AP a caver needs to stand at each point of it (moves, runs,
the Medic's sprint, swims, squeezes, digs, ropes, repels), and the first action toward a chosen point.

A path is three arrays (from tile, side, edge kind) of its steps in order, as ``path_to`` writes them."""

from __future__ import annotations


from subterra_env.games.sub_terra.core.actions import (
    A_DEMOLISH, A_DIG, A_EXCAVATE, A_GEAR, A_MOVE, A_REPEL, A_ROPE, A_RUN, A_SPRINT, A_SQUEEZE, A_SWIM,
)
from subterra_env.games.sub_terra.core.effects import RANK_CLIMBER, RANK_GEOLOGIST, RANK_MEDIC, RANK_SCOUT

from .board import E_BLAST, E_SQUEEZE, E_SWIM, barred
from .jit import jit

SEG_SINGLE, SEG_RUN, SEG_SPRINT = 0, 1, 2  # how a plan covers a stretch of its path


@jit
def step_cost(g, bd, s, u, d, kind):
    """AP of crossing one step (u, d, kind) with single actions."""
    v = g.t_nbr[u, d]
    rank = g.c_rank[s]
    if kind == E_BLAST:
        return 3.0
    cost = 0.0
    if barred(g, u, d):
        cost += 1.0 if rank == RANK_CLIMBER else 4.0  # rope: 2 AP and a skill check
    if bd.is_horror[v] and rank != RANK_SCOUT:
        cost += 1.0
    if g.t_rubble[v] and rank != RANK_CLIMBER:
        cost += 1.0 if rank == RANK_GEOLOGIST else 2.0
    if kind == E_SWIM or kind == E_SQUEEZE:
        cost += 2.0
    else:
        cost += 1.0
    return cost


@jit
def step_pure(g, bd, s, u, d, kind):
    """The step is a plain Move that a run can take."""
    if kind == E_BLAST or kind == E_SWIM or kind == E_SQUEEZE or barred(g, u, d):
        return False
    v = g.t_nbr[u, d]
    rank = g.c_rank[s]
    if bd.is_horror[v] and rank != RANK_SCOUT:
        return False
    if g.t_rubble[v] and rank != RANK_CLIMBER:
        return False
    return True


@jit
def path_to(src, dst, pu, pd, pk, su, sd, sk):
    """Write the steps from src to dst (from the Dijkstra's predecessors) into su/sd/sk; returns their number
    (0 when dst is src or unreachable)."""
    n = 0
    t = dst
    while t != src:
        if pu[t] < 0:
            return 0
        n += 1
        t = pu[t]
    t = dst
    i = n
    while t != src:
        i -= 1
        su[i], sd[i], sk[i] = pu[t], pd[t], pk[t]
        t = pu[t]
    return n


@jit
def reach_plan(g, P, bd, s, su, sd, sk, n, free, best, how_from, how_kind):
    """best[i] = AP to stand after step i (best[0] = 0) and how = (from index, segment kind) of the last segment.

    ``free``: steps left in a run or sprint already paid for (its plain-Move prefix costs nothing)."""
    run_steps = P.run_steps
    sprint = P.sprint_steps if g.c_rank[s] == RANK_MEDIC else 0
    longest = max(run_steps, sprint)
    best[0] = 0.0
    how_from[0], how_kind[0] = 0, SEG_SINGLE
    prefix = 0
    while prefix < n and step_pure(g, bd, s, su[prefix], sd[prefix], sk[prefix]):
        prefix += 1
    for i in range(1, n + 1):
        if i <= free and i <= prefix:
            best[i], how_from[i], how_kind[i] = 0.0, 0, SEG_RUN
            continue
        best[i] = best[i - 1] + step_cost(g, bd, s, su[i - 1], sd[i - 1], sk[i - 1])
        how_from[i], how_kind[i] = i - 1, SEG_SINGLE
        j = 0
        while j < longest and i - j - 1 >= 0 and step_pure(g, bd, s, su[i - j - 1], sd[i - j - 1], sk[i - j - 1]):
            j += 1
            start = i - j
            if j <= run_steps and j >= 2 and best[start] + 2 < best[i] - 1e-9:
                best[i], how_from[i], how_kind[i] = best[start] + 2, start, SEG_RUN
            if j <= sprint and best[start] + 1 < best[i] - 1e-9:
                best[i], how_from[i], how_kind[i] = best[start] + 1, start, SEG_SPRINT


@jit
def first_segment_kind(how_from, how_kind, e):
    """Segment kind of the first segment of the plan reaching index e."""
    i = e
    kind = SEG_SINGLE
    while i > 0:
        kind = how_kind[i]
        i = how_from[i]
    return kind


@jit
def first_action(g, bd, s, u, d, ek, seg_kind, mask):
    """The action that starts a plan whose first step is (u, d, ek), covered by a segment of seg_kind (-1 if it is
    not legal)."""
    v = g.t_nbr[u, d]
    rank = g.c_rank[s]
    if ek == E_BLAST:
        a = A_DEMOLISH + d
    elif barred(g, u, d):
        a = A_GEAR if rank == RANK_CLIMBER else A_ROPE
    elif bd.is_horror[v] and rank != RANK_SCOUT:
        a = A_REPEL + d
    elif g.t_rubble[v] and rank != RANK_CLIMBER:
        a = A_EXCAVATE + d if rank == RANK_GEOLOGIST else A_DIG + d
    elif ek == E_SWIM:
        a = A_SWIM + d
    elif ek == E_SQUEEZE:
        a = A_SQUEEZE + d
    elif seg_kind == SEG_RUN:
        a = A_RUN
    elif seg_kind == SEG_SPRINT:
        a = A_SPRINT
    else:
        a = A_MOVE + d
    if mask[a]:
        return a
    if mask[A_MOVE + d]:
        return A_MOVE + d
    return -1
