"""ItcConfig: every [default] of RULES_ITC.md as a validated, frozen setting, with presets and YAML.

A config is data; the compiled rules read it as an int32 params vector (``params()``), so one compiled kernel
serves every config. Unknown keys and out-of-range values raise ``ConfigError`` naming the key and what is
allowed (Sub Terra's ``ConfigError``, so callers catch one type).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from subterra_env.config import ConfigError, ConfigTypeError
from subterra_env.games.sub_terra.core.catalogue import SHAPE_MASK

from .core import layout as L

# R-ITC-TILE-3 [default], a reconstruction: one stack's tiles by kind and shape (X crossing, T, L corner,
# I straight, D dead end); each of the four stacks holds the same.
DEFAULT_TILES: dict[str, dict[str, int]] = {
    "plain": {"X": 1, "T": 2, "L": 1, "I": 1},
    "water": {"T": 1, "L": 1, "I": 1},
    "wonder": {"T": 1, "L": 1, "I": 1, "D": 1},
    "squeeze1": {"L": 1, "I": 1},
    "squeeze2": {"L": 1},
    "squeeze3": {"D": 1},
    "descent": {"X": 2, "T": 2},
}
TILE_KINDS: dict[str, tuple[int, int]] = {  # name -> (kind, squeeze difficulty)
    "plain": (L.K_PLAIN, 0), "water": (L.K_WATER, 0), "wonder": (L.K_WONDER, 0), "squeeze1": (L.K_SQUEEZE, 1),
    "squeeze2": (L.K_SQUEEZE, 2), "squeeze3": (L.K_SQUEEZE, 3), "descent": (L.K_DESCENT, 0),
}
SHAPES: dict[str, int] = {"X": SHAPE_MASK["4"], "T": SHAPE_MASK["T"], "L": SHAPE_MASK["L"], "I": SHAPE_MASK["I"],
                          "D": SHAPE_MASK["D"]}
DEFAULT_REMOVED: dict[int, int] = {2: 8, 3: 6, 4: 4, 5: 2}  # R-ITC-SET-4 [default], per stack
FIRST_GAME_PACK: dict[str, int] = {"consumable": 4, "rope": 1, "oxygen": 1, "camera": 1, "raft": 1}  # SET-9
_PACK_KINDS = {"consumable": L.E_CONS, "rope": L.E_ROPE, "oxygen": L.E_OX2, "camera": L.E_CAMERA,
               "raft": L.E_RAFT}


@dataclass(frozen=True)
class ItcConfig:
    """All In the Cave settings; each names its rule ID."""

    num_players: int = 2
    """2..5 teams (R-ITC-SET-2)."""
    backpack_slots: int = 8
    """R-ITC-SET-7 [default] 8; a packed camp covers 2."""
    camp_slots: int = 4
    """R-ITC-SET-7 [default] 4."""
    action_points: int = 5
    """R-ITC-TURN-4."""
    limited_bank: bool = False
    """R-ITC-SET-6 [default off]: cap equipment at the SET-1 counts below."""
    bank_consumables: int = 50
    bank_ropes: int = 40
    bank_oxygen: int = 20
    removed_per_stack: int | None = None
    """R-ITC-SET-4 [default]: tiles removed unseen from each stack; None = 8/6/4/2 for 2/3/4/5 players."""
    initial_pack: str = "free"
    """R-ITC-SET-9: 'free' (each team chooses, seat order, hidden) or 'fixed' (every team packs ``fixed_pack``)."""
    fixed_pack: Mapping[str, int] = field(default_factory=lambda: dict(FIRST_GAME_PACK))
    """R-ITC-SET-9 preset first_game: the backpack every team starts with when initial_pack='fixed'."""
    final_rounds: int = 3
    """R-ITC-END-2: full rounds after the trigger's round."""
    max_rounds: int = 100
    """R-ITC-END-4 [default 100]: truncation."""
    max_free_actions: int = 24
    """Free (0 AP) actions a team may take per turn or packing (not in the rules: keeps every game finite)."""
    depth_step: int = 25
    """R-ITC-ACT-3: metres a descent adds (one rope per step, R-ITC-ACT-5)."""
    tiles: Mapping[str, Mapping[str, int]] = field(default_factory=lambda: DEFAULT_TILES)
    """R-ITC-TILE-3 [default]: one stack's tiles, kind -> shape -> count (<= 30 per stack)."""

    def __post_init__(self) -> None:
        _validate(self)

    def __hash__(self) -> int:
        return hash(tuple((f.name, _frozen(getattr(self, f.name))) for f in dataclasses.fields(self)))

    @property
    def removed(self) -> int:
        return DEFAULT_REMOVED[self.num_players] if self.removed_per_stack is None else self.removed_per_stack

    @property
    def tiles_per_stack(self) -> int:
        return sum(n for shapes in self.tiles.values() for n in shapes.values())

    def catalogue(self) -> list[tuple[str, str]]:
        """One stack's tiles as (kind name, shape) in catalogue-id order."""
        return [(kind, shape) for kind, shapes in self.tiles.items() for shape, n in shapes.items()
                for _ in range(n)]

    def params(self) -> np.ndarray:
        """The int32 params vector the compiled rules read (``layout.PR_*``)."""
        p = np.zeros(L.PARAMS_SIZE, dtype=np.int32)
        p[L.PR_SEATS] = self.num_players
        p[L.PR_BACKPACK] = self.backpack_slots
        p[L.PR_CAMP_SLOTS] = self.camp_slots
        p[L.PR_AP] = self.action_points
        p[L.PR_LIMITED] = int(self.limited_bank)
        p[L.PR_BANK0:L.PR_BANK0 + 3] = (self.bank_consumables, self.bank_ropes, self.bank_oxygen)
        p[L.PR_MAX_ROUNDS] = self.max_rounds
        p[L.PR_MAX_FREE] = self.max_free_actions
        p[L.PR_REMOVE:L.PR_REMOVE + 4] = self.removed
        p[L.PR_FIXED_PACK] = int(self.initial_pack == "fixed")
        for name, n in self.fixed_pack.items():
            p[L.PR_FIXED + _PACK_KINDS[name]] = n
        p[L.PR_END_ROUNDS] = self.final_rounds
        p[L.PR_DEPTH_STEP] = self.depth_step
        cat = self.catalogue()
        p[L.PR_NCAT] = len(cat)
        for i, (kind, shape) in enumerate(cat):
            p[L.PR_CAT_KIND + i], p[L.PR_CAT_SQ + i] = TILE_KINDS[kind]
            p[L.PR_CAT_MASK + i] = SHAPES[shape]
        return p

    def replace(self, **changes: Any) -> ItcConfig:
        return from_dict({**to_dict(self), **changes})


def _frozen(v: Any) -> Any:
    return tuple(sorted((k, _frozen(x)) for k, x in v.items())) if isinstance(v, Mapping) else v


def _fail(key: str, value: Any, allowed: str) -> None:
    raise ConfigError(f"setting {key!r}={value!r} is out of range: allowed {allowed}")


_INT_RANGES: dict[str, tuple[int, int]] = {
    "num_players": (2, 5), "backpack_slots": (2, 20), "camp_slots": (0, 12), "action_points": (1, 20),
    "bank_consumables": (0, 10_000), "bank_ropes": (0, 10_000), "bank_oxygen": (0, 10_000),
    "final_rounds": (0, 20), "max_rounds": (1, 100_000), "max_free_actions": (1, 1000), "depth_step": (1, 1000),
}


def _validate(c: ItcConfig) -> None:
    for key, (lo, hi) in _INT_RANGES.items():
        v = getattr(c, key)
        if not isinstance(v, int) or isinstance(v, bool):
            raise ConfigTypeError(f"setting {key!r}={v!r} has type {type(v).__name__}: expected an integer")
        if not lo <= v <= hi:
            _fail(key, v, f"{lo}..{hi}")
    if not isinstance(c.limited_bank, bool):
        raise ConfigTypeError(f"setting 'limited_bank'={c.limited_bank!r}: expected true or false")
    if c.initial_pack not in ("free", "fixed"):
        _fail("initial_pack", c.initial_pack, "'free' or 'fixed'")
    if not isinstance(c.tiles, Mapping):
        raise ConfigTypeError(f"setting 'tiles'={c.tiles!r}: expected a mapping kind -> shape -> count")
    for kind, shapes in c.tiles.items():
        if kind not in TILE_KINDS:
            _fail("tiles", kind, f"tile kinds {sorted(TILE_KINDS)}")
        for shape, n in dict(shapes).items():
            if shape not in SHAPES:
                _fail(f"tiles.{kind}", shape, f"shapes {sorted(SHAPES)}")
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                _fail(f"tiles.{kind}.{shape}", n, "a count >= 0")
    if not 1 <= c.tiles_per_stack <= 30:
        _fail("tiles", c.tiles_per_stack, "1..30 tiles per stack")
    if c.removed_per_stack is not None and (not isinstance(c.removed_per_stack, int)
                                            or isinstance(c.removed_per_stack, bool)):
        raise ConfigTypeError(f"setting 'removed_per_stack'={c.removed_per_stack!r}: expected an integer or null")
    if not 0 <= c.removed < c.tiles_per_stack:
        _fail("removed_per_stack", c.removed, f"0..{c.tiles_per_stack - 1} (fewer than the tiles per stack)")
    bad = sorted(set(c.fixed_pack) - set(_PACK_KINDS))
    if bad:
        _fail("fixed_pack", bad, f"kinds {sorted(_PACK_KINDS)}")
    for name, n in c.fixed_pack.items():
        if not isinstance(n, int) or isinstance(n, bool) or n < 0 or (name in ("camera", "raft") and n > 1):
            _fail(f"fixed_pack.{name}", n, "a count >= 0 (camera and raft: 0 or 1)")
    if sum(c.fixed_pack.values()) > c.backpack_slots:
        _fail("fixed_pack", dict(c.fixed_pack), f"at most backpack_slots={c.backpack_slots} tokens")


def from_dict(d: Mapping[str, Any]) -> ItcConfig:
    """A config from plain data (YAML); unknown keys are errors naming the known ones."""
    names = sorted(f.name for f in dataclasses.fields(ItcConfig))
    unknown = sorted(set(d) - set(names))
    if unknown:
        raise ConfigError(f"unknown setting(s) {unknown}; known settings: {names}")
    return ItcConfig(**d)


def to_dict(c: ItcConfig) -> dict[str, Any]:
    return {f.name: getattr(c, f.name) for f in dataclasses.fields(c)}


PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "first_game": {"initial_pack": "fixed"},
    "two": {"num_players": 2},
    "three": {"num_players": 3},
    "four": {"num_players": 4},
    "five": {"num_players": 5},
}


def preset(name: str, **overrides: Any) -> ItcConfig:
    if name not in PRESETS:
        raise ConfigError(f"unknown preset {name!r}; presets: {sorted(PRESETS)}")
    return from_dict({**PRESETS[name], **overrides})


def load(path: str | Path) -> ItcConfig:
    """An ItcConfig from YAML; a top-level 'preset' key starts from that preset."""
    import yaml

    data = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of settings, got {type(data).__name__}")
    name = data.pop("preset", "default")
    try:
        return preset(name, **data)
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from e
