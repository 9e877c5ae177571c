"""Constructed positions for tests and debugging: a game record edited by name (tiles, teams, the next draws),
then played by action names through the compiled rules.

    pos = Position(num_players=2)           # the starting board, initial packing skipped, seat 0 to act, 5 AP
    t = pos.tile(0, -2, "plain", "NS")       # a plain straight north of the N arm
    pos.team(0, at=t, rope=2, consumable=1)
    pos.act("move_N")                        # raises IllegalActionError naming the legal actions if illegal
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .config import ItcConfig, from_dict
from .core import layout as L
from .core.actions import ACTION_NAMES, IllegalActionError
from .core.cave import add_tile
from .core.game import ItcCore, tile_index
from .core.turns import turn4_begin

KINDS = {name: k for k, name in enumerate(L.KIND_NAMES)}
SIDES = {"N": 1, "E": 2, "S": 4, "W": 8}


def sides_mask(sides: str | int) -> int:
    return sides if isinstance(sides, int) else sum(SIDES[c] for c in sides)


class Position:
    def __init__(self, config: ItcConfig | None = None, seed: int = 0, packing: bool = False, **settings: Any):
        """A new game of ``config`` (or settings) from ``seed``; unless ``packing``, the initial packing is skipped
        with empty backpacks and seat 0 starts round 1 with full AP."""
        self.config = from_dict(settings) if settings and config is None else (config or ItcConfig())
        self.core = ItcCore(self.config)
        self.G = self.core.init([seed])
        if not packing:
            g = self.g
            g[L.START] = 0
            g[L.ROUND] = 1
            turn4_begin(g, self.core.P, 0)

    @property
    def g(self) -> np.ndarray:
        return self.G[0]

    def at(self, x: int, y: int) -> int:
        return tile_index(self.g, x, y)

    def tile(self, x: int, y: int, kind: str, sides: str | int, depth: int = 0, squeeze: int = 0,
             token: bool | None = None) -> int:
        """Put a tile on the empty cell (x, y); water, wonder and squeeze get their token unless token=False."""
        assert self.at(x, y) < 0, f"cell {(x, y)} is taken"
        t = add_tile(self.g, x, y, KINDS[kind], sides_mask(sides), depth)
        self.g[L.TSQ + t] = squeeze
        if token is None:
            token = kind in ("water", "wonder", "squeeze")
        self.g[L.TTOKEN + t] = int(token)
        return t

    def boulder(self, x: int, y: int, side: str, depth: int = 0) -> int:
        """A boulder choke whose one passage is its side ``side``."""
        t = add_tile(self.g, x, y, L.K_BOULDER, 0, depth)
        self.g[L.TBSIDE + t] = "NESW".index(side)
        return t

    def team(self, s: int, at: int | None = None, camp: int | None = None, **equipment: int) -> None:
        """Place seat s's pawn (tile index) and camp (tile, L.CAMP_PACKED or L.CAMP_GONE); set backpack counts by
        kind name (consumable, rope, oxygen2, oxygen1, camera, raft) or camp counts as camp_<kind>."""
        g = self.g
        if at is not None:
            g[L.POS + s] = at
        if camp is not None:
            g[L.CAMP + s] = camp
        for name, n in equipment.items():
            base = L.CAMPC if name.startswith("camp_") else L.BP
            k = L.EQUIP_NAMES.index(name.removeprefix("camp_"))
            b = 0 if k <= 1 else (2 if k <= 3 else -1)
            if b >= 0:  # keep the bank's count consistent (token conservation)
                g[L.BANK + b] -= n - int(g[base + s * L.NK + k])
            g[base + s * L.NK + k] = n

    def next_tiles(self, *tiles: tuple[str, str]) -> None:
        """The next draws, as (kind, shape) pairs of the catalogue (e.g. ("water", "I"))."""
        cat = self.config.catalogue()
        for i, pair in enumerate(tiles):
            self.g[L.STACK + int(self.g[L.STACK_POS]) + i] = cat.index(pair)

    def start_turn(self, s: int) -> None:
        """Seat s starts a turn now (upkeep included)."""
        turn4_begin(self.g, self.core.P, s)

    def legal(self) -> list[str]:
        return [ACTION_NAMES[i] for i in np.flatnonzero(self.core.masks(self.G)[0])]

    def act(self, *names: str) -> None:
        for name in names:
            a = ACTION_NAMES.index(name)
            if self.core.step(self.G, [a])[0] != 0:
                raise IllegalActionError(f"action {name!r} is not legal now; legal: {self.legal()}")

    def __getitem__(self, field: str) -> int:
        """A scalar field by layout name (``pos["AP"]``)."""
        return int(self.g[getattr(L, field)])

    def seat(self, field: str, s: int, k: int = 0) -> int:
        """A per-seat field by layout name; k indexes within the seat's block (equipment kind, level)."""
        width = {"BP": L.NK, "CAMPC": L.NK, "SQ": 3, "DEPTH_TOK": L.LEVELS}.get(field, 1)
        return int(self.g[getattr(L, field) + s * width + k])

    def bp(self, s: int, name: str) -> int:
        return self.seat("BP", s, L.EQUIP_NAMES.index(name))

    def tile_field(self, t: int, field: str) -> int:
        return int(self.g[getattr(L, field) + t])
