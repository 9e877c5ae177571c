"""Plain-words narration of a game: what each legal action means, and what one step changed.

Everything here is derived from the public State before and after a step (never the stack or deck order):
tiles placed or discarded, cavers moved, health lost or regained (with the likely cause), horrors moved,
spawned or removed, the hazard card drawn (``last_card``), floods, rubble, ropes, gas, Out of Time, the turn
and the round passing, and the result. The play command and the replay viewer print these lines; tests read them.

    label = describe_action(core, st, action_id)        # "move E -> water tile", for the menu
    for ev in narrate(core, before, after, action_id):  # after env.step(action_id)
        print(ev.kind, ev.text)

Places are named relative to the start tile: ``E2 N1`` is two cells east and one north of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from subterra_env.config import CAVER_NAMES, HAZARDS, SHAPES, TILE_TYPES
from subterra_env.core import actions as A
from subterra_env.core.catalogue import BIT, C_OUT_OF_TIME, CARD_NAMES, DIR_NAMES, ROT_MASK, T_GAS, T_ROUGH, X2
from subterra_env.core.rules import Core
from subterra_env.core.state import P_PICK, P_PLACE, P_RUN, RESULT_NAMES, RUNNING, State

DIR_WORDS = ("north", "east", "south", "west")

# What each hazard card does, in a line (R-HZ); x2 cards resolve twice (R-HZ-6).
HAZARD_TEXT: dict[str, str] = {
    "tremor": "every conscious caver off the exit makes a skill check; failure costs 1 health (R-HZ-1)",
    "flood": "every water tile floods; cavers on water tiles lose 1 health (R-HZ-2)",
    "cave-in": "a d6 is rolled: cave-in tiles showing it fill with rubble and hurt cavers there (R-HZ-4)",
    "gas": "cavers on gas tiles lose 2 health; entering a gas tile costs 2 until the next hazard phase (R-HZ-3)",
    "horror": "every horror moves one step toward its closest victim, then a horror spawns (R-HZ-5)",
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
    """``{action id: (name, AP, legal when)}`` from the Markdown table in ``subterra_env.core.actions``'s docstring:
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
assert set(ACTION_HELP) == set(range(A.NUM_ACTIONS)), "the action table in core/actions.py misses ids"


def action_cost(core: Core, action: int) -> str:
    """The AP column for this config: ``1 AP``, ``2 AP``, ``+1 AP`` (Exert) or ``free``."""
    if action == A.A_EXERT:
        return f"+{A.EXERT_BONUS} AP"
    c = int(core.cost[action])
    return f"{c} AP" if c else "free"


# ---------------------------------------------------------------------------------------------- places and tiles
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
    kind = TILE_TYPES[st.t_type[g, t]]
    marks = [m for m, on in (("flooded", st.t_flood[g, t]), ("rubble", st.t_rubble[g, t]),
                             ("rope", st.t_rope[g, t])) if on]
    extra = f" ({', '.join(marks)})" if marks else ""
    place = where(st, t, g)
    return f"the {kind} tile{extra}" + ("" if place == "start" else f" at {place}")


def _sides(mask: int) -> str:
    return " ".join(DIR_NAMES[d] for d in range(4) if mask & BIT[d]) or "none"


def catalogue_tile(core: Core, cid: int) -> str:
    """``gas (L)`` for a catalogue id."""
    if cid < 0 or cid >= len(core.cat.tile_type):
        return "no tile"
    return f"{TILE_TYPES[core.cat.tile_type[cid]]} ({SHAPES[core.cat.tile_shape[cid]]})"


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
        return {A.K_END: "", A.K_EXERT: "skill check at turn end: -1 health if failed",
                A.K_RUN: f"then up to {core.cfg.run_steps} move steps, one at a time", A.K_STOP: "end the run here",
                A.K_HIDE: "skill check: if passed, horrors ignore you this round",
                A.K_ROPE: "skill check: if passed, a rope on this ledge/slide",
                A.K_GEAR: "a rope on this ledge/slide, no skill check",
                A.K_SPRINT: f"then up to {core.cfg.sprint_steps} move steps",
                A.K_DIVE: "leave the cave under water; surface next turn"}.get(kind, "")
    except (IndexError, ValueError):  # never let a label break the game
        return ""


def short_action(st: State, action: int, g: int = 0) -> str:
    """The action's rulebook name, with the caver's name for Heal, Bandage and Direct (``heal medic``)."""
    kind, arg = int(A.ACTION_KIND[action]), int(A.ACTION_ARG[action])
    if kind in (A.K_HEAL, A.K_BANDAGE, A.K_DIRECT):
        s = _seat_of_rank(st, arg, g)
        who = "themself" if s == int(st.actor[g]) else CAVER_NAMES[arg - 1]
        return f"{A.ACTION_NAMES[action].split(' caver')[0]} {who}"
    return A.ACTION_NAMES[action]


def pending_text(core: Core, st: State, g: int = 0) -> str:
    """What the acting caver is in the middle of, in words ('' when nothing)."""
    pend = int(st.pend[g])
    if pend == P_PLACE:
        return f"placing the {catalogue_tile(core, int(st.pend_tile[g]))} to the {DIR_WORDS[int(st.pend_dir[g])]}"
    if pend == P_PICK:
        return (f"choose a tile: drawn {catalogue_tile(core, int(st.pend_tile[g]))} or set aside "
                f"{catalogue_tile(core, int(st.aside_tile[g]))}")
    if pend == P_RUN:
        return f"running: {int(st.run_left[g])} steps left"
    if pend:
        return "surfacing: choose a water tile"
    return ""


# ---------------------------------------------------------------------------------------------- what changed
def _held(st: State, g: int) -> int:
    return int(st.pend_tile[g] >= 0) + int(st.aside_tile[g] >= 0)


def narrate(core: Core, before: State, after: State, action: int, g: int = 0) -> list[Event]:
    """What ``action`` (taken by ``before``'s acting caver) changed, in order: the action, tiles, movements, the
    turn's checks, horrors, the hazard card and its effects, health, the new round, the result."""
    try:
        return _narrate(core, before, after, action, g)
    except Exception as e:  # noqa: BLE001  narration must never stop a game
        return [Event("info", f"{A.ACTION_NAMES[action]} (narration failed: {type(e).__name__})")]


def _narrate(core: Core, b: State, a: State, action: int, g: int) -> list[Event]:
    ev: list[Event] = []
    seat = int(b.actor[g])
    me = _caver(b, seat, g) if seat >= 0 else "?"
    kind = int(A.ACTION_KIND[action])
    ev.append(Event("action", f"{me}: {short_action(b, action, g)}"))

    # tiles: drawn, placed, discarded
    if int(a.pend[g]) in (P_PLACE, P_PICK) and (int(b.pend[g]) not in (P_PLACE, P_PICK) or kind == A.K_REDRAW):
        if int(a.pend[g]) == P_PICK:
            ev.append(Event("tile", f"{me} draws a {catalogue_tile(core, int(a.pend_tile[g]))}; set aside: "
                                    f"{catalogue_tile(core, int(a.aside_tile[g]))}: pick one to place"))
        else:
            ev.append(Event("tile", f"{me} draws a {catalogue_tile(core, int(a.pend_tile[g]))} for the "
                                    f"{DIR_WORDS[int(a.pend_dir[g])]} side: choose how to turn it"))
    placed = range(int(b.n_tiles[g]), int(a.n_tiles[g]))
    for t in placed:
        kind_t = TILE_TYPES[a.t_type[g, t]]
        if kind_t == "exit":
            ev.append(Event("result", f"THE EXIT is found at {where(a, t, g)}! Get every caver onto it."))
        else:
            ev.append(Event("tile", f"a {kind_t} tile is placed at {where(a, t, g)} (open {_sides(int(a.t_open[g, t]))})"))
    discarded = (int(a.stack_pos[g]) - int(b.stack_pos[g])) - (len(placed) + _held(a, g) - _held(b, g))
    if discarded > 0:
        why = "the Scout's redraw" if kind == A.K_REDRAW and discarded == 1 else "it would close the cave (R-CON-4)"
        ev.append(Event("tile", f"{discarded} tile{'s' if discarded > 1 else ''} discarded: {why}"))

    hazard = int(a.deck_pos[g]) > int(b.deck_pos[g])
    card = int(a.last_card[g]) if hazard else -1

    # cavers: movement, diving, hiding
    for s in range(a.num_seats):
        name = _caver(a, s, g)
        t0, t1 = int(b.c_tile[g, s]), int(a.c_tile[g, s])
        if b.c_under[g, s] != a.c_under[g, s]:
            ev.append(Event("move", f"{name} dives under water" if a.c_under[g, s]
                            else f"{name} surfaces on {tile_name(a, t1, g)}"))
        elif t0 != t1 and t1 >= 0 and t0 >= 0:
            on_exit = int(a.exit_tile[g]) == t1
            ev.append(Event("result" if on_exit else "move",
                            f"{name} reaches THE EXIT" if on_exit else f"{name} moves to {tile_name(a, t1, g)}"))
        if a.c_hidden[g, s] and not b.c_hidden[g, s]:
            ev.append(Event("info", f"{name} hides: no horror will pick {name} as a victim this round"))
    if kind == A.K_HIDE and not a.c_hidden[g, seat]:
        ev.append(Event("damage", f"{me}'s skill check fails: not hidden"))
    new_rope = [int(t) for t in np.flatnonzero(a.t_rope[g] & ~b.t_rope[g])]
    for t in new_rope:
        ev.append(Event("info", f"a rope is fixed on {tile_name(a, t, g)}"))
    if kind == A.K_ROPE and not new_rope:
        ev.append(Event("damage", f"{me}'s skill check fails: no rope placed"))
    for t in np.flatnonzero(b.t_rubble[g] & ~a.t_rubble[g]):
        ev.append(Event("info", f"rubble cleared on {tile_name(a, int(t), g)}"))
    if a.directing[g] >= 0 and b.directing[g] < 0:
        ev.append(Event("turn", f"{_caver(a, int(a.actor[g]), g)} may take one 1-AP action for the leader "
                                "(end turn declines)"))

    # horrors (a Horror card is announced first: its moves and spawns follow)
    horror_card = hazard and 0 <= card < C_OUT_OF_TIME and HAZARDS[card % X2] == "horror"
    if horror_card:
        ev.append(_card_event(card))
    h0 = [int(t) for t in b.h_tile[g] if t >= 0]
    h1 = [int(t) for t in a.h_tile[g] if t >= 0]
    if h0 != h1:
        moved, gone, spawned = _pair_horrors(a, h0, h1, g)
        for t0, t1 in moved:
            if t0 != t1:
                ev.append(Event("horror", f"a horror moves from {where(a, t0, g)} to {where(a, t1, g)}"))
        for t0 in gone:
            why = "repelled" if kind == A.K_REPEL else "no victim within reach, or repelled"
            ev.append(Event("horror", f"the horror at {where(a, t0, g)} leaves the cave ({why})"))
        for t1 in spawned:
            ev.append(Event("horror", f"a horror spawns on {tile_name(a, t1, g)}"))

    # the hazard card and what it changed
    if hazard and card >= 0 and not horror_card:
        ev.append(_card_event(card))
    flooded = [int(t) for t in np.flatnonzero(a.t_flood[g] & ~b.t_flood[g])]
    if flooded:
        ev.append(Event("hazard", "flooded: " + ", ".join(where(a, t, g) for t in flooded)))
    rubble = [int(t) for t in np.flatnonzero(a.t_rubble[g] & ~b.t_rubble[g])]
    if rubble:
        ev.append(Event("hazard", "cave-in: rubble falls on " + ", ".join(where(a, t, g) for t in rubble)))
    if a.gas_active[g] and not b.gas_active[g]:
        ev.append(Event("hazard", "gas is spreading: entering a gas tile costs health until the next hazard phase"))

    # health
    turn_over = int(a.actor[g]) != seat or int(a.round[g]) != int(b.round[g]) or a.result[g] != RUNNING
    for s in range(a.num_seats):
        name = _caver(a, s, g)
        hp0, hp1 = int(b.c_hp[g, s]), int(a.c_hp[g, s])
        if a.c_dead[g, s] and not b.c_dead[g, s]:
            ev.append(Event("damage", f"{name} fails the Out of Time check and is DEVOURED"))
            continue
        if hp1 < hp0 and hp1 == 0 and int(a.c_tile[g, s]) >= 0 and (a.h_tile[g] == int(a.c_tile[g, s])).any():
            ev.append(Event("damage", f"{name} is caught by a horror and knocked out ({hp0} -> 0)"))
        elif hp1 < hp0:
            cause = _cause(b, a, s, seat, kind, hazard, card, turn_over, g)
            ko = " and is knocked out" if hp1 == 0 else ""
            ev.append(Event("damage", f"{name} loses {hp0 - hp1} health ({hp0} -> {hp1}){cause}{ko}"))
        elif hp1 > hp0:
            wake = " and wakes up" if hp0 == 0 else ""
            ev.append(Event("heal", f"{name} regains {hp1 - hp0} health ({hp0} -> {hp1}){wake}"))

    # turn, round, result
    if a.result[g] != RUNNING:
        escaped = int(((a.c_tile[g] == a.exit_tile[g]) & (a.exit_tile[g] >= 0)).sum())
        ev.append(Event("result", f"GAME OVER: {RESULT_NAMES[int(a.result[g])].upper()} "
                                  f"({escaped} of {a.num_seats} cavers escaped)"))
        return ev
    if int(a.round[g]) != int(b.round[g]):
        ev.append(Event("round", f"--- round {int(a.round[g])} begins; {_caver(a, int(a.start_seat[g]), g)} starts ---"))
    if int(a.actor[g]) != seat and int(a.actor[g]) >= 0 and not (a.directing[g] >= 0 and b.directing[g] < 0):
        ev.append(Event("turn", f"{_caver(a, int(a.actor[g]), g)}'s turn ({int(a.ap[g])} AP)"))
    return ev


def _pair_horrors(st: State, h0: list[int], h1: list[int], g: int
                  ) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """Match horrors before and after a step (closest first, at most 3 cells apart: a step moves a horror at most
    three times); the unmatched ones left or spawned."""
    def cell(t: int) -> tuple[int, int]:
        return int(st.t_x[g, t]), int(st.t_y[g, t])

    pairs = sorted((abs(cell(t0)[0] - cell(t1)[0]) + abs(cell(t0)[1] - cell(t1)[1]), i, j)
                   for i, t0 in enumerate(h0) for j, t1 in enumerate(h1))
    used0, used1, moved = set(), set(), []
    for dist, i, j in pairs:
        if dist <= 3 and i not in used0 and j not in used1:
            used0.add(i)
            used1.add(j)
            moved.append((h0[i], h1[j]))
    return (moved, [t for i, t in enumerate(h0) if i not in used0], [t for j, t in enumerate(h1) if j not in used1])


def _card_event(card: int) -> Event:
    base = "out of time" if card == C_OUT_OF_TIME else HAZARDS[card % X2]
    twice = " (twice: x2)" if X2 <= card < C_OUT_OF_TIME else ""
    return Event("hazard", f"HAZARD: {CARD_NAMES[card].upper()}: {HAZARD_TEXT[base]}{twice}")


def _cause(b: State, a: State, s: int, actor: int, kind: int, hazard: bool, card: int, turn_over: bool,
           g: int) -> str:
    """The likely cause of a caver's health loss in one step (a guess from public changes, for narration)."""
    t1 = int(a.c_tile[g, s])
    if hazard and card >= 0:
        return f" to the {CARD_NAMES[card]}" if card != C_OUT_OF_TIME else ""
    if kind == A.K_DEMOLISH:
        return " to the cave-in"
    if s == actor:
        t0 = int(b.c_tile[g, s])
        causes = []
        if t1 != t0 and t1 >= 0 and int(a.t_type[g, t1]) == T_ROUGH:
            causes.append("the rough terrain check fails")
        if t1 != t0 and t1 >= 0 and int(a.t_type[g, t1]) == T_GAS and b.gas_active[g]:
            causes.append("walking into gas")
        if turn_over and b.exerted[g]:
            causes.append("the exert check fails")
        if causes:
            return ": " + " and ".join(causes)
    return ""


__all__ = [
    "ACTION_HELP",
    "HAZARD_TEXT",
    "Event",
    "action_cost",
    "action_detail",
    "describe_action",
    "narrate",
    "pending_text",
    "tile_name",
    "where",
]
