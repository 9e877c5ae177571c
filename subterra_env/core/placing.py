"""Reveal and Explore from the draw to the placed tile (R-ACT-5, R-ACT-7, R-CON-4), with the Scout's Sense of
direction (R-CAV-2) and the Geologist's Intuition (R-CAV-3) as decision points on the way.

    reveal/explore -> [Geologist: pick drawn or set-aside] -> [Scout: redraw?] + rotate -> placed (-> moved)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .board import actor_tile, cell_of, draw_for_reveal, place, rotations_for
from .catalogue import BIT, POPCOUNT
from .effects import RANK_GEOLOGIST, RANK_SCOUT, enter_tile
from .state import P_NONE, P_PICK, P_PLACE, State

if TYPE_CHECKING:
    from .rules import Core


def _rank(st: State, g: np.ndarray) -> np.ndarray:
    return st.c_rank[g, st.actor[g]]


def start_reveal(core: "Core", st: State, g: np.ndarray, d: np.ndarray, explore: bool) -> None:
    st.pend[g], st.pend_dir[g], st.pend_explore[g], st.pend_redrawn[g] = P_PLACE, d, explore, False
    geo = (_rank(st, g) == RANK_GEOLOGIST) & (st.aside_tile[g] >= 0)
    plain = g[~geo]
    draw_for_reveal(core.cat, st, plain, core.cfg.exit_never_discarded)
    offer(core, st, plain)
    if geo.any():
        _geologist_draw(core, st, g[geo])


def _geologist_draw(core: "Core", st: State, g: np.ndarray) -> None:
    """Intuition: draw, then place either the drawn or the set-aside tile; the other stays aside."""
    draw_for_reveal(core.cat, st, g, core.cfg.exit_never_discarded)
    drawn_ok = st.pend_tile[g] >= 0
    aside_ok = rotations_for(core.cat, st, g, st.aside_tile[g].astype(np.intp), core.cfg.exit_never_discarded) > 0
    st.pend[g[drawn_ok & aside_ok]] = P_PICK
    only_aside = g[aside_ok & ~drawn_ok]  # the stack gave nothing placeable: place the set-aside tile
    _swap_aside(core, st, only_aside)
    offer(core, st, g[~(drawn_ok & aside_ok)])


def _swap_aside(core: "Core", st: State, g: np.ndarray) -> None:
    drawn = st.pend_tile[g].copy()
    st.pend_tile[g] = st.aside_tile[g]
    st.aside_tile[g] = drawn
    st.pend_rots[g] = rotations_for(core.cat, st, g, st.pend_tile[g].astype(np.intp), core.cfg.exit_never_discarded)


def pick(core: "Core", st: State, g: np.ndarray, which: np.ndarray) -> None:
    """The Geologist's choice: 0 = the drawn tile, 1 = the set-aside tile."""
    _swap_aside(core, st, g[which == 1])
    st.pend[g] = P_PLACE
    offer(core, st, g)


def scout_can_redraw(core: "Core", st: State, g: np.ndarray) -> np.ndarray:
    """Sense of direction is on offer: Scout placing, uses left, not yet redrawn, not the exit, tiles left."""
    return ((_rank(st, g) == RANK_SCOUT) & (st.pend[g] == P_PLACE) & (st.scout_redraws[g] > 0)
            & ~st.pend_redrawn[g] & (st.stack_pos[g] < st.stack.shape[1])
            & ((st.pend_tile[g] != core.cat.exit_id) | core.cfg.scout_may_discard_exit))


def redraw(core: "Core", st: State, g: np.ndarray) -> None:
    """Discard the drawn tile and draw the next one, which must be placed."""
    st.scout_redraws[g] -= 1
    st.pend_redrawn[g] = True
    draw_for_reveal(core.cat, st, g, core.cfg.exit_never_discarded)
    offer(core, st, g)


def offer(core: "Core", st: State, g: np.ndarray) -> None:
    """After a draw: nothing to place ends the reveal; a single choice is placed at once (no decision)."""
    nothing = g[(st.pend_tile[g] < 0) & (st.pend[g] == P_PLACE)]
    st.pend[nothing] = P_NONE
    forced = (st.pend[g] == P_PLACE) & (POPCOUNT[st.pend_rots[g]] == 1) & ~scout_can_redraw(core, st, g)
    f = g[forced]
    place_pending(core, st, f, np.argmax(st.pend_rots[f][:, None] & BIT, axis=1))


def place_pending(core: "Core", st: State, g: np.ndarray, rot: np.ndarray) -> None:
    if not len(g):
        return
    tile = actor_tile(st, g)
    d = st.pend_dir[g].astype(np.intp)
    x, y = cell_of(st, g, tile, d)
    new = place(core.cat, st, g, st.pend_tile[g].astype(np.intp), x, y, np.asarray(rot, dtype=np.intp))
    st.pend[g], st.pend_tile[g], st.pend_rots[g] = P_NONE, -1, 0
    ex = st.pend_explore[g]
    if ex.any():  # Explore moves onto the new tile (R-ACT-7), ignoring the squeeze restriction
        enter_tile(core.cfg, st, g[ex], st.actor[g[ex]].astype(np.intp), new[ex])
