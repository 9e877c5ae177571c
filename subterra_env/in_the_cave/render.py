"""A text picture of an In the Cave game: the cave (one character per space), the teams, the stacks."""

from __future__ import annotations

import numpy as np

from .core import layout as L
from .core.game import stacks_left, tokens

_CH = {L.K_HOME: "H", L.K_BOARD: "+", L.K_PLAIN: ".", L.K_WATER: "~", L.K_WONDER: "*", L.K_SQUEEZE: "s",
       L.K_DESCENT: "v", L.K_BOULDER: "#"}


def render_ansi(g: np.ndarray, seats: int) -> str:
    n = int(g[L.N_TILES])
    xs, ys = g[L.TX:L.TX + n], g[L.TY:L.TY + n]
    x0, y0 = int(xs.min()), int(ys.min())
    rows = [[" "] * (int(xs.max()) - x0 + 1) for _ in range(int(ys.max()) - y0 + 1)]
    for t in range(n):
        rows[int(ys[t]) - y0][int(xs[t]) - x0] = _CH[int(g[L.TKIND + t])]
    for s in range(seats):
        t = int(g[L.POS + s])
        rows[int(ys[t]) - y0][int(xs[t]) - x0] = str(s)
    lines = ["".join(r) for r in rows]
    lines.append(f"round {int(g[L.ROUND])}  actor {int(g[L.ACTOR])}  AP {int(g[L.AP])}  stacks {stacks_left(g)}")
    for s in range(seats):
        bp = [int(v) for v in g[L.BP + s * L.NK:L.BP + (s + 1) * L.NK]]
        lines.append(f"team {s}: backpack {dict(zip(L.EQUIP_NAMES, bp))} tokens {tokens(g, s)}")
    return "\n".join(lines)
