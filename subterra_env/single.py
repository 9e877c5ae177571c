"""A single-agent gymnasium view: one policy plays every caver in turn (a shared-policy team).

Observation: the acting caver's observation dict (grid and scalars, as everywhere); ``info["action_mask"]`` holds the legal actions and
``action_masks()`` returns them for sb3-contrib's MaskablePPO. The episode ends with the game (terminated) or
after ``max_cycles`` rounds (truncated). Useful for gymnasium's and SB3's env checkers and for single-agent code.

An illegal action raises ValueError naming it and the legal ones (``illegal_action="raise"``, the default); with
``illegal_action="penalise"`` it changes nothing and returns ``illegal_reward`` (default -1) with
``info["illegal_action"] = True``: what generic tools that sample unmasked actions (the env checkers) need.
Actions are integer ids (a Python or numpy integer); floats, bools and arrays of other shapes are refused with
ValueError in both modes, never cast. ``info`` holds ``action_mask`` and the keys of ``subterra_env.info``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from .core.actions import ACTION_NAMES, NUM_ACTIONS
from .env import check_action_id
from .vector import BatchedGames


class SubterraSingleAgentEnv(gymnasium.Env):
    metadata = {"render_modes": ["ansi", "rgb_array"]}

    def __init__(self, render_mode: str | None = None, illegal_action: str = "raise", illegal_reward: float = -1.0,
                 **kwargs: Any):
        if illegal_action not in ("raise", "penalise"):
            raise ValueError(f"illegal_action={illegal_action!r}: expected 'raise' or 'penalise'")
        self.illegal_action, self.illegal_reward = illegal_action, float(illegal_reward)
        self.games = BatchedGames(1, interface_keys=("render_mode", "illegal_action", "illegal_reward"), **kwargs)
        self.observation_space = self.games.observation_space
        self.action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self._over = True
        self._started = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.games.seed([seed])
        self.games.reset()
        obs = self.games.slot_observation(0)
        self._over, self._started = False, True
        return obs, self._info()

    def _info(self) -> dict:
        return {"action_mask": self.games.action_masks()[0], **self.games.game_info(0)}

    def action_masks(self) -> np.ndarray:
        return self.games.action_masks()[0]

    def step(self, action: Any):
        if not self._started:
            raise RuntimeError("step() before reset(): call reset() first")
        if self._over:
            raise RuntimeError("step() after the game ended: call reset()")
        action = check_action_id(action)
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action} is out of range: not in Discrete({NUM_ACTIONS})")
        games = self.games
        st = games.state
        if self.illegal_action == "penalise" and not games.action_masks()[0, action]:
            return games.slot_observation(0), self.illegal_reward, False, False, {**self._info(), "illegal_action": True}
        before = games.team_reward.snapshot(st)
        a = games.check_actions(np.array([action]))
        games.core.step(st, a, check=False)  # check_actions tested the action against the mask
        reward = float(games.team_reward(before, st)[0])
        terminated = bool(st.result[0] >= 0)
        truncated = bool(not terminated and st.round[0] > games.max_cycles)
        games.refresh()
        self._over = terminated or truncated
        obs = games.slot_observation(0)
        return obs, reward, terminated, truncated, self._info()

    def render(self):
        from .render import render_ansi, render_rgb

        if self.render_mode == "ansi":
            return render_ansi(self.games.state, cfg=self.games.config)
        if self.render_mode == "rgb_array":
            return render_rgb(self.games.state, cfg=self.games.config)
        return None

    def legal_actions(self) -> list[str]:
        return [ACTION_NAMES[i] for i in np.flatnonzero(self.action_masks())]
