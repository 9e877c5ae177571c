"""stable-baselines3 VecEnv over the batched games (needs the ``train`` extra: stable-baselines3, sb3-contrib).

    from subterra_env.sb3 import SubterraVecEnv
    from sb3_contrib import MaskablePPO
    venv = SubterraVecEnv(num_envs=64, seed=0)
    MaskablePPO("MultiInputPolicy", venv).learn(10_000)

``action_masks()`` returns (num_envs, A) so MaskablePPO uses it directly. Same-step autoreset: a finished game's
last observation is ``infos[i]["terminal_observation"]``; truncation (``max_cycles`` rounds) sets
``infos[i]["TimeLimit.truncated"]``; a finished game's info also holds ``result`` (a code, -1 for a truncated
game, 0 defeat .. 3 gold), ``escaped``, ``round``, ``hazard_cards_left``, ``tiles_left`` (the keys of every
interface, ``subterra_env.info``) and ``episode``
(``r`` return, ``l`` decisions, ``t`` seconds since the env was made) as SB3's ``Monitor`` writes it, so
``ep_rew_mean`` and ``ep_len_mean`` appear in SB3's logs without a VecMonitor.

Observations are fresh arrays every step, as SB3's own VecEnvs return them. ``copy_obs=False`` skips that copy
(see ``BatchedGames``): a step's arrays then stay valid through the next step only, which is all SB3's rollout
collection needs (training/train_ppo.py uses it); do not keep them in a list.
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from .config import GameConfig
from .vector import BatchedGames


class SubterraVecEnv(VecEnv):
    """Parameter-shared training view: each slot presents its game's acting caver."""

    def __init__(self, num_envs: int = 16, config: GameConfig | None = None, seed: int | None = None,
                 copy_obs: bool = True, **kwargs: Any):
        self.games = BatchedGames(num_envs, config, copy_obs=copy_obs, interface_keys=("seed",), **kwargs)
        self.render_mode = None
        super().__init__(num_envs, self.games.observation_space, gymnasium.spaces.Discrete(self.games.num_actions))
        self._actions: np.ndarray | None = None
        if seed is not None:
            self.games.seed(seed)

    def reset(self) -> dict[str, np.ndarray]:
        if any(s is not None for s in self._seeds):  # VecEnv.seed(s) stored s + i for slot i
            self.games.seed([int(s) for s in self._seeds])
        self._reset_seeds()
        return self.games.reset()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        obs, reward, terminated, truncated, finals = self.games.step(self._actions)
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        for slot, final_obs, info in finals:
            infos[slot] = {**info, "terminal_observation": final_obs,
                           "TimeLimit.truncated": bool(truncated[slot])}
        return obs, reward, terminated | truncated, infos

    def action_masks(self) -> np.ndarray:
        return self.games.action_masks()

    def get_state(self, slot: int):
        """Snapshot of one slot, a ``subterra_env.vector.SlotSnapshot`` (for search and checkpointing)."""
        return self.games.get_state(slot)

    def set_state(self, slot: int, snapshot) -> None:
        self.games.set_state(slot, snapshot)

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self.games, attr_name)] * len(self._get_indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.games, attr_name, value)

    def env_method(self, method_name: str, *args: Any, indices: VecEnvIndices = None, **kwargs: Any) -> list[Any]:
        if method_name == "action_masks":  # sb3-contrib's get_action_masks may ask each env
            masks = self.games.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        raise AttributeError(f"SubterraVecEnv has no per-slot method {method_name!r}")

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(self._get_indices(indices))

    def _get_indices(self, indices: VecEnvIndices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return indices
