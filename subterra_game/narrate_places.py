"""Names of places, tiles and cavers in plain words: the vocabulary that narration and the action labels share.

Both ``narrate`` (the menu labels, what a step did) and ``narrate_events`` (a line per rule event) name cells
relative to the start tile, tiles with their marks, catalogue tiles and cavers the same way; these helpers sit
below both so that neither imports the other's module for them (``narrate`` re-exports the public ones).

Places are named relative to the start tile: ``E2 N1`` is two cells east and one north of it.
"""

from __future__ import annotations

import numpy as np

from subterra_env.config import CAVER_NAMES, TILE_TYPES
from subterra_env.games.sub_terra.core.board import in_zone
from subterra_env.games.sub_terra.core.catalogue import BIT, CORE_TILE_TYPES, DIR_NAMES, DX, DY
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import State
from subterra_env.words import catalogue_tile_name

DIR_WORDS = ("north", "east", "south", "west")


# ---------------------------------------------------------------------------------------------- places and tiles
def frontier_cells(st: State, g: int = 0, core: Core | None = None) -> set[tuple[int, int]]:
    """Empty cells beyond an open side of a placed tile (where a Reveal could put a tile), as grid (x, y); with the
    game's ``core``, not the cells of Annihilation's no-placement zone (R-ANN-2: a side facing one is not open)."""
    cells = set()
    grid = st.grid_of(g)
    zone = core is not None and core.cfg.scenario == "annihilation"
    if zone:  # the rule's own test, run on this game's record (attribute access, as the compiled code reads it)
        rec, par = st.packed.view(np.recarray)[g], core.params.view(np.recarray)[0]
    for t in np.nonzero(st.t_type[g] >= 0)[0]:
        x, y = int(st.t_x[g, t]), int(st.t_y[g, t])
        for d in range(4):
            nx, ny = x + int(DX[d]), y + int(DY[d])
            if int(st.t_open[g, t]) & int(BIT[d]) and 0 <= ny < grid.shape[0] and 0 <= nx < grid.shape[1] \
                    and grid[ny, nx] < 0 and not (zone and in_zone.py_func(rec, par, nx, ny)):
                cells.add((nx, ny))
    return cells


def where(st: State, t: int, g: int = 0) -> str:
    """A tile's cell relative to the start tile: ``start``, ``E2``, ``W1 S3``."""
    if t < 0:
        return "nowhere"
    dx, dy = int(st.t_x[g, t]) - int(st.t_x[g, 0]), int(st.t_y[g, t]) - int(st.t_y[g, 0])
    if dx == dy == 0:
        return "start"
    parts = []
    if dx:
        parts.append(f"{'E' if dx > 0 else 'W'}{abs(dx)}")
    if dy:
        parts.append(f"{'S' if dy > 0 else 'N'}{abs(dy)}")
    return " ".join(parts)


def tile_name(st: State, t: int, g: int = 0) -> str:
    """``the water tile (flooded) at E1``."""
    if t < 0:
        return "no tile"
    kind = CORE_TILE_TYPES[st.t_type[g, t]]
    marks = [m for m, on in (("flooded", st.t_flood[g, t]), ("rubble", st.t_rubble[g, t]),
                             ("rope", st.t_rope[g, t])) if on]
    extra = f" ({', '.join(marks)})" if marks else ""
    place = where(st, t, g)
    return f"the {kind} tile{extra}" + ("" if place == "start" else f" at {place}")


def _sides(mask: int) -> str:
    return " ".join(DIR_NAMES[d] for d in range(4) if mask & BIT[d]) or "none"


def catalogue_tile(core: Core, cid: int) -> str:
    """``gas (L)`` for a catalogue id."""
    return catalogue_tile_name(core.cat, cid) or "no tile"


def _caver(st: State, s: int, g: int = 0) -> str:
    return CAVER_NAMES[st.c_rank[g, s] - 1]


def _seat_of_rank(st: State, rank: int, g: int = 0) -> int:
    hits = np.flatnonzero(st.c_rank[g] == rank)
    return int(hits[0]) if len(hits) else -1


def _actor_tile(st: State, g: int = 0) -> int:
    a = int(st.actor[g])
    return int(st.c_tile[g, a]) if a >= 0 else -1


def _water_tiles(st: State, g: int = 0) -> list[int]:
    return [int(t) for t in np.flatnonzero(st.t_type[g] == TILE_TYPES.index("water"))]
