"""A small learned model of the search's gains, added to the residual policy's logits where it predicts a gain.

The search (``agents.search``) values every legal action by its mean gain in cavers out over the heuristic's
choice, in sampled futures; ``training/distil.py label`` records those gains and ``training/distil_probe.py``
fits this head to them. Per (decision, action) it reads only what the observation holds, action-centric: the
scalars, the acting caver's 3 x 3 neighbourhood, the grid cell the action points at (a direction's neighbour) and
the cell the heuristic's choice points at, and both actions' ids. An ensemble of small members, averaged: a single
fit's noise in the ranking of its top few predictions is what lost its departures (``training/distil_probe.py``).

In a policy (``AdvisedPolicy(gain_head=...)``) the head adds ``scale x (gain - threshold)`` to every action other
than the advised one, so greedy play leaves the heuristic's choice where some action's predicted gain exceeds
``threshold``: ``scale`` is 1e5 logits a caver, so the advice and the network's own logits move that threshold by
less than 1e-4 caver. ``max_deck`` confines the departures to games like those the head was fitted on: games whose
hazard deck held at most that many cards, read off the scalars as cards left + round - 1 (the deck's size with
its Out of Time card while it lasts, one card a round; it only grows after), so the shipped head, fitted on the
small cave's 9-card deck and measured to gain on the medium cave's 12, leaves the full game's 23 to the residual
policy (there its departures lost: agents/shipped/README.md). None: every game.
Base game only (the direction table is that of the 90 base actions).

The first layer is split by input (``_Member``) so one pass values all actions of a batch of decisions at once:
``common(decision) + action embedding + pointed cell``, the same sum a linear layer over their concatenation makes.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from subterra_env.games.sub_terra.core.actions import ACTION_ARG, ACTION_NAMES, NUM_ACTIONS
from subterra_env.games.sub_terra.core.catalogue import DIR_NAMES, DX, DY
from subterra_env.games.sub_terra.core.observe import SCALARS

# Directional actions point at the neighbour in their direction (N, E, S, W: the action's argument); the grid is
# centred on the acting caver, its rows along the board's y (subterra_env.games.sub_terra.core.observe).
DIRECTIONAL = np.array([name.split()[-1] in DIR_NAMES for name in ACTION_NAMES[:NUM_ACTIONS]])
GRID_SCALE, SCALAR_SCALE = 1 / 5, 1 / 10  # raw int8 observation values, brought near 0..1
DECK_LEFT, ROUND = SCALARS.index("hazard cards left"), SCALARS.index("round")


class _Member(nn.Module):
    def __init__(self, common: int, channels: int, num_actions: int, hidden: int):
        super().__init__()
        self.common = nn.Linear(common, hidden)  # scalars, advised one-hot, centre crop, the advised action's cell
        self.action = nn.Embedding(num_actions, hidden)  # the action's one-hot through the first layer
        self.pointed = nn.Linear(channels, hidden, bias=False)  # the cell the action points at
        self.out = nn.Sequential(nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, common: torch.Tensor, pointed: torch.Tensor, actions: torch.Tensor | None = None) -> torch.Tensor:
        """Every action of each decision, ``common`` (B, F) and ``pointed`` (B, A, C) -> (B, A); or one
        ``actions`` (N,) entry per row of ``common`` (N, F) and ``pointed`` (N, C) -> (N,)."""
        if actions is None:
            h = self.common(common)[:, None, :] + self.action.weight[None] + self.pointed(pointed)
        else:
            h = self.common(common) + self.action(actions) + self.pointed(pointed)
        return self.out(h).squeeze(-1)


class GainHead(nn.Module):
    """Predicted gain (cavers out over the heuristic's choice) of every action: ``(B, A)``; see the module doc."""

    def __init__(self, channels: int = 34, scalars: int = 49, num_actions: int = NUM_ACTIONS, hidden: int = 64,
                 members: int = 5, threshold: float = 0.0, scale: float = 1e5, max_deck: int | None = None):
        super().__init__()
        if num_actions != NUM_ACTIONS:
            raise ValueError(f"GainHead knows the base game's {NUM_ACTIONS} actions, not {num_actions}")
        if members < 1 or hidden < 1 or not scale > 0:
            raise ValueError(f"GainHead: members and hidden must be at least 1 and scale above 0, got {members}, "
                             f"{hidden}, {scale}")
        if max_deck is not None and not (isinstance(max_deck, int) and 0 <= max_deck <= 127):
            raise ValueError(f"GainHead: max_deck must be None or a card count 0..127, got {max_deck!r}")
        # a setting, not a buffer: checkpoints saved before it existed load unchanged (their kwargs lack it: None)
        self.max_deck = max_deck
        self._sizes = {"channels": channels, "scalars": scalars, "num_actions": num_actions, "hidden": hidden,
                       "members": members}
        common = scalars + num_actions + channels * 9 + channels
        self.members = nn.ModuleList(_Member(common, channels, num_actions, hidden) for _ in range(members))
        self.register_buffer("threshold", torch.tensor(float(threshold)))
        self.register_buffer("scale", torch.tensor(float(scale)))
        self.register_buffer("directional", torch.as_tensor(DIRECTIONAL, dtype=torch.float32))
        self.register_buffer("direction", torch.as_tensor(np.where(DIRECTIONAL, ACTION_ARG[:NUM_ACTIONS], 0),
                                                          dtype=torch.long))

    @property
    def config(self) -> dict:
        """The settings that rebuild this head (a checkpoint's ``policy_kwargs``), threshold and scale as now set."""
        return {**self._sizes, "threshold": float(self.threshold), "scale": float(self.scale),
                **({} if self.max_deck is None else {"max_deck": self.max_deck})}

    def in_domain(self, scalars: torch.Tensor) -> torch.Tensor:
        """(B,) 1.0 where the decision's game is one the head departs in (``max_deck``), else 0.0."""
        if self.max_deck is None:
            return torch.ones(scalars.shape[0], dtype=torch.float32, device=scalars.device)
        deck = scalars[:, DECK_LEFT].float() + scalars[:, ROUND].float() - 1
        return (deck <= self.max_deck).float()

    def _pointed(self, neighbours: torch.Tensor, rows: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """The cell each (decision ``rows``, ``actions``) pair's action points at (0 for one without a direction)."""
        return neighbours[rows, self.direction[actions]] * self.directional[actions][..., None]

    def _every_pointed(self, neighbours: torch.Tensor) -> torch.Tensor:
        """The cell every action points at, (B, A, C)."""
        return neighbours[:, self.direction] * self.directional[None, :, None]

    def decision_inputs(self, grid: torch.Tensor, scalars: torch.Tensor,
                        advised: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(common (B, F): what every action of a decision shares, neighbours (B, 4, C): the N, E, S, W cells)."""
        grid = grid.float() * GRID_SCALE
        c = grid.shape[-1] // 2
        neighbours = torch.stack([grid[:, :, c + int(dy), c + int(dx)] for dx, dy in zip(DX, DY)], dim=1)
        one_hot = nn.functional.one_hot(advised, NUM_ACTIONS).float()
        advised_cell = (one_hot[:, :, None] * self._every_pointed(neighbours)).sum(dim=1)  # no batch-size constant
        centre = grid[:, :, c - 1:c + 2, c - 1:c + 2].flatten(1)
        return torch.cat([scalars.float() * SCALAR_SCALE, one_hot, centre, advised_cell], dim=1), neighbours

    def member_gains(self, common: torch.Tensor, neighbours: torch.Tensor, rows: torch.Tensor | None = None,
                     actions: torch.Tensor | None = None) -> list[torch.Tensor]:
        """Each member's predicted gains from ``decision_inputs``: of every action, (B, A) each; or of the
        (decision ``rows``, ``actions``) pairs, (N,) each (training fits them one by one, on the pairs)."""
        if rows is None:
            pointed = self._every_pointed(neighbours)
            return [m(common, pointed) for m in self.members]
        pointed = self._pointed(neighbours, rows, actions)
        return [m(common[rows], pointed, actions) for m in self.members]

    def forward(self, grid: torch.Tensor, scalars: torch.Tensor, advised: torch.Tensor) -> torch.Tensor:
        return torch.stack(self.member_gains(*self.decision_inputs(grid, scalars, advised))).mean(dim=0)

    def bonus(self, grid: torch.Tensor, scalars: torch.Tensor, advice: torch.Tensor) -> torch.Tensor:
        """What the policy adds to its logits: ``scale x (gain - threshold)``, 0 at the advised action and in games
        outside ``max_deck``."""
        advised = advice.argmax(dim=1)
        keep = (1 - advice.float()) * self.in_domain(scalars)[:, None]
        return self.scale * (self.forward(grid, scalars, advised) - self.threshold) * keep
