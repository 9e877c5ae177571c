"""Many games stepped together for training a parameter-shared policy, over the same rules core.

Each of ``num_envs`` slots is one game; a slot presents its game's current decision: the acting caver's
observation (the dict ``{"observation": grid, "scalars": vector}`` the AEC environment gives that caver, batched
along a leading axis) and legal-action mask. One action per slot
per step. The reward is the team reward (``subterra_env.rewards``). A finished game is reset in the same step
("same-step" autoreset): the returned observation is the new game's first one, and the final observation is
kept for the learner (``terminal_observation`` in SB3 infos, ``final_obs`` in gymnasium infos).

Seeding: ``reset(seed=s)`` seeds slot i with its own stream ``(s, i)``; every game a slot plays, including the
autoreset ones, draws its seed from that stream, so a slot's sequence of games is the same for any num_envs.

``BatchedGames`` is the engine-facing part; ``SubterraVectorEnv`` (gymnasium) lives here and
``subterra_env.sb3.SubterraVecEnv`` (stable-baselines3) wraps the same class.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np

from .config import GameConfig, from_dict, to_dict
from .core import rng
from .core.actions import NUM_ACTIONS
from .core.observe import NUM_SCALARS, observe
from .core.rules import Core
from .core.state import RUNNING, State
from .info import INFO_KEYS, batch_info, game_info
from .rewards import DEFAULT_RESULT, TeamReward
from .scenario import from_options, names_seed
from .spaces import grid_shape, observation_space

# BatchedGames' own keywords (besides the GameConfig settings), listed when an unknown keyword is passed
VECTOR_KEYWORDS = ("num_envs", "config", "obs_radius", "max_cycles", "reward_result", "reward_escape",
                   "reward_health", "reward_tile", "copy_obs", "threads")


class BatchedGames:
    """num_envs games with autoreset, team rewards, observations and masks of the acting cavers.

    ``interface_keys``: the keywords of the interface built on it (SB3's ``seed``, ...), listed beside the game
    settings when an unknown keyword is passed.

    ``copy_obs``: True returns fresh arrays from ``reset`` and ``step``. False returns the env's own buffers
    without a copy (the copy took 15-30% of a step at 256 slots: 400-430 µs a step with it, 300-340 without),
    alternating between two sets: the arrays of one step stay valid through the next step and are overwritten by
    the one after. That is what SB3's rollout collection needs (it reads the previous observation after stepping,
    then copies it into its buffer).

    ``threads``: numba threads for the rules and observations (None: every core; 1: one thread, which is best
    when other processes already use the cores, e.g. one process per env runner)."""

    def __init__(self, num_envs: int, config: GameConfig | None = None, *, obs_radius: int = 7,
                 max_cycles: int = 200, reward_result: tuple[float, float, float, float] = DEFAULT_RESULT,
                 reward_escape: float = 0.0, reward_health: float = 0.0, reward_tile: float = 0.0,
                 copy_obs: bool = True, threads: int | None = None, interface_keys: tuple[str, ...] = (),
                 **settings: Any):
        if not isinstance(num_envs, int) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r}: expected a positive integer")
        if not isinstance(max_cycles, int) or max_cycles < 1:
            raise ValueError(f"max_cycles={max_cycles!r}: expected a positive integer (rounds)")
        if not isinstance(obs_radius, int) or not 1 <= obs_radius <= 20:
            raise ValueError(f"obs_radius={obs_radius!r}: expected an integer in 1..20")
        if settings:
            config = from_dict({**(to_dict(config) if config else {}), **settings},
                               env_keys=VECTOR_KEYWORDS + tuple(interface_keys))
        self.config = config or GameConfig()
        self.core = Core(self.config, threads=threads)
        self.num_envs = num_envs
        self.render_mode = None
        self.obs_radius = obs_radius
        self.max_cycles = max_cycles
        self.team_reward = TeamReward(tuple(float(r) for r in reward_result), reward_escape, reward_health,
                                      reward_tile)
        self.observation_space = observation_space(obs_radius)
        self._slot_rngs = [np.random.default_rng([0, i]) for i in range(num_envs)]
        self.state: State = self.core.init(self._next_seeds(np.arange(num_envs)))
        if not isinstance(copy_obs, bool):
            raise TypeError(f"copy_obs={copy_obs!r}: expected True or False")
        self.copy_obs = copy_obs
        # Two observation buffers used in turn (see copy_obs); _grid / _scalars name the current one.
        self._buffers = [(np.zeros((num_envs, *grid_shape(obs_radius)), dtype=np.int8),
                          np.zeros((num_envs, NUM_SCALARS), dtype=np.int8)) for _ in range(2)]
        self._grid, self._scalars = self._buffers[0]
        self._no_finals = (np.zeros((0, *grid_shape(obs_radius)), dtype=np.int8), np.zeros((0, NUM_SCALARS), np.int8))
        self._own_mask = np.zeros((num_envs, NUM_ACTIONS), dtype=bool)
        self._mask = self._own_mask
        self._reset_episode_stats(np.arange(num_envs))
        self._t0 = time.perf_counter()
        self._ready = False  # reset() (or set_state) has computed observations and masks

    def _reset_episode_stats(self, slots: np.ndarray) -> None:
        if not hasattr(self, "_ep_return"):
            self._ep_return = np.zeros(self.num_envs)
            self._ep_length = np.zeros(self.num_envs, dtype=np.int64)
        self._ep_return[slots] = 0.0
        self._ep_length[slots] = 0

    def _next_seeds(self, slots: np.ndarray) -> np.ndarray:
        return np.array([self._slot_rngs[i].integers(0, 2**62) for i in slots], dtype=np.int64)

    def seed(self, seed: int | list[int] | None) -> None:
        """Seed every slot: slot i from the stream (seed, i), or from seed[i] alone when a list is given."""
        if isinstance(seed, (list, tuple, np.ndarray)):
            if len(seed) != self.num_envs:
                raise ValueError(f"{len(seed)} seeds for {self.num_envs} slots")
            self._slot_rngs = [np.random.default_rng([int(s)]) for s in seed]
        else:
            self._slot_rngs = [np.random.default_rng(None if seed is None else [int(seed), i])
                               for i in range(self.num_envs)]

    def reset(self, options: dict | None = None) -> dict[str, np.ndarray]:
        """New games in every slot; ``options={"scenario": text}`` starts every slot from that scenario map (each
        slot with its own dice stream from its seeds, unless the text fixes one with ``seed:``); games that finish
        later autoreset to ordinary new games."""
        scripted = from_options(options, self.core, self.config.num_cavers)
        slots = np.arange(self.num_envs)
        if scripted is None:
            self.state = self.core.init(self._next_seeds(slots))
        else:
            self.state = scripted.take(np.zeros(self.num_envs, dtype=np.intp))
            if not names_seed(options["scenario"]):
                self.state.key[:] = rng.seed_keys(self._next_seeds(slots))
        self._reset_episode_stats(np.arange(self.num_envs))
        self.refresh()
        self._ready = True
        return self.observations()

    def reset_slots(self, slots: np.ndarray) -> None:
        """Start the next game of each slot in ``slots`` (from its seed stream), the others play on; then
        ``refresh`` (or ``observations``) gives the new observations."""
        slots = np.asarray(slots, dtype=np.intp)
        if len(slots):
            self._reset_episode_stats(slots)
            self.core.reset(self.state, slots, self._next_seeds(slots))
        self._ready = True

    def refresh(self, out: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> None:
        """Recompute the observations and masks after the State changed (step, set_state, an outside edit), into
        the other observation buffer, or into ``out`` = (grid, scalars, mask) arrays of the caller (the TorchRL
        env passes numpy views of fresh output tensors, so the observations are written once, straight into
        what it returns); those then are the current ones, until the next refresh."""
        st = self.state
        if out is None:
            self._grid, self._scalars = self._buffers[1] if self._grid is self._buffers[0][0] else self._buffers[0]
            if self._mask is not self._own_mask:
                self._mask = self._own_mask
        else:
            self._grid, self._scalars, self._mask = out
        observe(self.core.cat, st, np.maximum(st.actor, 0), self.obs_radius, self._grid, self._scalars,
                threads=self.core.threads)
        self.core.legal_mask(st, out=self._mask)

    def observations(self, copy: bool | None = None) -> dict[str, np.ndarray]:
        """The acting cavers' observations, (num_envs, ...) per key: copies, or the current buffers (valid until
        the second step from now) with ``copy=False``; None follows ``copy_obs``."""
        if self.copy_obs if copy is None else copy:
            return {"observation": self._grid.copy(), "scalars": self._scalars.copy()}
        return {"observation": self._grid, "scalars": self._scalars}

    def slot_observation(self, slot: int) -> dict[str, np.ndarray]:
        """A copy of one slot's observation."""
        return {"observation": self._grid[slot].copy(), "scalars": self._scalars[slot].copy()}

    def action_masks(self) -> np.ndarray:
        return self._mask.copy()

    def check_actions(self, actions: Any) -> np.ndarray:
        """One integer action id per slot, shape (num_envs,) (or (num_envs, 1)); floats, bools and other shapes
        are refused with ValueError, never cast; so are out-of-range and illegal ids (naming the slot)."""
        if not self._ready:
            raise RuntimeError("step() before reset(): call reset() first")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) and a.shape != (self.num_envs, 1):
            raise ValueError(f"actions of shape {a.shape}: expected ({self.num_envs},), one integer per slot")
        if a.dtype == bool or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions of dtype {a.dtype}: expected integer action ids (an int array), "
                             "not cast from floats")
        a = a.reshape(self.num_envs).astype(np.intp)
        bad = (a < 0) | (a >= NUM_ACTIONS)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"slot {i}: action {a[i]} is out of range 0..{NUM_ACTIONS - 1}")
        illegal = ~self._mask[np.arange(self.num_envs), a]
        if illegal.any():
            from .core.actions import ACTION_NAMES

            i = int(np.argmax(illegal))
            legal = ", ".join(ACTION_NAMES[j] for j in np.flatnonzero(self._mask[i]))
            raise ValueError(f"slot {i}: action {a[i]} ({ACTION_NAMES[a[i]]!r}) is not legal now; legal: {legal}")
        return a

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, list]:
        """Apply one action per slot; returns (obs, reward, terminated, truncated, finals) where finals is the
        list of (slot, final observation, info) of the games that ended, already reset."""
        s = self.step_batch(actions)
        finals = []
        for j, slot in enumerate(s.done):
            final_obs = {"observation": s.final_grid[j], "scalars": s.final_scalars[j]}
            info = {k: int(v[j]) for k, v in s.final_info.items()}
            info["episode"] = {"r": float(s.episode_return[j]), "l": int(s.episode_length[j]),
                               "t": round(s.time, 6)}
            finals.append((int(slot), final_obs, info))
        return self.observations(), s.reward, s.terminated, s.truncated, finals

    def step_batch(self, actions: Any, out: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
                   info_all: bool = False) -> BatchStep:
        """``step`` as arrays, with no Python loop over the slots (the TorchRL env's step): the finished games'
        final observations and infos come stacked (rows in the order of ``done``), and the new observations and
        masks go into ``out`` when given (see ``refresh``). ``info_all``: also the info of every slot's game as
        it stands after the action (before the finished ones are reset)."""
        a = self.check_actions(actions)
        st = self.state
        before = self.team_reward.snapshot(st)
        self.core.step(st, a, check=False)  # check_actions tested every action against the mask
        reward = self.team_reward(before, st)
        self._ep_return += reward
        self._ep_length += 1
        terminated = st.result != RUNNING
        truncated = ~terminated & (st.round > self.max_cycles)
        done = np.flatnonzero(terminated | truncated)
        info = batch_info(st) if info_all else None
        if len(done):
            ended = st.take(done)
            final_grid, final_scalars = observe(self.core.cat, ended, np.maximum(ended.actor, 0), self.obs_radius)
            final_info = batch_info(ended) if info is None else {k: v[done] for k, v in info.items()}
        else:  # most steps: nothing ended, nothing to observe
            final_grid, final_scalars = self._no_finals
            final_info = {k: np.zeros(0, dtype=np.int64) for k in INFO_KEYS}
        result = BatchStep(reward, terminated, truncated, done, final_grid, final_scalars, final_info,
                           self._ep_return[done].copy(), self._ep_length[done].copy(),
                           time.perf_counter() - self._t0, info)
        if len(done):
            self._reset_episode_stats(done)
            self.core.reset(st, done, self._next_seeds(done))
        self.refresh(out)
        return result

    def game_info(self, slot: int) -> dict:
        """The info keys every interface shares (``subterra_env.info.game_info``) for one slot's game."""
        return game_info(self.state, slot)

    def _slot(self, slot: Any) -> int:
        if not isinstance(slot, (int, np.integer)) or not 0 <= slot < self.num_envs:
            raise IndexError(f"slot {slot!r} is out of range 0..{self.num_envs - 1}")
        return int(slot)

    def get_state(self, slot: int) -> SlotSnapshot:
        """A copy of one slot's game and seed stream (for search and checkpointing)."""
        slot = self._slot(slot)
        return SlotSnapshot(self.state.take(np.array([slot])),
                            copy.deepcopy(self._slot_rngs[slot].bit_generator.state), self.config)

    def set_state(self, slot: int, snapshot: SlotSnapshot) -> None:
        """Put a snapshot (from any slot of games with the same settings) into a slot; it continues identically."""
        slot = self._slot(slot)
        if not isinstance(snapshot, SlotSnapshot):
            raise TypeError(f"set_state expects a SlotSnapshot from get_state(), got {type(snapshot).__name__}")
        if snapshot.config != self.config:
            raise ValueError("set_state: the snapshot comes from games with other settings")
        self.state.put(np.array([slot]), snapshot.game)
        self._slot_rngs[slot] = np.random.default_rng()
        self._slot_rngs[slot].bit_generator.state = copy.deepcopy(snapshot.seed_stream)
        self._reset_episode_stats(np.array([slot]))  # the episode statistics count from the restore
        self.refresh()
        self._ready = True


@dataclass(frozen=True)
class BatchStep:
    """What ``BatchedGames.step_batch`` returns: per slot (B,) ``reward`` (float32), ``terminated``,
    ``truncated``; ``done`` the slots whose game ended (now reset), and for them, row j for slot done[j]: their
    final observations, infos (``subterra_env.info.INFO_KEYS``, int64 arrays) and episode return and length;
    ``time`` seconds since the games were made; ``info`` every slot's info (or None, see ``info_all``)."""

    reward: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    done: np.ndarray
    final_grid: np.ndarray
    final_scalars: np.ndarray
    final_info: dict[str, np.ndarray]
    episode_return: np.ndarray
    episode_length: np.ndarray
    time: float
    info: dict[str, np.ndarray] | None = None


@dataclass(frozen=True)
class SlotSnapshot:
    """One slot of BatchedGames: its game (a batch of 1) and the stream seeding its next games."""

    game: State
    seed_stream: dict
    config: GameConfig


class SubterraVectorEnv(gymnasium.vector.VectorEnv):
    """gymnasium VectorEnv: dict obs (N, ...) per key; ``info["action_mask"]`` (N, A) bool; same-step autoreset.

    ``info["final_obs"]`` is an object array holding the last observation dict of each slot whose game ended
    (None elsewhere), as gymnasium's own vector envs do for dict spaces; ``info["final_info"]`` holds, per key
    of ``subterra_env.info.game_info``, an int array over the slots (valid where ``_final_info``; ``result`` is
    -1 elsewhere), as gymnasium's vector envs batch infos."""

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int, config: GameConfig | None = None, **kwargs: Any):
        """kwargs: BatchedGames' keywords (obs_radius, rewards, ``copy_obs`` (default True), ...) and game
        settings."""
        self.games = BatchedGames(num_envs, config, **kwargs)
        self.render_mode = None
        self.num_envs = num_envs
        self.single_observation_space = self.games.observation_space
        self.single_action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        if seed is not None:
            self.games.seed(seed)
        obs = self.games.reset(options)
        return obs, {"action_mask": self.games.action_masks()}

    def step(self, actions):
        obs, reward, terminated, truncated, finals = self.games.step(actions)
        info: dict[str, Any] = {"action_mask": self.games.action_masks()}
        if finals:
            final_obs = np.full(self.num_envs, None, dtype=object)
            has_final = np.zeros(self.num_envs, dtype=bool)
            final_info: dict[str, np.ndarray] = {}
            for slot, fobs, finfo in finals:
                final_obs[slot], has_final[slot] = fobs, True
                for key, value in finfo.items():
                    if key == "episode":
                        continue
                    if key not in final_info:
                        final_info[key] = np.full(self.num_envs, -1 if key == "result" else 0, dtype=np.int64)
                    final_info[key][slot] = value
            for key in list(final_info):
                final_info["_" + key] = has_final
            info.update(final_obs=final_obs, _final_obs=has_final, final_info=final_info, _final_info=has_final)
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.games.action_masks()

    def get_state(self, slot: int) -> SlotSnapshot:
        """Snapshot of one slot (see BatchedGames.get_state)."""
        return self.games.get_state(slot)

    def set_state(self, slot: int, snapshot: SlotSnapshot) -> None:
        self.games.set_state(slot, snapshot)
