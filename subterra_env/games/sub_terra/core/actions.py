"""The action codec: one fixed Discrete(A) table shared by every caver.

Each id has a kind and an argument (a direction, a rank or a rotation). New kinds (the cavers' abilities,
R-CAV) are appended at the end, so existing ids never move.

| ids | name | AP | legal when |
|---|---|---|---|
| 0 | end turn | 0 | always, except while placing a tile or inside a run |
| 1 | exert | +1 | once per turn (R-ACT-2) |
| 2-5 | reveal N/E/S/W | 1 | open side with an empty cell beyond, stack not empty (R-ACT-5) |
| 6-9 | explore N/E/S/W | 1 | as reveal (R-ACT-7) |
| 10-13 | move N/E/S/W | 1 | connected, not flooded, not squeeze, no rubble (R-ACT-6) |
| 14 | run | 2 | a first step is possible (R-ACT-8) |
| 15-18 | run step N/E/S/W | 0 | inside a run, as move |
| 19 | stop | 0 | inside a run after at least one step |
| 20-23 | swim N/E/S/W | 2 | connected flooded tile (R-ACT-10) |
| 24-27 | squeeze N/E/S/W | 2 | connected squeeze tile (R-ACT-11) |
| 28 | dig here | 2 | rubble here (R-ACT-12) |
| 29-32 | dig N/E/S/W | 2 | rubble on the connected tile |
| 33 | place rope | 2 | on a ledge/slide without rope, tokens left (R-ACT-13) |
| 34 | hide | 2 | not hidden this round (R-ACT-14) |
| 35-42 | heal caver 1..8 | 2 | that caver (rank) is on your tile and hurt (R-ACT-9) |
| 43-46 | rotate 0/90/180/270 | 0 | placing a revealed tile: opens toward you, keeps the cave open (R-CON-4) |
| 47 | gear | 1 | Climber on a ledge/slide without rope, tokens left (R-CAV-5) |
| 48-55 | bandage caver 1..8 | 1 | Medic; another caver on the tile, hurt (R-CAV-6) |
| 56 | sprint | 1 | Medic; a first step is possible; then up to 2 `run step` decisions (R-CAV-6) |
| 57-60 | repel N/E/S/W | 1 | Bodyguard; a horror on the connected tile (R-CAV-7) |
| 61 | excavate here | 1 | Geologist; rubble here (R-CAV-3) |
| 62-65 | excavate N/E/S/W | 1 | Geologist; rubble on the connected tile |
| 66-73 | direct caver 1..8 | 1 | Leader, once per turn; another conscious caver, not under water (R-CAV-8) |
| 74 | redraw tile | 0 | Scout placing a tile: discard it, place the next (3 per game, never the exit) (R-CAV-2) |
| 75-76 | place drawn tile / place set-aside tile | 0 | Geologist revealing: which of the two to place (R-CAV-3) |
| 77-80 | demolish N/E/S/W | 2 | Engineer; a side not connected, tokens left; then a Cave-in event (R-CAV-4) |
| 81 | dive | 2 | Diver on a water tile (R-CAV-1) |
| 82-89 | surface 1..8 | 1 | Diver under water, at the start of his turn: on the k-th water tile placed |

Scenario actions (RULES_VAR.md) come after these; the base game's env (``subterra_v1``) sees only ids 0..89
(``NUM_ACTIONS``), a scenario's env the first ``num_actions(scenario)``:

| ids | name | AP | legal when |
|---|---|---|---|
| 90 | place bomb | 1 | Annihilation: holding a bomb card, on a bomb tile without a token (R-ANN-6) |
| 91-98 | give card to caver 1..8 | 1 | holding a card; that caver on your tile (R-ANN-7; Extraction: R-EXT-9) |
| 99-106 | take card from caver 1..8 | 1 | that caver unconscious on your tile, holding one (R-ANN-7, R-EXT-9) |

Transfer moves the scenario's card: a bomb card in Annihilation, a biosample in Extraction (RULES_VAR.md's *card*),
so Extraction's env has the same 107 ids, "place bomb" never legal there. In Investigation the card is an item
(R-INV-6): when the giver holds more than one, "transfer item X" (below) then names it.

Investigation (R-INV-5..18) adds, after those (its env sees all ``NUM_ACTIONS_ALL`` = 154 ids):

| ids | name | AP | legal when |
|---|---|---|---|
| 107 | shovel here | 1 | holding the Shovel, rubble here (R-INV-7) |
| 108-111 | shovel N/E/S/W | 1 | holding the Shovel, rubble on the connected tile |
| 112-119 | signal booster caver 1..8 | 0 | holding it; another conscious caver, not under water (R-INV-8) |
| 120 | spare battery | 0 | holding it; Out of Time drawn or next; not yet active for you (R-INV-9) |
| 121 | flare | 1 | holding it; a side where Reveal is legal (R-INV-10) |
| 122 | adrenaline | 0 | holding it (R-INV-11) |
| 123 | painkillers | 1 | holding them, hurt (R-INV-12) |
| 124 | grappling hook | 1 | holding it, on a rope-less ledge or slide, rope tokens left (R-INV-13) |
| 125-128 | grenade N/E/S/W | 1 | holding it, a monster on the connected tile (R-INV-14) |
| 129-132 | explosive N/E/S/W | 1 | holding it, a side as Demolish may take (R-INV-15) |
| 133-136 | flare side N/E/S/W | 0 | during a Flare: the next side to reveal (R-INV-10) |
| 137 | scrawled map redraw | 0 | holding the Map, placing a tile (not the exit, not a bomb), tiles left (R-INV-16) |
| 138-151 | transfer item X | 0 | after give/take: the item to move, held by the giver (R-INV-6) |
| 152-153 | use / decline gas mask | 0 | setting `explicit_reactions`: the holder asked, gas about to hurt it (R-INV-18) |

0-AP items are not taken under the Leader's Direct or a Signal Booster (they grant time, not an action).
The Gas Mask answers (152-153) are a pause of the gas damage's resolution, not a turn: while one is pending they are
the only legal ids, for its holder (``core/reactions.py``); without ``explicit_reactions`` they are never legal.

While a caver acts under the Leader's Direct, only its 1-AP actions are legal (and the decisions they lead
to); "end turn" declines and hands the turn back to the Leader.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from subterra_env.config import CAVER_NAMES
from .catalogue import DIR_NAMES, ITEM_NAMES

(K_END, K_EXERT, K_REVEAL, K_EXPLORE, K_MOVE, K_RUN, K_STEP, K_STOP, K_SWIM, K_SQUEEZE, K_DIG, K_ROPE, K_HIDE,
 K_HEAL, K_ROTATE) = range(15)
# The cavers' abilities (R-CAV), appended so the ids above never move.
K_GEAR, K_BANDAGE, K_SPRINT, K_REPEL, K_EXCAVATE, K_DIRECT, K_REDRAW, K_PICK, K_DEMOLISH, K_DIVE, K_SURFACE = \
    range(15, 26)
# The scenarios' actions (RULES_VAR.md), after every base id.
K_PLACE_BOMB, K_GIVE, K_TAKE = range(26, 29)
# Investigation (R-INV-5..16): one kind per action item, in catalogue.ITEM_NAMES order (item = kind - K_SHOVEL),
# then Flare's next side, the Scrawled Map's redraw and the item a Transfer moves.
(K_SHOVEL, K_BOOSTER, K_BATTERY, K_FLARE, K_ADRENALINE, K_PAINKILLERS, K_HOOK, K_GRENADE, K_EXPLOSIVE, K_FLARE_SIDE,
 K_MAP, K_ITEM_PICK) = range(29, 41)
K_GAS_MASK = 41  # the Gas Mask's yes/no under explicit_reactions (R-INV-5, R-INV-18): argument 1 = use it, 0 = not
NUM_KINDS = 42

HERE = 4  # the argument of "dig here" and "excavate here" (directions are 0..3)
_table: list[tuple[int, int, str]] = []  # (kind, argument, name)


def _add(kind: int, args, fmt: str) -> None:
    for a in args:
        _table.append((kind, a, fmt.format(a=a, d=DIR_NAMES[a] if isinstance(a, int) and a < 4 else a)))


_add(K_END, [0], "end turn")
_add(K_EXERT, [0], "exert")
_add(K_REVEAL, range(4), "reveal {d}")
_add(K_EXPLORE, range(4), "explore {d}")
_add(K_MOVE, range(4), "move {d}")
_add(K_RUN, [0], "run")
_add(K_STEP, range(4), "run step {d}")
_add(K_STOP, [0], "stop")
_add(K_SWIM, range(4), "swim {d}")
_add(K_SQUEEZE, range(4), "squeeze {d}")
_table.append((K_DIG, HERE, "dig here"))
_add(K_DIG, range(4), "dig {d}")
_add(K_ROPE, [0], "place rope")
_add(K_HIDE, [0], "hide")
for _rank in range(1, 9):
    _table.append((K_HEAL, _rank, f"heal caver {_rank}"))
for _r in range(4):
    _table.append((K_ROTATE, _r, f"rotate {90 * _r}"))
_add(K_GEAR, [0], "gear")  # Climber (R-CAV-5)
for _rank in range(1, 9):
    _table.append((K_BANDAGE, _rank, f"bandage caver {_rank}"))  # Medic (R-CAV-6)
_add(K_SPRINT, [0], "sprint")  # Medic (R-CAV-6)
_add(K_REPEL, range(4), "repel {d}")  # Bodyguard (R-CAV-7)
_table.append((K_EXCAVATE, HERE, "excavate here"))  # Geologist (R-CAV-3)
_add(K_EXCAVATE, range(4), "excavate {d}")
for _rank in range(1, 9):
    _table.append((K_DIRECT, _rank, f"direct caver {_rank}"))  # Leader (R-CAV-8)
_add(K_REDRAW, [0], "redraw tile")  # Scout (R-CAV-2)
_table.append((K_PICK, 0, "place drawn tile"))  # Geologist (R-CAV-3)
_table.append((K_PICK, 1, "place set-aside tile"))
_add(K_DEMOLISH, range(4), "demolish {d}")  # Engineer (R-CAV-4)
_add(K_DIVE, [0], "dive")  # Diver (R-CAV-1)
for _k in range(1, 9):
    _table.append((K_SURFACE, _k, f"surface {_k}"))  # on the k-th water tile placed

NUM_ACTIONS = len(_table)  # the base game's action space (subterra_v1): these ids never move
assert NUM_ACTIONS == 90
_add(K_PLACE_BOMB, [0], "place bomb")  # R-ANN-6
for _rank in range(1, 9):
    _table.append((K_GIVE, _rank, f"give card to caver {_rank}"))  # R-ANN-7, R-EXT-9
for _rank in range(1, 9):
    _table.append((K_TAKE, _rank, f"take card from caver {_rank}"))  # R-ANN-7, R-EXT-9
NUM_CARD_ACTIONS = len(_table)  # Annihilation's and Extraction's action space
assert NUM_CARD_ACTIONS == 107
_table.append((K_SHOVEL, HERE, "shovel here"))  # R-INV-7
_add(K_SHOVEL, range(4), "shovel {d}")
for _rank in range(1, 9):
    _table.append((K_BOOSTER, _rank, f"signal booster caver {_rank}"))  # R-INV-8
_add(K_BATTERY, [0], "spare battery")  # R-INV-9
_add(K_FLARE, [0], "flare")  # R-INV-10
_add(K_ADRENALINE, [0], "adrenaline")  # R-INV-11
_add(K_PAINKILLERS, [0], "painkillers")  # R-INV-12
_add(K_HOOK, [0], "grappling hook")  # R-INV-13
_add(K_GRENADE, range(4), "grenade {d}")  # R-INV-14
_add(K_EXPLOSIVE, range(4), "explosive {d}")  # R-INV-15
_add(K_FLARE_SIDE, range(4), "flare side {d}")  # R-INV-10
_add(K_MAP, [0], "scrawled map redraw")  # R-INV-16
for _i, _name in enumerate(ITEM_NAMES):
    _table.append((K_ITEM_PICK, _i, f"transfer item {_name}"))  # R-INV-6
_table.append((K_GAS_MASK, 1, "use gas mask"))  # R-INV-18 with explicit_reactions
_table.append((K_GAS_MASK, 0, "decline gas mask"))
NUM_ACTIONS_ALL = len(_table)  # every id the compiled rules know
assert NUM_ACTIONS_ALL == 154
_SCENARIO_ACTIONS = {"base": NUM_ACTIONS, "annihilation": NUM_CARD_ACTIONS, "extraction": NUM_CARD_ACTIONS,
                     "investigation": NUM_ACTIONS_ALL}
ACTION_KIND = np.array([k for k, _, _ in _table], dtype=np.int8)
ACTION_ARG = np.array([a for _, a, _ in _table], dtype=np.int8)
ACTION_NAMES: tuple[str, ...] = tuple(n for _, _, n in _table)
_ID = {n: i for i, n in enumerate(ACTION_NAMES)}

# Base AP cost per kind (explore and heal come from the config).
KIND_COST = np.zeros(NUM_KINDS, dtype=np.int8)
KIND_COST[[K_REVEAL, K_MOVE, K_GEAR, K_BANDAGE, K_SPRINT, K_REPEL, K_EXCAVATE, K_DIRECT]] = 1
KIND_COST[[K_RUN, K_SWIM, K_SQUEEZE, K_DIG, K_ROPE, K_HIDE, K_DEMOLISH, K_DIVE]] = 2
KIND_COST[K_SURFACE] = 1
KIND_COST[[K_PLACE_BOMB, K_GIVE, K_TAKE]] = 1  # [default]s; the config's place_bomb_cost and transfer_cost
# R-INV-5 [default]: 1 AP (the config's item_cost), Signal Booster, Spare Battery and Adrenaline 0
ITEM_KINDS_1AP = (K_SHOVEL, K_FLARE, K_PAINKILLERS, K_HOOK, K_GRENADE, K_EXPLOSIVE)
KIND_COST[list(ITEM_KINDS_1AP)] = 1
EXERT_BONUS = 1  # AP that Exert adds for the rest of the turn (R-ACT-2)


def first(kind: int) -> int:
    """Id of the first action of a kind (for kind + argument arithmetic)."""
    return int(np.argmax(ACTION_KIND == kind))


A_END, A_EXERT, A_REVEAL, A_EXPLORE, A_MOVE = first(K_END), first(K_EXERT), first(K_REVEAL), first(K_EXPLORE), \
    first(K_MOVE)
A_RUN, A_STEP, A_STOP, A_SWIM, A_SQUEEZE = first(K_RUN), first(K_STEP), first(K_STOP), first(K_SWIM), first(K_SQUEEZE)
A_DIG_HERE, A_DIG, A_ROPE, A_HIDE = _ID["dig here"], _ID["dig N"], first(K_ROPE), first(K_HIDE)
A_HEAL, A_ROTATE = first(K_HEAL), first(K_ROTATE)  # heal caver rank r is A_HEAL + r - 1
A_GEAR, A_BANDAGE, A_SPRINT, A_REPEL = first(K_GEAR), first(K_BANDAGE), first(K_SPRINT), first(K_REPEL)
A_EXCAVATE_HERE, A_EXCAVATE, A_DIRECT = _ID["excavate here"], _ID["excavate N"], first(K_DIRECT)
A_REDRAW, A_PICK, A_DEMOLISH, A_DIVE, A_SURFACE = first(K_REDRAW), first(K_PICK), first(K_DEMOLISH), first(K_DIVE), \
    first(K_SURFACE)
A_PLACE_BOMB, A_GIVE, A_TAKE = first(K_PLACE_BOMB), first(K_GIVE), first(K_TAKE)  # give to rank r: A_GIVE + r - 1
A_SHOVEL_HERE, A_SHOVEL, A_BOOSTER = _ID["shovel here"], _ID["shovel N"], first(K_BOOSTER)
A_BATTERY, A_FLARE, A_ADRENALINE, A_PAINKILLERS, A_HOOK = first(K_BATTERY), first(K_FLARE), first(K_ADRENALINE), \
    first(K_PAINKILLERS), first(K_HOOK)
A_GRENADE, A_EXPLOSIVE, A_FLARE_SIDE, A_MAP, A_ITEM_PICK = first(K_GRENADE), first(K_EXPLOSIVE), first(K_FLARE_SIDE), \
    first(K_MAP), first(K_ITEM_PICK)
A_GAS_MASK_USE, A_GAS_MASK_DECLINE = _ID["use gas mask"], _ID["decline gas mask"]


def num_actions(scenario: str = "base") -> int:
    """Size of a scenario's action space: the base ids, then the ids that scenario adds."""
    return _SCENARIO_ACTIONS[scenario]


class IllegalActionError(ValueError):
    """An action that the acting caver (In the Cave: team) may not take now; the message lists the legal ones. The
    one class of both games (``subterra_env.games.in_the_cave.core.actions`` imports it)."""


def scenarios_with(action: int) -> list[str]:
    """The scenarios whose action space holds id ``action`` (the base game's ids are in every one)."""
    return [sc for sc, n in _SCENARIO_ACTIONS.items() if 0 <= action < n]


def action_id(name: str, scenario: Any = None) -> int:
    """Id of an action by its name, e.g. ``action_id("move E")``; names as in ACTION_NAMES (every scenario's).

    ``scenario``: a scenario name or a config (anything with a ``scenario`` field, a ``GameConfig``): the id must
    be in that scenario's action space (masks are ``num_actions(scenario)`` wide: 90, 107 or 154), else a
    ValueError names the scenarios that have the action, rather than an IndexError later on a mask."""
    try:
        a = _ID[name]
    except KeyError:
        raise ValueError(f"unknown action name {name!r}; known: {ACTION_NAMES}") from None
    if scenario is None:
        return a
    sc = scenario if isinstance(scenario, str) else getattr(scenario, "scenario", None)
    if sc not in _SCENARIO_ACTIONS:
        raise ValueError(f"scenario {scenario!r}: expected one of {list(_SCENARIO_ACTIONS)} or a config with a "
                         "'scenario' field")
    if a >= _SCENARIO_ACTIONS[sc]:
        have = scenarios_with(a)
        who = f"scenario {have[0]!r} has it" if len(have) == 1 else \
            f"scenarios {', '.join(repr(x) for x in have)} have it"
        raise ValueError(f"action {name!r} (id {a}) is not in the action space of scenario {sc!r} (ids 0.."
                         f"{_SCENARIO_ACTIONS[sc] - 1}, masks {_SCENARIO_ACTIONS[sc]} wide): {who}")
    return a


def describe(action: int) -> str:
    return ACTION_NAMES[action] if 0 <= action < NUM_ACTIONS_ALL else f"<invalid action {action}>"


def caver_of_heal(action: int) -> str:
    return CAVER_NAMES[ACTION_ARG[action] - 1]
