"""The heuristic's use of Investigation's items (RULES_VAR.md R-INV-5..16): overrides before the turn's plan, the
plan's own action swapped for an item that does the same for less, and the item decisions (Flare's next side, the
Scrawled Map, which item a Transfer moves). Called only in an Investigation game, so the base game's and the other
scenarios' play never changes.

Before the plan: Spare Battery once Out of Time is drawn or next (R-INV-9: its holder is never devoured that
round); Painkillers when two health down or on 1 (R-INV-12); a Grenade at a monster on a connected tile, which
would reach this caver (R-INV-14); Adrenaline once the exit is found, to rush out (R-INV-11); a Flare while the exit
is hidden and two or more sides can be revealed here (R-INV-10: more tiles for one AP); the Signal Booster for the
first teammate whose free 1-AP action draws a tile or steps onto the exit (R-INV-8, valued as the Leader's Direct;
paired on 1,000 Investigation games +0.005 +- 0.022 cavers out: no measurable gain, but a card held and never
played is not a teammate's play). In the plan: its Dig swapped
for the Shovel (1 AP instead of 2, R-INV-7), its Rope (a skill check) for the Grappling Hook (R-INV-13). Decisions:
Flare's sides in N, E, S, W order (each tile's rotation as any placement); the Map discards a horror tile
(R-INV-16); a Transfer moves the first item offered (the heuristic itself never hands items on); under
``explicit_reactions`` the Gas Mask is always used, as the automatic rule does (R-INV-18).
"""

from __future__ import annotations

from subterra_env.games.sub_terra.core.actions import (A_ADRENALINE, A_BATTERY, A_BOOSTER, A_DIG, A_FLARE, A_FLARE_SIDE, A_GAS_MASK_USE,
                                       A_GRENADE, A_HOOK, A_ITEM_PICK, A_MAP, A_MOVE, A_PAINKILLERS, A_ROPE, A_SHOVEL)
from subterra_env.games.sub_terra.core.catalogue import NUM_ITEMS, T_HORROR

from .board import n_revealable
from .jit import jit
from .plans import free_action_for
from .weights import TILE


@jit
def item_decision(g, P, bd, mask):
    """Flare's next side (R-INV-10) or the item a Transfer moves (R-INV-6): the first one offered; -1 if neither
    is pending."""
    for d in range(4):
        if mask[A_FLARE_SIDE + d]:
            return A_FLARE_SIDE + d
    for i in range(NUM_ITEMS):
        if mask[A_ITEM_PICK + i]:
            return A_ITEM_PICK + i
    return -1


@jit
def gas_mask_answer(g):
    """R-INV-18 under explicit_reactions, for the holder asked: use the mask, as the automatic rule does, so the
    heuristic's games play as without the setting. Measured against keeping it when the gas would take a single
    point from a holder with 3 health or more (gas damage 1, 300 seeds): 1.52 +- 0.10 cavers out against 1.54 +- 0.10
    always using it (paired -0.02 +- 0.03, 3 games differed): no gain, so the simpler rule."""
    return A_GAS_MASK_USE


@jit
def want_map(g, P, mask):
    """R-INV-16: discard a horror tile with the Scrawled Map."""
    return mask[A_MAP] and P.tile_type[g.pend_tile] == T_HORROR


@jit
def fetch_item(g, bd, mask):
    """R-INV-4: while the exit is hidden, step onto a connected item tile whose token is still there (one AP for
    an item), unless a monster stands on it; -1 if none."""
    if bd.exit >= 0 or g.directing >= 0:
        return -1
    t0 = g.c_tile[g.actor]
    for d in range(4):
        v = g.t_nbr[t0, d]
        if v >= 0 and g.t_item[v] and not bd.is_horror[v] and mask[A_MOVE + d]:
            return A_MOVE + d
    return -1


@jit
def boost(g, bd, wt, mask):
    """R-INV-8: the Signal Booster (0 AP) for the teammate whose free 1-AP action draws a tile (exit hidden) or
    steps onto the exit (as the Leader's Direct values them, ``plans.free_action_for``), -1 if none is worth a tile."""
    return free_action_for(g, bd, wt, mask, 0.99 * wt[TILE], A_BOOSTER)


@jit
def item_override(g, P, bd, wt, mask):
    """An item to use now, before the turn's plan (see the module docstring), or -1."""
    if g.c_items[g.actor] == 0:
        return fetch_item(g, bd, mask)
    s = g.actor
    if mask[A_BATTERY]:  # R-INV-9
        return A_BATTERY
    if mask[A_PAINKILLERS] and (g.c_hp[s] <= g.c_max[s] - 2 or g.c_hp[s] == 1):  # R-INV-12
        return A_PAINKILLERS
    for d in range(4):  # R-INV-14
        if mask[A_GRENADE + d]:
            return A_GRENADE + d
    if mask[A_ADRENALINE] and bd.exit >= 0:  # R-INV-11
        return A_ADRENALINE
    if mask[A_FLARE] and bd.exit < 0 and n_revealable(g, bd, g.c_tile[s]) >= 2:  # R-INV-10
        return A_FLARE
    a = boost(g, bd, wt, mask)  # R-INV-8 (legal only off Direct and while holding it)
    if a >= 0:
        return a
    return fetch_item(g, bd, mask)


@jit
def item_swap(a, mask):
    """The plan's action done with an item for less: Dig by the Shovel (R-INV-7), Rope by the Grappling Hook
    (R-INV-13)."""
    if A_DIG <= a < A_DIG + 4 and mask[A_SHOVEL + a - A_DIG]:
        return A_SHOVEL + a - A_DIG
    if a == A_ROPE and mask[A_HOOK]:
        return A_HOOK
    return a
