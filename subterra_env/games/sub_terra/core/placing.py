"""Reveal and Explore from the draw to the placed tile (R-ACT-5, R-ACT-7, R-CON-4), with the Scout's Sense of
direction (R-CAV-2) and the Geologist's Intuition (R-CAV-3) as decision points on the way:

    reveal/explore -> [Geologist: pick drawn or set-aside] -> [Scout: redraw?] + rotate -> placed (-> moved)
"""

from __future__ import annotations

from .board import actor_tile, draw_for_reveal, place, rotations_for
from .catalogue import DX, DY, POPCOUNT, T_BOMB
from .effects import RANK_GEOLOGIST, RANK_SCOUT, enter_tile
from .events import E_DISCARD, E_PLACE, R_PLACE, R_SCOUT, log
from .items import rinv16_map_can_redraw
from .jit import jit
from .state import P_NONE, P_PICK, P_PLACE


@jit
def start_reveal(g, P, d, explore):
    """Reveal (or Explore) through side d: draw, then offer the placement."""
    g.pend = P_PLACE
    g.pend_dir = d
    g.pend_explore = explore
    g.pend_redrawn = 0
    if g.c_rank[g.actor] == RANK_GEOLOGIST and g.aside_tile >= 0:
        geologist_draw(g, P)
    else:
        draw_for_reveal(g, P)
        offer(g, P)


@jit
def geologist_draw(g, P):
    """Intuition: draw, then place either the drawn or the set-aside tile; the other stays aside."""
    draw_for_reveal(g, P)
    drawn_ok = g.pend_tile >= 0
    aside_ok = rotations_for(g, P, g.aside_tile) > 0
    if drawn_ok and aside_ok:
        g.pend = P_PICK
        return
    if aside_ok:  # the stack gave nothing placeable: place the set-aside tile
        swap_aside(g, P)
    offer(g, P)


@jit
def swap_aside(g, P):
    drawn = g.pend_tile
    g.pend_tile = g.aside_tile
    g.aside_tile = drawn
    g.pend_rots = rotations_for(g, P, g.pend_tile)


@jit
def pick(g, P, which):
    """The Geologist's choice: 0 = the drawn tile, 1 = the set-aside tile."""
    if which == 1:
        swap_aside(g, P)
    g.pend = P_PLACE
    offer(g, P)


@jit
def scout_can_redraw(g, P):
    """Sense of direction is on offer: Scout placing, uses left, not yet redrawn, not the exit, not a bomb tile
    (R-ANN-4), tiles left."""
    return (g.c_rank[g.actor] == RANK_SCOUT and g.pend == P_PLACE and g.scout_redraws > 0 and not g.pend_redrawn
            and g.stack_pos < P.stack_size and (g.pend_tile != P.exit_id or P.scout_may_discard_exit)
            and P.tile_type[g.pend_tile] != T_BOMB)


@jit
def redraw(g, P):
    """Discard the drawn tile and draw the next one, which must be placed."""
    g.scout_redraws -= 1
    g.pend_redrawn = 1
    log(g, E_DISCARD, g.actor, -1, g.pend_tile, R_SCOUT, 0)
    draw_for_reveal(g, P)
    offer(g, P)


@jit
def offer(g, P):
    """After a draw: nothing to place ends the reveal; a single choice is placed at once (no decision)."""
    if g.pend_tile < 0 and g.pend == P_PLACE:
        g.pend = P_NONE
    if g.pend == P_PLACE and POPCOUNT[g.pend_rots] == 1 and not scout_can_redraw(g, P) and not \
            rinv16_map_can_redraw(g, P):  # Investigation: the Scrawled Map's redraw is on offer (R-INV-16)
        for r in range(4):
            if (g.pend_rots >> r) & 1:
                place_pending(g, P, r)
                return


@jit
def place_pending(g, P, rot):
    """Place the pending tile turned rot; an Explore moves onto it (R-ACT-7), ignoring the squeeze restriction."""
    tile = actor_tile(g)
    d = g.pend_dir
    new = place(g, P, g.pend_tile, g.t_x[tile] + DX[d], g.t_y[tile] + DY[d], rot)
    log(g, E_PLACE, g.actor, new, g.pend_tile, R_PLACE, rot)  # die column: the rotation
    g.pend = P_NONE
    g.pend_tile = -1
    g.pend_rots = 0
    if g.pend_explore:
        enter_tile(g, P, g.actor, new)
