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

This module holds the menu labels and the driver that tells a step; the line for each kind of rule event is
``narrate_events``'s and the names of places, tiles and cavers ``narrate_places``'s (both re-exported here).
"""

from __future__ import annotations

import re

import numpy as np

from subterra_env.config import CAVER_NAMES
from subterra_env.events import Event as RuleEvent
from subterra_env.events import decode, set_logging
from subterra_env.games.sub_terra.core import actions as A
from subterra_env.games.sub_terra.core.catalogue import ITEM_NAMES, ROT_MASK
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import P_PICK, P_PLACE, RUNNING, State
from subterra_env.words import pending_text as render_pending_text

from .narrate_events import CAUSE_TEXT, CHECK_TEXT, HAZARD_TEXT, Event, _line  # noqa: F401
from .narrate_places import (DIR_WORDS, _actor_tile, _caver, _seat_of_rank, _sides, _water_tiles,  # noqa: F401
                             catalogue_tile, frontier_cells, tile_name, where)


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
