"""All game state as numpy arrays with a leading batch axis B.

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
      grid     (B, G, G) int8   tile index per cell, -1 = empty; G = 2 * stack + 3 so no edge is ever reached
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
    stack, deck and turn: see the scalar fields below.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

FORCED = 16  # scripted dice slots per game
# Pending decisions (what the acting caver is choosing now).
P_NONE, P_PLACE, P_RUN, P_PICK, P_SURFACE = 0, 1, 2, 3, 4  # P_PICK: the Geologist picks a tile
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
    grid: np.ndarray
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

    @property
    def batch_size(self) -> int:
        return int(self.key.shape[0])

    @property
    def num_seats(self) -> int:
        return int(self.c_rank.shape[1])

    def copy(self) -> "State":
        return State(**{f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self)})

    def take(self, games: np.ndarray | slice) -> "State":
        """The sub-batch of the given games (a copy)."""
        return State(**{f.name: getattr(self, f.name)[games].copy() for f in dataclasses.fields(self)})

    def put(self, games: np.ndarray | slice, sub: "State") -> None:
        """Write a sub-batch back (inverse of take)."""
        for f in dataclasses.fields(self):
            getattr(self, f.name)[games] = getattr(sub, f.name)

    def nbytes_per_game(self) -> int:
        return sum(getattr(self, f.name).nbytes for f in dataclasses.fields(self)) // self.batch_size

    def equals(self, other: "State") -> bool:
        return all(np.array_equal(getattr(self, f.name), getattr(other, f.name)) for f in dataclasses.fields(self))

    @staticmethod
    def concat(states: "list[State]") -> "State":
        return State(**{f.name: np.concatenate([getattr(s, f.name) for s in states])
                        for f in dataclasses.fields(State)})


def alloc(batch: int, seats: int, max_tiles: int, stack_size: int, deck_size: int) -> State:
    """A zeroed state of the right shapes (init fills it in)."""
    B, T, S, G = batch, max_tiles, seats, 2 * stack_size + 3

    def z(shape, dt, fill=0):
        return np.full(shape, fill, dtype=dt)

    return State(
        key=z(B, np.uint64), ctr=z(B, np.uint64), forced=z((B, FORCED), np.int8),
        t_cat=z((B, T), np.int8, -1), t_type=z((B, T), np.int8, -1), t_x=z((B, T), np.int16),
        t_y=z((B, T), np.int16), t_open=z((B, T), np.uint8), t_arrow=z((B, T), np.int8, -1),
        t_flood=z((B, T), bool), t_rubble=z((B, T), bool), t_rope=z((B, T), bool),
        t_nbr=z((B, T, 4), np.int8, -1), t_blast=z((B, T), np.uint8), grid=z((B, G, G), np.int8, -1),
        n_tiles=z(B, np.int16), open_sides=z(B, np.int16), exit_tile=z(B, np.int8, -1),
        stack=z((B, stack_size), np.int8), stack_pos=z(B, np.int16),
        deck=z((B, deck_size), np.int8, -1), deck_pos=z(B, np.int16), last_card=z(B, np.int8, -1),
        gas_active=z(B, bool), out_of_time=z(B, bool), ropes_left=z(B, np.int8),
        c_rank=z((B, S), np.int8), c_tile=z((B, S), np.int8), c_under=z((B, S), bool), c_hp=z((B, S), np.int8), c_max=z((B, S), np.int8),
        c_dead=z((B, S), bool), c_hidden=z((B, S), bool), c_hide_streak=z((B, S), np.int8),
        c_hid_now=z((B, S), bool), h_tile=z((B, 3), np.int8, -1),
        round=z(B, np.int32, 1), start_seat=z(B, np.int8), actor=z(B, np.int8), ap=z(B, np.int8),
        exerted=z(B, bool), pend=z(B, np.int8), pend_dir=z(B, np.int8, -1), pend_tile=z(B, np.int8, -1),
        pend_explore=z(B, bool), pend_rots=z(B, np.uint8), run_left=z(B, np.int8), run_taken=z(B, np.int8),
        direct_used=z(B, bool), directing=z(B, np.int8, -1), saved_ap=z(B, np.int8),
        pend_redrawn=z(B, bool), scout_redraws=z(B, np.int8), explosives=z(B, np.int8), aside_tile=z(B, np.int8, -1),
        result=z(B, np.int8, RUNNING), steps=z(B, np.int32),
    )
