"""Partners for ``training/ppo.py``: some seats of the training games played by fixed agents, not the policy.

A team trained by self-play learns to rely on partners that act as it does: on the tiny cave a learned caver seated
in alternation with the heuristic loses three quarters of a caver a game against either team alone
(``docs/baselines.md``, "Partners"). With ``partner: ENTRY[,ENTRY...]`` and ``partner_games: P``, each new training
game is, with probability P, a mixed game: one of the entries, drawn uniformly, holds a uniformly drawn number of
its seats (1 to all but one), uniformly drawn which, for the whole game; the other games are self-play. An entry is
``heuristic``, ``policy:PATH``, a frozen ``training/ppo.py`` checkpoint played greedily by ``NativePolicyAgent``
(its window no wider than the run's) (several of them: a population of partners, as in Fictitious Co-Play), or
``past``: the run's own policy as it was, a frozen copy taken every ``partner_every`` env-steps, the last
``partner_pool`` of them kept (a population built inside the run's own budget; each copy is one entry of the
draw, and none is seated before the first copy). The
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

from agents.native_policy import NativePolicyAgent

POLICY_PREFIX = "policy:"
PAST = "past"


def parse(spec: str) -> list[str]:
    """The entries of a ``partner`` setting; ValueError naming an entry that is none of the kinds, or a repeat."""
    entries = [e.strip() for e in spec.split(",")]
    for e in entries:
        if e not in ("heuristic", PAST) and not (e.startswith(POLICY_PREFIX) and len(e) > len(POLICY_PREFIX)):
            raise ValueError(f"partner entry {e!r}: expected heuristic, past (the run's own earlier policies) or "
                             "policy:PATH (a training/ppo.py checkpoint)")
    if len(set(entries)) < len(entries):
        raise ValueError(f"partner entries {entries}: one is named twice")
    return entries


def policy_partner(path: str, spec: Any, device: torch.device):
    """``agents.native_policy.NativePolicyAgent`` playing greedily, checked before any work: the same planes,
    scalars and actions as this run's, and a window no wider (it plays the centre of a wider one)."""
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
    """The partner seats of one shard's games and the agents that play them: the fixed entries first, then the
    slots of the ``past`` pool (a ring: a new copy replaces the oldest, and a game seated with the oldest plays on
    beside the new one)."""

    def __init__(self, spec: str, share: float, games, seed: int, net_spec: Any, device: torch.device,
                 pool: int = 0):
        from agents.heuristic import HeuristicAgent  # here: a run without partners does not load it

        entries = parse(spec)
        fixed = [e for e in entries if e != PAST]
        self.agents: list[Any] = [HeuristicAgent(games, threads=1) if e == "heuristic"
                                  else policy_partner(e[len(POLICY_PREFIX):], net_spec, device) for e in fixed]
        self.entries = fixed  # one name per agent: the past copies are named past@STEP as they come
        self.fixed, self.pool = len(fixed), pool if PAST in entries else 0
        self.games, self.share = games, share
        self.cavers = games.core.cfg.num_cavers
        self.seats = np.zeros((games.num_envs, self.cavers), dtype=bool)
        self.who = np.zeros(games.num_envs, dtype=np.intp)  # the entry that holds a game's partner seats
        self.added = 0  # past copies added so far (the ring's next slot: added % pool)
        self.reseed(seed)

    def add_past(self, agent: Any, name: str) -> None:
        """A frozen copy of the run's policy joins the ``past`` pool (in place of the oldest once it is full)."""
        if not self.pool:
            return
        if len(self.agents) < self.fixed + self.pool:
            self.agents.append(agent)
            self.entries.append(name)
        else:
            k = self.fixed + self.added % self.pool
            self.agents[k], self.entries[k] = agent, name
        self.added += 1

    def past(self) -> list[tuple[str, Any]]:
        """The ``past`` copies as (name, agent), oldest first (the order ``add_past`` rebuilds the ring in)."""
        copies = list(zip(self.entries[self.fixed:], self.agents[self.fixed:]))
        turn = self.added % self.pool if self.pool and len(copies) == self.pool else 0  # the oldest one's place
        return copies[turn:] + copies[:turn]

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
        self.seats[slots] = (rank < count[:, None]) & mixed[:, None] & bool(self.agents)  # (past: none yet)
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
