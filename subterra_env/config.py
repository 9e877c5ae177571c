"""GameConfig: every [default] of RULES.md as a validated, frozen setting.

A config is data. The rules core reads nothing else, so two games with equal configs and equal seeds are the
same game. Unknown keys and out-of-range values raise :class:`ConfigError` naming the key and what is allowed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

CAVER_NAMES: tuple[str, ...] = (
    "diver", "scout", "geologist", "engineer", "climber", "medic", "bodyguard", "leader",
)  # index + 1 is the caver's rank number (R-SET-1)

TILE_TYPES: tuple[str, ...] = (
    "start", "exit", "normal", "water", "gas", "cave-in", "horror", "squeeze", "ledge", "slide", "rough",
)
SHAPES: tuple[str, ...] = ("4", "T", "L", "I", "D")  # crossing, three, corner, straight, dead end

HAZARDS: tuple[str, ...] = ("tremor", "flood", "cave-in", "gas", "horror")
DIFFICULTIES: tuple[str, ...] = ("easier", "normal", "advanced", "expert")
# The expansion scenarios of RULES_VAR.md, one at a time; "base" is the rulebook game (R-VAR).
SCENARIOS: tuple[str, ...] = ("base", "annihilation", "extraction", "investigation")
BUILT_SCENARIOS: tuple[str, ...] = ("base", "annihilation", "extraction", "investigation")
# The settings the scenarios added (read only by a scenario's rules): configs recorded before them lack them.
SCENARIO_SETTINGS: tuple[str, ...] = ("scenario", "unstable_cave_in_numbers", "bomb_seats", "place_bomb_cost",
                                      "transfer_cost", "leaper_cards", "leaper_x2_cards", "leaper_limit",
                                      "sanctuary_blocks_horrors", "biosamples", "biosample_seats", "doom_cards",
                                      "item_cost", "gas_mask_keeps", "explicit_reactions")

# R-TILE catalogue [default]: counts per (type, shape).
DEFAULT_TILES: dict[str, dict[str, int]] = {
    "normal": {"4": 3, "T": 3, "L": 4, "I": 4, "D": 2},
    "water": {"4": 2, "T": 2, "I": 4},
    "gas": {"T": 2, "L": 5, "I": 1},
    "cave-in": {"T": 8, "L": 4},
    "horror": {"L": 2, "D": 6},
    "squeeze": {"I": 3},
    "ledge": {"I": 3},
    "slide": {"I": 3},
    "rough": {"4": 3},
}

# R-TILE-5 [default]: the 12 cave-in tiles' die pairs: all 15 pairs of 1..6 minus the matching {16, 25, 34},
# so each face appears on exactly four tiles.
DEFAULT_CAVE_IN_NUMBERS: tuple[tuple[int, int], ...] = (
    (1, 2), (1, 3), (1, 4), (1, 5), (2, 3), (2, 4), (2, 6), (3, 5), (3, 6), (4, 5), (4, 6), (5, 6),
)

# R-HZ-0 [default]: basic counts; one x2 card of each type.
DEFAULT_HAZARD_DECK: dict[str, int] = {"tremor": 7, "flood": 5, "cave-in": 5, "gas": 4, "horror": 4}
DEFAULT_SEVERE_DECK: dict[str, int] = {"tremor": 1, "flood": 1, "cave-in": 1, "gas": 1, "horror": 1}
DEFAULT_REMOVALS: dict[str, dict[str, int]] = {
    "easier": {"x2": 5},
    "normal": {"x2": 5},
    "advanced": {"tremor": 3},
    "expert": {"tremor": 3, "flood": 1, "gas": 1},
}
# R-SET-5: cards dealt per table size and difficulty (easier = normal + easier_extra_cards).
DEFAULT_DEAL: dict[int, dict[str, int]] = {
    4: {"normal": 22, "advanced": 20, "expert": 18},
    5: {"normal": 19, "advanced": 17, "expert": 15},
    6: {"normal": 17, "advanced": 15, "expert": 13},
}


class ConfigError(ValueError):
    """A setting is unknown or out of range; the message names the key and what is allowed."""


class ConfigTypeError(ConfigError, TypeError):
    """A setting has the wrong type (``num_cavers="4"``); a ConfigError and a TypeError."""


def _frozen(d: Mapping[str, Any]) -> tuple:
    return tuple(sorted((k, _frozen(v) if isinstance(v, Mapping) else v) for k, v in d.items()))


@dataclass(frozen=True)
class GameConfig:
    """All game settings. Field docs give the rule ID; values marked [default] in RULES.md are settings here."""

    # --- table (R-SET-1, R-SET-5, R-SET-6)
    num_cavers: int = 4
    """4, 5 or 6 cavers (R-SET-1)."""
    cavers: tuple[str, ...] | None = None
    """A fixed list of caver names, or None for a seeded random draw per game [default]."""
    difficulty: str = "normal"
    """easier / normal / advanced / expert (R-SET-5, R-HZ-0)."""
    seat_order: str = "rank"
    """'rank' (ascending rank number) [default] or 'random' (seeded per game) (R-SET-6)."""

    # --- health and checks (R-SET-2, R-ACT-1..3)
    health: int = 3
    bodyguard_health: int = 5
    """[default] 5 (the French summary says 4)."""
    action_points: int = 2
    skill_target: int = 4
    """A d6 roll of this or more passes a skill check (R-ACT-3)."""
    leader_bonus: int = 1

    # --- action costs (R-ACT-5..14)
    explore_cost: int = 1
    """[default] 1 (the French summary says 2)."""
    heal_cost: int = 2
    """[default] 2 (the English summary says 1)."""
    run_steps: int = 3
    rope_tokens: int = 6
    ropes_per_tile: int = 1
    no_effect_actions_illegal: bool = True
    """R-ACT-15 [default]: actions that cannot have any effect are masked out."""
    hide_third_round_auto: bool = False
    """R-ACT-14 variant [default off]: the third consecutive round of Hide succeeds automatically."""

    # --- tiles (R-TILE, R-SET-3/4, R-CON-4)
    tiles: Mapping[str, Mapping[str, int]] = field(default_factory=lambda: DEFAULT_TILES)
    start_shape: str = "4"
    exit_shape: str = "D"
    exit_in_last: int = 6
    """The exit is one of the last N tiles of the stack (R-SET-4; the Spanish text reads as seven)."""
    cave_in_numbers: tuple[tuple[int, int], ...] = DEFAULT_CAVE_IN_NUMBERS
    exit_never_discarded: bool = True

    # --- hazards (R-HZ)
    hazard_deck: Mapping[str, int] = field(default_factory=lambda: DEFAULT_HAZARD_DECK)
    severe_deck: Mapping[str, int] = field(default_factory=lambda: DEFAULT_SEVERE_DECK)
    removals: Mapping[str, Mapping[str, int]] = field(default_factory=lambda: DEFAULT_REMOVALS)
    deal: Mapping[int, Mapping[str, int]] = field(default_factory=lambda: DEFAULT_DEAL)
    easier_extra_cards: int = 3
    flood_damage: int = 1
    gas_damage: int = 2
    gas_enter_damage: int = 2
    """[default] 2 (the English summary says 3); Gas x2 leaves it at 2."""
    cave_in_damage: int = 3
    """[default] 3 (the English summary says 4)."""
    tremor_damage: int = 1
    engineer_cave_in_damage: int = 1
    """R-CAV-4 Vigilant: what a cave-in costs the Engineer."""
    sprint_steps: int = 2
    """R-CAV-6: Move steps in the Medic's Sprint."""
    scout_redraws: int = 3
    """R-CAV-2: Sense of direction uses per game."""
    scout_may_discard_exit: bool = False
    """R-CAV-2 [default]: the Scout never discards the exit tile."""
    explosives: int = 3
    """R-CAV-4: the Engineer's explosives tokens."""
    diver_surface_whole_turn: bool = False
    """R-CAV-1 [default off]: surfacing takes the Diver's whole turn (French summary) instead of 1 AP."""

    # --- horrors (R-HOR)
    horror_limit: int = 3
    horror_range: int = 7
    horror_path_tiebreak: str = "NESW"
    """[default] between equally short paths, the first direction in this order (N, E, S, W)."""
    spawn_tiebreak: str = "placement"
    """[default] between equally close horror tiles, the one placed first."""

    # --- game end (R-RND)
    exit_counts_in_cave: bool = False
    """R-RND-3 option [default off]: cavers on the exit still count as in the cave while conscious."""

    # --- expansion scenarios (RULES_VAR.md)
    scenario: str = "base"
    """'base' (the rulebook game) [default], 'annihilation' (R-ANN), 'extraction' (R-EXT) or 'investigation'
    (R-INV); one at a time."""
    unstable_cave_in_numbers: tuple[tuple[int, ...], ...] = ((1, 2, 3), (4, 5, 6))
    """R-ANN-3 [default]: the die faces of Annihilation's unstable cave-in tiles (three each)."""
    bomb_seats: tuple[int, ...] | None = None
    """R-ANN-5: the seats dealt a bomb card, or None for 3 different seats drawn by the game seed [default]."""
    place_bomb_cost: int = 1
    """R-ANN-6 [default]: AP of Place Bomb."""
    transfer_cost: int = 1
    """R-ANN-7 [default]: AP of Transfer (give a card, or take one from an unconscious caver)."""
    leaper_cards: int = 5
    """R-EXT-2 (box): basic Leaper hazard cards added to Extraction's pool after the difficulty removals."""
    leaper_x2_cards: int = 1
    """R-EXT-2 (box): Leaper x2 cards; removed at the difficulties that remove x2 cards (Easier, Normal)."""
    leaper_limit: int = 3
    """R-EXT-4 (box: 3 pieces): leapers in the cave at once, besides the horrors."""
    sanctuary_blocks_horrors: bool = False
    """R-EXT-7 option [default off]: horrors may not enter the sanctuary either (their paths avoid it)."""
    biosamples: bool = False
    """R-EXT-9 [default off]: 3 biosample cards dealt; all must be held on the exit at the end, else Defeat."""
    biosample_seats: tuple[int, ...] | None = None
    """R-EXT-9: the seats dealt a biosample, or None for 3 different seats drawn by the game seed [default]."""
    doom_cards: int = 3
    """R-INV-2 (box): Doom hazard cards added to Investigation's pool after the difficulty removals."""
    item_cost: int = 1
    """R-INV-5 [default]: AP of using an action item other than Signal Booster, Spare Battery and Adrenaline (0)."""
    gas_mask_keeps: bool = False
    """R-INV-18 setting [default off]: the Gas Mask holder loses 1 instead and keeps the card."""
    explicit_reactions: bool = False
    """R-INV-5 setting [default off]: the Gas Mask as a yes/no decision of its holder when gas would hurt it
    (Investigation only); off, it fires by itself."""

    def __post_init__(self) -> None:
        _validate(self)

    # Mappings are hashable through their items, so configs can key caches.
    def __hash__(self) -> int:
        return hash(tuple(_frozen(v) if isinstance(v, Mapping) else v
                          for v in dataclasses.astuple(self, tuple_factory=tuple)))

    @property
    def caver_health(self) -> tuple[int, ...]:
        """Start health per rank (index = rank - 1)."""
        return tuple(self.bodyguard_health if n == "bodyguard" else self.health for n in CAVER_NAMES)

    @property
    def deal_size(self) -> int:
        base = self.deal[self.num_cavers]["normal" if self.difficulty == "easier" else self.difficulty]
        return base + (self.easier_extra_cards if self.difficulty == "easier" else 0)

    def replace(self, **changes: Any) -> "GameConfig":
        return from_dict({**to_dict(self), **changes})


def _fail(key: str, value: Any, allowed: str) -> None:
    raise ConfigError(f"setting {key!r}={value!r} is out of range: allowed {allowed}")


def _check_int(key: str, value: Any) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigTypeError(f"setting {key!r}={value!r} has type {type(value).__name__}: expected an integer")


def unknown_settings_error(unknown: Any, env_keys: Any = ()) -> ConfigError:
    """The error for unknown keywords: lists the game settings and, when given, the interface's own keywords."""
    import difflib

    names = sorted(f.name for f in dataclasses.fields(GameConfig))
    close = sorted({m for k in unknown for m in difflib.get_close_matches(str(k), names + list(env_keys), n=2)})
    msg = f"unknown setting(s) {sorted(unknown)}"
    if close:
        msg += f" (did you mean {', '.join(map(repr, close))}?)"
    msg += f"; known settings: {names}"
    if env_keys:
        msg += f"; environment settings: {sorted(env_keys)}"
    return ConfigError(msg)


def _validate(c: GameConfig) -> None:
    _check_int("num_cavers", c.num_cavers)
    if c.num_cavers not in (4, 5, 6):
        _fail("num_cavers", c.num_cavers, "4, 5 or 6")
    if c.cavers is not None:
        if not isinstance(c.cavers, tuple):
            object.__setattr__(c, "cavers", tuple(c.cavers))
        bad = [n for n in c.cavers if n not in CAVER_NAMES]
        if bad:
            _fail("cavers", c.cavers, f"names from {CAVER_NAMES}")
        if len(set(c.cavers)) != len(c.cavers) or len(c.cavers) != c.num_cavers:
            _fail("cavers", c.cavers, f"{c.num_cavers} distinct caver names (num_cavers)")
    if c.difficulty not in DIFFICULTIES:
        _fail("difficulty", c.difficulty, str(DIFFICULTIES))
    if c.seat_order not in ("rank", "random"):
        _fail("seat_order", c.seat_order, "'rank' or 'random'")
    for key, lo, hi in (("health", 1, 9), ("bodyguard_health", 1, 9), ("action_points", 1, 5),
                        ("skill_target", 1, 7), ("leader_bonus", 0, 6), ("explore_cost", 1, 2),
                        ("heal_cost", 1, 2), ("run_steps", 1, 5), ("rope_tokens", 0, 66),
                        ("ropes_per_tile", 1, 1), ("exit_in_last", 1, 65), ("easier_extra_cards", 0, 10),
                        ("flood_damage", 0, 9), ("gas_damage", 0, 9), ("gas_enter_damage", 0, 9),
                        ("cave_in_damage", 0, 9), ("tremor_damage", 0, 9),
                        ("engineer_cave_in_damage", 0, 9), ("sprint_steps", 1, 5),
                        ("scout_redraws", 0, 9), ("explosives", 0, 9), ("horror_limit", 0, 3),
                        ("horror_range", 1, 65)):
        v = getattr(c, key)
        _check_int(key, v)
        if not lo <= v <= hi:
            _fail(key, v, f"an integer in {lo}..{hi}")
    if c.skill_target - c.leader_bonus <= 1:  # the best case of a check is a 1 on the die plus the Leader's bonus
        who = "every caver" if c.skill_target <= 1 else "the Leader"
        raise ConfigError(f"settings skill_target={c.skill_target} and leader_bonus={c.leader_bonus} make {who} pass "
                          "every skill check (a roll of 1 succeeds), so Out of Time never removes it and a game could "
                          "end only by truncation: expected skill_target >= 2 and leader_bonus < skill_target - 1")
    _validate_scenario(c)
    if c.start_shape not in SHAPES:
        _fail("start_shape", c.start_shape, str(SHAPES))
    if c.exit_shape not in SHAPES:
        _fail("exit_shape", c.exit_shape, str(SHAPES))
    if c.horror_path_tiebreak not in ("NESW",):
        _fail("horror_path_tiebreak", c.horror_path_tiebreak, "'NESW'")
    if c.spawn_tiebreak not in ("placement",):
        _fail("spawn_tiebreak", c.spawn_tiebreak, "'placement'")
    _validate_tiles(c)
    _validate_hazards(c)


def _validate_tiles(c: GameConfig) -> None:
    """The cave tiles: known types and shapes, counts, the water tiles' limit, the cave-in numbers, the exit."""
    total = 0
    for ttype, shapes in c.tiles.items():
        if ttype not in TILE_TYPES[2:]:
            _fail("tiles", ttype, f"tile types from {TILE_TYPES[2:]}")
        for shape, n in shapes.items():
            if shape not in SHAPES:
                _fail(f"tiles.{ttype}", shape, f"shapes from {SHAPES}")
            if ttype in ("ledge", "slide") and shape != "I" and n:
                _fail(f"tiles.{ttype}", shape, "'I' only (ledges and slides are straights)")
            if not isinstance(n, int) or n < 0:
                _fail(f"tiles.{ttype}.{shape}", n, "a count >= 0")
            total += n
    if sum(c.tiles.get("water", {}).values()) > 8:
        _fail("tiles.water", dict(c.tiles.get("water", {})), "at most 8 water tiles (the Diver's 'surface 1..8')")
    if total + 1 > 65:
        _fail("tiles", total, "at most 64 cave tiles")
    n_cave_in = sum(c.tiles.get("cave-in", {}).values())
    if len(c.cave_in_numbers) != n_cave_in or any(
            len(p) != 2 or not all(1 <= x <= 6 for x in p) for p in c.cave_in_numbers):
        _fail("cave_in_numbers", c.cave_in_numbers, f"{n_cave_in} pairs of die faces 1..6")
    if c.exit_in_last > total + 1:
        _fail("exit_in_last", c.exit_in_last, f"at most the stack size {total + 1}")


def _validate_hazards(c: GameConfig) -> None:
    """The hazard decks, each difficulty's removals and the deal (sizes the compiled core can hold)."""
    for deck_key, deck in (("hazard_deck", c.hazard_deck), ("severe_deck", c.severe_deck)):
        for k, n in deck.items():
            if k not in HAZARDS or not isinstance(n, int) or n < 0:
                _fail(f"{deck_key}.{k}", n, f"hazards from {HAZARDS} with counts >= 0")
    for diff in DIFFICULTIES:
        if diff not in c.removals:
            _fail("removals", sorted(c.removals), f"an entry for each of {DIFFICULTIES}")
        for k, n in c.removals[diff].items():
            pool = sum(c.severe_deck.values()) if k == "x2" else c.hazard_deck.get(k, 0)
            if k not in HAZARDS + ("x2",) or not 0 <= n <= pool:
                _fail(f"removals.{diff}.{k}", n, f"0..{pool} (keys: hazards or 'x2')")
    if c.num_cavers not in c.deal or not all(d in c.deal[c.num_cavers] for d in DIFFICULTIES[1:]):
        _fail("deal", dict(c.deal), "deal sizes for this table size and normal/advanced/expert")
    removed = sum(c.removals[c.difficulty].values())
    deck_size = sum(c.hazard_deck.values()) + sum(c.severe_deck.values()) - removed
    if not 0 <= c.deal_size <= deck_size:
        _fail("deal", c.deal_size, f"0..{deck_size} cards (the deck after removals)")
    if c.deal_size > 63:  # the compiled core's state holds 64 cards: the deal and Out of Time
        _fail("deal", c.deal_size, "at most 63 cards dealt")
    if deck_size > 128:  # the compiled setup shuffles at most 128 cards
        _fail("hazard_deck", deck_size, "at most 128 cards after removals")


def _validate_scenario(c: GameConfig) -> None:
    if c.scenario not in SCENARIOS:
        _fail("scenario", c.scenario, str(SCENARIOS))
    if c.scenario not in BUILT_SCENARIOS:
        raise ConfigError(f"setting 'scenario'={c.scenario!r} is not built yet: built are {BUILT_SCENARIOS} "
                          "(RULES_VAR.md; issue 18)")
    _validate_extraction(c)
    _validate_investigation(c)
    for key in ("place_bomb_cost", "transfer_cost"):
        _check_int(key, getattr(c, key))
        if not 0 <= getattr(c, key) <= 2:
            _fail(key, getattr(c, key), "an integer in 0..2")
    if not isinstance(c.unstable_cave_in_numbers, tuple):
        object.__setattr__(c, "unstable_cave_in_numbers", tuple(tuple(p) for p in c.unstable_cave_in_numbers))
    if len(c.unstable_cave_in_numbers) != 2 or any(
            len(p) != 3 or not all(isinstance(x, int) and 1 <= x <= 6 for x in p) for p in c.unstable_cave_in_numbers):
        _fail("unstable_cave_in_numbers", c.unstable_cave_in_numbers, "2 triples of die faces 1..6")
    _check_three_seats(c, "bomb_seats")
    if c.scenario == "annihilation":
        n_cave = sum(sum(v.values()) for v in c.tiles.values())
        if n_cave + 2 - ANNIHILATION_REMOVED < 20:  # the bottom pile must hold the 5 tiles the third bomb joins
            _fail("tiles", n_cave, f"at least {ANNIHILATION_REMOVED + 18} cave tiles for Annihilation (R-ANN-3 "
                                   f"removes {ANNIHILATION_REMOVED} of them and the 2 unstable tiles, and splits the "
                                   "rest into 4 piles of at least 5)")


# R-ANN-3: the cave tiles removed unseen before the Annihilation stack is split into piles
ANNIHILATION_REMOVED = 18
# R-EXT-1: the tiles removed unseen from the top of Extraction's shuffled stack (before the exit goes in)
EXTRACTION_REMOVED = 3


def _check_three_seats(c: GameConfig, key: str) -> None:
    """A scenario's 3 cards dealt to fixed seats (``bomb_seats``, ``biosample_seats``): None (seeded) or 3
    different seats of the table, stored as a tuple."""
    seats = getattr(c, key)
    if seats is None:
        return
    if not isinstance(seats, tuple):
        seats = tuple(seats)
        object.__setattr__(c, key, seats)
    if len(seats) != 3 or len(set(seats)) != 3 or not all(isinstance(s, int) and 0 <= s < c.num_cavers for s in seats):
        _fail(key, seats, f"3 different seats in 0..{c.num_cavers - 1}, or None (seeded)")


def _validate_extraction(c: GameConfig) -> None:
    for key, top in (("leaper_cards", 32), ("leaper_x2_cards", 8), ("leaper_limit", 3)):
        _check_int(key, getattr(c, key))
        if not 0 <= getattr(c, key) <= top:
            _fail(key, getattr(c, key), f"an integer in 0..{top}")
    for key in ("sanctuary_blocks_horrors", "biosamples"):
        if not isinstance(getattr(c, key), bool):
            _fail(key, getattr(c, key), "true or false")
    _check_three_seats(c, "biosample_seats")
    if c.biosamples and c.scenario != "extraction":
        _fail("biosamples", c.biosamples, "false outside scenario 'extraction' (R-EXT-9; one scenario at a time)")
    if c.scenario == "extraction":
        n_cave = sum(sum(v.values()) for v in c.tiles.values())
        if n_cave + 3 - EXTRACTION_REMOVED < c.exit_in_last:  # R-EXT-1: the exit goes among the bottom tiles
            _fail("tiles", n_cave, f"at least {c.exit_in_last} cave tiles for Extraction (R-EXT-1)")


def _validate_investigation(c: GameConfig) -> None:
    _check_int("doom_cards", c.doom_cards)
    if not 0 <= c.doom_cards <= 16:
        _fail("doom_cards", c.doom_cards, "an integer in 0..16")
    _check_int("item_cost", c.item_cost)
    if not 0 <= c.item_cost <= 2:
        _fail("item_cost", c.item_cost, "an integer in 0..2")
    for key in ("gas_mask_keeps", "explicit_reactions"):
        if not isinstance(getattr(c, key), bool):
            _fail(key, getattr(c, key), "true or false")
    if c.explicit_reactions and c.scenario != "investigation":  # the Gas Mask exists only there (R-INV-18)
        _fail("explicit_reactions", c.explicit_reactions, f"false outside scenario 'investigation' (R-INV-5: it makes "
              f"Investigation's Gas Mask a decision; this config's scenario is {c.scenario!r})")
    if c.scenario == "investigation":
        n_cave = sum(sum(v.values()) for v in c.tiles.values())
        if n_cave + 3 - INVESTIGATION_REMOVED < c.exit_in_last:  # R-INV-1: the exit goes among the bottom tiles
            _fail("tiles", n_cave, f"at least {c.exit_in_last} cave tiles for Investigation (R-INV-1)")
        removed = sum(c.removals[c.difficulty].values())
        deck_size = sum(c.hazard_deck.values()) + sum(c.severe_deck.values()) - removed + c.doom_cards
        if deck_size > 128:
            _fail("doom_cards", c.doom_cards, "a pool of at most 128 cards with the Doom cards (R-INV-2)")


# R-INV-1: the tiles removed unseen from the top of Investigation's shuffled stack (before the exit goes in)
INVESTIGATION_REMOVED = 3


def from_dict(d: Mapping[str, Any], env_keys: tuple[str, ...] = ()) -> GameConfig:
    """Build a config from plain data (YAML); unknown keys are errors (listing ``env_keys`` too, the keywords of
    the interface that was called, when given)."""
    names = {f.name for f in dataclasses.fields(GameConfig)}
    unknown = sorted(set(d) - names)
    if unknown:
        raise unknown_settings_error(unknown, env_keys)
    d = dict(d)
    if d.get("cavers") is not None:
        d["cavers"] = tuple(d["cavers"])
    for key in ("cave_in_numbers", "unstable_cave_in_numbers"):
        if key in d:
            d[key] = tuple(tuple(p) for p in d[key])
    for key in ("bomb_seats", "biosample_seats"):
        if d.get(key) is not None:
            d[key] = tuple(d[key])
    if "deal" in d:
        d["deal"] = {int(k): v for k, v in d["deal"].items()}
    try:
        return GameConfig(**d)
    except ConfigError:
        raise
    except TypeError as e:  # wrong value types that dataclass init rejects
        raise ConfigError(str(e)) from e


def to_dict(c: GameConfig) -> dict[str, Any]:
    return {f.name: getattr(c, f.name) for f in dataclasses.fields(c)}


def _deal(n4: tuple[int, int, int], n5: tuple[int, int, int], n6: tuple[int, int, int]) -> dict[int, dict[str, int]]:
    """Cards dealt (normal, advanced, expert) for 4, 5 and 6 cavers."""
    return {n: dict(zip(DIFFICULTIES[1:], row)) for n, row in ((4, n4), (5, n5), (6, n6))}


# Learnable presets (as Hanabi-Small and Very-Small beside the full game): every rule stays, the cave is shorter
# (fewer tiles, so the exit comes out early) and the deck keeps the full game's pressure of about one hazard card
# per three tiles (64 tiles : 22 cards). Easiest first; "full" is the rulebook game.
LEARNABLE_PRESETS: tuple[str, ...] = ("tiny", "small", "medium", "full")
_TINY = {  # 12 cave tiles, the exit among the last 3, 4 hazard cards for 4 cavers
    "tiles": {"normal": {"4": 1, "T": 1, "L": 1, "I": 1}, "water": {"4": 1}, "gas": {"T": 1},
              "cave-in": {"T": 1, "L": 1}, "horror": {"L": 1}, "squeeze": {"I": 1}, "ledge": {"I": 1},
              "rough": {"4": 1}},
    "cave_in_numbers": ((1, 2), (3, 4)), "exit_in_last": 3,
    "deal": _deal((4, 4, 3), (4, 3, 3), (3, 3, 2)), "easier_extra_cards": 1,
}
_SMALL = {  # 24 cave tiles, the exit among the last 4, 8 hazard cards for 4 cavers
    "tiles": {"normal": {"4": 2, "T": 1, "L": 2, "I": 1}, "water": {"4": 1, "T": 1, "I": 1},
              "gas": {"T": 1, "L": 2}, "cave-in": {"T": 3, "L": 1}, "horror": {"L": 1, "D": 2},
              "squeeze": {"I": 1}, "ledge": {"I": 1}, "slide": {"I": 1}, "rough": {"4": 2}},
    "cave_in_numbers": ((1, 2), (3, 4), (5, 6), (2, 4)), "exit_in_last": 4,
    "deal": _deal((8, 7, 7), (7, 6, 5), (6, 5, 5)), "easier_extra_cards": 1,
}
_MEDIUM = {  # 32 cave tiles (about half of each type), the exit among the last 5, 11 hazard cards for 4 cavers
    "tiles": {"normal": {"4": 2, "T": 2, "L": 2, "I": 2}, "water": {"4": 1, "T": 1, "I": 2},
              "gas": {"T": 1, "L": 2, "I": 1}, "cave-in": {"T": 4, "L": 2}, "horror": {"L": 1, "D": 3},
              "squeeze": {"I": 2}, "ledge": {"I": 1}, "slide": {"I": 1}, "rough": {"4": 2}},
    "cave_in_numbers": ((1, 2), (1, 3), (2, 4), (3, 5), (4, 6), (5, 6)), "exit_in_last": 5,
    "deal": _deal((11, 10, 9), (10, 9, 8), (9, 8, 7)), "easier_extra_cards": 2,
}

PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "tiny": _TINY,
    "small": _SMALL,
    "medium": _MEDIUM,
    "full": {},
    "easier": {"difficulty": "easier"},
    "advanced": {"difficulty": "advanced"},
    "expert": {"difficulty": "expert"},
    "five": {"num_cavers": 5},
    "six": {"num_cavers": 6},
    "classic-four": {"cavers": ("diver", "scout", "medic", "leader")},
    "annihilation": {"scenario": "annihilation"},
    "annihilation-five": {"scenario": "annihilation", "num_cavers": 5},
    "annihilation-six": {"scenario": "annihilation", "num_cavers": 6},
    # Extraction (R-EXT); biosamples (R-EXT-9) are a setting: preset("extraction", biosamples=True)
    "extraction": {"scenario": "extraction"},
    "extraction-five": {"scenario": "extraction", "num_cavers": 5},
    "extraction-six": {"scenario": "extraction", "num_cavers": 6},
    # Investigation (R-INV): doom cards and fourteen items
    "investigation": {"scenario": "investigation"},
    "investigation-five": {"scenario": "investigation", "num_cavers": 5},
    "investigation-six": {"scenario": "investigation", "num_cavers": 6},
}


def preset(name: str, **overrides: Any) -> GameConfig:
    """A named preset (see PRESETS) with optional overrides."""
    if name not in PRESETS:
        raise ConfigError(f"unknown preset {name!r}; presets: {sorted(PRESETS)}")
    return from_dict({**PRESETS[name], **overrides})


def load(path: str | Path) -> GameConfig:
    """Load a GameConfig from a YAML file; a top-level 'preset' key starts from that preset."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text()) or {}
    except yaml.YAMLError as e:  # name the file and where YAML broke, not just the parser's internals
        raise ConfigError(f"{path}: not valid YAML: {e}") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of settings, got {type(data).__name__}")
    name = data.pop("preset", "default")
    try:
        return preset(name, **data)
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from e
