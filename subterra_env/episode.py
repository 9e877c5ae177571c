"""The episode layer: B games, each played as episodes, behind one ``step(actions)``, for every game.

Every interface of both games drives this one object (the AEC envs with B = 1 and agent names on top, the vector
envs, the single-agent adapter, the TorchRL env, ``training/evaluate.py``, the game apps through the AEC envs), so
each of these is written once, here, over the ``subterra_env.game.Game`` protocol (Sub Terra:
``subterra_env.games.sub_terra.game.SubTerra``, the default; In the Cave: ``subterra_env.games.in_the_cave.game.InTheCave``):

- the seed streams: slot i draws the seed of each of its games from its own stream, so a slot's sequence of
  games is the same at any batch size (``seed``);
- the legal mask of each slot's acting seat (``mask``: public, read-only);
- the action check: one error type, ``IllegalActionError`` (a ``ValueError``), naming the action, the slot or
  agent, and the legal actions; a refused batch changes nothing (``check_actions``, ``check_action``);
- the rewards (Sub Terra's team reward, ``subterra_env.rewards``; per seat for a game whose seats score apart),
  terminated (the game ended by its rules) and truncated (by the game's own round limit, or after ``max_cycles``
  rounds), the info, the episode's return and length (``EpisodeBook``, which the game's ``advance`` updates);
- snapshots of a slot (``get_state`` / ``set_state``) and autoreset: with ``autoreset=True`` a finished game is
  replaced in the same step by the slot's next game (the vector envs); with ``autoreset=False`` it stays as it
  ended until ``reset`` (the AEC and single-agent envs, evaluation), and stepping it raises ``GameOverError``;
- the event log (``record_events=True``, Sub Terra's, for play, records and replays): what the rules did in each
  slot's latest step (``events``, ``subterra_env.events``).

Observations are not made here: what to observe differs by interface (the acting seat for the vector envs, any
seat for the AEC env), so each adapter observes ``state`` itself (``Game.observe``, or Sub Terra's compiled
``subterra_env.games.sub_terra.core.observe`` straight) and, for the games that just ended, ``EpisodeStep.ended``.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .config import GameConfig
from .games.sub_terra.core.actions import ACTION_NAMES, IllegalActionError
from .games.sub_terra.core.kernels import first_illegal
from .games.sub_terra.core.rules import Core
from .games.sub_terra.core.state import State
from .events import Event
from .game import EpisodeBook, Game, check_action_id  # check_action_id: imported from here too
from .rewards import DEFAULT_RESULT, REWARD_KEYWORDS, TeamReward
from .games.sub_terra.game import SubTerra, ended, terminated, truncated  # noqa: F401 (Sub Terra's flags, imported from here)

# The keywords of Episodes that adapters pass through (besides GameConfig settings).
EPISODE_KEYWORDS = ("max_cycles", *REWARD_KEYWORDS, "threads")


class GameOverError(RuntimeError):
    """step() on a game that has ended (terminated or truncated) and is not reset automatically: reset() first."""


def legal_names(mask_row: np.ndarray, names: Any = ACTION_NAMES) -> str:
    """``"3 ('move E'), 41 ('end turn')"``: the legal actions of one mask row (``names``: the game's action names,
    Sub Terra's by default), for error messages."""
    return ", ".join(f"{i} ({names[i]!r})" for i in np.flatnonzero(mask_row))


# What a step in which no episode ended reports for the ended slots (shared, read-only, empty).
_NO_SLOTS = np.zeros(0, dtype=np.intp)
_NO_SLOTS.flags.writeable = False


class EpisodeStep(NamedTuple):
    """What ``Episodes.step`` returns. Per slot, (B,): ``reward`` (float32, the team reward of the step; 0 for a
    slot that did not step), ``terminated``, ``truncated``. ``done``: the slots whose episode ended in this step;
    for them, row j for slot done[j]: ``ended`` (their games as they ended, a State copy, before the autoreset;
    None when nothing ended, and always None without autoreset, where they stay as they ended in ``state``),
    ``final_info`` (the game's info: Sub Terra's ``INFO_KEYS``, int64 arrays), ``episode_return`` (per seat,
    (n, S), for a game whose seats score apart) and ``episode_length``. ``time``: seconds since the games were
    made. ``info``: every slot's info after the action (before autoreset), or None unless asked for.
    ``rewards``: (B, S), each seat's reward, for a game whose seats score apart (In the Cave, float64; there
    ``reward`` is the reward of the seat that acted); None for a team game (Sub Terra), where every seat gets
    ``reward``."""

    reward: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    done: np.ndarray
    ended: State | None
    final_info: dict[str, np.ndarray]
    episode_return: np.ndarray
    episode_length: np.ndarray
    time: float
    info: dict[str, np.ndarray] | None = None
    rewards: np.ndarray | None = None


@dataclass(frozen=True)
class SlotSnapshot:
    """One slot: its game (a batch of 1), the stream seeding its next games, and the settings it was played with."""

    game: Any  # the game's batch of one (Sub Terra: a State)
    seed_stream: dict
    config: Any


class Episodes:
    """``num_games`` slots, each playing one game at a time (see the module docstring): of Sub Terra with
    ``config`` (a ``GameConfig``), or of any ``game`` (a ``subterra_env.game.Game``, e.g. In the Cave's).

    ``seed``: the slots' streams until ``seed()`` is called: an int (slot i from the stream (seed, i)), or None
    for fresh entropy. Sub Terra's own keywords (with ``config``, not with ``game``): the team reward
    (``reward_*``), ``threads`` (numba threads of the rules; None: every core; 1 is best when other processes use
    the cores), ``core`` (a ``Core`` of ``config`` to share: evaluation plays batches of several sizes on one).
    ``record_events``: for a game that logs events (Sub Terra)."""

    def __init__(self, num_games: int, config: GameConfig | None = None, *, max_cycles: int = 200,
                 reward_result: tuple[float, float, float, float] = DEFAULT_RESULT, reward_escape: float = 0.0,
                 reward_health: float = 0.0, reward_tile: float = 0.0, reward_way: float = 0.0,
                 reward_danger: float = 0.0, reward_knockout: float = 0.0, autoreset: bool = True,
                 threads: int | None = None, seed: int | None = 0, core: Core | None = None,
                 record_events: bool = False, game: Game | None = None):
        if not isinstance(num_games, int) or isinstance(num_games, bool) or num_games < 1:
            raise ValueError(f"num_envs={num_games!r}: expected a positive integer")
        if not isinstance(max_cycles, int) or isinstance(max_cycles, bool) or max_cycles < 1:
            raise ValueError(f"max_cycles={max_cycles!r}: expected a positive integer (rounds)")
        if not isinstance(autoreset, bool):
            raise TypeError(f"autoreset={autoreset!r}: expected True or False")
        if not isinstance(record_events, bool):
            raise TypeError(f"record_events={record_events!r}: expected True or False")
        team_reward = TeamReward.from_keywords(reward_result, reward_escape, reward_health, reward_tile, reward_way,
                                               reward_danger, reward_knockout)
        if game is None:
            game = SubTerra(config, core=core, threads=threads, team_reward=team_reward)
        elif config is not None or core is not None or threads is not None or team_reward != TeamReward():
            raise ValueError("Episodes(game=...): the game carries its own config, core and rewards; pass none of "
                             "config, core, threads, reward_*")
        if record_events and not hasattr(game, "events"):
            raise ValueError(f"record_events=True: {game.name} logs no events")
        self.game: Game = game
        self.config = game.config
        self.core = game.core
        self.team_reward: TeamReward | None = getattr(game, "team_reward", None)  # Sub Terra's
        self.num_games = num_games
        self.autoreset = autoreset
        self.record_events = record_events
        self.book = EpisodeBook(num_games, game.num_seats, game.shared_reward, max_cycles)
        self.terminated, self.truncated = self.book.terminated, self.book.truncated
        self.seed(seed)
        self.seeds = self._next_seeds(np.arange(num_games))  # the seed of each slot's current game
        self.state: Any = game.init(self.seeds)
        self._plain = True  # ``state`` holds ordinary games (not a scenario's): reset() restarts them in place
        self.num_actions = game.num_actions  # Sub Terra: the base game's 90, or a scenario's more
        self._own_mask = np.zeros((num_games, self.num_actions), dtype=bool)
        self._all_slots = np.arange(num_games)  # read only: check_actions' rows when every slot acts
        self._mask = self._own_mask
        self._n_over = 0  # slots whose episode is over (waiting for reset)
        # what a step in which no episode ended reports for the ended slots: empty, read-only
        self._no_final_info = _read_only(game.info(game.take(self.state, _NO_SLOTS)))
        self._no_returns = _read_only({"r": self.book.ep_return[:0].copy()})["r"]
        self._t0 = time.perf_counter()
        self._ready = False  # reset() (or set_state) has run: masks and flags describe the games

    @property
    def max_cycles(self) -> int:
        """Rounds before an episode is truncated."""
        return self.book.max_cycles

    # ------------------------------------------------------------------ seeds and new games
    def seed(self, seed: int | list[int] | np.ndarray | None) -> None:
        """Seed every slot: slot i from the stream (seed, i), from seed[i] alone when a list is given, or from
        fresh entropy with None. The next games (``reset``, autoresets) draw from these streams."""
        if isinstance(seed, (list, tuple, np.ndarray)):
            if len(seed) != self.num_games:
                raise ValueError(f"{len(seed)} seeds for {self.num_games} slots")
            self._slot_bits = [np.random.PCG64([int(s)]) for s in seed]
        else:  # the bit generators of ``np.random.default_rng(seed)``, which is all the draws below need
            self._slot_bits = [np.random.PCG64(None if seed is None else [int(seed), i])
                               for i in range(self.num_games)]

    def _next_seeds(self, slots: np.ndarray) -> np.ndarray:
        """Each slot's next game seed: its stream's ``integers(0, 2**62)``, drawn as the raw 64-bit word's top 62
        bits, which is what numpy's bounded draw returns for that range (Lemire's method rejects nothing when the
        range divides 2**64), at a fifth of its cost (0.7 against 3.3 us a draw; the TorchRL env at B = 1024 starts
        about ten games a step). tests/test_vector.py checks the two agree."""
        bits = self._slot_bits
        return np.array([bits[i].random_raw() >> 2 for i in slots.tolist()], dtype=np.int64)

    def reset(self, options: dict | None = None, *, seeds: np.ndarray | None = None,
              seats: int | None = -1) -> None:
        """New games in every slot: from the slots' streams, or with these game ``seeds`` (one per slot, for
        evaluation on listed seeds). ``options``: the game's reset options (Sub Terra: ``{"scenario": text}``
        starts every slot from that scenario map, each with its own dice from its stream unless the text fixes
        them with a ``seed:`` line; later autoresets start ordinary games). ``seats``: the number of seats such a
        game must have (default: the config's; None: any, for an interface whose agents follow the game).
        Without options the new games are written into the same ``state`` batch (``state.copy()`` to keep a game
        that has ended); after a scenario's games, a new batch."""
        slots = np.arange(self.num_games)
        if seeds is not None:
            seeds = np.asarray(seeds, dtype=np.int64)
            if seeds.shape != (self.num_games,):
                raise ValueError(f"seeds of shape {seeds.shape}: expected ({self.num_games},), one per slot")
        self.seeds = self._next_seeds(slots) if seeds is None else seeds.copy()
        if options is None and self._plain:
            # new games in place (the same games as init's): a fresh batch's allocation is half of a one-game
            # reset's cost (100 of 175 us), and the compiled call bound to this state stays bound
            self.game.reset(self.state, slots, self.seeds)
        else:  # the first games, or a scenario's, whose batch may have other shapes
            self.state = self.game.init(self.seeds, options, seats)
            self._plain = options is None
        self._started(slots)

    def reset_slots(self, slots: np.ndarray) -> None:
        """Start the next game of each slot in ``slots`` (from its seed stream); the others play on."""
        slots = np.asarray(slots, dtype=np.intp)
        if len(slots):
            seeds = self._next_seeds(slots)
            self.seeds[slots] = seeds
            self.game.reset(self.state, slots, seeds)
            self._started(slots)
        self._ready = True

    def _started(self, slots: np.ndarray) -> None:
        if self.record_events:
            self.game.start_logging(self.state, slots)
        self.book.started(slots)
        self._update_flags()
        self.refresh_mask()
        self._ready = True

    def _update_flags(self) -> int:
        """Recompute terminated, truncated and over in place; returns how many slots are over."""
        book = self.book
        self._n_over = self.game.flags(self.state, book.max_cycles, book.terminated, book.truncated, book.over)
        return self._n_over

    # ------------------------------------------------------------------ masks and actions
    @property
    def mask(self) -> np.ndarray:
        """(B, A) bool: the legal actions of each slot's acting seat now. The layer's own array: read it, copy
        it to keep it; it changes with every step."""
        return self._mask

    @property
    def over(self) -> np.ndarray:
        """(B,) bool: the slot's episode has ended (terminated or truncated). The layer's own array: read it."""
        return self.book.over

    def refresh_mask(self, out: np.ndarray | None = None) -> None:
        """Recompute the masks after the games changed (a step, ``set_state``, an outside edit of ``state``),
        into the layer's array or into ``out`` (B, A) bool (the TorchRL env passes a view of its output tensor);
        that is then ``mask`` until the next refresh."""
        self._mask = self._own_mask if out is None else out
        self.game.legal_mask(self.state, out=self._mask)

    def legal(self, actions: np.ndarray, slots: np.ndarray) -> np.ndarray:
        """(len(slots),) bool: each action is a legal id for its slot (integer ids; nothing is raised)."""
        a = np.asarray(actions).reshape(-1)
        ok = (a >= 0) & (a < self.num_actions)
        ok[ok] = self._mask[np.asarray(slots)[ok], a[ok].astype(np.intp)]
        return ok

    def check_actions(self, actions: Any, slots: np.ndarray | None = None) -> np.ndarray:
        """One integer action id per slot (per slot of ``slots`` when given), shape (n,) or (n, 1), as an intp
        array. Floats, bools and other shapes are refused, never cast; so are out-of-range and illegal ids and
        actions for games that ended: ``IllegalActionError`` (``GameOverError``) naming the slot and the action."""
        if not self._ready:
            raise RuntimeError("step() before reset(): call reset() first")
        idx = self._all_slots if slots is None else np.ascontiguousarray(slots, dtype=np.intp)
        n = len(idx)
        a = np.asarray(actions)
        if a.shape != (n,) and a.shape != (n, 1):
            raise IllegalActionError(f"actions of shape {a.shape}: expected ({n},), one integer per slot")
        if a.dtype.kind not in "iu":  # bools ("b") and floats are refused, never cast
            raise IllegalActionError(f"actions of dtype {a.dtype}: expected integer action ids (an int array), "
                                     "not cast from floats")
        a = np.ascontiguousarray(a.reshape(n), dtype=np.intp)  # the caller's array itself when it is one already
        if not self.autoreset and (over := self.over[idx]).any():
            self._game_over(int(idx[np.argmax(over)]), "slot")
        i = first_illegal(self._mask, idx, a)
        if i < 0:
            return a
        if not 0 <= a[i] < self.num_actions:
            raise IllegalActionError(f"slot {idx[i]}: action {a[i]} is out of range 0..{self.num_actions - 1}")
        names = self.game.action_names
        raise IllegalActionError(f"slot {idx[i]}: action {a[i]} ({names[a[i]]!r}) is not legal now; "
                                 f"legal: {legal_names(self._mask[idx[i]], names)}")

    def check_action(self, action: Any, slot: int = 0, who: str = "") -> int:
        """One action for one slot (a Python or numpy integer), as an int, or ``IllegalActionError`` naming it,
        ``who`` (e.g. the agent) and the legal actions; ``GameOverError`` if the slot's game has ended."""
        if not self._ready:
            raise RuntimeError("step() before reset(): call reset() first")
        if self.book.over[slot] and not self.autoreset:
            self._game_over(slot, who or "slot")
        row = self._mask[slot]
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool) and 0 <= action < self.num_actions \
                and row[action]:
            return int(action)  # the common case, without building the list of legal names
        names = self.game.action_names
        whom = f" for {who}" if who else (f" for slot {slot}" if self.num_games > 1 else "")
        legal = f"; legal: {legal_names(row, names)}"
        if action is None and who:
            raise IllegalActionError(f"{who} is acting and must choose an action, got None{legal}")
        a = check_action_id(action, whom, legal)
        if not 0 <= a < self.num_actions:
            raise IllegalActionError(f"action {a}{whom} is out of range 0..{self.num_actions - 1}{legal}")
        raise IllegalActionError(f"action {a} ({names[a]!r}) is not legal{whom} now{legal}")

    def outcome(self, slot: int) -> str:
        """How the slot's game stands: ``"running"``, the name of its result (Sub Terra: ``"defeat"`` ..
        ``"gold"``), or ``"truncated after N rounds"`` when cut off after ``max_cycles`` rounds."""
        own = self.game.outcome(self.state, slot)
        if self.truncated[slot] and own == "running":
            return f"truncated after {self.max_cycles} rounds"
        return own

    def _game_over(self, slot: int, who: str) -> None:
        where = f"slot {slot}" if who == "slot" else who
        raise GameOverError(f"{where}: the game has ended ({self.outcome(slot)}): call reset()")

    # ------------------------------------------------------------------ stepping
    def step(self, actions: Any, slots: np.ndarray | None = None, *, checked: bool = False,
             info_all: bool = False, mask_out: np.ndarray | None = None, keep_ended: bool = True) -> EpisodeStep:
        """Apply one action per slot (or per slot of ``slots``: the others wait, reward 0). ``checked``: the
        caller already checked the actions (``check_action`` / ``check_actions``) against the current mask.
        ``info_all``: also every slot's info after the action. ``mask_out``: where the new masks go (see
        ``refresh_mask``). Finished games autoreset (``autoreset=True``) or wait for ``reset``. ``keep_ended=False``:
        no copy of the games as they ended (``ended`` None), for a caller that never reads them."""
        a = np.asarray(actions, dtype=np.intp) if checked else self.check_actions(actions, slots)
        n_done = self.advance(a, slots, mask_out)
        st, book, game = self.state, self.book, self.game
        info = (book.counted_info() or game.info(st)) if info_all else None  # the step's counts, where it wrote them
        if not n_done:  # most steps: nothing ended
            return EpisodeStep(book.reward.copy(), self.terminated.copy(), self.truncated.copy(), _NO_SLOTS, None,
                               self._no_final_info, self._no_returns, _NO_SLOTS, time.perf_counter() - self._t0,
                               info, book.rewards)
        done = np.flatnonzero(book.done)
        # Without autoreset the ended games stay in ``state`` as they ended: no copy (the AEC env ends a game per
        # hundred or so steps, and copying a game costs as much as forty steps).
        finished = game.take(st, done) if self.autoreset and keep_ended else None
        if info is not None:  # every slot's info (before any autoreset) at the done rows
            final_info = {k: v[done] for k, v in info.items()}
        elif (counted := book.counted_info(done)) is not None:  # the counts the step wrote
            final_info = counted
        elif finished is not None:
            final_info = game.info(finished)
        else:
            final_info = {k: v[done] for k, v in game.info(st).items()}
        result = EpisodeStep(book.reward.copy(), self.terminated.copy(), self.truncated.copy(), done, finished, final_info,
                             book.ep_return[done], book.ep_length[done], time.perf_counter() - self._t0, info,
                             book.rewards)
        if self.autoreset:
            self._next_games(done)
        return result

    def advance(self, actions: np.ndarray, slots: np.ndarray | None = None, mask_out: np.ndarray | None = None
                ) -> int:
        """The core of ``step`` for a caller that reads what it needs from ``book`` itself (the AEC env: one
        game, its reward ``book.reward[0]``): the actions (intp, one per slot of ``slots`` or per slot) were checked
        against the current mask; one ``game.advance`` call applies them and writes the rewards, returns,
        lengths, flags and the new masks (into ``mask_out`` when given). No ``EpisodeStep`` is built and nothing
        autoresets here (``step`` does that). Returns how many episodes ended."""
        book = self.book
        self._mask = self._own_mask if mask_out is None else mask_out
        # one call: the actions, rewards, returns, lengths, flags and the new masks (the game skips ended games)
        n_done = self.game.advance(self.state, actions, book, None if slots is None else np.asarray(slots, np.intp),
                                   self._mask)
        self._n_over = int(book.over.sum()) if n_done or self._n_over else 0
        return n_done

    def _next_games(self, done: np.ndarray) -> None:
        """Autoreset: the next game of each slot in ``done`` from its stream, its flags and its mask (the other
        slots' masks came from advance), and what else the game's ``restart`` writes (``EpisodeBook``)."""
        seeds = self._next_seeds(done)
        self.seeds[done] = seeds
        self.game.restart(self.state, done, seeds, self._mask, self.book)
        if self.record_events:
            self.game.start_logging(self.state, done)
        self._n_over = int(self.book.over.sum())

    # ------------------------------------------------------------------ info and snapshots
    def events(self, slot: int = 0) -> list[Event]:
        """What the rules did in the slot's latest step (``subterra_env.events``); with ``record_events=False``,
        always empty."""
        return self.game.events(self.state, self._slot(slot)) if self.record_events else []

    def game_info(self, slot: int) -> dict[str, Any]:
        """One slot's game info (Sub Terra: the keys every interface shares, ``subterra_env.info.game_info``)."""
        return self.game.game_info(self.state, slot)

    def batch_info(self) -> dict[str, np.ndarray]:
        """Every slot's info as arrays with a leading (B,) axis (Sub Terra: ``game_info`` as int64 arrays)."""
        return self.game.info(self.state)

    def _slot(self, slot: Any) -> int:
        if not isinstance(slot, (int, np.integer)) or isinstance(slot, bool) or not 0 <= slot < self.num_games:
            raise IndexError(f"slot {slot!r} is out of range 0..{self.num_games - 1}")
        return int(slot)

    def get_state(self, slot: int = 0) -> SlotSnapshot:
        """A copy of one slot's game and seed stream (for search and checkpointing)."""
        slot = self._slot(slot)
        return SlotSnapshot(self.game.take(self.state, np.array([slot])),
                            copy.deepcopy(self._slot_bits[slot].state), self.config)

    def set_state(self, slot: int, snapshot: SlotSnapshot) -> None:
        """Put a snapshot (from any slot of games with the same settings) into a slot; it continues identically.
        The slot's episode statistics count from the restore."""
        slot = self._slot(slot)
        if not isinstance(snapshot, SlotSnapshot):
            raise TypeError(f"set_state expects a SlotSnapshot from get_state(), got {type(snapshot).__name__}")
        if snapshot.config != self.config:
            raise ValueError("set_state: the snapshot comes from games with other settings "
                             f"(differing: {config_diff(snapshot.config, self.config)})")
        self.game.put(self.state, np.array([slot]), snapshot.game)
        self._slot_bits[slot] = np.random.PCG64()
        self._slot_bits[slot].state = copy.deepcopy(snapshot.seed_stream)
        self._started(np.array([slot]))


def _read_only(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    for a in arrays.values():
        a.flags.writeable = False
    return arrays


def config_diff(a: Any, b: Any) -> str:
    """The names of the settings in which two configs (dataclasses of one game) differ (for error messages)."""
    if type(a) is not type(b):
        return f"{type(a).__name__} against {type(b).__name__}"
    return ", ".join(f.name for f in dataclasses.fields(a) if getattr(a, f.name) != getattr(b, f.name)) or "none"
