"""An SB3 vector env whose observations hold the heuristic's advice (``agents.advice``); needs the ``train`` extra."""

from __future__ import annotations

from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnvWrapper

from subterra_env.games.sub_terra.core.actions import NUM_ACTIONS

from .advice import ADVICE_KEY, advice_onehot, with_advice_space


class AdviceVecEnv(VecEnvWrapper):
    """An SB3 ``SubterraVecEnv`` whose observations also hold the heuristic's advice for each slot's decision.

    The advice of a slot is computed on the game its observation shows (after autoreset, the new game's first
    decision); a finished game's ``terminal_observation`` gets an all-zero advice (there is no decision left,
    and only the value head, which ignores the advice, reads it)."""

    def __init__(self, venv: Any):
        if not hasattr(venv, "games") or not hasattr(venv.games, "core"):
            raise TypeError(f"AdviceVecEnv wraps a subterra_env.sb3.SubterraVecEnv, got {type(venv).__name__}")
        super().__init__(venv, observation_space=with_advice_space(venv.observation_space))
        from agents.heuristic import HeuristicAgent

        self.games = venv.games  # agents.base.game_view binds through this
        self.advisor = HeuristicAgent(venv, threads=venv.games.core.threads)  # the env's threads
        self._all = np.arange(venv.num_envs)

    def _advise(self, obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        masks = self.venv.action_masks()
        return {**obs, ADVICE_KEY: advice_onehot(self.advisor, self.games.core, self.games.state, self._all, masks)}

    def reset(self) -> dict[str, np.ndarray]:
        return self._advise(self.venv.reset())

    def step_wait(self):
        obs, reward, done, infos = self.venv.step_wait()
        for info in infos:
            if "terminal_observation" in info:
                info["terminal_observation"] = {**info["terminal_observation"],
                                                ADVICE_KEY: np.zeros(NUM_ACTIONS, np.int8)}
        return self._advise(obs), reward, done, infos

    def action_masks(self) -> np.ndarray:
        return self.venv.action_masks()
