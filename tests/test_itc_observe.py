"""The compiled observation (``subterra_env.games.in_the_cave.core.observe``) against a plain Python reference of the same
description (the Python implementation it replaced, kept here as the spec): every grid channel and vector entry
of every seat, on states of the golden games (deep caves, camps, ropes, the hidden packing) and of random play.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from subterra_env.in_the_cave import preset
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.game import ItcCore, stacks_left
from subterra_env.games.in_the_cave.core.layout import MAX_SEATS, NK
from subterra_env.games.in_the_cave.core import observe as compiled
from subterra_env.games.in_the_cave.observe import (GRID_CHANNELS, LEARNER_RADIUS, VECTOR_NAMES, VECTOR_SIZE, flat,
                                              flat_radius, flat_size, grid, vector, vp)

_KIND0, _DEPTH, _TOKEN, _SQ, _ROPE0, _UNEXP, _ME, _OTHERS, _MYCAMP, _CAMPS = 5, 13, 14, 15, 16, 20, 21, 22, 23, 24
_OTHER_SIZE = compiled.OTHER_SIZE
GOLDEN = Path(__file__).resolve().parent / "golden"


_DEPTH_VP = np.array([0, 3, 4] + [5] * (L.LEVELS - 3), dtype=np.int64)  # R-ITC-SCORE-1


def vp_ref(g: np.ndarray, s: int) -> int:
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


def _setup(g: np.ndarray) -> bool:
    return int(g[L.PEND]) == L.P_SETUP  # the initial packing is hidden until all have packed (R-ITC-SET-9)


def _camp(g: np.ndarray, seat: int, s: int) -> int:
    """Another team's camp shows on the home base (where it starts, R-ITC-SET-8) during the hidden packing."""
    return 0 if s != seat and _setup(g) else int(g[L.CAMP + s])


def _bank(g: np.ndarray) -> list[int]:
    """The bank before anyone packed during the hidden packing (the live count tells what the others took)."""
    bank = [int(v) for v in g[L.BANK:L.BANK + 3]]
    if _setup(g):
        held = g[L.BP:L.BP + MAX_SEATS * NK].reshape(MAX_SEATS, NK) + g[L.CAMPC:L.CAMPC + MAX_SEATS * NK].reshape(
            MAX_SEATS, NK)
        bank[0] += int(held[:, 0].sum())
        bank[1] += int(held[:, 1].sum())
        bank[2] += int(held[:, 2:4].sum())
    return bank


def _camp_flags(g: np.ndarray, s: int, seat: int | None = None) -> list[int]:
    c = _camp(g, s if seat is None else seat, s)
    return [int(c == L.CAMP_PACKED), int(c >= 0), int(c == L.CAMP_GONE)]


def grid_ref(g: np.ndarray, seat: int, radius: int, cx: int, cy: int, seats: int) -> np.ndarray:
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
            t = int(g[base + s]) if base == L.POS else _camp(g, seat, s)
            if t < 0:
                continue
            x, y = int(g[L.TX + t]) - cx + radius, int(g[L.TY + t]) - cy + radius
            if 0 <= x < w and 0 <= y < w:
                out[mine if s == seat else other, y, x] += 1
    return out


def vector_ref(g: np.ndarray, P: np.ndarray, seat: int, seats: int) -> np.ndarray:
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
    own += _tokens(g, seat) + [vp_ref(g, seat), int(g[L.FIRST_PACK + seat]), int(g[L.TDEPTH + pos]) // 25, px, py]
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
    turn += _bank(g)
    others: list[int] = []
    setup = _setup(g)
    for i in range(1, MAX_SEATS):
        if i >= seats:
            others += [0] * _OTHER_SIZE
            continue
        s = (seat + i) % seats
        t = int(g[L.POS + s])
        obp = [0] * NK if setup else [int(v) for v in g[L.BP + s * NK:L.BP + (s + 1) * NK]]
        occ = [0] * NK if setup else [int(v) for v in g[L.CAMPC + s * NK:L.CAMPC + (s + 1) * NK]]
        others += [1, int(g[L.TX + t]) - px, int(g[L.TY + t]) - py, int(t == 0)] + obp + _camp_flags(g, s, seat) + occ
        others += _tokens(g, s) + [vp_ref(g, s)]
    v = np.array(own + turn + others, dtype=np.int64)
    return np.clip(v, -1000, 1000).astype(np.int16)



def _recorder():
    name = "golden_record_itc"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, GOLDEN / "record_itc.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _states():
    """(core, record) pairs: every 23rd state of the golden games of 3 groups, and random play at 2-5 teams."""
    rec = _recorder()
    fx = rec.load_fixture(GOLDEN / "itc_trajectories.npz")
    names = [g["name"] for g in fx["meta"]["groups"]]
    for name in ("heuristic2", "heuristic5", "first-game-limited"):
        gi = names.index(name)
        core = ItcCore(rec.group_config(fx["meta"]["groups"][gi]))
        for i in np.flatnonzero(fx["group"] == gi)[:4]:
            G = core.init([int(fx["seed"][i])])
            for k, a in enumerate(fx["actions"][fx["offsets"][i]:fx["offsets"][i + 1]]):
                core.step(G, [int(a)])
                if k % 23 == 0:
                    yield core, G[0].copy()
    for seats in (2, 3, 4, 5):
        core = ItcCore(preset("default", num_players=seats))
        for steps in (0, 2, 30, 300):
            seeds = np.arange(6) + 10 * steps
            G = core.init(seeds)
            core.random_playout(G, seeds, max_steps=steps)
            for g in G:
                yield core, g


def test_vector_layout_sizes():
    assert VECTOR_SIZE == len(VECTOR_NAMES) == 202
    assert VECTOR_SIZE == compiled.OWN_SIZE + compiled.TURN_SIZE + (MAX_SEATS - 1) * compiled.OTHER_SIZE


def test_compiled_observation_equals_the_reference():
    checked = 0
    for core, g in _states():
        seats = core.seats
        for seat in range(seats):
            pos = int(g[L.POS + seat])
            for radius, cx, cy in ((7, int(g[L.TX + pos]), int(g[L.TY + pos])), (10, 0, 0)):
                got, want = grid(g, seat, radius, cx, cy, seats), grid_ref(g, seat, radius, cx, cy, seats)
                bad = sorted({int(c) for c in np.argwhere(got != want)[:, 0]})
                assert not bad, f"grid channels {bad} differ (seat {seat}, radius {radius})"
            got, want = vector(g, core.P, seat, seats), vector_ref(g, core.P, seat, seats)
            bad = [VECTOR_NAMES[i] for i in np.flatnonzero(got != want)]
            assert not bad, f"vector entries {bad} differ (seat {seat})"
            assert vp(g, seat) == vp_ref(g, seat)
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("seats", [2, 5])
def test_observation_dtypes_and_shapes(seats):
    core = ItcCore(preset("default", num_players=seats))
    g = core.init([3])[0]
    assert grid(g, 0, 7, 0, 0, seats).shape == (GRID_CHANNELS, 15, 15)
    assert grid(g, 0, 7, 0, 0, seats).dtype == np.int8 and vector(g, core.P, 1, seats).dtype == np.int16


def test_learners_flat_input_is_the_grid_then_the_vector_as_float32():
    """``flat``: the input of the trained checkpoints (radius 5, 3,227 float32 values: the grid centred on the
    team's pawn, raveled, then the vector; the same values the training script built before it moved here)."""
    assert (LEARNER_RADIUS, flat_size()) == (5, 3227) and flat_size(7) == 25 * 15 * 15 + 202
    assert [flat_radius(n) for n in (3227, flat_size(7), flat_size(0), 3228, 202, 0)] == [5, 7, 0, None, None, None]
    checked = 0
    for core, g in _states():
        seats = core.seats
        for seat in range(seats):
            pos = int(g[L.POS + seat])
            x = flat(g, core.P, seat)
            want = np.concatenate((grid(g, seat, 5, int(g[L.TX + pos]), int(g[L.TY + pos]), seats).ravel(),
                                   vector(g, core.P, seat, seats))).astype(np.float32)
            assert x.dtype == np.float32 and x.shape == (3227,) and (x == want).all()
            assert flat(g, core.P, seat, radius=2).shape == (flat_size(2),)
            checked += 1
    assert checked > 1000
