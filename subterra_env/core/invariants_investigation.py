"""Investigation's invariants (R-INV), checked with the others by ``invariants.check_invariants``: every item in
exactly one place (the deck, one caver's hand, out of the game), none held by the devoured, item tokens only on
placed item tiles (at most 3), and step to step: items out of the game stay out, the deck only shrinks, a token
appears only on a newly placed tile. Every check is False (no violation) in the other games, where these fields
stay empty."""

from __future__ import annotations

import numpy as np

from ..config import GameConfig
from .catalogue import ALL_ITEMS, ITEM_TILES, NUM_ITEMS, T_ITEM
from .state import State


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
