"""The pieces that both games' PettingZoo AEC envs share (Sub Terra's ``subterra_env.env``, In the Cave's
``subterra_env.in_the_cave.env_aec``), each written once: the snapshot of an env on one slot of the episode layer
(``EnvSnapshot``, ``take_snapshot``, ``restore_snapshot``), the argument checks, ``render()`` by render mode and the
standard wrappers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .episode import SlotSnapshot, config_diff


@dataclass(frozen=True)
class EnvSnapshot:
    """Everything an AEC env on one slot of the episode layer needs to continue its game identically (its
    ``get_state``; ``take_snapshot``)."""

    game: Any  # the one game (batch of 1), a copy: Sub Terra's State, In the Cave's record array
    seed_stream: dict  # the bit generator state that seeds the next reset()
    agent_selection: str | None
    agents: tuple[str, ...]
    rewards: dict[str, float]
    cumulative_rewards: dict[str, float]
    terminations: dict[str, bool]
    truncations: dict[str, bool]
    config: Any  # the game's settings (GameConfig, ItcConfig)


def check_render_mode(metadata: dict, render_mode: str | None) -> None:
    """ValueError unless ``render_mode`` is None or one of the env's ``metadata["render_modes"]``."""
    if render_mode is not None and render_mode not in metadata["render_modes"]:
        raise ValueError(f"render_mode {render_mode!r} is not one of {metadata['render_modes']}")


def check_radii(limit: int, **radii: Any) -> None:
    """ValueError naming the first window radius (``obs_radius=7``, ...) that is not an integer in 1..limit."""
    for name, radius in radii.items():
        if not isinstance(radius, int) or isinstance(radius, bool) or not 1 <= radius <= limit:
            raise ValueError(f"{name}={radius!r}: expected an integer in 1..{limit}")


def render_in_mode(e: AECEnv, text: Callable[[], str], image: Callable[[], np.ndarray]) -> str | np.ndarray | None:
    """An AEC env's ``render()`` by its render_mode: "human" prints ``text()`` (as PettingZoo's text games do),
    "ansi" returns it, "rgb_array" returns ``image()``; without a mode, a warning and None."""
    if e.render_mode is None:
        gymnasium.logger.warn(f"render() called without a render_mode; pass one of {e.metadata['render_modes']}")
        return None
    if e.render_mode == "human":
        print(text())
        return None
    return text() if e.render_mode == "ansi" else image()


def take_snapshot(e: Any) -> EnvSnapshot:
    """The ``EnvSnapshot`` of an AEC env on one slot of the episode layer (``e.episodes``): the game, its seed
    stream and the env's turn, rewards and flags."""
    slot = e.episodes.get_state(0)
    return EnvSnapshot(
        game=slot.game, seed_stream=slot.seed_stream, agent_selection=e.agent_selection, agents=tuple(e.agents),
        rewards=dict(e.rewards), cumulative_rewards=dict(e._cumulative_rewards), terminations=dict(e.terminations),
        truncations=dict(e.truncations), config=slot.config)


def restore_snapshot(e: Any, snapshot: EnvSnapshot) -> None:
    """Put a ``take_snapshot`` of an env with the same settings back into ``e``: the game and seed stream (slot 0
    of ``e.episodes``), the agents, their rewards and flags, the infos (from the game) and the turn."""
    if not isinstance(snapshot, EnvSnapshot):
        raise TypeError(f"set_state expects an EnvSnapshot from get_state(), got {type(snapshot).__name__}")
    if snapshot.config != e.config:
        raise ValueError("set_state: the snapshot comes from a game with other settings "
                         f"(differing: {config_diff(snapshot.config, e.config)})")
    e.episodes.set_state(0, SlotSnapshot(snapshot.game, snapshot.seed_stream, snapshot.config))
    e.agents = list(snapshot.agents)
    e.rewards = dict(snapshot.rewards)
    e._cumulative_rewards = dict(snapshot.cumulative_rewards)
    e.terminations = dict(snapshot.terminations)
    e.truncations = dict(snapshot.truncations)
    info = e.episodes.game_info(0)
    e.infos = {a: dict(info) for a in e.agents}
    e.agent_selection = snapshot.agent_selection


def wrap(make_raw: Callable[..., AECEnv], kwargs: dict, illegal_action: str,
         order: type = wrappers.OrderEnforcingWrapper) -> AECEnv:
    """An AEC env with PettingZoo's standard wrappers: ``illegal_action="raise"`` (the env raises
    IllegalActionError naming the action and the legal ones) or ``"terminate"`` (TerminateIllegalWrapper: the game
    ends with reward -1 for the offender), then ``order`` (order enforcing)."""
    if illegal_action not in ("raise", "terminate"):
        raise ValueError(f"illegal_action={illegal_action!r}: expected 'raise' or 'terminate'")
    e = make_raw(**kwargs)
    if illegal_action == "terminate":
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    return order(e)
