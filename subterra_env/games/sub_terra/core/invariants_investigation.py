"""Investigation's invariants (R-INV), checked with the others by ``invariants.check_invariants``: every item in
exactly one place (the deck, one caver's hand, out of the game), none held by the devoured, item tokens only on
placed item tiles (at most 3), a pending Gas Mask decision consistent (explicit_reactions, R-INV-18), and step to
step: items out of the game stay out, the deck only shrinks, a token appears only on a newly placed tile. Every
check is False (no violation) in the other games, where these fields stay empty."""

from __future__ import annotations

import numpy as np

from subterra_env.config import GameConfig
from .actions import A_GAS_MASK_DECLINE, A_GAS_MASK_USE
from .catalogue import ALL_ITEMS, I_GAS_MASK, ITEM_TILES, NUM_ITEMS, T_GAS, T_ITEM
from .reactions import REACT_ENTER, REACT_HAZARD
from .state import RUNNING, State


def _deck_mask(st: State) -> tuple[np.ndarray, np.ndarray]:
    """(B,) the items still in the deck as a bitmask, and (B,) whether any of them repeats or is no item."""
    later = np.arange(NUM_ITEMS)[None, :] >= st.i_pos[:, None]
    cards = st.i_deck.astype(np.int64)
    valid = later & (cards >= 0) & (cards < NUM_ITEMS)
    bits = np.where(valid, np.left_shift(1, np.clip(cards, 0, NUM_ITEMS - 1)), 0)
    mask = np.bitwise_or.reduce(bits, axis=1)
    broken = (later & ~valid).any(1) | (np.bitwise_count(mask.astype(np.uint64)) != valid.sum(1))
    return mask, broken


def items(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    """R-INV-2, R-INV-6: each of the 14 items is in exactly one place (deck, one hand, out of the game); the
    devoured hold none; no items outside Investigation."""
    held = st.c_items.astype(np.int64) & 0xFFFF
    if cfg.scenario != "investigation":
        return (held != 0).any(1) | (st.i_out != 0) | (st.i_pos != 0) | st.t_item.any(1) | st.doom.astype(bool)
    deck, broken = _deck_mask(st)
    out = st.i_out.astype(np.int64) & 0xFFFF
    everything = np.concatenate([held, deck[:, None], out[:, None]], axis=1)
    counts = np.bitwise_count(everything.astype(np.uint64)).sum(1)
    union = np.bitwise_or.reduce(everything, axis=1)
    bad = broken | (counts != NUM_ITEMS) | (union != ALL_ITEMS) | (st.i_pos < 0) | (st.i_pos > NUM_ITEMS)
    return bad | (st.c_dead & (held != 0)).any(1)


def item_tokens(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    """R-INV-4: item tokens only on placed item tiles, at most 3 (the item tiles)."""
    inside = np.arange(st.t_cat.shape[1])[None, :] < st.n_tiles[:, None]
    return (st.t_item & ~(inside & (st.t_type == T_ITEM))).any(1) | (st.t_item.sum(1) > ITEM_TILES)


def items_never_return(cfg: GameConfig, before: State, after: State) -> np.ndarray:
    """Items out of the game stay out, the item deck is never refilled, a token appears only on a tile placed in
    this step (R-INV-4, R-INV-5)."""
    lost = (before.i_out.astype(np.int64) & ~after.i_out.astype(np.int64) & 0xFFFF) != 0
    new_tile = np.arange(after.t_cat.shape[1])[None, :] >= before.n_tiles[:, None]
    appeared = (after.t_item & ~before.t_item & ~new_tile).any(1)
    return lost | (after.i_pos < before.i_pos) | appeared


def gas_mask_decision(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    """R-INV-5, R-INV-18 (explicit_reactions): no decision, every ``r_*`` field empty; a pending one only in a running
    Investigation game with the setting, its holder acting with only the two answers legal, holding the Gas Mask,
    with health, on a gas tile (it stands there, or has just entered it), among the seats the gas hurts, the gas
    taking some health, nobody's answer in yet; an entered tile hurts the mover alone, who acted."""
    pending = st.r_seat >= 0
    empty = ((st.r_lose == 0) & (st.r_hurt == 0) & (st.r_no == 0) & (st.r_actor == -1) & (st.r_from == 0))
    if not pending.any():
        return ~empty
    rows = np.arange(st.batch_size)
    seat = np.clip(st.r_seat, 0, st.num_seats - 1).astype(np.intp)
    tile = st.c_tile[rows, seat]
    gas_here = (tile >= 0) & (st.t_type[rows, np.maximum(tile, 0)] == T_GAS)
    holds = (st.c_items[rows, seat].astype(np.int64) >> I_GAS_MASK) & 1 != 0
    me = np.left_shift(1, seat.astype(np.int64))
    hurt = st.r_hurt.astype(np.int64) & 0xFF
    answers = np.zeros(mask.shape[1], dtype=bool)
    if mask.shape[1] > A_GAS_MASK_DECLINE:
        answers[[A_GAS_MASK_USE, A_GAS_MASK_DECLINE]] = True
    entered = (st.r_from == REACT_ENTER) & (hurt == me) & (st.r_actor == st.r_seat)
    ok = ((cfg.scenario == "investigation") & cfg.explicit_reactions & (st.result == RUNNING)
          & (st.actor == st.r_seat) & (st.r_seat < st.num_seats) & holds & (st.c_hp[rows, seat] > 0)
          & ~st.c_dead[rows, seat].astype(bool) & gas_here & (st.r_lose > 0) & ((hurt & me) != 0) & (st.r_no == 0)
          & (st.r_actor >= 0) & ((st.r_from == REACT_HAZARD) | entered) & (mask == answers[None, :]).all(1))
    return np.where(pending, ~ok, ~empty)
