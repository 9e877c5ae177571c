"""Dice, damage and entering effects (R-ACT-3, R-TILE): compiled per-game functions. Horrors and leapers are
in ``monsters.py``.

Sets of seats are bitmasks (bit s = seat s), so nothing here allocates.
"""

from __future__ import annotations

import numpy as np

from .catalogue import T_GAS, T_ROUGH
from .events import E_CHECK, E_DAMAGE, E_MOVE, E_PROTECTED, R_BODYGUARD, R_GAS, R_MOVEMENT, R_ROUGH, log
from .items import GAS_MASK_KEEPS, rinv17_18_absorb, rinv19_charm_bonus, rinv4_take_item_token
from .jit import jit
from .reactions import REACT_ENTER, rinv18_ask
from .rng import draw_one
from .state import FORCED

RANK_DIVER, RANK_SCOUT, RANK_GEOLOGIST, RANK_ENGINEER, RANK_CLIMBER, RANK_MEDIC, RANK_BODYGUARD, RANK_LEADER = range(1, 9)
KNOCK_OUT = 127  # damage that takes any caver to 0 health (a horror's touch, R-HOR-5)
_SIX, _ONE = np.uint64(6), np.uint64(1)
_S12, _S16, _S24 = np.uint64(12), np.uint64(16), np.uint64(24)
HAZARD_SLOT = 15  # resync_dice's slot for the horror and hazard phases (seats are 0..5)


@jit
def roll_d6(g):
    """One die roll from the game's own stream; scenario dice replace the stream's first FORCED draws."""
    c = g.ctr
    face = np.int64(draw_one(g.key, c) % _SIX) + 1
    g.ctr = c + _ONE
    if c < FORCED and g.forced[c] > 0:
        face = g.forced[c]
    return face


@jit
def resync_dice(g, P, slot, part):
    """Common random numbers for a search's rollouts (``P.crn_dice``, never set in a real game): each caver's turn,
    its exert check and each round's hazard phase draw from their own block of the game's counter, keyed by the
    round and the seat, so two rollouts of one sampled world that took different actions still meet the same later
    dice, and the search compares actions rather than luck."""
    if P.crn_dice:
        g.ctr = (np.uint64(g.round) << _S24) | (np.uint64(slot) << _S16) | (np.uint64(part) << _S12)


@jit
def skill_pass(g, P, seat, roll):
    """Skill check outcome of a seat with a roll (R-ACT-3; the conscious Leader adds his bonus, R-CAV-8; a holder
    of any biosample has -1, not -1 per card, R-EXT-9)."""
    bonus = P.leader_bonus if g.c_rank[seat] == RANK_LEADER and g.c_hp[seat] > 0 else 0
    if g.c_samples[seat] > 0:
        bonus -= 1
    if g.c_items[seat] != 0:  # Investigation: the Lucky Charm (R-INV-19)
        bonus += rinv19_charm_bonus(g, seat)
    return roll + bonus >= P.skill_target


@jit
def check_one(g, P, seat, why):
    """Roll and check once for one seat (``why``: the rule asking, for the event log)."""
    roll = roll_d6(g)
    ok = skill_pass(g, P, seat, roll)
    log(g, E_CHECK, seat, g.c_tile[seat], ok, why, roll)
    return ok


@jit
def on_exit(g, seat):
    """The caver stands on the exit tile."""
    return g.exit_tile >= 0 and g.c_tile[seat] == g.exit_tile


@jit
def guard_tile(g):
    """Tile of the conscious Bodyguard (R-CAV-7, R-CAV-9), -9 = none."""
    for s in range(g.n_seats):
        if g.c_rank[s] == RANK_BODYGUARD and g.c_hp[s] > 0 and not g.c_dead[s]:
            return g.c_tile[s]
    return -9


@jit
def out_of_reach(g, s):
    """Nothing hurts a caver on the exit tile (R-TILE-1) or a devoured one."""
    return on_exit(g, s) or g.c_dead[s] != 0


@jit
def protected(g, s, guard):
    """The Bodyguard's Protector covers the others on his tile (R-CAV-7); guard: that tile, -9 = none."""
    return g.c_tile[s] == guard and g.c_rank[s] != RANK_BODYGUARD


@jit
def exposed(g, hurt, shielded):
    """The seats of the bitmask ``hurt`` that ``damage`` would reach, after the base protections (R-INV-6): not on
    the exit, not devoured, not under the Protector when ``shielded``."""
    guard = guard_tile(g) if shielded else -9
    reach = 0
    for s in range(g.n_seats):
        if (hurt >> s) & 1 and not out_of_reach(g, s) and not protected(g, s, guard):
            reach |= 1 << s
    return reach


@jit
def damage(g, hurt, amount, shielded, vigilant_amount, why):
    """Seats in the bitmask ``hurt`` lose health; nobody on the exit tile or devoured does (R-TILE-1).

    shielded: Flood, Gas, Cave-in or Tremor damage, which the Bodyguard's Protector stops for the others on his
    tile (R-CAV-7); who is protected is settled before anyone is hurt. vigilant_amount >= 0: the Engineer loses
    that much instead (a cave-in, R-CAV-4); GAS_MASK_KEEPS (-2): gas damage under Investigation's setting
    ``gas_mask_keeps`` (R-INV-18). why: the rule doing it, for the event log."""
    guard = guard_tile(g) if shielded else -9
    for s in range(g.n_seats):
        if not (hurt >> s) & 1 or out_of_reach(g, s):
            continue
        if protected(g, s, guard):
            log(g, E_PROTECTED, s, g.c_tile[s], amount, R_BODYGUARD, why)  # die column: the rule it stopped
            continue
        lose = vigilant_amount if vigilant_amount >= 0 and g.c_rank[s] == RANK_ENGINEER else amount
        if g.c_items[s] != 0:  # Investigation: the Gas Mask, then Body Armor (R-INV-6, R-INV-17, R-INV-18)
            lose = rinv17_18_absorb(g, s, lose, why, vigilant_amount == GAS_MASK_KEEPS)
        before = g.c_hp[s]
        g.c_hp[s] = max(before - lose, 0)
        if g.c_hp[s] < before:
            log(g, E_DAMAGE, s, g.c_tile[s], before - g.c_hp[s], why, g.c_hp[s])


@jit
def gas_damage(g, P, hurt, lose, resume):
    """Gas takes ``lose`` health from the seats in ``hurt`` (R-HZ-3; the Protector shields, the Gas Mask and Body
    Armor react: R-INV-6, R-INV-17, R-INV-18). Under ``explicit_reactions`` with ``resume`` > 0 (the resolution to
    go on with: reactions.REACT_*), the Gas Mask's holder, if it would hurt it, decides first: then nobody is hurt
    yet, the decision is pending, and the answer's step applies this damage (``resume`` = 0) and goes on."""
    if resume > 0 and P.explicit_reactions and rinv18_ask(g, P, hurt, exposed(g, hurt, True), lose, resume):
        return
    damage(g, hurt, lose, True, GAS_MASK_KEEPS if P.gas_mask_keeps else -1, R_GAS)


@jit
def enter_tile(g, P, seat, dest):
    """Move a caver onto a tile with its entering effects: gas (R-HZ-3), rough terrain (R-TILE-9).

    Monsters on the tile are handled by monsters.horror_contact, which the step runs after every action (R-HOR-5,
    R-EXT-6). Under ``explicit_reactions`` the gas may wait for the mover's Gas Mask decision (R-INV-18): the step
    then pauses after the action (``turns.step_game``)."""
    log(g, E_MOVE, seat, dest, g.c_tile[seat], R_MOVEMENT, 0)
    g.c_tile[seat] = dest
    if g.t_item[dest]:  # Investigation: the first to enter an item tile draws an item (R-INV-4)
        rinv4_take_item_token(g, seat, dest)
    ttype = g.t_type[dest]
    if ttype == T_GAS and g.gas_active:
        gas_damage(g, P, 1 << seat, P.gas_enter_damage, REACT_ENTER)
    if ttype == T_ROUGH and not check_one(g, P, seat, R_ROUGH):
        damage(g, 1 << seat, 1, False, -1, R_ROUGH)
