"""Play seeded games in a batch and record each one as a Minari episode, exactly as the single-agent env
(``subterra/SubTerra-v0``, ``subterra_env.single``) would have shown it.

The games of a batch are ``subterra_env.episode.Episodes`` slots seeded the way ``env.reset(seed=s)`` seeds the
single-agent env (slot i's game seed is the first draw of the stream of ``[s_i]``), so an episode recorded here
replays in the recovered env from its env seed ``s_i``. Every step is one decision of the team: the acting
caver's observation (grid and scalars at ``obs_radius``) before it, the action, the team reward, terminated and
truncated. ``infos`` hold one row per observation (the first, and one after each action): the action mask of the
caver acting at that observation, its seat and caver (rank 1..8; after the end: the seat the core leaves and rank
of that seat), the env seed, whether a person took that decision (``human``) and the single-agent env's info keys
(``subterra_env.info.INFO_KEYS``).

Who decides is a callback, ``choose(episodes, live, grid, scalars) -> actions``: the team's agents (``build``)
or the moves of game records (``records``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np
from minari.data_collector.episode_buffer import EpisodeBuffer

from subterra_env.config import GameConfig
from subterra_env.games.sub_terra.core.observe import observe
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.episode import Episodes
from subterra_env.info import INFO_KEYS

# choose(episodes, live slots, grid (B, C, W, W), scalars (B, K)) -> one action per live slot
Chooser = Callable[[Episodes, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
# human(live slots, actions) -> per live slot, whether a person took that decision
HumanFlags = Callable[[np.ndarray, np.ndarray], np.ndarray]


class RecordingError(ValueError):
    """A player chose an illegal action while recording; the message names the game and the action."""


@dataclass
class _Rows:
    """The rows of a batch, step by step: ``obs_game[k]`` names the game of observation row k, ``act_game`` that
    of action row k (a game's rows stay in order)."""

    obs_game: list[np.ndarray]
    grid: list[np.ndarray]
    scalars: list[np.ndarray]
    mask: list[np.ndarray]
    seat: list[np.ndarray]
    caver: list[np.ndarray]
    human: list[np.ndarray]
    info: list[dict[str, np.ndarray]]
    act_game: list[np.ndarray]
    action: list[np.ndarray]
    reward: list[np.ndarray]
    terminated: list[np.ndarray]
    truncated: list[np.ndarray]

    @classmethod
    def empty(cls) -> "_Rows":
        return cls(*([] for _ in range(13)))


def record_batch(core: Core, config: GameConfig, env_seeds: np.ndarray, choose: Chooser, *, max_cycles: int,
                 obs_radius: int, first_id: int, human: HumanFlags | None = None,
                 episodes: Episodes | None = None, on_done: Callable[[int], None] | None = None
                 ) -> list[EpisodeBuffer]:
    """Play one game per env seed to its end (terminated or truncated) and return the episodes, ids from
    ``first_id`` in seed order. ``episodes``: an ``Episodes`` of ``len(env_seeds)`` slots to reuse (agents bound
    to it follow it). ``on_done(k)``: told how many games ended in each step (a progress bar)."""
    n = len(env_seeds)
    eps = episodes or Episodes(n, config, max_cycles=max_cycles, autoreset=False, core=core)
    eps.seed([int(s) for s in env_seeds])  # as SubterraSingleAgentEnv.reset(seed=s): slot i from the stream [s_i]
    eps.reset()
    rows = _Rows.empty()
    live = np.arange(n)
    _observe_rows(eps, live, obs_radius, rows)
    keep = np.ones(n, bool)  # the rows of the latest observations whose games play on
    while len(live):
        grid, scalars = rows.grid[-1][keep], rows.scalars[-1][keep]
        actions = np.asarray(choose(eps, live, grid, scalars), dtype=np.int64).reshape(-1)
        ok = eps.legal(actions, live)
        if not ok.all():
            bad = int(np.argmin(ok))
            raise RecordingError(f"game with seed {int(env_seeds[live[bad]])}: action {int(actions[bad])} is not "
                                 f"legal at its decision (legal: {np.flatnonzero(eps.mask[live[bad]]).tolist()})")
        if human is not None:
            rows.human[-1][keep] = human(live, actions)  # the decision taken at each game's latest observation
        step = eps.step(actions, slots=live, checked=True)
        rows.act_game.append(live)
        rows.action.append(actions)
        rows.reward.append(step.reward[live].astype(np.float64))
        rows.terminated.append(step.terminated[live].copy())
        rows.truncated.append(step.truncated[live].copy())
        _observe_rows(eps, live, obs_radius, rows)
        keep = ~eps.over[live]
        if on_done is not None:
            on_done(int((~keep).sum()))
        live = live[keep]
    return _episodes(rows, env_seeds, first_id)


def _observe_rows(eps: Episodes, games: np.ndarray, radius: int, rows: _Rows) -> None:
    """Append the observation and info rows of ``games`` as they stand now (``human`` False until a person's
    decision is taken there)."""
    st = eps.state
    sub = st if len(games) == st.batch_size else st.take(games)  # the games that ended are not observed again
    grid, scalars = observe(eps.core.cat, sub, np.maximum(sub.actor, 0), radius, threads=eps.core.threads)
    seat = st.actor[games].astype(np.int8)
    rows.obs_game.append(games)
    rows.grid.append(grid)
    rows.scalars.append(scalars)
    rows.mask.append(eps.mask[games].copy())
    rows.seat.append(seat)
    rows.caver.append(st.c_rank[games, np.maximum(seat, 0)].astype(np.int8))
    rows.human.append(np.zeros(len(games), bool))
    info = eps.batch_info()
    rows.info.append({k: np.asarray(info[k])[games].astype(np.int64) for k in INFO_KEYS})


def _by_game(game: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The order that groups rows by game (stable: each game's rows stay in step order) and the bounds."""
    order = np.argsort(game, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(game, minlength=n))])
    return order, bounds


def _episodes(rows: _Rows, env_seeds: np.ndarray, first_id: int) -> list[EpisodeBuffer]:
    n = len(env_seeds)
    og, ob = _by_game(np.concatenate(rows.obs_game), n)
    ag, ab = _by_game(np.concatenate(rows.act_game), n)

    def obs_rows(parts: list[np.ndarray]) -> np.ndarray:
        return np.concatenate(parts)[og]

    grid, scalars, mask = obs_rows(rows.grid), obs_rows(rows.scalars), obs_rows(rows.mask)
    seat, caver, human = obs_rows(rows.seat), obs_rows(rows.caver), obs_rows(rows.human)
    info = {k: obs_rows([i[k] for i in rows.info]) for k in INFO_KEYS}
    action, reward = np.concatenate(rows.action)[ag], np.concatenate(rows.reward)[ag]
    terminated, truncated = np.concatenate(rows.terminated)[ag], np.concatenate(rows.truncated)[ag]
    out = []
    for g in range(n):
        o, a = slice(ob[g], ob[g + 1]), slice(ab[g], ab[g + 1])
        steps = a.stop - a.start
        infos = {"action_mask": mask[o], "seat": seat[o], "caver": caver[o], "human": human[o],
                 "seed": np.full(steps + 1, int(env_seeds[g]), np.int64), **{k: v[o] for k, v in info.items()}}
        # one value per row as a list of numpy scalars: Minari 0.5's arrow backend writes a 1-D array's shape as
        # "" and cannot read it back; a list keeps the dtype and reads back as a 1-D array
        infos = {k: list(v) if v.ndim == 1 else v for k, v in infos.items()}
        out.append(EpisodeBuffer(id=first_id + g, seed=int(env_seeds[g]),
                                 observations={"observation": grid[o], "scalars": scalars[o]},
                                 actions=action[a], rewards=reward[a], terminations=terminated[a],
                                 truncations=truncated[a], infos=infos))
    return out


def batches(num: int, size: int) -> Iterator[tuple[int, int]]:
    """(lo, hi) of consecutive batches of at most ``size`` games."""
    for lo in range(0, num, size):
        yield lo, min(lo + size, num)
