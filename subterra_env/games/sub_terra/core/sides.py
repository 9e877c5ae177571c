"""What lies around a tile, as the legal actions read it (R-ACT-5..12, R-TILE-7/8, R-ANN-2): ``around`` packs each
direction's properties into one integer, ``has`` reads them. Split from ``moves.py`` so the scenarios' masks
(``item_moves.py``) can read them too.
"""

from __future__ import annotations

from .board import in_zone, tile_beyond
from .catalogue import DX, DY, OPPOSITE, T_LEDGE, T_SLIDE, T_SQUEEZE
from .effects import RANK_CLIMBER, RANK_DIVER
from .jit import jit
from .monsters import occupied

# Bits of the direction masks returned by ``around``.
_HAS, _PASSABLE, _FLOODED, _RUBBLE, _SQUEEZE, _HORROR, _WALK, _EMPTY, _REVEALABLE, _ZONE = range(10)
_BITS = 10  # bits per direction


@jit
def leave_blocked(g, tile, d):
    """Leaving the tile through side d is barred: a ledge's arrow side, a slide's back side, unless roped
    (R-TILE-7, R-TILE-8)."""
    if g.t_rope[tile]:
        return False
    ttype, arrow = g.t_type[tile], g.t_arrow[tile]
    return (ttype == T_LEDGE and arrow == d) or (ttype == T_SLIDE and arrow == OPPOSITE[d])


@jit
def around(g, P, tile, rank, wet):
    """What lies in each direction of the tile, as 4-bit masks packed 4 bits per property (see _HAS ...); wet:
    the caver may walk into floods (Investigation's Wetsuit, R-INV-20).

    Why the neighbour's properties are combined as bits rather than tested one by one: each is as likely as not at
    a large batch, where the predictor cannot learn a game's pattern, so every test missed often (the legal mask
    reads this for every decision). A linked side (``t_nbr``) has its tile beyond it, so only an unlinked side
    looks the cell up in the cell index."""
    out = 0
    amphibious = rank == RANK_DIVER or wet  # the Diver's Amphibious enters floods (R-CAV-1)
    agile = rank == RANK_CLIMBER  # the Climber's Agility squeezes and crosses rubble (R-CAV-5)
    for d in range(4):
        nb = g.t_nbr[tile, d]
        free = not leave_blocked(g, tile, d)
        if nb >= 0:
            flooded, rubble, squeeze = g.t_flood[nb] != 0, g.t_rubble[nb] != 0, g.t_type[nb] == T_SQUEEZE
            # Move (and Run, Sprint) as this caver may take it (R-ACT-6), with the passives that widen it
            walk = free & ((not flooded) | amphibious) & (((not squeeze) & (not rubble)) | agile)
            horror = occupied(g, nb)  # a horror or a leaper (R-EXT-4: Repel reaches leapers too)
            bits = (1 << _HAS | free << _PASSABLE | flooded << _FLOODED | rubble << _RUBBLE | squeeze << _SQUEEZE
                    | horror << _HORROR | walk << _WALK)
        elif tile_beyond(g, tile, d) < 0:
            bits = 1 << _EMPTY
            if in_zone(g, P, g.t_x[tile] + DX[d], g.t_y[tile] + DY[d]):
                bits |= 1 << _ZONE  # R-ANN-2: no tile is placed there
            else:  # reveal targets: an open side facing an empty cell (R-CON-4), not barred by a ledge (R-TILE-7)
                bits |= (((g.t_open[tile] >> d) & 1) & free) << _REVEALABLE
        else:
            bits = 0
        out |= bits << (_BITS * d)
    return out


@jit
def has(dirs, d, prop):
    return (dirs >> (_BITS * d + prop)) & 1 != 0
