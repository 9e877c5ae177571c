"""The rules engine: ``Core(cfg).init(seeds)``, ``legal_mask(state)``, ``step(state, actions)``.

One decision per game per step: the acting caver's action. The step resolves it, then anything that follows
without a decision: the end of the turn (exert check, R-ACT-2), the next caver's turn, and at the end of a
round the horror, hazard and end phases (R-RND-1). Games that have ended are left untouched.

The rules themselves are compiled per-game functions (``turns.py`` and the modules it calls, numba); this class
checks arguments, picks the serial or the multi-threaded batch loop (``kernels.py``) and owns the scratch
buffers. Setup (R-SET) is vectorised numpy: it runs once per game.
"""

from __future__ import annotations

import numba
import numpy as np

from ..config import CAVER_NAMES, GameConfig
from . import kernels, rng
from .actions import ACTION_NAMES, NUM_ACTIONS, IllegalActionError
from .catalogue import C_OUT_OF_TIME, build
from .effects import RANK_GEOLOGIST
from .jit import PARALLEL_MIN_BATCH, parallel_section
from .params import params_of
from .state import State, alloc

_SALT_CAVERS, _SALT_SEATS, _SALT_STACK, _SALT_EXIT, _SALT_DECK = 11, 12, 13, 14, 15


class Core:
    """Rules for one GameConfig over any batch size. Stateless apart from its constant tables and scratch.

    threads: numba threads for batches of at least PARALLEL_MIN_BATCH games (None: numba's default, every
    core; 1: always the serial loop). Results never depend on it.
    """

    def __init__(self, cfg: GameConfig | None = None, threads: int | None = None):
        self.cfg = cfg or GameConfig()
        self.cat = build(self.cfg)
        self.params = params_of(self.cfg)
        self.num_actions = NUM_ACTIONS
        self.cost = self.params["cost"][0].astype(np.int8)
        if threads is not None and not 1 <= int(threads) <= numba.config.NUMBA_NUM_THREADS:
            raise ValueError(f"threads={threads!r} is out of range 1..{numba.config.NUMBA_NUM_THREADS}")
        self.threads = None if threads is None else int(threads)
        self._scratch: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    # ------------------------------------------------------------------ setup (R-SET)
    def init(self, seeds: np.ndarray | list[int] | int) -> State:
        cfg, cat = self.cfg, self.cat
        seeds = np.atleast_1d(np.asarray(seeds, dtype=np.int64))
        b, s = len(seeds), cfg.num_cavers
        st = alloc(b, s, cat.max_tiles, cat.stack_size, cat.deal_size + 1)
        st.key[:] = rng.seed_keys(seeds)
        # Cavers (R-SET-1): a seeded draw of num_cavers ranks, or the fixed list.
        if cfg.cavers is None:
            pick = np.argsort(rng.permutation_keys(st.key, _SALT_CAVERS, 8), axis=1)[:, :s]
            ranks = np.sort(pick, axis=1) + 1
        else:
            ranks = np.tile(np.sort([CAVER_NAMES.index(n) + 1 for n in cfg.cavers]), (b, 1))
        if cfg.seat_order == "random":  # R-SET-6 setting
            order = np.argsort(rng.permutation_keys(st.key, _SALT_SEATS, s), axis=1)
            ranks = np.take_along_axis(ranks, order, axis=1)
        st.c_rank[:] = ranks
        st.c_max[:] = np.asarray(cfg.caver_health, dtype=np.int8)[ranks - 1]  # R-SET-2
        st.c_hp[:] = st.c_max
        # Stack (R-SET-4): shuffled cave tiles with the exit among the last exit_in_last.
        n = cat.n_cave
        shuffled = np.argsort(rng.permutation_keys(st.key, _SALT_STACK, n), axis=1).astype(np.int8)
        exit_at = n + 1 - cfg.exit_in_last + (rng.stream(rng.mix(st.key ^ np.uint64(_SALT_EXIT)), 0, 1)[:, 0]
                                              % np.uint64(cfg.exit_in_last)).astype(np.intp)
        pos = np.arange(n + 1)[None, :]
        src = np.where(pos < exit_at[:, None], pos, pos - 1)
        st.stack[:] = np.where(pos == exit_at[:, None], cat.exit_id,
                               np.take_along_axis(shuffled, np.clip(src, 0, n - 1), axis=1))
        # Hazard deck (R-SET-5): shuffle the pool, deal, Out of Time at the bottom.
        order = np.argsort(rng.permutation_keys(st.key, _SALT_DECK, len(cat.deck_pool)), axis=1)
        st.deck[:, :cat.deal_size] = cat.deck_pool[order[:, :cat.deal_size]]
        st.deck[:, cat.deal_size] = C_OUT_OF_TIME
        st.ropes_left[:] = cfg.rope_tokens
        st.scout_redraws[:] = cfg.scout_redraws
        st.explosives[:] = cfg.explosives
        geologist = (ranks == RANK_GEOLOGIST).any(1)  # R-CAV-3 Intuition: the top tile is set aside face up
        st.aside_tile[geologist] = st.stack[geologist, 0]
        st.stack_pos[geologist] = 1
        # Start tile at the centre (R-SET-3), every caver on it, the first turn: compiled, shared with the step.
        kernels.start_games(st.packed, st.grid, self.params)
        return st

    # ------------------------------------------------------------------ legal actions
    def legal_mask(self, st: State, out: np.ndarray | None = None) -> np.ndarray:
        """(B, A) bool: legal actions of each game's acting caver; all False once a game has ended.

        Written into ``out`` when given (a C-contiguous (B, A) bool array)."""
        b = st.batch_size
        if out is None:
            out = np.empty((b, NUM_ACTIONS), dtype=np.bool_)
        elif out.shape != (b, NUM_ACTIONS) or out.dtype != np.bool_ or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous ({b}, {NUM_ACTIONS}) bool array, got {out.dtype} "
                             f"{out.shape}")
        if self._parallel(b):
            with parallel_section(self.threads):
                kernels.mask_parallel(st.packed, st.grid, self.params, out)
        else:
            kernels.mask_serial(st.packed, st.grid, self.params, out)
        return out

    # ------------------------------------------------------------------ step
    def step(self, st: State, actions: np.ndarray | list[int], check: bool = True) -> None:
        """Apply one action per game in place; ended games are skipped (their action is ignored).

        check (default): every running game's action must be legal; otherwise IllegalActionError names the first
        such game, its action and the legal ones, and no game is changed. check=False skips that test for callers
        that already masked (an illegal action then corrupts its game)."""
        b = st.batch_size
        acts = actions if type(actions) is np.ndarray and actions.dtype == np.int64 else np.asarray(actions)
        if acts.shape != (b,):
            raise ValueError(f"actions must have shape ({b},), one per game; got shape {acts.shape}")
        if acts.dtype.kind not in "iu":
            if acts.dtype.kind == "b" or not (acts.dtype.kind == "f" and np.all(acts == np.round(acts))):
                raise TypeError(f"actions must be integers (action ids), got dtype {acts.dtype}")
            raise TypeError(f"actions must be integers (action ids), got dtype {acts.dtype}; cast with "
                            "np.asarray(actions, dtype=np.int64) if these floats are ids")
        if acts.dtype != np.int64 or not acts.flags.c_contiguous:
            acts = np.ascontiguousarray(acts, dtype=np.int64)
        masks, bad = self._buffers(b)
        if self._parallel(b):
            with parallel_section(self.threads):
                first_bad = kernels.step_parallel(st.packed, st.grid, self.params, acts, masks, check, bad)
        else:
            first_bad = kernels.step_serial(st.packed, st.grid, self.params, acts, masks, check)
        if first_bad >= 0:
            a = int(acts[first_bad])
            legal = self.legal_mask(st.take([first_bad]))[0]
            names = [f"{i} {ACTION_NAMES[i]}" for i in np.flatnonzero(legal)]
            what = f"{a} ({ACTION_NAMES[a]})" if 0 <= a < NUM_ACTIONS else f"{a} (out of range 0..{NUM_ACTIONS - 1})"
            raise IllegalActionError(f"game {first_bad}: action {what} is not legal for the acting caver; legal: "
                                     f"{names}; no game was changed")

    # ------------------------------------------------------------------ helpers
    def _parallel(self, b: int) -> bool:
        return b >= PARALLEL_MIN_BATCH and self.threads != 1

    def _buffers(self, b: int) -> tuple[np.ndarray, np.ndarray]:
        if b not in self._scratch:
            if len(self._scratch) > 8:
                self._scratch.clear()
            self._scratch[b] = (np.zeros((b, NUM_ACTIONS), dtype=np.bool_), np.zeros(b, dtype=np.bool_))
        return self._scratch[b]

