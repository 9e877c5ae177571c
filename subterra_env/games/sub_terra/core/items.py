"""Investigation's items held by cavers (RULES_VAR.md R-INV): the item tokens and the item deck (R-INV-4), the
reactions that fire by themselves (Body Armor R-INV-17, Gas Mask R-INV-18), the passives (Lucky Charm R-INV-19,
Wetsuit R-INV-20), Doom (R-INV-3) and the items lost with a devoured caver (R-INV-6).

Each caver's items are a bitmask (``c_items``, bit i = ``catalogue.ITEM_NAMES[i]``): one card of each item exists
(R-INV-2), so an item is in exactly one place: the deck (``i_deck[i_pos:]``), a caver's hand, or out of the game
(``i_out``: used, or lost with a devoured caver). The items used as actions are in ``item_actions.py``.
These functions import nothing from the rest of the rules, so ``effects`` and ``hazards`` can call them.
"""

from __future__ import annotations

from .catalogue import (C_DOOM, C_LEAPER, C_LEAPER_X2, C_OUT_OF_TIME, I_ARMOR, I_CHARM, I_GAS_MASK, I_MAP, I_WETSUIT,
                        NUM_ITEMS, T_BOMB, X2)
from .events import E_DOOM, E_ITEM_DRAW, E_ITEM_USE, R_GAS, R_INV_1, log
from .jit import jit
from .state import P_PLACE

R_INV_3, R_INV_4, R_INV_6 = R_INV_1 + 2, R_INV_1 + 3, R_INV_1 + 5
R_INV_16, R_INV_17, R_INV_18 = R_INV_1 + 15, R_INV_1 + 16, R_INV_1 + 17


GAS_MASK_KEEPS = -2  # effects.damage's vigilant_amount for gas damage under the setting gas_mask_keeps (R-INV-18)


@jit
def holds(g, seat, item):
    """The caver at seat holds the item."""
    return (g.c_items[seat] >> item) & 1 != 0


@jit
def discard_item(g, seat, item, rule, target):
    """The item leaves the caver's hand and the game (R-INV-5: a used card is discarded); logged with its rule."""
    g.c_items[seat] &= ~(1 << item)
    g.i_out |= 1 << item
    log(g, E_ITEM_USE, seat, g.c_tile[seat], item, rule, target)


@jit
def rinv4_take_item_token(g, seat, tile):
    """R-INV-4: the first caver to enter an item tile removes its token and draws the top item card (even if that
    entry then knocks it out); an empty deck: the token goes, nothing is drawn."""
    g.t_item[tile] = 0
    item = -1
    if g.i_pos < NUM_ITEMS and g.i_deck[g.i_pos] >= 0:
        item = g.i_deck[g.i_pos]
        g.i_pos += 1
        g.c_items[seat] |= 1 << item
    log(g, E_ITEM_DRAW, seat, tile, item, R_INV_4, 0)


@jit
def rinv17_18_absorb(g, seat, lose, why, mask_keeps):
    """What a caver about to lose ``lose`` health loses after its reactions, in the order of R-INV-6 (the base
    protections came first): the Gas Mask against gas (R-INV-18: discarded, nothing lost; setting
    ``gas_mask_keeps``: lose 1 and keep it), then Body Armor (R-INV-17: discarded instead of the first point; a
    knock-out discards it too). A caver at 0 health spends no card. Under ``explicit_reactions`` a holder that
    declined its mask (``r_no``, reactions.py; always 0 without the setting) keeps it and is hurt."""
    if g.c_hp[seat] <= 0 or lose <= 0:
        return lose
    if why == R_GAS and holds(g, seat, I_GAS_MASK) and (g.r_no >> seat) & 1 == 0:
        if mask_keeps:
            lose = min(lose, 1)
            log(g, E_ITEM_USE, seat, g.c_tile[seat], I_GAS_MASK, R_INV_18, 1)  # die 1: kept, 1 lost
        else:
            discard_item(g, seat, I_GAS_MASK, R_INV_18, 0)
            return 0
    if holds(g, seat, I_ARMOR):
        discard_item(g, seat, I_ARMOR, R_INV_17, 0)
        lose -= 1
    return lose


@jit
def rinv19_charm_bonus(g, seat):
    """R-INV-19 Lucky Charm: +1 to the holder's skill checks (stacks with the Leader's +1, a biosample's -1)."""
    return 1 if holds(g, seat, I_CHARM) else 0


@jit
def rinv20_wetsuit(g, seat):
    """R-INV-20 Wetsuit: Move (and Run) may enter flooded tiles (flood damage still applies)."""
    return holds(g, seat, I_WETSUIT)


@jit
def rinv3_doom(g, card):
    """R-INV-3: a Doom card only sets ``doom pending`` (no stacking) and resolves nothing (returns -1); the next
    other card clears it and resolves as its x2 version (a basic card; Leaper as Leaper x2; an x2 card as printed,
    not x4); Out of Time clears it with no extra effect. Returns the card to resolve."""
    if card == C_DOOM:
        g.doom = 1
        log(g, E_DOOM, -1, -1, 1, R_INV_3, 0)
        return -1
    if not g.doom or card < 0:
        return card
    g.doom = 0
    out = card
    if card < X2:
        out = card + X2
    elif card == C_LEAPER:
        out = C_LEAPER_X2
    log(g, E_DOOM, -1, -1, out if card != C_OUT_OF_TIME else -1, R_INV_3, card)
    return out


@jit
def rinv6_lose_items(g, seat):
    """R-INV-6 (as R-ANN-8): a devoured caver's items are lost with it (out of the game)."""
    items = g.c_items[seat]
    for i in range(NUM_ITEMS):
        if (items >> i) & 1:
            discard_item(g, seat, i, R_INV_6, 0)
    g.c_items[seat] = 0


@jit
def rinv16_map_can_redraw(g, P):
    """R-INV-16 Scrawled Map on offer: the placing caver holds it, a tile from the stack waits for its rotation
    (after the Geologist's pick), not yet redrawn for this placement (Scout or Map), tiles left, not the exit, not
    a bomb tile."""
    return (g.pend == P_PLACE and g.actor >= 0 and holds(g, g.actor, I_MAP) and not g.pend_redrawn
            and g.stack_pos < P.stack_size and g.pend_tile != P.exit_id and P.tile_type[g.pend_tile] != T_BOMB)


@jit
def out_of_time_next(g):
    """R-INV-9: Out of Time has been drawn or is the next hazard card (the cards left are public)."""
    return g.out_of_time or (g.deck_pos < g.deck.shape[0] and g.deck[g.deck_pos] == C_OUT_OF_TIME)
