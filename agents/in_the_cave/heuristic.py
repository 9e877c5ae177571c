"""A simple heuristic team for In the Cave: packs sensibly, explores, photographs, goes home in time.

It reads the public game record (never the stacks' order, only their counts) through ``heuristic_action(g, P,
mask)``; ``HeuristicTeam(env)`` binds it to an AEC env for the ``act(observation, mask)`` protocol. Priorities,
in order: place a drawn tile (the placement with the most new unexplored exits); take the token of its space
(photograph, explore water); go home when its consumables or the remaining rounds only just cover the way back
(crawling when exhausted or short of ropes); refill at home; reveal; walk to the nearest space with an
unexplored exit or a token it can take; end the turn.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from subterra_env.core.catalogue import ROT_MASK
from subterra_env.in_the_cave.core import actions as A
from subterra_env.in_the_cave.core import layout as L
from subterra_env.in_the_cave.invariants import neighbours

DXY = ((0, -1), (1, 0), (0, 1), (-1, 0))
# what it packs, in order: camera, raft, 5 consumables, 1 rope (8 slots)
PACK_PLAN = ((A.A_TAKE + 3, 1), (A.A_TAKE + 4, 1), (A.A_TAKE + 0, 5), (A.A_TAKE + 1, 1))
SPEED_TENTHS = 10  # AP a space, in tenths, when planning trips


def _cells(g: np.ndarray) -> dict[tuple[int, int], int]:
    n = int(g[L.N_TILES])
    return {(int(g[L.TX + t]), int(g[L.TY + t])): t for t in range(n)}


def _bfs(g: np.ndarray, cells: dict, start: int, raft: bool = True, oxygen: bool = True,
         ropes: int = 99) -> tuple[dict[int, int], dict[int, int]]:
    """Steps from ``start`` to every tile the team can walk to with its equipment (water needs its raft or
    oxygen; an unroped depth change needs the ropes), and the first side to leave ``start`` by."""
    dist, first = {start: 0}, {start: -1}
    todo = deque([start])
    while todo:
        t = todo.popleft()
        for d, nb in neighbours(g, cells, t):
            if nb in dist:
                continue
            if g[L.TKIND + nb] == L.K_WATER and not (raft or oxygen):
                continue
            rise = abs(int(g[L.TDEPTH + nb]) - int(g[L.TDEPTH + t])) // 25
            if rise and not (g[L.TROPE + t] >> d) & 1 and rise > ropes:
                continue
            dist[nb] = dist[t] + 1
            first[nb] = d if t == start else first[t]
            todo.append(nb)
    return dist, first


def _step_toward(mask: np.ndarray, side: int, ap_full: bool) -> int | None:
    """The action that moves through ``side``: a move, a dive, or (all AP left) a crawl."""
    for base in (A.A_MOVE, A.A_DIVE):
        if mask[base + side]:
            return base + side
    if ap_full and mask[A.A_CRAWL + side]:
        return A.A_CRAWL + side
    return None


def _pack(g: np.ndarray, s: int, mask: np.ndarray) -> int:
    for a, want in PACK_PLAN:
        k = int(A.TAKE_KINDS[a - A.A_TAKE])
        if g[L.BP + s * L.NK + k] < want and mask[a]:
            return a
    return A.A_PACK_DONE


def _best_placement(g: np.ndarray, P: np.ndarray, mask: np.ndarray, cells: dict) -> int:
    """The legal placement whose tile opens most sides onto empty cells (more to explore); ties: lowest id."""
    s = int(g[L.ACTOR])
    t = int(g[L.POS + s])
    base = int(P[L.PR_CAT_MASK + int(g[L.PEND_CAT])])
    best, best_n = -1, -1
    for a in range(A.A_PLACE, A.A_PLACE + 16):
        if not mask[a]:
            continue
        d, r = divmod(a - A.A_PLACE, 4)
        x, y = int(g[L.TX + t]) + DXY[d][0], int(g[L.TY + t]) + DXY[d][1]
        opened = int(ROT_MASK[base, r])
        n = sum(1 for e in range(4) if (opened >> e) & 1 and (x + DXY[e][0], y + DXY[e][1]) not in cells)
        if n > best_n:
            best, best_n = a, n
    return best


def heuristic_action(g: np.ndarray, P: np.ndarray, mask: np.ndarray) -> int:
    """The heuristic's choice for the actor of game record ``g`` (params ``P``), among ``mask``'s legal actions."""
    mask = np.asarray(mask, dtype=bool)
    legal = np.flatnonzero(mask)
    s = int(g[L.ACTOR])
    pend = int(g[L.PEND])
    if pend in (L.P_SETUP, L.P_PACK):
        return _pack(g, s, mask)
    if pend == L.P_PLACE:
        return _best_placement(g, P, mask, _cells(g))
    if pend == L.P_BOULDER:
        return int(legal[0])
    for a in (A.A_PHOTO, A.A_EXPLORE):
        if mask[a]:
            return a
    pos = int(g[L.POS + s])
    cells = _cells(g)
    bp = g[L.BP + s * L.NK:L.BP + (s + 1) * L.NK]
    kit = {"raft": bp[L.E_RAFT] > 0, "oxygen": bp[L.E_OX2] + bp[L.E_OX1] > 0, "ropes": int(bp[L.E_ROPE])}
    dist, first = _bfs(g, cells, pos, **kit)
    home_dist, _ = _bfs(g, cells, 0, **kit)
    if 0 not in dist:  # cut off from home with this kit: any way back (crawling where it must)
        dist, first = _bfs(g, cells, pos)
    ap = int(P[L.PR_AP])
    ap_full = int(g[L.AP]) == ap
    cons = int(g[L.BP + s * L.NK + L.E_CONS])

    def turns(steps: int) -> int:  # turns to walk ``steps`` spaces at about SPEED AP a space
        return -(-steps * SPEED_TENTHS // (10 * ap))

    rounds_left = int(g[L.END_LEFT]) + 1 if g[L.END_TRIG] else 99
    tiles_left = int(g[L.STACK_N]) - int(g[L.STACK_POS])
    need_home = turns(home_dist.get(pos, 99))
    going_home = pos != 0 and (cons <= need_home or rounds_left <= need_home + 1 or bool(g[L.EXHAUSTED]))
    if going_home:
        a = _step_toward(mask, first[0], ap_full) if 0 in first else None
        return a if a is not None else (A.A_END if mask[A.A_END] else int(legal[0]))
    if pos == 0:
        if g[L.END_TRIG] and rounds_left <= 2:
            return A.A_END if mask[A.A_END] else int(legal[0])
        if mask[A.A_PACK] and any(g[L.BP + s * L.NK + int(A.TAKE_KINDS[a - A.A_TAKE])] < want
                                  for a, want in PACK_PLAN):
            return A.A_PACK
        if int(g[L.AP]) < 3:  # a turn that starts at home costs no upkeep: set out with full AP
            return A.A_END if mask[A.A_END] else int(legal[0])
    if mask[A.A_REVEAL]:
        return A.A_REVEAL
    # the nearest space worth going to, with the way there and home covered by the consumables packed: an
    # unexplored exit (tiles left) or a token this team can take
    cam = g[L.BP + s * L.NK + L.E_CAMERA] > 0
    oxy = g[L.BP + s * L.NK + L.E_OX2] + g[L.BP + s * L.NK + L.E_OX1] > 0
    best, best_d = -1, 99
    for (x, y), t in cells.items():
        if t not in dist or t == pos or dist[t] >= best_d:
            continue
        # the same test everywhere on the way (no flip-flop): the round trip's turns within the consumables
        if turns(dist[t] + home_dist.get(t, 99)) > cons or turns(dist[t] + home_dist.get(t, 99)) + 1 >= rounds_left:
            continue
        kind = int(g[L.TKIND + t])
        token = g[L.TTOKEN + t] and ((kind == L.K_WONDER and cam) or (kind == L.K_WATER and oxy)
                                     or kind == L.K_SQUEEZE)
        exits = tiles_left > 0 and kind not in (L.K_HOME, L.K_BOULDER) and any(
            (g[L.TOPEN + t] >> d) & 1 and (x + dx, y + dy) not in cells for d, (dx, dy) in enumerate(DXY))
        if token or exits:
            best, best_d = t, dist[t]
    if best >= 0:  # a step it cannot afford now waits for the next turn's AP (crawling if it never can)
        a = _step_toward(mask, first[best], ap_full)
        return a if a is not None else (A.A_END if mask[A.A_END] else int(legal[0]))
    if pos != 0 and pos in home_dist and 0 in first:  # nothing in reach: head home
        a = _step_toward(mask, first[0], ap_full)
        if a is not None:
            return a
    return A.A_END if mask[A.A_END] else int(legal[0])


class HeuristicTeam:
    """The heuristic bound to an AEC env of ``subterra_env.in_the_cave`` (it reads the env's public game)."""

    def __init__(self, env):
        self.env = env.unwrapped

    def act(self, observation: dict | None, action_mask: np.ndarray) -> int:
        return heuristic_action(self.env.game, self.env.core.P, action_mask)
