"""The gymnasium spaces of observation v1, built in one place for every interface (AEC, vector, single-agent)."""

from __future__ import annotations

import gymnasium
import numpy as np

from .core.actions import NUM_ACTIONS
from .core.observe import NUM_GRID_CHANNELS, NUM_SCALARS


def grid_shape(radius: int) -> tuple[int, int, int]:
    w = 2 * radius + 1
    return NUM_GRID_CHANNELS, w, w


def observation_space(radius: int, with_mask: bool = False) -> gymnasium.spaces.Dict:
    """``{"observation": int8 grid (34, 2R+1, 2R+1), "scalars": int8 (49,)}``, plus ``"action_mask": int8
    (90,)`` for the AEC env (PettingZoo's convention; the vector envs hand masks out through ``action_masks()``)."""
    spaces = {
        "observation": gymnasium.spaces.Box(0, 127, grid_shape(radius), dtype=np.int8),
        "scalars": gymnasium.spaces.Box(0, 127, (NUM_SCALARS,), dtype=np.int8),
    }
    if with_mask:
        spaces["action_mask"] = gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8)
    return gymnasium.spaces.Dict(spaces)


def state_space(radius: int) -> gymnasium.spaces.Box:
    """``raw_env.state()``: the start-centred grid flattened, then the scalars, one int8 vector (PettingZoo's state
    API wants a Box); ``subterra_env.core.observe.split_state`` gives the two parts back."""
    n = int(np.prod(grid_shape(radius))) + NUM_SCALARS
    return gymnasium.spaces.Box(0, 127, (n,), dtype=np.int8)
