"""Ray RLlib (new API stack) for subterra_env: a multi-agent env, an action-masking RLModule and a PPO config with
one policy shared by every caver. Needs the ``distributed`` extra (``pip install -e .[distributed]``).

    from subterra_env.rllib import ppo_config
    algo = ppo_config(env_config={"num_cavers": 4}, num_env_runners=2).build_algo()
    print(algo.train()["env_runners"]["episode_return_mean"])

| piece | what it does |
|---|---|
| ``SubterraMultiAgentEnv`` | an RLlib ``MultiAgentEnv`` over ``raw_env``: every step returns the observation of the caver who decides next (a turn-based env); spaces are declared for every possible agent, so games with other cavers drawn never meet an unknown agent |
| ``SubterraRLModule`` | a torch RLModule for PPO that reads the env's observation dict as it is (``observation`` grid, ``scalars``, ``action_mask``) and masks illegal actions out of the logits |
| ``ppo_config`` | ``PPOConfig`` with the env, one module ``"shared"`` for all cavers, env runners, learners and GPUs |
| ``SubterraCallbacks`` | logs the game's result code, medal rate and cavers escaped per episode (``env_runners/subterra/...``) |

Rewards: the team reward of each step goes to every caver of the game (RLlib adds it to the caver's next step),
so each caver's return is the team's. RLlib's ``episode_return_mean`` sums over the cavers: it is the team return
times the number of cavers; ``env_runners/subterra/result_mean`` is the mean result code (0 defeat .. 3 gold).

Illegal actions: RLlib's env check (``disable_env_checking=False``, the default) steps the env once with an
action sampled without the mask. ``illegal_action="penalise"`` (the default here) makes an illegal action change
nothing and pay ``illegal_reward`` (default -1) to the caver, with ``info["illegal_action"] = 1``, so that check
passes; with the masking module no illegal action is ever sampled in training. ``illegal_action="raise"`` raises
``IllegalActionError`` instead (RLlib's check then reports it as "does not abide to the new gymnasium-style API":
the cause is printed below that message).
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium

try:
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis import ValueFunctionAPI
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.core.rl_module.torch import TorchRLModule
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from torch import nn
except ImportError as e:  # name the extra rather than a missing module deep inside
    raise ImportError(f"subterra_env.rllib needs Ray RLlib and torch ({e}): pip install torch==2.13.0, then "
                      "pip install -e '.[distributed]'") from e

from .env import raw_env
from .episode import check_action_id

SHARED_POLICY = "shared"
RLLIB_ENV_KEYS = ("illegal_action", "illegal_reward")
MAX_VALUE = 127  # int8 observations are 0..127
DEFAULT_MODEL: dict[str, Any] = {"conv_channels": (32, 64), "hidden": 256, "vf_share_layers": True}


class SubterraMultiAgentEnv(MultiAgentEnv):
    """RLlib multi-agent view of one game. ``config``: the keywords of ``subterra_env.raw_env`` (game settings,
    ``max_cycles``, ``obs_radius``, rewards, ``agent_names``) plus ``illegal_action`` ("penalise" or "raise") and
    ``illegal_reward``. RLlib passes ``env_config`` here."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        self.illegal_action = config.pop("illegal_action", "penalise")
        self.illegal_reward = float(config.pop("illegal_reward", -1.0))
        if self.illegal_action not in ("penalise", "raise"):
            raise ValueError(f"illegal_action={self.illegal_action!r}: expected 'penalise' or 'raise'")
        self.env = raw_env(**config)
        self.possible_agents = list(self.env.possible_agents)
        self.agents: list[str] = []
        self.observation_spaces = {a: self.env.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.env.action_space(a) for a in self.possible_agents}
        self.observation_space = gymnasium.spaces.Dict(self.observation_spaces)
        self.action_space = gymnasium.spaces.Dict(self.action_spaces)
        self.illegal_actions = 0  # taken since the env was made (penalised)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.env.reset(seed=seed, options=options)
        self.agents = list(self.env.agents)
        actor = self.env.agent_selection
        return {actor: self.env.observe(actor)}, {actor: dict(self.env.infos[actor])}

    def step(self, action_dict: dict):
        env = self.env
        actor = env.agent_selection
        if actor not in action_dict:
            raise ValueError(f"step({sorted(action_dict)}): {actor} is to act; pass an action for {actor!r}")
        action = check_action_id(action_dict[actor], f" for {actor}")  # floats, bools, arrays: ValueError
        if self.illegal_action == "penalise" and 0 <= action < len(env.legal_mask) and not env.legal_mask[action]:
            self.illegal_actions += 1
            info = {**env.infos[actor], "illegal_action": 1}
            return ({actor: env.observe(actor)}, {a: self.illegal_reward if a == actor else 0.0 for a in self.agents},
                    {"__all__": False}, {"__all__": False}, {actor: info})
        env.step(action)
        rewards = {a: float(env.rewards[a]) for a in self.agents}
        over = all(env.terminations[a] or env.truncations[a] for a in self.agents)
        if not over:
            nxt = env.agent_selection
            return ({nxt: env.observe(nxt)}, rewards, {"__all__": False}, {"__all__": False},
                    {nxt: dict(env.infos[nxt])})
        # the game ended: a last observation for every caver of the game (RLlib bootstraps truncated ones from it)
        obs = {a: env.observe(a) for a in self.agents}
        terminated = {a: bool(env.terminations[a]) for a in self.agents}
        truncated = {a: bool(env.truncations[a]) for a in self.agents}
        terminated["__all__"] = all(terminated.values())
        truncated["__all__"] = not terminated["__all__"]
        return obs, rewards, terminated, truncated, {a: dict(env.infos[a]) for a in self.agents}

    def render(self):
        return self.env.render()

    def close(self) -> None:
        self.env.close()


class SubterraRLModule(TorchRLModule, ValueFunctionAPI):
    """PPO module for the observation dict: two stride-2 3x3 convolutions over the grid, concatenated with the
    scalars, an MLP trunk, policy and value heads; illegal actions (``action_mask`` 0) get the lowest logit.

    ``model_config``: ``conv_channels`` (default (32, 64)), ``hidden`` (256), ``vf_share_layers`` (True: policy
    and value share the trunk)."""

    def setup(self) -> None:
        cfg = {**DEFAULT_MODEL, **(self.model_config or {})}
        space = self.observation_space
        if not isinstance(space, gymnasium.spaces.Dict) or {"observation", "scalars"} - set(space.spaces):
            raise ValueError(f"SubterraRLModule needs the env's Dict observation space (observation, scalars, "
                             f"action_mask); got {space}")
        channels, width, _ = space["observation"].shape
        num_scalars = space["scalars"].shape[0]
        c1, c2 = cfg["conv_channels"]
        hidden = int(cfg["hidden"])

        def trunk() -> nn.Module:
            cnn = nn.Sequential(nn.Conv2d(channels, c1, 3, stride=2, padding=1), nn.ReLU(),
                                nn.Conv2d(c1, c2, 3, stride=2, padding=1), nn.ReLU(), nn.Flatten())
            with torch.no_grad():
                n = cnn(torch.zeros(1, channels, width, width)).shape[1]
            return nn.ModuleDict({"cnn": cnn, "mlp": nn.Sequential(nn.Linear(n + num_scalars, hidden), nn.ReLU(),
                                                                   nn.Linear(hidden, hidden), nn.ReLU())})

        self._pi_trunk = trunk()
        self._vf_trunk = None if cfg["vf_share_layers"] else trunk()
        self._pi = nn.Linear(hidden, self.action_space.n)
        self._vf = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self._pi.weight, 0.01)
        nn.init.zeros_(self._pi.bias)
        self._scalar_scale = 1.0 / math.log1p(MAX_VALUE)

    def _embed(self, obs: dict, part: nn.ModuleDict) -> torch.Tensor:
        grid = torch.log1p(obs["observation"].float().clamp(min=0))
        scalars = torch.log1p(obs["scalars"].float().clamp(min=0)) * self._scalar_scale
        return part["mlp"](torch.cat([part["cnn"](grid), scalars], dim=1))

    def _logits(self, obs: dict, embeddings: torch.Tensor) -> torch.Tensor:
        logits = self._pi(embeddings)
        mask = obs.get("action_mask")
        if mask is not None:
            logits = logits.masked_fill(mask <= 0, torch.finfo(logits.dtype).min)
        return logits

    def _forward(self, batch: dict, **kwargs: Any) -> dict:
        obs = batch[Columns.OBS]
        return {Columns.ACTION_DIST_INPUTS: self._logits(obs, self._embed(obs, self._pi_trunk))}

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        obs = batch[Columns.OBS]
        emb = self._embed(obs, self._pi_trunk)
        return {Columns.ACTION_DIST_INPUTS: self._logits(obs, emb), Columns.EMBEDDINGS: emb}

    def compute_values(self, batch: dict, embeddings: Any = None) -> torch.Tensor:
        if self._vf_trunk is not None:
            embeddings = self._embed(batch[Columns.OBS], self._vf_trunk)
        elif embeddings is None:
            embeddings = self._embed(batch[Columns.OBS], self._pi_trunk)
        return self._vf(embeddings).squeeze(-1)


class SubterraCallbacks(RLlibCallback):
    """Logs per finished game: ``subterra/result`` (code -1 truncated, 0 defeat .. 3 gold), ``subterra/medal``
    (1 for bronze or better) and ``subterra/escaped``; RLlib reports their means under ``env_runners``."""

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs: Any) -> None:
        if metrics_logger is None:
            return
        info = None
        for agent_infos in (episode.get_infos(-1) or {}).values():
            if isinstance(agent_infos, dict) and "result" in agent_infos:
                info = agent_infos
                break
        if info is None:
            return
        metrics_logger.log_value("subterra/result", float(info["result"]), window=100)
        metrics_logger.log_value("subterra/medal", float(info["result"] >= 1), window=100)
        metrics_logger.log_value("subterra/escaped", float(info["escaped"]), window=100)


def shared_policy(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """policy_mapping_fn: every caver plays with the one shared module."""
    return SHARED_POLICY


def ppo_config(env_config: dict | None = None, *, num_env_runners: int = 0, num_envs_per_env_runner: int = 1,
               num_learners: int = 0, num_gpus_per_learner: float = 0, num_cpus_per_env_runner: float = 1,
               rollout_fragment_length: int | str = "auto", train_batch_size_per_learner: int = 4000,
               minibatch_size: int = 256, num_epochs: int = 4, lr: float = 3e-4, gamma: float = 0.995,
               lambda_: float = 0.95, entropy_coeff: float = 0.01, clip_param: float = 0.2,
               model: dict | None = None, seed: int | None = None) -> PPOConfig:
    """PPO on the new API stack: ``SubterraMultiAgentEnv(env_config)``, one ``SubterraRLModule`` ("shared")
    for every caver, ``num_env_runners`` sampling processes (0: sample in the driver) with
    ``num_envs_per_env_runner`` games each, ``num_learners`` learner processes (0: learn in the driver) with
    ``num_gpus_per_learner`` GPUs each."""
    config = (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        .environment(SubterraMultiAgentEnv, env_config=dict(env_config or {}))
        .framework("torch")
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=num_envs_per_env_runner,
                     num_cpus_per_env_runner=num_cpus_per_env_runner,
                     rollout_fragment_length=rollout_fragment_length)
        .learners(num_learners=num_learners, num_gpus_per_learner=num_gpus_per_learner)
        .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=shared_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            SHARED_POLICY: RLModuleSpec(module_class=SubterraRLModule, model_config={**DEFAULT_MODEL,
                                                                                      **(model or {})})}))
        .training(train_batch_size_per_learner=train_batch_size_per_learner, minibatch_size=minibatch_size,
                  num_epochs=num_epochs, lr=lr, gamma=gamma, lambda_=lambda_, entropy_coeff=entropy_coeff,
                  clip_param=clip_param)
        .callbacks(SubterraCallbacks)
    )
    if seed is not None:
        config = config.debugging(seed=seed)
    return config
