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
``^ > v <`` a ledge or slide arrow (N, E, S, W), two digits for cave-in die numbers, and ``n e s w`` for an
explosives token on that side (the side is then open too); in Annihilation also the type ``bomb``, three digits
for an unstable cave-in tile and ``B`` for a bomb token; in Extraction the type ``sanctuary``. Coordinates are
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
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from .config import CAVER_NAMES, HAZARDS, SHAPES, TILE_TYPES, GameConfig
from .core import rng
from .core.board import relink
from .core.catalogue import (ALL_ITEMS, BIT, C_DOOM, C_LEAPER, C_LEAPER_X2, C_OUT_OF_TIME, CORE_TILE_TYPES, ITEM_NAMES,
                             NUM_ITEMS, X2)
from .core.rules import Core
from .core.state import FORCED, State, alloc

ARROWS = {"^": 0, ">": 1, "v": 2, "<": 3}


class ScenarioError(ValueError):
    """The scenario text is malformed; the message names the line or token."""


def _shape_of(sides: int) -> str:
    count = bin(sides).count("1")
    if count == 2:
        return "I" if sides in (0b0101, 0b1010) else "L"
    return {4: "4", 3: "T", 1: "D"}.get(count, "D")


def parse_sections(text: str) -> tuple[list[str], dict[str, str]]:
    rows: list[str] = []
    keys: dict[str, str] = {}
    in_map = False
    for raw in text.strip("\n").splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if line.strip() == "map:":
            in_map = True
            continue
        if in_map and raw.startswith((" ", "\t")):
            rows.append(line.strip())
            continue
        in_map = False
        if ":" not in line:
            raise ScenarioError(f"line {raw!r}: expected 'key: value'")
        k, v = line.split(":", 1)
        keys[k.strip()] = v.strip()
    if not rows:
        raise ScenarioError("no 'map:' section with indented rows")
    return rows, keys


def build(text: str, cfg: GameConfig | None = None, core: Core | None = None) -> State:
    """A one-game State from scenario text (see the module docstring)."""
    core = core or Core(cfg)
    cfg, cat = core.cfg, core.cat
    rows, keys = parse_sections(text)
    known = {"cavers", "horrors", "leapers", "stack", "deck", "actor", "ap", "exerted", "round", "start", "gas",
             "out-of-time", "seed", "dice", "ropes", "aside", "redraws", "explosives", "items", "doom", "battery"}
    if set(keys) - known:
        raise ScenarioError(f"unknown keys {sorted(set(keys) - known)}; known: {sorted(known)}")
    cavers = keys.get("cavers", "").split()
    if not cavers:
        raise ScenarioError("'cavers:' lists no caver")
    st = alloc(1, len(cavers), cat.max_tiles, cat.stack_size, cat.deal_size + 1)
    st.key[:] = rng.seed_keys(np.array([int(keys.get("seed", 0))]))
    used: set[int] = set()

    # Tiles: start first, then reading order.
    cells = [(x, y, tok) for y, row in enumerate(rows) for x, tok in enumerate(row.split()) if tok != "."]
    cells.sort(key=lambda c: not c[2].startswith("start"))
    origin = cat.stack_size + 1
    start_xy = next(((x, y) for x, y, tok in cells if tok.startswith("start")), (cells[0][0], cells[0][1]))
    pos: dict[tuple[int, int], int] = {}
    for i, (x, y, tok) in enumerate(cells):
        parts = tok.split(":")
        ttype = parts[0]
        if ttype not in _types(cat):
            raise ScenarioError(f"tile {tok!r} at {x},{y}: type must be one of {_types(cat)}")
        sides = sum(int(BIT[i_]) for i_, c in enumerate("NESW") if c in (parts[1] if len(parts) > 1 else ""))
        marks = parts[2] if len(parts) > 2 else ""
        dice = tuple(int(c) for c in marks if c.isdigit())
        cid = _pick_tile(cat, used, CORE_TILE_TYPES.index(ttype), _shape_of(sides), dice)
        st.t_cat[0, i] = cid
        st.t_type[0, i] = CORE_TILE_TYPES.index(ttype)
        st.t_bomb[0, i] = "B" in marks
        st.t_item[0, i] = "I" in marks
        st.t_x[0, i], st.t_y[0, i] = origin + x - start_xy[0], origin + y - start_xy[1]
        st.t_open[0, i] = sides
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
        pos[(x, y)] = i
    st.n_tiles[0] = len(cells)
    relink(st, np.array([0]), core.params)

    def tile_at(ref: str) -> int:
        try:
            x, y = (int(v) for v in ref.split(","))
            return pos[(x, y)]
        except (ValueError, KeyError):
            raise ScenarioError(f"{ref!r} is not the column,row of a tile on the map") from None

    # Cavers
    for s, tok in enumerate(cavers):
        name, *opts = tok.split(":")
        name, _, at = name.partition("@")
        if name not in CAVER_NAMES:
            raise ScenarioError(f"caver {name!r}: must be one of {CAVER_NAMES}")
        rank = CAVER_NAMES.index(name) + 1
        st.c_rank[0, s] = rank
        st.c_max[0, s] = st.c_hp[0, s] = cfg.caver_health[rank - 1]
        if "dead" in opts:
            st.c_dead[0, s], st.c_tile[0, s], st.c_hp[0, s] = True, -1, 0
        elif "under" in opts:
            st.c_under[0, s], st.c_tile[0, s] = True, -1
        else:
            st.c_tile[0, s] = tile_at(at)
        for o in opts:
            if o.startswith("hp="):
                st.c_hp[0, s] = int(o[3:])
            if o.startswith("bombs="):
                st.c_bombs[0, s] = int(o[6:])
            if o.startswith("samples="):
                st.c_samples[0, s] = int(o[8:])
            if o.startswith("items="):
                for item in (_item(cfg, v) for v in o[6:].split(",") if v):
                    st.c_items[0, s] |= 1 << item
        st.c_hidden[0, s] = "hidden" in opts
    _monsters(keys, cfg, st, tile_at)

    # Stack (top first) and deck (top first), placed at the end of their arrays.
    stack = keys.get("stack", "").split()
    ids = [_stack_tile(cat, used, tok) for tok in stack]
    st.aside_tile[0] = _stack_tile(cat, used, keys["aside"]) if "aside" in keys else -1
    st.scout_redraws[0] = int(keys.get("redraws", cfg.scout_redraws))
    st.explosives[0] = int(keys.get("explosives", cfg.explosives))
    n = st.stack.shape[1]
    st.stack_pos[0] = n - len(ids)
    st.stack[0, n - len(ids):] = ids
    cards = [_card(tok, cfg) for tok in keys.get("deck", "").split()]
    d = st.deck.shape[1]
    if len(cards) > d:
        raise ScenarioError(f"deck: {len(cards)} cards, at most {d} for this config")
    st.deck[0, :] = 0
    st.deck[0, d - len(cards):] = cards
    st.deck_pos[0] = d - len(cards)
    st.out_of_time[0] = keys.get("out-of-time", "off") == "on"
    st.gas_active[0] = keys.get("gas", "off") == "on"
    st.ropes_left[0] = int(keys.get("ropes", cfg.rope_tokens))
    dice = [int(v) for v in keys.get("dice", "").split()]
    if len(dice) > FORCED or not all(1 <= v <= 6 for v in dice):
        raise ScenarioError(f"dice: at most {FORCED} faces 1..6, got {dice}")
    st.forced[0, :len(dice)] = dice

    seat_of = {CAVER_NAMES[r - 1]: s for s, r in enumerate(st.c_rank[0])}
    _investigation(keys, cfg, st, seat_of)
    st.round[0] = int(keys.get("round", 1))
    st.start_seat[0] = seat_of[keys.get("start", CAVER_NAMES[st.c_rank[0, 0] - 1])]
    actor = keys.get("actor", CAVER_NAMES[st.c_rank[0, st.start_seat[0]] - 1])
    if actor not in seat_of:
        raise ScenarioError(f"actor {actor!r} is not among the cavers {sorted(seat_of)}")
    st.actor[0] = seat_of[actor]
    st.ap[0] = int(keys.get("ap", cfg.action_points))
    st.exerted[0] = keys.get("exerted", "no") == "yes"
    return st


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


def _pick_tile(cat, used: set[int], ttype: int, shape: str | None, dice: tuple[int, ...]) -> int:
    """A catalogue id of this type (and shape, and die numbers) not used yet in the scenario, if any."""
    cands = [i for i in range(len(cat.tile_type)) if cat.tile_type[i] == ttype]
    if not cands:
        raise ScenarioError(f"the config's catalogue has no {CORE_TILE_TYPES[ttype]!r} tile")
    if len(dice) in (2, 3):
        exact = [i for i in cands if {int(cat.die_a[i]), int(cat.die_b[i]), int(cat.die_c[i])} - {0} == set(dice)]
        if not exact:
            raise ScenarioError(f"no cave-in tile with die numbers {dice}")
        cands = exact
    if shape:
        same = [i for i in cands if SHAPES[cat.tile_shape[i]] == shape]
        cands = same or cands
    free = [i for i in cands if i not in used]
    pick = (free or cands)[0]
    used.add(pick)
    return pick


def _stack_tile(cat, used: set[int], tok: str) -> int:
    ttype, _, shape = tok.partition(":")
    if ttype not in _types(cat) or (shape and shape not in SHAPES):
        raise ScenarioError(f"stack tile {tok!r}: TYPE[:SHAPE] with a type of {_types(cat)}, shape of {SHAPES}")
    return _pick_tile(cat, used, CORE_TILE_TYPES.index(ttype), shape or None, ())


def _types(cat) -> tuple[str, ...]:
    """The tile types a scenario map of this config may name: the base game's, and its scenario's own."""
    return CORE_TILE_TYPES if cat.scenario else TILE_TYPES


def _monsters(keys: dict[str, str], cfg: GameConfig, st: State, tile_at) -> None:
    """Horrors and (Extraction) leapers, each kind's slots oldest first; spawn stamps in Extraction."""
    born = 0
    for name, tiles, stamps in (("horrors", st.h_tile, st.h_born), ("leapers", st.l_tile, st.l_born)):
        refs = keys.get(name, "").split()
        if name == "leapers" and refs and cfg.scenario != "extraction":
            raise ScenarioError("'leapers:' needs scenario 'extraction' (R-EXT)")
        if len(refs) > 3:
            raise ScenarioError(f"{name}: at most 3, got {len(refs)}")
        ranked = []
        for i, ref in enumerate(refs):
            cell, _, order = ref.partition(":")
            ranked.append((int(order) if order else born + i, tile_at(cell)))
        born += len(refs)
        for k, (order, t) in enumerate(sorted(ranked)):
            tiles[0, k] = t
            if cfg.scenario == "extraction":
                stamps[0, k] = order
    if cfg.scenario == "extraction":
        st.born_n[0] = max([born] + [int(v) + 1 for v in np.concatenate([st.h_born[0], st.l_born[0]])])


def _item(cfg: GameConfig, name: str) -> int:
    if cfg.scenario != "investigation":
        raise ScenarioError(f"item {name!r}: items need scenario 'investigation' (R-INV)")
    if name.replace("-", " ") not in ITEM_NAMES:
        raise ScenarioError(f"item {name!r}: one of {[n.replace(' ', '-') for n in ITEM_NAMES]}")
    return ITEM_NAMES.index(name.replace("-", " "))


def _investigation(keys: dict[str, str], cfg: GameConfig, st: State, seat_of: dict[str, int]) -> None:
    """Investigation's item deck (top first), doom pending, the Spare Batteries active; the items neither held nor
    in the deck are out of the game (R-INV-2, R-INV-3, R-INV-9)."""
    deck = [_item(cfg, v) for v in keys.get("items", "").split()]
    held = int(np.bitwise_or.reduce(st.c_items[0].astype(np.int64)))
    if len(set(deck)) != len(deck) or any((held >> i) & 1 for i in deck) or any(
            bin(int(a) & int(b)).count("1") for j, a in enumerate(st.c_items[0]) for b in st.c_items[0, j + 1:]):
        raise ScenarioError("items: each item is in one place only (the deck or one caver's hand, R-INV-2)")
    for k in ("doom", "battery"):
        if k in keys and cfg.scenario != "investigation":
            raise ScenarioError(f"'{k}:' needs scenario 'investigation' (R-INV)")
    if cfg.scenario != "investigation":
        return
    st.i_deck[0, :] = -1
    st.i_deck[0, NUM_ITEMS - len(deck):] = deck
    st.i_pos[0] = NUM_ITEMS - len(deck)
    in_deck = sum(1 << i for i in deck)
    st.i_out[0] = ALL_ITEMS & ~(held | in_deck)
    st.doom[0] = keys.get("doom", "off") == "on"
    for name in keys.get("battery", "").split():
        if name not in seat_of:
            raise ScenarioError(f"battery: {name!r} is not among the cavers {sorted(seat_of)}")
        st.battery[0] |= 1 << seat_of[name]


def _card(tok: str, cfg: GameConfig) -> int:
    if tok == "out-of-time":
        return C_OUT_OF_TIME
    if tok == "doom" and cfg.scenario == "investigation":
        return C_DOOM
    if tok in ("leaper", "leaper:x2") and cfg.scenario == "extraction":
        return C_LEAPER_X2 if tok.endswith("x2") else C_LEAPER
    name, _, sev = tok.partition(":")
    if name not in HAZARDS or sev not in ("", "x2"):
        raise ScenarioError(f"card {tok!r}: one of {HAZARDS} (':x2' for severe), 'out-of-time', in Extraction "
                            "'leaper' ('leaper:x2'), in Investigation 'doom'")
    return HAZARDS.index(name) + (X2 if sev else 0)


__all__ = ["build", "ScenarioError"]
