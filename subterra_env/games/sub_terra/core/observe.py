"""Observation v1, written by compiled code: an int8 grid (C, 2R+1, 2R+1) centred on the observing caver and an
int8 scalar vector, per game of a batch (``observe``; ``observe_game`` for one game inside other compiled code).

The layout (the sections, their sizes and offsets, what each entry means) is ``observation_layout``'s table; the
offsets below are derived from it at import, and one compiled writer fills each section: ``observe_tiles`` (tile,
revealable, explosives), ``observe_horrors``, ``observe_cavers``, ``observe_turn``, ``observe_seats``,
``observe_abilities`` and one per scenario (``observe_annihilation``, ``observe_extraction``,
``observe_investigation``). Hidden information (the stack order and the hazard deck order) never enters: only
counts do.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from subterra_env.config import TILE_TYPES
from .board import open_beside_start, tiles_left
from .catalogue import (BIT, BOMBS, DX, DY, ITEM_NAMES, NUM_ITEMS, SC_ANNIHILATION, SC_EXTRACTION, SC_INVESTIGATION,
                        T_ITEM, T_NORMAL, T_SANCTUARY, Catalogue)
from .hazards import cards_left
from .jit import PARALLEL_MIN_BATCH, jit, parallel_section
from .observation_layout import (ABILITY_SCALARS, ANNIHILATION_CHANNELS, ANNIHILATION_SCALARS, EXTRACTION_CHANNELS,
                                 EXTRACTION_SCALARS, GRID_CHANNELS, GRID_SECTIONS, INVESTIGATION_CHANNELS,
                                 INVESTIGATION_SCALARS, MAX_SEATS, NUM_GRID_CHANNELS, NUM_SCALARS, SCALAR_SECTIONS,
                                 SCALARS, SCENARIO_SECTIONS, SEAT_SCALARS, TILE_CHANNELS, TURN_SCALARS,
                                 grid_channels, layout_text, scalars_of, section_index)
from .prefetch import prefetch_game
from .seating import seat_after, seats_from
from .state import State, take_rows

# The offsets the compiled writers use (numba freezes module-level integers into the machine code).
_C, _S = section_index(GRID_SECTIONS), section_index(SCALAR_SECTIONS)
_TILE, _OPEN0, _TYPE0, _FLOODED, _RUBBLE, _ROPE = (
    _C["tile"], _C["open N"], _C["type start"], _C["flooded"], _C["rubble"], _C["rope"])
_ARROW0, _DIE_A, _DIE_B = _C["arrow N"], _C["cave-in die a"], _C["cave-in die b"]
_HORRORS, _REVEALABLE = _C["horrors"], _C["revealable cell"]
_BLAST, _CAVER0 = _C["explosives sides (bits N=1 E=2 S=4 W=8)"], _C["caver 0 health+1"]
_AP, _EXERTED, _PENDING, _RUN_LEFT, _RUN_TAKEN = (
    _S["AP left"], _S["exerted"], _S["pending decision"], _S["run steps left"], _S["run steps taken"])
_PENDING_TYPE, _PENDING_SHAPE, _PENDING_DIR = (
    _S["pending tile type+1"], _S["pending tile shape+1"], _S["pending direction+1"])
_DECK_LEFT, _TILES_LEFT, _OUT_OF_TIME, _GAS = (
    _S["hazard cards left"], _S["tiles left"], _S["out of time"], _S["gas active"])
_ROUND, _HORRORS_IN_CAVE, _ROPES_LEFT, _LAST_CARD = (
    _S["round"], _S["horrors in cave"], _S["ropes left"], _S["last hazard card+1"])
_EXIT_PLACED, _START_OFFSET = _S["exit placed"], _S["starting caver offset"]
_RANK0, _HIDDEN0, _DEVOURED0 = _S["caver 0 rank"], _S["caver 0 hidden"], _S["caver 0 devoured"]
_DIRECTED, _UNDER_DIRECT, _UNDER0 = (
    _S["Leader has directed this turn"], _S["acting under Direct"], _S["caver 0 under water"])
_ASIDE_TYPE, _ASIDE_SHAPE, _REDRAWS, _EXPLOSIVES, _REDREW = (
    _S["set-aside tile type+1"], _S["set-aside tile shape+1"], _S["Scout redraws left"], _S["explosives left"],
    _S["Scout redrew this placement"])
_N_TYPES = len(TILE_TYPES)

# Each scenario's offsets: its own sections, after the base ones.
_C = section_index(SCENARIO_SECTIONS["annihilation"][0], NUM_GRID_CHANNELS)
_S = section_index(SCENARIO_SECTIONS["annihilation"][1], NUM_SCALARS)
_BOMB_TILE, _BOMB_TOKEN, _ZONE, _DIE_C = (
    _C["bomb tile"], _C["bomb token"], _C["no-placement zone"], _C["cave-in die c"])
_BOMB_CARDS0, _BOMBS_LEFT, _BOMB_TOKENS = (
    _S["caver 0 bomb cards"], _S["bomb tiles not placed"], _S["bomb tokens placed"])

_C = section_index(SCENARIO_SECTIONS["extraction"][0], NUM_GRID_CHANNELS)
_S = section_index(SCENARIO_SECTIONS["extraction"][1], NUM_SCALARS)
_LEAPERS, _SANCTUARY, _OLDEST = _C["leapers"], _C["sanctuary"], _C["oldest monster here: place in the move order"]
_SAMPLES0, _LEAPERS_IN_CAVE, _SAMPLES_ON_EXIT = (
    _S["caver 0 biosamples"], _S["leapers in cave"], _S["biosamples on the exit"])

_C = section_index(SCENARIO_SECTIONS["investigation"][0], NUM_GRID_CHANNELS)
_S = section_index(SCENARIO_SECTIONS["investigation"][1], NUM_SCALARS)
_ITEM_TILE, _ITEM_TOKEN = _C["item tile"], _C["item token"]
_DOOM, _ITEM_DECK, _FLARE, _GIVER, _RECEIVER = (
    _S["doom pending"], _S["item deck size"], _S["flare under way"], _S["transfer giver offset+1"],
    _S["transfer receiver offset+1"])
_HOLDS0, _ITEM_OUT0, _BATTERY0 = (
    _S[f"caver 0 holds {ITEM_NAMES[0]}"], _S[f"{ITEM_NAMES[0]} out of the game"], _S["caver 0 spare battery active"])
_MASK_ASKED, _MASK_STAKE = _S["gas mask decision: asked offset+1"], _S["gas mask decision: health at stake"]
del _C, _S

assert BIT.tolist() == [1 << d for d in range(4)]  # observe_tiles reads side d's bit as (sides >> d) & 1
_SCENARIO_CODES = {SC_ANNIHILATION: "annihilation", SC_EXTRACTION: "extraction", SC_INVESTIGATION: "investigation"}


def observe(cat: Catalogue, st: State, seats: np.ndarray, radius: int, grid_out: np.ndarray | None = None,
            scalars_out: np.ndarray | None = None, centre: np.ndarray | None = None, threads: int | None = None,
            rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(grid (B, 34, 2R+1, 2R+1), scalars (B, 49)) int8 observations of the given seat of every game (a
    scenario's catalogue: (B, len(grid_channels(s)), ...), (B, len(scalars_of(s)))).

    Written into ``grid_out`` / ``scalars_out`` (C-contiguous int8) when given. The window is centred on the
    observer's tile, or on the tile index ``centre`` per game when given (the global ``raw_env.state()`` is
    centred on the start tile). A devoured or diving observer sees from the start tile. Batches of at least
    PARALLEL_MIN_BATCH games are spread over ``threads`` numba threads (None: every core; 1: serial).

    ``rows``: only these games of ``st`` (``seats`` and ``centre`` then one per row), without building their
    ``State`` (the autoreset's few new games: ``State.take`` costs more than observing them)."""
    packed = st.packed if rows is None else take_rows(st.packed, rows)
    b, w = len(packed), 2 * radius + 1
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
    args = (packed, _tables(cat), cat.stack_size, cat.scenario, seats, centres, radius, grid_out, scalars_out)
    if b >= PARALLEL_MIN_BATCH and threads != 1:
        with parallel_section(threads):
            bad = observe_parallel(*args)
    else:
        bad = observe_batch(*args)
    if bad >= 0:
        raise ValueError(f"game {bad}: seat {seats[bad]} is out of range 0..{st.num_seats - 1} or centre "
                         f"{centres[bad]} is not a tile on the table")
    return grid_out, scalars_out


def copy_observations(src: np.ndarray, dst: np.ndarray, threads: int | None = None) -> None:
    """``dst[...] = src`` for a batch's observation grids (C-contiguous int8 arrays of one shape), the games spread
    over ``threads`` numba threads (None: every core; 1, or fewer than PARALLEL_MIN_BATCH games: numpy's copy).
    The TorchRL env copies its batch once a step where games end (the final observations and the new games' must
    both exist): 8 MB at B = 1024 and the default window, which one thread copies at what one core moves (0.72 ms
    on the 2-core VM, 0.41 ms on both cores)."""
    if src.shape != dst.shape or src.dtype != np.int8 or dst.dtype != np.int8 or not src.flags.c_contiguous \
            or not dst.flags.c_contiguous:
        raise ValueError(f"copy_observations: expected two C-contiguous int8 arrays of one shape, got {src.dtype} "
                         f"{src.shape} and {dst.dtype} {dst.shape}")
    if threads == 1 or len(src) < PARALLEL_MIN_BATCH:
        np.copyto(dst, src)
        return
    with parallel_section(threads):
        copy_parallel(src.reshape(-1), dst.reshape(-1), _COPY_CHUNKS)


_COPY_CHUNKS = 16  # slices of a parallel copy: enough to balance any thread count up to 16


@jit(parallel=True)
def copy_parallel(src, dst, chunks):
    """dst[:] = src (flat arrays), in ``chunks`` slices over numba's threads."""
    n = src.shape[0]
    step = (n + chunks - 1) // chunks
    for c in prange(chunks):
        a = min(n, c * step)
        b = min(n, a + step)
        dst[a:b] = src[a:b]


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
        prefetch_game(states, b)
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
        prefetch_game(states, b)
        observe_game(states[b], tables, stack_size, scenario, seats[b], centres[b], radius, grid_out[b],
                     scalars_out[b])
    return -1


@jit
def observe_game(g, tables, stack_size, scenario, seat, centre, radius, out, sc):
    """One game's observation by ``seat`` into out (C, W, W) and sc (49,; a scenario's own entries after them),
    one writer per section (the layout table of the module docstring)."""
    out[:] = 0
    sc[:] = 0
    w = 2 * radius + 1
    me = max(g.c_tile[seat], 0) if centre < 0 else centre
    x0, y0 = g.t_x[me] - radius, g.t_y[me] - radius
    observe_tiles(g, tables, x0, y0, w, out)
    observe_horrors(g, x0, y0, w, out)
    observe_cavers(g, seat, x0, y0, w, out)
    observe_turn(g, tables, stack_size, seat, sc)
    observe_seats(g, seat, sc)
    observe_abilities(g, tables, seat, sc)
    if scenario == SC_ANNIHILATION:  # a scenario's arrays (observe() sizes them by the catalogue)
        observe_annihilation(g, tables, seat, x0, y0, w, out, sc)
    elif scenario == SC_EXTRACTION:
        observe_extraction(g, seat, x0, y0, w, out, sc)
    elif scenario == SC_INVESTIGATION:
        observe_investigation(g, seat, x0, y0, w, out, sc)


@jit
def observe_tiles(g, tables, x0, y0, w, out):
    """Grid sections "tile", "revealable" and "explosives": every tile in the window (x0, y0, w) and the empty
    cells beyond its open sides (R-CON-4).

    Written with stores only and without branches on the sides, since at a large batch (no game's pattern repeats
    soon enough for the predictor to learn it) both cost more than the writing itself: a side is open about as
    often as not, so a branch on it missed half the time, and reading the "tile" plane back to see whether a cell
    beyond a side is empty made the core discard its work whenever that read overtook a store to the same plane.
    A revealable mark goes to the cell beyond an open side without a linked tile, or, when there is none, to the
    tile's own cell; the second pass clears the marks on every tile's cell, which leaves exactly the empty cells
    (an occupied cell inside the window holds a tile inside it). Measured at B = 4096 on one thread, this section
    with the zeroing: 536-544 ns a game with the branches and the read-back, 449-453 without the side branches,
    300-304 with stores only."""
    for t in range(g.n_tiles):
        x, y = g.t_x[t] - x0, g.t_y[t] - y0
        if x < 0 or x >= w or y < 0 or y >= w:
            continue
        opened, c = g.t_open[t], g.t_cat[t]
        out[_TILE, y, x] = 1
        for d in range(4):
            out[_OPEN0 + d, y, x] = (opened >> d) & 1
        out[_TYPE0 + (g.t_type[t] if g.t_type[t] < _N_TYPES else T_NORMAL), y, x] = 1  # a bomb: a normal tile
        out[_FLOODED, y, x] = g.t_flood[t]
        out[_RUBBLE, y, x] = g.t_rubble[t]
        out[_ROPE, y, x] = g.t_rope[t]
        arrow = g.t_arrow[t]  # -1 on most tiles: then a 0 into the first arrow plane, at a cell only this tile writes
        out[_ARROW0 + max(arrow, 0), y, x] = arrow >= 0
        out[_DIE_A, y, x] = tables[2, c]
        out[_DIE_B, y, x] = tables[3, c]
        out[_BLAST, y, x] = g.t_blast[t]
        for d in range(4):
            fx, fy = x + DX[d], y + DY[d]
            beyond = ((opened >> d) & 1) & (g.t_nbr[t, d] < 0) & (fx >= 0) & (fx < w) & (fy >= 0) & (fy < w)
            out[_REVEALABLE, fy if beyond else y, fx if beyond else x] = 1
    for t in range(g.n_tiles):
        x, y = g.t_x[t] - x0, g.t_y[t] - y0
        if 0 <= x < w and 0 <= y < w:
            out[_REVEALABLE, y, x] = 0


@jit
def observe_horrors(g, x0, y0, w, out):
    """Grid section "horrors": the number of horrors on each visible tile."""
    for h in range(3):
        t = g.h_tile[h]
        if t >= 0 and 0 <= g.t_x[t] - x0 < w and 0 <= g.t_y[t] - y0 < w:
            out[_HORRORS, g.t_y[t] - y0, g.t_x[t] - x0] += 1


@jit
def observe_cavers(g, seat, x0, y0, w, out):
    """Grid section "cavers": plane k holds the health + 1 of the caver k seats after the observer where it stands."""
    n = g.n_seats
    for k in range(n):
        s = seat_after(seat, k, n)
        t = g.c_tile[s]
        if t >= 0 and 0 <= g.t_x[t] - x0 < w and 0 <= g.t_y[t] - y0 < w:
            out[_CAVER0 + k, g.t_y[t] - y0, g.t_x[t] - x0] = g.c_hp[s] + 1


@jit
def observe_turn(g, tables, stack_size, seat, sc):
    """Scalar section "turn": the acting caver's AP and decision under way, the counts, the round."""
    sc[_AP], sc[_EXERTED], sc[_PENDING], sc[_RUN_LEFT], sc[_RUN_TAKEN] = (
        g.ap, g.exerted, g.pend, g.run_left, g.run_taken)
    if g.pend_tile >= 0:
        sc[_PENDING_TYPE] = tables[0, g.pend_tile] + 1
        sc[_PENDING_SHAPE] = tables[1, g.pend_tile] + 1
    sc[_PENDING_DIR] = g.pend_dir + 1
    horrors = 0
    for h in range(3):
        if g.h_tile[h] >= 0:
            horrors += 1
    sc[_DECK_LEFT] = cards_left(g)
    sc[_TILES_LEFT] = tiles_left(g, stack_size)
    sc[_OUT_OF_TIME], sc[_GAS] = g.out_of_time, g.gas_active
    sc[_ROUND] = min(g.round, 127)
    sc[_HORRORS_IN_CAVE], sc[_ROPES_LEFT], sc[_LAST_CARD] = horrors, g.ropes_left, g.last_card + 1
    sc[_EXIT_PLACED] = g.exit_tile >= 0
    sc[_START_OFFSET] = seats_from(seat, g.start_seat, g.n_seats)


@jit
def observe_seats(g, seat, sc):
    """Scalar section "seats": who is who, relative to the observer; 0 where the table has no seat k."""
    n = g.n_seats
    for k in range(n):
        s = seat_after(seat, k, n)
        sc[_RANK0 + k], sc[_HIDDEN0 + k], sc[_DEVOURED0 + k] = g.c_rank[s], g.c_hidden[s], g.c_dead[s]


@jit
def observe_abilities(g, tables, seat, sc):
    """Scalar section "abilities": the Leader's Direct, the Diver's dives (per caver, relative to the observer),
    the Geologist's set-aside tile, the Scout's redraws, the Engineer's explosives."""
    sc[_DIRECTED], sc[_UNDER_DIRECT] = g.direct_used, g.directing >= 0
    n = g.n_seats
    for k in range(n):
        sc[_UNDER0 + k] = g.c_under[seat_after(seat, k, n)]
    if g.aside_tile >= 0:
        sc[_ASIDE_TYPE] = tables[0, g.aside_tile] + 1
        sc[_ASIDE_SHAPE] = tables[1, g.aside_tile] + 1
    sc[_REDRAWS], sc[_EXPLOSIVES], sc[_REDREW] = g.scout_redraws, g.explosives, g.pend_redrawn


@jit
def observe_investigation(g, seat, x0, y0, w, out, sc):
    """Investigation's planes and scalars (R-INV-1..18): item tiles and tokens, doom pending, the item deck's size
    (not its order), a Flare or a Transfer under way, each caver's items, the items out of the game, the Spare
    Batteries active this round, the Gas Mask holder asked now and the health the gas would take from it
    (explicit_reactions); seats relative to the observer."""
    for t in range(g.n_tiles):
        x, y = g.t_x[t] - x0, g.t_y[t] - y0
        if 0 <= x < w and 0 <= y < w:
            out[_ITEM_TILE, y, x] = g.t_type[t] == T_ITEM
            out[_ITEM_TOKEN, y, x] = g.t_item[t]
    n = g.n_seats
    sc[_DOOM] = g.doom
    sc[_ITEM_DECK] = NUM_ITEMS - g.i_pos
    sc[_FLARE] = g.flare
    if g.x_from >= 0:
        sc[_GIVER] = seats_from(seat, g.x_from, n) + 1
        sc[_RECEIVER] = seats_from(seat, g.x_to, n) + 1
    for k in range(n):
        s = seat_after(seat, k, n)
        for i in range(NUM_ITEMS):
            sc[_HOLDS0 + k * NUM_ITEMS + i] = (g.c_items[s] >> i) & 1
        sc[_BATTERY0 + k] = (g.battery >> s) & 1
    for i in range(NUM_ITEMS):
        sc[_ITEM_OUT0 + i] = (g.i_out >> i) & 1
    if g.r_seat >= 0:
        sc[_MASK_ASKED] = seats_from(seat, g.r_seat, n) + 1
        sc[_MASK_STAKE] = g.r_lose


@jit
def observe_extraction(g, seat, x0, y0, w, out, sc):
    """Extraction's planes and scalars (R-EXT-4..9): leapers per tile, the sanctuary, and on each tile with
    monsters the place of its oldest in the move order (1 = moves first; R-EXT-4), biosamples."""
    for t in range(g.n_tiles):
        x, y = g.t_x[t] - x0, g.t_y[t] - y0
        if 0 <= x < w and 0 <= y < w:
            out[_SANCTUARY, y, x] = g.t_type[t] == T_SANCTUARY
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
                out[_LEAPERS, y, x] += 1
            here = out[_OLDEST, y, x]
            if here == 0 or place < here:
                out[_OLDEST, y, x] = place
    n = g.n_seats
    on_exit_samples = 0
    for k in range(n):
        s = seat_after(seat, k, n)
        sc[_SAMPLES0 + k] = g.c_samples[s]
        if g.exit_tile >= 0 and g.c_tile[s] == g.exit_tile:
            on_exit_samples += g.c_samples[s]
    sc[_LEAPERS_IN_CAVE] = leapers
    sc[_SAMPLES_ON_EXIT] = on_exit_samples


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
            out[_BOMB_TILE, y, x] = is_bomb
            out[_BOMB_TOKEN, y, x] = g.t_bomb[t]
            out[_DIE_C, y, x] = tables[4, g.t_cat[t]]
    e = g.exit_tile
    if e >= 0:
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                x, y = g.t_x[e] + dx - x0, g.t_y[e] + dy - y0
                if 0 <= x < w and 0 <= y < w and out[_TILE, y, x] == 0 and not open_beside_start(g, x + x0, y + y0):
                    out[_ZONE, y, x] = 1
                    out[_REVEALABLE, y, x] = 0
    n = g.n_seats
    for k in range(n):
        sc[_BOMB_CARDS0 + k] = g.c_bombs[seat_after(seat, k, n)]
    sc[_BOMBS_LEFT] = BOMBS - bombs_on_table
    sc[_BOMB_TOKENS] = tokens


def split_state(flat: np.ndarray, radius: int) -> tuple[np.ndarray, np.ndarray]:
    """The (grid, scalars) of a flat ``raw_env.state()`` vector (or a batch of them) with window ``radius``."""
    w = 2 * radius + 1
    n = NUM_GRID_CHANNELS * w * w
    flat = np.asarray(flat)
    return flat[..., :n].reshape(*flat.shape[:-1], NUM_GRID_CHANNELS, w, w), flat[..., n:]

__all__ = ["ABILITY_SCALARS", "ANNIHILATION_CHANNELS", "ANNIHILATION_SCALARS", "EXTRACTION_CHANNELS",
           "EXTRACTION_SCALARS", "GRID_CHANNELS", "INVESTIGATION_CHANNELS", "INVESTIGATION_SCALARS", "MAX_SEATS",
           "NUM_GRID_CHANNELS", "NUM_SCALARS", "SCALARS", "SEAT_SCALARS", "TILE_CHANNELS", "TURN_SCALARS",
           "grid_channels", "layout_text", "observe", "observe_batch", "observe_game", "observe_parallel",
           "scalars_of", "split_state"]
