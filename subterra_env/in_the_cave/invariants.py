"""The invariant checker of In the Cave: properties every reachable game record must have. ``check(g, config)``
returns the list of violations (empty = fine); tests run it after every step of random games.

- token conservation: bank + backpacks + camps + lost = the bank's start, per equipment pile (R-ITC-SET-6);
  exploration tokens held = tokens gone from the tiles (water, photo, squeeze by difficulty); traverse lines =
  ropes on the roped edges (R-ITC-ACT-5); one camera and one raft at most per team, none once lost (SET-7)
- slot limits: backpack (a packed camp covers 2) and camp (R-ITC-SET-7)
- tiles: one tile drawn per tile placed (R-ITC-ACT-1/2), every space reachable from the home base (TILE-1),
  tokens only on water, wonder and squeeze tiles (ACT-3)
- depth consistency: board spaces at 0; every tile at its revealer's depth, +step for a descent (ACT-3); roped
  edges symmetric and only between different depths (ACT-5)
- scores: at the end, the record's scores equal an independent recount (R-ITC-SCORE)
"""

from __future__ import annotations

from collections import deque

import numpy as np

from .config import ItcConfig
from .core import layout as L
from .observe import vp

DX, DY, OPP = (0, 1, 0, -1), (-1, 0, 1, 0), (2, 3, 0, 1)


def _cells(g: np.ndarray) -> dict[tuple[int, int], int]:
    n = int(g[L.N_TILES])
    return {(int(g[L.TX + t]), int(g[L.TY + t])): t for t in range(n)}


def neighbours(g: np.ndarray | list[int], cells: dict[tuple[int, int], int], t: int) -> list[tuple[int, int]]:
    """(side, tile) of t's connections (R-ITC-TILE-1), recomputed in Python independently of the compiled rules."""
    out = []
    for d in range(4):
        nb = cells.get((int(g[L.TX + t]) + DX[d], int(g[L.TY + t]) + DY[d]), -1)
        if nb < 0:
            continue
        if g[L.TKIND + t] == L.K_BOULDER:
            ok = g[L.TBSIDE + t] == d
        elif g[L.TKIND + nb] == L.K_BOULDER:
            ok = g[L.TBSIDE + nb] == OPP[d]
        else:
            ok = (g[L.TOPEN + t] >> d) & 1 and (g[L.TOPEN + nb] >> OPP[d]) & 1
        if ok:
            out.append((d, nb))
    return out


def majority_bonus(values: list[int], alive: list[bool]) -> list[int]:
    """R-ITC-SCORE-2 for one category, recounted."""
    vals = [v if a and v > 0 else 0 for v, a in zip(values, alive)]
    best = max(vals)
    out = [0] * len(vals)
    if best == 0:
        return out
    top = [i for i, v in enumerate(vals) if v == best]
    if len(top) == 2:
        for i in top:
            out[i] = 4
    elif len(top) == 1:
        out[top[0]] = 8
        rest = [v for v in vals if v < best]
        second = max(rest) if rest else 0
        sec = [i for i, v in enumerate(vals) if v == second and second > 0]
        if len(sec) == 1:
            out[sec[0]] = 4
    return out


def recount_scores(g: np.ndarray, seats: int) -> list[int]:
    alive = [int(g[L.POS + s]) == 0 for s in range(seats)]
    scores = [vp(g, s) if alive[s] else 0 for s in range(seats)]
    sq = [int(g[L.SQ + 3 * s:L.SQ + 3 * s + 3].sum()) for s in range(seats)]
    for cat in ([int(g[L.TRAV + s]) for s in range(seats)], [int(g[L.WATER + s]) for s in range(seats)],
                [int(g[L.PHOTO + s]) for s in range(seats)], sq):
        for s, b in enumerate(majority_bonus(cat, alive)):
            scores[s] += b if alive[s] else 0
    return scores


def check(g: np.ndarray, config: ItcConfig) -> list[str]:
    errs: list[str] = []
    seats, nk = config.num_players, L.NK
    bp = g[L.BP:L.BP + seats * nk].reshape(seats, nk)
    cc = g[L.CAMPC:L.CAMPC + seats * nk].reshape(seats, nk)
    held = bp.sum(0) + cc.sum(0)
    start = (config.bank_consumables, config.bank_ropes, config.bank_oxygen)
    for b, (name, total) in enumerate(zip(("consumables", "ropes", "oxygen"), start)):
        h = held[0] if b == 0 else held[1] if b == 1 else held[2] + held[3]
        got = int(g[L.BANK + b]) + int(h) + int(g[L.LOST + b])
        if got != total:
            errs.append(f"{name}: bank + held + lost = {got}, expected {total}")
        if config.limited_bank and g[L.BANK + b] < 0:
            errs.append(f"{name}: limited bank below 0")
    for s in range(seats):
        packed = int(g[L.CAMP + s]) == L.CAMP_PACKED
        used = int(bp[s].sum()) + 2 * packed
        if used > config.backpack_slots:
            errs.append(f"seat {s}: backpack uses {used} > {config.backpack_slots} slots")
        if cc[s].sum() > config.camp_slots:
            errs.append(f"seat {s}: camp holds {int(cc[s].sum())} > {config.camp_slots}")
        for k, lost in ((L.E_CAMERA, L.CAM_LOST), (L.E_RAFT, L.RAFT_LOST)):
            n = int(bp[s, k] + cc[s, k])
            if n > 1 or (g[lost + s] and n):
                errs.append(f"seat {s}: {L.EQUIP_NAMES[k]} count {n}, lost {int(g[lost + s])}")
        if g[L.CAMP + s] == L.CAMP_GONE and cc[s].sum():
            errs.append(f"seat {s}: an abandoned camp holds tokens")
        if not 0 <= g[L.POS + s] < g[L.N_TILES]:
            errs.append(f"seat {s}: pawn on tile {int(g[L.POS + s])}")
    n = int(g[L.N_TILES])
    board = 5 if seats >= 3 else 4
    placing = int(g[L.PEND]) in (L.P_PLACE, L.P_BOULDER)
    if n != board + int(g[L.STACK_POS]) - placing:
        errs.append(f"{n} tiles on the table after {int(g[L.STACK_POS])} draws (placing: {placing})")
    r = g.tolist()  # plain ints: indexing a list is about 10x faster than a numpy scalar read
    cells = _cells(g)
    links = [neighbours(r, cells, t) for t in range(n)]
    seen, todo = {0}, deque([0])
    while todo:
        t = todo.popleft()
        for _, nb in links[t]:
            if nb not in seen:
                seen.add(nb)
                todo.append(nb)
    if len(seen) != n:
        errs.append(f"{n - len(seen)} tiles not connected to the home base")
    step = config.depth_step
    ropes = 0
    for t in range(n):
        kind, depth = int(r[L.TKIND + t]), int(r[L.TDEPTH + t])
        nbs = links[t]
        if kind in (L.K_HOME, L.K_BOARD):
            if depth != 0:
                errs.append(f"board space {t} at depth {depth}")
        else:
            rise = step if kind == L.K_DESCENT else 0
            if not any(int(r[L.TDEPTH + nb]) + rise == depth for _, nb in nbs):
                errs.append(f"tile {t} ({L.KIND_NAMES[kind]}) at depth {depth}: no neighbour it was revealed from")
        if r[L.TTOKEN + t] and kind not in (L.K_WATER, L.K_WONDER, L.K_SQUEEZE):
            errs.append(f"tile {t} ({L.KIND_NAMES[kind]}) holds a token")
        for d in range(4):
            if (r[L.TROPE + t] >> d) & 1:
                nb = cells.get((int(r[L.TX + t]) + DX[d], int(r[L.TY + t]) + DY[d]), -1)
                if nb < 0 or not (r[L.TROPE + nb] >> OPP[d]) & 1:
                    errs.append(f"rope on tile {t} side {d} not on both tiles")
                elif r[L.TDEPTH + nb] == depth:
                    errs.append(f"rope between tiles {t} and {nb} of the same depth")
                elif t < nb:
                    ropes += abs(int(r[L.TDEPTH + nb]) - depth) // step
    kinds, tok = g[L.TKIND:L.TKIND + n], g[L.TTOKEN:L.TTOKEN + n]
    sqd = g[L.TSQ:L.TSQ + n]
    taken = {"water": int(((kinds == L.K_WATER) & (tok == 0)).sum()),
             "photo": int(((kinds == L.K_WONDER) & (tok == 0)).sum())}
    for name, base in (("water", L.WATER), ("photo", L.PHOTO)):
        if int(g[base:base + seats].sum()) != taken[name]:
            errs.append(f"{name} tokens held {int(g[base:base + seats].sum())} != taken from tiles {taken[name]}")
    for d in (1, 2, 3):
        gone = int(((kinds == L.K_SQUEEZE) & (sqd == d) & (tok == 0)).sum())
        have = sum(int(g[L.SQ + 3 * s + d - 1]) for s in range(seats))
        if gone != have:
            errs.append(f"squeeze {d} tokens held {have} != taken from tiles {gone}")
    if int(g[L.TRAV:L.TRAV + seats].sum()) != ropes:
        errs.append(f"traverse lines {int(g[L.TRAV:L.TRAV + seats].sum())} != ropes on roped edges {ropes}")
    if g[L.OVER] == L.ENDED:
        want = recount_scores(g, seats)
        if [int(v) for v in g[L.SCORE:L.SCORE + seats]] != want:
            errs.append(f"scores {list(g[L.SCORE:L.SCORE + seats])} != recount {want}")
    return errs
