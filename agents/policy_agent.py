"""A trained team policy as an agent: loads a MaskablePPO checkpoint (``training/train_ppo.py``'s .zip files).

    agent = PolicyAgent("runs/NAME/best.zip")            # greedy; deterministic=False samples (seeded)
    env = subterra_env.env(obs_radius=agent.obs_radius)   # observations must match the checkpoint's window
    agent = agent.bind(env)                               # for a checkpoint trained on the heuristic's advice
    action = agent.act(obs, obs["action_mask"])

Needs the ``train`` extra (torch, sb3-contrib). The mask is always applied: illegal actions get no probability,
so the agent never returns one. A checkpoint trained with the heuristic's advice (``agents.advised_policy``; the
shipped team is one) also reads what the heuristic would play in its game, so it is bound to its games first,
like the heuristic: ``PolicyAgent(path).bind(env)`` (``advised`` says whether it needs that). ``obs_radius``
comes from the checkpoint's observation space, which must be the v1 observation (``{"observation": int8 (34,
2R+1, 2R+1), "scalars": int8 (49,)}``, plus ``advice`` for an advised checkpoint).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .advice import ADVICE_KEY, AdvisedAgentMixin
from .base import Observation, ObservationAgent

OBS_KEYS = ObservationAgent.OBS_KEYS


def load_maskable_ppo(path: str | Path, written_by: str, device: str = "cpu", torch_threads: int | None = 1) -> Any:
    """A MaskablePPO checkpoint, with errors that say what is wrong: FileNotFoundError naming what writes one
    (``written_by``), ValueError for a zip of something else or a truncated file. ``torch_threads`` sets torch's CPU
    threads for the whole process (None: leave it); one is the default because on a busy 2-core machine two threads
    made these small networks 15-70x slower (17 vs 1,182 decisions/s one at a time, 275 vs 9,700 in batches of 100)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no policy checkpoint at {path}: expected a MaskablePPO .zip ({written_by})")
    import torch
    from sb3_contrib import MaskablePPO

    if torch_threads is not None:
        torch.set_num_threads(torch_threads)
    try:
        return MaskablePPO.load(path, device=device)
    except Exception as e:  # a zip of something else, or a truncated file
        raise ValueError(f"{path} is not a loadable MaskablePPO checkpoint: {e}") from e


def load_policy(path: str | Path, deterministic: bool = True, seed: int | None = 0, device: str = "cpu",
                torch_threads: int | None = 1) -> ObservationAgent:
    """The agent for a trained team's checkpoint: ``NativePolicyAgent`` for a ``.pt`` of the native trainer
    (``training/ppo.py``), ``PolicyAgent`` for a MaskablePPO ``.zip`` (``training/train_ppo.py``)."""
    if Path(path).suffix == ".pt":
        from .native_policy import NativePolicyAgent

        return NativePolicyAgent(path, deterministic, seed, device, torch_threads)
    return PolicyAgent(path, deterministic, seed, device, torch_threads)


class PolicyAgent(AdvisedAgentMixin, ObservationAgent):
    """Plays with a saved MaskablePPO policy: greedy (argmax over legal actions) or sampled with its own seed."""

    def __init__(self, path: str | Path, deterministic: bool = True, seed: int | None = 0, device: str = "cpu",
                 torch_threads: int | None = 1):
        """``torch_threads``: torch's CPU thread count, set for the whole process at load (``load_maskable_ppo``)."""
        path = Path(path)
        self.model = load_maskable_ppo(path, "training/train_ppo.py writes final.zip, best.zip and checkpoints/",
                                       device, torch_threads)
        self.obs_radius = check_observation_space(self.model.observation_space, path)
        self.policy = self.model.policy
        self.policy.set_training_mode(False)
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.path = path
        self.advised = ADVICE_KEY in self.model.observation_space.spaces

    def act_batch(self, observations: Observation | None, action_masks: np.ndarray,
                  games: np.ndarray | None = None) -> np.ndarray:
        """One action per row; ``observations`` is the observation dict with a leading batch axis (other keys,
        such as ``action_mask``, are ignored). ``games``: for an advised checkpoint, the indices of the rows' games
        in the bound batch (None: every game of it, in order)."""
        import torch

        masks = self.checked_masks(observations, action_masks)
        obs = {k: np.asarray(observations[k]) for k in OBS_KEYS}
        if self.advised:
            obs[ADVICE_KEY] = self.advice(masks, games)
        with torch.no_grad():
            tensors, _ = self.policy.obs_to_tensor(obs)
            logits = self.policy.get_distribution(tensors, action_masks=masks).distribution.logits
        scores = logits.cpu().numpy().astype(np.float64)
        if not self.deterministic:  # Gumbel-max: a sample from softmax(logits) with this agent's own stream
            scores = scores + self.rng.gumbel(size=scores.shape)
        return np.where(masks, scores, -np.inf).argmax(axis=1)


def check_observation_space(space: Any, path: Path | str = "checkpoint") -> int:
    """The obs_radius of a checkpoint's observation space; ValueError unless it is the v1 observation (with or
    without the heuristic's advice)."""
    from subterra_env.games.sub_terra.core.observe import NUM_GRID_CHANNELS, NUM_SCALARS

    spaces = getattr(space, "spaces", None)
    grid, scalars = (spaces or {}).get("observation"), (spaces or {}).get("scalars")
    shape = getattr(grid, "shape", None)
    ok = (shape is not None and len(shape) == 3 and shape[0] == NUM_GRID_CHANNELS and shape[1] == shape[2]
          and shape[1] % 2 == 1 and getattr(scalars, "shape", None) == (NUM_SCALARS,)
          and grid.dtype == np.int8 and scalars.dtype == np.int8
          and set(spaces) <= {"observation", "scalars", "action_mask", ADVICE_KEY})  # RLlib keeps the mask
    if not ok:
        raise ValueError(f"{path}: its observation space {space} is not the v1 observation "
                         f"{{'observation': int8 ({NUM_GRID_CHANNELS}, 2R+1, 2R+1), 'scalars': int8 "
                         f"({NUM_SCALARS},)}}: trained on another observation version")
    return (shape[1] - 1) // 2
