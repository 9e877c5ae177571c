"""Investigation's item actions (R-INV-5..16), one compiled function per item named for its rule, dispatched by
``turns.apply_action`` from the action kinds K_SHOVEL..K_ITEM_PICK. Each use discards the card (out of the game,
R-INV-5); what the card does is the base action it names (Dig, Direct, Reveal, Gear, Repel, Demolish)."""

from __future__ import annotations

from .abilities import blast, clear_rubble, fix_rope, seat_of_rank
from .actions import (K_ADRENALINE, K_BATTERY, K_BOOSTER, K_EXPLOSIVE, K_FLARE, K_FLARE_SIDE, K_GRENADE, K_HOOK,
                      K_ITEM_PICK, K_MAP, K_PAINKILLERS, K_SHOVEL)
from .board import actor_tile, draw_for_reveal
from .catalogue import (I_ADRENALINE, I_BATTERY, I_BOOSTER, I_EXPLOSIVE, I_FLARE, I_GRENADE, I_HOOK, I_MAP,
                        I_PAINKILLERS, I_SHOVEL, NUM_ITEMS)
from .effects import RANK_GEOLOGIST
from .events import (E_CLEAR, E_DIRECT, E_DISCARD, E_HEAL, E_HORROR_LEAVE, E_LEAPER_LEAVE, E_ROPE, E_TRANSFER, R_INV_1,
                     log)
from .items import discard_item
from .jit import jit
from .monsters import remove_oldest_on
from .placing import offer, start_reveal
from .sides import _REVEALABLE, around, has
from .items import rinv20_wetsuit
from .state import P_FLARE, P_ITEM, P_NONE

R_INV_6, R_INV_7, R_INV_8, R_INV_9, R_INV_10, R_INV_11, R_INV_12, R_INV_13, R_INV_14, R_INV_15, R_INV_16 = range(
    R_INV_1 + 5, R_INV_1 + 16)
PAINKILLERS_HEAL = 2  # R-INV-12


@jit
def rinv7_shovel(g, where):
    """R-INV-7 Shovel: remove the rubble here or on a connected tile (as Dig)."""
    discard_item(g, g.actor, I_SHOVEL, R_INV_7, where)
    log(g, E_CLEAR, g.actor, clear_rubble(g, where), 0, R_INV_7, 0)


@jit
def rinv8_signal_booster(g, rank):
    """R-INV-8 Signal Booster: another conscious caver, anywhere, may at once take one 1-AP action free of AP, or
    decline ("end turn"): the Leader's Direct (R-CAV-8), outside its once-per-turn limit."""
    discard_item(g, g.actor, I_BOOSTER, R_INV_8, rank)
    s = seat_of_rank(g, rank)
    log(g, E_DIRECT, s, g.c_tile[s], 0, R_INV_8, 0)
    g.directing = g.actor
    g.saved_ap = g.ap
    g.actor = s
    g.ap = 1
    g.pend = P_NONE


@jit
def rinv9_spare_battery(g):
    """R-INV-9 Spare Battery: no Out of Time check for you in this round's hazard phase."""
    discard_item(g, g.actor, I_BATTERY, R_INV_9, 0)
    g.battery |= 1 << g.actor


@jit
def rinv10_flare(g):
    """R-INV-10 Flare: a tile revealed beyond every side of your tile where Reveal is legal, one at a time (you
    pick the next side, then its rotation); nobody moves."""
    discard_item(g, g.actor, I_FLARE, R_INV_10, 0)
    g.flare = 1
    g.pend = P_FLARE


@jit
def rinv10_flare_next(g, P):
    """R-INV-10, after each step of a Flare: the next side is asked for while Reveal is legal somewhere (and the
    stack can give a tile), else the Flare is over."""
    if not g.flare or g.pend != P_NONE:
        return
    seat = g.actor
    can_draw = g.stack_pos < P.stack_size or (g.c_rank[seat] == RANK_GEOLOGIST and g.aside_tile >= 0)
    if can_draw and g.c_hp[seat] > 0:
        dirs = around(g, P, actor_tile(g), g.c_rank[seat], rinv20_wetsuit(g, seat))
        for d in range(4):
            if has(dirs, d, _REVEALABLE):
                g.pend = P_FLARE
                return
    g.flare = 0


@jit
def rinv11_adrenaline(g):
    """R-INV-11 Adrenaline: +1 AP this turn, no skill check."""
    discard_item(g, g.actor, I_ADRENALINE, R_INV_11, 0)
    g.ap += 1


@jit
def rinv12_painkillers(g):
    """R-INV-12 Painkillers: you regain 2 health, up to your start value."""
    me = g.actor
    discard_item(g, me, I_PAINKILLERS, R_INV_12, 0)
    before = g.c_hp[me]
    g.c_hp[me] = min(before + PAINKILLERS_HEAL, g.c_max[me])
    log(g, E_HEAL, me, g.c_tile[me], g.c_hp[me] - before, R_INV_12, g.c_hp[me])


@jit
def rinv13_grappling_hook(g):
    """R-INV-13 Grappling Hook: a rope on your rope-less ledge or slide, no skill check (as Gear)."""
    discard_item(g, g.actor, I_HOOK, R_INV_13, 0)
    log(g, E_ROPE, g.actor, fix_rope(g), 0, R_INV_13, 0)


@jit
def rinv14_grenade(g, d):
    """R-INV-14 Grenade: every monster on the connected tile through side d leaves the cave (as Repel)."""
    discard_item(g, g.actor, I_GRENADE, R_INV_14, d)
    target = g.t_nbr[actor_tile(g), d]
    gone = remove_oldest_on(g, target)
    while gone:
        log(g, E_HORROR_LEAVE if gone == 1 else E_LEAPER_LEAVE, g.actor, target, 0, R_INV_14, 0)
        gone = remove_oldest_on(g, target)


@jit
def rinv15_explosive(g, P, d):
    """R-INV-15 Explosive: as Demolish, with its own token (not one of the Engineer's): side d opened, then a
    Cave-in event at once."""
    discard_item(g, g.actor, I_EXPLOSIVE, R_INV_15, d)
    blast(g, P, d, R_INV_15)


@jit
def rinv16_scrawled_map(g, P):
    """R-INV-16 Scrawled Map: discard the Map and the tile about to be placed (out of the game); the next one must
    be placed (no further redraw for this placement)."""
    discard_item(g, g.actor, I_MAP, R_INV_16, 0)
    g.pend_redrawn = 1
    log(g, E_DISCARD, g.actor, -1, g.pend_tile, R_INV_16, 0)
    draw_for_reveal(g, P)
    offer(g, P)


@jit
def move_item(g, giver, taker, item):
    g.c_items[giver] &= ~(1 << item)
    g.c_items[taker] |= 1 << item
    log(g, E_TRANSFER, giver, g.c_tile[taker], taker, R_INV_6, item)  # value: the receiving seat; die: the item


@jit
def rinv6_transfer(g, giver, taker):
    """R-INV-6 Transfer (as R-ANN-7): one item from giver to taker; with more than one item to choose from, the
    acting caver names it next ("transfer item X")."""
    items = g.c_items[giver]
    if items & (items - 1) == 0:  # a single item
        for i in range(NUM_ITEMS):
            if (items >> i) & 1:
                move_item(g, giver, taker, i)
        return
    g.x_from = giver
    g.x_to = taker
    g.pend = P_ITEM


@jit
def rinv6_transfer_item(g, item):
    """R-INV-6: the named item of a pending Transfer moves."""
    move_item(g, g.x_from, g.x_to, item)
    g.x_from = -1
    g.x_to = -1
    g.pend = P_NONE


@jit
def item_action(g, P, kind, arg):
    """Dispatch one of Investigation's action kinds to its rule."""
    if kind == K_SHOVEL:
        rinv7_shovel(g, arg)
    elif kind == K_BOOSTER:
        rinv8_signal_booster(g, arg)
    elif kind == K_BATTERY:
        rinv9_spare_battery(g)
    elif kind == K_FLARE:
        rinv10_flare(g)
    elif kind == K_FLARE_SIDE:
        start_reveal(g, P, arg, False)
    elif kind == K_ADRENALINE:
        rinv11_adrenaline(g)
    elif kind == K_PAINKILLERS:
        rinv12_painkillers(g)
    elif kind == K_HOOK:
        rinv13_grappling_hook(g)
    elif kind == K_GRENADE:
        rinv14_grenade(g, arg)
    elif kind == K_EXPLOSIVE:
        rinv15_explosive(g, P, arg)
    elif kind == K_MAP:
        rinv16_scrawled_map(g, P)
    elif kind == K_ITEM_PICK:
        rinv6_transfer_item(g, arg)
