"""The action table of In the Cave: one Discrete id per (action kind, argument), with the rule each carries out.

| ids | action | AP | rule |
|---|---|---|---|
| 0 | end turn | 0 | R-ITC-TURN-4 |
| 1-4 | move N/E/S/W (water: by raft) | entry + ropes | R-ITC-ACT-4/5/6/10 |
| 5-8 | dive N/E/S/W into water with oxygen | 2 + ropes | R-ITC-ACT-4/5/7/15 |
| 9-12 | crawl N/E/S/W (whole turn) | 5 | R-ITC-ACT-11, TURN-3 |
| 13 | reveal | 1 | R-ITC-ACT-1 |
| 14-29 | place the drawn tile at exit d, rotation r (14 + 4d + r) | 0 | R-ITC-ACT-1/3 |
| 30-33 | place a boulder choke at exit d | 0 | R-ITC-ACT-2 |
| 34 | explore water | 1 + oxygen | R-ITC-ACT-8 |
| 35 | photograph | 1 | R-ITC-ACT-9 |
| 36 | camp: place | 2 | R-ITC-ACT-13 |
| 37 | camp: repack | 1 (first at home 0) | R-ITC-ACT-13 |
| 38 | camp: abandon | 0 | R-ITC-ACT-13 |
| 39 | pack (start exchanging with the bank) | 2 | R-ITC-ACT-12 |
| 40-44 | take from the bank: consumable, rope, oxygen, camera, raft | 0 | R-ITC-ACT-12, SET-9 |
| 45-50 | return to the bank: consumable, rope, oxygen2, oxygen1, camera, raft | 0 | R-ITC-ACT-12 |
| 51-55 | camp takes from the bank (camp on the home base) | 0 | R-ITC-ACT-12 |
| 56-61 | camp returns to the bank | 0 | R-ITC-ACT-12 |
| 62 | done packing | 0 | R-ITC-ACT-12, SET-9 |
| 63-68 | backpack -> own camp on this space, by kind | 0 | R-ITC-ACT-13 |
| 69-74 | own camp on this space -> backpack, by kind | 0 | R-ITC-ACT-13 |
| 75-80 | discard from the backpack, by kind | 0 | R-ITC-ACT-14 |
"""

from __future__ import annotations

import numpy as np

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
_TAKE_NAMES = ("consumable", "rope", "oxygen", "camera", "raft")


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


class IllegalActionError(ValueError):
    """An action that is not legal now; the message names it and the legal ones. The state is unchanged."""
