"""All game state as numpy arrays with a leading batch axis B, packed into one array per batch.

The compiled rules (numba) take a whole batch in one call, so the state is packed: ``packed`` is a structured
array of shape (B,) whose record holds every field (at the largest size any config needs, so one compiled
kernel serves every config). The ``State`` fields are named views of it, with the shapes of this config; writing
a field writes the packed state. The record also holds what only the compiled rules read: the number of seats
and ``cells``, an index from grid cells to tiles (a small hash table: 128 slots of tile indices, probed from a
hash of the cell), which stands in for a (G, G) grid of 17.7 KB per game, and the event log of the latest step
(``core/events.py``: off unless asked for).

Layout (T = max tiles on the table = 66 by default, S = seats, H = 3 horror slots, G = grid side, D = deck):

    tiles, in placement order (index 0 is the start tile):
      t_cat    (B, T)    int8   catalogue id, -1 = no tile yet
      t_type   (B, T)    int8   tile type (catalogue.T_*), -1 = none
      t_x, t_y (B, T)    int16  grid cell; the start tile sits at (stack + 1, stack + 1)
      t_open   (B, T)    uint8  open sides after rotation (bit d = side d)
      t_arrow  (B, T)    int8   ledge/slide arrow direction, -1 = none
      t_flood, t_rubble, t_rope (B, T) bool   markers
      t_nbr    (B, T, 4) int8   tile connected through side d, -1 = wall / empty / half-open edge
      t_blast  (B, T)    uint8  sides with an explosives token (R-CAV-4); such a side is also set in t_open
      grid     (B, G, G) int8   tile index per cell, -1 = empty (G = 2 * stack + 3): not stored, a property
                                 computed from t_x, t_y (``grid_of(g)`` for one game)
    cavers, by seat (seat 0 moves first in the first round):
      c_rank   (B, S)    int8   rank number 1..8 (caver identity)
      c_tile   (B, S)    int8   tile index, -1 = devoured or under water
      c_under  (B, S)    bool   the Diver is under water (R-CAV-1)
      c_hp, c_max (B, S) int8   health (0 = unconscious) and start health
      c_dead   (B, S)    bool   devoured
      c_hidden (B, S)    bool   hidden until the end of this round
      c_hide_streak (B, S) int8 consecutive rounds with a Hide (variant)
    horrors:
      h_tile   (B, H)    int8   tile index, -1 = empty slot; slots kept oldest first
    scenarios (RULES_VAR.md; zero in the base game, and outside its state hash):
      t_bomb   (B, T)    bool   a bomb token on the tile (R-ANN-6)
      c_bombs  (B, S)    int8   bomb cards the caver holds (R-ANN-5, R-ANN-7)
      l_tile   (B, H)    int8   leaper tiles, -1 = empty slot; slots kept oldest first (R-EXT-4)
      h_born, l_born (B, H) int32  when each horror and leaper spawned: monsters move oldest first across kinds
      born_n   (B,)      int32  monsters spawned so far (the next spawn's ``*_born``)
      c_samples (B, S)   int8   biosample cards the caver holds (R-EXT-9)
    Investigation (RULES_VAR.md R-INV; outside the hash of every other game):
      t_item   (B, T)    bool   an item token on the tile (R-INV-4)
      c_items  (B, S)    int16  the items the caver holds, bit i = catalogue.ITEM_NAMES[i] (R-INV-5)
      i_deck   (B, 14)   int8   the item deck in draw order (hidden, R-INV-2), -1 = none
      i_pos    (B,)      int8   the next item card
      i_out    (B,)      int16  items out of the game: used, or lost with a devoured caver (R-INV-5, R-INV-6)
      doom     (B,)      bool   doom pending (R-INV-3)
      battery  (B,)      int8   seats (bits) with a Spare Battery active this round (R-INV-9)
      flare    (B,)      bool   a Flare is being resolved (R-INV-10)
      x_from, x_to (B,)  int8   the giver and receiver of a Transfer waiting for its item (R-INV-6), -1 = none
    Investigation's Gas Mask decision (setting ``explicit_reactions``, R-INV-5, R-INV-18; ``core/reactions.py``): a
    pause of the gas damage's resolution, empty (-1 / 0) whenever no decision is pending, so outside the hash then:
      r_seat   (B,)      int8   the holder asked (the acting seat meanwhile), -1 = no decision pending
      r_lose   (B,)      int8   the health the gas would take from each caver it hurts
      r_hurt   (B,)      int8   seats (bits) the gas hurts after the answer (the base protections still apply)
      r_no     (B,)      int8   seats (bits) that declined, during the answer's damage: the mask stays in hand
      r_actor  (B,)      int8   the acting seat to restore after the answer, -1 = none
      r_from   (B,)      int8   the resolution to resume: reactions.REACT_HAZARD or REACT_ENTER, 0 = none
    stack, deck and turn: see the scalar fields below.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np

from .events import EV_MAX, EV_WIDTH

FORCED = 16  # scripted dice slots per game
# Pending decisions (what the acting caver is choosing now).
P_NONE, P_PLACE, P_RUN, P_PICK, P_SURFACE = 0, 1, 2, 3, 4  # P_PICK: the Geologist picks a tile
P_FLARE, P_ITEM = 5, 6  # Investigation: Flare's next side (R-INV-10); the item a Transfer moves (R-INV-6)
# Results (R-RND-4); -1 while the game runs.
RESULT_NAMES = ("defeat", "bronze", "silver", "gold")
RUNNING = -1


@dataclass
class State:
    # randomness
    key: np.ndarray  # (B,) uint64
    ctr: np.ndarray  # (B,) uint64 draws used so far
    forced: np.ndarray  # (B, F) int8 scripted die faces for draws 0..F-1, 0 = use the stream (scenarios)
    # tiles
    t_cat: np.ndarray
    t_type: np.ndarray
    t_x: np.ndarray
    t_y: np.ndarray
    t_open: np.ndarray
    t_arrow: np.ndarray
    t_flood: np.ndarray
    t_rubble: np.ndarray
    t_rope: np.ndarray
    t_nbr: np.ndarray
    t_blast: np.ndarray
    n_tiles: np.ndarray  # (B,) int16 tiles on the table
    open_sides: np.ndarray  # (B,) int16 open sides of the cave facing empty cells (R-CON-4)
    exit_tile: np.ndarray  # (B,) int8 tile index of the exit, -1 = not placed
    # stack
    stack: np.ndarray  # (B, K) int8 catalogue ids in draw order (hidden)
    stack_pos: np.ndarray  # (B,) int16 next draw
    # hazard deck
    deck: np.ndarray  # (B, D) int8 card codes in draw order (hidden), the last one is Out of Time
    deck_pos: np.ndarray  # (B,) int16 next card
    last_card: np.ndarray  # (B,) int8 card of the latest hazard phase, -1 = none yet
    gas_active: np.ndarray  # (B,) bool gas entering damage until the next hazard phase (R-HZ-3)
    out_of_time: np.ndarray  # (B,) bool
    ropes_left: np.ndarray  # (B,) int8
    # cavers
    c_rank: np.ndarray
    c_tile: np.ndarray
    c_under: np.ndarray
    c_hp: np.ndarray
    c_max: np.ndarray
    c_dead: np.ndarray
    c_hidden: np.ndarray
    c_hide_streak: np.ndarray
    c_hid_now: np.ndarray  # (B, S) bool used Hide this round (for the streak)
    # horrors
    h_tile: np.ndarray
    # turn
    round: np.ndarray  # (B,) int32, 1-based
    start_seat: np.ndarray  # (B,) int8 starting caver marker
    actor: np.ndarray  # (B,) int8 seat that decides now, -1 after the end
    ap: np.ndarray  # (B,) int8 action points left
    exerted: np.ndarray  # (B,) bool exerted this turn
    pend: np.ndarray  # (B,) int8 P_*
    pend_dir: np.ndarray  # (B,) int8 direction of the pending reveal
    pend_tile: np.ndarray  # (B,) int8 drawn catalogue id waiting for a rotation
    pend_explore: np.ndarray  # (B,) bool the pending placement is an Explore (move after placing)
    pend_rots: np.ndarray  # (B,) uint8 legal rotations of the pending tile (bit r)
    run_left: np.ndarray  # (B,) int8 steps left in a run
    run_taken: np.ndarray  # (B,) int8 steps taken in this run
    direct_used: np.ndarray  # (B,) bool the Leader has directed this turn (R-CAV-8)
    directing: np.ndarray  # (B,) int8 seat of the Leader whose Direct is being carried out, -1 = none
    saved_ap: np.ndarray  # (B,) int8 the Leader's AP, restored when the directed action is done
    pend_redrawn: np.ndarray  # (B,) bool the Scout already redrew for this placement (R-CAV-2)
    scout_redraws: np.ndarray  # (B,) int8 Sense of direction uses left
    explosives: np.ndarray  # (B,) int8 the Engineer's explosives tokens left (R-CAV-4)
    aside_tile: np.ndarray  # (B,) int8 the Geologist's face-up set-aside tile (catalogue id), -1 = none (R-CAV-3)
    # end
    result: np.ndarray  # (B,) int8 RUNNING or index into RESULT_NAMES
    steps: np.ndarray  # (B,) int32 decisions taken
    # scenarios
    t_bomb: np.ndarray
    c_bombs: np.ndarray
    l_tile: np.ndarray
    h_born: np.ndarray
    l_born: np.ndarray
    born_n: np.ndarray
    c_samples: np.ndarray
    # Investigation
    t_item: np.ndarray
    c_items: np.ndarray
    i_deck: np.ndarray
    i_pos: np.ndarray
    i_out: np.ndarray
    doom: np.ndarray
    battery: np.ndarray
    flare: np.ndarray
    x_from: np.ndarray
    x_to: np.ndarray
    # Investigation's Gas Mask decision (explicit_reactions)
    r_seat: np.ndarray
    r_lose: np.ndarray
    r_hurt: np.ndarray
    r_no: np.ndarray
    r_actor: np.ndarray
    r_from: np.ndarray

    @property
    def batch_size(self) -> int:
        return int(self.key.shape[0])

    @property
    def num_seats(self) -> int:
        return int(self.c_rank.shape[1])

    @property
    def packed(self) -> np.ndarray:
        """The (B,) record array behind the fields (the compiled rules read and write it)."""
        if self._packed is None:
            raise ValueError("this State is not backed by a packed array (a snapshot or hand-built State); "
                             "build it with state.alloc(), Core.init() or State.copy() of such a State")
        return self._packed

    _packed = None  # not dataclass fields: the hash and equality see only the named fields
    _sizes = None

    @property
    def grid(self) -> np.ndarray:
        """(B, G, G) int8 tile index of every grid cell, -1 = empty: computed from the tiles (a copy; writing it
        changes nothing). One game: ``grid_of(g)``."""
        b, g = self.batch_size, self.grid_side
        grid = np.full((b, g, g), -1, dtype=np.int8)
        bi, ti = np.nonzero((self.t_cat >= 0) & (np.arange(self.t_cat.shape[1]) < self.n_tiles[:, None]))
        grid[bi, self.t_y[bi, ti], self.t_x[bi, ti]] = ti
        return grid

    def grid_of(self, game: int) -> np.ndarray:
        """(G, G) int8 tile index of every cell of one game, -1 = empty (a copy)."""
        g = self.grid_side
        grid = np.full((g, g), -1, dtype=np.int8)
        n = int(self.n_tiles[game])
        grid[self.t_y[game, :n], self.t_x[game, :n]] = np.arange(n)
        return grid

    @property
    def grid_side(self) -> int:
        """G = 2 * stack + 3: the cave can never reach the edge of a G x G grid around the start tile."""
        return 2 * int(self.stack.shape[1]) + 3

    @staticmethod
    def from_packed(packed: np.ndarray, sizes: "Sizes") -> "State":
        """Named views of a packed record array (see ``alloc``)."""
        views = {}
        for name, index, is_bool in _view_plan(sizes):
            arr = packed[name]
            if index is not None:
                arr = arr[index]
            views[name] = arr.view(np.bool_) if is_bool else arr
        st = State(**views)
        st._packed = packed
        st._sizes = sizes
        return st

    def _rebuild(self, packed: np.ndarray) -> "State":
        return State.from_packed(packed, self._sizes)

    def copy(self) -> "State":
        if self._packed is not None:
            return self._rebuild(self._packed.copy())
        return State(**{f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self)})

    def take(self, games: np.ndarray | slice) -> "State":
        """The sub-batch of the given games (a copy)."""
        if self._packed is not None:
            return self._rebuild(take_rows(self._packed, games))
        return State(**{f.name: getattr(self, f.name)[games].copy() for f in dataclasses.fields(self)})

    def put(self, games: np.ndarray | slice, sub: "State") -> None:
        """Write a sub-batch back (inverse of take)."""
        if self._packed is not None and sub._packed is not None:
            put_rows(self._packed, games, sub._packed)
            return
        for f in dataclasses.fields(self):
            getattr(self, f.name)[games] = getattr(sub, f.name)

    def nbytes_per_game(self) -> int:
        """Bytes one game takes in this batch (its packed record)."""
        if self._packed is not None:
            return self._packed.dtype.itemsize
        return sum(getattr(self, f.name).nbytes for f in dataclasses.fields(self)) // self.batch_size

    def equals(self, other: "State") -> bool:
        return all(np.array_equal(getattr(self, f.name), getattr(other, f.name)) for f in dataclasses.fields(self))

    def __getstate__(self) -> dict:
        # Pickle the packed arrays once, not the views (which would come back as separate arrays).
        if self._packed is not None:
            return {"packed": self._packed, "sizes": self._sizes}
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def __setstate__(self, d: dict) -> None:
        if "packed" in d:
            st = State.from_packed(d["packed"], d["sizes"])
            self.__dict__.update(st.__dict__)
        else:
            self.__dict__.update(d)

    @staticmethod
    def concat(states: "list[State]") -> "State":
        if all(s._packed is not None for s in states):
            return states[0]._rebuild(np.concatenate([s._packed for s in states]))
        return State(**{f.name: np.concatenate([getattr(s, f.name) for s in states])
                        for f in dataclasses.fields(State)})


# The largest sizes any valid config needs (config.py checks the limits): one record type for every config.
MAX_SEATS, MAX_TILES, MAX_STACK, MAX_DECK = 6, 66, 65, 64


@dataclass(frozen=True)
class Sizes:
    """This config's sizes: seats S, tiles T, stack K, deck D (the views' shapes)."""

    S: int
    T: int
    K: int
    D: int


# (name, dtype, per-game dims as maxima or Sizes names, fill) in State field order; bool is stored as uint8.
FIELDS: tuple[tuple[str, object, tuple, int], ...] = (
    ("key", np.uint64, (), 0), ("ctr", np.uint64, (), 0), ("forced", np.int8, (FORCED,), 0),
    ("t_cat", np.int8, ("T",), -1), ("t_type", np.int8, ("T",), -1), ("t_x", np.int16, ("T",), 0),
    ("t_y", np.int16, ("T",), 0), ("t_open", np.uint8, ("T",), 0), ("t_arrow", np.int8, ("T",), -1),
    ("t_flood", bool, ("T",), 0), ("t_rubble", bool, ("T",), 0), ("t_rope", bool, ("T",), 0),
    ("t_nbr", np.int8, ("T", 4), -1), ("t_blast", np.uint8, ("T",), 0),
    ("n_tiles", np.int16, (), 0), ("open_sides", np.int16, (), 0), ("exit_tile", np.int8, (), -1),
    ("stack", np.int8, ("K",), 0), ("stack_pos", np.int16, (), 0),
    ("deck", np.int8, ("D",), -1), ("deck_pos", np.int16, (), 0), ("last_card", np.int8, (), -1),
    ("gas_active", bool, (), 0), ("out_of_time", bool, (), 0), ("ropes_left", np.int8, (), 0),
    ("c_rank", np.int8, ("S",), 0), ("c_tile", np.int8, ("S",), 0), ("c_under", bool, ("S",), 0),
    ("c_hp", np.int8, ("S",), 0), ("c_max", np.int8, ("S",), 0), ("c_dead", bool, ("S",), 0),
    ("c_hidden", bool, ("S",), 0), ("c_hide_streak", np.int8, ("S",), 0), ("c_hid_now", bool, ("S",), 0),
    ("h_tile", np.int8, (3,), -1),
    ("round", np.int32, (), 1), ("start_seat", np.int8, (), 0), ("actor", np.int8, (), 0), ("ap", np.int8, (), 0),
    ("exerted", bool, (), 0), ("pend", np.int8, (), 0), ("pend_dir", np.int8, (), -1),
    ("pend_tile", np.int8, (), -1), ("pend_explore", bool, (), 0), ("pend_rots", np.uint8, (), 0),
    ("run_left", np.int8, (), 0), ("run_taken", np.int8, (), 0), ("direct_used", bool, (), 0),
    ("directing", np.int8, (), -1), ("saved_ap", np.int8, (), 0), ("pend_redrawn", bool, (), 0),
    ("scout_redraws", np.int8, (), 0), ("explosives", np.int8, (), 0), ("aside_tile", np.int8, (), -1),
    ("result", np.int8, (), RUNNING), ("steps", np.int32, (), 0),
    ("t_bomb", bool, ("T",), 0), ("c_bombs", np.int8, ("S",), 0),
    ("l_tile", np.int8, (3,), -1), ("h_born", np.int32, (3,), 0), ("l_born", np.int32, (3,), 0),
    ("born_n", np.int32, (), 0), ("c_samples", np.int8, ("S",), 0),
    ("t_item", bool, ("T",), 0), ("c_items", np.int16, ("S",), 0), ("i_deck", np.int8, (14,), -1),
    ("i_pos", np.int8, (), 0), ("i_out", np.int16, (), 0), ("doom", bool, (), 0), ("battery", np.int8, (), 0),
    ("flare", bool, (), 0), ("x_from", np.int8, (), -1), ("x_to", np.int8, (), -1),
    ("r_seat", np.int8, (), -1), ("r_lose", np.int8, (), 0), ("r_hurt", np.int8, (), 0), ("r_no", np.int8, (), 0),
    ("r_actor", np.int8, (), -1), ("r_from", np.int8, (), 0),
)
# Fields only a scenario uses: the base game's state hash leaves them out, so its recorded hashes stay valid.
SCENARIO_FIELDS: tuple[str, ...] = ("t_bomb", "c_bombs", "l_tile", "h_born", "l_born", "born_n", "c_samples")
# Investigation's fields, after them: hashed only in an Investigation game, so the hashes of the others stay valid.
INVESTIGATION_FIELDS: tuple[str, ...] = ("t_item", "c_items", "i_deck", "i_pos", "i_out", "doom", "battery", "flare",
                                         "x_from", "x_to")
# The Gas Mask decision's fields (explicit_reactions), last: hashed only while a decision is pending (they are empty
# otherwise), so the hashes of every game without one, and of every state between decisions, stay as they were.
REACTION_FIELDS: tuple[str, ...] = ("r_seat", "r_lose", "r_hurt", "r_no", "r_actor", "r_from")
_MAX = {"S": MAX_SEATS, "T": MAX_TILES, "K": MAX_STACK, "D": MAX_DECK}
assert [f[0] for f in FIELDS] == [f.name for f in dataclasses.fields(State)]
# What a game's state hash covers, in order (tests/golden/record.py, records.state_hash): the fields, with the grid
# (a field of the numpy engine, a property computed from the tiles now) where that engine had it, so hashes of
# recorded games stay valid.
_AFTER_BLAST = [f[0] for f in FIELDS].index("t_blast") + 1
_BASE_END = len(FIELDS) - len(SCENARIO_FIELDS) - len(INVESTIGATION_FIELDS) - len(REACTION_FIELDS)
HASH_FIELDS: tuple[str, ...] = tuple(f[0] for f in FIELDS[:_AFTER_BLAST]) + ("grid",) + tuple(
    f[0] for f in FIELDS[_AFTER_BLAST:_BASE_END])
assert tuple(f[0] for f in FIELDS[_BASE_END:]) == SCENARIO_FIELDS + INVESTIGATION_FIELDS + REACTION_FIELDS


_SCENARIO_EMPTY = {f[0]: f[3] for f in FIELDS if f[0] in SCENARIO_FIELDS + INVESTIGATION_FIELDS + REACTION_FIELDS}


def _any_set(st: "State", g: int, names: tuple[str, ...]) -> bool:
    return any(bool((getattr(st, name)[g] != _SCENARIO_EMPTY[name]).any()) for name in names)


def scenario_fields_set(st: "State", g: int) -> bool:
    """Whether any scenario field of game g differs from its empty value (never in a base game): a state hash
    covers those fields only then, so the base game's hashes never change."""
    return _any_set(st, g, SCENARIO_FIELDS + INVESTIGATION_FIELDS + REACTION_FIELDS)


def scenario_hash_fields(st: "State", g: int) -> tuple[str, ...]:
    """The scenario fields game g's state hash covers after the base ones: none in a base game, SCENARIO_FIELDS in
    any scenario game, INVESTIGATION_FIELDS after them in an Investigation game, and REACTION_FIELDS after those
    while its Gas Mask decision is pending (explicit_reactions)."""
    if not scenario_fields_set(st, g):
        return ()
    pending = _any_set(st, g, REACTION_FIELDS)
    if not pending and not _any_set(st, g, INVESTIGATION_FIELDS):
        return SCENARIO_FIELDS
    return SCENARIO_FIELDS + INVESTIGATION_FIELDS + (REACTION_FIELDS if pending else ())


def hash_fields(scenario: str = "base") -> tuple[str, ...]:
    """The fields a game's state hash covers: the base game's, and a scenario's own after them (an Investigation
    game's REACTION_FIELDS too, which it hashes only while a Gas Mask decision is pending)."""
    if scenario == "base":
        return HASH_FIELDS
    return HASH_FIELDS + SCENARIO_FIELDS + (INVESTIGATION_FIELDS + REACTION_FIELDS if scenario == "investigation"
                                            else ())


@functools.lru_cache(maxsize=None)
def _view_plan(sizes: Sizes) -> tuple[tuple[str, tuple | None, bool], ...]:
    """Per field: its name, the index that cuts its maxima down to these sizes (None when it has no dims) and
    whether it is a bool; made once per Sizes, since building the slices per call cost 3x the views (the
    autoreset's ``take`` runs every step of a large batch)."""
    return tuple((name, (slice(None),) + tuple(slice(0, getattr(sizes, d) if isinstance(d, str) else d)
                                               for d in dims) if dims else None, dtype is bool)
                 for name, dtype, dims, _ in FIELDS)


CELL_SLOTS = 128  # slots of the cell index: a power of two, about twice the most tiles (MAX_TILES)


def _record_dtype() -> np.dtype:
    """The packed record: widest fields first so every field is naturally aligned."""
    def width(f):
        return np.dtype(np.uint8 if f[1] is bool else f[1]).itemsize
    # for the compiled rules only: the seat count, the cell index, the event log of the latest step (core/events.py)
    fields = [("n_seats", np.int64), ("ev", np.int16, (EV_MAX, EV_WIDTH)), ("ev_n", np.int16),
              ("ev_lost", np.int16), ("ev_on", np.uint8), ("cells", np.int8, (CELL_SLOTS,))]
    for name, dtype, dims, _ in sorted(FIELDS, key=lambda f: -width(f)):
        shape = tuple(_MAX[d] if isinstance(d, str) else d for d in dims)
        fields.append((name, np.uint8 if dtype is bool else dtype, shape) if shape else
                      (name, np.uint8 if dtype is bool else dtype))
    return np.dtype(fields, align=True)


RECORD = _record_dtype()
_FILLED = np.zeros((), dtype=RECORD)
for _name, _dtype, _dims, _fill in FIELDS:
    _FILLED[_name] = _fill
_FILLED["cells"] = -1
EMPTY_RECORD = np.full(1, _FILLED, dtype=RECORD)  # every field at its empty value (the compiled setup's start)


def _bytes(packed: np.ndarray) -> np.ndarray | None:
    """(n, record size) uint8 view of a C-contiguous record array, None for any other layout."""
    if packed.ndim != 1 or not packed.flags.c_contiguous:
        return None
    return packed.view(np.uint8).reshape(len(packed), packed.dtype.itemsize)


def take_rows(packed: np.ndarray, rows: np.ndarray | slice) -> np.ndarray:
    """``packed[rows]`` as a new array (rows: indices, a boolean mask or a slice), copied as bytes. numpy copies a
    record array field by field, and sets that up on every call: about 55 µs for the 85 fields of ``RECORD``
    whatever the number of rows, which the autoreset's few games paid once per step and kernel; as bytes, a few
    µs. The padding between fields comes along (zero since ``alloc``)."""
    raw = _bytes(packed)
    if raw is None:
        return packed[rows].copy()
    sub = raw[rows]
    if isinstance(rows, slice):  # a basic index is a view
        sub = sub.copy()
    return sub.view(packed.dtype).reshape(len(sub))


def put_rows(packed: np.ndarray, rows: np.ndarray | slice, sub: np.ndarray) -> None:
    """``packed[rows] = sub`` (records of the same dtype), copied as bytes (see ``take_rows``)."""
    raw, src = _bytes(packed), _bytes(sub)
    if raw is None or src is None or sub.dtype != packed.dtype:
        packed[rows] = sub
        return
    raw[rows] = src


def alloc(batch: int, seats: int, max_tiles: int, stack_size: int, deck_size: int) -> State:
    """A state of the right shapes with every field at its empty value (init fills it in)."""
    sizes = Sizes(S=seats, T=max_tiles, K=stack_size, D=deck_size)
    for name, value, limit in (("seats", seats, MAX_SEATS), ("max_tiles", max_tiles, MAX_TILES),
                               ("stack_size", stack_size, MAX_STACK), ("deck_size", deck_size, MAX_DECK)):
        if not 0 < value <= limit:
            raise ValueError(f"{name}={value} is out of range: the packed state holds 1..{limit}")
    packed = np.full(batch, _FILLED, dtype=RECORD)
    packed["n_seats"] = seats
    return State.from_packed(packed, sizes)
