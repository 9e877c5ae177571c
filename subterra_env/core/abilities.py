"""The cavers' ability actions (R-CAV) applied to the games `g` that chose them, in place."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .actions import K_BANDAGE, K_DEMOLISH, K_DIRECT, K_DIVE, K_EXCAVATE, K_GEAR, K_REPEL, K_SPRINT, K_SURFACE
from .board import actor_tile, cell_of
from .catalogue import BIT, OPPOSITE, T_WATER
from .effects import compact_horrors
from .hazards import cave_in
from .state import P_NONE, P_RUN, State

if TYPE_CHECKING:
    from .rules import Core


def seat_of_rank(st: State, g: np.ndarray, rank: np.ndarray) -> np.ndarray:
    return np.argmax(st.c_rank[g] == rank[:, None], axis=1)


def apply_ability(core: "Core", st: State, kind: int, g: np.ndarray, arg: np.ndarray) -> None:
    if kind == K_GEAR:  # R-CAV-5: rope without a check
        st.t_rope[g, actor_tile(st, g)] = True
        st.ropes_left[g] -= 1
    elif kind == K_BANDAGE:  # R-CAV-6: another caver here regains 1 health
        target = seat_of_rank(st, g, arg)
        st.c_hp[g, target] = np.minimum(st.c_hp[g, target] + 1, st.c_max[g, target])
    elif kind == K_SPRINT:  # R-CAV-6: up to sprint_steps Move steps, each its own decision
        st.pend[g], st.run_left[g], st.run_taken[g] = P_RUN, core.cfg.sprint_steps, 0
    elif kind == K_REPEL:  # R-CAV-7: the oldest horror on the connected tile leaves the cave
        target = st.t_nbr[g, actor_tile(st, g), arg]
        there = st.h_tile[g] == target[:, None]
        hit = there.any(1)  # with R-ACT-15 off, a Repel toward an empty tile does nothing
        st.h_tile[g[hit], np.argmax(there[hit], axis=1)] = -1
        compact_horrors(st, g)
    elif kind == K_EXCAVATE:  # R-CAV-3: as Dig, for 1 AP
        tile = actor_tile(st, g)
        target = np.where(arg == 4, tile, st.t_nbr[g, tile, np.minimum(arg, 3)])
        st.t_rubble[g, target] = False
    elif kind == K_DIRECT:  # R-CAV-8: the chosen caver takes one 1-AP action, free; the Leader waits
        st.direct_used[g] = True
        st.directing[g] = st.actor[g]
        st.saved_ap[g] = st.ap[g]
        st.actor[g] = seat_of_rank(st, g, arg)
        st.ap[g] = 1
        st.pend[g] = P_NONE
    elif kind == K_DEMOLISH:
        demolish(core, st, g, arg)
    elif kind == K_DIVE:  # R-CAV-1: leave the cave; the turn ends (the step sees him under water)
        seat = st.actor[g].astype(np.intp)
        st.c_under[g, seat] = True
        st.c_tile[g, seat] = -1
    elif kind == K_SURFACE:  # R-CAV-1: onto the arg-th water tile placed
        seat = st.actor[g].astype(np.intp)
        st.c_tile[g, seat] = water_tiles(st, g)[np.arange(len(g)), arg - 1]
        st.c_under[g, seat] = False
        st.pend[g] = P_NONE
    else:
        raise AssertionError(f"no ability of kind {kind}")


def water_tiles(st: State, g: np.ndarray, k: int = 8) -> np.ndarray:
    """(n, k) indices of the first k water tiles in placement order, -1 where fewer."""
    water = st.t_type[g] == T_WATER
    order = np.argsort(~water, axis=1, kind="stable")[:, :k]
    return np.where(np.take_along_axis(water, order, axis=1), order, -1)


def demolish(core: "Core", st: State, g: np.ndarray, d: np.ndarray) -> None:
    """R-CAV-4: an explosives token on side d (connecting the neighbour, or opening toward an empty cell),
    then a Cave-in event at once."""
    tile = actor_tile(st, g)
    x, y = cell_of(st, g, tile, d)
    other = st.grid[g, y, x].astype(np.intp)
    st.explosives[g] -= 1
    newly_open = (st.t_open[g, tile] & BIT[d]) == 0
    st.t_blast[g, tile] |= BIT[d]
    st.t_open[g, tile] |= BIT[d]
    n = other >= 0
    gn, tn, on, dn = g[n], tile[n], other[n], d[n]
    st.t_blast[gn, on] |= BIT[OPPOSITE[dn]]
    st.t_open[gn, on] |= BIT[OPPOSITE[dn]]
    st.t_nbr[gn, tn, dn] = on
    st.t_nbr[gn, on, OPPOSITE[dn]] = tn
    st.open_sides[g] += ~n & newly_open  # a new open side facing an empty cell (R-CON-4)
    cave_in(core.cfg, core.cat, st, g)


def finish_direct(st: State, g: np.ndarray) -> np.ndarray:
    """Hand the turn back to the Leader where the directed action is over (done, declined or knocked out).

    g: games that were carrying out a Direct before this step. Returns the games handed back.
    """
    directed = st.actor[g].astype(np.intp)
    over = (st.pend[g] == P_NONE) | (st.c_hp[g, directed] == 0)
    back = g[over]
    st.actor[back] = st.directing[back]
    st.ap[back] = st.saved_ap[back]
    st.directing[back] = -1
    st.pend[back] = P_NONE
    return back
