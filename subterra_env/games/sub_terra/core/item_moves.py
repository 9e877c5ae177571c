"""Investigation's legal actions (R-INV-5..16): using an item, Flare's next side, the Scrawled Map, Transfer of an
item. ``moves.legal_mask`` calls ``items_mask`` for an Investigation game only (its action row is wider)."""

from __future__ import annotations

from .actions import (A_ADRENALINE, A_BATTERY, A_BOOSTER, A_EXPLOSIVE, A_FLARE, A_FLARE_SIDE, A_GIVE, A_GRENADE,
                      A_HOOK, A_ITEM_PICK, A_MAP, A_PAINKILLERS, A_SHOVEL, A_SHOVEL_HERE, A_TAKE)
from .catalogue import (BIT, I_ADRENALINE, I_BATTERY, I_BOOSTER, I_EXPLOSIVE, I_FLARE, I_GRENADE, I_HOOK,
                        I_PAINKILLERS, I_SHOVEL, NUM_ITEMS, T_LEDGE, T_SLIDE)
from .items import out_of_time_next, rinv16_map_can_redraw
from .jit import jit
from .sides import _EMPTY, _HAS, _HORROR, _REVEALABLE, _RUBBLE, _ZONE, has
from .state import P_FLARE, P_ITEM


@jit
def items_mask(g, P, m, seat, tile, dirs, normal, can_draw):
    """Write Investigation's ids into the mask row m of the acting seat on tile (dirs: ``sides.around``; normal:
    no decision pending; can_draw: a Reveal could draw a tile). No-effect uses are illegal (R-INV-5)."""
    items = g.c_items[seat]
    directed = g.directing >= 0  # under Direct or a Signal Booster: one 1-AP action (R-INV-5)
    one = normal and g.ap >= P.item_cost  # the 1-AP items (R-INV-5 [default], setting item_cost)
    free = normal and not directed  # the 0-AP items grant time, not an action
    if items != 0:
        if (items >> I_SHOVEL) & 1:  # R-INV-7, as Dig
            m[A_SHOVEL_HERE] = one and g.t_rubble[tile]
            for d in range(4):
                m[A_SHOVEL + d] = one and has(dirs, d, _RUBBLE)
        if (items >> I_BOOSTER) & 1 and free:  # R-INV-8: another conscious caver anywhere, not under water
            for s in range(g.n_seats):
                m[A_BOOSTER + g.c_rank[s] - 1] = s != seat and g.c_hp[s] > 0 and not g.c_dead[s] and not g.c_under[s]
        m[A_BATTERY] = ((items >> I_BATTERY) & 1 != 0 and free and out_of_time_next(g)
                        and (g.battery >> seat) & 1 == 0)  # R-INV-9
        if (items >> I_FLARE) & 1 and one and can_draw:  # R-INV-10: a side where Reveal is legal
            for d in range(4):
                if has(dirs, d, _REVEALABLE):
                    m[A_FLARE] = 1
        m[A_ADRENALINE] = (items >> I_ADRENALINE) & 1 != 0 and free  # R-INV-11
        m[A_PAINKILLERS] = (items >> I_PAINKILLERS) & 1 != 0 and one and g.c_hp[seat] < g.c_max[seat]  # R-INV-12
        ttype = g.t_type[tile]
        m[A_HOOK] = ((items >> I_HOOK) & 1 != 0 and one and (ttype == T_LEDGE or ttype == T_SLIDE)
                     and not g.t_rope[tile] and g.ropes_left > 0)  # R-INV-13, as Gear
        for d in range(4):
            m[A_GRENADE + d] = (items >> I_GRENADE) & 1 != 0 and one and has(dirs, d, _HORROR)  # R-INV-14
            closed = (g.t_open[tile] & BIT[d]) == 0  # R-INV-15, as Demolish: a side not connected
            target = not has(dirs, d, _HAS) and (not has(dirs, d, _EMPTY) or closed) and not has(dirs, d, _ZONE)
            m[A_EXPLOSIVE + d] = (items >> I_EXPLOSIVE) & 1 != 0 and one and target
    if g.pend == P_FLARE:  # R-INV-10: the next side
        for d in range(4):
            m[A_FLARE_SIDE + d] = has(dirs, d, _REVEALABLE) and can_draw
    m[A_MAP] = rinv16_map_can_redraw(g, P)  # R-INV-16
    if g.pend == P_ITEM:  # R-INV-6: the item the Transfer moves
        for i in range(NUM_ITEMS):
            m[A_ITEM_PICK + i] = (g.c_items[g.x_from] >> i) & 1 != 0
    moving = normal and g.ap >= P.cost[A_GIVE]  # R-INV-6 Transfer, as R-ANN-7
    for s in range(g.n_seats):
        here = s != seat and g.c_tile[s] == tile and not g.c_dead[s]
        m[A_GIVE + g.c_rank[s] - 1] = moving and items != 0 and here
        m[A_TAKE + g.c_rank[s] - 1] = moving and here and g.c_hp[s] == 0 and g.c_items[s] != 0
