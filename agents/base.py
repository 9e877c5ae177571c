"""The agent protocol shared by every player of subterra_env: random, heuristic, trained policy, human.

An agent answers one decision with ``act(observation, action_mask) -> action id`` and a batch of decisions with
``act_batch(observations, action_masks) -> (B,) action ids``. ``observation`` is the env's observation dict
(``{"observation": grid, "scalars": vector}``, the AEC env's dict may also hold ``action_mask``); a batch is the
same dict with a leading batch axis. The mask is always applied: an agent never returns an illegal action.

An agent that needs more than its observation (the heuristic reads the whole public board) is bound to its game
at construction through :func:`game_view`: ``HeuristicAgent(env)`` for an AEC env, ``HeuristicAgent(vec_env)``
for every slot of a vector env, ``HeuristicAgent(vec_env, slot=3)`` for one slot. Such an agent must only read
public information: never ``State.stack`` / ``State.deck`` beyond their counts (``tiles_left`` /
``cards_left`` below), never ``State.key`` / ``State.ctr`` / ``State.forced``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import State
from subterra_env.info import game_info

Observation = dict[str, np.ndarray]


@runtime_checkable
class Agent(Protocol):
    """What evaluate.py, the play command and the tests call."""

    def act(self, observation: Observation | None, action_mask: np.ndarray) -> int: ...

    def act_batch(self, observations: Observation | None, action_masks: np.ndarray,
                  games: np.ndarray | None = None) -> np.ndarray:
        """``games``: for a game-bound agent, the indices (into the bound batch) of the games the rows are, in
        order; None means every game of the batch. Agents that read only observations ignore it."""
        ...


@dataclass
class GameView:
    """Read access to the games an agent is bound to: the rules core and the live State (batch axis first).

    ``state`` is looked up on every access, so the view follows resets of the env it came from."""

    source: Any
    slot: int | None = None  # bound to one slot of a batch (act() reads that slot); None: slot 0 / all slots

    @property
    def core(self) -> Core:
        return _holder(self.source).core

    @property
    def state(self) -> State:
        holder = _holder(self.source)
        st = getattr(holder, "state_", None)  # the AEC env keeps its one game in state_
        if not isinstance(st, State):
            st = holder.state
        if not isinstance(st, State):
            raise TypeError(f"{type(self.source).__name__} holds no game State yet: call reset() first")
        return st

    @property
    def game(self) -> int:
        """The index of the bound game for act()."""
        return 0 if self.slot is None else self.slot

    def tiles_left(self, g: int) -> int:
        """Tiles still in the stack of game g (public: a player sees the pile's height, not its order)."""
        st = self.state
        return int(st.stack.shape[1] - st.stack_pos[g])

    def cards_left(self, g: int) -> int:
        """Hazard cards still in the deck of game g (public count)."""
        st = self.state
        return game_info(st, g)["hazard_cards_left"]


def _holder(source: Any) -> Any:
    """The object that owns ``core`` and the State: an AEC env (raw or wrapped), BatchedGames, a vector env."""
    if hasattr(source, "unwrapped") and hasattr(source.unwrapped, "core"):
        source = source.unwrapped
    if hasattr(source, "games") and hasattr(source.games, "core"):
        source = source.games  # SubterraVectorEnv, SubterraVecEnv, SubterraSingleAgentEnv
    if not hasattr(source, "core"):
        raise TypeError(f"cannot bind an agent to {type(source).__name__}: expected a subterra_env AEC env, "
                        "vector env, BatchedGames or an object with .core and .state")
    return source


def game_view(source: Any, slot: int | None = None) -> GameView:
    """Bind to the games of ``source`` (see the module docstring); a GameView passes through."""
    if isinstance(source, GameView):
        return source if slot is None else GameView(source.source, slot)
    _holder(source)  # fail early with a clear message
    return GameView(source, slot)


def check_mask(action_mask: np.ndarray) -> np.ndarray:
    """The legal action ids of a mask; an empty mask is an error (the agent is not the acting caver)."""
    legal = np.flatnonzero(action_mask)
    if not len(legal):
        raise ValueError("action_mask has no legal action: is this agent acting?")
    return legal


class GameBoundAgent:
    """An agent that decides from its bound games' public State (``view``) rather than from observations: the
    heuristic and the search. Subclasses set ``self.view`` (``game_view``) and implement ``decide``; ``act`` and
    ``act_batch`` check the masks and call it once for all rows."""

    needs_observation = False  # observations may be None
    scenarios: tuple[str, ...] = ("base",)  # the games it knows how to play (GameConfig.scenario)
    view: GameView

    @classmethod
    def plays(cls, scenario: str) -> bool:
        """Whether this agent knows how to play games of ``scenario`` (``GameConfig.scenario``)."""
        return scenario in cls.scenarios

    def _check_scenario(self) -> None:
        scenario = self.view.core.cfg.scenario
        if not self.plays(scenario):
            raise ValueError(f"{type(self).__name__} plays {self.scenarios}, not the scenario {scenario!r} of its "
                             "game (its rules and actions are not in its plans yet): use agents.RandomAgent there")

    def decide(self, core: Core, st: State, games: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The actions for games ``games`` of ``st`` (rows of ``masks``: their legal masks), in one call."""
        raise NotImplementedError

    def act(self, observation: Observation | None, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask).astype(bool)
        check_mask(mask)
        self._check_scenario()
        return int(self.decide(self.view.core, self.view.state, np.array([self.view.game]), mask[None])[0])

    def act_batch(self, observations: Observation | None, action_masks: np.ndarray,
                  games: np.ndarray | None = None) -> np.ndarray:
        masks = np.asarray(action_masks).astype(bool)
        if masks.ndim != 2:
            raise ValueError(f"action_masks must have shape (rows, actions), got {masks.shape}")
        rows = masks.shape[0]
        games = np.arange(rows) if games is None else np.asarray(games)
        if len(games) != rows:
            raise ValueError(f"{rows} mask rows but {len(games)} games")
        empty = ~masks.any(axis=1)
        if empty.any():
            check_mask(masks[int(np.argmax(empty))])  # the clear error for a row with no legal action
        self._check_scenario()
        return self.decide(self.view.core, self.view.state, games, masks)


class ObservationAgent:
    """An agent that decides from its caver's observation (the trained policies: MaskablePPO, ONNX, RLlib, TorchRL).
    ``act`` answers one decision through the subclass's ``act_batch``; ``checked_masks`` is the input check every
    ``act_batch`` starts with, so all of them refuse bad input with the same messages."""

    OBS_KEYS = ("observation", "scalars")

    def bound_games(self) -> np.ndarray | None:
        """The games of ``act``'s one row in a bound batch (None: unbound; ``agents.advice`` overrides it)."""
        return None

    def act(self, observation: Observation | None, action_mask: np.ndarray) -> int:
        check_mask(action_mask)
        if observation is None:
            raise ValueError(f"{type(self).__name__} needs the observation dict, got None")
        batch = {k: np.asarray(observation[k])[None] for k in self.OBS_KEYS}
        return int(self.act_batch(batch, np.asarray(action_mask)[None], self.bound_games())[0])

    def act_batch(self, observations: Observation | None, action_masks: np.ndarray,
                  games: np.ndarray | None = None) -> np.ndarray:
        raise NotImplementedError

    def checked_masks(self, observations: Observation | None, action_masks: np.ndarray) -> np.ndarray:
        """The (B, A) bool masks; ValueError for missing observations or a row with no legal action."""
        if observations is None:
            raise ValueError(f"{type(self).__name__} needs the observation dict, got None")
        masks = np.asarray(action_masks, dtype=bool)
        if masks.ndim != 2 or not masks.any(axis=1).all():
            raise ValueError("action_masks must be (B, 90) with a legal action in every row")
        return masks
