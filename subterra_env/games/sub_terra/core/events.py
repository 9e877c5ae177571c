"""The event log: what the rules did in a game's latest step, written by the compiled rules as they do it.

Each game's record holds a small log (``EV_MAX`` rows of ``EV_WIDTH`` int16: kind, seat, tile, value, rule, die)
that ``step_game`` empties before each decision and the rules append to: a tile drawn, placed or discarded, a
caver moving, every die rolled with its check's outcome, damage with its cause, horrors moving, spawning and
leaving, the hazard card, floods and rubble, the turn, the round and the result. Logging is off unless the game's
``ev_on`` flag is set (the episode layer sets it for play, records and replays; training leaves it off, where a
``log`` costs one branch). A step that would write more than ``EV_MAX`` rows counts the rest in ``ev_lost``.

The meaning of each row's fields by kind, and the decoded form, are in ``subterra_env.events``; this module holds
the codes the compiled rules write. ``rule`` is an index into ``RULE_IDS``: the rule of RULES.md that did it.
"""

from __future__ import annotations

from .jit import jit

EV_MAX = 64  # rows per step (see subterra_env/events.py for how many games needed how many)
EV_WIDTH = 6  # kind, seat, tile, value, rule, die

EVENT_KINDS: tuple[str, ...] = (
    "draw", "place", "discard", "move", "dive", "surface", "check", "damage", "protected", "heal", "hidden",
    "rope", "clear", "blast", "direct", "horror_move", "horror_spawn", "horror_leave", "card", "roll", "flood",
    "rubble", "devoured", "turn", "round", "result", "bomb", "transfer", "leaper_move", "leaper_spawn",
    "leaper_leave", "slash", "item_draw", "item_use", "doom", "reaction",
)
(E_DRAW, E_PLACE, E_DISCARD, E_MOVE, E_DIVE, E_SURFACE, E_CHECK, E_DAMAGE, E_PROTECTED, E_HEAL, E_HIDDEN,
 E_ROPE, E_CLEAR, E_BLAST, E_DIRECT, E_HORROR_MOVE, E_HORROR_SPAWN, E_HORROR_LEAVE, E_CARD, E_ROLL, E_FLOOD,
 E_RUBBLE, E_DEVOURED, E_TURN, E_ROUND, E_RESULT, E_BOMB, E_TRANSFER, E_LEAPER_MOVE, E_LEAPER_SPAWN, E_LEAPER_LEAVE,
 E_SLASH, E_ITEM_DRAW, E_ITEM_USE, E_DOOM, E_REACTION) = range(len(EVENT_KINDS))

# The rules an event can name (index 0: none).
RULE_IDS: tuple[str, ...] = (
    "", "R-ACT-2", "R-ACT-5", "R-ACT-7", "R-ACT-9", "R-ACT-12", "R-ACT-13", "R-ACT-14", "R-ACT-16", "R-CON-3",
    "R-CON-4", "R-TILE-9", "R-HOR-3", "R-HOR-4", "R-HOR-5", "R-HZ-1", "R-HZ-2", "R-HZ-3", "R-HZ-4", "R-HZ-7",
    "R-RND-1", "R-RND-4", "R-CAV-1", "R-CAV-2", "R-CAV-3", "R-CAV-4", "R-CAV-5", "R-CAV-6", "R-CAV-7",
    "R-CAV-8", "R-ANN-6", "R-ANN-7", "R-ANN-9", "R-EXT-3", "R-EXT-5", "R-EXT-6", "R-EXT-8", "R-EXT-9",
) + tuple(f"R-INV-{i}" for i in range(1, 21))
(R_NONE, R_EXERT, R_REVEAL, R_EXPLORE, R_HEAL, R_DIG, R_ROPE, R_HIDE, R_MOVEMENT, R_PLACE, R_CLOSED, R_ROUGH,
 R_HORROR_MOVE, R_HORROR_SPAWN, R_HORROR_TOUCH, R_TREMOR, R_FLOOD, R_GAS, R_CAVE_IN, R_OUT_OF_TIME, R_ROUND,
 R_RESULT, R_DIVER, R_SCOUT, R_GEOLOGIST, R_ENGINEER, R_CLIMBER, R_MEDIC, R_BODYGUARD,
 R_LEADER, R_PLACE_BOMB, R_TRANSFER, R_ANN_RESULT, R_LEAPER_SPAWN, R_LEAPER_MOVE, R_SLASH, R_CUT_OFF,
 R_EXT_RESULT) = range(len(RULE_IDS) - 20)
R_INV_1 = R_EXT_RESULT + 1  # R-INV-n is R_INV_1 + n - 1
assert RULE_IDS[R_INV_1] == "R-INV-1" and len(RULE_IDS) == R_INV_1 + 20


@jit
def log(g, kind, seat, tile, value, rule, die):
    """Append one event to the game's log (nothing when logging is off)."""
    if not g.ev_on:
        return
    n = g.ev_n
    if n >= EV_MAX:
        g.ev_lost += 1
        return
    g.ev[n, 0] = kind
    g.ev[n, 1] = seat
    g.ev[n, 2] = tile
    g.ev[n, 3] = value
    g.ev[n, 4] = rule
    g.ev[n, 5] = die
    g.ev_n = n + 1


@jit
def clear_log(g):
    """Empty the log before a decision is applied (the log holds one step)."""
    g.ev_n = 0
    g.ev_lost = 0
