"""The gymnasium spaces of observation v1, built in one place for every interface (AEC, vector, single-agent).

Each takes the scenario (``GameConfig.scenario``): a scenario's observation has its own planes and scalars after
the base ones, and its action space its own ids after the base 90 (``core.observe``, ``core.actions``)."""

from __future__ import annotations

import gymnasium
import numpy as np

from .games.sub_terra.core.actions import num_actions
from .games.sub_terra.core.observe import grid_channels, scalars_of


def grid_shape(radius: int, scenario: str = "base") -> tuple[int, int, int]:
    w = 2 * radius + 1
    return len(grid_channels(scenario)), w, w


def num_scalars(scenario: str = "base") -> int:
    return len(scalars_of(scenario))


def observation_space(radius: int, with_mask: bool = False, scenario: str = "base") -> gymnasium.spaces.Dict:
    """``{"observation": int8 grid (34, 2R+1, 2R+1), "scalars": int8 (49,)}``, plus ``"action_mask": int8
    (90,)`` for the AEC env (PettingZoo's convention; the vector envs hand masks out through ``action_masks()``)."""
    spaces = {
        "observation": gymnasium.spaces.Box(0, 127, grid_shape(radius, scenario), dtype=np.int8),
        "scalars": gymnasium.spaces.Box(0, 127, (num_scalars(scenario),), dtype=np.int8),
    }
    if with_mask:
        spaces["action_mask"] = gymnasium.spaces.Box(0, 1, (num_actions(scenario),), dtype=np.int8)
    return gymnasium.spaces.Dict(spaces)


def state_space(radius: int, scenario: str = "base") -> gymnasium.spaces.Box:
    """``raw_env.state()``: the start-centred grid flattened, then the scalars, one int8 vector (PettingZoo's state
    API wants a Box); ``subterra_env.games.sub_terra.core.observe.split_state`` gives the two parts back."""
    n = int(np.prod(grid_shape(radius, scenario))) + num_scalars(scenario)
    return gymnasium.spaces.Box(0, 127, (n,), dtype=np.int8)
