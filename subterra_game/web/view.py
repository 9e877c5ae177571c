"""What the page draws, as plain JSON: the cave, the team panel, the legal actions with where they point.

Built from the public State only (as the terminal's ``tui`` and ``render``: never the order of the stack or
the deck, only their counts). Coordinates are grid cells relative to the start tile (x east, y south), so the
page needs no knowledge of the grid's size. Action labels and the narration come from ``subterra_game.narrate``;
nothing about the rules is decided here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from subterra_env.config import CAVER_NAMES
from subterra_env.games.sub_terra.core import actions as A
from subterra_env.games.sub_terra.core.catalogue import CARD_NAMES, CORE_TILE_TYPES, DX, DY, ITEM_NAMES, NUM_ITEMS, ROT_MASK
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import P_PLACE, RESULT_NAMES, RUNNING, State
from ..narrate import action_cost, action_detail, frontier_cells, pending_text, status_words, where
from subterra_env.info import game_info
from subterra_env.words import ability_status

# The tile types in a line each, for the page's legend and its tooltips (RULES.md R-TILE-*, R-HZ-*, R-VAR-*).
TILE_RULES = {
    "start": "the start tile: every caver begins here",
    "exit": "the way out: a caver on it cannot lose health; get everyone here (R-TILE-1)",
    "normal": "no effect (R-TILE-2)",
    "water": "floods at a Flood card; a flooded tile is entered only by Swim (R-TILE-3, R-HZ-2)",
    "gas": "a Gas card costs 2 health here, and entering it until the next hazard phase (R-HZ-3)",
    "cave-in": "a Cave-in card may fill it with rubble and hurt cavers on it (R-TILE-5, R-HZ-4)",
    "horror": "a horror den: horrors spawn here (R-TILE-10, R-HOR-4)",
    "squeeze": "entered only by Squeeze (2 AP), or by whoever places it with Explore (R-TILE-6)",
    "ledge": "no moving or revealing across its arrow side without a rope (R-TILE-7)",
    "slide": "no moving back against its arrow without a rope (R-TILE-8)",
    "rough": "entering it needs a skill check: on failure lose 1 health (R-TILE-9)",
    "bomb": "Annihilation: a bomb card is placed here (R-ANN-6)",
    "sanctuary": "Extraction: the sanctuary (R-VAR-2)",
    "item": "Investigation: an item token lies here",
}

# Action kinds whose argument (0..3) is a direction: the page puts them on the neighbouring cell.
DIRECTED = {A.K_REVEAL, A.K_EXPLORE, A.K_MOVE, A.K_STEP, A.K_SWIM, A.K_SQUEEZE, A.K_DIG, A.K_REPEL, A.K_EXCAVATE,
            A.K_DEMOLISH}


def _rel(st: State, t: int, g: int = 0) -> tuple[int, int]:
    return int(st.t_x[g, t]) - int(st.t_x[g, 0]), int(st.t_y[g, t]) - int(st.t_y[g, 0])


def frontier(st: State, g: int = 0, core: Core | None = None) -> list[tuple[int, int]]:
    """Empty cells beyond an open side of a placed tile (where a Reveal could put a tile), relative to the start."""
    sx, sy = int(st.t_x[g, 0]), int(st.t_y[g, 0])
    return sorted((x - sx, y - sy) for x, y in frontier_cells(st, g, core))


def tiles(st: State, g: int = 0) -> list[dict[str, Any]]:
    out = []
    for t in np.nonzero(st.t_type[g] >= 0)[0]:
        t = int(t)
        x, y = _rel(st, t, g)
        out.append({"i": t, "x": x, "y": y, "type": CORE_TILE_TYPES[int(st.t_type[g, t])], "open": int(st.t_open[g, t]),
                    "flood": bool(st.t_flood[g, t]), "rubble": bool(st.t_rubble[g, t]), "rope": bool(st.t_rope[g, t]),
                    "arrow": int(st.t_arrow[g, t]), "bomb": bool(st.t_bomb[g, t]), "item": bool(st.t_item[g, t]),
                    "where": where(st, t, g)})
    return out


def cavers(st: State, labels: Sequence[str], humans: set[int], g: int = 0) -> list[dict[str, Any]]:
    out = []
    for s in range(st.num_seats):
        rank = int(st.c_rank[g, s])
        t = int(st.c_tile[g, s])
        x, y = _rel(st, t, g) if t >= 0 else (None, None)
        out.append({"seat": s, "rank": rank, "caver": CAVER_NAMES[rank - 1], "player": labels[s],
                    "human": s in humans, "tile": t, "x": x, "y": y, "hp": int(st.c_hp[g, s]),
                    "max": int(st.c_max[g, s]), "dead": bool(st.c_dead[g, s]), "under": bool(st.c_under[g, s]),
                    "hidden": bool(st.c_hidden[g, s]), "bombs": int(st.c_bombs[g, s]),
                    "samples": int(st.c_samples[g, s]),
                    "items": [ITEM_NAMES[i] for i in range(NUM_ITEMS) if (int(st.c_items[g, s]) >> i) & 1],
                    "on_exit": bool(st.exit_tile[g] >= 0 and t == int(st.exit_tile[g]))})
    return out


def horrors(st: State, g: int = 0) -> list[dict[str, int]]:
    """Every monster's cell: horrors, then Extraction's leapers (``leaper`` true, R-EXT-4)."""
    out = []
    for leaper, tiles in ((False, st.h_tile[g]), (True, st.l_tile[g])):
        for t in tiles:
            if t >= 0:
                x, y = _rel(st, int(t), g)
                out.append({"x": x, "y": y, "leaper": leaper})
    return out


def action_target(st: State, action: int, g: int = 0) -> tuple[int, int] | None:
    """The cell a legal action points at (relative), or None when it has no place on the board."""
    kind, arg = int(A.ACTION_KIND[action]), int(A.ACTION_ARG[action])
    actor = int(st.actor[g])
    here = int(st.c_tile[g, actor]) if actor >= 0 else -1
    if here < 0:
        return None
    x, y = _rel(st, here, g)
    if kind in DIRECTED and arg < 4:
        return x + int(DX[arg]), y + int(DY[arg])
    if kind in (A.K_DIG, A.K_EXCAVATE):  # here
        return x, y
    if kind == A.K_SURFACE:  # onto the k-th water tile placed
        water = [int(t) for t in np.flatnonzero(st.t_type[g] == CORE_TILE_TYPES.index("water"))]
        return _rel(st, water[arg - 1], g) if arg <= len(water) else None
    return None


def legal_actions(core: Core, st: State, mask: np.ndarray, g: int = 0) -> list[dict[str, Any]]:
    out = []
    for a in np.flatnonzero(mask):
        a = int(a)
        target = action_target(st, a, g)
        entry: dict[str, Any] = {"id": a, "name": A.ACTION_NAMES[a], "cost": action_cost(core, a),
                                 "detail": action_detail(core, st, a, g), "kind": int(A.ACTION_KIND[a])}
        if target is not None:
            entry["x"], entry["y"] = target
        if int(A.ACTION_KIND[a]) == A.K_ROTATE and st.pend_tile[g] >= 0:
            entry["open"] = int(ROT_MASK[core.cat.tile_mask[int(st.pend_tile[g])], int(A.ACTION_ARG[a])])
        out.append(entry)
    return out


def placing(core: Core, st: State, g: int = 0) -> dict[str, Any] | None:
    """The drawn tile waiting for its rotation: where it goes and its type (the rotations are legal actions)."""
    actor = int(st.actor[g])
    if int(st.pend[g]) != P_PLACE or actor < 0 or st.pend_tile[g] < 0:
        return None
    here = int(st.c_tile[g, actor])
    x, y = _rel(st, here, g)
    d = int(st.pend_dir[g])
    return {"x": x + int(DX[d]), "y": y + int(DY[d]),
            "type": CORE_TILE_TYPES[int(core.cat.tile_type[int(st.pend_tile[g])])]}


def team(core: Core, st: State, max_cycles: int, g: int = 0) -> dict[str, Any]:
    cards = game_info(st, g)["hazard_cards_left"]
    last = int(st.last_card[g])
    code = int(st.result[g])
    actor = int(st.actor[g])
    escaped = game_info(st, g)["escaped"]
    warnings = []
    if code == RUNNING and actor >= 0:  # after the end (a result, or the round limit) nothing is coming
        if st.gas_active[g]:
            warnings.append("GAS: entering a gas tile costs health until the next hazard phase")
        if st.out_of_time[g]:
            warnings.append("OUT OF TIME: each round, cavers off the exit may be devoured")
        elif cards == 1:
            warnings.append("the next hazard card is Out of Time")
    return {"round": int(st.round[g]), "max_rounds": max_cycles, "actor": actor, "ap": int(st.ap[g]),
            "exerted": bool(st.exerted[g]), "cards_left": cards, "tiles_left": int(st.stack.shape[1] - st.stack_pos[g]),
            "ropes_left": int(st.ropes_left[g]), "horrors": int((st.h_tile[g] >= 0).sum()),
            "leapers": int((st.l_tile[g] >= 0).sum()),  # Extraction's (R-EXT-4); always 0 in other games
            "last_hazard": CARD_NAMES[last] if last >= 0 else None, "warnings": warnings,
            "pending": pending_text(core, st, g) if actor >= 0 else "",
            # abilities' counters and a scenario's progress (bombs), in words
            "status": [line for line in status_words(ability_status(st, g, core.cat))  # a turn's Direct: not
                       if actor >= 0 or not line.startswith("Leader:")],      # after the end
            "result": RESULT_NAMES[code] if code != RUNNING else None, "escaped": escaped}


def board_view(core: Core, st: State, mask: np.ndarray, labels: Sequence[str], humans: set[int],
               max_cycles: int) -> dict[str, Any]:
    """Everything the page draws for one moment of the game."""
    return {"tiles": tiles(st), "frontier": [{"x": x, "y": y} for x, y in frontier(st, 0, core)],
            "cavers": cavers(st, labels, humans), "horrors": horrors(st), "placing": placing(core, st),
            "team": team(core, st, max_cycles), "legal": legal_actions(core, st, mask) if st.actor[0] >= 0 else []}
