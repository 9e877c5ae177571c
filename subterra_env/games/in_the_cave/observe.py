"""Observations of In the Cave for one team: a grid tensor centred on its pawn plus a vector.

Grid (int8, ``GRID_CHANNELS`` x (2R+1) x (2R+1), row = y, column = x, north up): tile present; open sides N/E/S/W
(a boulder choke: its one passage); kind one-hot (home, board, plain, water, wonder, squeeze, descent, boulder);
depth level (metres / 25); token still there; squeeze difficulty; roped sides N/E/S/W; unexplored exits; own
pawn; other pawns; own camp; other camps.

Vector (int16, ``VECTOR_SIZE``): the team's own block, the turn block, then one block per other team in seat
order after this one (zeros where no team sits): see ``VECTOR_NAMES``. Everything shown is public (R-ITC
introduction) except the team's own backpack during the hidden initial packing; the stacks' order never is.
During that packing (R-ITC-SET-9) nothing depends on another team's choices: the other teams' backpack and camp
counts read 0, their camps show unpacked on the home base (grid and flags), and ``bank_*`` are the counts before
anyone packed (``core/observe.py`` ``public_bank``, ``public_camp``).

The arrays are filled by the compiled ``core/observe.py`` (``tests/test_itc_observe.py`` checks it against a plain
Python reference of the same description).

``flat(g, P, seat)`` is the learners' input (``training/train_itc_ppo.py``, ``agents.in_the_cave`` ``policy:``
kind): the grid of radius ``LEARNER_RADIUS`` centred on the team's pawn, raveled, then the vector, as one float32
array of ``flat_size()`` values. Trained checkpoints depend on its exact order, dtype and radius.
"""

from __future__ import annotations

import numpy as np

from .core import layout as L
from .core import observe as compiled
from .core.layout import MAX_SEATS

GRID_CHANNELS = 25
_OWN = (["bp_" + k for k in L.EQUIP_NAMES] + ["camp_" + k for k in L.EQUIP_NAMES]
        + ["camp_packed", "camp_here", "camp_gone", "camp_dx", "camp_dy", "camera_lost", "raft_lost",
           "camera_home", "raft_home", "traverse", "water", "photo", "squeeze1", "squeeze2", "squeeze3",
           "depth25", "depth50", "depth75plus", "vp", "first_pack_used", "depth_level", "x", "y"])
_TURN = (["my_turn", "ap", "exhausted"] + ["pend_" + p for p in L.PEND_NAMES]
         + ["drawn_" + k for k in L.KIND_NAMES[2:7]] + ["drawn_open_" + d for d in "NESW"] + ["drawn_squeeze"]
         + [f"place_{d}_r{r}" for d in "NESW" for r in range(4)] + [f"boulder_{d}" for d in "NESW"]
         + ["round", "end_triggered", "end_rounds_left", "stack1", "stack2", "stack3", "stack4", "discarded",
            "free_actions", "start_player_offset", "bank_consumables", "bank_ropes", "bank_oxygen"])
_OTHER = (["present", "dx", "dy", "at_home"] + ["bp_" + k for k in L.EQUIP_NAMES]
          + ["camp_packed", "camp_placed", "camp_gone"] + ["camp_" + k for k in L.EQUIP_NAMES]
          + ["traverse", "water", "photo", "squeeze1", "squeeze2", "squeeze3", "depth25", "depth50",
             "depth75plus", "vp"])
VECTOR_NAMES: tuple[str, ...] = tuple(_OWN + _TURN + [f"other{i}_{n}" for i in range(1, MAX_SEATS) for n in _OTHER])
VECTOR_SIZE = len(VECTOR_NAMES)
LEARNER_RADIUS = 5  # the learners' window: smaller than the env's default 7, fewer inputs for short runs


def vp(g: np.ndarray, s: int) -> int:
    """R-ITC-SCORE-1: the VP of seat s's tokens so far (without majorities)."""
    return int(compiled.vp(g, s))


def grid(g: np.ndarray, seat: int, radius: int, cx: int, cy: int, seats: int) -> np.ndarray:
    """The (GRID_CHANNELS, 2R+1, 2R+1) window around cell (cx, cy) as ``seat`` sees it."""
    w = 2 * radius + 1
    out = np.zeros((GRID_CHANNELS, w, w), dtype=np.int8)
    compiled.grid_into(g, seat, radius, cx, cy, seats, out)
    return out


def vector(g: np.ndarray, P: np.ndarray, seat: int, seats: int) -> np.ndarray:
    """The (VECTOR_SIZE,) int16 vector of ``seat`` (see VECTOR_NAMES)."""
    out = np.zeros(VECTOR_SIZE, dtype=np.int16)
    compiled.vector16_into(g, P, seat, seats, out)
    return out


def flat_size(radius: int = LEARNER_RADIUS) -> int:
    """The length of ``flat(..., radius)``: the grid's GRID_CHANNELS x (2R+1)^2 values, then VECTOR_SIZE."""
    w = 2 * radius + 1
    return GRID_CHANNELS * w * w + VECTOR_SIZE


def flat_radius(size: int) -> int | None:
    """The radius whose ``flat_size`` is ``size`` (None if none is)."""
    cells, rest = divmod(size - VECTOR_SIZE, GRID_CHANNELS)
    w = round(cells ** 0.5) if cells > 0 and not rest else 0
    return (w - 1) // 2 if w % 2 == 1 and w * w == cells else None


def flat(g: np.ndarray, P: np.ndarray, seat: int, radius: int = LEARNER_RADIUS) -> np.ndarray:
    """The learners' input for team ``seat`` of game record ``g`` (params ``P``): the (GRID_CHANNELS, 2R+1, 2R+1)
    window centred on its pawn, raveled, then its vector, as float32 (``flat_size(radius)`` values; the other
    teams shown are the game's ``P[PR_SEATS]``)."""
    seats = int(P[L.PR_SEATS])
    pos = int(g[L.POS + seat])
    gr = grid(g, seat, radius, int(g[L.TX + pos]), int(g[L.TY + pos]), seats)
    return np.concatenate((gr.ravel(), vector(g, P, seat, seats))).astype(np.float32)
