"""Turning a path on the tile graph into actions: the AP a caver needs to stand at each point of it (moves,
runs, the Medic's sprint, swims, squeezes, digs, ropes, repels), and the first action toward a chosen point."""

from __future__ import annotations

from subterra_env.core.actions import (
    A_DEMOLISH,
    A_DIG,
    A_EXCAVATE,
    A_GEAR,
    A_MOVE,
    A_REPEL,
    A_ROPE,
    A_RUN,
    A_SPRINT,
    A_SQUEEZE,
    A_SWIM,
)
from subterra_env.core.effects import RANK_CLIMBER, RANK_GEOLOGIST, RANK_MEDIC, RANK_SCOUT

from .heuristic_board import E_BLAST, E_SQUEEZE, E_SWIM, INF, Board

# segment kinds in a plan
SEG_SINGLE, SEG_RUN, SEG_SPRINT = 0, 1, 2


def step_info(b: Board, s: int, step: tuple[int, int, int]) -> tuple[float, bool]:
    """(AP of crossing this step with single actions, whether it is a plain Move that a run can take)."""
    u, d, kind = step
    v = b.nbr[u][d]
    rank = b.rank[s]
    cost, pure = 0.0, True
    if kind == E_BLAST:
        return 3.0, False
    if b.barred(u, d):
        cost += 1.0 if rank == RANK_CLIMBER else 4.0  # rope: 2 AP and a skill check
        pure = False
    if v in b.horror_set and rank != RANK_SCOUT:
        cost += 1.0
        pure = False
    if b.rubble[v] and rank != RANK_CLIMBER:
        cost += 1.0 if rank == RANK_GEOLOGIST else 2.0
        pure = False
    if kind in (E_SWIM, E_SQUEEZE):
        cost += 2.0
        pure = False
    else:
        cost += 1.0
    return cost, pure


def reach_plan(b: Board, s: int, steps: list, free: int = 0):
    """best[i] = AP to stand after step i (best[0] = 0) and how[i] = (from index, segment kind).

    ``free``: steps left in a run or sprint already paid for (its plain-Move prefix costs nothing)."""
    n = len(steps)
    info = [step_info(b, s, st) for st in steps]
    best = [INF] * (n + 1)
    how = [(0, SEG_SINGLE)] * (n + 1)
    best[0] = 0.0
    run_steps = b.cfg.run_steps
    sprint = b.cfg.sprint_steps if b.rank[s] == RANK_MEDIC else 0
    prefix = 0
    while prefix < n and info[prefix][1]:
        prefix += 1
    for i in range(1, n + 1):
        if i <= free and i <= prefix:
            best[i], how[i] = 0.0, (0, SEG_RUN)
            continue
        best[i], how[i] = best[i - 1] + info[i - 1][0], (i - 1, SEG_SINGLE)
        j = 0
        while j < max(run_steps, sprint) and i - j - 1 >= 0 and info[i - j - 1][1]:
            j += 1
            start = i - j
            if j <= run_steps and j >= 2 and best[start] + 2 < best[i] - 1e-9:
                best[i], how[i] = best[start] + 2, (start, SEG_RUN)
            if j <= sprint and best[start] + 1 < best[i] - 1e-9:
                best[i], how[i] = best[start] + 1, (start, SEG_SPRINT)
    return best, how


def first_segment(how, e: int) -> tuple[int, int]:
    """(segment kind, its end index) of the first segment of the plan reaching index e."""
    i = e
    seg = (SEG_SINGLE, e)
    while i > 0:
        start, kind = how[i]
        seg = (kind, i)
        i = start
    return seg


def first_action(b: Board, s: int, steps: list, how, e: int, mask) -> int:
    """The action that starts the plan toward index e of the path (-1 if it is not legal)."""
    if e <= 0 or not steps:
        return -1
    kind, _ = first_segment(how, e)
    u, d, ek = steps[0]
    v = b.nbr[u][d]
    rank = b.rank[s]
    if ek == E_BLAST:
        a = A_DEMOLISH + d
    elif b.barred(u, d):
        a = A_GEAR if rank == RANK_CLIMBER else A_ROPE
    elif v in b.horror_set and rank != RANK_SCOUT:
        a = A_REPEL + d
    elif b.rubble[v] and rank != RANK_CLIMBER:
        a = A_EXCAVATE + d if rank == RANK_GEOLOGIST else A_DIG + d
    elif ek == E_SWIM:
        a = A_SWIM + d
    elif ek == E_SQUEEZE:
        a = A_SQUEEZE + d
    elif kind == SEG_RUN:
        a = A_RUN
    elif kind == SEG_SPRINT:
        a = A_SPRINT
    else:
        a = A_MOVE + d
    if mask[a]:
        return a
    if mask[A_MOVE + d]:
        return A_MOVE + d
    return -1
