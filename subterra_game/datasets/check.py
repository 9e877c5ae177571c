"""``subterra dataset check ID``: every episode of a dataset replays in its recovered environment, bit for bit.

Each episode is reset with its env seed (``infos["seed"]``) and its actions are played again; every observation
(both keys, values and dtypes), reward, terminated and truncated flag and info row (the action mask, the acting
caver, the game's counts and result) must equal what the dataset holds. The first difference is reported with
the episode, the step and what differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from subterra_env.info import INFO_KEYS

from .store import load


@dataclass
class CheckReport:
    """The outcome of ``check_dataset``: episodes and steps replayed, and the differences found (empty: all
    equal; the replay of an episode stops at its first difference)."""

    dataset_id: str
    episodes: int
    steps: int
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems


def check_dataset(dataset_id: str, progress: Any = None, max_problems: int = 10) -> CheckReport:
    """Replay every episode of ``dataset_id`` (see the module docstring). ``progress``: ``update(n)`` per episode.
    Stops after ``max_problems`` episodes that differ."""
    dataset = load(dataset_id)
    env = dataset.recover_environment(disable_env_checker=True)
    report = CheckReport(dataset_id, 0, 0, [])
    for episode in dataset.iterate_episodes():
        problem = replay_episode(env, episode)
        report.episodes += 1
        report.steps += len(episode)
        if problem:
            report.problems.append(f"episode {episode.id}: {problem}")
            if len(report.problems) >= max_problems:
                break
        if progress is not None:
            progress.update(1)
    env.close()
    return report


def replay_episode(env: Any, episode: Any) -> str:
    """'' if the episode replays exactly in ``env``, else the first difference."""
    seed = int(episode.infos["seed"][0])
    obs, info = env.reset(seed=seed)
    problem = _compare(env, episode, 0, obs, info)
    if problem:
        return f"reset(seed={seed}): {problem}"
    for t, action in enumerate(episode.actions):
        obs, reward, terminated, truncated, info = env.step(int(action))
        got = (float(reward), bool(terminated), bool(truncated))
        want = (float(episode.rewards[t]), bool(episode.terminations[t]), bool(episode.truncations[t]))
        if got != want:
            return f"step {t}: (reward, terminated, truncated) is {got} in the env, {want} in the dataset"
        problem = _compare(env, episode, t + 1, obs, info)
        if problem:
            return f"step {t}: {problem}"
    if not (episode.terminations[-1] or episode.truncations[-1]):
        return "the episode neither terminates nor is truncated"
    return ""


def _compare(env: Any, episode: Any, row: int, obs: dict[str, np.ndarray], info: dict[str, Any]) -> str:
    """'' if observation row ``row`` and its info row equal the env's, else what differs."""
    for key, want in episode.observations.items():
        got = np.asarray(obs[key])
        if got.dtype != want.dtype or not np.array_equal(got, want[row]):
            return f"observation[{key!r}] differs ({_where(got, want[row])})"
    if not np.array_equal(np.asarray(info["action_mask"], bool), episode.infos["action_mask"][row]):
        return "the action mask differs"
    for key in INFO_KEYS:
        if int(info[key]) != int(episode.infos[key][row]):
            return f"info[{key!r}] is {int(info[key])} in the env, {int(episode.infos[key][row])} in the dataset"
    st = env.unwrapped.games.state  # the single-agent env's one game: who acts, and which caver that is
    seat = int(st.actor[0])
    caver = int(st.c_rank[0, max(seat, 0)])
    if (seat, caver) != (int(episode.infos["seat"][row]), int(episode.infos["caver"][row])):
        return (f"the acting (seat, caver) is {(seat, caver)} in the env, "
                f"{(int(episode.infos['seat'][row]), int(episode.infos['caver'][row]))} in the dataset")
    return ""


def _where(got: np.ndarray, want: np.ndarray) -> str:
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"{got.dtype}{got.shape} in the env, {want.dtype}{want.shape} in the dataset"
    first = tuple(int(i) for i in np.argwhere(got != want)[0])
    return f"first at {first}: {got[first]} in the env, {want[first]} in the dataset"
