"""Extraction's invariants (R-EXT), checked with the others by ``invariants.check_invariants``: leapers only on
placed tiles and never on the sanctuary, at most ``leaper_limit``, slots oldest first; biosamples conserved.
Every check is False (no violation) in the base game and in Annihilation, where these fields stay empty."""

from __future__ import annotations

import numpy as np

from subterra_env.config import GameConfig
from .catalogue import BIOSAMPLES, T_SANCTUARY
from .state import State


def _rows(st: State) -> np.ndarray:
    return np.arange(st.batch_size)[:, None]


def _on_placed(st: State, tiles: np.ndarray) -> np.ndarray:
    safe = np.clip(tiles, 0, st.t_cat.shape[1] - 1).astype(np.intp)
    return (tiles >= 0) & (tiles < st.n_tiles[:, None]) & (st.t_cat[_rows(st), safe] >= 0)


def _type_under(st: State, tiles: np.ndarray) -> np.ndarray:
    return st.t_type[_rows(st), np.clip(tiles, 0, st.t_cat.shape[1] - 1).astype(np.intp)]


def leapers(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    """R-EXT-4, R-EXT-7: leapers on placed tiles, never on the sanctuary, at most leaper_limit (none outside
    Extraction), slots filled first; with sanctuary_blocks_horrors no horror on it either."""
    on = st.l_tile >= 0
    limit = cfg.leaper_limit if cfg.scenario == "extraction" else 0
    bad = (on & ~_on_placed(st, st.l_tile)).any(1) | (on.sum(1) > limit)
    bad |= (on & (_type_under(st, st.l_tile) == T_SANCTUARY)).any(1)
    bad |= (~on[:, :-1] & on[:, 1:]).any(1)  # an empty slot before a leaper: slots are compacted
    if cfg.sanctuary_blocks_horrors:
        bad |= ((st.h_tile >= 0) & (_type_under(st, st.h_tile) == T_SANCTUARY)).any(1)
    return bad


def biosamples(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    """R-EXT-9: 0 <= cards held, at most 3 in all (none without the setting), none held by the devoured."""
    top = BIOSAMPLES if cfg.scenario == "extraction" and cfg.biosamples else 0
    return (st.c_samples < 0).any(1) | (st.c_samples.sum(1) > top) | (st.c_dead & (st.c_samples != 0)).any(1)


def biosamples_conserved(cfg: GameConfig, before: State, after: State) -> np.ndarray:
    """Biosamples are only moved: their total never grows, and falls only in a step where a caver is devoured
    (R-EXT-9 with R-ANN-8; a card given in that step may be lost with its new holder, so the count can exceed
    what the devoured held before)."""
    total_before, total_after = before.c_samples.sum(1), after.c_samples.sum(1)
    devoured = (after.c_dead & ~before.c_dead).any(1)
    return (total_after > total_before) | ((total_after < total_before) & ~devoured)
