"""Observations of In the Cave for one team: a grid tensor centred on its pawn plus a vector.

Grid (int8, ``GRID_CHANNELS`` x (2R+1) x (2R+1), row = y, column = x, north up): tile present; open sides N/E/S/W
(a boulder choke: its one passage); kind one-hot (home, board, plain, water, wonder, squeeze, descent, boulder);
depth level (metres / 25); token still there; squeeze difficulty; roped sides N/E/S/W; unexplored exits; own
pawn; other pawns; own camp; other camps.

Vector (int16, ``VECTOR_SIZE``): the team's own block, the turn block, then one block per other team in seat
order after this one (zeros where no team sits): see ``VECTOR_NAMES``. Everything shown is public (R-ITC
introduction) except the team's own backpack during the hidden initial packing; the stacks' order never is.
"""

from __future__ import annotations

import numpy as np

from .core import layout as L
from .core.game import stacks_left
from .core.layout import MAX_SEATS, NK

GRID_CHANNELS = 25
_KIND0, _DEPTH, _TOKEN, _SQ, _ROPE0, _UNEXP, _ME, _OTHERS, _MYCAMP, _CAMPS = 5, 13, 14, 15, 16, 20, 21, 22, 23, 24
_OWN = (["bp_" + k for k in L.EQUIP_NAMES] + ["camp_" + k for k in L.EQUIP_NAMES]
        + ["camp_packed", "camp_here", "camp_gone", "camp_dx", "camp_dy", "camera_lost", "raft_lost",
           "camera_home", "raft_home", "traverse", "water", "photo", "squeeze1", "squeeze2", "squeeze3",
           "depth25", "depth50", "depth75plus", "vp", "first_pack_used", "depth_level", "x", "y"])
_TURN = (["my_turn", "ap", "exhausted"] + ["pend_" + p for p in L.PEND_NAMES]
         + ["drawn_" + k for k in L.KIND_NAMES[2:7]] + ["drawn_open_" + d for d in "NESW"] + ["drawn_squeeze"]
         + [f"place_{d}_r{r}" for d in "NESW" for r in range(4)] + [f"boulder_{d}" for d in "NESW"]
         + ["round", "end_triggered", "end_rounds_left", "stack1", "stack2", "stack3", "stack4", "discarded",
            "free_actions", "start_player_offset", "bank_consumables", "bank_ropes", "bank_oxygen"])
_OTHER = (["present", "dx", "dy", "at_home"] + ["bp_" + k for k in L.EQUIP_NAMES]
          + ["camp_packed", "camp_placed", "camp_gone"] + ["camp_" + k for k in L.EQUIP_NAMES]
          + ["traverse", "water", "photo", "squeeze1", "squeeze2", "squeeze3", "depth25", "depth50",
             "depth75plus", "vp"])
VECTOR_NAMES: tuple[str, ...] = tuple(_OWN + _TURN + [f"other{i}_{n}" for i in range(1, MAX_SEATS) for n in _OTHER])
VECTOR_SIZE = len(VECTOR_NAMES)
_DEPTH_VP = np.array([0, 3, 4] + [5] * (L.LEVELS - 3), dtype=np.int64)  # R-ITC-SCORE-1


def vp(g: np.ndarray, s: int) -> int:
    """R-ITC-SCORE-1: the VP of seat s's tokens so far (without majorities)."""
    sq = g[L.SQ + 3 * s:L.SQ + 3 * s + 3]
    depth = g[L.DEPTH_TOK + s * L.LEVELS:L.DEPTH_TOK + (s + 1) * L.LEVELS]
    return int(2 * g[L.TRAV + s] + 2 * g[L.PHOTO + s] + 3 * g[L.WATER + s] + 2 * sq[0] + 3 * sq[1] + 4 * sq[2]
               + int((_DEPTH_VP * (depth != 0)).sum()))


def _depth_counts(g: np.ndarray, s: int) -> list[int]:
    depth = g[L.DEPTH_TOK + s * L.LEVELS:L.DEPTH_TOK + (s + 1) * L.LEVELS]
    return [int(depth[1]), int(depth[2]), int(depth[3:].sum())]


def _tokens(g: np.ndarray, s: int) -> list[int]:
    return [int(g[L.TRAV + s]), int(g[L.WATER + s]), int(g[L.PHOTO + s])] + \
        [int(v) for v in g[L.SQ + 3 * s:L.SQ + 3 * s + 3]] + _depth_counts(g, s)


def _camp_flags(g: np.ndarray, s: int) -> list[int]:
    c = int(g[L.CAMP + s])
    return [int(c == L.CAMP_PACKED), int(c >= 0), int(c == L.CAMP_GONE)]


def grid(g: np.ndarray, seat: int, radius: int, cx: int, cy: int, seats: int) -> np.ndarray:
    """The (GRID_CHANNELS, 2R+1, 2R+1) window around cell (cx, cy) as ``seat`` sees it."""
    w = 2 * radius + 1
    out = np.zeros((GRID_CHANNELS, w, w), dtype=np.int8)
    n = int(g[L.N_TILES])
    xs, ys = g[L.TX:L.TX + n] - cx + radius, g[L.TY:L.TY + n] - cy + radius
    inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < w)
    occupied = {(int(x), int(y)) for x, y in zip(g[L.TX:L.TX + n], g[L.TY:L.TY + n])}
    for t in np.nonzero(inside)[0]:
        x, y = int(xs[t]), int(ys[t])
        kind, opened = int(g[L.TKIND + t]), int(g[L.TOPEN + t])
        sides = (1 << int(g[L.TBSIDE + t])) if kind == L.K_BOULDER else opened
        out[0, y, x] = 1
        unexplored = 0
        for d, (dx, dy) in enumerate(((0, -1), (1, 0), (0, 1), (-1, 0))):
            out[1 + d, y, x] = (sides >> d) & 1
            out[_ROPE0 + d, y, x] = (int(g[L.TROPE + t]) >> d) & 1
            tx, ty = int(g[L.TX + t]) + dx, int(g[L.TY + t]) + dy
            unexplored += int((opened >> d) & 1 and (tx, ty) not in occupied)
        out[_KIND0 + kind, y, x] = 1
        out[_DEPTH, y, x] = min(int(g[L.TDEPTH + t]) // 25, 127)
        out[_TOKEN, y, x] = int(g[L.TTOKEN + t])
        out[_SQ, y, x] = int(g[L.TSQ + t])
        out[_UNEXP, y, x] = unexplored
    for s in range(seats):
        for base, mine, other in ((L.POS, _ME, _OTHERS), (L.CAMP, _MYCAMP, _CAMPS)):
            t = int(g[base + s])
            if t < 0:
                continue
            x, y = int(g[L.TX + t]) - cx + radius, int(g[L.TY + t]) - cy + radius
            if 0 <= x < w and 0 <= y < w:
                out[mine if s == seat else other, y, x] += 1
    return out


def vector(g: np.ndarray, P: np.ndarray, seat: int, seats: int) -> np.ndarray:
    """The (VECTOR_SIZE,) int16 vector of ``seat`` (see VECTOR_NAMES)."""
    pos = int(g[L.POS + seat])
    px, py = int(g[L.TX + pos]), int(g[L.TY + pos])
    camp = int(g[L.CAMP + seat])
    bp = [int(v) for v in g[L.BP + seat * NK:L.BP + (seat + 1) * NK]]
    cc = [int(v) for v in g[L.CAMPC + seat * NK:L.CAMPC + (seat + 1) * NK]]
    cdx = int(g[L.TX + camp]) - px if camp >= 0 else 0
    cdy = int(g[L.TY + camp]) - py if camp >= 0 else 0
    cam_lost, raft_lost = int(g[L.CAM_LOST + seat]), int(g[L.RAFT_LOST + seat])
    own = bp + cc + _camp_flags(g, seat)[:1] + [int(camp == pos), int(camp == L.CAMP_GONE), cdx, cdy,
                                                 cam_lost, raft_lost,
                                                 int(not cam_lost and bp[4] == 0 and cc[4] == 0),
                                                 int(not raft_lost and bp[5] == 0 and cc[5] == 0)]
    own += _tokens(g, seat) + [vp(g, seat), int(g[L.FIRST_PACK + seat]), int(g[L.TDEPTH + pos]) // 25, px, py]
    my_turn = int(g[L.ACTOR]) == seat
    pend = int(g[L.PEND]) if my_turn else 0
    cat = int(g[L.PEND_CAT])
    drawn = [0] * 10  # the drawn tile is public (R-ITC-ACT-1): kind, base open sides, squeeze difficulty
    if cat >= 0:
        kind = int(P[L.PR_CAT_KIND + cat])
        if L.K_PLAIN <= kind <= L.K_DESCENT:
            drawn[kind - L.K_PLAIN] = 1
        for d in range(4):
            drawn[5 + d] = (int(P[L.PR_CAT_MASK + cat]) >> d) & 1
        drawn[9] = int(P[L.PR_CAT_SQ + cat])
    turn = [int(my_turn), int(g[L.AP]) if my_turn else 0, int(g[L.EXHAUSTED]) if my_turn else 0]
    turn += [int(pend == p) for p in range(len(L.PEND_NAMES))] + drawn
    pmask = int(g[L.PEND_MASK]) if my_turn else 0
    turn += [(pmask >> b) & 1 if pend == L.P_PLACE else 0 for b in range(16)]
    turn += [(pmask >> b) & 1 if pend == L.P_BOULDER else 0 for b in range(4)]
    turn += [int(g[L.ROUND]), int(g[L.END_TRIG]), int(g[L.END_LEFT])] + stacks_left(g)
    turn += [int(g[L.DISCARDED]), int(g[L.FREE_N]) if my_turn else 0, (int(g[L.START]) - seat) % seats]
    turn += [int(v) for v in g[L.BANK:L.BANK + 3]]
    others: list[int] = []
    setup = int(g[L.PEND]) == L.P_SETUP  # the initial packing is hidden until all have packed (R-ITC-SET-9)
    for i in range(1, MAX_SEATS):
        if i >= seats:
            others += [0] * len(_OTHER)
            continue
        s = (seat + i) % seats
        t = int(g[L.POS + s])
        obp = [0] * NK if setup else [int(v) for v in g[L.BP + s * NK:L.BP + (s + 1) * NK]]
        occ = [0] * NK if setup else [int(v) for v in g[L.CAMPC + s * NK:L.CAMPC + (s + 1) * NK]]
        others += [1, int(g[L.TX + t]) - px, int(g[L.TY + t]) - py, int(t == 0)] + obp + _camp_flags(g, s) + occ
        others += _tokens(g, s) + [vp(g, s)]
    v = np.array(own + turn + others, dtype=np.int64)
    return np.clip(v, -1000, 1000).astype(np.int16)

