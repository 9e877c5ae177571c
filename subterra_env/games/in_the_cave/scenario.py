"""Constructed positions for tests and debugging: a game record edited by name (tiles, teams, tokens, the next
draws), then played by action names through the compiled rules.

    pos = Position(num_players=2)           # the starting board, initial packing skipped, seat 0 to act, 5 AP
    t = pos.tile(0, -2, "plain", "NS")       # a plain straight north of the N arm
    pos.team(0, at=t, rope=2, consumable=1)
    pos.tokens(0, water=1, squeeze=(0, 1, 0), depth=[1, 2])
    pos.act("move_N")                        # raises IllegalActionError naming the legal actions if illegal

Coordinates are the code's: x grows east, y grows **south** (north is -y), the home base at (0, 0). The rules
(R-ITC-SET-3) write north as +y: their N arm (0, 1) is the code's (0, -1). Every setter checks what it is given
and raises ScenarioError naming the argument, the value and the allowed values (a misspelt name, a count above
the slots, a shape the kind does not come in), as Sub Terra's scenario builder does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from subterra_env.scenario import ScenarioError
from .config import SHAPES, ItcConfig, from_dict
from .core import layout as L
from .core.actions import A_PLACE, ACTION_NAMES, IllegalActionError, placement_sides
from .core.cave import add_tile, beyond, connected, rope_edge
from .core.game import ItcCore, tile_index
from .core.packing import bank_kind
from .core.rules import ropes_needed
from .core.turns import turn4_begin

KINDS = {name: k for k, name in enumerate(L.KIND_NAMES)}
SIDES = {"N": 1, "E": 2, "S": 4, "W": 8}
TOKEN_NAMES = ("traverse", "water", "photo", "squeeze", "depth")
# The kinds a cave tile comes in by shape (config.tiles: every kind has X T L I D in the default catalogue); the
# board spaces (home, board) and boulder chokes are set by their own rules.
_SHAPE_OF = {0b1111: "X", 0b0111: "T", 0b1110: "T", 0b1101: "T", 0b1011: "T", 0b0101: "I", 0b1010: "I",
             0b0011: "L", 0b0110: "L", 0b1100: "L", 0b1001: "L", 0b0001: "D", 0b0010: "D", 0b0100: "D", 0b1000: "D"}


def sides_mask(sides: str | int) -> int:
    """Open sides as a bit mask (N=1 E=2 S=4 W=8) from letters (``"NS"``) or a mask."""
    if isinstance(sides, int) and not isinstance(sides, bool):
        if not 0 <= sides <= 15:
            raise ScenarioError(f"sides={sides}: a mask 0..15 (N=1 E=2 S=4 W=8) or letters of NESW")
        return sides
    if not isinstance(sides, str) or set(sides) - set(SIDES) or len(set(sides)) != len(sides):
        raise ScenarioError(f"sides={sides!r}: letters of N, E, S, W, each at most once (or a mask 0..15)")
    return sum(SIDES[c] for c in sides)


def _count(name: str, n: Any, hi: int) -> int:
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or not 0 <= n <= hi:
        raise ScenarioError(f"{name}={n!r}: allowed 0..{hi}")
    return int(n)


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
        """The tile index at cell (x, y) (code coordinates: y grows south), -1 if none."""
        return tile_index(self.g, x, y)

    def _tile_index(self, name: str, t: Any) -> int:
        n = int(self.g[L.N_TILES])
        if not isinstance(t, (int, np.integer)) or isinstance(t, bool) or not 0 <= t < n:
            raise ScenarioError(f"{name}={t!r}: a tile index 0..{n - 1} (Position.tile returns it; at(x, y) finds it)")
        return int(t)

    def _seat(self, s: Any) -> int:
        seats = self.config.num_players
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool) or not 0 <= s < seats:
            raise ScenarioError(f"seat {s!r}: allowed 0..{seats - 1} (num_players={seats})")
        return int(s)

    def tile(self, x: int, y: int, kind: str, sides: str | int, depth: int = 0, squeeze: int = 0,
             token: bool | None = None, walled: bool = False) -> int:
        """Put a tile on the empty cell (x, y); water, wonder and squeeze get their token unless token=False.
        ``kind``: plain, water, wonder, squeeze, descent (a boulder choke: ``boulder``); ``sides`` a shape the
        catalogue has for the kind (any rotation), except one open side or none (a tile walled but for it) and
        ``walled=True`` (the sides as given, to fence a test); ``squeeze`` 1..3 on a squeeze tile only; ``depth``
        metres, a multiple of the config's depth step."""
        cave = {k: {s for s, n in shapes.items() if n} for k, shapes in self._kinds().items()}
        if kind not in cave:
            raise ScenarioError(f"kind={kind!r}: one of {sorted(cave)} (a boulder choke: Position.boulder)")
        if self.at(x, y) >= 0:
            raise ScenarioError(f"cell {(x, y)} is taken by tile {self.at(x, y)}")
        mask = sides_mask(sides)
        shape = _SHAPE_OF.get(mask)
        if shape not in cave[kind] and not walled and mask.bit_count() > 1:
            raise ScenarioError(f"sides={sides!r}: a {kind} tile comes in shapes {sorted(cave[kind])} "
                                f"({', '.join(f'{k} {_shape_sides(k)}' for k in sorted(cave[kind]))}, turned), "
                                f"not {shape}; walled=True keeps the sides as given")
        if (kind == "squeeze") != (squeeze != 0):
            raise ScenarioError(f"squeeze={squeeze!r}: 1..3 on a squeeze tile, 0 on the others (kind={kind!r})")
        _count("squeeze", squeeze, 3)
        step = self.config.depth_step
        if not isinstance(depth, (int, np.integer)) or depth < 0 or depth % step:
            raise ScenarioError(f"depth={depth!r}: metres, 0 or more, a multiple of depth_step={step}")
        t = add_tile(self.g, x, y, KINDS[kind], mask, depth)
        self.g[L.TSQ + t] = squeeze
        if token is None:
            token = kind in ("water", "wonder", "squeeze")
        self.g[L.TTOKEN + t] = int(token)
        return t

    def _kinds(self) -> dict[str, dict[str, int]]:
        """Cave tile kinds (squeeze1..3 merged into squeeze) and their shapes' counts in the catalogue."""
        out: dict[str, dict[str, int]] = {}
        for name, shapes in self.config.tiles.items():
            kind = "squeeze" if name.startswith("squeeze") else name
            for shape, n in shapes.items():
                out.setdefault(kind, {})[shape] = out.get(kind, {}).get(shape, 0) + n
        return out

    def boulder(self, x: int, y: int, side: str, depth: int = 0) -> int:
        """A boulder choke whose one passage is its side ``side``."""
        if side not in SIDES or len(side) != 1:
            raise ScenarioError(f"side={side!r}: one of N, E, S, W")
        if self.at(x, y) >= 0:
            raise ScenarioError(f"cell {(x, y)} is taken by tile {self.at(x, y)}")
        t = add_tile(self.g, x, y, L.K_BOULDER, 0, depth)
        self.g[L.TBSIDE + t] = "NESW".index(side)
        return t

    def team(self, s: int, at: int | None = None, camp: int | None = None, **equipment: int) -> None:
        """Place seat s's pawn (tile index) and camp (tile, L.CAMP_PACKED or L.CAMP_GONE); set backpack counts by
        equipment name (``layout.EQUIP_NAMES``: consumable, rope, oxygen2, oxygen1, camera, raft) or camp counts as
        camp_<name>. The bank gives or takes the difference (token conservation); the backpack holds at most
        backpack_slots tokens (a packed camp covers 2), the camp camp_slots, a team one camera and one raft."""
        s = self._seat(s)
        g = self.g
        allowed = list(L.EQUIP_NAMES) + ["camp_" + k for k in L.EQUIP_NAMES]
        for name, n in equipment.items():
            if name not in allowed:
                raise ScenarioError(f"team({s}): unknown equipment {name!r}; allowed: {', '.join(allowed)}")
            _count(name, n, 1 if name.endswith(("camera", "raft")) else max(self.config.backpack_slots,
                                                                             self.config.camp_slots))
        before = g.copy()  # a refused kit leaves the position as it was
        try:
            if at is not None:
                g[L.POS + s] = self._tile_index("at", at)
            if camp is not None:
                g[L.CAMP + s] = camp if camp in (L.CAMP_PACKED, L.CAMP_GONE) else self._tile_index("camp", camp)
            for name, n in equipment.items():
                base = L.CAMPC if name.startswith("camp_") else L.BP
                k = L.EQUIP_NAMES.index(name.removeprefix("camp_"))
                b = bank_kind(k)
                if b >= 0:  # keep the bank's count consistent (token conservation)
                    g[L.BANK + b] -= n - int(g[base + s * L.NK + k])
                g[base + s * L.NK + k] = n
            self._check_slots(s)
        except ScenarioError:
            g[:] = before
            raise

    def _check_slots(self, s: int) -> None:
        g, cfg = self.g, self.config
        bp = [int(v) for v in g[L.BP + s * L.NK:L.BP + (s + 1) * L.NK]]
        cc = [int(v) for v in g[L.CAMPC + s * L.NK:L.CAMPC + (s + 1) * L.NK]]
        used = sum(bp) + (2 if g[L.CAMP + s] == L.CAMP_PACKED else 0)
        if used > cfg.backpack_slots:
            raise ScenarioError(f"team({s}): {used} backpack slots used (a packed camp covers 2), allowed 0.."
                                f"{cfg.backpack_slots} (backpack_slots)")
        if sum(cc) > cfg.camp_slots:
            raise ScenarioError(f"team({s}): {sum(cc)} tokens in the camp, allowed 0..{cfg.camp_slots} (camp_slots)")
        for k in (L.E_CAMERA, L.E_RAFT):
            if bp[k] + cc[k] > 1:
                raise ScenarioError(f"team({s}): {bp[k] + cc[k]} {L.EQUIP_NAMES[k]}s, a team has one (R-ITC-SET-7)")

    def tokens(self, s: int, traverse: int | None = None, water: int | None = None, photo: int | None = None,
               squeeze: Sequence[int] | None = None, depth: Iterable[int] | None = None) -> None:
        """Set seat s's exploration tokens (R-ITC-SCORE-1): traverse, water, photo counts; ``squeeze`` the counts
        of difficulty 1, 2, 3; ``depth`` the depth-reached levels held (depth / 25: 1 = 25 m). None keeps a
        field."""
        s = self._seat(s)
        g = self.g
        for name, base, n in (("traverse", L.TRAV, traverse), ("water", L.WATER, water), ("photo", L.PHOTO, photo)):
            if n is not None:
                g[base + s] = _count(name, n, 999)
        if squeeze is not None:
            if isinstance(squeeze, (str, bytes)) or len(squeeze) != 3:
                raise ScenarioError(f"squeeze={squeeze!r}: three counts, of difficulty 1, 2 and 3")
            for k, n in enumerate(squeeze):
                g[L.SQ + 3 * s + k] = _count(f"squeeze[{k}]", n, 999)
        if depth is not None:
            levels = list(depth)
            for lv in levels:
                _count("depth level", lv, L.LEVELS - 1)
            if 0 in levels:
                raise ScenarioError("depth level 0: the home level has no token; levels 1.."
                                    f"{L.LEVELS - 1} (depth / 25)")
            row = L.DEPTH_TOK + s * L.LEVELS
            g[row:row + L.LEVELS] = 0
            for lv in levels:
                g[row + lv] = 1

    @property
    def stack_pos(self) -> int:
        """The next draw's index in the stacks (``layout.STACK_POS``)."""
        return int(self.g[L.STACK_POS])

    @stack_pos.setter
    def stack_pos(self, i: int) -> None:
        """Move the next draw to index i of the stacks (0 = the first tile of stack I; the stacks end at
        ``STACK_END``): tiles before it count as drawn (ending a stack or all four, R-ITC-END-1)."""
        end = int(self.g[L.STACK_END + 3])
        self.g[L.STACK_POS] = _count("stack_pos", i, end)

    def draws_left(self, n: int) -> None:
        """Leave n tiles to draw in the stacks (the last n of stack IV and before)."""
        end = int(self.g[L.STACK_END + 3])
        self.stack_pos = end - _count("draws_left", n, end)

    def rope(self, t: int, side: str) -> None:
        """Rope the edge between tile t and its connected neighbour beyond ``side`` (on both tiles): a move across
        it places no rope. The ropes it took (depth difference / depth step) leave the bank for good, as placed
        ropes do (R-ITC-ACT-5, SET-6)."""
        t = self._tile_index("t", t)
        if side not in SIDES or len(side) != 1:
            raise ScenarioError(f"side={side!r}: one of N, E, S, W")
        d = "NESW".index(side)
        nb = int(connected(self.g, t, d))
        if nb < 0:
            there = int(beyond(self.g, t, d))
            why = "no tile" if there < 0 else f"tile {there}, not connected (a side closed)"
            raise ScenarioError(f"rope({t}, {side!r}): beyond side {side} is {why}; only a passage can be roped")
        k = int(ropes_needed(self.g, self.core.P, t, nb, d))
        if k == 0 and not (self.g[L.TROPE + t] >> d) & 1:
            raise ScenarioError(f"rope({t}, {side!r}): tiles {t} and {nb} are at the same depth: no rope needed")
        self.g[L.BANK + L.B_ROPE] -= k
        self.g[L.LOST + L.B_ROPE] += k
        rope_edge(self.g, t, d)

    def placements(self) -> dict[str, str]:
        """The legal placements of the drawn tile now: action name -> the open sides it gets (``"ES"``)."""
        cat = int(self.g[L.PEND_CAT])
        if cat < 0:
            return {}
        base = int(self.core.P[L.PR_CAT_MASK + cat])
        return {name: placement_sides(base, ACTION_NAMES.index(name)) for name in self.legal()
                if A_PLACE <= ACTION_NAMES.index(name) < A_PLACE + 16}

    def next_tiles(self, *tiles: tuple[str, str]) -> None:
        """The next draws, as (kind, shape) pairs of the catalogue (e.g. ("water", "I"))."""
        cat = self.config.catalogue()
        left = int(self.g[L.STACK_END + 3]) - int(self.g[L.STACK_POS])
        if len(tiles) > left:
            raise ScenarioError(f"next_tiles: {len(tiles)} tiles, only {left} draws left in the stacks")
        for i, pair in enumerate(tiles):
            if tuple(pair) not in cat:
                raise ScenarioError(f"next_tiles: {pair!r} is not in the catalogue; (kind, shape) pairs: "
                                    f"{sorted(set(cat))}")
            self.g[L.STACK + int(self.g[L.STACK_POS]) + i] = cat.index(tuple(pair))

    def start_turn(self, s: int) -> None:
        """Seat s starts a turn now (upkeep included)."""
        turn4_begin(self.g, self.core.P, self._seat(s))

    def legal(self) -> list[str]:
        return [ACTION_NAMES[i] for i in np.flatnonzero(self.core.masks(self.G)[0])]

    def act(self, *names: str) -> None:
        """Play actions by name; an unknown name or an illegal action raises IllegalActionError naming the legal
        ones (``ItcCore.step`` itself returns code 1 and leaves the game unchanged)."""
        for name in names:
            if name not in ACTION_NAMES:
                raise IllegalActionError(f"unknown action {name!r}; legal now: {self.legal()}")
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


def _shape_sides(shape: str) -> str:
    """A catalogue shape's open sides in its base orientation (``"L"`` -> ``"NE"``)."""
    return "".join(c for d, c in enumerate("NESW") if (SHAPES[shape] >> d) & 1)
