"""A line of narration per event of the rules' log: tiles, cavers, items, horrors and the game's course.

``narrate.narrate`` walks a step's events (``subterra_env.events``) and asks ``_line`` for each one (or a run of
checks, floods or rubble); the phrasing of every event kind lives here, apart from that driver and from the
action labels of the menu, since it grows with every rule event a scenario adds. ``narrate`` re-exports the
public names (``Event``, ``HAZARD_TEXT``, ``CAUSE_TEXT``, ``CHECK_TEXT``).
"""

from __future__ import annotations

from dataclasses import dataclass

from subterra_env.config import HAZARDS
from subterra_env.events import Event as RuleEvent
from subterra_env.games.sub_terra.core.catalogue import (C_DOOM, C_LEAPER_X2, C_OUT_OF_TIME, CARD_NAMES,
                                                         CORE_TILE_TYPES, ITEM_NAMES, X2)
from subterra_env.games.sub_terra.core.events import RULE_IDS
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RESULT_NAMES, State

from .narrate_places import DIR_WORDS, _caver, _sides, catalogue_tile, tile_name, where

# What each hazard card does, in a line (R-HZ); x2 cards resolve twice (R-HZ-6).
HAZARD_TEXT: dict[str, str] = {
    "tremor": "every conscious caver off the exit makes a skill check; failure costs 1 health (R-HZ-1)",
    "flood": "every water tile floods; cavers on water tiles lose 1 health (R-HZ-2)",
    "cave-in": "a d6 is rolled: cave-in tiles showing it fill with rubble and hurt cavers there (R-HZ-4)",
    "gas": "cavers on gas tiles lose 2 health; entering a gas tile costs 2 until the next hazard phase (R-HZ-3)",
    "horror": "every horror moves one step toward its closest victim, then a horror spawns (R-HZ-5)",
    "leaper": "every monster moves (leapers two steps), then a leaper spawns (R-EXT-3)",
    "doom": "nothing now; the next hazard card resolves as its x2 version (R-INV-3)",
    "out of time": "from now on, every hazard phase, each caver off the exit must pass a skill check or be "
                   "devoured (R-HZ-7)",
}
assert set(HAZARDS) <= set(HAZARD_TEXT)


@dataclass(frozen=True)
class Event:
    """One line of narration. ``kind``: action, tile, move, damage, heal, horror, hazard, turn, round, result,
    info (the terminal picks a colour by kind)."""

    kind: str
    text: str


# What a rule ID did, for "loses 1 health to ..." and "the ... check".
CAUSE_TEXT: dict[str, str] = {
    "R-ACT-2": "the failed exert check", "R-TILE-9": "the rough terrain", "R-HZ-3": "the gas",
    "R-HOR-5": "a horror", "R-EXT-6": "a leaper's slash", "R-HZ-1": "the tremor", "R-HZ-2": "the flood",
    "R-HZ-4": "the cave-in",
}
CHECK_TEXT: dict[str, str] = {
    "R-ACT-2": "exert", "R-TILE-9": "rough terrain", "R-ACT-14": "hide", "R-ACT-13": "rope", "R-HZ-1": "tremor",
    "R-HZ-7": "Out of Time",
}


def _line(core: Core, a: State, run: list[RuleEvent], g: int) -> Event | None:
    """One line of narration for one event (or a run of checks, floods or rubble)."""
    e = run[0]
    name = _caver(a, e.seat, g) if e.seat >= 0 else ""
    teller = _TELLERS.get(e.kind)
    return teller(core, a, run, g, name) if teller is not None else None


def _tell_tiles(core: Core, a: State, run: list[RuleEvent], g: int, name: str) -> Event | None:
    """The line of an event about the cave's tiles: drawn, discarded, placed, changed by ropes, rubble and blasts,
    floods and cave-ins."""
    e, k = run[0], run[0].kind
    if k == "draw":
        return Event("tile", f"{name} draws a {catalogue_tile(core, e.value)}")
    if k == "discard":  # drawn and discarded (one row)
        if e.rule == "R-INV-16":
            return Event("tile", f"the {catalogue_tile(core, e.value)} is discarded: the Scrawled Map (R-INV-16)")
        if e.rule == "R-CAV-2":
            return Event("tile", f"the {catalogue_tile(core, e.value)} is discarded: the Scout's redraw (R-CAV-2)")
        return Event("tile", f"{name} draws a {catalogue_tile(core, e.value)}: discarded, it would close the cave "
                             "(R-CON-4)")
    if k == "place":
        if CORE_TILE_TYPES[a.t_type[g, e.tile]] == "exit":
            return Event("result", f"THE EXIT is found at {where(a, e.tile, g)}! Get every caver onto it.")
        return Event("tile", f"a {CORE_TILE_TYPES[a.t_type[g, e.tile]]} tile is placed at {where(a, e.tile, g)} "
                             f"(open {_sides(int(a.t_open[g, e.tile]))})")
    if k == "rope":
        return Event("info", f"a rope is fixed on {tile_name(a, e.tile, g)}")
    if k == "clear":
        return Event("info", f"rubble cleared on {tile_name(a, e.tile, g)}")
    if k == "blast":
        return Event("hazard", f"{name} blasts the {DIR_WORDS[e.value]} wall of {tile_name(a, e.tile, g)}")
    if k == "flood":
        return Event("hazard", "flooded: " + ", ".join(where(a, r.tile, g) for r in run))
    if k == "rubble":
        return Event("hazard", "cave-in: rubble falls on " + ", ".join(where(a, r.tile, g) for r in run))
    if k == "roll":
        return Event("hazard", f"the cave-in die shows {e.value}")
    return None


def _tell_cavers(core: Core, a: State, run: list[RuleEvent], g: int, name: str) -> Event | None:
    """The line of an event about a caver: moves, checks, damage and healing, hiding, being directed."""
    e, k = run[0], run[0].kind
    if k == "move":
        if int(a.exit_tile[g]) == e.tile:
            return Event("result", f"{name} reaches THE EXIT")
        return Event("move", f"{name} moves to {tile_name(a, e.tile, g)}")
    if k == "dive":
        return Event("move", f"{name} dives under water")
    if k == "surface":
        return Event("move", f"{name} surfaces on {tile_name(a, e.tile, g)}")
    if k == "check":
        what = CHECK_TEXT.get(e.rule, "skill")
        if len(run) > 1 or e.rule in ("R-HZ-1", "R-HZ-7"):
            rolls = ", ".join(f"{_caver(a, r.seat, g)} {r.die} {'passes' if r.value else 'fails'}" for r in run)
            return Event("hazard", f"{what} checks: {rolls}")
        return Event("info" if e.value else "damage",
                     f"{name} rolls {e.die}: the {what} check {'passes' if e.value else 'fails'}")
    if k == "damage":
        ko = " and is knocked out" if e.die == 0 else ""
        cause = CAUSE_TEXT.get(e.rule, "")
        hp0 = e.die + e.value
        if e.rule == "R-HOR-5":
            return Event("damage", f"{name} is caught by a horror and knocked out ({hp0} -> 0)")
        return Event("damage", f"{name} loses {e.value} health ({hp0} -> {e.die}){' to ' + cause if cause else ''}{ko}")
    if k == "protected":
        cause = CAUSE_TEXT.get(RULE_IDS[e.die], "the hazard")
        return Event("info", f"the bodyguard shields {name} from {cause}")
    if k == "heal":
        wake = " and wakes up" if e.die == e.value else ""
        return Event("heal", f"{name} regains {e.value} health ({e.die - e.value} -> {e.die}){wake}")
    if k == "hidden":
        return Event("info", f"{name} hides: no horror will pick {name} as a victim this round")
    if k == "direct":
        if e.rule == "R-INV-8":
            return Event("turn", f"{name} may take one free 1-AP action: the Signal Booster (end turn declines)")
        return Event("turn", f"{name} may take one 1-AP action for the leader (end turn declines)")
    if k == "devoured":
        return Event("damage", f"{name} fails the Out of Time check and is DEVOURED")
    return None


def _tell_items(core: Core, a: State, run: list[RuleEvent], g: int, name: str) -> Event | None:
    """The line of an event about items and the scenarios' tokens: drawn, used, reacted with, passed on, bombs
    placed."""
    e, k = run[0], run[0].kind
    if k == "item_draw":
        got = f"draws the {ITEM_NAMES[e.value].upper()}" if e.value >= 0 else "finds the item deck empty"
        return Event("action", f"{name} takes the item token on {where(a, e.tile, g)} and {got} (R-INV-4)")
    if k == "item_use":
        if e.rule == "R-INV-6":
            return Event("info", f"{name}'s {ITEM_NAMES[e.value]} is lost (R-INV-6)")
        if e.rule == "R-INV-18" and e.die == 1:
            return Event("info", f"{name}'s gas mask filters the gas: 1 health lost, the mask kept (R-INV-18)")
        return Event("action", f"{name} uses the {ITEM_NAMES[e.value].upper()} ({e.rule})")
    if k == "reaction":  # explicit_reactions (R-INV-18): the mask itself is told by its item_use line
        if e.value:
            return Event("action", f"{name} puts on the GAS MASK against {e.die} gas damage (R-INV-18)")
        return Event("info", f"{name} keeps the gas mask and braves {e.die} gas damage (R-INV-18)")
    if k == "transfer":
        what = "a biosample" if core.cfg.scenario == "extraction" else "a bomb card"
        if core.cfg.scenario == "investigation":  # R-INV-6: die holds the item
            what = f"the {ITEM_NAMES[e.die]}"
        return Event("info", f"{name} passes {what} to {_caver(a, e.value, g)}")
    if k == "bomb":
        return Event("result", f"{name} places a BOMB on {where(a, e.tile, g)} ({e.value} of 3 placed)")
    return None


def _tell_horrors(core: Core, a: State, run: list[RuleEvent], g: int, name: str) -> Event | None:
    """The line of an event about horrors and leapers: moving, spawning, leaving, slashing."""
    e, k = run[0], run[0].kind
    if k == "horror_move":
        return Event("horror", f"a horror moves from {where(a, e.value, g)} to {where(a, e.tile, g)}")
    if k == "horror_spawn":
        return Event("horror", f"a horror spawns on {tile_name(a, e.tile, g)}")
    if k == "horror_leave":
        why = (f"repelled by the {name}" if e.rule == "R-CAV-7" else f"a grenade of the {name}" if e.rule == "R-INV-14"
               else "no victim within reach")
        return Event("horror", f"the horror at {where(a, e.tile, g)} leaves the cave ({why})")
    if k == "leaper_move":
        return Event("horror", f"a leaper leaps from {where(a, e.value, g)} to {where(a, e.tile, g)}")
    if k == "leaper_spawn":
        return Event("horror", f"a leaper spawns on {tile_name(a, e.tile, g)}")
    if k == "leaper_leave":
        why = f"repelled by the {name}" if e.rule == "R-CAV-7" else "no victim within reach: cut off (R-EXT-8)"
        return Event("horror", f"the leaper at {where(a, e.tile, g)} leaves the cave ({why})")
    if k == "slash":
        return Event("damage", f"a leaper SLASHES {name} at {where(a, e.tile, g)} and is gone (R-EXT-6)")
    return None


def _tell_game(core: Core, a: State, run: list[RuleEvent], g: int, name: str) -> Event | None:
    """The line of an event about the game's course: hazard cards and doom, turns, rounds, the result."""
    e, k = run[0], run[0].kind
    if k == "doom":
        if e.value == 1 and e.die == 0:
            return Event("hazard", "DOOM is pending: the next hazard card resolves as its x2 version (R-INV-3)")
        return Event("hazard", "DOOM strikes: " + (f"the card resolves as {CARD_NAMES[e.value].upper()}"
                                                   if e.value >= 0 else "Out of Time clears it") + " (R-INV-3)")
    if k == "card":
        return _card_event(e.value)
    if k == "turn":
        return Event("turn", f"{name}'s turn ({e.value} AP)")
    if k == "round":
        return Event("round", f"--- round {e.value} begins; {name} starts ---")
    if k == "result":
        bombs = {"R-ANN-9": "; a bomb tile has no bomb (R-ANN-9)",
                 "R-EXT-9": "; a biosample is not held on the exit (R-EXT-9)"}.get(e.rule, "")
        kind = "defeat" if RESULT_NAMES[e.value] == "defeat" else "result"  # told in red, not a medal's green
        return Event(kind, f"GAME OVER: {RESULT_NAMES[e.value].upper()} ({e.die} of {a.num_seats} cavers "
                               f"escaped{bombs})")
    return None

_TELLERS = {kind: teller for teller, kinds in (  # rule event kind -> the function that tells it
    (_tell_tiles, ("draw", "discard", "place", "rope", "clear", "blast", "flood", "rubble", "roll")),
    (_tell_cavers, ("move", "dive", "surface", "check", "damage", "protected", "heal", "hidden", "direct",
                    "devoured")),
    (_tell_items, ("item_draw", "item_use", "reaction", "transfer", "bomb")),
    (_tell_horrors, ("horror_move", "horror_spawn", "horror_leave", "leaper_move", "leaper_spawn", "leaper_leave",
                     "slash")),
    (_tell_game, ("doom", "card", "turn", "round", "result")),
) for kind in kinds}


def _card_event(card: int) -> Event:
    base = ("out of time" if card == C_OUT_OF_TIME else "doom" if card == C_DOOM else "leaper" if card > C_OUT_OF_TIME
            else HAZARDS[card % X2])
    twice = " (twice: x2)" if X2 <= card < C_OUT_OF_TIME or card == C_LEAPER_X2 else ""
    return Event("hazard", f"HAZARD: {CARD_NAMES[card].upper()}: {HAZARD_TEXT[base]}{twice}")
