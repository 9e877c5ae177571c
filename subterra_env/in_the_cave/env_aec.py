"""In the Cave as a PettingZoo AEC environment (``in_the_cave_v0``).

| | |
|---|---|
| Import | ``from subterra_env.in_the_cave import env`` |
| Agents | one per team: ``team_0`` .. ``team_{n-1}`` in seat order (R-ITC-SET-10); n = ``num_players`` |
| Actions | ``Discrete(81)`` with ``action_mask`` (table: ``subterra_env.games.in_the_cave.core.actions``) |
| Observations | ``{"observation": int8 (25, 2R+1, 2R+1) centred on the team's pawn, "vector": int16 (VECTOR_SIZE,), "action_mask": int8 (81,)}`` |
| Reward | at the end (R-ITC-END-3): own score minus the mean of the others' (eliminated teams score 0); plus ``reward_vp`` per VP gained as it happens (shaping, default 0) |
| Termination | the end of the game (R-ITC-END-2); truncation after ``max_rounds`` rounds (R-ITC-END-4), reward 0 |

``agent_selection`` is the team deciding now: in the initial packing each team in seat order, then the turns
from the start player. Placing a revealed tile is a decision of its own after seeing it. ``state()`` is a flat
int16 vector for centralised critics: the grid centred on the home base (``state_radius``) as the acting team
sees it, then its vector; it never holds the stacks' order. ``info[agent]``: ``round``, ``scores`` (final, by
seat; zeros while running), ``winners`` and ``result`` ("running", "ended", "truncated").

The env runs on the shared episode layer (``subterra_env.episode.Episodes`` over the ``InTheCave`` game,
``subterra_env.games.in_the_cave.game``), as Sub Terra's does: one action check (``IllegalActionError``, Sub Terra's
class), one seed stream, the rewards and flags. ``reset(seed)`` seeds the stream the games are drawn from (the
first game of ``reset(seed=s)`` is the same as before the episode layer: recorded games replay). ``get_state()``
returns an ``EnvSnapshot`` (``subterra_env.aec``, as Sub Terra's env) that ``set_state`` continues exactly.

Version history:
- v0 — first release. Since the shared episode layer: the same games, rewards and observations; ``get_state``
  returns an ``EnvSnapshot`` instead of a dict.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from subterra_env.aec import EnvSnapshot, check_radii, check_render_mode, render_in_mode, restore_snapshot, take_snapshot, wrap
from subterra_env.episode import Episodes
from subterra_env.games.in_the_cave.config import ItcConfig, from_dict, to_dict
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.actions import ACTION_NAMES, NUM_ACTIONS
from subterra_env.games.in_the_cave.game import RESULTS, InTheCave  # noqa: F401 (RESULTS: imported from here too)
from subterra_env.games.in_the_cave.observe import GRID_CHANNELS, VECTOR_SIZE, grid, vector


def team_names(n: int) -> list[str]:
    return [f"team_{i}" for i in range(n)]


class raw_env(AECEnv):
    metadata = {"name": "in_the_cave_v0", "render_modes": ["ansi", "human", "rgb_array"], "is_parallelizable": False,
                "render_fps": 2}

    def __init__(self, config: ItcConfig | None = None, *, render_mode: str | None = None, obs_radius: int = 7,
                 state_radius: int = 10, reward_vp: float = 0.0, **settings: Any):
        """Settings: any ItcConfig field as a keyword (``num_players=3``) or a whole ``config``.
        ``obs_radius``: half-width of the grid around the team; ``reward_vp``: shaping per VP gained."""
        super().__init__()
        if settings:
            config = from_dict({**(to_dict(config) if config else {}), **settings})
        self.config = config or ItcConfig()
        check_render_mode(self.metadata, render_mode)
        check_radii(30, obs_radius=obs_radius, state_radius=state_radius)
        self.render_mode = render_mode
        self.obs_radius, self.state_radius, self.reward_vp = obs_radius, state_radius, float(reward_vp)
        # One game (slot 0) of the episode layer: it checks actions, steps, rewards and ends the game; this class
        # adds the teams' names and observations. Unseeded resets draw fresh entropy.
        self.episodes = Episodes(1, game=InTheCave(self.config, reward_vp=reward_vp),
                                 max_cycles=self.config.max_rounds, autoreset=False, seed=None)
        self.core = self.episodes.core
        self.seats = self.config.num_players
        self.possible_agents = team_names(self.seats)
        w = 2 * obs_radius + 1
        space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(0, 127, (GRID_CHANNELS, w, w), dtype=np.int8),
            "vector": gymnasium.spaces.Box(-1000, 1000, (VECTOR_SIZE,), dtype=np.int16),
            "action_mask": gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: gymnasium.spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        ws = 2 * state_radius + 1
        self.state_space = gymnasium.spaces.Box(-1000, 1000, (GRID_CHANNELS * ws * ws + VECTOR_SIZE,),
                                                dtype=np.int16)
        self._started = False

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    @property
    def G(self) -> np.ndarray | None:
        """The packed batch of one game (the episode layer's ``state``), None before the first reset."""
        return self.episodes.state if self._started else None

    @property
    def game(self) -> np.ndarray:
        """This game's record (a row of the packed batch; ``subterra_env.games.in_the_cave.core.layout``)."""
        if not self._started:
            raise RuntimeError("no game yet: call reset() first")
        return self.episodes.state[0]

    @property
    def _mask(self) -> np.ndarray:
        """(NUM_ACTIONS,) bool: the acting team's legal actions (the episode layer's row: read it)."""
        return self.episodes.mask[0]

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self.episodes.seed([seed])
        self.episodes.reset(options)
        self._started = True
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._after_change()

    def _info(self) -> dict[str, Any]:
        """The game's info (``InTheCave.game_info``): what every agent's ``infos`` entry holds."""
        return self.episodes.game_info(0)

    def _after_change(self) -> None:
        info = self._info()
        self.infos = {a: dict(info) for a in self.agents}
        if self.episodes.over[0]:
            terminated, truncated = bool(self.episodes.terminated[0]), bool(self.episodes.truncated[0])
            self.terminations = dict.fromkeys(self.agents, terminated)
            self.truncations = dict.fromkeys(self.agents, truncated)
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.agents[int(self.game[L.ACTOR])]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        obs = self.episodes.game.observe(self.G, [seat], self.obs_radius)
        acting = agent == self.agent_selection and not self.episodes.over[0]
        return {"observation": obs["observation"][0], "vector": obs["vector"][0],
                "action_mask": self._mask.astype(np.int8) if acting else np.zeros(NUM_ACTIONS, dtype=np.int8)}

    def state(self) -> np.ndarray:
        g = self.game
        seat = max(int(g[L.ACTOR]), 0)
        gr = grid(g, seat, self.state_radius, 0, 0, self.seats).astype(np.int16)
        return np.concatenate((gr.ravel(), vector(g, self.core.P, seat, self.seats)))

    def legal_actions(self) -> list[str]:
        return [ACTION_NAMES[i] for i in np.flatnonzero(self._mask)]

    def step(self, action: int | None) -> None:
        if not self._started:
            raise RuntimeError("step() before reset(): call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = self.episodes.check_action(action, 0, agent)
        rewards = self.episodes.step(np.array([a], dtype=np.intp), checked=True).rewards[0]
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict(zip(self.agents, rewards.tolist()))
        self._after_change()
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render_text())

    # ------------------------------------------------------------------ snapshots and rendering
    def get_state(self) -> EnvSnapshot:
        """A copy of the whole environment; ``set_state`` on it continues exactly as this one would."""
        if not self._started:
            raise RuntimeError("get_state() before reset(): call reset() first")
        return take_snapshot(self)

    def set_state(self, snapshot: EnvSnapshot) -> None:
        """Restore a snapshot of ``get_state`` (of an environment with the same settings)."""
        restore_snapshot(self, snapshot)
        self._started = True

    def render_text(self, seat: int | None = None) -> str:
        """The "ansi" render as team ``seat`` may see it: during the hidden initial packing (R-ITC-SET-9) no other
        team's backpack (None: as the team deciding now sees it)."""
        from .render import render_ansi

        return render_ansi(self.game, self.seats, seat)

    def render_rgb(self, labels: list[str] | None = None, **kw: Any) -> np.ndarray:
        """The game as an (H, W, 3) uint8 image (``render.render_rgb``: tiles, passages, pawns, camps, status)."""
        from .render import render_rgb

        return render_rgb(self.game, self.seats, labels=labels, **kw)

    def render(self) -> str | np.ndarray | None:
        return render_in_mode(self, self.render_text, self.render_rgb)

    def close(self) -> None:
        pass


def env(illegal_action: str = "raise", **kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's wrappers: ``illegal_action="raise"`` (default) raises
    IllegalActionError naming the action and the legal ones; ``"terminate"`` ends the game, reward -1."""
    return wrap(raw_env, kwargs, illegal_action, wrappers.OrderEnforcingWrapper)
