"""Partners for ``training/ppo.py``: some seats of the training games played by fixed agents, not the policy.

A team trained by self-play learns to rely on partners that act as it does: on the tiny cave a learned caver seated
in alternation with the heuristic loses three quarters of a caver a game against either team alone
(``docs/baselines.md``, "Partners"). With ``partner: ENTRY[,ENTRY...]`` and ``partner_games: P``, each new training
game is, with probability P, a mixed game: one of the entries, drawn uniformly, holds a uniformly drawn number of
its seats (1 to all but one), uniformly drawn which, for the whole game; the other games are self-play. An entry is
``heuristic`` or ``policy:PATH``, a frozen ``training/ppo.py`` checkpoint played greedily by ``NativePolicyAgent``
(its window no wider than the run's) (several of them: a population of partners, as in Fictitious Co-Play). The
partners' decisions move the games and their team reward flows through the advantages of the policy's decisions
around them (the stream of a game slot is one return), but they are not the policy's own: ``Rollout.learn`` is False
there, and the policy, entropy and KL terms of the update average over the policy's decisions only (the value is
trained on every decision: the return of the team as it was seated; the critic is not told which seats are partners,
so it values the mix).

Each shard's draws come from its own generator (seeded from the run's seed), so a run is the same again for a
given seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

POLICY_PREFIX = "policy:"


def parse(spec: str) -> list[str]:
    """The entries of a ``partner`` setting; ValueError naming an entry that is neither kind."""
    entries = [e.strip() for e in spec.split(",")]
    for e in entries:
        if e != "heuristic" and not (e.startswith(POLICY_PREFIX) and len(e) > len(POLICY_PREFIX)):
            raise ValueError(f"partner entry {e!r}: expected heuristic or policy:PATH (a training/ppo.py checkpoint)")
    return entries


def policy_partner(path: str, spec: Any, device: torch.device):
    """``agents.native_policy.NativePolicyAgent`` playing greedily, checked before any work: the same planes,
    scalars and actions as this run's, and a window no wider (it plays the centre of a wider one)."""
    from agents.native_policy import NativePolicyAgent

    agent = NativePolicyAgent(path, device=str(device), torch_threads=None)  # the run's torch threads stay
    got = agent.spec
    c, w, _ = got.grid_shape
    if (c, got.num_scalars, got.num_actions) != (spec.grid_shape[0], spec.num_scalars, spec.num_actions) \
            or w > spec.grid_shape[1]:
        raise ValueError(f"partner {path}: its observation {got.grid_shape} + {got.num_scalars} scalars and "
                         f"{got.num_actions} actions do not fit this run's {spec.grid_shape} + {spec.num_scalars} "
                         f"and {spec.num_actions} (another game, or a wider window)")
    return agent


class Partners:
    """The partner seats of one shard's games and the agents that play them."""

    def __init__(self, spec: str, share: float, games, seed: int, net_spec: Any, device: torch.device):
        from agents.heuristic import HeuristicAgent  # here: a run without partners does not load it

        self.entries = parse(spec)
        self.agents = [HeuristicAgent(games, threads=1) if e == "heuristic"
                       else policy_partner(e[len(POLICY_PREFIX):], net_spec, device) for e in self.entries]
        self.games, self.share = games, share
        self.cavers = games.core.cfg.num_cavers
        self.seats = np.zeros((games.num_envs, self.cavers), dtype=bool)
        self.who = np.zeros(games.num_envs, dtype=np.intp)  # the entry that holds a game's partner seats
        self.reseed(seed)

    def reseed(self, seed: int) -> None:
        """A new generator (``Trainer.reseed``: a resumed run plays new games)."""
        self.rng = np.random.default_rng(seed)

    def draw(self, slots: np.ndarray) -> None:
        """New games began in ``slots``: each is mixed with probability ``share``, with 1 .. cavers - 1 seats of one
        entry, both chosen uniformly."""
        n = len(slots)
        mixed = self.rng.random(n) < self.share
        count = self.rng.integers(1, self.cavers, n)
        rank = np.argsort(self.rng.random((n, self.cavers)), axis=1)  # a random order of the seats per game
        self.seats[slots] = (rank < count[:, None]) & mixed[:, None]
        if len(self.agents) > 1:  # (one entry draws nothing more: its runs stay as they were before populations)
            self.who[slots] = self.rng.integers(0, len(self.agents), n)

    def play(self, actions: np.ndarray, grid: np.ndarray, scalars: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Overwrite ``actions`` where a partner seat decides now with that partner's choice (``grid``, ``scalars``,
        ``masks``: the acting cavers' observations and legal actions); returns ``learn``: True where the decision is
        the policy's own."""
        st = self.games.state
        actor = st.actor.astype(np.intp)
        partner = (actor >= 0) & self.seats[np.arange(len(actor)), np.maximum(actor, 0)]
        for e, (name, agent) in enumerate(zip(self.entries, self.agents)):
            slots = np.flatnonzero(partner & (self.who == e))
            if not len(slots):
                continue
            if name == "heuristic":
                actions[slots] = agent.decide(self.games.core, st, slots, masks[slots])
            else:
                obs = {"observation": grid[slots], "scalars": scalars[slots]}
                actions[slots] = agent.act_batch(obs, masks[slots])
        return ~partner

    def mixed(self, slots: np.ndarray) -> np.ndarray:
        """Whether the games in ``slots`` have partner seats (read before ``draw`` replaces them)."""
        return self.seats[slots].any(axis=1)
