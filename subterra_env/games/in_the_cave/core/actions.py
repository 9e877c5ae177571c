"""The action table of In the Cave: one Discrete id per (action kind, argument), with the rule each carries out.

| ids | action | AP | rule |
|---|---|---|---|
| 0 | end turn | 0 | R-ITC-TURN-4 |
| 1-4 | move N/E/S/W (water: by raft) | entry + ropes | R-ITC-ACT-4/5/6/10 |
| 5-8 | dive N/E/S/W into water with oxygen | 2 + ropes | R-ITC-ACT-4/5/7/15 |
| 9-12 | crawl N/E/S/W (whole turn) | 5 | R-ITC-ACT-11, TURN-3 |
| 13 | reveal | 1 | R-ITC-ACT-1 |
| 14-29 | place the drawn tile at exit d, rotation r (14 + 4d + r): ``place_{d}_r{r}`` | 0 | R-ITC-ACT-1/3 |
| 30-33 | place a boulder choke at exit d | 0 | R-ITC-ACT-2 |
| 34 | explore water | 1 + oxygen | R-ITC-ACT-8 |
| 35 | photograph | 1 | R-ITC-ACT-9 |
| 36 | camp: place | 2 | R-ITC-ACT-13 |
| 37 | camp: repack | 1 (first at home 0) | R-ITC-ACT-13 |
| 38 | camp: abandon | 0 | R-ITC-ACT-13 |
| 39 | pack (start exchanging with the bank) | 2 | R-ITC-ACT-12 |
| 40-44 | take from the bank: consumable, rope, oxygen2 (a bank token is full), camera, raft | 0 | R-ITC-ACT-12, SET-9 |
| 45-50 | return to the bank: consumable, rope, oxygen2, oxygen1, camera, raft | 0 | R-ITC-ACT-12 |
| 51-55 | camp takes from the bank (camp on the home base) | 0 | R-ITC-ACT-12 |
| 56-61 | camp returns to the bank | 0 | R-ITC-ACT-12 |
| 62 | done packing | 0 | R-ITC-ACT-12, SET-9 |
| 63-68 | backpack -> own camp on this space, by kind | 0 | R-ITC-ACT-13 |
| 69-74 | own camp on this space -> backpack, by kind | 0 | R-ITC-ACT-13 |
| 75-80 | discard from the backpack, by kind | 0 | R-ITC-ACT-14 |

Equipment is named as ``layout.EQUIP_NAMES`` everywhere (actions, ``Position.team``, the observation's ``bp_*``):
consumable, rope, oxygen2 (an oxygen token 2-tank side up), oxygen1 (1-tank side up), camera, raft.

Placing a drawn tile, ``place_{d}_r{r}`` (d = N/E/S/W, r = 0..3): the tile goes into the empty cell beyond exit d
of the team's space, its catalogue open sides turned r quarter turns clockwise. In the catalogue orientation a
crossing X is open N E S W, a T is open N E S, a corner L N E, a straight I N S, a dead end D N; a turn moves each
open side one step clockwise (N to E, E to S, S to W, W to N). So ``place_E_r1`` puts an I tile east of the team
open E W, an L tile open E S. Rotations that give the same open sides are offered once, the lowest r (an I tile
has r0 and r1 only). ``placement_sides`` gives the open sides of a placement, ``placement_name`` the action that
gives wanted open sides.
"""

from __future__ import annotations

import numpy as np

from subterra_env.games.sub_terra.core.actions import IllegalActionError  # noqa: F401 (one error class for both games)
from subterra_env.games.sub_terra.core.catalogue import ROT_MASK

from .layout import EQUIP_NAMES

A_END = 0
A_MOVE = 1
A_DIVE = 5
A_CRAWL = 9
A_REVEAL = 13
A_PLACE = 14
A_BOULDER = 30
A_EXPLORE = 34
A_PHOTO = 35
A_CAMP_PLACE = 36
A_CAMP_REPACK = 37
A_CAMP_ABANDON = 38
A_PACK = 39
A_TAKE = 40
A_RETURN = 45
A_CAMP_TAKE = 51
A_CAMP_RETURN = 56
A_PACK_DONE = 62
A_TO_CAMP = 63
A_FROM_CAMP = 69
A_DISCARD = 75
NUM_ACTIONS = 81

# equipment kind taken by TAKE / CAMP_TAKE j (a bank oxygen token is always full)
TAKE_KINDS = np.array([0, 1, 2, 4, 5], dtype=np.int64)
_DIRS = "NESW"
_TAKE_NAMES = ("consumable", "rope", "oxygen2", "camera", "raft")  # layout.EQUIP_NAMES of TAKE_KINDS


def _names() -> tuple[str, ...]:
    n = ["end_turn"]
    n += [f"move_{d}" for d in _DIRS] + [f"dive_{d}" for d in _DIRS] + [f"crawl_{d}" for d in _DIRS]
    n += ["reveal"] + [f"place_{d}_r{r}" for d in _DIRS for r in range(4)] + [f"boulder_{d}" for d in _DIRS]
    n += ["explore_water", "photograph", "camp_place", "camp_repack", "camp_abandon", "pack"]
    n += [f"take_{k}" for k in _TAKE_NAMES] + [f"return_{k}" for k in EQUIP_NAMES]
    n += [f"camp_take_{k}" for k in _TAKE_NAMES] + [f"camp_return_{k}" for k in EQUIP_NAMES]
    n += ["pack_done"] + [f"to_camp_{k}" for k in EQUIP_NAMES] + [f"from_camp_{k}" for k in EQUIP_NAMES]
    n += [f"discard_{k}" for k in EQUIP_NAMES]
    return tuple(n)


ACTION_NAMES: tuple[str, ...] = _names()
assert len(ACTION_NAMES) == NUM_ACTIONS


SIDE_NAMES = "NESW"


def sides_text(mask: int) -> str:
    """Open sides of a mask as letters in N E S W order (``0b0101`` -> ``"NS"``)."""
    return "".join(c for d, c in enumerate(SIDE_NAMES) if (int(mask) >> d) & 1)


def placement(action: int) -> tuple[int, int]:
    """(exit d, rotation r) of a ``place_{d}_r{r}`` id."""
    if not A_PLACE <= action < A_PLACE + 16:
        raise ValueError(f"action {action} is not a placement: ids {A_PLACE}..{A_PLACE + 15} (place_N_r0..place_W_r3)")
    return divmod(action - A_PLACE, 4)


def placement_sides(base_mask: int, action: int) -> str:
    """The open sides (``"ES"``) a tile whose catalogue open sides are ``base_mask`` gets from a placement id."""
    return sides_text(int(ROT_MASK[int(base_mask), placement(action)[1]]))


def placement_name(base_mask: int, exit_side: str, sides: str) -> str:
    """The action that places a tile of catalogue open sides ``base_mask`` beyond exit ``exit_side`` of the team's
    space with open sides ``sides`` (``placement_name(0b0101, "E", "EW") == "place_E_r1"``); the lowest rotation
    when several give them. ValueError listing the sides the tile can have if none does."""
    if exit_side not in SIDE_NAMES or len(exit_side) != 1:
        raise ValueError(f"exit {exit_side!r}: one of N, E, S, W")
    want = sum(1 << SIDE_NAMES.index(c) for c in sides if c in SIDE_NAMES)
    if set(sides) - set(SIDE_NAMES) or want == 0:
        raise ValueError(f"sides {sides!r}: letters of N, E, S, W")
    for r in range(4):
        if int(ROT_MASK[int(base_mask), r]) == want:
            return f"place_{exit_side}_r{r}"
    can = sorted({sides_text(int(ROT_MASK[int(base_mask), r])) for r in range(4)})
    raise ValueError(f"a tile open {sides_text(base_mask)} cannot be turned to open {sides!r}: it can open {can}")
