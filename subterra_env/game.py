"""The ``Game`` protocol: what the episode layer (``subterra_env.episode.Episodes``) needs from a game's rules.

Two games implement it, each as a thin adapter over its compiled core (no rules are copied into the adapter):
Sub Terra (``subterra_env.games.sub_terra.game.SubTerra`` over ``core.rules.Core`` and a ``State``) and In the Cave
(``subterra_env.games.in_the_cave.game.InTheCave`` over ``ItcCore`` and a packed (B, RECORD_SIZE) int32 batch). So seed
streams, the action check, flags, rewards, infos, autoreset and snapshots are written once, in ``Episodes``, for
both; an interface (AEC env, vector env) adds names, turns and observations on top.

A *batch* is the game's own container of B games (a ``State``, an int32 array); the episode layer never looks
inside it, it only passes it back to the game. ``take``/``put`` copy slots out and back (snapshots, the games that
ended).

Two ways to step:

- ``step(batch, actions, mask_out=None) -> codes``: any caller; one (B,) int8 code per game, never raising for one
  game's action (``STEP_DONE``, ``STEP_ILLEGAL``: that game unchanged, ``STEP_OVER``: it had ended, unchanged);
- ``advance(batch, actions, book, slots, mask_out) -> n_done``: the episode layer's trusted step (the actions were
  checked against the current mask): apply them, write the rewards and the end-of-episode bookkeeping into
  ``book`` (an ``EpisodeBook``) and the new legal masks into ``mask_out``. One method, so that a game can do all of
  it in one compiled call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .games.sub_terra.core.actions import IllegalActionError

STEP_DONE, STEP_ILLEGAL, STEP_OVER = 0, 1, 2  # the per-game codes of Game.step


@dataclass(eq=False)
class EpisodeBook:
    """The episode layer's per-slot arrays, which ``Game.advance`` updates in place (one object, so a compiled
    entry can take them all). Inputs: ``max_cycles`` (rounds before truncation), ``all_slots`` (all True).
    Updated for every slot that stepped and was not over before the step: ``ep_return`` ((B,) float64, or (B, S)
    for a game whose seats score apart), ``ep_length``, ``terminated``, ``truncated``, ``over``; ``done`` marks
    the slots whose episode ended in this step. Written fresh each step: ``reward`` ((B,): Sub Terra's team reward,
    float32, or for a game whose seats score apart the reward of the seat that acted) and ``rewards`` ((B, S) per
    seat; None for a team game, where every seat gets ``reward``). Slots that did not step, or were over, get 0.

    What a game may write in the same call (its ``advance`` does it where it can, in one compiled call): ``counts``
    (the game's info counts per slot, one row per key of ``count_keys``, e.g. Sub Terra's ``INFO_KEYS`` rows (5,
    B); None where the game keeps none), valid after a step while ``fresh`` is True (``counted_info``), and each
    slot's acting seat's observation into ``obs`` (arrays an interface sets, with ``obs_radius``; None: none
    written). ``fresh`` turns False when the games change outside ``advance`` (reset, snapshots): then counts and
    observations must be read anew. ``restart`` (the autoreset) may keep them fresh by writing the new games'
    counts and observations itself; it then leaves the observations ``advance`` wrote of those slots (their final
    ones) in ``finals``, row j for the j-th slot restarted."""

    num_games: int
    num_seats: int
    shared_reward: bool
    max_cycles: int
    terminated: np.ndarray = field(init=False)
    truncated: np.ndarray = field(init=False)
    over: np.ndarray = field(init=False)
    done: np.ndarray = field(init=False)
    all_slots: np.ndarray = field(init=False)
    ep_return: np.ndarray = field(init=False)
    ep_length: np.ndarray = field(init=False)
    reward: np.ndarray = field(init=False)
    rewards: np.ndarray | None = None
    counts: np.ndarray | None = None
    count_keys: tuple[str, ...] = ()
    obs: tuple[np.ndarray, ...] | None = None
    obs_radius: int = 7
    fresh: bool = False
    finals: tuple[np.ndarray, ...] | None = None

    def __post_init__(self) -> None:
        b = self.num_games
        self.terminated, self.truncated = np.zeros(b, dtype=bool), np.zeros(b, dtype=bool)
        self.over, self.done = np.zeros(b, dtype=bool), np.zeros(b, dtype=bool)
        self.all_slots = np.ones(b, dtype=bool)
        self.ep_return = np.zeros(b if self.shared_reward else (b, self.num_seats))
        self.ep_length = np.zeros(b, dtype=np.int64)
        self.reward = np.zeros(b, dtype=np.float32)

    def counted_info(self, rows: np.ndarray | None = None) -> dict[str, np.ndarray] | None:
        """Every slot's info as the last ``advance`` counted it (copies, one (B,) array per key of ``count_keys``;
        ``rows``: these slots' alone), or None when it did not or the games changed since (``fresh``)."""
        if not self.fresh or self.counts is None:
            return None
        return dict(zip(self.count_keys, self.counts.copy() if rows is None else self.counts[:, rows]))

    def started(self, slots: np.ndarray) -> None:
        """New episodes in these slots: their return and length count from zero (and what ``advance`` wrote of
        the games is stale)."""
        self.ep_return[slots] = 0.0
        self.ep_length[slots] = 0
        self.fresh = False


@runtime_checkable
class Game(Protocol):
    """The rules of one game for one config, over batches of any size (see the module docstring).

    Attributes: ``name`` and ``version`` (the environment's, e.g. ``"subterra"`` and 1), ``config`` (the game's
    settings, a frozen dataclass), ``core`` (the compiled core it adapts), ``num_actions``, ``num_seats`` (the
    seats of every game of this config), ``action_names`` (one per action id), ``shared_reward`` (True: every seat
    gets the same reward, ``EpisodeBook.rewards`` is None)."""

    name: str
    version: int
    config: Any
    core: Any
    num_actions: int
    num_seats: int
    action_names: Sequence[str]
    shared_reward: bool

    def init(self, seeds: np.ndarray, options: dict | None = None, seats: int | None = -1) -> Any:
        """New games, one per seed (int64); a game depends on its seed alone, in any batch. ``options``: the
        game's reset options (Sub Terra: ``{"scenario": text}``); ``seats``: how many seats a game that the
        options describe must have (-1: the config's, None: any)."""

    def reset(self, batch: Any, slots: np.ndarray, seeds: np.ndarray, mask_out: np.ndarray | None = None) -> None:
        """New games in these slots, in place, one per seed (as ``put(slots, init(seeds))``); with ``mask_out``
        ((B, A) bool), also their legal masks into its rows ``slots`` (the autoreset's, after ``advance``)."""

    def restart(self, batch: Any, slots: np.ndarray, seeds: np.ndarray, mask_out: np.ndarray,
                book: EpisodeBook) -> None:
        """The autoreset after ``advance``: new games in these slots (as ``reset``), their masks into ``mask_out``
        and their rows of ``book`` restarted (returns and lengths from zero, flags of the new games); see
        ``EpisodeBook`` for what a game may also write. ``restart_apart`` does it from ``reset`` and ``flags``."""

    def legal_mask(self, batch: Any, out: np.ndarray | None = None) -> np.ndarray:
        """(B, A) bool: the acting seat's legal actions in each game, all False once it ended; into ``out`` (a
        C-contiguous (B, A) bool array) when given."""

    def step(self, batch: Any, actions: np.ndarray, mask_out: np.ndarray | None = None) -> np.ndarray:
        """One action per game; (B,) int8 codes (``STEP_DONE`` / ``STEP_ILLEGAL`` / ``STEP_OVER``); never raises
        for one game's action. With ``mask_out``, also the new legal masks (as ``legal_mask``)."""

    def advance(self, batch: Any, actions: np.ndarray, book: EpisodeBook, slots: np.ndarray | None = None,
                mask_out: np.ndarray | None = None) -> int:
        """The episode layer's step: ``actions`` (intp, one per slot of ``slots``, or per game) were checked legal;
        apply them (the other slots wait), update ``book`` (rewards, returns, lengths, flags, ``done``) and write
        every game's new legal mask into ``mask_out`` when given. Returns how many episodes ended."""

    def actor(self, batch: Any) -> np.ndarray:
        """(B,) int: the seat deciding now in each game (-1 or any value once it ended)."""

    def flags(self, batch: Any, max_cycles: int, terminated: np.ndarray, truncated: np.ndarray,
              over: np.ndarray) -> int:
        """Every game's flags into the three (B,) bool arrays: terminated (ended by the rules), truncated (cut
        off by the game's own round limit or after ``max_cycles`` rounds), over (either); returns how many are
        over."""

    def rewards(self, before: Any, batch: Any) -> np.ndarray:
        """(B, S) float (the game's precision): each seat's reward for the step from ``before`` (``reward_snapshot``
        before it) to ``batch``."""

    def reward_snapshot(self, batch: Any) -> Any:
        """What ``rewards`` compares across a step (None when nothing needs comparing)."""

    def info(self, batch: Any) -> dict[str, np.ndarray]:
        """Every game's info as arrays with a leading (B,) axis."""

    def game_info(self, batch: Any, slot: int) -> dict[str, Any]:
        """One game's info, as the AEC env reports it to every agent."""

    def outcome(self, batch: Any, slot: int) -> str:
        """How one game stands by its own rules: ``"running"``, or the name of its result."""

    def take(self, batch: Any, slots: np.ndarray) -> Any:
        """A copy of these games, as a batch."""

    def put(self, batch: Any, slots: np.ndarray, sub: Any) -> None:
        """Write games (from ``take``) into these slots."""

    def observe(self, batch: Any, seats: np.ndarray, radius: int) -> dict[str, np.ndarray]:
        """Each game as its seat ``seats[b]`` sees it, in a window of half-width ``radius``: the observation
        dict of the game's env (without the action mask), each array with a leading (B,) axis."""


def restart_apart(game: Game, batch: Any, slots: np.ndarray, seeds: np.ndarray, mask_out: np.ndarray,
                  book: EpisodeBook) -> None:
    """``Game.restart`` from the game's ``reset`` and ``flags``, for a game without a restart of its own."""
    game.reset(batch, slots, seeds, mask_out)
    book.started(slots)
    game.flags(batch, book.max_cycles, book.terminated, book.truncated, book.over)


def check_action_id(action: Any, who: str = "", legal: str = "") -> int:
    """One action id from a Python or numpy integer, or an integer array of shape (); floats (even 3.0), bools,
    strings, None, NaN and arrays of other shapes are refused (``IllegalActionError`` naming the action, ``who``
    and the ``legal`` ones), never cast. Returns it as an int (the range is not checked here): the one check of an
    action's type, for the episode layer and every interface."""
    if action is None:
        raise IllegalActionError(f"an action{who} is required, got None{legal}")
    arr = np.asarray(action) if not isinstance(action, str) else None
    if arr is None or arr.dtype == bool or arr.dtype == object or not (
            np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise IllegalActionError(f"action {action!r}{who} is not an integer id{legal}")
    if arr.shape != ():
        raise IllegalActionError(f"action {action!r}{who} of shape {arr.shape} is not a single integer id{legal}")
    if np.issubdtype(arr.dtype, np.floating):
        raise IllegalActionError(f"action {action!r}{who} is a float, not a single integer id (pass an int){legal}")
    return int(arr)
