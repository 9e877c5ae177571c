"""Minari datasets of Sub Terra: every team's play and people's games, loadable in one line.

    subterra dataset build --config tiny --team heuristic --episodes 10 --id subterra/tiny/heuristic-v0
    subterra dataset from-records games/*.json --id subterra/tiny/people-v0 [--only-human]
    subterra dataset check subterra/tiny/heuristic-v0

    import minari
    dataset = minari.load_dataset("subterra/tiny/heuristic-v0")
    env = dataset.recover_environment()          # subterra/SubTerra-v0 with the dataset's settings

An episode is one game seen by the single-agent env (``subterra_env.single``: one policy plays every caver in
turn): each step is one decision, with the acting caver's observation (grid and scalars), the action, the team
reward, terminated and truncated; ``infos`` (one row per observation) hold the action mask, the acting caver's
``seat`` and ``caver`` (rank 1..8), the env ``seed``, ``human`` (a person took that decision) and the env's info
keys. ``env.reset(seed=infos["seed"][0])`` starts the same game, and replaying the actions reproduces every
observation bit for bit (``check``). Needs the ``datasets`` extra (Minari with its arrow backend).
"""

from .store import DatasetError

__all__ = ["DatasetError"]
