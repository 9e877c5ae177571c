"""Observation v1: an int8 grid (C, 2R+1, 2R+1) centred on the observing caver, and an int8 scalar vector.

Cells are relative to the observer (row 0 = north). Seats are relative too: "caver k" is the caver k seats
after the observer in seating order (k = 0 is the observer). Hidden information (the stack order and the
hazard deck order) never enters: only counts do.

The grid holds what differs from cell to cell (tiles, markers, horrors, cavers); the scalars hold the rest (the
turn, counts, who is who), once each rather than as constant planes. ``GRID_CHANNELS`` and ``SCALARS`` name every
entry; their order is the tensor order. Each section below writes one block and the offsets are asserted.
Version history: v0 (env ``subterra_v0``) put the 49 scalars into constant planes of the grid: (83, W, W).

A scenario's observation is the base one with that scenario's planes and scalars after it (``grid_channels``,
``scalars_of``): Annihilation adds ``ANNIHILATION_CHANNELS`` and ``ANNIHILATION_SCALARS`` (RULES_VAR.md's public
information: the zone, bomb tiles and tokens, the unstable tiles' third number, bomb cards per caver, bomb tiles
not yet placed). In the base planes a bomb tile shows as a normal tile and zone cells are never revealable.
Extraction adds ``EXTRACTION_CHANNELS`` and ``EXTRACTION_SCALARS`` (leapers per tile, the sanctuary, each tile's
oldest monster's place in the move order, biosamples per caver, leapers in the cave, biosamples on the exit); its
sanctuary shows as a normal tile in the base type planes. Investigation adds ``INVESTIGATION_CHANNELS`` and
``INVESTIGATION_SCALARS`` (R-INV: item tiles and tokens, doom pending, the item deck's size, each caver's items by
name, the items out of the game, the Spare Batteries active, a Flare or a Transfer under way, a Gas Mask decision
pending with the health at stake); its item tiles show as normal tiles in the base type planes. The item deck's order is hidden (only its size is seen).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..config import TILE_TYPES
from .board import open_beside_start, tiles_left
from .catalogue import (BIT, BOMBS, DX, DY, ITEM_NAMES, NUM_ITEMS, SC_ANNIHILATION, SC_EXTRACTION, SC_INVESTIGATION,
                        T_ITEM, T_NORMAL, T_SANCTUARY, Catalogue)
from .hazards import cards_left
from .jit import PARALLEL_MIN_BATCH, jit, parallel_section
from .state import State

MAX_SEATS = 6

TILE_CHANNELS: tuple[str, ...] = (
    ("tile", "open N", "open E", "open S", "open W")
    + tuple(f"type {t}" for t in TILE_TYPES)
    + ("flooded", "rubble", "rope", "arrow N", "arrow E", "arrow S", "arrow W", "cave-in die a", "cave-in die b")
)
GRID_CHANNELS: tuple[str, ...] = (
    TILE_CHANNELS
    + ("horrors", "revealable cell", "explosives sides (bits N=1 E=2 S=4 W=8)")
    + tuple(f"caver {k} health+1" for k in range(MAX_SEATS))
)
TURN_SCALARS: tuple[str, ...] = (
    "AP left", "exerted", "pending decision", "run steps left", "run steps taken", "pending tile type+1",
    "pending tile shape+1", "pending direction+1", "hazard cards left", "tiles left", "out of time",
    "gas active", "round", "horrors in cave", "ropes left", "last hazard card+1", "exit placed",
    "starting caver offset",
)
SEAT_SCALARS: tuple[str, ...] = (
    tuple(f"caver {k} rank" for k in range(MAX_SEATS))
    + tuple(f"caver {k} hidden" for k in range(MAX_SEATS))
    + tuple(f"caver {k} devoured" for k in range(MAX_SEATS))
)
ABILITY_SCALARS: tuple[str, ...] = (
    ("Leader has directed this turn", "acting under Direct")
    + tuple(f"caver {k} under water" for k in range(MAX_SEATS))
    + ("set-aside tile type+1", "set-aside tile shape+1", "Scout redraws left", "explosives left",
       "Scout redrew this placement")
)
SCALARS: tuple[str, ...] = TURN_SCALARS + SEAT_SCALARS + ABILITY_SCALARS
NUM_GRID_CHANNELS, NUM_SCALARS = len(GRID_CHANNELS), len(SCALARS)
_C = {name: i for i, name in enumerate(GRID_CHANNELS)}
_S = {name: i for i, name in enumerate(SCALARS)}
_TILE_PLANES = len(TILE_CHANNELS)  # planes 0.._TILE_PLANES-1 describe the tile in a cell
_CAVER0 = _C["caver 0 health+1"]
assert (NUM_GRID_CHANNELS, NUM_SCALARS) == (34, 49) and _TILE_PLANES == _C["horrors"]
assert _S["caver 0 rank"] == len(TURN_SCALARS) and _S["Leader has directed this turn"] == len(TURN_SCALARS) + 18


_PENDING_TILE, _DECK_LEFT, _TILES_LEFT = _S["pending tile type+1"], _S["hazard cards left"], _S["tiles left"]
_ROUND, _START_OFFSET = _S["round"], _S["starting caver offset"]
_RANK0, _HIDDEN0, _DEVOURED0 = _S["caver 0 rank"], _S["caver 0 hidden"], _S["caver 0 devoured"]
_UNDER0, _ASIDE = _S["caver 0 under water"], _S["set-aside tile type+1"]
_DIRECTED, _UNDER_DIRECT = _S["Leader has directed this turn"], _S["acting under Direct"]
_TYPE0, _FLOODED, _ARROW0, _DIE_A = _C["type start"], _C["flooded"], _C["arrow N"], _C["cave-in die a"]
_HORRORS, _REVEALABLE = _C["horrors"], _C["revealable cell"]
_BLAST = _C["explosives sides (bits N=1 E=2 S=4 W=8)"]
_N_TYPES = len(TILE_TYPES)

# Annihilation (R-ANN), after the base entries.
ANNIHILATION_CHANNELS: tuple[str, ...] = ("bomb tile", "bomb token", "no-placement zone", "cave-in die c")
ANNIHILATION_SCALARS: tuple[str, ...] = (
    tuple(f"caver {k} bomb cards" for k in range(MAX_SEATS)) + ("bomb tiles not placed", "bomb tokens placed"))
_BOMB_PLANE = NUM_GRID_CHANNELS
_BOMB_CARDS0 = NUM_SCALARS

# Extraction (R-EXT), after the base entries.
EXTRACTION_CHANNELS: tuple[str, ...] = ("leapers", "sanctuary", "oldest monster here: place in the move order")
EXTRACTION_SCALARS: tuple[str, ...] = (
    tuple(f"caver {k} biosamples" for k in range(MAX_SEATS)) + ("leapers in cave", "biosamples on the exit"))
_LEAPER_PLANE = NUM_GRID_CHANNELS
_SAMPLES0 = NUM_SCALARS

# Investigation (R-INV), after the base entries.
INVESTIGATION_CHANNELS: tuple[str, ...] = ("item tile", "item token")
INVESTIGATION_SCALARS: tuple[str, ...] = (
    ("doom pending", "item deck size", "flare under way", "transfer giver offset+1", "transfer receiver offset+1")
    + tuple(f"caver {k} holds {name}" for k in range(MAX_SEATS) for name in ITEM_NAMES)
    + tuple(f"{name} out of the game" for name in ITEM_NAMES)
    + tuple(f"caver {k} spare battery active" for k in range(MAX_SEATS))
    + ("gas mask decision: asked offset+1", "gas mask decision: health at stake"))
_ITEM_PLANE = NUM_GRID_CHANNELS
_INV0 = NUM_SCALARS
_HOLDS0 = NUM_SCALARS + 5
_ITEM_OUT0 = _HOLDS0 + MAX_SEATS * NUM_ITEMS
_BATTERY0 = _ITEM_OUT0 + NUM_ITEMS
_REACT0 = _BATTERY0 + MAX_SEATS  # the Gas Mask decision (explicit_reactions, R-INV-18)
assert len(INVESTIGATION_SCALARS) == _REACT0 + 2 - NUM_SCALARS == 111
_SCENARIO_ENTRIES = {"annihilation": (ANNIHILATION_CHANNELS, ANNIHILATION_SCALARS),
                     "extraction": (EXTRACTION_CHANNELS, EXTRACTION_SCALARS),
                     "investigation": (INVESTIGATION_CHANNELS, INVESTIGATION_SCALARS)}
_SCENARIO_CODES = {SC_ANNIHILATION: "annihilation", SC_EXTRACTION: "extraction", SC_INVESTIGATION: "investigation"}


def grid_channels(scenario: str = "base") -> tuple[str, ...]:
    """Names of a scenario's grid planes, in tensor order."""
    return GRID_CHANNELS + _SCENARIO_ENTRIES.get(scenario, ((), ()))[0]


def scalars_of(scenario: str = "base") -> tuple[str, ...]:
    """Names of a scenario's scalars, in tensor order."""
    return SCALARS + _SCENARIO_ENTRIES.get(scenario, ((), ()))[1]


def observe(cat: Catalogue, st: State, seats: np.ndarray, radius: int, grid_out: np.ndarray | None = None,
            scalars_out: np.ndarray | None = None, centre: np.ndarray | None = None, threads: int | None = None,
            ) -> tuple[np.ndarray, np.ndarray]:
    """(grid (B, 34, 2R+1, 2R+1), scalars (B, 49)) int8 observations of the given seat of every game (a
    scenario's catalogue: (B, len(grid_channels(s)), ...), (B, len(scalars_of(s)))).

    Written into ``grid_out`` / ``scalars_out`` (C-contiguous int8) when given. The window is centred on the
    observer's tile, or on the tile index ``centre`` per game when given (the global ``raw_env.state()`` is
    centred on the start tile). A devoured or diving observer sees from the start tile. Batches of at least
    PARALLEL_MIN_BATCH games are spread over ``threads`` numba threads (None: every core; 1: serial)."""
    b, w = st.batch_size, 2 * radius + 1
    c, k = _sizes(cat)
    if grid_out is None:
        grid_out = np.empty((b, c, w, w), dtype=np.int8)
    elif grid_out.shape != (b, c, w, w) or grid_out.dtype != np.int8 or not grid_out.flags.c_contiguous:
        raise ValueError(f"grid_out must be a C-contiguous int8 array of shape {(b, c, w, w)}, "
                         f"got {grid_out.dtype} {grid_out.shape}")
    if scalars_out is None:
        scalars_out = np.empty((b, k), dtype=np.int8)
    elif scalars_out.shape != (b, k) or scalars_out.dtype != np.int8 or not scalars_out.flags.c_contiguous:
        raise ValueError(f"scalars_out must be a C-contiguous int8 array of shape {(b, k)}, got "
                         f"{scalars_out.dtype} {scalars_out.shape}")
    seats = _per_game(seats, b)
    centres = _no_centre(b) if centre is None else _per_game(centre, b)
    args = (st.packed, _tables(cat), cat.stack_size, cat.scenario, seats, centres, radius, grid_out, scalars_out)
    if b >= PARALLEL_MIN_BATCH and threads != 1:
        with parallel_section(threads):
            bad = observe_parallel(*args)
    else:
        bad = observe_batch(*args)
    if bad >= 0:
        raise ValueError(f"game {bad}: seat {seats[bad]} is out of range 0..{st.num_seats - 1} or centre "
                         f"{centres[bad]} is not a tile on the table")
    return grid_out, scalars_out


def _sizes(cat: Catalogue) -> tuple[int, int]:
    """(grid planes, scalars) of the catalogue's scenario."""
    name = _SCENARIO_CODES.get(cat.scenario, "base")
    return len(grid_channels(name)), len(scalars_of(name))


def _per_game(values, b: int) -> np.ndarray:
    """One int64 per game (a scalar is broadcast)."""
    arr = np.asarray(values)
    if arr.shape == (b,):
        return arr if arr.dtype == np.int64 else arr.astype(np.int64)  # astype makes a contiguous copy
    return np.ascontiguousarray(np.broadcast_to(arr.astype(np.int64), (b,)))


_NO_CENTRES: dict[int, np.ndarray] = {}


def _no_centre(b: int) -> np.ndarray:
    """(b,) -1: every window centred on its observer (cached: this is the per-decision path)."""
    arr = _NO_CENTRES.get(b)
    if arr is None:
        if len(_NO_CENTRES) > 16:
            _NO_CENTRES.clear()
        arr = _NO_CENTRES[b] = np.full(b, -1, dtype=np.int64)
    return arr


_TABLES: dict[int, tuple[Catalogue, np.ndarray]] = {}


def _tables(cat: Catalogue) -> np.ndarray:
    """(5, K) int64: tile type, shape, cave-in die a, b and c per catalogue id (built once per catalogue)."""
    hit = _TABLES.get(id(cat))
    if hit is None or hit[0] is not cat:
        hit = _TABLES[id(cat)] = (cat, np.stack([cat.tile_type, cat.tile_shape, cat.die_a, cat.die_b, cat.die_c]
                                                ).astype(np.int64))
    return hit[1]


@jit
def first_bad_observer(states, seats, centres):
    """The first game whose seat is not at the table or whose centre is not a placed tile, else -1."""
    for b in range(states.shape[0]):
        if not 0 <= seats[b] < states[b].n_seats or centres[b] >= states[b].n_tiles:
            return b
    return -1


@jit
def observe_batch(states, tables, stack_size, scenario, seats, centres, radius, grid_out, scalars_out):
    """Every game's observation; returns the first game with a bad seat or centre (nothing written), else -1."""
    bad = first_bad_observer(states, seats, centres)
    if bad >= 0:
        return bad
    for b in range(states.shape[0]):
        observe_game(states[b], tables, stack_size, scenario, seats[b], centres[b], radius, grid_out[b],
                     scalars_out[b])
    return -1


@jit(parallel=True)
def observe_parallel(states, tables, stack_size, scenario, seats, centres, radius, grid_out, scalars_out):
    """observe_batch with the games spread over numba's threads."""
    bad = first_bad_observer(states, seats, centres)
    if bad >= 0:
        return bad
    for b in prange(states.shape[0]):
        observe_game(states[b], tables, stack_size, scenario, seats[b], centres[b], radius, grid_out[b],
                     scalars_out[b])
    return -1


@jit
def observe_game(g, tables, stack_size, scenario, seat, centre, radius, out, sc):
    """One game's observation by ``seat`` into out (C, W, W) and sc (49,; a scenario's own entries after them)."""
    out[:] = 0
    w = 2 * radius + 1
    me = max(g.c_tile[seat], 0) if centre < 0 else centre
    x0, y0 = g.t_x[me] - radius, g.t_y[me] - radius
    n = g.n_seats
    for t in range(g.n_tiles):
        x, y = g.t_x[t] - x0, g.t_y[t] - y0
        if x < 0 or x >= w or y < 0 or y >= w:
            continue
        opened, c = g.t_open[t], g.t_cat[t]
        out[0, y, x] = 1
        for d in range(4):
            if opened & BIT[d]:
                out[1 + d, y, x] = 1
        out[_TYPE0 + (g.t_type[t] if g.t_type[t] < _N_TYPES else T_NORMAL), y, x] = 1  # a bomb: a normal tile
        out[_FLOODED, y, x] = g.t_flood[t]
        out[_FLOODED + 1, y, x] = g.t_rubble[t]
        out[_FLOODED + 2, y, x] = g.t_rope[t]
        if g.t_arrow[t] >= 0:
            out[_ARROW0 + g.t_arrow[t], y, x] = 1
        out[_DIE_A, y, x] = tables[2, c]
        out[_DIE_A + 1, y, x] = tables[3, c]
        out[_BLAST, y, x] = g.t_blast[t]
    # Revealable cells: beyond an open side, empty (R-CON-4). Inside the window a cell is empty exactly when the
    # "tile" plane written above is 0 there, which spares a lookup in the game's grid.
    for t in range(g.n_tiles):
        x, y = g.t_x[t] - x0, g.t_y[t] - y0
        if x < 0 or x >= w or y < 0 or y >= w:
            continue
        for d in range(4):
            if g.t_open[t] & BIT[d] and g.t_nbr[t, d] < 0:
                fx, fy = x + DX[d], y + DY[d]
                if 0 <= fx < w and 0 <= fy < w and out[0, fy, fx] == 0:
                    out[_REVEALABLE, fy, fx] = 1
    for h in range(3):  # the number of horrors on each visible tile
        t = g.h_tile[h]
        if t >= 0 and 0 <= g.t_x[t] - x0 < w and 0 <= g.t_y[t] - y0 < w:
            out[_HORRORS, g.t_y[t] - y0, g.t_x[t] - x0] += 1
    for k in range(n):  # caver k seats after the observer stands here, with this health + 1
        s = (seat + k) % n
        t = g.c_tile[s]
        if t >= 0 and 0 <= g.t_x[t] - x0 < w and 0 <= g.t_y[t] - y0 < w:
            out[_CAVER0 + k, g.t_y[t] - y0, g.t_x[t] - x0] = g.c_hp[s] + 1
    # Turn scalars ("AP left" .. "starting caver offset").
    sc[:] = 0
    sc[0], sc[1], sc[2], sc[3], sc[4] = g.ap, g.exerted, g.pend, g.run_left, g.run_taken
    if g.pend_tile >= 0:
        sc[_PENDING_TILE] = tables[0, g.pend_tile] + 1
        sc[_PENDING_TILE + 1] = tables[1, g.pend_tile] + 1
    sc[_PENDING_TILE + 2] = g.pend_dir + 1
    horrors = 0
    for h in range(3):
        if g.h_tile[h] >= 0:
            horrors += 1
    sc[_DECK_LEFT] = cards_left(g)
    sc[_TILES_LEFT] = tiles_left(g, stack_size)
    sc[_TILES_LEFT + 1], sc[_TILES_LEFT + 2] = g.out_of_time, g.gas_active
    sc[_ROUND] = min(g.round, 127)
    sc[_ROUND + 1], sc[_ROUND + 2], sc[_ROUND + 3] = horrors, g.ropes_left, g.last_card + 1
    sc[_ROUND + 4] = g.exit_tile >= 0
    sc[_START_OFFSET] = (g.start_seat - seat) % n
    # Seat scalars, relative to the observer; 0 where the table has no seat k.
    for k in range(n):
        s = (seat + k) % n
        sc[_RANK0 + k], sc[_HIDDEN0 + k], sc[_DEVOURED0 + k] = g.c_rank[s], g.c_hidden[s], g.c_dead[s]
        sc[_UNDER0 + k] = g.c_under[s]
    # Ability scalars.
    sc[_DIRECTED], sc[_UNDER_DIRECT] = g.direct_used, g.directing >= 0
    if g.aside_tile >= 0:
        sc[_ASIDE] = tables[0, g.aside_tile] + 1
        sc[_ASIDE + 1] = tables[1, g.aside_tile] + 1
    sc[_ASIDE + 2], sc[_ASIDE + 3], sc[_ASIDE + 4] = g.scout_redraws, g.explosives, g.pend_redrawn
    if scenario == SC_ANNIHILATION:  # a scenario's arrays (observe() sizes them by the catalogue)
        observe_annihilation(g, tables, seat, x0, y0, w, out, sc)
    elif scenario == SC_EXTRACTION:
        observe_extraction(g, seat, x0, y0, w, out, sc)
    elif scenario == SC_INVESTIGATION:
        observe_investigation(g, seat, x0, y0, w, out, sc)


@jit
def observe_investigation(g, seat, x0, y0, w, out, sc):
    """Investigation's planes and scalars (R-INV-1..18): item tiles and tokens, doom pending, the item deck's size
    (not its order), a Flare or a Transfer under way, each caver's items, the items out of the game, the Spare
    Batteries active this round, the Gas Mask holder asked now and the health the gas would take from it
    (explicit_reactions); seats relative to the observer."""
    for t in range(g.n_tiles):
        x, y = g.t_x[t] - x0, g.t_y[t] - y0
        if 0 <= x < w and 0 <= y < w:
            out[_ITEM_PLANE, y, x] = g.t_type[t] == T_ITEM
            out[_ITEM_PLANE + 1, y, x] = g.t_item[t]
    n = g.n_seats
    sc[_INV0] = g.doom
    sc[_INV0 + 1] = NUM_ITEMS - g.i_pos
    sc[_INV0 + 2] = g.flare
    if g.x_from >= 0:
        sc[_INV0 + 3] = (g.x_from - seat) % n + 1
        sc[_INV0 + 4] = (g.x_to - seat) % n + 1
    for k in range(n):
        s = (seat + k) % n
        for i in range(NUM_ITEMS):
            sc[_HOLDS0 + k * NUM_ITEMS + i] = (g.c_items[s] >> i) & 1
        sc[_BATTERY0 + k] = (g.battery >> s) & 1
    for i in range(NUM_ITEMS):
        sc[_ITEM_OUT0 + i] = (g.i_out >> i) & 1
    if g.r_seat >= 0:
        sc[_REACT0] = (g.r_seat - seat) % n + 1
        sc[_REACT0 + 1] = g.r_lose


@jit
def observe_extraction(g, seat, x0, y0, w, out, sc):
    """Extraction's planes and scalars (R-EXT-4..9): leapers per tile, the sanctuary, and on each tile with
    monsters the place of its oldest in the move order (1 = moves first; R-EXT-4), biosamples."""
    for t in range(g.n_tiles):
        x, y = g.t_x[t] - x0, g.t_y[t] - y0
        if 0 <= x < w and 0 <= y < w:
            out[_LEAPER_PLANE + 1, y, x] = g.t_type[t] == T_SANCTUARY
    leapers = 0
    for k in range(6):
        t = g.h_tile[k] if k < 3 else g.l_tile[k - 3]
        if t < 0:
            continue
        born = g.h_born[k] if k < 3 else g.l_born[k - 3]
        place = 1  # monsters moving before this one (oldest first; ties: horrors, then slots)
        for j in range(6):
            u = g.h_tile[j] if j < 3 else g.l_tile[j - 3]
            other = g.h_born[j] if j < 3 else g.l_born[j - 3]
            if u >= 0 and (other < born or (other == born and j < k)):
                place += 1
        leapers += k >= 3
        x, y = g.t_x[t] - x0, g.t_y[t] - y0
        if 0 <= x < w and 0 <= y < w:
            if k >= 3:
                out[_LEAPER_PLANE, y, x] += 1
            here = out[_LEAPER_PLANE + 2, y, x]
            if here == 0 or place < here:
                out[_LEAPER_PLANE + 2, y, x] = place
    n = g.n_seats
    on_exit_samples = 0
    for k in range(n):
        s = (seat + k) % n
        sc[_SAMPLES0 + k] = g.c_samples[s]
        if g.exit_tile >= 0 and g.c_tile[s] == g.exit_tile:
            on_exit_samples += g.c_samples[s]
    sc[_SAMPLES0 + MAX_SEATS] = leapers
    sc[_SAMPLES0 + MAX_SEATS + 1] = on_exit_samples


@jit
def observe_annihilation(g, tables, seat, x0, y0, w, out, sc):
    """Annihilation's planes and scalars (R-ANN-1..6); zone cells are not revealable."""
    bombs_on_table, tokens = 0, 0
    for t in range(g.n_tiles):
        is_bomb = tables[0, g.t_cat[t]] == _N_TYPES  # catalogue.T_BOMB, the first type after the base ones
        bombs_on_table += is_bomb
        tokens += g.t_bomb[t]
        x, y = g.t_x[t] - x0, g.t_y[t] - y0
        if 0 <= x < w and 0 <= y < w:
            out[_BOMB_PLANE, y, x] = is_bomb
            out[_BOMB_PLANE + 1, y, x] = g.t_bomb[t]
            out[_BOMB_PLANE + 3, y, x] = tables[4, g.t_cat[t]]
    e = g.exit_tile
    if e >= 0:
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                x, y = g.t_x[e] + dx - x0, g.t_y[e] + dy - y0
                if 0 <= x < w and 0 <= y < w and out[0, y, x] == 0 and not open_beside_start(g, x + x0, y + y0):
                    out[_BOMB_PLANE + 2, y, x] = 1
                    out[_REVEALABLE, y, x] = 0
    n = g.n_seats
    for k in range(n):
        sc[_BOMB_CARDS0 + k] = g.c_bombs[(seat + k) % n]
    sc[_BOMB_CARDS0 + MAX_SEATS] = BOMBS - bombs_on_table
    sc[_BOMB_CARDS0 + MAX_SEATS + 1] = tokens


def split_state(flat: np.ndarray, radius: int) -> tuple[np.ndarray, np.ndarray]:
    """The (grid, scalars) of a flat ``raw_env.state()`` vector (or a batch of them) with window ``radius``."""
    w = 2 * radius + 1
    n = NUM_GRID_CHANNELS * w * w
    flat = np.asarray(flat)
    return flat[..., :n].reshape(*flat.shape[:-1], NUM_GRID_CHANNELS, w, w), flat[..., n:]
