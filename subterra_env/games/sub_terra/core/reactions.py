"""Investigation's Gas Mask as its holder's decision (setting ``explicit_reactions``, RULES_VAR.md R-INV-5 and
R-INV-18): a pause of the resolution that is about to hurt with gas, not a turn.

Without the setting the mask fires by itself inside ``effects.damage`` (``items.rinv17_18_absorb``). With it, gas
damage about to hurt the caver who holds the Gas Mask (after the base protections of R-INV-6: the exit, the
Bodyguard's Protector; a caver at 0 health loses nothing and is not asked) stops before anyone is hurt: the holder
becomes the acting seat and answers "use gas mask" or "decline gas mask" knowing how much health the gas would
take (``r_lose``). Its answer's step then applies the gas damage as the automatic rule would, except that a holder
who declined keeps its mask and is hurt (Body Armor still fires by itself), and resumes the resolution where the
automatic version goes on: the hazard phase (a Gas card, ``REACT_HAZARD``) or the step of the action that entered
an active gas tile (``REACT_ENTER``). One Gas Mask card exists (R-INV-2), so one holder at most is asked; the
others the gas hurts (``r_hurt``) are hurt with it after the answer, as they would be without the setting.

The state lives in the ``r_*`` fields (``state.REACTION_FIELDS``), empty whenever no decision is pending, so a game
without one is the same state, and has the same hash, as before the setting existed. Like ``items.py`` this module
imports nothing from the rest of the rules, so ``effects`` can open a decision; ``turns`` closes it.
"""

from __future__ import annotations

from .catalogue import I_GAS_MASK
from .events import E_REACTION, log
from .items import R_INV_18, holds
from .jit import jit

REACT_HAZARD, REACT_ENTER = 1, 2  # ``r_from``: the resolution to resume after the answer


@jit
def rinv18_ask(g, P, hurt, exposed, lose, resume):
    """Open a Gas Mask decision for gas about to take ``lose`` health from the seats in ``hurt``, of which
    ``exposed`` are not shielded by a base protection: asked is the exposed holder of the Gas Mask with health (a
    caver at 0 loses nothing, R-INV-6), only where the mask changes the loss (under ``gas_mask_keeps`` the holder
    loses 1 either way when the gas takes 1). ``resume``: the resolution the answer goes on with (REACT_*).
    Returns True when the decision is open: the caller leaves the damage to the answer's step."""
    if lose <= 0 or (P.gas_mask_keeps and lose <= 1):
        return False
    for s in range(g.n_seats):
        if (exposed >> s) & 1 and g.c_hp[s] > 0 and holds(g, s, I_GAS_MASK):
            g.r_seat = s
            g.r_lose = lose
            g.r_hurt = hurt  # protected ones included: the damage then logs who was shielded, as without the pause
            g.r_actor = g.actor
            g.r_from = resume
            g.actor = s
            return True
    return False


@jit
def rinv18_answer(g, use):
    """The holder's answer (logged: ``value`` 1 use, 0 decline; ``die`` the health at stake). A decline is noted in
    ``r_no`` (``items.rinv17_18_absorb`` then leaves the mask in hand). The acting seat goes back to the one the
    pause interrupted; returns the resolution to resume (its gas damage, ``r_hurt`` and ``r_lose``, still to
    apply)."""
    seat = g.r_seat
    log(g, E_REACTION, seat, g.c_tile[seat], 1 if use else 0, R_INV_18, g.r_lose)
    if not use:
        g.r_no |= 1 << seat
    g.r_seat = -1
    g.actor = g.r_actor
    return g.r_from


@jit
def rinv18_close(g):
    """Once the gas damage is applied: every field of the decision back to empty (outside the state hash)."""
    g.r_lose = 0
    g.r_hurt = 0
    g.r_no = 0
    g.r_actor = -1
    g.r_from = 0
