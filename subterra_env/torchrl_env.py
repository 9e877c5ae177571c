"""A native batched TorchRL environment over the compiled rules core (needs the ``torchrl`` extra).

    from subterra_env.torchrl_env import SubterraTorchRLEnv
    env = SubterraTorchRLEnv(1024, config=subterra_env.preset("tiny"), seed=0)
    td = env.rollout(100, policy, break_when_any_done=False)   # (1024, 100) steps, games reset as they end

``batch_size=[B]``: slot i is one game, as in the vector envs (``subterra_env.vector.BatchedGames`` runs the games:
the same seeding, autoreset, team reward and info; this module only lays them out as tensors). Each step a slot
presents its game's acting caver (the shared-policy layout: one policy plays every caver). Keys:

    observation         int8 (B, 34, 2R+1, 2R+1)  the acting caver's grid (observation v1)
    scalars             int8 (B, 49)
    action_mask         bool (B, 90)               legal actions (all False in the final observation of a game)
    result, escaped, round, hazard_cards_left, tiles_left
                        int64 (B,)                 ``subterra_env.info`` of each slot's game
    action              int64 (B,)                 one action id per slot; an illegal one raises ValueError
    next/reward         float32 (B, 1)             the team reward
    next/done, terminated, truncated   bool (B, 1)

The action spec carries the current mask (``env.action_spec.mask``), so ``env.rand_action`` (and
``check_env_specs``) plays legal moves; ``MaskedCategorical`` reads ``action_mask``.

Why the observations are written straight into the output tensors: ``observe`` and ``legal_mask`` fill numpy arrays
that the step's tensors wrap (``torch.from_numpy``), so nothing is copied to hand them to torch. A step's tensors
are never written again while anything holds them (TorchRL's ``rollout`` keeps every step's tensordict without
copying it): an output array is recycled only once no tensor, view or tensordict refers to it any more
(``_ArrayPool``), which is what a collector or a training loop that copies each step into its own storage leaves.
Recycled memory is already mapped: fresh 8 MB arrays each step (B = 1024, radius 7) cost their page faults, about
as much as the copy that fills them.

Autoreset: a game that ends is reset inside the step (``BatchedGames``, its slot's seed stream), as TorchRL's
partial reset expects: ``next`` holds the final observation of the finished game and the reset (``maybe_reset``,
as ``rollout``, ``step_and_maybe_reset`` and the collectors call it) hands out the new game's first one. A step
with finished games costs one extra copy of the observations (the final and the new ones must both exist).
Call ``env.step`` alone only with ``step_and_maybe_reset`` semantics in mind: a finished slot's next action is
taken in its new game.

``step_and_maybe_reset`` (what collectors and ``rollout`` call) skips ``EnvBase``'s generic processing where this
env's own output needs none: the step's tensordict already has every done key in its spec's shape, and the root of
the next step is ``step_mdp``'s (the input's other keys, the new observations and done flags) with the new games'
first observations in place. Anything else (a device other than the CPU, partial steps (``_step``), preset
``next`` values, type checks, hooks after ``step_mdp``, a compiled step) takes ``EnvBase``'s path; both give the
same tensordicts (a test).

Seeding: ``SubterraTorchRLEnv(B, seed=s)`` or ``env.set_seed(s)`` seeds slot i with the stream (s, i), as the
vector envs do, so a slot plays the same games for any B.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from tensordict import TensorDict, TensorDictBase, is_tensor_collection
from torchrl.data import Binary, Bounded, Categorical, Composite, Unbounded
from torchrl.envs import EnvBase

from .config import GameConfig
from .games.sub_terra.core.observe import copy_observations
from .info import INFO_KEYS, batch_info
from .spaces import grid_shape, num_scalars
from .vector import BatchedGames

DONE_KEYS = ("done", "terminated", "truncated")


class _ArrayPool:
    """Arrays of one shape and dtype, each handed out again only when nothing but the pool refers to it: a tensor
    made by ``torch.from_numpy`` holds its array until the tensor (and every view of it) is freed, so an array whose
    only reference is the pool's list is unused. Keeps at most ``keep`` arrays: when all are in use (a rollout
    holding every step), a fresh array takes the place of the oldest, which the pool forgets (its holders keep
    it)."""

    def __init__(self, shape: tuple[int, ...], dtype: Any, keep: int = 8):
        self.shape, self.dtype, self.keep = shape, dtype, keep
        self._arrays: list[np.ndarray] = []
        self._oldest = 0

    def get(self) -> np.ndarray:
        arrays = self._arrays
        for i in range(len(arrays)):
            if sys.getrefcount(arrays[i]) == 2:  # the list's reference and getrefcount's argument
                return arrays[i]
        array = np.empty(self.shape, dtype=self.dtype)
        if len(arrays) < self.keep:
            arrays.append(array)
        else:
            arrays[self._oldest] = array
            self._oldest = (self._oldest + 1) % self.keep
        return array


@dataclass(slots=True)
class _Live:
    """The TorchRL env's state from step to step: the new games' first observations and infos that wait for the
    reset after a step (see ``_step``; None when no game ended), the action spec whose mask was last checked."""

    pending: dict[str, torch.Tensor] | None = None
    checked_spec: Any = None


class SubterraTorchRLEnv(EnvBase):
    """Sub Terra as a TorchRL ``EnvBase`` with ``batch_size=[num_envs]``; see the module docstring for the keys.

    Args:
        num_envs: games stepped together (B).
        config: the game settings (``subterra_env.preset("tiny")``, ``load(path)``); keyword settings override it.
        seed: seeds every slot (``set_seed``); None leaves the default streams (0, i).
        device: where the tensors are handed out (the games themselves run on the CPU).
        **kwargs: ``BatchedGames``' keywords (``obs_radius``, ``max_cycles``, the reward settings, ``threads``)
            and game settings (``num_cavers=5``, ...).
    """

    batch_locked = True

    def __init__(self, num_envs: int = 1, config: GameConfig | None = None, *, seed: int | None = None,
                 device: Any = "cpu", **kwargs: Any):
        self.games = BatchedGames(num_envs, config, copy_obs=False, interface_keys=("seed", "device"), **kwargs)
        super().__init__(device=device, batch_size=torch.Size([num_envs]))
        self.num_envs = num_envs
        self._grid_shape = grid_shape(self.games.obs_radius, self.games.config.scenario)
        self._scalars, self._actions = num_scalars(self.games.config.scenario), self.games.num_actions
        # what changes every step, in a plain object: setting an attribute of the env goes through torch's
        # Module.__setattr__ (3.7 us a set on the 2-core VM)
        self._live = _Live()
        self._ended = np.zeros(num_envs, dtype=bool)  # the slots whose game ended in the last step
        self._pools = {"observation": _ArrayPool((num_envs, *self._grid_shape), np.int8),
                       "scalars": _ArrayPool((num_envs, self._scalars), np.int8),
                       "action_mask": _ArrayPool((num_envs, self._actions), np.bool_)}
        self._make_specs()
        if seed is not None:
            self.set_seed(seed)

    # ------------------------------------------------------------------------------------------------ specs
    def _make_specs(self) -> None:
        b = self.num_envs
        info_max = {"result": 3, "escaped": self.games.config.num_cavers}
        info = {k: Bounded(-1 if k == "result" else 0, info_max[k], (b,), dtype=torch.int64) if k in info_max
                else Unbounded((b,), dtype=torch.int64) for k in INFO_KEYS}
        self.observation_spec = Composite(
            observation=Bounded(0, 127, (b, *self._grid_shape), dtype=torch.int8),
            scalars=Bounded(0, 127, (b, self._scalars), dtype=torch.int8),
            action_mask=Binary(n=self._actions, shape=(b, self._actions), dtype=torch.bool),
            **info, shape=(b,))
        self.action_spec = Categorical(self._actions, shape=(b,), dtype=torch.int64)
        self.reward_spec = Unbounded(shape=(b, 1), dtype=torch.float32)
        self.done_spec = Composite({k: Categorical(2, (b, 1), dtype=torch.bool) for k in DONE_KEYS}, shape=(b,))
        # step_mdp's split of keys, for the lean step_and_maybe_reset: the root keeps the input's keys but these,
        # and takes these from ``next``
        self._not_carried = frozenset(("next", "reward", "_reset", "_step") + DONE_KEYS)
        self._from_next = (*self.observation_spec.keys(), *DONE_KEYS)

    # ------------------------------------------------------------------------------------------------ core
    def _empty_obs(self) -> dict[str, np.ndarray]:
        """Unused (uninitialised) output arrays, which the core writes and ``_tensors`` wraps."""
        return {k: pool.get() for k, pool in self._pools.items()}

    @staticmethod
    def _views(obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return obs["observation"], obs["scalars"], obs["action_mask"]

    @staticmethod
    def _tensors(obs: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
        return {k: torch.from_numpy(v) for k, v in obs.items()}

    def _out(self, values: dict[str, torch.Tensor]) -> TensorDict:
        # every value is a CPU tensor of the spec's shape, made here: tensordict's per-entry checks are skipped
        if self.device is None or self.device.type == "cpu":
            # on the env's device already: TorchRL's ``set("next", ...)`` would otherwise call ``.to`` on the whole
            # batch every step (0.3 ms at B = 1024), tensordict taking a device of None for another device
            return TensorDict._new_unsafe(values, batch_size=self.batch_size, device=self.device)
        return TensorDict._new_unsafe(values, batch_size=self.batch_size).to(self.device, non_blocking=True)

    def _set_mask(self, mask: torch.Tensor) -> None:
        """The acting seats' masks onto the action spec, so that its ``rand()`` samples legal actions. Through
        ``update_mask``'s checks the first time for each spec object (a user may set another spec), then set
        directly: the env's (B, A) bool masks fit it, and the public lookup and the checks cost 19 us a step."""
        mask = mask.to(self.device) if self.device.type != "cpu" else mask
        try:  # the spec ``self.action_spec`` returns, without its key handling
            spec = self.__dict__["_input_spec"]._specs["full_action_spec"]._specs["action"]
        except (KeyError, AttributeError, TypeError):
            spec = self.action_spec
        if spec is self._live.checked_spec:
            spec.mask = mask
        else:
            spec.update_mask(mask)
            self._live.checked_spec = spec

    def _set_seed(self, seed: int | None) -> None:
        self.games.seed(seed)

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDictBase:
        """A full reset starts B new games (the next seeds of each slot's stream). A partial one (``_reset``
        (B, 1) True for the slots to reset, as ``EnvBase.maybe_reset`` asks after games ended) hands out the new
        games the last step already started in its finished slots, and starts new games in any other slot
        asked for."""
        reset = tensordict.get("_reset", None) if tensordict is not None else None
        pending, self._live.pending = self._live.pending, None
        values = None
        if reset is None:
            self.games.reset()
        else:
            asked = reset.reshape(-1).cpu().numpy().astype(bool)
            others = np.flatnonzero(asked & ~self._ended) if pending is not None else np.flatnonzero(asked)
            if len(others):
                self.games.reset_slots(others)
            else:
                values = pending  # None when nothing ended and nothing was asked: the games as they are
        if values is None:
            arrays = self._empty_obs()
            self.games.refresh(out=self._views(arrays))
            values = {**self._tensors(arrays), **self._tensors(batch_info(self.games.state))}
        self._set_mask(values["action_mask"])
        zeros = torch.zeros((self.num_envs, 1), dtype=torch.bool)
        return self._out({**values, **{k: zeros for k in DONE_KEYS}})

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        """One action per slot (checked by ``BatchedGames.check_actions``: nothing changes when one is refused).
        ``next`` gets the final observations of the games that ended; their new games' first observations wait
        in ``_pending`` for the reset that follows (``maybe_reset`` or ``_reset``)."""
        action = tensordict.get("action")
        if not isinstance(action, torch.Tensor):
            raise TypeError(f"tensordict['action'] is {type(action).__name__}: expected an int64 tensor of shape "
                            f"({self.num_envs},)")
        arrays = self._empty_obs()
        s = self.games.step_batch(action.detach().cpu().numpy(), out=self._views(arrays), info_all=True,
                                  keep_ended=False)
        current = self._tensors(arrays)
        nxt = current
        if len(s.done):
            # into a recycled array (no page faults), by the engine's threads (numba's, as the observations were
            # written), not Tensor.clone: torch copies int8 through its own pool (8 MB at B = 1024, radius 7: 1.5
            # ms on one thread, 2.9-12 ms on two threads busy with training)
            finals = self._empty_obs()
            copy_observations(arrays["observation"], finals["observation"], self.games.core.threads)
            np.copyto(finals["scalars"], arrays["scalars"])
            np.copyto(finals["action_mask"], arrays["action_mask"])
            finals["observation"][s.done], finals["scalars"][s.done] = s.final_grid, s.final_scalars
            finals["action_mask"][s.done] = False  # a finished game has no legal action
            nxt = self._tensors(finals)
            # after the reset: the new games' info where games ended, the same as ``info`` (after the action)
            # elsewhere: the counts as the autoreset left them (counted anew with a shaped reward)
            after = self.games.book.counted_info() or batch_info(self.games.state)
            self._live.pending = {**current, **self._tensors(after)}
            self._ended[:] = False
            self._ended[s.done] = True
        else:
            self._live.pending = None
        self._set_mask(current["action_mask"])
        info = self._tensors(s.info)
        terminated = torch.from_numpy(s.terminated).unsqueeze(-1)
        truncated = torch.from_numpy(s.truncated).unsqueeze(-1)
        return self._out({**nxt, **info, "reward": torch.from_numpy(s.reward).unsqueeze(-1),
                          "terminated": terminated, "truncated": truncated, "done": terminated | truncated})

    def step_and_maybe_reset(self, tensordict: TensorDictBase) -> tuple[TensorDictBase, TensorDictBase]:
        """``EnvBase.step_and_maybe_reset`` without its generic processing where nothing here calls for it (see the
        module docstring): 0.2-0.3 ms of TorchRL's and tensordict's Python a call."""
        if not self._lean_step(tensordict):
            return super().step_and_maybe_reset(tensordict)
        nxt = self._step(tensordict)
        # the root of the next step, as step_mdp builds it: the input's other keys (the action, a policy's
        # outputs; nested tensordicts as shallow copies), then the new observations and flags
        root = {k: v if type(v) is torch.Tensor else v.copy() if is_tensor_collection(v) else v
                for k, v in tensordict.items() if k not in self._not_carried}
        tensordict._set_str("next", nxt, validated=True, inplace=False, non_blocking=False)
        values = self._new_games()
        if values is None:  # no game ended: the games as they are
            values = {k: nxt._get_str(k, None) for k in self._from_next}
        root.update(values)
        return tensordict, self._out(root)

    def _lean_step(self, tensordict: TensorDictBase) -> bool:
        """Nothing in the call needs ``EnvBase``'s generic path."""
        return (type(tensordict) is TensorDict and tensordict.device == self.device and self.device.type == "cpu"
                and tensordict.batch_size == self.batch_size and not self.run_type_checks
                and getattr(self, "_post_step_mdp_hooks", None) is None
                and not self.__dict__.get("_compiled_step_and_maybe_reset")
                and not self.__dict__.get("_torchrl_native_autoreset")
                and "_step" not in tensordict.keys() and "next" not in tensordict.keys())

    def maybe_reset(self, tensordict: TensorDictBase) -> TensorDictBase:
        """The new games' first observations for the slots whose game just ended (started by the step), put in
        place of the final ones without the masked merge of ``EnvBase.reset`` (a full copy of the batch)."""
        values = self._new_games()
        if values is None:
            return super().maybe_reset(tensordict)
        for k, v in values.items():
            tensordict.set(k, v)
        return tensordict

    def _new_games(self) -> dict[str, torch.Tensor] | None:
        """What the reset after a step hands out (``maybe_reset`` and the lean ``step_and_maybe_reset``): the new
        games' first observations and infos where games ended, the others' as they are, done flags cleared; taken
        once. None when no game ended."""
        pending, self._live.pending = self._live.pending, None
        if pending is None:
            return None
        zeros = torch.zeros((self.num_envs, 1), dtype=torch.bool, device=self.device)
        if self.device.type != "cpu":
            pending = {k: v.to(self.device) for k, v in pending.items()}
        return {**pending, **dict.fromkeys(DONE_KEYS, zeros)}
