"""A single-agent gymnasium view: one policy plays every caver in turn (a shared-policy team).

Observation: the acting caver's observation dict (grid and scalars, as everywhere); ``info["action_mask"]`` holds the legal actions and
``action_masks()`` returns them for sb3-contrib's MaskablePPO. The episode ends with the game (terminated) or
after ``max_cycles`` rounds (truncated). Useful for gymnasium's and SB3's env checkers and for single-agent code.

An illegal action raises IllegalActionError (a ValueError) naming it and the legal ones (``illegal_action="raise"``, the default); with
``illegal_action="penalise"`` it changes nothing and returns ``illegal_reward`` (default -1) with
``info["illegal_action"] = True``: what generic tools that sample unmasked actions (the env checkers) need.
Actions are integer ids (a Python or numpy integer); floats, bools and arrays of other shapes are refused with
IllegalActionError in both modes, never cast; stepping a finished game raises GameOverError. ``info`` holds ``action_mask`` and the keys of ``subterra_env.info``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from .games.sub_terra.core.actions import ACTION_NAMES
from .episode import check_action_id
from .vector import BatchedGames


class SubterraSingleAgentEnv(gymnasium.Env):
    metadata = {"render_modes": ["ansi", "rgb_array"]}

    def __init__(self, render_mode: str | None = None, illegal_action: str = "raise", illegal_reward: float = -1.0,
                 **kwargs: Any):
        if illegal_action not in ("raise", "penalise"):
            raise ValueError(f"illegal_action={illegal_action!r}: expected 'raise' or 'penalise'")
        self.illegal_action, self.illegal_reward = illegal_action, float(illegal_reward)
        self.games = BatchedGames(1, autoreset=False,
                                  interface_keys=("render_mode", "illegal_action", "illegal_reward"), **kwargs)
        self.observation_space = self.games.observation_space
        self.action_space = gymnasium.spaces.Discrete(self.games.num_actions)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self._started = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.games.seed([seed])
        self.games.reset(options)
        self._started = True
        return self.games.slot_observation(0), self._info()

    def _info(self) -> dict:
        return {"action_mask": self.games.action_masks()[0], **self.games.game_info(0)}

    def action_masks(self) -> np.ndarray:
        return self.games.action_masks()[0]

    def step(self, action: Any):
        if not self._started:
            raise RuntimeError("step() before reset(): call reset() first")
        games = self.games
        action = check_action_id(action)
        if self.illegal_action == "penalise" and not games.over[0] and 0 <= action < games.num_actions \
                and not games.mask[0, action]:  # a legal id that is illegal now: the penalty, not an error
            return games.slot_observation(0), self.illegal_reward, False, False, {**self._info(), "illegal_action": True}
        games.check_action(action, 0)  # the episode layer's check: in range, legal now, and the game still runs
        s = games.step_batch(np.array([action]), checked=True)
        return games.slot_observation(0), float(s.reward[0]), bool(s.terminated[0]), bool(s.truncated[0]), self._info()

    def render(self):
        from .frames import render_rgb
        from .render import render_ansi

        if self.render_mode == "ansi":
            return render_ansi(self.games.state, cfg=self.games.config)
        if self.render_mode == "rgb_array":
            return render_rgb(self.games.state, cfg=self.games.config)
        return None

    def legal_actions(self) -> list[str]:
        return [ACTION_NAMES[i] for i in np.flatnonzero(self.action_masks())]
