"""Invariants of the rules that hold after every step of every game, checked over a whole batch at once.

Why: random and property-based play reaches far more states than the hand-written rule tests. These checks turn
an inconsistency (a tile lost, a horror off the map, a result that disagrees with the positions, a running game
with nothing to do) into an :class:`InvariantError` naming the invariant and the first game that breaks it,
instead of a silently wrong game. Everything is vectorised over the batch (no Python loop over games), so the soak
benchmark can afford to run the checks after every step.

Usage::

    before = snapshot(st)                 # only for the step-to-step checks; None skips them
    core.step(st, actions)
    check_invariants(core.cfg, before, st, core.legal_mask(st))
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

from subterra_env.config import GameConfig
from .actions import EXERT_BONUS
from . import invariants_extraction as extraction
from . import invariants_investigation as investigation
from .board import unindexed_tiles
from .catalogue import BIOSAMPLES, BIT, BOMBS, DX, DY, I_ADRENALINE, OPPOSITE, T_BOMB, T_EXIT, build
from .effects import RANK_DIVER
from .state import RUNNING, State


StateCheck = Callable[[GameConfig, State, np.ndarray], np.ndarray]
StepCheck = Callable[[GameConfig, State, State], np.ndarray]


class InvariantError(AssertionError):
    """An invariant does not hold. ``invariant`` names it, ``games`` lists the batch indices that break it."""

    def __init__(self, invariant: str, games: np.ndarray, detail: str):
        self.invariant = invariant
        self.games = np.asarray(games, dtype=np.intp)
        super().__init__(f"invariant {invariant!r} violated in game {int(self.games[0])} "
                         f"({len(self.games)} game(s) in all): {detail}")


def snapshot(st: State) -> State:
    """A ``before`` for :func:`check_invariants`: a copy of every field (no step-to-step check reads the grid)."""
    return State(**{f.name: getattr(st, f.name).copy() for f in dataclasses.fields(st)})


# ---------------------------------------------------------------------------------------------- helpers
def on_exit(st: State, g: np.ndarray) -> np.ndarray:
    """(n, S) caver stands on the exit tile."""
    return (st.c_tile[g] == st.exit_tile[g][:, None]) & (st.exit_tile[g][:, None] >= 0)


def _rows(st: State) -> np.ndarray:
    """(B, 1) batch index for fancy indexing along the game axis."""
    return np.arange(st.batch_size)[:, None]


def _placed(st: State, tiles: np.ndarray) -> np.ndarray:
    """Same shape as tiles (B, k): the index names a tile on the table (in range and with a catalogue id)."""
    safe = np.clip(tiles, 0, st.t_cat.shape[1] - 1).astype(np.intp)
    return (tiles >= 0) & (tiles < st.n_tiles[:, None]) & (st.t_cat[_rows(st), safe] >= 0)


def _cards_left(st: State) -> np.ndarray:
    """(B,) hazard cards not yet drawn (Out of Time included)."""
    return (st.deck >= 0).sum(1) - st.deck_pos


def _dead_end_discards(cfg: GameConfig, st: State) -> np.ndarray:
    """(B,) tiles drawn from the stack that the dead-end rule (R-CON-4) discarded.

    The conserved quantity is: placed cave tiles (n_tiles - 1, the start tile is not from the stack) + tiles left
    in the stack + tiles held (the pending drawn tile, the Geologist's set-aside tile) + Scout redraw discards
    (R-CAV-2, counted by scout_redraws) + dead-end discards = stack size. The state does not track dead-end
    discards, so they are the remainder: it must be >= 0 and can never shrink (checked step to step).
    """
    held = (st.pend_tile >= 0).astype(np.int64) + (st.aside_tile >= 0)
    scout = cfg.scout_redraws - st.scout_redraws.astype(np.int64)
    not_drawn = 2 if cfg.scenario == "annihilation" else 1  # the start tile, and Annihilation's exit (R-ANN-1)
    return st.stack_pos.astype(np.int64) - (st.n_tiles.astype(np.int64) - not_drawn) - held - scout


def _games_of(st: State, games: np.ndarray) -> np.ndarray:
    """(B,) bool: True at the given game indices (from a sparse check)."""
    bad = np.zeros(st.batch_size, dtype=bool)
    bad[games] = True
    return bad


# ---------------------------------------------------------------------------------------------- state checks
def _health(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    bad = (st.c_hp < 0) | (st.c_hp > st.c_max) | (st.c_dead & (st.c_hp != 0))
    return bad.any(1)


def _ap(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    top = cfg.action_points + EXERT_BONUS * st.exerted.astype(np.int16)  # the most a turn can ever hold
    top = top + ((st.i_out.astype(np.int16) >> I_ADRENALINE) & 1)  # Investigation: Adrenaline's +1 (R-INV-11)
    running = st.result == RUNNING
    bad = (st.ap > top) | (running & (st.ap < 0))
    saved = st.directing >= 0  # the Leader's AP waiting while his Direct is carried out (R-CAV-8)
    return bad | (saved & ((st.saved_ap < 0) | (st.saved_ap > top)))


def _horror_count(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    return (st.h_tile >= 0).sum(1) > cfg.horror_limit  # R-HOR-1 (the setting is at most 3)


def _horrors_on_tiles(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    return ((st.h_tile >= 0) & ~_placed(st, st.h_tile)).any(1)


def _connections(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    """R-CON-1: a -> b through side d means b -> a through the opposite side, b is the adjacent cell's tile,
    and both sides are open (blasted sides are set in t_open too).

    Sparse over the tiles that have a link (a tile's four int8 sides read as one uint32) with flat 1-D takes:
    several times faster than a dense (B, T, 4) gather, which matters when the soak checks every step.
    """
    nbr = np.ascontiguousarray(st.t_nbr)
    size = nbr.shape[1]
    tiles = np.flatnonzero(nbr.view(np.uint32).ravel() != np.uint32(0xFFFFFFFF))  # flat game * size + tile
    g = tiles // size
    t = (tiles - g * size)[:, None]
    links = nbr.reshape(-1, 4)[tiles]  # (k, 4) linked tile per side
    u = np.clip(links, 0, size - 1)
    other = (g * size)[:, None] + u  # flat index of the linked tile
    n = st.n_tiles[g][:, None]
    tx, ty = st.t_x.ravel(), st.t_y.ravel()
    broken = ((nbr.ravel().take(other * 4 + OPPOSITE) != t) | (links >= size) | (u >= n) | (t >= n)
              | (tx.take(other) - tx.take(tiles)[:, None] != DX) | (ty.take(other) - ty.take(tiles)[:, None] != DY)
              | ((st.t_open.ravel().take(tiles)[:, None] & BIT) == 0))
    return _games_of(st, g[((links >= 0) & broken).any(1)])


def _board(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    """Tiles 0..n_tiles-1 are placed, each on a cell of its own; later slots are empty."""
    t = np.arange(st.t_cat.shape[1])[None, :]
    inside = t < st.n_tiles[:, None]
    bad = (inside & (st.t_cat < 0)) | (~inside & (st.t_cat >= 0))
    # Two placed tiles on one cell: equal cell numbers once sorted (unplaced slots get distinct negative numbers).
    cell = np.where(inside, st.t_y.astype(np.int64) * st.grid_side + st.t_x, -1 - t)
    cell.sort(axis=1)
    return bad.any(1) | (cell[:, 1:] == cell[:, :-1]).any(1)


def _cell_index(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    """The packed state's cell index finds every placed tile at its cell (a State without packing passes)."""
    bad = np.zeros(st.batch_size, dtype=bool)
    if st._packed is not None:
        unindexed_tiles(st.packed, bad)
    return bad


def _cards(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    return _cards_left(st) < 0


def _tiles(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    return ((_dead_end_discards(cfg, st) < 0) | (st.stack_pos > st.stack.shape[1])
            | (st.scout_redraws < 0) | (st.scout_redraws > cfg.scout_redraws))


def _one_exit(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    exits = (st.t_type == T_EXIT).sum(1)
    safe = np.maximum(st.exit_tile, 0).astype(np.intp)
    named = st.t_type[np.arange(st.batch_size), safe] == T_EXIT
    return (exits > 1) | ((st.exit_tile >= 0) != (exits == 1)) | ((st.exit_tile >= 0) & ~named)


def _exit_kept(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    """With the exit never discarded (R-CON-4, R-CAV-2 defaults) it is placed, held, or still in the stack."""
    if not cfg.exit_never_discarded or cfg.scout_may_discard_exit:
        return np.zeros(st.batch_size, dtype=bool)
    exit_id = build(cfg).exit_id  # build is cached per config
    later = np.arange(st.stack.shape[1])[None, :] >= st.stack_pos[:, None]
    kept = ((st.exit_tile >= 0) | (st.pend_tile == exit_id) | (st.aside_tile == exit_id)
            | ((st.stack == exit_id) & later).any(1))
    return ~kept


def _caver_positions(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    """Cavers stand on placed tiles unless devoured or under water; those two have no tile (R-HZ-7, R-CAV-1)."""
    off = st.c_dead | st.c_under
    bad = (~off & ~_placed(st, st.c_tile)) | (off & (st.c_tile != -1))
    bad |= st.c_dead & st.c_under
    bad |= st.c_under & (st.c_rank != RANK_DIVER)
    return bad.any(1)


def _masks(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    """A running game offers its acting caver (a seat not devoured) some action; an ended game offers none."""
    running = st.result == RUNNING
    seat = np.clip(st.actor, 0, st.num_seats - 1).astype(np.intp)
    actor_ok = (st.actor >= 0) & (st.actor < st.num_seats) & ~st.c_dead[np.arange(st.batch_size), seat]
    any_action = mask.any(1)
    return np.where(running, ~any_action | ~actor_ok, any_action)


def _results(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    """R-RND-4: an ended game's result is 3 minus the cavers not on the exit (floor 0), its actor is -1; a running
    game still has a conscious caver (R-RND-3)."""
    running = st.result == RUNNING
    left_behind = (~on_exit(st, np.arange(st.batch_size))).sum(1)
    medal = np.maximum(3 - left_behind, 0)
    if cfg.scenario == "annihilation":  # R-ANN-9: defeat while a bomb tile (anywhere) lacks its token
        medal = np.where(st.t_bomb.sum(1) < _bomb_tiles(cfg, st), 0, medal)
    if cfg.scenario == "extraction" and cfg.biosamples:  # R-EXT-9: defeat unless every biosample is out
        out = on_exit(st, np.arange(st.batch_size))
        medal = np.where((st.c_samples * out).sum(1) < BIOSAMPLES, 0, medal)
    scored = (st.result == medal) & (st.actor == -1)
    conscious = ((st.c_hp > 0) & ~st.c_dead).any(1)
    return np.where(running, ~conscious, ~scored)


def _bombs(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    """Annihilation: bomb tokens only on placed bomb tiles; cards held >= 0; cards + tokens <= 3 (R-ANN-5, R-ANN-6);
    a devoured caver holds none (R-ANN-8). Zero everywhere in the base game."""
    inside = np.arange(st.t_cat.shape[1])[None, :] < st.n_tiles[:, None]
    bad = (st.t_bomb & ~(inside & (st.t_type == T_BOMB))).any(1) | (st.c_bombs < 0).any(1)
    bad |= st.c_bombs.sum(1) + st.t_bomb.sum(1) > (BOMBS if cfg.scenario == "annihilation" else 0)
    return bad | (st.c_dead & (st.c_bombs != 0)).any(1)


def _bomb_tiles_kept(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    """R-ANN-4: every bomb tile is placed, held (drawn, set aside) or still in the stack."""
    if cfg.scenario != "annihilation":
        return np.zeros(st.batch_size, dtype=bool)
    return _bomb_tiles(cfg, st) != BOMBS


def _bomb_tiles(cfg: GameConfig, st: State) -> np.ndarray:
    """Bomb tiles placed, drawn, set aside or still in the stack, per game (3 in a dealt game, R-ANN-3)."""
    cat = build(cfg)
    inside = np.arange(st.t_type.shape[1])[None, :] < st.n_tiles[:, None]
    later = np.arange(st.stack.shape[1])[None, :] >= st.stack_pos[:, None]
    kept = ((st.t_type == T_BOMB) & inside).sum(1)
    kept += ((cat.tile_type[np.maximum(st.stack, 0)] == T_BOMB) & later).sum(1)
    kept += (st.pend_tile >= 0) & (cat.tile_type[np.maximum(st.pend_tile, 0)] == T_BOMB)
    kept += (st.aside_tile >= 0) & (cat.tile_type[np.maximum(st.aside_tile, 0)] == T_BOMB)
    return kept


def _zone_empty(cfg: GameConfig, st: State, mask: np.ndarray) -> np.ndarray:
    """R-ANN-2: no tile in the no-placement zone (the cells around the exit but the start and the cells across
    the start tile's open sides)."""
    if cfg.scenario != "annihilation":
        return np.zeros(st.batch_size, dtype=bool)
    rows = np.arange(st.batch_size)
    e = np.maximum(st.exit_tile, 0)
    ex, ey = st.t_x[rows, e].astype(np.int64), st.t_y[rows, e].astype(np.int64)
    dx, dy = st.t_x.astype(np.int64) - ex[:, None], st.t_y.astype(np.int64) - ey[:, None]
    inside = np.arange(st.t_cat.shape[1])[None, :] < st.n_tiles[:, None]
    near = inside & (np.abs(dx) <= 1) & (np.abs(dy) <= 1) & ((dx != 0) | (dy != 0))
    sx, sy = st.t_x[:, :1].astype(np.int64), st.t_y[:, :1].astype(np.int64)  # the start tile
    beside = np.zeros_like(near)
    for d in range(4):
        across = (st.t_x == sx + DX[d]) & (st.t_y == sy + DY[d]) & ((st.t_open[:, :1] & BIT[d]) != 0)
        beside |= across
    start = np.arange(st.t_cat.shape[1])[None, :] == 0
    return (near & ~beside & ~start).any(1)


# ---------------------------------------------------------------------------------------------- step checks
def _cards_never_grow(cfg: GameConfig, before: State, after: State) -> np.ndarray:
    return _cards_left(after) > _cards_left(before)


def _tiles_never_return(cfg: GameConfig, before: State, after: State) -> np.ndarray:
    """Placed tiles stay placed and unchanged, draws are never undone, discards never come back."""
    n = before.n_tiles[:, None]
    kept = np.where(np.arange(before.t_cat.shape[1])[None, :] < n, after.t_cat == before.t_cat, True).all(1)
    return ((after.n_tiles < before.n_tiles) | (after.stack_pos < before.stack_pos) | ~kept
            | (_dead_end_discards(cfg, after) < _dead_end_discards(cfg, before)))


def _bombs_never_grow(cfg: GameConfig, before: State, after: State) -> np.ndarray:
    """Bomb cards and tokens are only moved or spent: their total never grows, and a token is never removed."""
    total = lambda s: s.c_bombs.sum(1) + s.t_bomb.sum(1)  # noqa: E731
    return (total(after) > total(before)) | (before.t_bomb & ~after.t_bomb).any(1)


def _results_final(cfg: GameConfig, before: State, after: State) -> np.ndarray:
    ended = before.result != RUNNING
    return ended & (after.result != before.result)


STATE_CHECKS: tuple[tuple[str, str, StateCheck], ...] = (
    ("health", "health within 0..max, 0 once devoured", _health),
    ("ap", f"0 <= AP (running games) and AP <= action_points + {EXERT_BONUS} if exerted", _ap),
    ("horror limit", "at most horror_limit (<= 3) horrors in the cave (R-HOR-1)", _horror_count),
    ("horrors on tiles", "every horror stands on a placed tile", _horrors_on_tiles),
    ("connections", "t_nbr symmetric, between adjacent placed tiles with open sides (R-CON-1)", _connections),
    ("board", "tiles 0..n_tiles-1 placed, one to a grid cell, later slots empty", _board),
    ("cell index", "the cell index finds each placed tile at its cell", _cell_index),
    ("hazard cards", "hazard cards left >= 0", _cards),
    ("tile conservation", "placed + left + held + Scout discards <= stack size + start tile", _tiles),
    ("one exit", "at most one exit tile, and exit_tile names it", _one_exit),
    ("exit kept", "the exit is placed, held or still in the stack (never discarded)", _exit_kept),
    ("caver positions", "cavers on placed tiles unless devoured or under water (then tile -1)", _caver_positions),
    ("masks", "running: the acting caver has a legal action; ended: no legal action", _masks),
    ("results", "ended: result = max(3 - cavers off the exit, 0); running: a conscious caver", _results),
    ("bombs", "bomb tokens on bomb tiles; 0 <= cards, cards + tokens <= 3, none held by the devoured", _bombs),
    ("bomb tiles kept", "every bomb tile placed, held or in the stack (R-ANN-4)", _bomb_tiles_kept),
    ("zone empty", "no tile in the no-placement zone around the exit (R-ANN-2)", _zone_empty),
    ("leapers", "leapers on placed tiles, never the sanctuary, at most leaper_limit (R-EXT-4, R-EXT-7)",
     extraction.leapers),
    ("biosamples", "0 <= biosamples, at most 3 in all, none held by the devoured (R-EXT-9)", extraction.biosamples),
    ("items", "each item in one place: deck, one hand or out of the game; none held by the devoured (R-INV-2, "
     "R-INV-6)", investigation.items),
    ("item tokens", "item tokens only on placed item tiles, at most 3 (R-INV-4)", investigation.item_tokens),
    ("gas mask decision", "a pending Gas Mask decision: its holder acts, only the answers legal, a mask in hand, "
     "health, on a gas tile; none pending: its fields empty (R-INV-18)", investigation.gas_mask_decision),
)
STEP_CHECKS: tuple[tuple[str, str, StepCheck], ...] = (
    ("hazard cards never increase", "hazard cards left never increase", _cards_never_grow),
    ("tiles never return", "placed tiles, draws and dead-end discards are never undone", _tiles_never_return),
    ("results final", "an ended game keeps its result", _results_final),
    ("bombs never grow", "bomb cards + tokens never increase; tokens stay", _bombs_never_grow),
    ("biosamples conserved", "biosamples are lost only with a devoured holder (R-EXT-9)",
     extraction.biosamples_conserved),
    ("items never return", "items out of the game stay out, the item deck never refills, tokens only on new tiles "
     "(R-INV-4, R-INV-5)", investigation.items_never_return),
)


def check_invariants(cfg: GameConfig, before: State | None, after: State, mask: np.ndarray) -> None:
    """Raise InvariantError for the first invariant some game breaks.

    cfg: the games' settings. before: the state before the step (a :func:`snapshot` is enough), or None to skip
    the step-to-step checks (e.g. right after ``init``). after: the state now. mask: ``core.legal_mask(after)``.
    """
    for name, detail, state_check in STATE_CHECKS:
        _raise_if(name, detail, state_check(cfg, after, mask))
    if before is None:
        return
    if before.batch_size != after.batch_size:
        raise ValueError(f"before has {before.batch_size} games, after {after.batch_size}")
    for name, detail, step_check in STEP_CHECKS:
        _raise_if(name, detail, step_check(cfg, before, after))


def _raise_if(name: str, detail: str, bad: np.ndarray) -> None:
    if bad.any():
        raise InvariantError(name, np.flatnonzero(bad), detail)
