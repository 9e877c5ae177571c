"""A MaskablePPO policy whose logits add the heuristic's advice: ``network(obs) + advice_scale * advice``.

Residual policy learning (Silver et al. 2018; Johannink et al. 2019): the network's action head starts near zero
(SB3 initialises it with gain 0.01), so an untrained ``AdvisedPolicy`` plays the heuristic team greedily and
samples around it (``advice_scale`` 3: the advised action gets about e^3 = 20 times the weight of any other legal
action). Behaviour cloning then pretrains the value head and sharpens the imitation; PPO moves the greedy
choice away from the advice only where the network's own logits learn a margin larger than ``advice_scale``, so
RL improves on the teacher without first having to rediscover it.

The advice is the observation key ``advice`` (``agents.advice``): ``AdviceVecEnv`` adds it in training, a bound
``PolicyAgent`` when playing. ``advice_scale`` is a constant (a buffer saved with the weights), not learned, so
"how far from the heuristic" stays a setting that a reader of the checkpoint can see.

``gain_head`` (a dict of ``agents.gain_head.GainHead`` settings) adds that head's term to the logits: a small
model of the search's gains, fitted by ``training/distil_probe.py`` and fixed (PPO does not train it), under which
greedy play leaves the heuristic's choice where the head predicts a gain above its threshold.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.distributions import MaskableDistribution
from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy
from stable_baselines3.common.policies import BaseModel

from subterra_env.models import GRID_KEY, SCALAR_KEY

from .advice import ADVICE_KEY
from .gain_head import GainHead


class AdvisedPolicy(MaskableMultiInputActorCriticPolicy):
    """``MultiInputPolicy`` of MaskablePPO plus the advice term on the logits (see the module docstring)."""

    def __init__(self, *args: Any, advice_scale: float = 3.0, gain_head: dict | None = None, **kwargs: Any):
        observation_space = args[0] if args else kwargs["observation_space"]
        if ADVICE_KEY not in getattr(observation_space, "spaces", {}):
            raise ValueError(f"AdvisedPolicy needs the {ADVICE_KEY!r} observation key: wrap the vector env in "
                             "agents.advice.AdviceVecEnv")
        if not 0 <= advice_scale <= 50:
            raise ValueError(f"advice_scale={advice_scale}: expected 0..50")
        super().__init__(*args, **kwargs)
        self.register_buffer("advice_scale", torch.tensor(float(advice_scale)))
        self.gain_head = None if gain_head is None else GainHead(**gain_head).requires_grad_(False)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "advice_scale": float(self.advice_scale),
                **({} if self.gain_head is None else {"gain_head": self.gain_head.config})}

    def advised_logits(self, latent_pi: torch.Tensor, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        """The network's logits plus the advice (and the gain head's term, when the policy has one)."""
        advice = obs[ADVICE_KEY].float()
        logits = self.action_net(latent_pi) + self.advice_scale * advice
        if self.gain_head is not None:
            logits = logits + self.gain_head.bonus(obs[GRID_KEY], obs[SCALAR_KEY], advice)
        return logits

    def _advised(self, latent_pi: torch.Tensor, obs: dict[str, torch.Tensor]) -> MaskableDistribution:
        return self.action_dist.proba_distribution(action_logits=self.advised_logits(latent_pi, obs))

    def _latents(self, obs: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        features = self.extract_features(obs)
        if self.share_features_extractor:
            return self.mlp_extractor(features)
        pi_features, vf_features = features
        return self.mlp_extractor.forward_actor(pi_features), self.mlp_extractor.forward_critic(vf_features)

    def forward(self, obs: dict[str, torch.Tensor], deterministic: bool = False,
                action_masks: np.ndarray | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        latent_pi, latent_vf = self._latents(obs)
        distribution = self._advised(latent_pi, obs)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        actions = distribution.get_actions(deterministic=deterministic)
        return actions.reshape((-1, *self.action_space.shape)), self.value_net(latent_vf), \
            distribution.log_prob(actions)

    def evaluate_actions(self, obs: dict[str, torch.Tensor], actions: torch.Tensor,
                         action_masks: torch.Tensor | None = None):
        latent_pi, latent_vf = self._latents(obs)
        distribution = self._advised(latent_pi, obs)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return self.value_net(latent_vf), distribution.log_prob(actions), distribution.entropy()

    def get_distribution(self, obs: dict[str, torch.Tensor],
                         action_masks: np.ndarray | None = None) -> MaskableDistribution:
        features = BaseModel.extract_features(self, obs, self.pi_features_extractor)  # the actor's extractor only
        distribution = self._advised(self.mlp_extractor.forward_actor(features), obs)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution
