"""Equipment: packing at the home base (R-ITC-ACT-12, SET-9), camps (R-ITC-ACT-13), discards (R-ITC-ACT-14),
with the slot limits of R-ITC-SET-7 and the bank of R-ITC-SET-6.

Per-game compiled functions on ``g`` and ``P``, as in ``rules.py``. Exchanges are free (0 AP) and count toward
the turn's cap of free actions (setting ``max_free_actions``) so that every game ends.
"""

from __future__ import annotations

from .jit import jit
from .layout import (
    AP,
    BANK,
    BP,
    CAM_LOST,
    CAMP,
    CAMP_GONE,
    CAMP_PACKED,
    CAMPC,
    E_CAMERA,
    E_OX1,
    FIRST_PACK,
    FREE_N,
    LOST,
    NK,
    P_PACK,
    P_SETUP,
    PEND,
    POS,
    PR_BACKPACK,
    PR_CAMP_SLOTS,
    PR_LIMITED,
    PR_MAX_FREE,
    RAFT_LOST,
)
from .rules import free_to_act
from .turns import HOME


@jit
def bank_kind(k):
    """The bank pile of equipment kind k (both oxygen sides are one pile), -1 for a camera or raft."""
    if k <= 1:
        return k
    if k <= E_OX1:
        return 2
    return -1


@jit
def bp_used(g, s):
    """R-ITC-SET-7: backpack slots in use; a packed camp covers 2."""
    n = 0
    for k in range(NK):
        n += g[BP + s * NK + k]
    return n + (2 if g[CAMP + s] == CAMP_PACKED else 0)


@jit
def camp_used(g, s):
    n = 0
    for k in range(NK):
        n += g[CAMPC + s * NK + k]
    return n


@jit
def free_left(g, P):
    return g[FREE_N] < P[PR_MAX_FREE]


@jit
def unique_at_home(g, s, k):
    """A team's camera or raft is at home: not packed, not in its camp, not lost (R-ITC-SET-7)."""
    lost = g[CAM_LOST + s] if k == E_CAMERA else g[RAFT_LOST + s]
    return lost == 0 and g[BP + s * NK + k] == 0 and g[CAMPC + s * NK + k] == 0


@jit
def can_draw_bank(g, P, s, k):
    """Equipment kind k can come from the bank (or from home, for the camera and raft)."""
    b = bank_kind(k)
    if b < 0:
        return unique_at_home(g, s, k)
    return P[PR_LIMITED] == 0 or g[BANK + b] > 0


@jit
def lose(g, s, k, n):
    """n tokens of kind k leave the game (abandoned or discarded camera/raft)."""
    if n <= 0:
        return
    b = bank_kind(k)
    if b >= 0:
        g[LOST + b] += n
    elif k == E_CAMERA:
        g[CAM_LOST + s] = 1
    else:
        g[RAFT_LOST + s] = 1


@jit
def packing(g):
    return g[PEND] == P_PACK or g[PEND] == P_SETUP


@jit
def can_pack(g, s):
    return free_to_act(g) and g[AP] >= 2 and g[POS + s] == HOME


@jit
def act12_pack(g):
    """R-ITC-ACT-12: 2 AP on the home base; then exchanges with the bank until done packing."""
    g[AP] -= 2
    g[PEND] = P_PACK


@jit
def can_take(g, P, s, k, camp):
    """Take kind k from the bank into the backpack (camp: into the camp, which must be placed on the home base)."""
    if not packing(g) or not free_left(g, P) or not can_draw_bank(g, P, s, k):
        return False
    if camp:
        return g[CAMP + s] == HOME and camp_used(g, s) < P[PR_CAMP_SLOTS]
    return bp_used(g, s) < P[PR_BACKPACK]


@jit
def act12_take(g, s, k, camp):
    b = bank_kind(k)
    if b >= 0:
        g[BANK + b] -= 1
    g[(CAMPC if camp else BP) + s * NK + k] += 1
    g[FREE_N] += 1


@jit
def can_return(g, P, s, k, camp):
    if not packing(g) or not free_left(g, P):
        return False
    if camp:
        return g[CAMP + s] == HOME and g[CAMPC + s * NK + k] > 0
    return g[BP + s * NK + k] > 0


@jit
def act12_return(g, s, k, camp):
    """Back to the bank (an oxygen token returns full); a camera or raft goes home."""
    b = bank_kind(k)
    if b >= 0:
        g[BANK + b] += 1
    g[(CAMPC if camp else BP) + s * NK + k] -= 1
    g[FREE_N] += 1


@jit
def can_camp_place(g, s):
    return free_to_act(g) and g[AP] >= 2 and g[CAMP + s] == CAMP_PACKED


@jit
def act13_camp_place(g, s):
    """R-ITC-ACT-13: 2 AP, the packed camp goes onto the current space (any kind)."""
    g[AP] -= 2
    g[CAMP + s] = g[POS + s]


@jit
def repack_cost(g, s):
    """1 AP, 0 for the team's first packing of its camp at the home base (R-ITC-ACT-13)."""
    return 0 if g[POS + s] == HOME and g[FIRST_PACK + s] == 0 else 1


@jit
def can_camp_repack(g, P, s):
    if g[PEND] != P_SETUP and not free_to_act(g):
        return False
    return (g[CAMP + s] == g[POS + s] and bp_used(g, s) + 2 <= P[PR_BACKPACK]
            and repack_cost(g, s) <= g[AP])


@jit
def act13_camp_repack(g, s):
    """R-ITC-ACT-13: camp and contents into 2 free backpack slots (contents out of reach while packed)."""
    c = repack_cost(g, s)
    if g[POS + s] == HOME:
        g[FIRST_PACK + s] = 1
    g[AP] -= c
    g[CAMP + s] = CAMP_PACKED


@jit
def can_camp_abandon(g, s):
    return free_to_act(g) and g[POS + s] == HOME and g[CAMP + s] == CAMP_PACKED


@jit
def act13_camp_abandon(g, s):
    """R-ITC-ACT-13: on the home base, the packed camp and its contents leave the game."""
    for k in range(NK):
        lose(g, s, k, g[CAMPC + s * NK + k])
        g[CAMPC + s * NK + k] = 0
    g[CAMP + s] = CAMP_GONE


@jit
def can_camp_exchange(g, P, s, k, to_camp):
    """R-ITC-ACT-13: the owner on its placed camp's space moves kind k between backpack and camp (0 AP)."""
    if not free_to_act(g) or not free_left(g, P) or g[CAMP + s] != g[POS + s]:
        return False
    if to_camp:
        return g[BP + s * NK + k] > 0 and camp_used(g, s) < P[PR_CAMP_SLOTS]
    return g[CAMPC + s * NK + k] > 0 and bp_used(g, s) < P[PR_BACKPACK]


@jit
def act13_camp_exchange(g, s, k, to_camp):
    d = 1 if to_camp else -1
    g[CAMPC + s * NK + k] += d
    g[BP + s * NK + k] -= d
    g[FREE_N] += 1


@jit
def can_discard(g, P, s, k):
    return free_to_act(g) and free_left(g, P) and g[BP + s * NK + k] > 0


@jit
def act14_discard(g, s, k):
    """R-ITC-ACT-14: back to the bank; a discarded camera or raft is lost for the game."""
    g[BP + s * NK + k] -= 1
    b = bank_kind(k)
    if b >= 0:
        g[BANK + b] += 1
    else:
        lose(g, s, k, 1)
    g[FREE_N] += 1

