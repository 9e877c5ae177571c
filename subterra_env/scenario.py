"""Build a mid-game state from a small text map: for tests, curricula and bug reports.

Example::

    map:
      start:NESW   water:EW:~    gas:W
      .            horror:N
    cavers: diver@0,0 scout@1,0:hp=2 medic@1,1:hidden leader:dead
    horrors: 1,1
    stack: gas:L normal:I exit
    deck: flood horror:x2 out-of-time
    actor: scout
    ap: 1
    dice: 6 1 4

Map cells are whitespace-separated tokens ``TYPE:SIDES[:MARKS]`` or ``.`` for empty. TYPE is a tile type of
``config.TILE_TYPES``; SIDES the open sides (``NESW``); MARKS any of ``~`` flooded, ``*`` rubble, ``r`` rope,
``^ > v <`` a ledge or slide arrow (N, E, S, W), two digits for cave-in die numbers (a pair a cave-in tile
has), ``n e s w`` for an explosives token on that side (the side is then open too) and ``x`` (walled: keep the
sides as given); in Annihilation also the type ``bomb``, three digits for an unstable cave-in tile and ``B`` for a
bomb token; in Extraction the type ``sanctuary``. SIDES must make a shape the type comes in (``horror:EW`` is
refused: horror tiles are corners and dead ends), except one open side (a tile walled but for that side) and
tiles marked ``x``: both fence a test's cave. Coordinates are
``column,row`` of the map. Tile indices follow reading order with the start tile first (horror spawn ties
go to the lower index). Caver tokens ``name@x,y`` take options ``hp=N``, ``hidden``, ``dead`` (no position),
``under`` (the Diver under water, no position), ``bombs=N`` (bomb cards held, Annihilation), ``samples=N``
(biosamples held, Extraction). ``leapers`` lists Extraction's leapers like ``horrors``; in Extraction every
monster is spawned in the order listed, horrors first, unless a cell ends in ``:N``, its spawn order (monsters move
oldest first across kinds, R-EXT-4). The deck takes ``leaper`` and ``leaper:x2`` in Extraction.
In Investigation: the type ``item`` and the mark ``I`` for an item token on it; ``items=NAME,NAME`` on a caver (the
items held, ``catalogue.ITEM_NAMES`` with ``-`` for a space: ``gas-mask``); ``items: NAME ...`` the item deck, top
first (empty if absent; every item neither held nor in the deck is out of the game); ``doom: on`` (doom
pending); ``battery: NAME ...`` (cavers with a Spare Battery active); the deck takes ``doom``.
Seats follow the listed order. ``stack`` and ``deck`` list what is left, top first; ``dice`` scripts the next
die faces (then the game's seeded stream continues). Other keys: ``actor``, ``ap``, ``exerted``, ``round``,
``start`` (starting caver), ``gas`` (on/off: entering damage active), ``out-of-time`` (on/off), ``seed``,
``ropes`` (tokens left), ``aside`` (the Geologist's set-aside tile, TYPE[:SHAPE]), ``redraws`` (Scout),
``explosives`` (Engineer).

The builder is strict: an unknown key or caver option, a key given twice, a number out of its range (``hp`` above
the caver's starting health, ``ap`` above the config's action points, ``bombs``/``samples`` above 3, ``ropes``,
``redraws``, ``explosives`` above the config's supply), a shape its type does not come in, or another scenario's
content (``bombs=1`` outside Annihilation: the message names the scenario that allows it) is a ScenarioError naming
the line, the key and the allowed values.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from .config import CAVER_NAMES, HAZARDS, SHAPES, TILE_TYPES, GameConfig
from .games.sub_terra.core import rng
from .games.sub_terra.core.board import relink
from .games.sub_terra.core.catalogue import (
    ALL_ITEMS,
    BIT,
    C_DOOM,
    C_LEAPER,
    C_LEAPER_X2,
    C_OUT_OF_TIME,
    CORE_TILE_TYPES,
    ITEM_NAMES,
    NUM_ITEMS,
    SC_ANNIHILATION,
    SC_EXTRACTION,
    SC_INVESTIGATION,
    X2,
)
from .games.sub_terra.core.rules import Core
from .games.sub_terra.core.state import FORCED, State, alloc

ARROWS = {"^": 0, ">": 1, "v": 2, "<": 3}


class ScenarioError(ValueError):
    """The scenario text is malformed; the message names the line or token, what is wrong and what is allowed."""


# What only one scenario allows (R-VAR): tile types, tile marks, keys, caver options and deck cards.
SCENARIO_TYPES = {"bomb": "annihilation", "sanctuary": "extraction", "item": "investigation"}
SCENARIO_MARKS = {"B": "annihilation", "I": "investigation"}
SCENARIO_KEYS = {"leapers": "extraction", "items": "investigation", "doom": "investigation",
                 "battery": "investigation"}
SCENARIO_OPTIONS = {"bombs": "annihilation", "samples": "extraction", "items": "investigation"}
KEYS = ("cavers", "horrors", "leapers", "stack", "deck", "actor", "ap", "exerted", "round", "start", "gas",
        "out-of-time", "seed", "dice", "ropes", "aside", "redraws", "explosives", "items", "doom", "battery")
CAVER_FLAGS = ("hidden", "dead", "under")
CAVER_COUNTS = ("hp", "bombs", "samples")
MARKS = "~*r^>v<nesw0123456789BIx"
CARDS_HELD = 3  # bomb cards (R-ANN-5) and biosamples (R-EXT-9) in play
SWITCHES = {"gas": ("on", "off"), "out-of-time": ("on", "off"), "doom": ("on", "off"), "exerted": ("yes", "no")}


def _shape_of(sides: int) -> str:
    count = sides.bit_count()
    if count == 2:
        return "I" if sides in (0b0101, 0b1010) else "L"
    return {4: "4", 3: "T", 1: "D"}.get(count, "D")


def _parse(text: str) -> tuple[list[tuple[int, str]], dict[str, str], dict[str, int]]:
    """Map rows (with their line numbers), the keys' values and the line number of each key."""
    rows: list[tuple[int, str]] = []
    keys: dict[str, str] = {}
    lines: dict[str, int] = {}
    in_map = False
    for n, raw in enumerate(text.strip("\n").splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if line.strip() == "map:":
            in_map = True
            continue
        if in_map and raw.startswith((" ", "\t")):
            rows.append((n, line.strip()))
            continue
        in_map = False
        if ":" not in line:
            raise ScenarioError(f"line {n} {raw.strip()!r}: expected 'key: value' (keys: {', '.join(KEYS)})")
        k, v = (part.strip() for part in line.split(":", 1))
        if k in keys:
            raise ScenarioError(f"line {n} {raw.strip()!r}: key {k!r} is given twice (also on line {lines[k]})")
        keys[k], lines[k] = v, n
    if not rows:
        raise ScenarioError("no 'map:' section with indented rows")
    return rows, keys, lines


def parse_sections(text: str) -> tuple[list[str], dict[str, str]]:
    """The map rows and the keys' values of scenario text."""
    rows, keys, _ = _parse(text)
    return [row for _, row in rows], keys


class _Text:
    """Scenario text being read: its keys, with the line each came from, for the error messages."""

    def __init__(self, text: str, cfg: GameConfig) -> None:
        self.rows, self.keys, self.lines = _parse(text)
        self.cfg = cfg
        self.scenario = cfg.scenario

    def line(self, key: str) -> str:
        return f"line {self.lines[key]} '{key}: {self.keys[key]}'" if key in self.lines else f"'{key}'"

    def fail(self, key: str, what: str) -> ScenarioError:
        return ScenarioError(f"{self.line(key)}: {what}")

    def needs(self, where: str, thing: str, scenario: str) -> None:
        """Refuse scenario content outside its scenario, naming the scenario that allows it."""
        if self.scenario != scenario:
            raise ScenarioError(f"{where}: {thing} needs scenario {scenario!r} (this config plays "
                                f"{self.scenario!r}; GameConfig(scenario={scenario!r}) allows it)")

    def number(self, key: str, lo: int, hi: int, default: int, where: str | None = None,
               text: str | None = None) -> int:
        """An integer in lo..hi: the key's value (or ``text`` for a caver option ``where``), else ``default``."""
        if text is None and key not in self.keys:
            return default
        value = self.keys[key] if text is None else text
        try:
            n = int(value)
        except ValueError:
            n = None
        if n is None or not lo <= n <= hi:
            label = where or self.line(key)
            raise ScenarioError(f"{label}: {key}={value!r} is out of range: allowed {lo}..{hi}")
        return n

    def switch(self, key: str) -> bool:
        """An on/off (yes/no) key: True for the first word."""
        yes, no = SWITCHES[key]
        value = self.keys.get(key, no)
        if value not in (yes, no):
            raise self.fail(key, f"expected {yes!r} or {no!r}, got {value!r}")
        return value == yes


def build(text: str, cfg: GameConfig | None = None, core: Core | None = None) -> State:
    """A one-game State from scenario text (see the module docstring). Anything the text names that the config
    cannot have (an unknown key or option, a value out of range, a shape its tile type does not come in, another
    scenario's content) is a ScenarioError naming the line, the key and the allowed values."""
    core = core or Core(cfg)
    cfg, cat = core.cfg, core.cat
    src = _Text(text, cfg)
    unknown = sorted(set(src.keys) - set(KEYS))
    if unknown:
        raise src.fail(unknown[0], f"unknown key {unknown[0]!r}; known keys: {', '.join(KEYS)}")
    for key, scenario in SCENARIO_KEYS.items():
        if src.keys.get(key):  # an empty line is harmless
            src.needs(src.line(key), f"'{key}:'", scenario)
    cavers = src.keys.get("cavers", "").split()
    if not cavers:
        raise ScenarioError("'cavers:' lists no caver")
    names = [tok.split(":")[0].partition("@")[0] for tok in cavers]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise src.fail("cavers", f"caver {twice[0]!r} is listed twice: one token per caver")
    st = alloc(1, len(cavers), cat.max_tiles, cat.stack_size, cat.deal_size + 1)
    st.key[:] = rng.seed_keys(np.array([src.number("seed", 0, 2**62, 0)]))
    used: set[int] = set()
    pos = _tiles(src, cat, st, used)
    relink(st, np.array([0]), core.params)

    def tile_at(ref: str, key: str) -> int:
        try:
            x, y = (int(v) for v in ref.split(","))
            return pos[(x, y)]
        except (ValueError, KeyError):
            raise src.fail(key, f"{ref!r} is not the column,row of a tile on the map") from None

    for s, tok in enumerate(cavers):
        _caver(src, st, s, tok, tile_at)
    _monsters(src, st, tile_at)
    _stack_and_deck(src, cat, st, used)
    seat_of = {CAVER_NAMES[r - 1]: s for s, r in enumerate(st.c_rank[0])}
    _investigation(src, st, seat_of)
    _turn(src, st, seat_of)
    return st


def _tiles(src: _Text, cat, st: State, used: set[int]) -> dict[tuple[int, int], int]:
    """The map's tiles into st (start first, then reading order); the tile index of each (column, row)."""
    cells = [(x, y, tok, n) for y, (n, row) in enumerate(src.rows) for x, tok in enumerate(row.split())
             if tok != "."]
    if not cells:
        raise ScenarioError("the map has no tile")
    if len(cells) > cat.max_tiles:
        raise ScenarioError(f"the map has {len(cells)} tiles, at most {cat.max_tiles} for this config")
    starts = [c for c in cells if c[2].split(":")[0] == "start"]
    if len(starts) > 1:
        raise ScenarioError(f"line {starts[1][3]}: a second start tile at {starts[1][0]},{starts[1][1]}: one only")
    cells.sort(key=lambda c: c[2].split(":")[0] != "start")
    origin = cat.stack_size + 1
    start_xy = (cells[0][0], cells[0][1])
    pos: dict[tuple[int, int], int] = {}
    for i, (x, y, tok, n) in enumerate(cells):
        if max(abs(x - start_xy[0]), abs(y - start_xy[1])) >= origin:
            raise ScenarioError(f"line {n}: tile {tok!r} at {x},{y} is {origin} or more cells from the start tile")
        _tile(src, cat, st, used, i, tok, f"line {n}: tile {tok!r} at {x},{y}")
        st.t_x[0, i], st.t_y[0, i] = origin + x - start_xy[0], origin + y - start_xy[1]
        pos[(x, y)] = i
    st.n_tiles[0] = len(cells)
    return pos


def _tile(src: _Text, cat, st: State, used: set[int], i: int, tok: str, where: str) -> None:
    """Tile i of the map from its token TYPE:SIDES[:MARKS]."""
    parts = tok.split(":")
    if len(parts) > 3:
        raise ScenarioError(f"{where}: expected TYPE:SIDES[:MARKS], {len(parts)} parts")
    ttype = parts[0]
    if ttype in SCENARIO_TYPES and ttype not in _types(cat):
        src.needs(where, f"the tile type {ttype!r}", SCENARIO_TYPES[ttype])
    if ttype not in _types(cat):
        raise ScenarioError(f"{where}: type must be one of {_types(cat)}")
    letters = parts[1] if len(parts) > 1 else ""
    if set(letters) - set("NESW") or len(set(letters)) != len(letters):
        raise ScenarioError(f"{where}: open sides {letters!r}: each of N, E, S, W at most once")
    sides = sum(int(BIT[k]) for k, c in enumerate("NESW") if c in letters)
    marks = parts[2] if len(parts) > 2 else ""
    _check_marks(src, marks, where)
    dice = tuple(int(c) for c in marks if c.isdigit())
    if len(dice) not in (0, 2, 3) or (len(dice) == 3 and src.scenario != "annihilation"):
        if len(dice) == 3:
            src.needs(where, "three die numbers (an unstable cave-in tile)", "annihilation")
        raise ScenarioError(f"{where}: die numbers {''.join(map(str, dice))!r}: two digits (a cave-in tile's pair)"
                            + (" or three (an unstable cave-in tile)" if src.scenario == "annihilation" else ""))
    code = CORE_TILE_TYPES.index(ttype)
    shape = _checked_shape(cat, code, sides, "x" in marks, where)
    cid = _pick_tile(cat, used, code, shape, dice, where)
    st.t_cat[0, i] = cid
    st.t_type[0, i] = code
    st.t_bomb[0, i] = "B" in marks
    st.t_item[0, i] = "I" in marks
    st.t_flood[0, i] = "~" in marks
    st.t_rubble[0, i] = "*" in marks
    st.t_rope[0, i] = "r" in marks
    blast = sum(int(BIT[k]) for k, c in enumerate("nesw") if c in marks)
    st.t_blast[0, i] = blast
    st.t_open[0, i] = sides | blast
    arrow = [ARROWS[c] for c in marks if c in ARROWS]
    st.t_arrow[0, i] = arrow[0] if arrow else -1
    if ttype == "exit":
        st.exit_tile[0] = i


def _check_marks(src: _Text, marks: str, where: str) -> None:
    bad = sorted(set(marks) - set(MARKS))
    if bad:
        raise ScenarioError(f"{where}: unknown mark {bad[0]!r}; marks: ~ flooded, * rubble, r rope, ^ > v < arrow, "
                            "n e s w explosives, digits cave-in numbers, x walled, B bomb token (annihilation), "
                            "I item token (investigation)")
    for mark, scenario in SCENARIO_MARKS.items():
        if mark in marks:
            src.needs(where, f"the mark {mark!r}", scenario)
    if sum(c in ARROWS for c in marks) > 1:
        raise ScenarioError(f"{where}: at most one arrow (^ > v <)")


def _type_shapes(cat, code: int) -> list[str]:
    return [sh for sh in SHAPES if any(cat.tile_type[i] == code and SHAPES[cat.tile_shape[i]] == sh
                                       for i in range(len(cat.tile_type)))]


def _checked_shape(cat, code: int, sides: int, walled: bool, where: str) -> str:
    """The shape of a tile of type ``code`` with these open sides, refused if the type never comes in it. Two
    exceptions fence a test's cave: one open side (or none) is a tile of the type walled but for that side, and
    the mark ``x`` (walled) keeps whatever sides are given. Either way the catalogue tile of the type with that
    shape is used if there is one, else the type's first free tile."""
    have = _type_shapes(cat, code)
    if not have:
        raise ScenarioError(f"{where}: the config's catalogue has no {CORE_TILE_TYPES[code]!r} tile")
    shape = _shape_of(sides)
    if shape in have or walled or sides.bit_count() <= 1:
        return shape
    raise ScenarioError(f"{where}: {_a(CORE_TILE_TYPES[code])} tile is shaped {' or '.join(have)} "
                        f"({', '.join(SHAPE_WORDS[h] for h in have)}), not {shape} ({SHAPE_WORDS[shape]}); give "
                        "the sides of one of its shapes, or add the mark 'x' to wall it as given")


def _a(ttype: str) -> str:
    return f"{'an' if ttype[0] in 'aeiou' else 'a'} {ttype!r}"


SHAPE_WORDS = {"4": "a crossing", "T": "three sides", "L": "a corner", "I": "a straight", "D": "a dead end"}


def _caver(src: _Text, st: State, s: int, tok: str, tile_at) -> None:
    """Seat s from its caver token ``name@x,y[:option...]``."""
    cfg = src.cfg
    name, *opts = tok.split(":")
    name, _, at = name.partition("@")
    where = f"{src.line('cavers')}: caver {tok!r}"
    if name not in CAVER_NAMES:
        raise ScenarioError(f"{where}: name must be one of {CAVER_NAMES}")
    rank = CAVER_NAMES.index(name) + 1
    health = cfg.caver_health[rank - 1]
    st.c_rank[0, s] = rank
    st.c_max[0, s] = st.c_hp[0, s] = health
    flags = [o for o in opts if "=" not in o]
    counts = dict(o.split("=", 1) for o in opts if "=" in o)
    unknown = [o for o in flags if o not in CAVER_FLAGS] + [k for k in counts if k not in CAVER_COUNTS + ("items",)]
    if unknown or len(flags) != len(set(flags)) or len(counts) != sum("=" in o for o in opts):
        raise ScenarioError(f"{where}: unknown or repeated option {(unknown or opts)[0]!r}; options: "
                            f"{', '.join(CAVER_FLAGS)}, hp=N, bombs=N (annihilation), samples=N (extraction), "
                            "items=NAME,... (investigation)")
    if "dead" in flags and "under" in flags:
        raise ScenarioError(f"{where}: 'dead' and 'under' both given: one at most")
    if "dead" in flags or "under" in flags:
        if at:
            raise ScenarioError(f"{where}: a {'dead' if 'dead' in flags else 'under'} caver has no position "
                                f"(drop '@{at}')")
        st.c_tile[0, s] = -1
        st.c_dead[0, s], st.c_under[0, s] = "dead" in flags, "under" in flags
        if "dead" in flags:
            st.c_hp[0, s] = 0
    else:
        st.c_tile[0, s] = tile_at(at, "cavers")
    for key, scenario in SCENARIO_OPTIONS.items():
        if key in counts:
            src.needs(f"{where}: option '{key}='", f"'{key}='", scenario)
    if "hp" in counts:
        st.c_hp[0, s] = src.number("hp", 0, health, health, f"{where} (the {name}'s starting health is {health})",
                                   counts["hp"])
    if "bombs" in counts:
        st.c_bombs[0, s] = src.number("bombs", 0, CARDS_HELD, 0, where, counts["bombs"])
    if "samples" in counts:
        st.c_samples[0, s] = src.number("samples", 0, CARDS_HELD, 0, where, counts["samples"])
    if "items" in counts:
        for item in (_item(src, v, where) for v in counts["items"].split(",") if v):
            st.c_items[0, s] |= 1 << item
    st.c_hidden[0, s] = "hidden" in flags


def _stack_and_deck(src: _Text, cat, st: State, used: set[int]) -> None:
    """The stack and the hazard deck (top first, placed at the end of their arrays), the set-aside tile and the
    caver tokens' supplies."""
    cfg = src.cfg
    ids = [_stack_tile(src, cat, used, tok, "stack") for tok in src.keys.get("stack", "").split()]
    n = st.stack.shape[1]
    if len(ids) > n:
        raise src.fail("stack", f"{len(ids)} tiles, at most {n} for this config")
    aside = src.keys.get("aside", "").split()
    if "aside" in src.keys and len(aside) != 1:
        raise src.fail("aside", "one tile TYPE[:SHAPE]")
    st.aside_tile[0] = _stack_tile(src, cat, used, aside[0], "aside") if aside else -1
    st.scout_redraws[0] = src.number("redraws", 0, cfg.scout_redraws, cfg.scout_redraws)
    st.explosives[0] = src.number("explosives", 0, cfg.explosives, cfg.explosives)
    st.stack_pos[0] = n - len(ids)
    st.stack[0, n - len(ids):] = ids
    cards = [_card(src, tok) for tok in src.keys.get("deck", "").split()]
    d = st.deck.shape[1]
    if len(cards) > d:
        raise src.fail("deck", f"{len(cards)} cards, at most {d} for this config")
    st.deck[0, :] = 0
    st.deck[0, d - len(cards):] = cards
    st.deck_pos[0] = d - len(cards)
    st.ropes_left[0] = src.number("ropes", 0, cfg.rope_tokens, cfg.rope_tokens)


def _turn(src: _Text, st: State, seat_of: dict[str, int]) -> None:
    """Whose turn, its AP, the round, the dice script and the switches."""
    cfg = src.cfg
    st.out_of_time[0] = src.switch("out-of-time")
    st.gas_active[0] = src.switch("gas")
    st.exerted[0] = src.switch("exerted")
    words = src.keys.get("dice", "").split()
    if len(words) > FORCED or not all(w in "123456" and len(w) == 1 for w in words):
        raise src.fail("dice", f"at most {FORCED} faces 1..6, got {words}")
    st.forced[0, :len(words)] = [int(w) for w in words]
    st.round[0] = src.number("round", 1, 10_000, 1)
    for key in ("start", "actor"):
        if key in src.keys and src.keys[key] not in seat_of:
            raise src.fail(key, f"{src.keys[key]!r} is not among the cavers {sorted(seat_of)}")
    st.start_seat[0] = seat_of[src.keys.get("start", CAVER_NAMES[st.c_rank[0, 0] - 1])]
    actor = src.keys.get("actor", CAVER_NAMES[st.c_rank[0, st.start_seat[0]] - 1])
    st.actor[0] = seat_of[actor]
    st.ap[0] = src.number("ap", 0, cfg.action_points, cfg.action_points)


RESET_OPTIONS = ("scenario",)


def from_options(options: Any, core: Core, seats: int | None = None) -> State | None:
    """The one-game State that a reset's ``options`` ask for, or None for an ordinary new game.

    ``options={"scenario": text}`` (every interface's ``reset`` takes it: the AEC env, the gymnasium vector env)
    starts from the scenario map; ``seats``: the table size the interface was built for (its observation and
    agent layout), which the scenario must seat. A scenario of the wrong type or size is an error naming it;
    unknown option keys are ignored with a warning naming them."""
    if options is None:
        return None
    if not isinstance(options, Mapping):
        raise TypeError(f"reset options must be a dict, got {type(options).__name__}")
    unknown = sorted(set(options) - set(RESET_OPTIONS))
    if unknown:  # a warning, not an error: PettingZoo's api_test resets with options it made up
        warnings.warn(f"reset option(s) {unknown} ignored: known options {list(RESET_OPTIONS)} (scenario: a scenario "
                      "text, see subterra_env.scenario)", UserWarning, stacklevel=3)
    if "scenario" not in options:
        return None
    text = options["scenario"]
    if not isinstance(text, str):
        raise ScenarioError(f"options['scenario'] must be scenario text (a str), got {type(text).__name__}")
    st = build(text, core=core)
    if seats is not None and st.c_rank.shape[1] != seats:
        raise ScenarioError(f"the scenario seats {st.c_rank.shape[1]} cavers but this environment plays {seats} "
                            "(num_cavers): list that many on the 'cavers:' line")
    return st


def names_seed(text: str) -> bool:
    """Whether scenario text fixes its dice stream with a ``seed:`` line."""
    return "seed" in parse_sections(text)[1]


def _pick_tile(cat, used: set[int], ttype: int, shape: str | None, dice: tuple[int, ...], where: str = "") -> int:
    """A catalogue id of this type (and shape, and die numbers) not used yet in the scenario, if any."""
    cands = [i for i in range(len(cat.tile_type)) if cat.tile_type[i] == ttype]
    if not cands:
        raise ScenarioError(f"{where}: the config's catalogue has no {CORE_TILE_TYPES[ttype]!r} tile")
    if dice:
        def numbers(i: int) -> tuple[int, ...]:
            return tuple(sorted({int(cat.die_a[i]), int(cat.die_b[i]), int(cat.die_c[i])} - {0}))

        exact = [i for i in cands if numbers(i) == tuple(sorted(dice))]
        if not exact:
            valid = sorted({"".join(map(str, numbers(i))) for i in cands if numbers(i)}, key=lambda v: (len(v), v))
            what = (f"the {CORE_TILE_TYPES[ttype]!r} type has no die numbers" if not valid else
                    f"valid: {', '.join(valid)}")
            raise ScenarioError(f"{where}: no {CORE_TILE_TYPES[ttype]!r} tile with die numbers "
                                f"{''.join(map(str, dice))} ({what})")
        cands = exact
    if shape:
        same = [i for i in cands if SHAPES[cat.tile_shape[i]] == shape]
        cands = same or cands
    free = [i for i in cands if i not in used]
    pick = (free or cands)[0]
    used.add(pick)
    return pick


def _stack_tile(src: _Text, cat, used: set[int], tok: str, key: str) -> int:
    """A stack (or set-aside) tile ``TYPE[:SHAPE]``: the type's shape must be one it comes in."""
    ttype, _, shape = tok.partition(":")
    where = f"{src.line(key)}: tile {tok!r}"
    if ttype in SCENARIO_TYPES and ttype not in _types(cat):
        src.needs(where, f"the tile type {ttype!r}", SCENARIO_TYPES[ttype])
    if ttype not in _types(cat) or (shape and shape not in SHAPES):
        raise ScenarioError(f"{where}: TYPE[:SHAPE] with a type of {_types(cat)}, shape of {SHAPES}")
    code = CORE_TILE_TYPES.index(ttype)
    have = _type_shapes(cat, code)
    if shape and shape not in have:
        raise ScenarioError(f"{where}: {_a(ttype)} tile is shaped {' or '.join(have)}, not {shape}")
    return _pick_tile(cat, used, code, shape or None, (), where)


def _types(cat) -> tuple[str, ...]:
    """The tile types a scenario map of this config may name: the base game's, and its scenario's own."""
    own = {SC_ANNIHILATION: "bomb", SC_EXTRACTION: "sanctuary", SC_INVESTIGATION: "item"}.get(int(cat.scenario))
    return TILE_TYPES + ((own,) if own else ())


def _monsters(src: _Text, st: State, tile_at) -> None:
    """Horrors and (Extraction) leapers, each kind's slots oldest first; spawn stamps in Extraction."""
    extraction = src.scenario == "extraction"
    born = 0
    for name, tiles, stamps in (("horrors", st.h_tile, st.h_born), ("leapers", st.l_tile, st.l_born)):
        refs = src.keys.get(name, "").split()
        if len(refs) > 3:
            raise src.fail(name, f"at most 3, got {len(refs)}")
        ranked = []
        for i, ref in enumerate(refs):
            cell, colon, order = ref.partition(":")
            if colon and not extraction:
                src.needs(f"{src.line(name)}: {ref!r}", "a spawn order (':N')", "extraction")
            n = src.number("spawn order", 0, 99, 0, f"{src.line(name)}: {ref!r}", order) if colon else born + i
            ranked.append((n, tile_at(cell, name)))
        born += len(refs)
        for k, (order, t) in enumerate(sorted(ranked)):
            tiles[0, k] = t
            if extraction:
                stamps[0, k] = order
    if extraction:
        st.born_n[0] = max([born] + [int(v) + 1 for v in np.concatenate([st.h_born[0], st.l_born[0]])])


def _item(src: _Text, name: str, where: str) -> int:
    src.needs(f"{where}: item {name!r}", "items", "investigation")
    if name.replace("-", " ") not in ITEM_NAMES:
        raise ScenarioError(f"{where}: item {name!r}: one of {[n.replace(' ', '-') for n in ITEM_NAMES]}")
    return ITEM_NAMES.index(name.replace("-", " "))


def _investigation(src: _Text, st: State, seat_of: dict[str, int]) -> None:
    """Investigation's item deck (top first), doom pending, the Spare Batteries active; the items neither held nor
    in the deck are out of the game (R-INV-2, R-INV-3, R-INV-9)."""
    if src.scenario != "investigation":
        return  # its keys and options were refused, naming the scenario
    deck = [_item(src, v, src.line("items")) for v in src.keys.get("items", "").split()]
    held = int(np.bitwise_or.reduce(st.c_items[0].astype(np.int64)))
    if len(set(deck)) != len(deck) or any((held >> i) & 1 for i in deck) or any(
            (int(a) & int(b)).bit_count() for j, a in enumerate(st.c_items[0]) for b in st.c_items[0, j + 1:]):
        raise ScenarioError("items: each item is in one place only (the deck or one caver's hand, R-INV-2)")
    st.i_deck[0, :] = -1
    st.i_deck[0, NUM_ITEMS - len(deck):] = deck
    st.i_pos[0] = NUM_ITEMS - len(deck)
    in_deck = sum(1 << i for i in deck)
    st.i_out[0] = ALL_ITEMS & ~(held | in_deck)
    st.doom[0] = src.switch("doom")
    for name in src.keys.get("battery", "").split():
        if name not in seat_of:
            raise src.fail("battery", f"{name!r} is not among the cavers {sorted(seat_of)}")
        st.battery[0] |= 1 << seat_of[name]


def _card(src: _Text, tok: str) -> int:
    where = f"{src.line('deck')}: card {tok!r}"
    if tok == "out-of-time":
        return C_OUT_OF_TIME
    if tok == "doom":
        src.needs(where, "'doom'", "investigation")
        return C_DOOM
    if tok in ("leaper", "leaper:x2"):
        src.needs(where, f"{tok!r}", "extraction")
        return C_LEAPER_X2 if tok.endswith("x2") else C_LEAPER
    name, _, sev = tok.partition(":")
    if name not in HAZARDS or sev not in ("", "x2"):
        raise ScenarioError(f"{where}: one of {HAZARDS} (':x2' for severe), 'out-of-time', in Extraction "
                            "'leaper' ('leaper:x2'), in Investigation 'doom'")
    return HAZARDS.index(name) + (X2 if sev else 0)


__all__ = ["ScenarioError", "build"]
