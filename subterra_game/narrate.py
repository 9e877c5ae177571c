"""Plain-words narration of a game: what each legal action means, and what one step did.

A step is told from the rules' own event log (``subterra_env.events``: the compiled rules write what they do as
they do it): tiles drawn, placed and discarded and why, cavers moving, every die rolled and the check it decided,
health lost with its cause, horrors hunting, spawning and leaving, the hazard card, floods, rubble, the turn, the
round and the result, in the order they happened. Nothing public is guessed from state differences, and nothing
hidden is told (a discarded tile is public; the stack order is not). The play command and the replay viewer print
these lines; tests read them.

    label = describe_action(core, st, action_id)        # "move E -> water tile", for the menu
    for ev in narrate(core, before, after, action_id):  # after env.step(action_id)
        print(ev.kind, ev.text)

Places are named relative to the start tile: ``E2 N1`` is two cells east and one north of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from subterra_env.config import CAVER_NAMES, HAZARDS, TILE_TYPES
from subterra_env.games.sub_terra.core import actions as A
from subterra_env.games.sub_terra.core.board import in_zone
from subterra_env.games.sub_terra.core.catalogue import (BIT, C_LEAPER_X2, C_OUT_OF_TIME, CARD_NAMES, CORE_TILE_TYPES, DIR_NAMES, DX, DY,
                                         C_DOOM, ITEM_NAMES, ROT_MASK, X2)
from subterra_env.games.sub_terra.core.events import RULE_IDS
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import P_PICK, P_PLACE, RESULT_NAMES, RUNNING, State
from subterra_env.events import Event as RuleEvent
from subterra_env.events import decode, set_logging
from subterra_env.words import catalogue_tile_name
from subterra_env.words import pending_text as render_pending_text

DIR_WORDS = ("north", "east", "south", "west")

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


# ---------------------------------------------------------------------------------------------- the action table
def _parse_action_table(doc: str) -> dict[int, tuple[str, str, str]]:
    """``{action id: (name, AP, legal when)}`` from the Markdown table in ``subterra_env.games.sub_terra.core.actions``'s docstring:
    the one place where the rules summary of every action is written."""
    rows: dict[int, tuple[str, str, str]] = {}
    for line in doc.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not re.fullmatch(r"\d+(-\d+)?", cells[0]):
            continue
        lo, _, hi = cells[0].partition("-")
        for a in range(int(lo), int(hi or lo) + 1):
            rows[a] = (cells[1], cells[2], cells[3])
    return rows


ACTION_HELP: dict[int, tuple[str, str, str]] = _parse_action_table(A.__doc__ or "")
assert set(ACTION_HELP) == set(range(A.NUM_ACTIONS_ALL)), "the action table in core/actions.py misses ids"


def status_words(lines: list[str]) -> list[str]:
    """The abilities' status phrases (``words.ability_status``) in words a player reads at a glance: "leader
    directed no" says nothing to someone new."""
    words = {"leader directed no": "Leader: may still direct one caver this turn",
             "leader directed yes": "Leader: has directed a caver this turn"}
    return [words.get(line, line) for line in lines]


def action_cost(core: Core, action: int) -> str:
    """The AP column for this config: ``1 AP``, ``2 AP``, ``+1 AP`` (Exert) or ``free``."""
    if action == A.A_EXERT:
        return f"+{A.EXERT_BONUS} AP"
    c = int(core.cost[action])
    return f"{c} AP" if c else "free"


# ---------------------------------------------------------------------------------------------- places and tiles
def frontier_cells(st: State, g: int = 0, core: Core | None = None) -> set[tuple[int, int]]:
    """Empty cells beyond an open side of a placed tile (where a Reveal could put a tile), as grid (x, y); with the
    game's ``core``, not the cells of Annihilation's no-placement zone (R-ANN-2: a side facing one is not open)."""
    cells = set()
    grid = st.grid_of(g)
    zone = core is not None and core.cfg.scenario == "annihilation"
    if zone:  # the rule's own test, run on this game's record (attribute access, as the compiled code reads it)
        rec, par = st.packed.view(np.recarray)[g], core.params.view(np.recarray)[0]
    for t in np.nonzero(st.t_type[g] >= 0)[0]:
        x, y = int(st.t_x[g, t]), int(st.t_y[g, t])
        for d in range(4):
            nx, ny = x + int(DX[d]), y + int(DY[d])
            if int(st.t_open[g, t]) & int(BIT[d]) and 0 <= ny < grid.shape[0] and 0 <= nx < grid.shape[1] \
                    and grid[ny, nx] < 0 and not (zone and in_zone.py_func(rec, par, nx, ny)):
                cells.add((nx, ny))
    return cells


def where(st: State, t: int, g: int = 0) -> str:
    """A tile's cell relative to the start tile: ``start``, ``E2``, ``W1 S3``."""
    if t < 0:
        return "nowhere"
    dx, dy = int(st.t_x[g, t]) - int(st.t_x[g, 0]), int(st.t_y[g, t]) - int(st.t_y[g, 0])
    if dx == dy == 0:
        return "start"
    parts = []
    if dx:
        parts.append(f"{'E' if dx > 0 else 'W'}{abs(dx)}")
    if dy:
        parts.append(f"{'S' if dy > 0 else 'N'}{abs(dy)}")
    return " ".join(parts)


def tile_name(st: State, t: int, g: int = 0) -> str:
    """``the water tile (flooded) at E1``."""
    if t < 0:
        return "no tile"
    kind = CORE_TILE_TYPES[st.t_type[g, t]]
    marks = [m for m, on in (("flooded", st.t_flood[g, t]), ("rubble", st.t_rubble[g, t]),
                             ("rope", st.t_rope[g, t])) if on]
    extra = f" ({', '.join(marks)})" if marks else ""
    place = where(st, t, g)
    return f"the {kind} tile{extra}" + ("" if place == "start" else f" at {place}")


def _sides(mask: int) -> str:
    return " ".join(DIR_NAMES[d] for d in range(4) if mask & BIT[d]) or "none"


def catalogue_tile(core: Core, cid: int) -> str:
    """``gas (L)`` for a catalogue id."""
    return catalogue_tile_name(core.cat, cid) or "no tile"


def _caver(st: State, s: int, g: int = 0) -> str:
    return CAVER_NAMES[st.c_rank[g, s] - 1]


def _seat_of_rank(st: State, rank: int, g: int = 0) -> int:
    hits = np.flatnonzero(st.c_rank[g] == rank)
    return int(hits[0]) if len(hits) else -1


def _actor_tile(st: State, g: int = 0) -> int:
    a = int(st.actor[g])
    return int(st.c_tile[g, a]) if a >= 0 else -1


def _water_tiles(st: State, g: int = 0) -> list[int]:
    return [int(t) for t in np.flatnonzero(st.t_type[g] == TILE_TYPES.index("water"))]


# ---------------------------------------------------------------------------------------------- menu labels
def describe_action(core: Core, st: State, action: int, g: int = 0) -> str:
    """A legal action in plain words for the acting caver, starting with its rulebook name (``ACTION_NAMES``):
    ``move E: to the water tile at E1``, ``rotate 90: place the gas (L) open N E``, ``heal medic (caver 6 ...)``."""
    detail = action_detail(core, st, action, g)
    return f"{A.ACTION_NAMES[action]}: {detail}" if detail else A.ACTION_NAMES[action]


def action_detail(core: Core, st: State, action: int, g: int = 0) -> str:
    """What ``describe_action`` adds after the action's name ('' when the name says it all)."""
    kind, arg = int(A.ACTION_KIND[action]), int(A.ACTION_ARG[action])
    here = _actor_tile(st, g)
    try:
        if kind in (A.K_MOVE, A.K_STEP, A.K_SWIM, A.K_SQUEEZE, A.K_REPEL) or (kind in (A.K_DIG, A.K_EXCAVATE)
                                                                             and arg < 4):
            nb = int(st.t_nbr[g, here, arg]) if here >= 0 else -1
            verb = {A.K_REPEL: "the horror on", A.K_DIG: "the rubble on", A.K_EXCAVATE: "the rubble on"}.get(kind, "to")
            return f"{verb} {tile_name(st, nb, g)}" if nb >= 0 else ""
        if kind in (A.K_REVEAL, A.K_EXPLORE):
            return f"a new tile to the {DIR_WORDS[arg]}" + ("" if kind == A.K_REVEAL else ", then step onto it")
        if kind == A.K_ROTATE:
            cid = int(st.pend_tile[g])
            opened = int(ROT_MASK[core.cat.tile_mask[cid], arg]) if cid >= 0 else 0
            return f"place the {catalogue_tile(core, cid)} open {_sides(opened)}"
        if kind in (A.K_HEAL, A.K_BANDAGE, A.K_DIRECT):
            s = _seat_of_rank(st, arg, g)
            who = "yourself" if s == int(st.actor[g]) else f"the {CAVER_NAMES[arg - 1]}"
            hp = f" (health {int(st.c_hp[g, s])}/{int(st.c_max[g, s])})" if s >= 0 and kind != A.K_DIRECT else ""
            if kind == A.K_DIRECT:
                return f"the {CAVER_NAMES[arg - 1]} takes one 1-AP action now, free"
            return f"{who}{hp} regains 1 health"
        if kind == A.K_PICK:
            cid = int(st.pend_tile[g]) if arg == 0 else int(st.aside_tile[g])
            return f"the {catalogue_tile(core, cid)}"
        if kind == A.K_REDRAW:
            return f"discard the {catalogue_tile(core, int(st.pend_tile[g]))}, place the next " \
                   f"({int(st.scout_redraws[g])} redraws left)"
        if kind == A.K_SURFACE:
            water = _water_tiles(st, g)
            return f"onto {tile_name(st, water[arg - 1], g)}" if arg <= len(water) else ""
        if kind == A.K_DEMOLISH:
            return f"blast the {DIR_WORDS[arg]} wall ({int(st.explosives[g])} explosives left), then a cave-in"
        if kind == A.K_DIG or kind == A.K_EXCAVATE:
            return "the rubble on your tile"
        if kind in (A.K_GIVE, A.K_TAKE) and core.cfg.scenario == "investigation":  # R-INV-6
            s = _seat_of_rank(st, arg, g)
            return (f"one of your items to the {CAVER_NAMES[arg - 1]}" if kind == A.K_GIVE
                    else f"an item of the unconscious {CAVER_NAMES[arg - 1]}")
        if kind == A.K_GAS_MASK:  # explicit_reactions (R-INV-18)
            return gas_mask_text(core, st, arg == 1, g)
        if kind >= A.K_SHOVEL:  # Investigation's items (R-INV-5..16)
            return ITEM_ACTION_TEXT.get(kind, "")
        if kind in (A.K_GIVE, A.K_TAKE):
            s = _seat_of_rank(st, arg, g)
            cards, what = (st.c_samples, "biosample") if core.cfg.scenario == "extraction" else (st.c_bombs,
                                                                                                  "bomb card")
            return (f"one of your {int(cards[g, int(st.actor[g])])} {what}s to the {CAVER_NAMES[arg - 1]}"
                    if kind == A.K_GIVE else f"the unconscious {CAVER_NAMES[arg - 1]}'s {what} "
                                             f"({int(cards[g, s])} held)")
        return {A.K_END: "", A.K_EXERT: "skill check at turn end: -1 health if failed",
                A.K_RUN: f"then up to {core.cfg.run_steps} move steps, one at a time", A.K_STOP: "end the run here",
                A.K_HIDE: "skill check: if passed, horrors ignore you this round",
                A.K_ROPE: "skill check: if passed, a rope on this ledge/slide",
                A.K_GEAR: "a rope on this ledge/slide, no skill check",
                A.K_SPRINT: f"then up to {core.cfg.sprint_steps} move steps",
                A.K_DIVE: "leave the cave under water; surface next turn",
                A.K_PLACE_BOMB: "a bomb token on this bomb tile, for one of your bomb cards"}.get(kind, "")
    except (IndexError, ValueError):  # never let a label break the game
        return ""



ITEM_ACTION_TEXT = {  # Investigation's item actions in words (R-INV-5..16)
    A.K_SHOVEL: "the Shovel clears the rubble (the card is spent)",
    A.K_BOOSTER: "that caver may take one 1-AP action now, free (the card is spent)",
    A.K_BATTERY: "no Out of Time check for you this round (the card is spent)",
    A.K_FLARE: "reveal a tile beyond every open side of your tile (the card is spent)",
    A.K_ADRENALINE: "+1 AP this turn (the card is spent)",
    A.K_PAINKILLERS: "regain 2 health (the card is spent)",
    A.K_HOOK: "a rope on this ledge/slide, no skill check (the card is spent)",
    A.K_GRENADE: "every monster on that tile leaves the cave (the card is spent)",
    A.K_EXPLOSIVE: "blast that wall, then a cave-in (the card is spent)",
    A.K_FLARE_SIDE: "the Flare's next tile on that side",
    A.K_MAP: "discard this tile with the Scrawled Map, place the next",
    A.K_ITEM_PICK: "the item the Transfer moves",
}


def gas_mask_text(core: Core, st: State, use: bool, g: int = 0) -> str:
    """What the Gas Mask answer does for the holder asked (R-INV-18, explicit_reactions)."""
    lose = int(st.r_lose[g])
    if not use:
        armor = (int(st.c_items[g, int(st.r_seat[g])]) >> ITEM_NAMES.index("body armor")) & 1
        return f"keep the mask and take {lose} gas damage" + (" (your Body Armor takes the first point)" if armor
                                                              else "")
    if core.cfg.gas_mask_keeps:
        return f"lose 1 health instead of {lose}, keep the mask"
    return f"lose no health instead of {lose} (the card is spent)"


def short_action(st: State, action: int, g: int = 0) -> str:
    """The action's rulebook name, with the caver's name for Heal, Bandage and Direct (``heal medic``)."""
    kind, arg = int(A.ACTION_KIND[action]), int(A.ACTION_ARG[action])
    if kind in (A.K_HEAL, A.K_BANDAGE, A.K_DIRECT):
        s = _seat_of_rank(st, arg, g)
        who = "themself" if s == int(st.actor[g]) else CAVER_NAMES[arg - 1]
        return f"{A.ACTION_NAMES[action].split(' caver')[0]} {who}"
    return A.ACTION_NAMES[action]


def pending_text(core: Core, st: State, g: int = 0) -> str:
    """What the acting caver is in the middle of, in words ('' when nothing): ``subterra_env.words``'s, with the
    game's tiles named."""
    return render_pending_text(st, g, core.cat)


# ---------------------------------------------------------------------------------------------- what happened
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


def step_events(core: Core, before: State, after: State, action: int, g: int = 0) -> list[RuleEvent]:
    """The rules' own log of the step from ``before`` to ``after`` (``subterra_env.events``): read from ``after``
    when it was played with the log on (``record_events=True``), else played again from ``before`` with the log
    on (the rules are deterministic, so it is the same step)."""
    if int(after.packed["ev_on"][g]) and int(after.steps[g]) == int(before.steps[g]) + 1:
        return decode(after, g)
    again = before.take(np.array([g]))
    set_logging(again, np.array([0]), True)
    core.step(again, np.array([action]), check=False)
    return decode(again, 0)


def narrate(core: Core, before: State, after: State, action: int, g: int = 0) -> list[Event]:
    """What ``action`` (taken by ``before``'s acting caver) did, in the order the rules did it: the action, then
    a line per event of the rules' log (``step_events``), then what the acting caver is asked next."""
    try:
        return _narrate(core, before, after, action, step_events(core, before, after, action, g), g)
    except Exception as e:  # noqa: BLE001  narration must never stop a game
        return [Event("info", f"{A.ACTION_NAMES[action]} (narration failed: {type(e).__name__})")]


def _narrate(core: Core, b: State, a: State, action: int, events: list[RuleEvent], g: int) -> list[Event]:
    seat = int(b.actor[g])
    me = _caver(b, seat, g) if seat >= 0 else "?"
    out = [Event("action", f"{me}: {short_action(b, action, g)}")]
    i = 0
    while i < len(events):
        e = events[i]
        # a run of the same kind that reads better as one line: a hazard's checks, floods, rubble
        j = i + 1
        if e.kind in ("flood", "rubble") or (e.kind == "check" and e.rule in ("R-HZ-1", "R-HZ-7")):
            while j < len(events) and events[j].kind == e.kind and events[j].rule == e.rule:
                j += 1
        line = _line(core, a, events[i:j], g)
        if line is not None:
            out.append(line)
        i = j
    if a.result[g] == RUNNING:
        if int(a.r_seat[g]) >= 0:  # explicit_reactions: the gas waits for the holder's answer (R-INV-18)
            out.append(Event("hazard", f"the gas would take {int(a.r_lose[g])} health from the "
                                       f"{_caver(a, int(a.r_seat[g]), g)}: use the GAS MASK? (R-INV-18)"))
        elif int(a.pend[g]) == P_PLACE and int(a.pend_tile[g]) >= 0:
            out.append(Event("tile", f"{_caver(a, int(a.actor[g]), g)} holds a "
                                     f"{catalogue_tile(core, int(a.pend_tile[g]))} for the "
                                     f"{DIR_WORDS[int(a.pend_dir[g])]} side: choose how to turn it"))
        elif int(a.pend[g]) == P_PICK:
            out.append(Event("tile", f"drawn: {catalogue_tile(core, int(a.pend_tile[g]))}; set aside: "
                                     f"{catalogue_tile(core, int(a.aside_tile[g]))}: pick one to place"))
    return out


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


__all__ = [
    "ACTION_HELP",
    "HAZARD_TEXT",
    "Event",
    "action_cost",
    "action_detail",
    "describe_action",
    "narrate",
    "step_events",
    "pending_text",
    "tile_name",
    "where",
]
