"""Many games stepped together for training a parameter-shared policy, over the same rules core.

Each of ``num_envs`` slots is one game; a slot presents its game's current decision: the acting caver's
observation (the dict ``{"observation": grid, "scalars": vector}`` the AEC environment gives that caver, batched
along a leading axis) and legal-action mask. One action per slot
per step. The reward is the team reward (``subterra_env.rewards``). A finished game is reset in the same step
("same-step" autoreset): the returned observation is the new game's first one, and the final observation is
kept for the learner (``terminal_observation`` in SB3 infos, ``final_obs`` in gymnasium infos).

Seeding: ``BatchedGames(n, seed=s)`` (or ``games.seed(s)``, or the gymnasium env's ``reset(seed=s)``) seeds slot
i with its own stream ``(s, i)``; every game a slot plays, including the autoreset ones, draws its seed from that
stream, so a slot's sequence of games is the same for any num_envs.

A trainer drives ``BatchedGames`` directly (``docs/batch_api.md``; ``training/ppo.py`` does)::

    games = BatchedGames(1024, subterra_env.preset("tiny"), obs_radius=2, seed=0)
    grid, scalars, mask = ...                       # preallocated (1024, ...) arrays, e.g. rows of a rollout
    games.reset(out=(grid, scalars, mask))          # the first observations and masks go straight into them
    s = games.step_batch(actions, out=(grid2, scalars2, mask2), checked=True)
    s.reward, s.terminated, s.truncated             # per slot (num_envs,)
    s.done, s.final_grid, s.final_info["escaped"]   # per finished game: row j is slot s.done[j]

``BatchedGames`` is the engine-facing part; ``SubterraVectorEnv`` (gymnasium) lives here and
``subterra_env.sb3.SubterraVecEnv`` (stable-baselines3) wraps the same class.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np

from .config import GameConfig, from_dict, to_dict
from .games.sub_terra.core.observe import observe
from .games.sub_terra.core.state import State
from .episode import EPISODE_KEYWORDS, Episodes, SlotSnapshot
from .spaces import grid_shape, num_scalars, observation_space

__all__ = ["BatchedGames", "BatchStep", "SlotSnapshot", "SubterraVectorEnv", "VECTOR_KEYWORDS"]

# BatchedGames' own keywords (besides the GameConfig settings), listed when an unknown keyword is passed
VECTOR_KEYWORDS = ("num_envs", "config", "obs_radius", "copy_obs", "seed") + EPISODE_KEYWORDS


_NOT_GIVEN = object()  # BatchedGames(seed=...) left out: the default streams (0, i), as before seeds were a keyword


class BatchedGames(Episodes):
    """The episode layer (``subterra_env.episode.Episodes``: seeds, masks, action checks, rewards, terminated and
    truncated, infos, snapshots, same-step autoreset) plus the acting cavers' observations, for the vector envs.

    ``interface_keys``: the keywords of the interface built on it (SB3's ``seed``, ...), listed beside the game
    settings when an unknown keyword is passed.

    ``copy_obs``: True returns fresh arrays from ``reset`` and ``step``. False returns the env's own buffers
    without a copy (the copy took 15-30% of a step at 256 slots: 400-430 µs a step with it, 300-340 without),
    alternating between two sets: the arrays of one step stay valid through the next step and are overwritten by
    the one after. That is what SB3's rollout collection needs (it reads the previous observation after stepping,
    then copies it into its buffer).

    ``threads``: numba threads for the rules and observations (None: every core; 1: one thread, which is best
    when other processes already use the cores, e.g. one process per env runner). ``autoreset=False``: a finished
    game waits for ``reset`` (the single-agent adapter). ``seed``: the slots' seed streams (slot i from ``(seed,
    i)``; None: fresh entropy), as ``seed()`` sets them later."""

    def __init__(self, num_envs: int, config: GameConfig | None = None, *, obs_radius: int = 7,
                 copy_obs: bool = True, autoreset: bool = True, interface_keys: tuple[str, ...] = (),
                 seed: int | None | object = _NOT_GIVEN, **settings: Any):
        if not isinstance(obs_radius, int) or not 1 <= obs_radius <= 20:
            raise ValueError(f"obs_radius={obs_radius!r}: expected an integer in 1..20")
        if not isinstance(copy_obs, bool):
            raise TypeError(f"copy_obs={copy_obs!r}: expected True or False")
        episode = {k: settings.pop(k) for k in EPISODE_KEYWORDS if k in settings}
        if settings:
            config = from_dict({**(to_dict(config) if config else {}), **settings},
                               env_keys=VECTOR_KEYWORDS + tuple(interface_keys))
        super().__init__(num_envs, config, autoreset=autoreset, **episode)
        if seed is not _NOT_GIVEN:
            # seeded after Episodes' placeholder games drew from the default streams, so that reset() starts each
            # slot's first game, as seed(s) then reset() does
            self.seed(seed)
        self.num_envs = num_envs
        self.render_mode = None
        self.obs_radius = obs_radius
        scenario = self.config.scenario
        self.observation_space = observation_space(obs_radius, scenario=scenario)
        self.copy_obs = copy_obs
        # Two observation buffers used in turn (see copy_obs); _grid / _scalars name the current one.
        grid, k = grid_shape(obs_radius, scenario), num_scalars(scenario)
        self._buffers = [(np.zeros((num_envs, *grid), dtype=np.int8), np.zeros((num_envs, k), dtype=np.int8))
                         for _ in range(2)]
        self._grid, self._scalars = self._buffers[0]
        self._no_finals = (np.zeros((0, *grid), dtype=np.int8), np.zeros((0, k), np.int8))

    def reset(self, options: dict | None = None, *, seeds: np.ndarray | None = None,
              out: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> dict[str, np.ndarray]:
        """New games in every slot (``Episodes.reset``); returns the first observations. ``out``: (grid, scalars,
        mask) arrays of the caller that receive the observations and masks (see ``refresh``); the returned dict
        then holds those arrays themselves."""
        super().reset(options, seeds=seeds)
        self.refresh(out)
        return self.observations(copy=False if out is not None else None)

    def refresh(self, out: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> None:
        """Recompute the observations and masks after the State changed (step, set_state, an outside edit), into
        the other observation buffer, or into ``out`` = (grid, scalars, mask) arrays of the caller (the TorchRL
        env passes numpy views of fresh output tensors, so the observations are written once, straight into
        what it returns); those then are the current ones, until the next refresh."""
        if out is None:
            self._grid, self._scalars = self._buffers[1] if self._grid is self._buffers[0][0] else self._buffers[0]
            self.refresh_mask()
        else:
            self._grid, self._scalars, mask = out
            self.refresh_mask(mask)
        self._observe()

    def _observe(self) -> None:
        st = self.state
        observe(self.core.cat, st, np.maximum(st.actor, 0), self.obs_radius, self._grid, self._scalars,
                threads=self.core.threads)

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

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, list]:
        """Apply one action per slot; returns (obs, reward, terminated, truncated, finals) where finals is the
        list of (slot, final observation, info) of the games that ended, already reset."""
        s = self.step_batch(actions, keep_ended=False)  # the ended games' records: no one here reads them
        finals = []
        for j, slot in enumerate(s.done):
            final_obs = {"observation": s.final_grid[j], "scalars": s.final_scalars[j]}
            info = {k: int(v[j]) for k, v in s.final_info.items()}
            info["episode"] = {"r": float(s.episode_return[j]), "l": int(s.episode_length[j]),
                               "t": round(s.time, 6)}
            finals.append((int(slot), final_obs, info))
        return self.observations(), s.reward, s.terminated, s.truncated, finals

    def step_batch(self, actions: Any, out: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
                   info_all: bool = False, checked: bool = False, keep_ended: bool = True) -> BatchStep:
        """``step`` as arrays, with no Python loop over the slots (the TorchRL env's step): the finished games'
        final observations and infos come stacked (rows in the order of ``done``), and the new observations and
        masks go into ``out`` when given (see ``refresh``). ``info_all``: also the info of every slot's game as
        it stands after the action (before the finished ones are reset).

        ``checked=True``: the caller guarantees every action is legal for its slot's mask (a policy that samples
        from the mask); the per-slot check is skipped, and an illegal action then corrupts its game. Without
        autoreset, ended games are skipped by the core, whatever their action. ``keep_ended=False``: no copy of the
        games as they ended (``BatchStep.ended`` None; the TorchRL env never reads it)."""
        mask = None
        if out is None:  # the other buffer (the same tuple each time: the one-call kernel stays bound to it)
            pair = self._buffers[1] if self._grid is self._buffers[0][0] else self._buffers[0]
        else:
            pair, mask = out[:2], out[2]
        self._grid, self._scalars = pair
        # the step writes every slot's new observation (SubTerra.advance, in its one compiled call)
        self.book.obs, self.book.obs_radius = pair, self.obs_radius
        s = Episodes.step(self, actions, info_all=info_all, mask_out=mask, checked=checked, keep_ended=keep_ended)
        if self.autoreset and len(s.done):  # the autoreset moved the games' final observations out (restart)
            final_grid, final_scalars = self.book.finals
        else:
            final_grid, final_scalars = self._no_finals
        return BatchStep(s.reward, s.terminated, s.truncated, s.done, final_grid, final_scalars, s.final_info,
                         s.episode_return, s.episode_length, s.time, s.info, s.ended)

    def set_state(self, slot: int, snapshot: SlotSnapshot) -> None:
        """Put a snapshot (from any slot of games with the same settings) into a slot; it continues identically."""
        super().set_state(slot, snapshot)
        self.refresh()


@dataclass(frozen=True)
class BatchStep:
    """What ``BatchedGames.step_batch`` returns. Two kinds of field:

    - per slot, shape (num_envs,): ``reward`` (float32), ``terminated``, ``truncated`` (a learner bootstraps the
      value of a truncated game's final observation, not of a terminated one), and ``info`` (every slot's info
      after the action, before autoreset; None unless ``info_all``);
    - per finished game, shape (len(done), ...), row j being slot ``done[j]``: ``final_grid``, ``final_scalars``
      (the acting caver's last observation), ``final_info`` (``subterra_env.info.INFO_KEYS``, int64),
      ``episode_return``, ``episode_length`` and ``ended`` (the games as they ended, a State of len(done) games,
      for a global-state critic; None when no game ended, without autoreset or with ``keep_ended=False``).
      ``terminated[done]`` and ``truncated[done]`` say how each ended.

    ``time``: seconds since the games were made."""

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
    ended: State | None = None


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
        self.single_action_space = gymnasium.spaces.Discrete(self.games.num_actions)
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
