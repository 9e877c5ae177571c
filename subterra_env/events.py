"""What the rules did in a step, as the compiled core logged it (``core/events.py``), decoded.

Turn the log on with ``record_events=True`` (``raw_env``, ``Episodes``); after each step ``env.last_events`` (or
``Episodes.events(slot)``) is the list of ``Event`` in the order the rules did them. Off by default: training
does not pay for it.

Fields by kind (``seat`` -1 and ``tile`` -1 where none; tiles are placement indices, 0 = the start tile):

=============== ====================================================================================
kind            fields
=============== ====================================================================================
draw            seat drew the tile ``value`` (catalogue id) to place, for a Reveal or Explore
place           seat placed ``value`` (catalogue id) as ``tile``, turned ``die`` quarter turns (R-CON-3)
discard         seat drew ``value`` (catalogue id) and discarded it: it would close the cave (R-CON-4), or the
                Scout's redraw (R-CAV-2)
move            seat entered ``tile`` from ``value`` (R-ACT-16)
dive / surface  the Diver leaves the cave from ``tile`` / comes up on ``tile`` (R-CAV-1)
check           seat rolled ``die`` for a skill check; ``value`` 1 passed, 0 failed; ``rule``: which check
damage          seat lost ``value`` health on ``tile`` (``die``: health left); ``rule``: the cause
protected       the Bodyguard kept ``value`` damage off seat (``die``: the index in RULE_IDS of the hazard)
heal            seat regained ``value`` health (``die``: health now)
hidden          seat is hidden this round (R-ACT-14)
rope / clear    a rope fixed / rubble cleared on ``tile`` by seat
blast           seat blasted side ``value`` of ``tile`` (R-CAV-4)
direct          seat takes a directed action (R-CAV-8)
horror_move     a horror moved from ``value`` to ``tile``, hunting seat (R-HOR-3)
horror_spawn    a horror spawned on ``tile`` (R-HOR-4)
horror_leave    the horror on ``tile`` left the cave (no victim in reach, R-HOR-3; repelled by seat, R-CAV-7)
card            the hazard card ``value`` was drawn (``core.catalogue.CARD_NAMES``)
roll            the cave-in die showed ``value`` (R-HZ-4)
flood / rubble  ``tile`` flooded (R-HZ-2) / filled with rubble (R-HZ-4, ``die``: the roll)
devoured        seat failed the Out of Time check on ``tile`` and was devoured (R-HZ-7)
turn            seat's turn begins with ``value`` AP on ``tile``
round           round ``value`` begins; seat starts it
result          the game ended with result ``value`` (0 defeat .. 3 gold), ``die`` cavers out (R-RND-4)
bomb            seat put a bomb token on ``tile`` (``value``: tokens placed so far, R-ANN-6)
transfer        seat gave a card (bomb, biosample) to the seat ``value`` on ``tile`` (R-ANN-7, R-EXT-9)
leaper_move     a leaper stepped from ``value`` to ``tile``, hunting seat (R-EXT-5: two such steps a move)
leaper_spawn    a leaper spawned on ``tile`` (R-EXT-3)
leaper_leave    the leaper on ``tile`` left: no victim in reach by its paths (R-EXT-8) or repelled by seat
slash           a leaper on ``tile`` slashed seat for ``value`` health and left the cave (R-EXT-6)
item_draw       seat took the item token on ``tile`` and drew the item ``value`` (``catalogue.ITEM_NAMES``;
                -1: the deck was empty) (R-INV-4)
item_use        seat's item ``value`` was used and discarded (``rule``: its R-INV rule), or lost with a
                devoured caver (R-INV-6); ``die``: the target (a direction, a rank) where it has one
doom            a Doom card is pending (``value`` 1), or the next card resolved doubled (``value``: its code)
reaction        seat answered its Gas Mask decision (setting ``explicit_reactions``, R-INV-18): ``value`` 1 use,
                0 decline; ``die``: the health the gas would take
=============== ====================================================================================
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .games.sub_terra.core.events import EV_MAX, EVENT_KINDS, RULE_IDS
from .games.sub_terra.core.state import State


class Event(NamedTuple):
    """One thing the rules did. ``kind``: one of ``EVENT_KINDS``; ``rule``: its rule ID ('' where none)."""

    kind: str
    seat: int
    tile: int
    value: int
    rule: str
    die: int


def decode(st: State, game: int = 0) -> list[Event]:
    """The events of the game's latest step (empty when logging is off or before the first step)."""
    packed = st.packed
    n = int(packed["ev_n"][game])
    rows = packed["ev"][game, :n].tolist()
    return [Event(EVENT_KINDS[k], s, t, v, RULE_IDS[r], d) for k, s, t, v, r, d in rows]


def lost(st: State, game: int = 0) -> int:
    """Events of the latest step that did not fit the log (``EV_MAX`` = 64 rows). Measured: 100,000 random games
    of 4 cavers on Normal wrote at most 18 events in a step, 100,000 of 6 cavers on Expert at most 50; none lost."""
    return int(st.packed["ev_lost"][game])


def set_logging(st: State, games: np.ndarray | slice, on: bool) -> None:
    """Turn the log on or off for these games (it empties at their next step)."""
    st.packed["ev_on"][games] = int(on)
    st.packed["ev_n"][games] = 0
    st.packed["ev_lost"][games] = 0


__all__ = ["EV_MAX", "EVENT_KINDS", "RULE_IDS", "Event", "decode", "lost", "set_logging"]
