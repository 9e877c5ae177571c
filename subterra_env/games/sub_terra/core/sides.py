"""What lies around a tile, as the legal actions read it (R-ACT-5..12, R-TILE-7/8, R-ANN-2): ``around`` packs each
direction's properties into one integer, ``has`` reads them. Split from ``moves.py`` so the scenarios' masks
(``item_moves.py``) can read them too.
"""

from __future__ import annotations

from .board import in_zone, tile_beyond
from .catalogue import BIT, DX, DY, OPPOSITE, T_LEDGE, T_SLIDE, T_SQUEEZE
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
    the caver may walk into floods (Investigation's Wetsuit, R-INV-20)."""
    out = 0
    for d in range(4):
        nb = g.t_nbr[tile, d]
        barred = leave_blocked(g, tile, d)
        bits = 0
        if nb >= 0:
            bits |= 1 << _HAS
            if not barred:
                bits |= 1 << _PASSABLE
            if g.t_flood[nb]:
                bits |= 1 << _FLOODED
            if g.t_rubble[nb]:
                bits |= 1 << _RUBBLE
            if g.t_type[nb] == T_SQUEEZE:
                bits |= 1 << _SQUEEZE
            if occupied(g, nb):  # a horror or a leaper (R-EXT-4: Repel reaches leapers too)
                bits |= 1 << _HORROR
            # Move (and Run, Sprint) as this caver may take it (R-ACT-6), with the passives that widen it: the
            # Diver's Amphibious enters floods (R-CAV-1), the Climber's Agility squeezes and rubble (R-CAV-5).
            if (not barred and (not g.t_flood[nb] or rank == RANK_DIVER or wet)
                    and ((g.t_type[nb] != T_SQUEEZE and not g.t_rubble[nb]) or rank == RANK_CLIMBER)):
                bits |= 1 << _WALK
        if tile_beyond(g, tile, d) < 0:
            bits |= 1 << _EMPTY
            if in_zone(g, P, g.t_x[tile] + DX[d], g.t_y[tile] + DY[d]):
                bits |= 1 << _ZONE  # R-ANN-2: no tile is placed there
            # Reveal targets: an open side facing an empty cell (R-CON-4), not barred by a ledge (R-TILE-7).
            elif (g.t_open[tile] & BIT[d]) != 0 and not barred:
                bits |= 1 << _REVEALABLE
        out |= bits << (_BITS * d)
    return out


@jit
def has(dirs, d, prop):
    return (dirs >> (_BITS * d + prop)) & 1 != 0
