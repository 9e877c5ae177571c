"""A team policy trained with Ray RLlib (``training/train_rllib.py``) as an agent.

    agent = RLlibAgent("runs/rllib_tiny/final")           # greedy; deterministic=False samples (seeded)
    env = subterra_env.env(obs_radius=agent.obs_radius)   # observations must match the checkpoint's window
    action = agent.act(obs, obs["action_mask"])

``path`` may be an algorithm checkpoint (``RUN/final``, ``RUN/checkpoints/iter_N``), a run directory (its
``final/`` is used), the checkpoint's ``learner_group/learner/rl_module`` directory or the module directory
itself (``.../rl_module/shared``). The shared ``subterra_env.rllib.SubterraRLModule`` is loaded with
``RLModule.from_checkpoint``.

Needs the ``distributed`` extra (``pip install -e .[distributed]``); Ray is imported only when an agent is built,
so this module and :func:`find_module_dir` work without it. The mask is always applied, by the module (illegal
logits are set to the lowest float) and again here, so the agent never returns an illegal action.
``obs_radius`` comes from the module's observation space; when the run's ``config.yaml`` is found (beside the
checkpoint: the checkpoint's parent, or the grandparent for ``checkpoints/iter_N``) its ``env.obs_radius`` must
agree.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from .base import Observation, ObservationAgent

SHARED_POLICY = "shared"  # subterra_env.rllib.SHARED_POLICY (not imported: that module needs Ray)
MODULE_SUBDIR = Path("learner_group", "learner", "rl_module")
CHECKPOINT_MARKER = "rllib_checkpoint.json"
EXPECTED = ("an RLlib checkpoint directory written by training/train_rllib.py (RUN/final, "
            "RUN/checkpoints/iter_N, or RUN itself) or its module directory (.../learner_group/learner/rl_module/"
            f"{SHARED_POLICY})")


def _is_module(d: Path) -> bool:
    """A saved RLModule: its constructor pickle and its weights (``module_state.pkl``; a MultiRLModule has these
    too, plus a sub-directory per module)."""
    return d.is_dir() and (d / "class_and_ctor_args.pkl").is_file() and any(d.glob("module_state*"))


def _submodules(d: Path) -> list[Path]:
    return [c for c in sorted(d.iterdir()) if _is_module(c)] if d.is_dir() else []


def find_module_dir(path: str | Path) -> tuple[Path, Path | None]:
    """(the single-agent module directory, the algorithm checkpoint directory or None) of ``path``, without
    importing Ray. FileNotFoundError when nothing is there; ValueError when it is not an RLlib checkpoint."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no RLlib checkpoint at {str(path)!r}: expected {EXPECTED}")
    if path.is_file():
        hint = " (a MaskablePPO .zip: use policy:PATH)" if path.suffix == ".zip" else ""
        raise ValueError(f"{str(path)!r} is a file, not {EXPECTED}{hint}")
    if not (path / CHECKPOINT_MARKER).is_file() and (path / "final" / CHECKPOINT_MARKER).is_file():
        path = path / "final"  # a run directory
    ckpt = path if (path / CHECKPOINT_MARKER).is_file() else None
    rl = path / MODULE_SUBDIR if ckpt is not None else path
    subs = _submodules(rl)
    if subs:  # a MultiRLModule directory (or a checkpoint's): the shared module, else the only one
        named = [s for s in subs if s.name == SHARED_POLICY]
        if not named and len(subs) > 1:
            raise ValueError(f"{str(rl)!r} holds the modules {[s.name for s in subs]} but none named "
                             f"{SHARED_POLICY!r}: pass the module directory to play, e.g. {str(subs[0])!r}")
        module = (named or subs)[0]
    elif _is_module(path) and ckpt is None:
        module = path
    else:
        where = f" (no module under {MODULE_SUBDIR}/)" if ckpt is not None else ""
        raise ValueError(f"{str(path)!r} is not an RLlib checkpoint{where}: expected {EXPECTED}")
    if ckpt is None and len(module.parents) > 3 and (module.parents[3] / CHECKPOINT_MARKER).is_file():
        ckpt = module.parents[3]  # shared -> rl_module -> learner -> learner_group -> checkpoint
    return module, ckpt


def run_config_path(checkpoint: Path | None) -> Path | None:
    """The run's ``config.yaml`` for a checkpoint: ``RUN/final`` -> ``RUN``, ``RUN/checkpoints/iter_N`` -> ``RUN``."""
    if checkpoint is None:
        return None
    candidates = [checkpoint.parent / "config.yaml"]
    if checkpoint.parent.name == "checkpoints":
        candidates.append(checkpoint.parent.parent / "config.yaml")
    return next((c for c in candidates if c.is_file()), None)


def checkpoint_label(path: str | Path) -> str:
    """A short name for tables: 'RUN/final', 'RUN/iter_000060', else the directory's name."""
    try:
        module, ckpt = find_module_dir(path)
    except (OSError, ValueError):
        return Path(path).name or str(path)
    if ckpt is None:
        return module.name if module.name != SHARED_POLICY else module.resolve().parent.name
    ckpt = ckpt.resolve()
    run = ckpt.parent.parent if ckpt.parent.name == "checkpoints" else ckpt.parent
    return f"{run.name}/{ckpt.name}"


class _NoDeprecations(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "deprecated" not in record.getMessage()


@contextmanager
def _quiet_rllib() -> Iterator[None]:
    """RLlib warns on every load that the pickled constructor passes a deprecated ``config``: hide that warning
    (others, such as a class that could not be restored, still show)."""
    quiet = _NoDeprecations()
    logs = [logging.getLogger(name) for name in ("ray._common.deprecation", "ray.rllib")]
    for log in logs:
        log.addFilter(quiet)
    try:
        yield
    finally:
        for log in logs:
            log.removeFilter(quiet)


class RLlibAgent(ObservationAgent):
    """Plays with the shared RLModule of an RLlib checkpoint: greedy (argmax over legal actions) or sampled with
    its own seed."""

    def __init__(self, path: str | Path, deterministic: bool = True, device: str = "cpu", seed: int | None = 0,
                 torch_threads: int | None = 1):
        """``torch_threads``: torch's CPU thread count, set for the whole process at load (None: leave it); one
        thread, as for ``PolicyAgent``, is much faster for this small network on a busy 2-core machine."""
        self.path = Path(path)
        self.module_dir, self.checkpoint = find_module_dir(self.path)
        try:
            import torch
            from ray.rllib.core.columns import Columns
            from ray.rllib.core.rl_module.rl_module import RLModule

            import subterra_env.rllib  # noqa: F401  (the module class the checkpoint names)
        except ImportError as e:
            raise ImportError(f"RLlibAgent needs Ray RLlib and torch ({e}): pip install torch==2.13.0, then "
                              "pip install -e .[distributed]") from e
        if torch_threads is not None:
            torch.set_num_threads(torch_threads)
        with _quiet_rllib():
            module = RLModule.from_checkpoint(str(self.module_dir.resolve()))  # pyarrow needs an absolute path
        if not isinstance(module, torch.nn.Module):  # RLlib fell back to a bare RLModule: the class did not load
            raise TypeError(f"{self.module_dir}: RLlib could not rebuild the module class of this checkpoint "
                             f"(got {type(module).__name__}); was it saved by another Ray version?")
        from subterra_env.games.sub_terra.core.actions import NUM_ACTIONS

        from .policy_agent import check_observation_space

        self.obs_radius = check_observation_space(module.observation_space, self.module_dir)
        n = getattr(module.action_space, "n", None)
        if n != NUM_ACTIONS:
            raise ValueError(f"{self.module_dir}: action space {module.action_space}, expected Discrete({NUM_ACTIONS})")
        self.run_config = run_config_path(self.checkpoint)
        self.settings: dict[str, Any] = {}
        if self.run_config is not None:
            import yaml

            self.settings = yaml.safe_load(self.run_config.read_text()) or {}
            radius = (self.settings.get("env") or {}).get("obs_radius")
            if radius is not None and int(radius) != self.obs_radius:
                raise ValueError(f"{self.run_config} says env.obs_radius={radius} but the module in "
                                 f"{self.module_dir} reads a {2 * self.obs_radius + 1}x{2 * self.obs_radius + 1} "
                                 f"window (obs_radius {self.obs_radius})")
        self.device = torch.device(device)
        self.module = module.to(self.device)
        self.module.eval()
        self._obs_key, self._logits_key = Columns.OBS, Columns.ACTION_DIST_INPUTS
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.label = f"rllib:{checkpoint_label(self.path)}"

    def act_batch(self, observations: Observation | None, action_masks: np.ndarray,
                  games: np.ndarray | None = None) -> np.ndarray:
        """One action per row; ``observations`` is the observation dict with a leading batch axis (its
        ``action_mask`` key, if any, is ignored: ``action_masks`` is the mask)."""
        import torch

        masks = self.checked_masks(observations, action_masks)
        grid, scalars = np.asarray(observations["observation"]), np.asarray(observations["scalars"])
        width = 2 * self.obs_radius + 1
        if grid.ndim != 4 or grid.shape[-2:] != (width, width) or len(grid) != len(masks):
            raise ValueError(f"observations['observation'] has shape {grid.shape}: this checkpoint reads "
                             f"(B, C, {width}, {width}) windows (obs_radius {self.obs_radius}), B = {len(masks)}")
        obs = {"observation": torch.as_tensor(grid, device=self.device),
               "scalars": torch.as_tensor(scalars, device=self.device),
               "action_mask": torch.as_tensor(masks.astype(np.int8), device=self.device)}
        with torch.no_grad():
            logits = self.module.forward_inference({self._obs_key: obs})[self._logits_key]
        scores = logits.float().cpu().numpy().astype(np.float64)
        if not self.deterministic:  # Gumbel-max: a sample from softmax(logits) with this agent's own stream
            scores = scores + self.rng.gumbel(size=scores.shape)
        return np.where(masks, scores, -np.inf).argmax(axis=1)
