"""Hazard phase and end phase (R-RND-1, R-HZ): compiled per-game functions for a game whose round just ended.

The hazard cards are a table: ``resolve_card`` dispatches a card code to the function of its hazard.
"""

from __future__ import annotations

from .catalogue import (C_CAVE_IN, C_FLOOD, C_GAS, C_HORROR, C_LEAPER, C_LEAPER_X2, C_OUT_OF_TIME, C_TREMOR,
                        SC_INVESTIGATION, T_CAVE_IN, T_GAS, T_WATER, X2)
from .effects import RANK_DIVER, damage, gas_damage, on_exit, roll_d6, skill_pass
from .monsters import monster_contact, move_monsters, spawn_monster
from .events import (E_CARD, E_CHECK, E_DEVOURED, E_FLOOD, E_ROLL, E_ROUND, E_RUBBLE, R_CAVE_IN, R_FLOOD, R_GAS,
                     R_OUT_OF_TIME, R_ROUND, R_TREMOR, log)
from .items import rinv3_doom, rinv6_lose_items
from .jit import jit
from .reactions import REACT_HAZARD
from .seating import seat_after


@jit
def failed_checks(g, P, why, spared):
    """Bitmask of the seats that fail a skill check, one roll per seat in seat order (R-HZ-8); the seats in
    ``spared`` make no check and roll nothing (R-INV-9 Spare Battery: 0 outside Investigation)."""
    failed = 0
    for s in range(g.n_seats):
        if (spared >> s) & 1:
            continue
        roll = roll_d6(g)
        ok = skill_pass(g, P, s, roll)
        log(g, E_CHECK, s, g.c_tile[s], ok, why, roll)
        if not ok:
            failed |= 1 << s
    return failed


@jit
def on_tiles_of_type(g, ttype):
    """Bitmask of the seats standing on a tile of the type."""
    seats = 0
    for s in range(g.n_seats):
        if g.c_tile[s] >= 0 and g.t_type[g.c_tile[s]] == ttype:
            seats |= 1 << s
    return seats


@jit
def tremor(g, P):
    """R-HZ-1: every conscious caver not on the exit checks; failures lose health."""
    failed = failed_checks(g, P, R_TREMOR, 0)
    for s in range(g.n_seats):
        if g.c_hp[s] <= 0:
            failed &= ~(1 << s)
    damage(g, failed, P.tremor_damage, True, -1, R_TREMOR)


@jit
def flood(g, P, times):
    """R-HZ-2: flood every water tile, then cavers on water tiles lose health (x2: the damage twice);
    floods cost the Diver no health (R-CAV-1)."""
    for t in range(g.n_tiles):
        if g.t_type[t] == T_WATER:
            if not g.t_flood[t]:
                log(g, E_FLOOD, -1, t, 0, R_FLOOD, 0)
            g.t_flood[t] = 1
    for _ in range(times):
        hurt = on_tiles_of_type(g, T_WATER)
        for s in range(g.n_seats):
            if g.c_rank[s] == RANK_DIVER:
                hurt &= ~(1 << s)
        damage(g, hurt, P.flood_damage, True, -1, R_FLOOD)


@jit
def gas(g, P, times):
    """R-HZ-3: cavers on gas tiles lose health; entering a gas tile hurts until the next hazard phase. In
    Investigation a Gas x2's damage comes as one loss, so one Gas Mask covers all of it (R-INV-18); under
    ``explicit_reactions`` that loss may wait for the Gas Mask holder's answer (the hazard phase pauses)."""
    if P.scenario == SC_INVESTIGATION:
        gas_damage(g, P, on_tiles_of_type(g, T_GAS), P.gas_damage * times, REACT_HAZARD)
        times = 0
    for _ in range(times):
        damage(g, on_tiles_of_type(g, T_GAS), P.gas_damage, True, -1, R_GAS)
    g.gas_active = 1


@jit
def cave_in(g, P):
    """R-HZ-4: roll; matching cave-in tiles without rubble get rubble and hurt the cavers on them (the Engineer's
    Vigilance: less, R-CAV-4)."""
    roll = roll_d6(g)
    log(g, E_ROLL, -1, -1, roll, R_CAVE_IN, roll)
    for t in range(g.n_tiles):
        c = g.t_cat[t]
        if g.t_type[t] == T_CAVE_IN and not g.t_rubble[t] and (P.die_a[c] == roll or P.die_b[c] == roll
                                                                  or P.die_c[c] == roll):  # R-ANN-3: unstable
            g.t_rubble[t] = 2  # 2 marks "hit by this roll"; set to 1 below
    hurt = 0
    for s in range(g.n_seats):
        if g.c_tile[s] >= 0 and g.t_rubble[g.c_tile[s]] == 2:
            hurt |= 1 << s
    for t in range(g.n_tiles):
        if g.t_rubble[t] == 2:
            log(g, E_RUBBLE, -1, t, 0, R_CAVE_IN, roll)
            g.t_rubble[t] = 1
    damage(g, hurt, P.cave_in_damage, True, P.engineer_cave_in_damage, R_CAVE_IN)


@jit
def horror_card(g, P, severe, leaper):
    """R-HZ-5/6: move all horrors (twice for x2), then spawn one (x2: a second after recomputing). A Leaper card
    (R-EXT-3) moves every monster the same way and spawns leapers."""
    times = 2 if severe else 1
    for _ in range(times):
        move_monsters(g, P)
    for _ in range(times):
        spawn_monster(g, P, leaper)


@jit
def resolve_card(g, P, card):
    """One hazard card: a basic card once, a severe (x2) card doubled as its rule says."""
    if card == C_LEAPER or card == C_LEAPER_X2:  # R-EXT-3
        horror_card(g, P, card == C_LEAPER_X2, True)
        return
    if card < 0 or card >= C_OUT_OF_TIME:
        return
    hazard = card % X2
    severe = card >= X2
    times = 2 if severe else 1
    if hazard == C_TREMOR:
        for _ in range(times):
            tremor(g, P)
    elif hazard == C_FLOOD:
        flood(g, P, times)
    elif hazard == C_CAVE_IN:
        for _ in range(times):
            cave_in(g, P)
    elif hazard == C_GAS:
        gas(g, P, times)
    elif hazard == C_HORROR:
        horror_card(g, P, severe, False)


@jit
def cards_in_deck(g):
    n = 0
    for i in range(g.deck.shape[0]):
        if g.deck[i] >= 0:
            n += 1
    return n


@jit
def cards_left(g):
    """Hazard cards not drawn yet (public: the count, never the order): the info, the observation, the bots."""
    return cards_in_deck(g) - g.deck_pos


@jit
def hazard_phase(g, P):
    """Draw and resolve one hazard card; then the Out of Time checks (R-HZ-7): failures are devoured. A Gas Mask
    decision (explicit_reactions, R-INV-18) pauses it after the card: the answer's step runs ``hazard_end``."""
    g.gas_active = 0  # gas entering damage lasts until the start of this phase (R-HZ-3)
    card = -1
    if g.deck_pos < cards_in_deck(g):
        card = g.deck[g.deck_pos]
        g.deck_pos += 1
    g.last_card = card
    if card >= 0:
        log(g, E_CARD, -1, -1, card, R_ROUND, 0)
    if card == C_OUT_OF_TIME:
        g.out_of_time = 1
    if P.scenario == SC_INVESTIGATION:  # R-INV-3: Doom doubles the next card
        card = rinv3_doom(g, card)
    resolve_card(g, P, card)
    if g.r_seat < 0:
        hazard_end(g, P)


@jit
def hazard_end(g, P):
    """The hazard phase after its card: the Out of Time checks (R-HZ-7), then monsters meet the cavers."""
    if g.out_of_time:
        failed = failed_checks(g, P, R_OUT_OF_TIME, g.battery)  # a Spare Battery spares its holder (R-INV-9)
        for s in range(g.n_seats):
            if (failed >> s) & 1 and not on_exit(g, s) and not g.c_dead[s]:
                log(g, E_DEVOURED, s, g.c_tile[s], g.c_hp[s], R_OUT_OF_TIME, 0)
                g.c_dead[s] = 1
                g.c_under[s] = 0
                g.c_tile[s] = -1
                g.c_hp[s] = 0
                g.c_bombs[s] = 0  # R-ANN-8: a devoured caver's cards are lost with it
                g.c_samples[s] = 0  # R-EXT-9 (as R-ANN-8)
                if g.c_items[s] != 0:
                    rinv6_lose_items(g, s)  # R-INV-6 (as R-ANN-8)
    monster_contact(g)


@jit
def end_phase(g):
    """R-RND-1 (4): hiding ends; the starting caver marker passes to the next seat not devoured (R-SET-6)."""
    n = g.n_seats
    for s in range(n):
        g.c_hide_streak[s] = g.c_hide_streak[s] + 1 if g.c_hid_now[s] else 0
        g.c_hid_now[s] = 0
        g.c_hidden[s] = 0
    for k in range(1, n + 1):
        s = seat_after(g.start_seat, k, n)
        if not g.c_dead[s]:
            g.start_seat = s
            break
    g.round += 1
    g.battery = 0  # R-INV-9: a Spare Battery lasts one hazard phase
    log(g, E_ROUND, g.start_seat, -1, g.round, R_ROUND, 0)
