"""The heuristic's weights, in AP units unless noted: one float64 array (the compiled code's argument), with a
name per index. ``HeuristicAgent(..., **weights)`` overrides them by name, for experiments; most of the plans'
hand-set constants are among them, so ``training/tune_heuristic.py`` can sweep them. Retuned 2026-11-27
(``time_w`` 1.0 -> 0.7, ``heal_at_1`` 1 -> 0, ``hide`` 1.0 -> 1.4; docs/training.md "The heuristic's weights")."""

from __future__ import annotations

import numpy as np

DEFAULTS: dict[str, float] = {
    "tile": 1.0,  # a tile drawn while the exit is hidden
    "hp_ap": 2.0,  # a health point lost (a heal costs 2 AP)
    "pos": 0.7,  # per AP the next turn needs to reach the frontier from where this one ends
    "escape": 6.0,  # bonus for ending on the exit
    "time_w": 0.7,  # per AP of the way to the exit (or to a knocked-out teammate) still to go
    "rescue_range": 4.0,  # exit hidden: revive teammates up to this many AP away
    "revive": 8.0,  # bonus for reaching a knocked-out teammate with the AP to heal him
    "exert_margin": 0.0,  # what an Exert for a tile must gain beyond its expected cost
    "exert_hp": 2.0,  # exert for a tile only with at least this much health
    "exit_exert_hp": 3.0,  # exit placed: exert on the way with at least this much health
    "urgent_cards": 2.0,  # ... or with 2 health once this few hazard cards are left
    "pace": 2.5,  # AP a caver covers per turn on the way out (runs, exerts), for time estimates
    "ko_extra": 3.0,  # a knock-out costs its health plus this, in health points
    "heal_at_1": 0.0,  # 1: a caver on 1 health heals himself before anything else (exit hidden); 0: the plans weigh it
    "heal1": 3.0,  # worth of one more health point at 1 health (2 and 3: below; 4: 0.5, else 0.3)
    "haz_scale": 0.6,  # weight of the hazard cards' tile damage (flood, gas, cave-in) at the stop
    "care": 0.5,  # share of a bandage's worth credited for ending next to the Medic
    "hide": 1.4,  # share of the horrors' danger a Hide is credited with averting, times the check's odds
    "heal2": 1.4,  # worth of one more health point at 2 health
    "heal3": 0.7,  # ... at 3 health
    "draw_more": 0.85,  # worth of a tile drawn beyond this tile's free sides (the caver moves on to draw it)
    "explore_pos": 0.3,  # AP to the frontier charged after a turn that ends exploring onto a new tile
    "exit_exert_gain": 0.5,  # exit placed: an Exert must gain this much (AP) beyond the plan without it
    "direct_step": 0.8,  # exit placed: worth of a directed step toward the exit, in time_w units
}
NAMES = tuple(DEFAULTS)
(TILE, HP_AP, POS, ESCAPE, TIME_W, RESCUE_RANGE, REVIVE, EXERT_MARGIN, EXERT_HP, EXIT_EXERT_HP, URGENT_CARDS, PACE,
 KO_EXTRA, HEAL_AT_1, HEAL1, HAZ_SCALE, CARE, HIDE, HEAL2, HEAL3, DRAW_MORE, EXPLORE_POS, EXIT_EXERT_GAIN,
 DIRECT_STEP) = range(len(NAMES))


def weights(**overrides: float) -> np.ndarray:
    """The weights array with some overridden by name; an unknown name is an error that lists the known ones."""
    unknown = sorted(set(overrides) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"unknown heuristic weight(s) {unknown}; known: {list(NAMES)}")
    return np.array([float(overrides.get(k, v)) for k, v in DEFAULTS.items()], dtype=np.float64)
