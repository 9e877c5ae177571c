"""``subterra dataset build``: play seeded games of a preset or scenario with a team and write them as a Minari
dataset (see ``subterra_game.datasets``)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from agents.teams import (DEFAULT_OBS_RADIUS, AgentCache, GamesHolder, SeatGroup, TeamError, check_team_size,
                          needs_observation, observations, parse_team, seat_groups, team_label)
from subterra_env import __version__
from subterra_env.config import PRESETS, ConfigError, GameConfig, load, preset
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.episode import Episodes

from ..records import settings_to_json
from .recorder import batches, record_batch
from .store import DatasetError, DatasetWriter, env_spec, megabytes, minari_module

DEFAULT_BATCH = 64


@dataclass
class BuildSummary:
    """What a build wrote: the dataset's id and directory, its episodes and steps, seconds, megabytes on disk."""

    dataset_id: str
    path: Path
    episodes: int
    steps: int
    seconds: float
    megabytes: float


def resolve_config(config: str | GameConfig | None) -> tuple[GameConfig, str]:
    """(settings, name) from a preset name, a YAML file or a GameConfig; a DatasetError names a bad one."""
    if config is None:
        return GameConfig(), "default"
    if isinstance(config, GameConfig):
        return config, "custom"
    try:
        if Path(config).is_file():
            return load(config), str(config)
        if config in PRESETS:
            return preset(config), config
    except ConfigError as e:
        raise DatasetError(f"config {config!r}: {e}") from None
    raise DatasetError(f"config {config!r}: no such file, and not a preset ({', '.join(PRESETS)})")


def team_chooser(groups: list[SeatGroup], core: Core, radius: int) -> Callable[..., np.ndarray]:
    """The recorder's ``choose``: each agent answers for the live games whose acting seat it holds (observations
    at the dataset's radius are reused; a policy with another ``obs_radius`` gets its own)."""

    def choose(eps: Episodes, live: np.ndarray, grid: np.ndarray, scalars: np.ndarray) -> np.ndarray:
        actions = np.zeros(len(live), np.int64)
        actor = eps.state.actor[live]
        for agent, seats, label in groups:
            rows = np.flatnonzero(np.isin(actor, seats))
            if not len(rows):
                continue
            obs = None
            if needs_observation(agent):
                own = int(getattr(agent, "obs_radius", DEFAULT_OBS_RADIUS))
                obs = ({"observation": grid[rows], "scalars": scalars[rows]} if own == radius
                       else observations(core, eps.state, live[rows], own))
            a = np.asarray(agent.act_batch(obs, eps.mask[live[rows]], games=live[rows])).reshape(-1)
            if a.shape != rows.shape:
                raise DatasetError(f"team entry {label!r}: act_batch returned {a.shape[0]} actions for {len(rows)} "
                                   "games")
            actions[rows] = a
        return actions

    return choose


def build_dataset(dataset_id: str, config: str | GameConfig | None, team: str, episodes: int, *, seed: int = 0,
                  batch: int = DEFAULT_BATCH, max_cycles: int = 200, obs_radius: int = DEFAULT_OBS_RADIUS,
                  overwrite: bool = False, threads: int | None = None, command: str = "",
                  progress: Any = None) -> BuildSummary:
    """Play ``episodes`` games (env seeds ``seed .. seed + episodes - 1``) of ``config`` with ``team`` and write
    them as the Minari dataset ``dataset_id``. ``threads``: numba threads of the rules and observations (None:
    every core; 1 is best when other processes keep the cores busy). ``progress``: an object with ``update(n)``.
    DatasetError names bad input (nothing is written then)."""
    minari_module()
    if not isinstance(episodes, int) or episodes < 1:
        raise DatasetError(f"episodes={episodes!r}: expected a positive whole number")
    if not isinstance(batch, int) or batch < 1:
        raise DatasetError(f"batch={batch!r}: expected a positive whole number")
    cfg, config_name = resolve_config(config)
    core = Core(cfg, threads=threads)
    holder = GamesHolder(core)
    try:
        entries = parse_team(team)
        check_team_size(entries, team, cfg.num_cavers)
        cache = AgentCache(seed=seed)
        holder.episodes = Episodes(min(batch, episodes), cfg, max_cycles=max_cycles, autoreset=False, core=core)
        groups = seat_groups(entries, cache, holder, cfg.num_cavers)
    except TeamError as e:
        raise DatasetError(f"team {team!r} for config {config_name!r}: {e}") from None
    settings = settings_to_json(cfg)
    choose = team_chooser(groups, core, obs_radius)
    t0, steps = time.perf_counter(), 0
    with DatasetWriter(dataset_id, env_spec(settings, max_cycles, obs_radius), overwrite) as writer:
        for lo, hi in batches(episodes, batch):
            if holder.episodes.num_games != hi - lo:  # the last, smaller batch: agents follow the holder
                holder.episodes = Episodes(hi - lo, cfg, max_cycles=max_cycles, autoreset=False, core=core)
            try:
                done = record_batch(core, cfg, seed + np.arange(lo, hi), choose, max_cycles=max_cycles,
                                    obs_radius=obs_radius, first_id=lo, episodes=holder.episodes,
                                    on_done=progress.update if progress is not None else None)
            except ValueError as e:  # an agent's illegal action (RecordingError) or refusal: name the team
                raise DatasetError(f"team {team!r} on config {config_name!r}: {e}") from None
            steps += sum(len(ep) for ep in done)
            writer.add(done)
        meta = {"algorithm_name": team_label(entries), "author": {"subterra_env"},
                "description": f"{episodes} games of Sub Terra ({config_name}) played by the team {team!r}, from "
                               f"env seed {seed}; one step per decision of the acting caver (subterra_env "
                               f"{__version__}).",
                "requirements": [f"subterra-env=={__version__}"],
                "subterra": {"source": "play", "config": config_name, "team": team, "seed": seed,
                             "package_version": __version__, "command": command, "max_cycles": max_cycles,
                             "obs_radius": obs_radius}}
        path = writer.publish(meta)
    return BuildSummary(dataset_id, path, episodes, steps, time.perf_counter() - t0, megabytes(path))
