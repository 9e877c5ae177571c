"""Sub Terra as a ``Game`` (``subterra_env.game``): a thin adapter over the rules core (``core.rules.Core``) and
its batch, a ``State``. The rules, the flags and the episode bookkeeping stay in the compiled core
(``core/kernels.py``); this class only routes the episode layer's calls to them and adds the team reward
(``subterra_env.rewards``), the info (``subterra_env.info``), scenarios and the event log.
"""

from __future__ import annotations

import numpy as np

from subterra_env.config import GameConfig
from .core import rng
from .core.actions import ACTION_NAMES
from .core.advance import Advance, one_call_taken
from .core.kernels import after_step, episode_flags
from .core.observe import observe
from .core.restart import restart_games
from .core.rules import Core
from .core.state import RUNNING, State
from subterra_env.events import Event, decode, set_logging
from subterra_env.game import STEP_DONE, STEP_ILLEGAL, STEP_OVER, EpisodeBook
from subterra_env.info import INFO_KEYS, batch_info, game_info, result_name
from subterra_env.rewards import TeamReward
from subterra_env.scenario import from_options, names_seed


# Sub Terra's episode flags of a State outside the episode layer (the game app's records and play)
def _flags(st: State, max_cycles: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    b = st.result.shape[0]
    te, tr, over = np.zeros(b, dtype=bool), np.zeros(b, dtype=bool), np.zeros(b, dtype=bool)
    episode_flags(st.result, st.round, max_cycles, te, tr, over)
    return te, tr, over


def terminated(st: State) -> np.ndarray:
    """(B,) bool: the game has ended by the rules (R-RND-3)."""
    return st.result != RUNNING


def truncated(st: State, max_cycles: int) -> np.ndarray:
    """(B,) bool: the game runs on past ``max_cycles`` rounds (the episode is cut off, the game has no result)."""
    return _flags(st, max_cycles)[1]


def ended(st: State, max_cycles: int) -> np.ndarray:
    """(B,) bool: the episode is over, terminated or truncated."""
    return _flags(st, max_cycles)[2]


class SubTerra:
    """Sub Terra's rules for one ``GameConfig`` as a ``Game``. ``core``: a ``Core`` of the config to share
    (evaluation plays batches of several sizes on one); ``threads``: numba threads of a core made here;
    ``team_reward``: the reward every caver shares (end-of-game reward by result, optional shaping)."""

    version = 1
    shared_reward = True  # one team reward for every caver

    def __init__(self, config: GameConfig | None = None, *, core: Core | None = None, threads: int | None = None,
                 team_reward: TeamReward | None = None):
        if config is not None and not isinstance(config, GameConfig):
            raise TypeError(f"config={config!r}: expected a GameConfig (subterra_env.preset({config!r}) for a preset "
                            "by name)" if isinstance(config, str) else
                            f"config={config!r}: expected a GameConfig, got {type(config).__name__}")
        self.config = config or GameConfig()
        if core is not None and core.cfg != self.config:
            raise ValueError("SubTerra: the core given plays other settings than config")
        self.core = core or Core(self.config, threads=threads)
        self.team_reward = team_reward or TeamReward()
        # the one call pays the end reward by result; shaping is TeamReward's, on the separate kernels' path
        self._advance = None if self.team_reward.shaped else Advance(self.core, self.team_reward)
        self._bound: tuple | None = None  # (the bound call, the State, mask, book and observation arrays it is bound to)
        scenario = self.config.scenario
        self.name = "subterra" if scenario == "base" else f"subterra_{scenario}"
        self.num_actions = self.core.num_actions  # the base game's 90, or a scenario's more
        self.action_names = ACTION_NAMES[:self.num_actions]
        self.num_seats = self.config.num_cavers

    # ------------------------------------------------------------------ new games
    def init(self, seeds: np.ndarray, options: dict | None = None, seats: int | None = -1) -> State:
        """New games; ``options={"scenario": text}`` starts each from that scenario map (``subterra_env.scenario``)
        with its own dice from its seed, unless the text fixes them with a ``seed:`` line. ``seats``: the cavers
        the scenario must seat (-1: ``num_cavers``; None: any)."""
        scripted = from_options(options, self.core, self.num_seats if seats == -1 else seats)
        if scripted is None:
            return self.core.init(seeds)
        st = scripted.take(np.zeros(len(seeds), dtype=np.intp))
        if not names_seed(options["scenario"]):
            st.key[:] = rng.seed_keys(seeds)
        return st

    def reset(self, st: State, slots: np.ndarray, seeds: np.ndarray, mask_out: np.ndarray | None = None) -> None:
        self.core.reset(st, slots, seeds)
        if mask_out is not None:
            self.core.legal_mask_rows(st, slots, mask_out)

    def restart(self, st: State, slots: np.ndarray, seeds: np.ndarray, mask_out: np.ndarray, book: EpisodeBook
                ) -> None:
        """The autoreset (``Game.restart``) in one compiled call (``core/restart.py``): the new games, their masks,
        book rows and, while the book's step counts are fresh, their counts; where the step observed into
        ``book.obs``, the final observations moved to ``book.finals`` and the new games observed in their place."""
        count = book.fresh and book.counts is not None
        book.finals = restart_games(self.core, st, np.asarray(slots, dtype=np.int64), np.asarray(seeds, np.int64),
                                    mask_out, book.counts if count else None, book.max_cycles, book.ep_return,
                                    book.ep_length, (book.terminated, book.truncated, book.over), book.obs,
                                    book.obs_radius)
        book.fresh = count

    def legal_mask(self, st: State, out: np.ndarray | None = None) -> np.ndarray:
        return self.core.legal_mask(st, out=out)

    # ------------------------------------------------------------------ stepping
    def step(self, st: State, actions: np.ndarray, mask_out: np.ndarray | None = None) -> np.ndarray:
        """One action per game, with codes instead of ``Core.step``'s error: an illegal action leaves its game
        unchanged (``STEP_ILLEGAL``), an ended game stays as it is (``STEP_OVER``)."""
        acts = np.asarray(actions)
        if acts.shape != (st.batch_size,) or acts.dtype.kind not in "iu":
            raise ValueError(f"actions: expected ({st.batch_size},) integer ids, got {acts.dtype} {acts.shape}")
        acts = acts.astype(np.int64)
        codes = np.where(st.result != RUNNING, STEP_OVER, STEP_DONE).astype(np.int8)
        legal = (codes == STEP_DONE) & (acts >= 0) & (acts < self.num_actions)
        legal[legal] = self.core.legal_mask(st)[legal, acts[legal]]
        codes[(codes == STEP_DONE) & ~legal] = STEP_ILLEGAL
        go = np.flatnonzero(legal)
        if len(go) == st.batch_size:
            self.core.step(st, acts, check=False)
        elif len(go):
            sub = st.take(go)
            self.core.step(sub, acts[go], check=False)
            st.put(go, sub)
        if mask_out is not None:
            self.core.legal_mask(st, out=mask_out)
        return codes

    def advance(self, st: State, actions: np.ndarray, book: EpisodeBook, slots: np.ndarray | None = None,
                mask_out: np.ndarray | None = None) -> int:
        """The actions, the team reward, the episode bookkeeping, every game's new mask and, when an interface set
        ``book.obs``, its acting caver's observation, in one compiled call (``core/advance.py``), which also writes
        the ``INFO_KEYS`` counts (``book.counts``, ``book.fresh``); with a shaped team reward, the separate kernels
        (step, reward, bookkeeping, mask, observation)."""
        b = book.num_games
        if mask_out is None:
            mask_out = np.empty((b, self.num_actions), dtype=bool)
        if self._advance is None or not one_call_taken(b):  # a shaped team reward
            return self._advance_apart(st, actions, book, slots, mask_out)
        if slots is None:
            stepped, acts = book.all_slots, actions
        else:  # only these slots step: the others wait, reward 0
            stepped, acts = np.zeros(b, dtype=bool), np.zeros(b, dtype=np.intp)
            stepped[slots], acts[slots] = True, actions
        if acts.dtype != np.int64:
            acts = acts.astype(np.int64)
        bound = self._bound
        # the call's arrays are the episode layer's own and stay the same from step to step: bound once for them
        if bound is None or bound[1] is not st or bound[2] is not mask_out or bound[3] is not book \
                or bound[4] is not book.obs:
            if book.counts is None:
                book.counts, book.count_keys = np.zeros((len(INFO_KEYS), b), dtype=np.int64), INFO_KEYS
            call = self._advance.bind(st, book.reward, book.ep_return, book.ep_length, book.max_cycles,
                                      (book.terminated, book.truncated, book.over, book.done), mask_out, book.counts,
                                      book.obs, book.obs_radius)
            bound = self._bound = (call, st, mask_out, book, book.obs)
        n_done = bound[0](acts, stepped)
        book.fresh = True
        return n_done

    def _advance_apart(self, st: State, actions: np.ndarray, book: EpisodeBook, slots: np.ndarray | None,
                       mask_out: np.ndarray) -> int:
        """``advance`` as separate kernels, for a shaped team reward (no info counts: ``book.fresh`` is False)."""
        team_reward, shaped = self.team_reward, self.team_reward.shaped
        if slots is None:
            before = team_reward.snapshot(st, self.core.params) if shaped else None
            self.core.step(st, actions, check=False)  # the core skips ended games
            reward = team_reward(before, st, self.core.params) if shaped else book.reward
            stepped = book.all_slots
        else:  # only these slots step: the others wait, reward 0
            sub = st.take(slots)
            before = team_reward.snapshot(sub, self.core.params) if shaped else None
            self.core.step(sub, actions, check=False)
            st.put(slots, sub)
            reward = np.zeros(book.num_games, dtype=np.float32)
            if shaped:
                reward[slots] = team_reward(before, sub, self.core.params)
            stepped = np.zeros(book.num_games, dtype=bool)
            stepped[slots] = True
        # without shaping the kernel fills in the end-of-game reward by result
        n_done = after_step(reward, team_reward.by_result32, not shaped, stepped, book.ep_return, book.ep_length,
                            st.result, st.round, book.max_cycles, book.terminated, book.truncated, book.over,
                            book.done)
        book.reward[:] = reward
        self.core.legal_mask(st, out=mask_out)
        if book.obs is not None:
            observe(self.core.cat, st, np.maximum(st.actor, 0), book.obs_radius, *book.obs, threads=self.core.threads)
        book.fresh = False
        return n_done

    def __getstate__(self) -> dict:
        # the bound call is a closure over this game's arrays: a copy (deepcopy, pickle) binds its own
        return {**self.__dict__, "_bound": None}

    # ------------------------------------------------------------------ flags, rewards, info
    def actor(self, st: State) -> np.ndarray:
        return st.actor

    def flags(self, st: State, max_cycles: int, terminated: np.ndarray, truncated: np.ndarray,
              over: np.ndarray) -> int:
        return episode_flags(st.result, st.round, max_cycles, terminated, truncated, over)

    def reward_snapshot(self, st: State) -> np.ndarray | None:
        return self.team_reward.snapshot(st, self.core.params)

    def rewards(self, before: np.ndarray | None, st: State) -> np.ndarray:
        """(B, S): the team reward, the same in every seat."""
        return np.repeat(self.team_reward(before, st, self.core.params)[:, None], st.num_seats, axis=1)

    def info(self, st: State) -> dict[str, np.ndarray]:
        return batch_info(st)

    def game_info(self, st: State, slot: int) -> dict[str, int]:
        return game_info(st, slot)

    def outcome(self, st: State, slot: int) -> str:
        return result_name(int(st.result[slot]))

    # ------------------------------------------------------------------ slots, observations, events
    def take(self, st: State, slots: np.ndarray) -> State:
        return st.take(slots)

    def put(self, st: State, slots: np.ndarray, sub: State) -> None:
        st.put(slots, sub)

    def observe(self, st: State, seats: np.ndarray, radius: int) -> dict[str, np.ndarray]:
        grid, scalars = observe(self.core.cat, st, np.asarray(seats, dtype=np.int64), radius,
                                threads=self.core.threads)
        return {"observation": grid, "scalars": scalars}

    def start_logging(self, st: State, slots: np.ndarray) -> None:
        """The rules log what they do in these slots from now on (``events``)."""
        set_logging(st, slots, True)

    def events(self, st: State, slot: int) -> list[Event]:
        """What the rules did in the slot's latest step (``subterra_env.events``)."""
        return decode(st, slot)

    def __repr__(self) -> str:
        return f"SubTerra({self.name}_v{self.version}, {self.num_seats} cavers)"

