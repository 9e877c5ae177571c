"""The layout of observation v1 (written by ``observe``): an int8 grid (C, 2R+1, 2R+1) centred on the observing
caver, and an int8 scalar vector.

Cells are relative to the observer (row 0 = north). Seats are relative too: "caver k" is the caver k seats
after the observer in seating order (k = 0 is the observer). Hidden information (the stack order and the
hazard deck order) never enters: only counts do.

The grid holds what differs from cell to cell (tiles, markers, horrors, cavers); the scalars hold the rest (the
turn, counts, who is who), once each rather than as constant planes. The layout is a table of sections, each a
name and the names of its entries (``GRID_SECTIONS``, ``SCALAR_SECTIONS``, ``SCENARIO_SECTIONS``), laid end to end
in tensor order; ``GRID_CHANNELS`` and ``SCALARS`` name every entry, and ``observe`` derives the offsets its
compiled writers use from these tables at import (one writer per section). The sections (``layout_text()`` prints
this table; tests/test_observation.py keeps it true)::

    layout         tensor   section          size  indices
    base           grid     tile               25  0..24
    base           grid     horrors             1  25
    base           grid     revealable          1  26
    base           grid     explosives          1  27
    base           grid     cavers              6  28..33
    base           scalars  turn               18  0..17
    base           scalars  seats              18  18..35
    base           scalars  abilities          13  36..48
    annihilation   grid     annihilation        4  34..37
    annihilation   scalars  bomb cards          6  49..54
    annihilation   scalars  bombs               2  55..56
    extraction     grid     extraction          3  34..36
    extraction     scalars  biosamples          6  49..54
    extraction     scalars  extraction          2  55..56
    investigation  grid     investigation       2  34..35
    investigation  scalars  investigation       5  49..53
    investigation  scalars  items held         84  54..137
    investigation  scalars  items out          14  138..151
    investigation  scalars  spare batteries     6  152..157
    investigation  scalars  gas mask            2  158..159

A scenario's observation is the base one with that scenario's planes and scalars after it (``grid_channels``,
``scalars_of``): Annihilation adds ``ANNIHILATION_CHANNELS`` and ``ANNIHILATION_SCALARS`` (RULES_VAR.md's public
information: the zone, bomb tiles and tokens, the unstable tiles' third number, bomb cards per caver, bomb tiles
not yet placed). In the base planes a bomb tile shows as a normal tile and zone cells are never revealable.
Extraction adds ``EXTRACTION_CHANNELS`` and ``EXTRACTION_SCALARS`` (leapers per tile, the sanctuary, each tile's
oldest monster's place in the move order, biosamples per caver, leapers in the cave, biosamples on the exit); its
sanctuary shows as a normal tile in the base type planes. Investigation adds ``INVESTIGATION_CHANNELS`` and
``INVESTIGATION_SCALARS`` (R-INV: item tiles and tokens, doom pending, the item deck's size, each caver's items by
name, the items out of the game, the Spare Batteries active, a Flare or a Transfer under way, a Gas Mask decision
pending with the health at stake); its item tiles show as normal tiles in the base type planes. The item deck's
order is hidden (only its size is seen).

Version history: v0 (env ``subterra_v0``) put the 49 scalars into constant planes of the grid: (83, W, W).
"""

from __future__ import annotations

from subterra_env.config import TILE_TYPES
from .catalogue import ITEM_NAMES

MAX_SEATS = 6

# One section = (its name, the names of its entries); sections lie end to end in the order listed, which is the
# tensor order.
Sections = tuple[tuple[str, tuple[str, ...]], ...]

GRID_SECTIONS: Sections = (
    ("tile", ("tile", "open N", "open E", "open S", "open W")
     + tuple(f"type {t}" for t in TILE_TYPES)
     + ("flooded", "rubble", "rope", "arrow N", "arrow E", "arrow S", "arrow W", "cave-in die a", "cave-in die b")),
    ("horrors", ("horrors",)),
    ("revealable", ("revealable cell",)),
    ("explosives", ("explosives sides (bits N=1 E=2 S=4 W=8)",)),
    ("cavers", tuple(f"caver {k} health+1" for k in range(MAX_SEATS))),
)
SCALAR_SECTIONS: Sections = (
    ("turn", ("AP left", "exerted", "pending decision", "run steps left", "run steps taken", "pending tile type+1",
              "pending tile shape+1", "pending direction+1", "hazard cards left", "tiles left", "out of time",
              "gas active", "round", "horrors in cave", "ropes left", "last hazard card+1", "exit placed",
              "starting caver offset")),
    ("seats", tuple(f"caver {k} rank" for k in range(MAX_SEATS))
     + tuple(f"caver {k} hidden" for k in range(MAX_SEATS))
     + tuple(f"caver {k} devoured" for k in range(MAX_SEATS))),
    ("abilities", ("Leader has directed this turn", "acting under Direct")
     + tuple(f"caver {k} under water" for k in range(MAX_SEATS))
     + ("set-aside tile type+1", "set-aside tile shape+1", "Scout redraws left", "explosives left",
        "Scout redrew this placement")),
)
# A scenario's sections follow the base ones: (grid sections, scalar sections).
SCENARIO_SECTIONS: dict[str, tuple[Sections, Sections]] = {
    "annihilation": (  # R-ANN
        (("annihilation", ("bomb tile", "bomb token", "no-placement zone", "cave-in die c")),),
        (("bomb cards", tuple(f"caver {k} bomb cards" for k in range(MAX_SEATS))),
         ("bombs", ("bomb tiles not placed", "bomb tokens placed")))),
    "extraction": (  # R-EXT
        (("extraction", ("leapers", "sanctuary", "oldest monster here: place in the move order")),),
        (("biosamples", tuple(f"caver {k} biosamples" for k in range(MAX_SEATS))),
         ("extraction", ("leapers in cave", "biosamples on the exit")))),
    "investigation": (  # R-INV
        (("investigation", ("item tile", "item token")),),
        (("investigation", ("doom pending", "item deck size", "flare under way", "transfer giver offset+1",
                            "transfer receiver offset+1")),
         ("items held", tuple(f"caver {k} holds {name}" for k in range(MAX_SEATS) for name in ITEM_NAMES)),
         ("items out", tuple(f"{name} out of the game" for name in ITEM_NAMES)),
         ("spare batteries", tuple(f"caver {k} spare battery active" for k in range(MAX_SEATS))),
         ("gas mask", ("gas mask decision: asked offset+1", "gas mask decision: health at stake")))),
}


def _entries(sections: Sections) -> tuple[str, ...]:
    return tuple(name for _, names in sections for name in names)


def section_index(sections: Sections, first: int = 0) -> dict[str, int]:
    """The tensor index of every entry of sections laid end to end from index ``first``."""
    return {name: first + i for i, name in enumerate(_entries(sections))}


GRID_CHANNELS: tuple[str, ...] = _entries(GRID_SECTIONS)
SCALARS: tuple[str, ...] = _entries(SCALAR_SECTIONS)
TILE_CHANNELS, TURN_SCALARS, SEAT_SCALARS, ABILITY_SCALARS = (
    GRID_SECTIONS[0][1], SCALAR_SECTIONS[0][1], SCALAR_SECTIONS[1][1], SCALAR_SECTIONS[2][1])
NUM_GRID_CHANNELS, NUM_SCALARS = len(GRID_CHANNELS), len(SCALARS)
ANNIHILATION_CHANNELS, ANNIHILATION_SCALARS = (_entries(s) for s in SCENARIO_SECTIONS["annihilation"])
EXTRACTION_CHANNELS, EXTRACTION_SCALARS = (_entries(s) for s in SCENARIO_SECTIONS["extraction"])
INVESTIGATION_CHANNELS, INVESTIGATION_SCALARS = (_entries(s) for s in SCENARIO_SECTIONS["investigation"])
assert (NUM_GRID_CHANNELS, NUM_SCALARS, len(INVESTIGATION_SCALARS)) == (34, 49, 111)


def layout_text() -> str:
    """The section table of the module docstring: every section's name, size and offsets, base game first."""
    rows = ["    layout         tensor   section          size  indices"]
    for layout, (grid, scalars), first in (
            [("base", (GRID_SECTIONS, SCALAR_SECTIONS), (0, 0))]
            + [(name, secs, (NUM_GRID_CHANNELS, NUM_SCALARS)) for name, secs in SCENARIO_SECTIONS.items()]):
        for kind, sections, at in (("grid", grid, first[0]), ("scalars", scalars, first[1])):
            for section, names in sections:
                span = f"{at}" if len(names) == 1 else f"{at}..{at + len(names) - 1}"
                rows.append(f"    {layout:<14} {kind:<8} {section:<15} {len(names):>5}  {span}")
                at += len(names)
    return "\n".join(rows)


def grid_channels(scenario: str = "base") -> tuple[str, ...]:
    """Names of a scenario's grid planes, in tensor order."""
    return GRID_CHANNELS + (_entries(SCENARIO_SECTIONS[scenario][0]) if scenario in SCENARIO_SECTIONS else ())


def scalars_of(scenario: str = "base") -> tuple[str, ...]:
    """Names of a scenario's scalars, in tensor order."""
    return SCALARS + (_entries(SCENARIO_SECTIONS[scenario][1]) if scenario in SCENARIO_SECTIONS else ())
