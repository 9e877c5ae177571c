"""Sub Terra's colours and tile type codes: the one table that every picture of a game reads.

The text map (``render``) writes TYPE_CODES on each tile; the PNG frames (``frames``) fill tiles with TYPE_COLOURS and
draw cavers in CAVER_COLOURS by rank; the terminal game (``subterra_game.tui``) and the browser page
(``subterra_game.web``) show the same codes and colours, so a tile or a caver looks alike everywhere. In the Cave has
its own palette (``in_the_cave/render.py``).
"""

from __future__ import annotations

from .games.sub_terra.core.catalogue import CORE_TILE_TYPES

Colour = tuple[int, int, int]

TYPE_CODES: dict[str, str] = {
    "start": "STA", "exit": "EXT", "normal": "NOR", "water": "WAT", "gas": "GAS", "cave-in": "CAV",
    "horror": "DEN", "squeeze": "SQZ", "ledge": "LDG", "slide": "SLD", "rough": "ROU", "bomb": "BMB",
    "sanctuary": "SAN", "item": "ITM",
}
TYPE_COLOURS: dict[str, Colour] = {
    "start": (205, 205, 205), "exit": (80, 200, 90), "normal": (160, 130, 95), "water": (80, 140, 200),
    "gas": (175, 195, 60), "cave-in": (185, 110, 55), "horror": (140, 75, 165), "squeeze": (125, 125, 140),
    "ledge": (210, 170, 90), "slide": (95, 185, 185), "rough": (115, 90, 70), "bomb": (215, 60, 45),
    "sanctuary": (235, 235, 150), "item": (230, 190, 40),
}
CAVER_COLOURS: dict[int, Colour] = {  # by rank 1..8 (CAVER_NAMES order)
    1: (0, 220, 255), 2: (255, 255, 0), 3: (255, 140, 0), 4: (0, 255, 120),
    5: (255, 0, 255), 6: (255, 255, 255), 7: (30, 30, 255), 8: (255, 170, 200),
}
HORROR_COLOUR: Colour = (230, 20, 20)
LEAPER_COLOUR: Colour = (255, 120, 0)  # Extraction's leapers (R-EXT-4), marked L
WALL_COLOUR: Colour = (45, 35, 28)
BACKGROUND: Colour = (0, 0, 0)
FLOOD_COLOUR: Colour = (30, 80, 230)
RUBBLE_COLOUR: Colour = (70, 70, 70)
ROPE_COLOUR: Colour = (245, 225, 120)
ARROW_COLOUR: Colour = (15, 15, 15)
assert set(TYPE_CODES) == set(TYPE_COLOURS) == set(CORE_TILE_TYPES)


def dim(colour: Colour, factor: float = 0.4) -> Colour:
    """The colour darkened to ``factor`` of its brightness (an unconscious caver)."""
    return (int(colour[0] * factor), int(colour[1] * factor), int(colour[2] * factor))


__all__ = ["ARROW_COLOUR", "BACKGROUND", "CAVER_COLOURS", "FLOOD_COLOUR", "HORROR_COLOUR", "LEAPER_COLOUR",
           "ROPE_COLOUR", "RUBBLE_COLOUR", "TYPE_CODES", "TYPE_COLOURS", "WALL_COLOUR", "Colour", "dim"]
