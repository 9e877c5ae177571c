"""Partners for ``training/ppo.py``: some seats of the training games played by fixed agents, not the policy.

A team trained by self-play learns to rely on partners that act as it does: on the tiny cave a learned caver
seated in alternation with the heuristic loses three quarters of a caver a game against either team alone
(``docs/baselines.md``, "Partners"). With ``partner: ENTRY[,ENTRY...]`` and ``partner_games: P``, each new training
game is, with probability P, a mixed game: one of the entries, drawn uniformly, holds a uniformly drawn number of its
seats (1 to all but one), uniformly drawn which, for the whole game; the other games are self-play. An entry is
``heuristic`` or ``policy:PATH``, a frozen ``training/ppo.py`` checkpoint of the same observation playing greedily
(several of them: a population of partners, as in Fictitious Co-Play). The partners' decisions move the games and
their team reward flows through the advantages of the policy's decisions around them (the stream of a game slot is
one return), but they are not the policy's own: ``Rollout.learn`` is False there, and the policy, entropy and KL
terms of the update average over the policy's decisions only (the value is trained on every decision: the return of
the team as it was seated; the critic is not told which seats are partners, so it values the mix).

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


class PolicyPartner:
    """A frozen checkpoint that picks its greedy legal action from the acting caver's observation."""

    def __init__(self, path: str, spec: Any, device: torch.device):
        from agents.native_policy import load_checkpoint

        self.model, _ = load_checkpoint(path, device=str(device))
        got = self.model.spec
        if (tuple(got.grid_shape), got.num_scalars, got.num_actions) != (tuple(spec.grid_shape), spec.num_scalars,
                                                                          spec.num_actions):
            raise ValueError(f"partner {path}: its observation {got.grid_shape} + {got.num_scalars} scalars and "
                             f"{got.num_actions} actions are not this run's {spec.grid_shape} + {spec.num_scalars} "
                             f"and {spec.num_actions} (another game or window)")
        self.device = device

    @torch.no_grad()
    def decide(self, grid: np.ndarray, scalars: np.ndarray, masks: np.ndarray) -> np.ndarray:
        t = [torch.from_numpy(np.ascontiguousarray(a)).to(self.device) for a in (grid, scalars, masks)]
        logits = self.model.logits(t[0], t[1])
        return logits.masked_fill(~t[2], -torch.inf).argmax(1).cpu().numpy()


class Partners:
    """The partner seats of one shard's games and the agents that play them."""

    def __init__(self, spec: str, share: float, games, seed: int, net_spec: Any, device: torch.device):
        from agents.heuristic import HeuristicAgent

        self.entries = parse(spec)
        self.agents = [HeuristicAgent(games, threads=1) if e == "heuristic"
                       else PolicyPartner(e[len(POLICY_PREFIX):], net_spec, device) for e in self.entries]
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
        for e, agent in enumerate(self.agents):
            slots = np.flatnonzero(partner & (self.who == e))
            if not len(slots):
                continue
            if isinstance(agent, PolicyPartner):
                actions[slots] = agent.decide(grid[slots], scalars[slots], masks[slots])
            else:
                actions[slots] = agent.decide(self.games.core, st, slots, masks[slots])
        return ~partner

    def mixed(self, slots: np.ndarray) -> np.ndarray:
        """Whether the games in ``slots`` have partner seats (read before ``draw`` replaces them)."""
        return self.seats[slots].any(axis=1)
