"""Sub Terra as a PettingZoo AEC environment (``subterra_v1``).

| | |
|---|---|
| Import | ``from subterra_env import env, raw_env`` |
| Agents | the cavers of the game, named after them (``diver``, ``scout``, ...); ``possible_agents`` = all 8; or, with ``agent_names="seat"``, seats ``caver_0`` .. ``caver_{n-1}`` (the same every game) |
| Actions | ``Discrete(90)`` for every caver, with ``action_mask`` (table: ``subterra_env.games.sub_terra.core.actions``) |
| Observations | ``{"observation": int8 (34, 2R+1, 2R+1), "scalars": int8 (49,), "action_mask": int8 (90,)}``, R = ``obs_radius`` (v1) |
| Reward | one team reward for all cavers: at the end ``reward_result[result]``, plus optional shaping |
| Termination | the end of the game (R-RND-3); truncation after ``max_cycles`` rounds |

Turns follow the rules: ``agent_selection`` is the caver who decides now. Placing a revealed tile and each step
of a run are decisions of their own. Unconscious and devoured cavers are never selected; they stay in
``agents`` until the game ends (they share the team reward). ``info[agent]`` holds ``result`` (a code: -1 while
running, 0 defeat, 1..3 bronze..gold; ``subterra_env.info.result_name``), ``escaped``, ``round``,
``hazard_cards_left`` and ``tiles_left``, all ints (``subterra_env.info``).

Stable agents for frameworks that address every ``possible_agent`` (TorchRL, RLlib): spaces are declared for
every possible agent; ``observe()`` of a caver not seated in this game returns the empty observation (all zeros,
zero action mask); ``rewards``, ``terminations``, ``truncations`` and ``infos`` hold the agents of this game (as
PettingZoo's API requires) but indexing them with a possible agent not seated answers its neutral entry (reward
0, the game's terminated/truncated flags, the game's info) instead of KeyError. ``agent_names="seat"`` names the
agents by seat (``caver_0`` acts first), so ``agents == possible_agents`` in every game, for wrappers that take
the agents of the first reset (RLlib's ``PettingZooEnv``) and for seat-based training; who sits there is in the
observation (scalar ``caver 0 rank``, index 18).

The Leader's Direct passes ``agent_selection`` to the directed caver for one action, then back (R-CAV-8).

``state()`` is a global view for centralised critics: the acting caver's observation, but with a window of
``state_radius`` (default 12) centred on the start tile, as one flat int8 vector (grid then scalars;
``subterra_env.games.sub_terra.core.observe.split_state`` splits it); like observations it holds no hidden order.
``get_state()`` / ``set_state(snapshot)`` copy and restore the whole environment (the game, the seed stream,
rewards and flags), so a restored snapshot continues identically: for search and checkpointing. ``copy.deepcopy``
and ``pickle`` work on the environment too.

Version history:
- v1 — observation v1: the 49 scalar features move out of the grid into ``"scalars"`` (the grid keeps 34 planes:
  7,699 values per decision at R = 7 instead of 18,675); ``state()`` becomes a flat vector. Rules unchanged.
- v0 — first release: the complete rules (R-SET..R-HZ) and the eight cavers' abilities (R-CAV).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .aec import EnvSnapshot, check_radii, check_render_mode, render_in_mode, restore_snapshot, take_snapshot, wrap
from .config import CAVER_NAMES, GameConfig, from_dict, to_dict
from .games.sub_terra.core.actions import ACTION_NAMES, IllegalActionError
from .games.sub_terra.core.observe import observe
from .games.sub_terra.core.state import State
from .episode import Episodes, GameOverError, check_action_id
from .events import Event
from .info import INFO_KEYS
from .rewards import DEFAULT_RESULT, REWARD_KEYWORDS
from .spaces import observation_space, state_space

__all__ = ["raw_env", "env", "EnvSnapshot", "GameOverError", "IllegalActionError", "StrictOrderWrapper",
           "UnknownAgentError", "check_action_id", "seat_names"]


class UnknownAgentError(KeyError):
    """An agent name that is not one of ``possible_agents``; the message lists them."""

    def __str__(self) -> str:  # KeyError would print the message quoted
        return str(self.args[0]) if self.args else ""


AGENT_NAMES = ("caver", "seat")
# raw_env's own keywords (besides the GameConfig settings), listed when an unknown keyword is passed
ENV_KEYWORDS = ("config", "render_mode", "max_cycles", "obs_radius", "state_radius", *REWARD_KEYWORDS, "agent_names",
                "record_events")


def seat_names(num_cavers: int) -> list[str]:
    """Agent names with ``agent_names="seat"``: ``caver_0`` (first seat) .. ``caver_{n-1}``."""
    return [f"caver_{i}" for i in range(num_cavers)]


class _Absent:
    """What a possible agent that is not seated in this game answers (see ``_AgentDict``)."""

    def __init__(self, possible: list[str]):
        self.possible = frozenset(possible)
        self.reward = 0.0
        self.terminated = False
        self.truncated = False
        self.info: dict[str, int] = {}


class _AgentDict(dict):
    """A dict over this game's agents (its keys are ``env.agents``, as PettingZoo requires) that answers ``d[a]``
    for a possible agent not seated in this game with that agent's neutral entry instead of KeyError, for
    frameworks that loop over every possible agent (TorchRL). ``get``, ``in`` and iteration see only the keys."""

    __slots__ = ("_absent", "_kind")  # two per step: no instance __dict__ to allocate

    def __init__(self, items: Any, absent: _Absent, kind: str):
        super().__init__(items)
        self._absent, self._kind = absent, kind

    def __missing__(self, key: Any) -> Any:
        if key in self._absent.possible:
            value = getattr(self._absent, self._kind)
            return dict(value) if isinstance(value, dict) else value
        raise KeyError(key)


def _agent_dict_property(name: str, kind: str) -> property:
    attr = "_" + name.lstrip("_") + "_d"

    def get(self: raw_env) -> _AgentDict:
        try:
            return self.__dict__[attr]
        except KeyError:
            raise AttributeError(f"{name}: call reset() first") from None

    def set_(self: raw_env, value: Any) -> None:
        self.__dict__[attr] = _AgentDict(value, self._absent, kind)

    return property(get, set_)


class StrictOrderWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing, except that stepping a finished game raises GameOverError, not a warning."""

    def step(self, action: Any) -> None:
        if not self._has_reset:
            super().step(action)  # PettingZoo's error
            return
        env = self.env  # straight to the env: PettingZoo's attribute forwarding costs a few µs a decision
        if not env.agents:
            self.unwrapped.step(action)  # raises GameOverError with the result
        self._has_updated = True
        env.step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last`` of the env itself (the same values), after the order check."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)


def env_name(scenario: str = "base") -> str:
    """The environment's name and version: ``subterra_v1`` for the base game, ``subterra_annihilation_v1`` ... for
    a scenario (its observation and action space differ, so it is a different environment)."""
    return "subterra_v1" if scenario == "base" else f"subterra_{scenario}_v1"


class raw_env(AECEnv):
    metadata = {"name": "subterra_v1", "render_modes": ["human", "ansi", "rgb_array"], "is_parallelizable": False,
                "render_fps": 2}

    rewards = _agent_dict_property("rewards", "reward")
    _cumulative_rewards = _agent_dict_property("_cumulative_rewards", "reward")
    terminations = _agent_dict_property("terminations", "terminated")
    truncations = _agent_dict_property("truncations", "truncated")
    infos = _agent_dict_property("infos", "info")

    def __init__(self, config: GameConfig | None = None, *, render_mode: str | None = None, max_cycles: int = 200,
                 obs_radius: int = 7, state_radius: int = 12,
                 reward_result: tuple[float, float, float, float] = DEFAULT_RESULT, reward_escape: float = 0.0,
                 reward_health: float = 0.0, reward_tile: float = 0.0, reward_way: float = 0.0,
                 reward_danger: float = 0.0, reward_knockout: float = 0.0, agent_names: str = "caver",
                 record_events: bool = False, **settings: Any):
        """Settings: any GameConfig field as a keyword (e.g. ``num_cavers=5``), or a whole ``config``.

        ``max_cycles``: rounds before truncation. ``obs_radius``: half-width of the observation window;
        ``state_radius``: of the global ``state()`` window around the start tile.
        Shaping (all default 0, added to the team reward when it happens): ``reward_escape`` per caver reaching
        the exit, ``reward_health`` per health point lost (use a negative value), ``reward_tile`` per tile placed,
        ``reward_way`` per step of the way to the exit the team's cavers close, ``reward_danger`` per caver in a
        horror's reach after each step (use a negative value: a price on leaving cavers where the horror phase or
        a horror card reaches them), ``reward_knockout`` per caver knocked out (negative; a heal pays it back;
        all ``subterra_env.rewards``).
        ``agent_names``: ``"caver"`` (agents named after their cavers) or ``"seat"`` (``caver_0`` ..).
        ``record_events``: the rules log what they do; ``last_events`` reads it after each step (for play,
        records and replays; off by default, as training needs no log).
        """
        super().__init__()
        if settings:
            config = from_dict({**(to_dict(config) if config else {}), **settings},
                               env_keys=ENV_KEYWORDS + ("illegal_action",))
        self.config = config or GameConfig()
        if agent_names not in AGENT_NAMES:
            raise ValueError(f"agent_names={agent_names!r}: expected 'caver' (diver, scout, ...) or 'seat' "
                             "(caver_0, caver_1, ...)")
        self.agent_names = agent_names
        check_render_mode(self.metadata, render_mode)
        check_radii(20, obs_radius=obs_radius, state_radius=state_radius)
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.obs_radius = obs_radius
        self.state_radius = state_radius
        # One game (slot 0) of the episode layer: it checks actions, steps, rewards, ends and truncates the game;
        # this class adds the agents' names, turns and observations. Unseeded resets draw fresh entropy.
        self.episodes = Episodes(1, self.config, max_cycles=max_cycles, reward_result=reward_result,
                                 reward_escape=reward_escape, reward_health=reward_health, reward_tile=reward_tile,
                                 reward_way=reward_way, reward_danger=reward_danger,
                                 reward_knockout=reward_knockout,
                                 autoreset=False, seed=None, record_events=record_events)
        self.core = self.episodes.core
        self.team_reward = self.episodes.team_reward
        if agent_names == "seat":
            self.possible_agents = seat_names(self.config.num_cavers)
        else:
            self.possible_agents = list(CAVER_NAMES)
        self._absent = _Absent(self.possible_agents)
        scenario = self.config.scenario
        if scenario != "base":  # a scenario is its own environment: its own spaces, its own name (env_name)
            self.metadata = {**self.metadata, "name": env_name(scenario)}
        space = observation_space(obs_radius, with_mask=True, scenario=scenario)
        self.observation_spaces = {a: space for a in self.possible_agents}
        # The step writes the acting caver's observation and the info counts in its one compiled call
        # (core/advance.py); observe() and the infos read them while they describe the game (book.fresh).
        self._book = self.episodes.book
        self._book.obs = (np.zeros((1, *space["observation"].shape), dtype=np.int8),
                          np.zeros((1, *space["scalars"].shape), dtype=np.int8))
        self._book.obs_radius = obs_radius
        self._ended = False  # the game has ended (terminated or truncated): every agent's flags say so
        self._action = np.zeros(1, dtype=np.intp)  # the one game's action, handed to the episode layer
        self.action_spaces = {a: gymnasium.spaces.Discrete(self.core.num_actions) for a in self.possible_agents}
        self.state_space = state_space(state_radius, scenario)
        self.state_: State | None = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        self._check_agent(agent, "observation_space")
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        self._check_agent(agent, "action_space")
        return self.action_spaces[agent]

    def _check_agent(self, agent: Any, where: str) -> None:
        if agent not in self._absent.possible:
            now = f"; in this game: {self.agents}" if self.state_ is not None else ""
            raise UnknownAgentError(f"{where}({agent!r}): no such agent; possible agents: {self.possible_agents}"
                                    + now)

    # ------------------------------------------------------------------ AEC API
    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last``: the selected agent's observation, cumulative reward, flags and info (the same values,
        read from the dicts without a property call each: this runs once per decision)."""
        agent = self.agent_selection
        if agent is None:
            raise RuntimeError("last(): no agent is selected (every agent has left the finished game): call reset()")
        d = self.__dict__
        return (self.observe(agent) if observe else None, d["_cumulative_rewards_d"][agent],
                d["_terminations_d"][agent], d["_truncations_d"][agent], d["_infos_d"][agent])

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game; ``options={"scenario": text}`` starts from a scenario map instead (``subterra_env.scenario``:
        a position from a bug report, a curriculum stage), its dice from the text's ``seed:`` line, else from the
        env's seed stream (as any new game)."""
        if seed is not None:
            self.episodes.seed([seed])
        self.episodes.reset(options, seats=None if self.agent_names == "caver" else self.config.num_cavers)
        self.state_ = self.episodes.state
        self._after_change(first=True)

    def _after_change(self, first: bool = False) -> None:
        st = self.state_
        if first:
            names = self._seat_names = self._names()  # ranks never change within a game
            self.agents = names
            self._seat = {n: s for s, n in enumerate(names)}
            self.rewards = {a: 0.0 for a in self.agents}
            self._cumulative_rewards = {a: 0.0 for a in self.agents}
            self.terminations = {a: False for a in self.agents}
            self.truncations = {a: False for a in self.agents}
        book = self._book
        over, truncated = bool(book.terminated[0]), bool(book.truncated[0])
        info = self._info()
        self.__dict__["_infos_d"] = _AgentDict({a: dict(info) for a in self.agents}, self._absent, "info")
        self._ended = over or truncated
        if self._ended:
            for a in self.agents:
                self.terminations[a] = bool(over)
                self.truncations[a] = bool(truncated)
            self.agent_selection = self.agents[0] if self.agents else None
        else:
            self.agent_selection = self._seat_names[int(st.actor[0])]
        self._set_absent(info, over, truncated)

    def _set_absent(self, info: dict, over: bool, truncated: bool) -> None:
        """The neutral entries of possible agents not seated in this game: no reward, the game's flags and info."""
        # info is this step's own dict (never handed out: __missing__ answers a copy of it)
        self._absent.terminated, self._absent.truncated, self._absent.info = over, truncated, info

    def _names(self) -> list[str]:
        """Agent names by seat."""
        if self.agent_names == "seat":
            return seat_names(len(self.state_.c_rank[0]))
        return [CAVER_NAMES[r - 1] for r in self.state_.c_rank[0]]

    def _info(self) -> dict[str, Any]:
        if self._book.fresh:  # the counts the step wrote (INFO_KEYS rows), without another compiled call
            return dict(zip(INFO_KEYS, self._book.counts[:, 0].tolist()))
        return self.episodes.game_info(0)

    @property
    def legal_mask(self) -> np.ndarray:
        """(A,) bool: the acting caver's legal actions now (the episode layer's row: read it, copy it to keep it)."""
        if self.state_ is None:
            raise RuntimeError("legal_mask before reset(): call reset() first")
        return self.episodes.mask[0]

    @property
    def last_events(self) -> list[Event]:
        """What the rules did in the latest step, in order (``subterra_env.events``): tiles drawn, placed and
        discarded, moves, every die rolled, damage and its cause, horrors, the hazard card, the turn, the round
        and the result. Empty after ``reset`` and with ``record_events=False``."""
        if self.state_ is None:
            raise RuntimeError("last_events before reset(): call reset() first")
        return self.episodes.events(0)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The caver's observation; for a possible agent not seated in this game, the empty observation (all
        zeros, zero action mask); for any other name, UnknownAgentError listing the agents."""
        if self.state_ is None:
            raise RuntimeError("observe() before reset(): call reset() first")
        seat = self._seat.get(agent)
        if seat is None:
            self._check_agent(agent, "observe")
            return self.empty_observation()
        if self._book.fresh and seat == max(int(self.state_.actor[0]), 0):  # written by the step, in its call
            grid, scalars = self._book.obs[0][0].copy(), self._book.obs[1][0].copy()
        else:
            grid, scalars = (a[0] for a in observe(self.core.cat, self.state_, np.array([seat], dtype=np.int64),
                                                   self.obs_radius))
        acting = agent == self.agent_selection and not self._ended
        mask = self.episodes.mask[0].astype(np.int8) if acting else np.zeros(self.core.num_actions, dtype=np.int8)
        return {"observation": grid, "scalars": scalars, "action_mask": mask}

    def empty_observation(self) -> dict[str, np.ndarray]:
        """What ``observe()`` gives a caver not seated in this game: zeros of the observation space's shapes."""
        space = self.observation_spaces[self.possible_agents[0]]
        return {k: np.zeros(s.shape, dtype=s.dtype) for k, s in space.spaces.items()}

    def state(self) -> np.ndarray:
        """Global state: the acting caver's view (caver 0 = the actor) centred on the start tile, flat (grid, then
        scalars)."""
        if self.state_ is None:
            raise RuntimeError("state() before reset(): call reset() first")
        st = self.state_
        seat = np.maximum(st.actor, 0)
        grid, scalars = observe(self.core.cat, st, seat, self.state_radius, centre=np.zeros(1, dtype=np.intp))
        return np.concatenate((grid[0].ravel(), scalars[0]))

    # ------------------------------------------------------------------ snapshots
    def get_state(self) -> EnvSnapshot:
        """A copy of the whole environment; ``set_state`` on it continues exactly as this one would."""
        if self.state_ is None:
            raise RuntimeError("get_state() before reset(): call reset() first")
        return take_snapshot(self)

    def set_state(self, snapshot: EnvSnapshot) -> None:
        """Restore a snapshot of ``get_state`` (of an environment with the same settings)."""
        restore_snapshot(self, snapshot)
        self.state_ = self.episodes.state
        self._seat_names = self._names()
        self._seat = {n: s for s, n in enumerate(self._seat_names)}
        over, truncated = bool(self.episodes.terminated[0]), bool(self.episodes.truncated[0])
        self._ended = over or truncated
        self._set_absent(self._info(), over, truncated)

    def legal_actions(self) -> list[str]:
        """Names of the acting caver's legal actions (for people and debugging)."""
        return [ACTION_NAMES[i] for i in np.flatnonzero(self.legal_mask)]

    def step(self, action: int | None) -> None:
        if self.state_ is None:
            raise RuntimeError("step() before reset(): call reset() first")
        if not self.agents:
            raise GameOverError(f"step({action!r}) after the game ended ({self.episodes.outcome(0)}): call reset()")
        agent = self.agent_selection
        if self._ended:  # every agent's flag is set together when the game ends (_after_change)
            self._was_dead_step(action)
            return
        self._action[0] = self.episodes.check_action(action, 0, agent)
        self.episodes.advance(self._action)  # checked above; no autoreset (one game)
        reward = float(self._book.reward[0])
        d = self.__dict__
        rewards, cumulative = d["_rewards_d"], d["_cumulative_rewards_d"]
        cumulative[agent] = 0.0
        # In place, as PettingZoo's classic envs do (the keys are this game's agents until it ends), and
        # AECEnv._accumulate_rewards without its per-agent property lookups: no new dict per decision.
        for a in rewards:
            rewards[a] = reward
            cumulative[a] += reward
        self._after_change()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        from .frames import render_rgb
        from .render import render_ansi

        return render_in_mode(self, lambda: render_ansi(self.state_, cfg=self.config),
                              lambda: render_rgb(self.state_, cfg=self.config))

    def close(self) -> None:
        pass


def env(illegal_action: str = "raise", **kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's standard wrappers.

    ``illegal_action="raise"`` (default) raises IllegalActionError naming the action and the legal ones;
    ``"terminate"`` uses PettingZoo's TerminateIllegalWrapper (the game ends with reward -1 for the offender).
    """
    return wrap(raw_env, kwargs, illegal_action, StrictOrderWrapper)
