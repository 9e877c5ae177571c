"""In the Cave as a PettingZoo AEC environment (``in_the_cave_v0``).

| | |
|---|---|
| Import | ``from subterra_env.in_the_cave import env`` |
| Agents | one per team: ``team_0`` .. ``team_{n-1}`` in seat order (R-ITC-SET-10); n = ``num_players`` |
| Actions | ``Discrete(81)`` with ``action_mask`` (table: ``subterra_env.in_the_cave.core.actions``) |
| Observations | ``{"observation": int8 (25, 2R+1, 2R+1) centred on the team's pawn, "vector": int16 (VECTOR_SIZE,), "action_mask": int8 (81,)}`` |
| Reward | at the end (R-ITC-END-3): own score minus the mean of the others' (eliminated teams score 0); plus ``reward_vp`` per VP gained as it happens (shaping, default 0) |
| Termination | the end of the game (R-ITC-END-2); truncation after ``max_rounds`` rounds (R-ITC-END-4), reward 0 |

``agent_selection`` is the team deciding now: in the initial packing each team in seat order, then the turns
from the start player. Placing a revealed tile is a decision of its own after seeing it. ``state()`` is a flat
int16 vector for centralised critics: the grid centred on the home base (``state_radius``) as the acting team
sees it, then its vector; it never holds the stacks' order. ``info[agent]``: ``round``, ``scores`` (final, by
seat; zeros while running), ``winners`` and ``result`` ("running", "ended", "truncated").
"""

from __future__ import annotations

import copy
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..env import check_action_id
from .config import ItcConfig, from_dict, to_dict
from .core import layout as L
from .core.actions import ACTION_NAMES, NUM_ACTIONS, IllegalActionError
from .core.game import ItcCore
from .observe import GRID_CHANNELS, VECTOR_SIZE, grid, vector, vp

RESULTS = ("running", "ended", "truncated")


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
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        for name, radius in (("obs_radius", obs_radius), ("state_radius", state_radius)):
            if not isinstance(radius, int) or not 1 <= radius <= 30:
                raise ValueError(f"{name}={radius!r}: expected an integer in 1..30")
        self.render_mode = render_mode
        self.obs_radius, self.state_radius, self.reward_vp = obs_radius, state_radius, float(reward_vp)
        self.core = ItcCore(self.config)
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
        self._seed_rng = np.random.default_rng()
        self.G: np.ndarray | None = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    @property
    def game(self) -> np.ndarray:
        """This game's record (a row of the packed batch; ``subterra_env.in_the_cave.core.layout``)."""
        if self.G is None:
            raise RuntimeError("no game yet: call reset() first")
        return self.G[0]

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
        self.G = self.core.init([int(self._seed_rng.integers(0, 2**62))])
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._vp = [0] * self.seats
        self._after_change()

    def _after_change(self) -> None:
        g = self.game
        self._mask = self.core.masks(self.G)[0].astype(bool)
        over = int(g[L.OVER])
        info = self._info()
        self.infos = {a: dict(info) for a in self.agents}
        if over != L.RUNNING:
            for a in self.agents:
                self.terminations[a] = over == L.ENDED
                self.truncations[a] = over == L.TRUNCATED
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.agents[int(g[L.ACTOR])]

    def _info(self) -> dict[str, Any]:
        g = self.game
        return {"round": int(g[L.ROUND]), "result": RESULTS[int(g[L.OVER])],
                "scores": [int(v) for v in g[L.SCORE:L.SCORE + self.seats]],
                "winners": [int(v) for v in g[L.WIN:L.WIN + self.seats]]}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        g, seat = self.game, self.possible_agents.index(agent)
        pos = int(g[L.POS + seat])
        acting = agent == self.agent_selection and g[L.OVER] == L.RUNNING
        return {"observation": grid(g, seat, self.obs_radius, int(g[L.TX + pos]), int(g[L.TY + pos]), self.seats),
                "vector": vector(g, self.core.P, seat, self.seats),
                "action_mask": self._mask.astype(np.int8) if acting else np.zeros(NUM_ACTIONS, dtype=np.int8)}

    def state(self) -> np.ndarray:
        g = self.game
        seat = max(int(g[L.ACTOR]), 0)
        gr = grid(g, seat, self.state_radius, 0, 0, self.seats).astype(np.int16)
        return np.concatenate((gr.ravel(), vector(g, self.core.P, seat, self.seats)))

    def legal_actions(self) -> list[str]:
        return [ACTION_NAMES[i] for i in np.flatnonzero(self._mask)]

    def step(self, action: int | None) -> None:
        if self.G is None:
            raise RuntimeError("step() before reset(): call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = self._check_action(agent, action)
        self.core.step(self.G, [a])
        g = self.game
        rewards = {x: 0.0 for x in self.agents}
        if self.reward_vp:
            for s, x in enumerate(self.agents):
                now = vp(g, s)
                rewards[x] += self.reward_vp * (now - self._vp[s])
                self._vp[s] = now
        if g[L.OVER] == L.ENDED:  # the final score difference (documented in the module docstring)
            scores = g[L.SCORE:L.SCORE + self.seats].astype(float)
            for s, x in enumerate(self.agents):
                rewards[x] += float(scores[s] - (scores.sum() - scores[s]) / (self.seats - 1))
        self._cumulative_rewards[agent] = 0.0
        self.rewards = rewards
        self._after_change()
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render_text())

    def _check_action(self, agent: str, action: Any) -> int:
        if action is not None and type(action) in (int, np.int64) and 0 <= action < NUM_ACTIONS \
                and self._mask[action]:
            return int(action)  # the common case, without building the error text
        legal = ", ".join(f"{i} ({ACTION_NAMES[i]!r})" for i in np.flatnonzero(self._mask))
        if action is None:
            raise IllegalActionError(f"{agent} is acting and must choose an action, got None; legal: {legal}")
        a = check_action_id(action, f" for {agent}", f"; legal: {legal}", IllegalActionError)
        if not 0 <= a < NUM_ACTIONS:
            raise IllegalActionError(f"action {a} for {agent} is out of range 0..{NUM_ACTIONS - 1}; legal: {legal}")
        if not self._mask[a]:
            raise IllegalActionError(f"action {a} ({ACTION_NAMES[a]!r}) is not legal for {agent} now; legal: {legal}")
        return a

    # ------------------------------------------------------------------ snapshots and rendering
    def get_state(self) -> dict[str, Any]:
        """A copy of the whole environment; ``set_state`` on it continues exactly as this one would."""
        return copy.deepcopy({k: getattr(self, k) for k in (
            "G", "agents", "rewards", "_cumulative_rewards", "terminations", "truncations", "infos",
            "agent_selection", "_vp", "_mask")} | {"seed_stream": self._seed_rng.bit_generator.state})

    def set_state(self, snap: dict[str, Any]) -> None:
        snap = copy.deepcopy(snap)
        self._seed_rng.bit_generator.state = snap.pop("seed_stream")
        for k, v in snap.items():
            setattr(self, k, v)

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
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'human' or "
                                  "'rgb_array'")
            return None
        if self.render_mode == "human":
            print(self.render_text())
            return None
        if self.render_mode == "rgb_array":
            return self.render_rgb()
        return self.render_text()

    def close(self) -> None:
        pass


def env(illegal_action: str = "raise", **kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's wrappers: ``illegal_action="raise"`` (default) raises
    IllegalActionError naming the action and the legal ones; ``"terminate"`` ends the game, reward -1."""
    if illegal_action not in ("raise", "terminate"):
        raise ValueError(f"illegal_action={illegal_action!r}: expected 'raise' or 'terminate'")
    e: AECEnv = raw_env(**kwargs)
    if illegal_action == "terminate":
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(e)
