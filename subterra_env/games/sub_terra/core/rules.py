"""The rules engine: ``Core(cfg).init(seeds)``, ``legal_mask(state)``, ``step(state, actions)``.

One decision per game per step: the acting caver's action. The step resolves it, then anything that follows
without a decision: the end of the turn (exert check, R-ACT-2), the next caver's turn, and at the end of a
round the horror, hazard and end phases (R-RND-1). Games that have ended are left untouched.

The rules themselves are compiled per-game functions (``turns.py`` and the modules it calls, numba); this class
checks arguments, picks the serial or the multi-threaded batch loop (``kernels.py``) and owns the scratch
buffers. Setup (R-SET) is compiled too (``setup.py``).
"""

from __future__ import annotations

import numba
import numpy as np

from subterra_env.config import GameConfig
from . import kernels, setup
from .actions import ACTION_NAMES, IllegalActionError
from .catalogue import build
from .jit import PARALLEL_MIN_BATCH, parallel_section
from .params import params_of
from .state import EMPTY_RECORD, State, alloc, take_rows


PARALLEL_MIN_RESET = 16  # new games set up together spread over the threads from this many (each takes 2-5 us)


class Core:
    """Rules for one GameConfig over any batch size. Stateless apart from its constant tables and scratch.

    threads: numba threads for batches of at least PARALLEL_MIN_BATCH games (None: numba's default, every
    core; 1: always the serial loop). Results never depend on it. The compiled calls release the GIL; give each
    Python thread its own Core (a Core's scratch buffers are not shared safely).
    """

    def __init__(self, cfg: GameConfig | None = None, threads: int | None = None):
        self.cfg = cfg or GameConfig()
        self.cat = build(self.cfg)
        self.params = params_of(self.cfg)
        self.num_actions = int(self.params["num_actions"][0])  # the base ids, and a scenario's own
        self.cost = self.params["cost"][0].astype(np.int8)
        if threads is not None and not 1 <= int(threads) <= numba.config.NUMBA_NUM_THREADS:
            raise ValueError(f"threads={threads!r} is out of range 1..{numba.config.NUMBA_NUM_THREADS}")
        self.threads = None if threads is None else int(threads)
        self._scratch: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    # ------------------------------------------------------------------ setup (R-SET)
    def init(self, seeds: np.ndarray | list[int] | int) -> State:
        """New games, one per seed (any int64 values); a game depends on its seed alone."""
        seeds = np.atleast_1d(np.asarray(seeds, dtype=np.int64))
        cat = self.cat
        st = alloc(len(seeds), self.cfg.num_cavers, cat.max_tiles, cat.stack_size, cat.deal_size + 1)
        self.reset(st, np.arange(len(seeds)), seeds)
        return st

    def reset(self, st: State, games: np.ndarray | list[int], seeds: np.ndarray | list[int]) -> None:
        """Start new games in the given slots of a batch, in place (what ``st.put(games, init(seeds))`` does,
        without building a second batch): the vector envs' autoreset."""
        games = np.ascontiguousarray(np.atleast_1d(games), dtype=np.int64)
        seeds = np.atleast_1d(np.asarray(seeds, dtype=np.int64))
        if games.shape != seeds.shape:
            raise ValueError(f"{len(games)} games but {len(seeds)} seeds")
        if len(games) and (games.min() < 0 or games.max() >= st.batch_size):
            raise IndexError(f"games {games} out of range 0..{st.batch_size - 1}")
        if len(games) > 1 and not (games[1:] > games[:-1]).all() and len(np.unique(games)) < len(games):
            raise ValueError(f"games {games} name a slot more than once: each slot takes one new game")
        if seeds.dtype != np.int64 or not seeds.flags.c_contiguous:
            seeds = np.ascontiguousarray(seeds, dtype=np.int64)
        if len(games) >= PARALLEL_MIN_RESET and self.threads != 1:  # the autoreset of a large batch, init
            with parallel_section(self.threads):
                setup.setup_games_parallel(st.packed, self.params, games, seeds, EMPTY_RECORD)
        else:
            setup.setup_games(st.packed, self.params, games, seeds, EMPTY_RECORD)

    # ------------------------------------------------------------------ legal actions
    def legal_mask(self, st: State, out: np.ndarray | None = None) -> np.ndarray:
        """(B, A) bool: legal actions of each game's acting caver; all False once a game has ended.

        Written into ``out`` when given (a C-contiguous (B, A) bool array)."""
        b = st.batch_size
        if out is None:
            out = np.empty((b, self.num_actions), dtype=np.bool_)
        elif out.shape != (b, self.num_actions) or out.dtype != np.bool_ or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous ({b}, {self.num_actions}) bool array, got {out.dtype} "
                             f"{out.shape}")
        if self._parallel(b):
            with parallel_section(self.threads):
                kernels.mask_parallel(st.packed, self.params, out)
        else:
            kernels.mask_serial(st.packed, self.params, out)
        return out

    def legal_mask_rows(self, st: State, games: np.ndarray, out: np.ndarray) -> None:
        """The legal masks of some games of the batch into their rows of ``out`` ((B, A) bool), the others left as
        they are: the masks of the games an autoreset just started, without a State of them (building one costs
        as much as ten steps of a game)."""
        games = np.asarray(games, dtype=np.intp)
        rows = np.empty((len(games), self.num_actions), dtype=np.bool_)
        kernels.mask_serial(take_rows(st.packed, games), self.params, rows)  # a copy of their records: read only
        out[games] = rows

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
                first_bad = kernels.step_parallel(st.packed, self.params, acts, masks, bool(check), bad)
        else:
            first_bad = kernels.step_serial(st.packed, self.params, acts, masks, bool(check))
        if first_bad >= 0:
            a = int(acts[first_bad])
            legal = self.legal_mask(st.take([first_bad]))[0]
            names = [f"{i} {ACTION_NAMES[i]}" for i in np.flatnonzero(legal)]
            what = (f"{a} ({ACTION_NAMES[a]})" if 0 <= a < self.num_actions
                    else f"{a} (out of range 0..{self.num_actions - 1})")
            raise IllegalActionError(f"game {first_bad}: action {what} is not legal for the acting caver; legal: "
                                     f"{names}; no game was changed")

    # ------------------------------------------------------------------ helpers
    def _parallel(self, b: int) -> bool:
        return b >= PARALLEL_MIN_BATCH and self.threads != 1

    def _buffers(self, b: int) -> tuple[np.ndarray, np.ndarray]:
        if b not in self._scratch:
            if len(self._scratch) > 8:
                self._scratch.clear()
            self._scratch[b] = (np.zeros((b, self.num_actions), dtype=np.bool_), np.zeros(b, dtype=np.bool_))
        return self._scratch[b]

