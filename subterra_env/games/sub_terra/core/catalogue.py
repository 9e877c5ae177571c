"""Tiles and hazard cards as arrays built once per config, and the geometry tables used everywhere.

Directions are N=0, E=1, S=2, W=3; an open-side mask has bit d set when side d is open. Grid rows grow to the
south (y+1) and columns to the east (x+1). Rotation r turns a tile r quarter turns clockwise: side d -> (d+r)%4.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from subterra_env.config import ANNIHILATION_REMOVED, EXTRACTION_REMOVED, HAZARDS, INVESTIGATION_REMOVED, SHAPES, TILE_TYPES, GameConfig

N, E, S, W = range(4)
DIR_NAMES = ("N", "E", "S", "W")
DX = np.array([0, 1, 0, -1], dtype=np.int16)
DY = np.array([-1, 0, 1, 0], dtype=np.int16)
OPPOSITE = np.array([2, 3, 0, 1], dtype=np.int8)

T_START, T_EXIT, T_NORMAL, T_WATER, T_GAS, T_CAVE_IN, T_HORROR, T_SQUEEZE, T_LEDGE, T_SLIDE, T_ROUGH = range(11)
assert TILE_TYPES[T_ROUGH] == "rough" and TILE_TYPES[T_CAVE_IN] == "cave-in"
# Scenario tiles (RULES_VAR.md), after the base types so the base observation's type planes never move.
T_BOMB = 11  # R-ANN-3: a bomb tile, otherwise a normal tile
T_SANCTUARY = 12  # R-EXT-1, R-EXT-7: leapers never enter it; cavers on it are never a victim
T_ITEM = 13  # R-INV-1, R-INV-4: an item tile, otherwise a normal tile; it gets an item token when placed
CORE_TILE_TYPES: tuple[str, ...] = TILE_TYPES + ("bomb", "sanctuary", "item")
# Scenarios as the compiled rules number them (config.SCENARIOS order).
SC_BASE, SC_ANNIHILATION, SC_EXTRACTION, SC_INVESTIGATION = 0, 1, 2, 3
ITEM_TILES = 3  # R-INV-1: item tiles Investigation shuffles in
# R-INV-5..20: the fourteen items, one card each (R-INV-2), by their index (bit i of a caver's item mask): the
# actions Shovel..Explosive (R-INV-7..15), the reactions Scrawled Map, Body Armor, Gas Mask (R-INV-16..18), the
# passives Lucky Charm and Wetsuit (R-INV-19, R-INV-20).
ITEM_NAMES: tuple[str, ...] = ("shovel", "signal booster", "spare battery", "flare", "adrenaline", "painkillers",
                               "grappling hook", "grenade", "explosive", "scrawled map", "body armor", "gas mask",
                               "lucky charm", "wetsuit")
(I_SHOVEL, I_BOOSTER, I_BATTERY, I_FLARE, I_ADRENALINE, I_PAINKILLERS, I_HOOK, I_GRENADE, I_EXPLOSIVE, I_MAP, I_ARMOR,
 I_GAS_MASK, I_CHARM, I_WETSUIT) = range(14)
NUM_ITEMS = len(ITEM_NAMES)
ALL_ITEMS = (1 << NUM_ITEMS) - 1  # every item's bit
BOMBS = 3  # R-ANN-3, R-ANN-5: bomb tiles and bomb cards
BIOSAMPLES = 3  # R-EXT-9: biosample cards
EXTRA_HORROR_TILES = 2  # R-EXT-1: horror tiles Extraction shuffles in
SCENARIO_SHAPE = "T"  # RULES_VAR [default]: the new tiles' shape (unstable cave-ins, bombs, the sanctuary)
NEW_HORROR_SHAPE = "D"  # RULES_VAR [default]: the new horror tiles are dead ends (as 6 of the 8 base ones)

SHAPE_MASK = {"4": 0b1111, "T": 0b0111, "L": 0b0011, "I": 0b0101, "D": 0b0001}  # base orientation
assert set(SHAPE_MASK) == set(SHAPES)


def rotate_mask(mask: np.ndarray | int, r: np.ndarray | int) -> np.ndarray:
    """Open-side mask turned r quarter turns clockwise (vectorised over both arguments)."""
    m = np.asarray(mask, dtype=np.int16)
    r = np.asarray(r, dtype=np.int16) % 4
    return (((m << r) | (m >> (4 - r))) & 0xF).astype(np.uint8)


# ROT_MASK[m, r]: mask m rotated by r; POPCOUNT[m]: number of open sides.
ROT_MASK = rotate_mask(np.arange(16)[:, None], np.arange(4)[None, :])
POPCOUNT = np.array([bin(m).count("1") for m in range(16)], dtype=np.int8)
BIT = np.array([1, 2, 4, 8], dtype=np.uint8)

# Hazard card codes: basic 0..4 (HAZARDS order), severe x2 = 5..9, Out of Time = 10, no card = -1.
C_TREMOR, C_FLOOD, C_CAVE_IN, C_GAS, C_HORROR = range(5)
X2 = 5
C_OUT_OF_TIME = 10
C_LEAPER, C_LEAPER_X2 = 11, 12  # R-EXT-2: Extraction's hazard cards, after Out of Time so base codes never move
C_DOOM = 13  # R-INV-2: Investigation's Doom card
CARD_NAMES = tuple(HAZARDS) + tuple(f"{h} x2" for h in HAZARDS) + ("out of time", "leaper", "leaper x2", "doom")
assert HAZARDS == ("tremor", "flood", "cave-in", "gas", "horror")


@dataclass(frozen=True)
class Catalogue:
    """Per-config constant tables. Cave tiles are ids 0..n-1, then the exit (n) and the start (n+1).

    Annihilation (R-ANN-3) adds the 2 unstable cave-in tiles and then the 3 bomb tiles to the cave tiles (so the
    bombs are ids n-3..n-1), and its stack is not every cave tile: ``stack_size`` counts what is dealt. Extraction
    (R-EXT-1) adds 2 horror tiles and the sanctuary (ids n-3..n-1); its stack loses the top 3 of them all."""

    n_cave: int  # cave tile ids (the catalogue besides the exit and the start)
    tile_type: np.ndarray  # (K,) int8
    tile_mask: np.ndarray  # (K,) uint8 base open sides
    tile_shape: np.ndarray  # (K,) int8 index into SHAPES
    die_a: np.ndarray  # (K,) int8 cave-in numbers, 0 = none
    die_b: np.ndarray
    die_c: np.ndarray  # the third number of an unstable cave-in tile (R-ANN-3), 0 = none
    deck_pool: np.ndarray  # (P,) int8 card codes after difficulty removals, before shuffling
    deal_size: int
    max_tiles: int  # tiles that can be on the table: start + exit + stack
    stack_size: int  # tiles dealt into the stack (the exit included in the base game)
    scenario: int = SC_BASE

    @property
    def exit_id(self) -> int:
        return self.n_cave

    @property
    def start_id(self) -> int:
        return self.n_cave + 1


@lru_cache(maxsize=64)
def build(cfg: GameConfig) -> Catalogue:
    types, shapes = [], []
    for ttype in TILE_TYPES[2:]:
        for shape in SHAPES:
            n = cfg.tiles.get(ttype, {}).get(shape, 0)
            types += [TILE_TYPES.index(ttype)] * n
            shapes += [SHAPES.index(shape)] * n
    dice = [(a, b, 0) for a, b in cfg.cave_in_numbers]
    scenario = {"annihilation": SC_ANNIHILATION, "extraction": SC_EXTRACTION,
                "investigation": SC_INVESTIGATION}.get(cfg.scenario, SC_BASE)
    if scenario == SC_ANNIHILATION:  # R-ANN-3: 2 unstable cave-in tiles, then the 3 bomb tiles (ids n-3..n-1)
        n_plain = len(types) + len(cfg.unstable_cave_in_numbers)
        types += [T_CAVE_IN] * len(cfg.unstable_cave_in_numbers) + [T_BOMB] * BOMBS
        shapes += [SHAPES.index(SCENARIO_SHAPE)] * (len(cfg.unstable_cave_in_numbers) + BOMBS)
        dice += [tuple(t) for t in cfg.unstable_cave_in_numbers]
        rest = n_plain - ANNIHILATION_REMOVED
        stack_size = rest + BOMBS
    if scenario == SC_EXTRACTION:  # R-EXT-1: 2 horror tiles and the sanctuary join the cave tiles (ids n-3..n-1)
        types += [T_HORROR] * EXTRA_HORROR_TILES + [T_SANCTUARY]
        shapes += [SHAPES.index(NEW_HORROR_SHAPE)] * EXTRA_HORROR_TILES + [SHAPES.index(SCENARIO_SHAPE)]
    if scenario == SC_INVESTIGATION:  # R-INV-1: the 3 item tiles join the cave tiles (ids n-3..n-1)
        types += [T_ITEM] * ITEM_TILES
        shapes += [SHAPES.index(SCENARIO_SHAPE)] * ITEM_TILES
    n_cave = len(types)
    if scenario == SC_BASE:
        stack_size = n_cave + 1
    elif scenario == SC_EXTRACTION:  # the top 3 removed unseen, then the exit among the bottom tiles
        stack_size = n_cave - EXTRACTION_REMOVED + 1
    elif scenario == SC_INVESTIGATION:  # R-INV-1: as Extraction, the top 3 removed unseen, then the exit
        stack_size = n_cave - INVESTIGATION_REMOVED + 1
    types += [T_EXIT, T_START]
    shapes += [SHAPES.index(cfg.exit_shape), SHAPES.index(cfg.start_shape)]
    tile_type = np.array(types, dtype=np.int8)
    tile_shape = np.array(shapes, dtype=np.int8)
    tile_mask = np.array([SHAPE_MASK[SHAPES[s]] for s in shapes], dtype=np.uint8)
    die_a = np.zeros(len(types), dtype=np.int8)
    die_b = np.zeros(len(types), dtype=np.int8)
    die_c = np.zeros(len(types), dtype=np.int8)
    cave_ins = np.nonzero(tile_type == T_CAVE_IN)[0]
    for i, (a, b, c) in zip(cave_ins, dice):
        die_a[i], die_b[i], die_c[i] = a, b, c

    pool: list[int] = []
    removals = cfg.removals[cfg.difficulty]
    for code, h in enumerate(HAZARDS):
        pool += [code] * (cfg.hazard_deck.get(h, 0) - removals.get(h, 0))
    severe = [X2 + code for code, h in enumerate(HAZARDS) for _ in range(cfg.severe_deck.get(h, 0))]
    # 'x2' removals take severe cards from the front of the list; the default removes all five.
    pool += severe[removals.get("x2", 0):]
    if scenario == SC_EXTRACTION:  # R-EXT-2: after the removals; the x2 goes where the difficulty removes x2s
        pool += [C_LEAPER] * cfg.leaper_cards
        pool += [C_LEAPER_X2] * (0 if removals.get("x2", 0) > 0 else cfg.leaper_x2_cards)
    if scenario == SC_INVESTIGATION:  # R-INV-2: the Doom cards at every difficulty, after the removals
        pool += [C_DOOM] * cfg.doom_cards
    return Catalogue(
        n_cave=n_cave, tile_type=tile_type, tile_mask=tile_mask, tile_shape=tile_shape, die_a=die_a, die_b=die_b,
        die_c=die_c, deck_pool=np.array(pool, dtype=np.int8), deal_size=cfg.deal_size,
        max_tiles=stack_size + (2 if scenario == SC_ANNIHILATION else 1), stack_size=stack_size, scenario=scenario,
    )
