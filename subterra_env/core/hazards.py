"""Horror phase, hazard phase and end phase (R-RND-1, R-HZ) for the games `g` whose round just ended."""

from __future__ import annotations

import numpy as np

from ..config import GameConfig
from .catalogue import (C_CAVE_IN, C_FLOOD, C_GAS, C_HORROR, C_OUT_OF_TIME, C_TREMOR, T_CAVE_IN, T_GAS, T_WATER,
                        X2, Catalogue)
from .effects import (RANK_DIVER, RANK_ENGINEER, damage, horror_contact, move_horrors, on_exit, roll_d6, skill_pass,
                      spawn_horror)
from .state import State


def _tremor(cfg: GameConfig, st: State, g: np.ndarray) -> None:
    """R-HZ-1: every conscious caver not on the exit checks; failures lose health."""
    rolls = roll_d6(st, g, st.num_seats)  # one roll per seat in seat order (R-HZ-8)
    seats = np.broadcast_to(np.arange(st.num_seats), rolls.shape)
    failed = ~skill_pass(cfg, st, g[:, None], seats, rolls)
    damage(st, g, failed & (st.c_hp[g] > 0), cfg.tremor_damage, shielded=True)


def _on_tiles_of(st: State, g: np.ndarray, tiles: np.ndarray) -> np.ndarray:
    """(n, S) caver stands on a tile where tiles (n, T) is true."""
    ct = st.c_tile[g].astype(np.intp)
    return (ct >= 0) & tiles[np.arange(len(g))[:, None], np.maximum(ct, 0)]


def _flood(cfg: GameConfig, st: State, g: np.ndarray, times: int) -> None:
    """R-HZ-2: flood every water tile, then cavers on water tiles lose health (x2: the damage twice)."""
    water = st.t_type[g] == T_WATER
    st.t_flood[g] |= water
    amphibious = st.c_rank[g] == RANK_DIVER  # R-CAV-1: floods cost the Diver no health
    for _ in range(times):
        damage(st, g, _on_tiles_of(st, g, water) & ~amphibious, cfg.flood_damage, shielded=True)


def _gas(cfg: GameConfig, st: State, g: np.ndarray, times: int) -> None:
    """R-HZ-3: cavers on gas tiles lose health; entering a gas tile hurts until the next hazard phase."""
    gas = st.t_type[g] == T_GAS
    for _ in range(times):
        damage(st, g, _on_tiles_of(st, g, gas), cfg.gas_damage, shielded=True)
    st.gas_active[g] = True


def cave_in(cfg: GameConfig, cat: Catalogue, st: State, g: np.ndarray) -> None:
    """R-HZ-4: roll; matching cave-in tiles without rubble get rubble and hurt the cavers on them."""
    roll = roll_d6(st, g, 1)
    tcat = np.maximum(st.t_cat[g], 0)
    hit = ((st.t_type[g] == T_CAVE_IN) & ~st.t_rubble[g]
           & ((cat.die_a[tcat] == roll) | (cat.die_b[tcat] == roll)))
    st.t_rubble[g] |= hit
    vigilant = st.c_rank[g] == RANK_ENGINEER  # R-CAV-4: cave-ins cost the Engineer only 1 health
    amount = np.where(vigilant, cfg.engineer_cave_in_damage, cfg.cave_in_damage)
    damage(st, g, _on_tiles_of(st, g, hit), amount, shielded=True)


def _horror(cfg: GameConfig, st: State, g: np.ndarray, severe: bool) -> None:
    """R-HZ-5/6: move all horrors (twice for x2), then spawn one (x2: a second after recomputing)."""
    for _ in range(2 if severe else 1):
        move_horrors(cfg, st, g)
    for _ in range(2 if severe else 1):
        spawn_horror(cfg, st, g)


def hazard_phase(cfg: GameConfig, cat: Catalogue, st: State, g: np.ndarray) -> None:
    """Draw and resolve one hazard card per game; then the Out of Time checks (R-HZ-7)."""
    st.gas_active[g] = False  # gas entering damage lasts until the start of this phase (R-HZ-3)
    has_card = st.deck_pos[g] < (st.deck[g] >= 0).sum(1)
    card = np.where(has_card, st.deck[g, np.minimum(st.deck_pos[g], st.deck.shape[1] - 1)], -1)
    st.deck_pos[g] += has_card
    st.last_card[g] = card
    st.out_of_time[g] |= card == C_OUT_OF_TIME
    basic = np.where((card >= 0) & (card < C_OUT_OF_TIME), card % X2, -1)
    severe = (card >= X2) & (card < C_OUT_OF_TIME)
    for code in (C_TREMOR, C_FLOOD, C_CAVE_IN, C_GAS, C_HORROR):
        for sev in (False, True):
            sub = g[(basic == code) & (severe == sev)]
            if not len(sub):
                continue
            times = 2 if sev else 1
            if code == C_TREMOR:
                for _ in range(times):
                    _tremor(cfg, st, sub)
            elif code == C_FLOOD:
                _flood(cfg, st, sub, times)
            elif code == C_GAS:
                _gas(cfg, st, sub, times)
            elif code == C_CAVE_IN:
                for _ in range(times):
                    cave_in(cfg, cat, st, sub)
            else:
                _horror(cfg, st, sub, sev)
    late = g[st.out_of_time[g]]
    if len(late):
        rolls = roll_d6(st, late, st.num_seats)
        seats = np.broadcast_to(np.arange(st.num_seats), rolls.shape)
        failed = ~skill_pass(cfg, st, late[:, None], seats, rolls)
        eaten = failed & ~on_exit(st, late) & ~st.c_dead[late]
        st.c_dead[late] |= eaten
        st.c_under[late] &= ~eaten
        st.c_tile[late] = np.where(eaten, -1, st.c_tile[late])
        st.c_hp[late] = np.where(eaten, 0, st.c_hp[late])
    horror_contact(st, g)


def end_phase(st: State, g: np.ndarray) -> None:
    """R-RND-1 (4): hiding ends; the starting caver marker passes to the next seat not devoured (R-SET-6)."""
    st.c_hide_streak[g] = np.where(st.c_hid_now[g], st.c_hide_streak[g] + 1, 0)
    st.c_hid_now[g] = False
    st.c_hidden[g] = False
    s = st.num_seats
    alive = ~st.c_dead[g]
    offset = np.arange(1, s + 1)[None, :]
    cand = (st.start_seat[g][:, None] + offset) % s
    ok = alive[np.arange(len(g))[:, None], cand]
    first = np.argmax(ok, axis=1)
    st.start_seat[g] = np.where(ok.any(1), cand[np.arange(len(g)), first], st.start_seat[g])
    st.round[g] += 1
