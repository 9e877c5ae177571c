"""The native trainer's networks, checkpoints and agent (``training/ppo.py``): plain torch, no SB3 underneath.

    agent = NativePolicyAgent("runs/ppo_tiny/best.pt")     # greedy; deterministic=False samples (seeded)
    env = subterra_env.env(obs_radius=agent.obs_radius)    # observations must match the checkpoint's window
    action = agent.act(obs, obs["action_mask"])

``agents.policy_agent.load_policy(path)`` picks this class for a ``.pt`` file and ``PolicyAgent`` for a
MaskablePPO ``.zip``, so ``policy:PATH`` works with either in ``training/evaluate.py``, ``subterra play`` and the
browser table; ``agents.onnx_policy.export_onnx`` writes a ``.pt``'s actor as the same ONNX graph that
``OnnxPolicyAgent`` plays (inputs ``observation``, ``scalars`` as float32; output ``logits``).

The actor bodies (``network``):

- ``ego``: the acting caver's own window (``obs_radius`` 2 = the 5 x 5 cells around it, all planes) flattened
  beside the scalars, then two layers of ``width``. About 0.3 M multiply-adds a sample at width 256: ten times
  cheaper than the CNN, which is what lets PPO keep up with the engine on a CPU.
- ``egowide``: ``ego``'s 5 x 5 cells and scalars, and a summary of the whole (wider, ``obs_radius`` > 2) window
  beside them: each caver's health and place (the team beyond the 5 x 5 cells), the exit's place, and where in
  3 x 3 regions of the window the cave, cells to reveal, horrors and hazard tiles lie; then the same two layers.
  The summary is computed, not learned (maxima over fixed regions).
- ``egothreat``: ``egowide`` and, in its summary, the places of the three horrors and the two horror tiles nearest
  the acting caver in the window (a region's maximum says only that one is somewhere in it).
- ``egohunt``: ``egowide`` and, for each caver, what the horror rules will do to it: its steps through connected
  edges to the nearest horror and to the nearest empty horror tile, and whether a horror hunts it (it is that
  horror's closest victim, R-HOR-2/3) or the next spawn comes for it (R-HOR-4), with the steps: a breadth-first
  search over the window's open sides, computed, not learned.
- ``cnn``: ``subterra_env.models.SubterraFeaturesExtractor`` (the SB3 runs' network: two stride-2 convolutions over
  the whole window plus the exact 3 x 3 centre and the scalars) with ``width`` features.

Critics (``critic``): ``ippo`` puts the value head on the actor's body (one shared network, parameter-shared by
every caver: independent PPO); ``mappo`` gives the value its own MLP over the env's global state
(``raw_env.state()``: the acting caver's view of a ``state_radius`` window centred on the start tile), the
centralised critic of MAPPO. Inputs are int8 counts; ``log1p`` keeps 0/1 planes near 0/0.7 and counts below 5.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from .base import Observation, ObservationAgent

FORMAT = "subterra-native-ppo"  # the checkpoint's "format" entry; bumped as FORMAT_VERSION when its layout changes
FORMAT_VERSION = 1
MAX_VALUE = 127  # int8 observations are in 0..127
NETWORKS = ("ego", "egowide", "egothreat", "egohunt", "cnn")
WIDE_NETWORKS = ("egowide", "egothreat", "egohunt")  # a flat centre beside a summary of the wider window
NEAR_RADIUS = 2  # egowide: the radius of its flat window (ego's 5 x 5); the rest of the window is summarised
CRITICS = ("ippo", "mappo")


@dataclass(frozen=True)
class NetSpec:
    """Everything needed to rebuild a network: the shapes it reads and its settings (stored in checkpoints)."""

    grid_shape: tuple[int, int, int]  # (C, W, W) of the actor's observation
    num_scalars: int
    num_actions: int
    network: str = "ego"
    width: int = 256
    critic: str = "ippo"
    state_size: int = 0  # the flat global state's length (mappo only)

    def __post_init__(self) -> None:
        if self.network not in NETWORKS:
            raise ValueError(f"network={self.network!r}: expected one of {NETWORKS}")
        if self.critic not in CRITICS:
            raise ValueError(f"critic={self.critic!r}: expected one of {CRITICS}")
        check_window(self.network, self.obs_radius)
        if self.critic == "mappo" and self.state_size <= 0:
            raise ValueError("critic='mappo' needs state_size, the length of the global state vector")

    @property
    def obs_radius(self) -> int:
        return (self.grid_shape[1] - 1) // 2


def check_window(network: str, obs_radius: int) -> None:
    """ValueError unless ``network`` can read a window of ``obs_radius`` (the ``WIDE_NETWORKS`` summarise what
    lies beyond their ``NEAR_RADIUS`` centre, so they need a wider window); ``training/ppo.py`` checks its settings
    with it too."""
    if network in WIDE_NETWORKS and obs_radius <= NEAR_RADIUS:
        side = 2 * NEAR_RADIUS + 1
        raise ValueError(f"network={network} with obs_radius={obs_radius}: it summarises the window beyond its "
                         f"{side} x {side} centre, so obs_radius must be above {NEAR_RADIUS} (e.g. 7, the env's "
                         "default)")


def log_scale(x: torch.Tensor) -> torch.Tensor:
    """log(1 + x) of the non-negative part, ``log1p(clamp(x, 0))`` exactly: the clamp in int8, then one float pass
    in place (the clamp always copies, so the caller's tensor is never written). It runs on every element of a MAPPO
    critic's global state. ``log(1 + x)``, the form before, was a third of log1p's time on the Intel CPU with AMX
    of earlier measurements (34 against 110 ms of a 4,096-sample update step), where it matched log1p on every
    int8 value; on an AMD EPYC (2026-12-01) it was 1 ulp off at 3 of them, and this form took 4.6 ms on a 4,096 x
    891 int8 state against 7.1 for ``log(1 + x)`` and 6.6 for ``log1p`` of the float copy."""
    return x.clamp(min=0).float().log1p_()


def _layer(n_in: int, n_out: int, gain: float = math.sqrt(2)) -> nn.Linear:
    """Orthogonal initialisation, as CleanRL's PPO: small policy logits at the start (gain 0.01) keep it uniform."""
    layer = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


class EgoBody(nn.Module):
    """The flat window around the acting caver beside the scalars, through two ReLU layers of ``width``."""

    def __init__(self, grid_shape: tuple[int, int, int], num_scalars: int, width: int):
        super().__init__()
        n_in = int(np.prod(grid_shape)) + num_scalars
        self.net = nn.Sequential(_layer(n_in, width), nn.ReLU(), _layer(width, width), nn.ReLU())

    def inputs(self, grid: torch.Tensor, scalars: torch.Tensor) -> torch.Tensor:
        """The first layer's input (no weights: the PPO update computes it once a rollout, not once an epoch)."""
        return torch.cat([log_scale(grid).flatten(1), log_scale(scalars)], dim=1)

    def forward(self, grid: torch.Tensor, scalars: torch.Tensor) -> torch.Tensor:
        return self.net(self.inputs(grid, scalars))


class WideEgoBody(nn.Module):
    """``EgoBody``'s flat centre (``NEAR_RADIUS``) and scalars beside a fixed summary of the whole window, through two
    ReLU layers of ``width``. The summary (``summary``) is what a 5 x 5 window hides: for each of the six caver
    planes (seats relative to the observer) its health + 1 (log scale; 0 when outside the window) and its row and
    column offset in units of the radius, the exit's offset and whether it is in sight, and for the planes of
    ``REGION_PLANES`` their maximum over each of 3 x 3 regions of the window (is there a gas tile, a horror, a cell
    to reveal to the north-west). Maxima and arg-maxima on the int8 observation: a float copy of the whole window
    would cost more than the network (15 x 15 x 34 values a sample)."""

    REGIONS = 3
    REGION_PLANES = ("tile", "revealable cell", "horrors", "type horror", "type gas", "type rough", "flooded")
    NEAREST: tuple[tuple[str, int], ...] = ()  # (plane, k): the places of its k non-empty cells nearest the centre
    EXTRA_INPUTS = 0  # a subclass's own inputs after the summary

    def __init__(self, grid_shape: tuple[int, int, int], num_scalars: int, width: int):
        super().__init__()
        from subterra_env.games.sub_terra.core.observation_layout import GRID_CHANNELS, MAX_SEATS

        c, w, _ = grid_shape
        radius = (w - 1) // 2
        self.width_cells = w
        self.near = slice(radius - NEAR_RADIUS, radius + NEAR_RADIUS + 1)
        first = GRID_CHANNELS.index("caver 0 health+1")
        self.cavers = slice(first, first + MAX_SEATS)
        self.exit = GRID_CHANNELS.index("type exit")
        self.register_buffer("planes", torch.tensor([GRID_CHANNELS.index(n) for n in self.REGION_PLANES]))
        self.register_buffer("offsets", torch.arange(-radius, radius + 1, dtype=torch.float32) / radius)
        self.edges = np.linspace(0, w, self.REGIONS + 1).round().astype(int).tolist()
        self.nearest = [(GRID_CHANNELS.index(name), k) for name, k in self.NEAREST]
        # Nearer cells score higher; among cells as near, the one first in row-major order (exact in float32, so the
        # choice is the same on every machine and thread count).
        rows, cols = np.divmod(np.arange(w * w), w)
        distance = np.abs(rows - radius) + np.abs(cols - radius)
        self.register_buffer("closeness", torch.tensor(((2 * w - distance) * w * w + w * w - np.arange(w * w)),
                                                       dtype=torch.float32), persistent=False)
        n_in = (c * (2 * NEAR_RADIUS + 1) ** 2 + num_scalars + 3 * MAX_SEATS + 3
                + len(self.REGION_PLANES) * self.REGIONS ** 2 + 3 * sum(k for _, k in self.NEAREST) + self.EXTRA_INPUTS)
        self.net = nn.Sequential(_layer(n_in, width), nn.ReLU(), _layer(width, width), nn.ReLU())

    def _places(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(value, row offset, column offset) of each plane's largest cell in ``planes`` (B, K, W, W), offsets in
        units of the radius and 0 where the plane is empty (a caver or the exit is one cell)."""
        value, at = planes.flatten(2).max(2)
        return (value, *self._offsets(at, (value > 0).float()))

    def _offsets(self, at: torch.Tensor, seen: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(row offset, column offset) of flat window indices ``at``, in units of the radius, 0 where not ``seen``."""
        rows = self.offsets[torch.div(at, self.width_cells, rounding_mode="floor")] * seen
        return rows, self.offsets[at % self.width_cells] * seen

    def _nearest(self, plane: torch.Tensor, k: int) -> list[torch.Tensor]:
        """(seen, row offset, column offset) of the ``k`` non-empty cells of ``plane`` (B, W, W) nearest the centre
        (Manhattan distance in the window), each (B, k); all 0 past the last non-empty cell."""
        score = (plane.flatten(1) > 0).float() * self.closeness
        value, at = score.topk(k, dim=1)
        seen = (value > 0).float()
        return [seen, *self._offsets(at, seen)]

    def summary(self, grid: torch.Tensor) -> torch.Tensor:
        """(B, 3 * 6 + 3 + 7 * 9 + 3 * k): the cavers' health and places, the exit's place, the region maxima, and
        the places of each ``NEAREST`` plane's k nearest cells."""
        health, rows, cols = self._places(grid[:, self.cavers])
        exit_seen, exit_rows, exit_cols = self._places(grid[:, self.exit:self.exit + 1])
        picked = grid.index_select(1, self.planes)
        e = self.edges
        regions = torch.stack([picked[:, :, e[i]:e[i + 1], e[j]:e[j + 1]].amax((2, 3))
                               for i in range(self.REGIONS) for j in range(self.REGIONS)], 2)
        nearest = [part for plane, k in self.nearest for part in self._nearest(grid[:, plane], k)]
        return torch.cat([log_scale(health), rows, cols, (exit_seen > 0).float(), exit_rows, exit_cols,
                          log_scale(regions.flatten(1)), *nearest], dim=1)

    def inputs(self, grid: torch.Tensor, scalars: torch.Tensor) -> torch.Tensor:
        """The first layer's input (as ``EgoBody.inputs``)."""
        near = log_scale(grid[:, :, self.near, self.near]).flatten(1)
        return torch.cat([near, log_scale(scalars), self.summary(grid)], dim=1)

    def forward(self, grid: torch.Tensor, scalars: torch.Tensor) -> torch.Tensor:
        return self.net(self.inputs(grid, scalars))


class ThreatEgoBody(WideEgoBody):
    """``WideEgoBody`` with the places of the horrors and horror tiles nearest the acting caver in its summary: a
    horror moves a step a round toward its closest caver and spawns on the horror tile nearest one (R-HOR-3, R-HOR-4),
    so where they lie, not only in which region, decides who it reaches. Three horrors (R-HOR-1) and two tiles."""

    NEAREST = (("horrors", 3), ("type horror", 2))


def _or(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Bitwise or of integer words; as a + b - (a & b) when exported, which ONNX's exporter takes (it has no
    bitwise or for integers; its and needs opset 18: ``HuntEgoBody.ONNX_OPSET``)."""
    return a + b - (a & b) if torch.onnx.is_in_onnx_export() else a | b


class HuntEgoBody(WideEgoBody):
    """``WideEgoBody`` with what the horror rules do to each caver next (``hunt``): where a horror stands decides
    little by itself; which caver it hunts (its closest victim by steps through connected edges, R-HOR-2/3) and
    where the next one spawns (the empty horror tile nearest its closest victim, R-HOR-4) decide who is knocked out.
    A breadth-first search from each caver's cell over the window's open sides, 7 steps deep (a horror farther from
    every victim leaves, R-HOR-3). The window can cut a path short or hide a victim: it is the actor's view, not the
    rules' (the horrors' one-at-a-time order and the tie rule between equal paths are left out)."""

    STEPS = 7  # R-HOR-3, R-HOR-4: a horror hunts, and spawns, within 7 steps of its closest victim
    EXTRA_INPUTS = 4 * 6  # per caver: nearest horror, hunted by, nearest empty horror tile, spawn coming
    ONNX_OPSET = 18  # bitwise and of integers (the search's words)

    def __init__(self, grid_shape: tuple[int, int, int], num_scalars: int, width: int):
        super().__init__(grid_shape, num_scalars, width)
        from subterra_env.games.sub_terra.core.effects import RANK_SCOUT
        from subterra_env.games.sub_terra.core.observation_layout import GRID_CHANNELS, SCALARS

        ch = GRID_CHANNELS.index
        # The planes the search reads, packed together (``_pack``): open sides N, E, S, W, horrors, horror tiles,
        # the exit, then the six cavers.
        self.register_buffer("packed_planes", torch.tensor(
            [ch(f"open {d}") for d in "NESW"] + [ch("horrors"), ch("type horror"), ch("type exit")]
            + list(range(self.cavers.start, self.cavers.stop))), persistent=False)
        self.rank0, self.hidden0 = SCALARS.index("caver 0 rank"), SCALARS.index("caver 0 hidden")
        self.devoured0, self.water0 = SCALARS.index("caver 0 devoured"), SCALARS.index("caver 0 under water")
        self.scout = RANK_SCOUT
        # Bit c of a row's word is its column c: a matrix product packs a row, exact in float32 up to 24 columns
        # (obs_radius 11), in float64 up to the widest window (41 columns: int64 words).
        w = grid_shape[1]
        self.word, packing = (torch.int32, torch.float32) if w <= 24 else (torch.int64, torch.float64)
        self.register_buffer("bits", torch.tensor([float(1 << c) for c in range(w)], dtype=packing), persistent=False)

    def _pack(self, grid: torch.Tensor) -> torch.Tensor:
        """(B, 13, W) words (int32; int64 past 24 columns) of ``packed_planes``: bit c of row r is set where the cell
        (r, c) is not 0 (a row's cells in one word, so that a step of the search is a few integer operations a row,
        not one a cell)."""
        cells = grid.index_select(1, self.packed_planes).clamp_(max=1).to(self.bits.dtype)
        with torch.autocast(grid.device.type, enabled=False):  # bfloat16 would round the sums of bits
            return (cells @ self.bits).to(self.word)

    def _victims(self, grid: torch.Tensor, scalars: torch.Tensor,
                 cavers: torch.Tensor, exit_cells: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """((B, 6) whether each caver may be a horror's victim (R-HOR-2), (B, 6) its rank), of the cavers' and the
        exit's packed words."""
        rank = scalars[:, self.rank0:self.rank0 + 6].long()
        on_exit = (cavers & exit_cells.unsqueeze(1)).amax(2) != 0
        # Conscious (health + 1 above 1) in the window, not the Scout, off the exit, not hidden, not devoured, not a
        # Diver under water.
        victim = (grid[:, self.cavers].flatten(2).amax(2) > 1) & (rank > 0) & (rank != self.scout) & ~on_exit
        for first in (self.hidden0, self.devoured0, self.water0):
            victim = victim & (scalars[:, first:first + 6] == 0)
        return victim, rank

    def hunt(self, grid: torch.Tensor, scalars: torch.Tensor) -> torch.Tensor:
        """(B, 4 * 6): for each caver (seats relative to the observer), the steps to the nearest horror, from the
        nearest horror whose closest victim it is, to the nearest empty horror tile, and from the tile the next
        horror spawns on if it spawns for this caver; each as (8 - steps) / 8: 1 on the same tile, 0 beyond 7.

        The search grows every caver's reached cells a step at a time through connected edges (R-CON-2: open sides
        on both tiles; a blasted side is open on both). A cell's closest victim is the first victim to reach it,
        the lower rank first among those reaching it at the same step (R-HOR-2): the victims are searched in rank
        order and claim the cells they reach first."""
        far = self.STEPS + 1
        words = self._pack(grid)
        side, horror, cavers = words[:, :4], words[:, 4], words[:, 7:]
        tiles = words[:, 5] - (words[:, 5] & horror)  # horror tiles without a horror: where one may spawn
        north = side[:, 0, 1:] & side[:, 2, :-1]  # row r + 1's bit c: (r + 1, c) and (r, c) connected
        east = (side[:, 1] & (side[:, 3] >> 1)).unsqueeze(1)  # bit c: (r, c) and (r, c + 1) connected
        up = north.unsqueeze(1)
        victim, rank = self._victims(grid, scalars, cavers, words[:, 6])
        # Only the seats in play (a seat past the last has rank 0 and no cell), fewer words a step; all six when
        # exported, where the graph cannot depend on the data.
        n = 6 if torch.onnx.is_in_onnx_export() else max(1, int((rank > 0).sum(1).max()))
        victim, rank, cavers = victim[:, :n], rank[:, :n], cavers[:, :n]
        seat, edge = torch.arange(n, device=grid.device), torch.zeros_like(cavers[:, :, :1])
        order = torch.argsort(torch.where(victim, rank, 99) * 8 + seat, dim=1)  # victims by rank, then the rest
        reached = cavers.gather(1, order.unsqueeze(2).expand(-1, -1, cavers.shape[2]))
        claims = torch.where(victim.gather(1, order), -1, 0).to(self.word).unsqueeze(2)  # all bits for a victim
        found = torch.full((4, *victim.shape), far, dtype=torch.long, device=grid.device)  # in rank order
        claimed = torch.zeros_like(horror).unsqueeze(1)  # cells whose closest victim is known
        targets = torch.stack([horror, tiles], 1).unsqueeze(2)  # (B, 2, 1, W)
        no_spawn = torch.ones_like(victim[:, 0])
        newly = reached
        for step in range(far):
            if step:
                grown = _or(_or(reached, (reached & east) << 1), (reached >> 1) & east)
                grown = _or(grown, torch.cat([reached[:, :, 1:] & up, edge], 2))  # north
                grown = _or(grown, torch.cat([edge, reached[:, :, :-1] & up], 2))  # south
                newly, reached = grown - reached, grown  # reached's bits are grown's: the difference is "and not"
            # What each caver reaches now (nearest horror, nearest tile) and what it claims: a victim's new cells
            # that neither an earlier step nor a victim before it in rank order (an exclusive prefix OR) reached.
            near = (newly.unsqueeze(1) & targets).amax(3) != 0  # (B, 2, 6)
            offered = newly & claims
            offered = offered - (offered & claimed)
            before = torch.cat([edge[:, :1].expand_as(offered[:, :1]), offered[:, :-1]], 1)
            for shift in (1, 2, 4):
                before = torch.cat([before[:, :shift], _or(before[:, shift:], before[:, :-shift])], 1)
            mine = offered - (offered & before)
            claimed = claimed + mine.sum(1, keepdim=True, dtype=self.word)  # disjoint, and new: the sum is an OR
            won = (mine.unsqueeze(1) & targets).amax(3) != 0  # (B, 2, 6): a horror hunts it; a spawn tile
            now = torch.stack([near[:, 0], won[:, 0], near[:, 1]], 0)
            found[:3] = torch.where(now & (found[:3] == far), step, found[:3])
            first = won[:, 1] & (won[:, 1].long().cumsum(1) == 1) & no_spawn.unsqueeze(1)  # the lowest rank's tile
            found[3] = torch.where(first, step, found[3])
            no_spawn = no_spawn & ~won[:, 1].any(1)
        seats = torch.argsort(order, dim=1)  # back from rank order to seats
        found = found.gather(2, seats.unsqueeze(0).expand(4, -1, -1))
        if n < 6:
            found = torch.cat([found, torch.full_like(found[:, :, :1], far).expand(-1, -1, 6 - n)], 2)
        return ((far - found).float() / far).permute(1, 0, 2).flatten(1)

    def inputs(self, grid: torch.Tensor, scalars: torch.Tensor) -> torch.Tensor:
        """``WideEgoBody.inputs`` and ``hunt`` after them."""
        return torch.cat([super().inputs(grid, scalars), self.hunt(grid, scalars)], dim=1)


class CnnBody(nn.Module):
    """``SubterraFeaturesExtractor`` (the SB3 runs' network) with ``width`` features: the same compute as the SB3
    runs' features extractor, the heads on top."""

    def __init__(self, grid_shape: tuple[int, int, int], num_scalars: int, width: int):
        super().__init__()
        import gymnasium

        from subterra_env.models import SubterraFeaturesExtractor

        space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(0, MAX_VALUE, grid_shape, dtype=np.int8),
            "scalars": gymnasium.spaces.Box(0, MAX_VALUE, (num_scalars,), dtype=np.int8)})
        self.features = SubterraFeaturesExtractor(space, features_dim=width)

    def forward(self, grid: torch.Tensor, scalars: torch.Tensor) -> torch.Tensor:
        return self.features({"observation": grid, "scalars": scalars})


class ActorCritic(nn.Module):
    """The policy (masked logits over the action ids) and the team-value critic (``NetSpec.critic``)."""

    def __init__(self, spec: NetSpec):
        super().__init__()
        self.spec = spec
        body = {"ego": EgoBody, "egowide": WideEgoBody, "egothreat": ThreatEgoBody, "egohunt": HuntEgoBody,
                "cnn": CnnBody}[spec.network]
        self.body = body(spec.grid_shape, spec.num_scalars, spec.width)
        self.policy_head = _layer(spec.width, spec.num_actions, gain=0.01)
        if spec.critic == "ippo":
            self.value_head = _layer(spec.width, 1, gain=1.0)
        else:  # the centralised critic: its own MLP over the flat global state
            self.critic = nn.Sequential(_layer(spec.state_size, spec.width), nn.ReLU(),
                                        _layer(spec.width, spec.width), nn.ReLU(), _layer(spec.width, 1, gain=1.0))

    def forward(self, grid: torch.Tensor, scalars: torch.Tensor,
                state: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits (B, A), value (B,)) of raw (int8 or float) observations; ``state`` (B, state_size) for mappo."""
        return self.heads(self.body(grid, scalars), self.state_inputs(state))

    def from_inputs(self, inputs: torch.Tensor,
                    state_inputs: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """``forward`` from the first-layer inputs, bit for bit: the body's (``body.inputs``: the ego bodies only)
        and, for mappo, the critic's (``state_inputs``)."""
        return self.heads(self.body.net(inputs), state_inputs)

    @staticmethod
    def state_inputs(state: torch.Tensor | None) -> torch.Tensor | None:
        """The centralised critic's first-layer input: the global state's log scale (None stays None). The PPO
        update computes it once a rollout, not once a minibatch."""
        return None if state is None else log_scale(state)

    def heads(self, hidden: torch.Tensor,
              state_inputs: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits, value) of the body's output (and, for mappo's critic, its ``state_inputs``)."""
        logits = self.policy_head(hidden)
        if self.spec.critic == "ippo":
            return logits, self.value_head(hidden).squeeze(1)
        if state_inputs is None:
            raise ValueError("a mappo network needs the global state for its value")
        return logits, self.critic(state_inputs).squeeze(1)

    def logits(self, grid: torch.Tensor, scalars: torch.Tensor) -> torch.Tensor:
        return self.policy_head(self.body(grid, scalars))


ACTOR_MODULES = ("body", "policy_head")  # what ``ActorCritic.logits`` runs: the policy without its critic


def actor_weights(state_dict: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The actor's entries of an ``ActorCritic`` state dict (a fresh critic of another kind or state goes beside)."""
    return {k: v for k, v in state_dict.items() if k.split(".", 1)[0] in ACTOR_MODULES}


def masked_log_probs(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """log softmax over the legal actions only (illegal ones get -inf: never sampled, no probability)."""
    return torch.log_softmax(logits.masked_fill(~mask, -torch.inf), dim=1)


# ---------------------------------------------------------------------------------------------------- checkpoints
def save_checkpoint(path: str | Path, model: ActorCritic, game_config: dict, extra: dict[str, Any]) -> Path:
    """One file holding the network (its ``NetSpec`` and weights), the game it was trained on and ``extra`` (the
    trainer's settings, step, optimiser and random states for ``--resume``). Written to a temporary name first, so
    a crash mid-write never leaves a truncated checkpoint under the real name."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save({"format": FORMAT, "format_version": FORMAT_VERSION, "spec": asdict(model.spec),
                "game_config": game_config, "model": model.state_dict(), **extra}, tmp)
    tmp.replace(path)
    return path


def load_checkpoint(path: str | Path, device: str = "cpu") -> tuple[ActorCritic, dict[str, Any]]:
    """(the network in eval mode, the whole checkpoint dict); FileNotFoundError or ValueError naming the problem
    (not a file of ``training/ppo.py``, another format version, weights that do not fit the spec)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no native policy checkpoint at {path}: training/ppo.py writes best.pt, final.pt "
                                "and checkpoints/step_*.pt in its run directory")
    try:
        data = torch.load(path, map_location=device, weights_only=False)
    except Exception as e:  # a truncated file or another kind of file
        raise ValueError(f"{path} is not a loadable checkpoint: {type(e).__name__}: {e}") from e
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a checkpoint of training/ppo.py (no format {FORMAT!r}); a MaskablePPO "
                         ".zip loads with agents.policy_agent.PolicyAgent")
    if data.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{path}: checkpoint format version {data.get('format_version')}, this code reads "
                         f"{FORMAT_VERSION}")
    spec = dict(data["spec"])
    spec["grid_shape"] = tuple(spec["grid_shape"])
    model = ActorCritic(NetSpec(**spec)).to(device)
    try:
        model.load_state_dict(data["model"])
    except RuntimeError as e:
        raise ValueError(f"{path}: the weights do not fit the network it names: {e}") from e
    return model.eval(), data


# ----------------------------------------------------------------------------------------------------------- agent
class NativePolicyAgent(ObservationAgent):
    """Plays a ``training/ppo.py`` checkpoint: greedy (argmax over legal actions) or sampled with its own seed.

    A bigger observation window than the checkpoint's is cropped to its centre, so the agent also plays from an
    env made with the default radius."""

    advised = False  # reads only its observation (no heuristic advice to bind)

    def __init__(self, path: str | Path, deterministic: bool = True, seed: int | None = 0, device: str = "cpu",
                 torch_threads: int | None = 1):
        if torch_threads is not None:
            torch.set_num_threads(torch_threads)  # one: a small net on a busy 2-core machine (see PolicyAgent)
        model, data = load_checkpoint(path, device)
        self._play(model, data["game_config"], Path(path), deterministic, seed, device)

    @classmethod
    def of_model(cls, model: ActorCritic, game_config: dict, name: str, deterministic: bool = True,
                 seed: int | None = 0, device: str = "cpu") -> NativePolicyAgent:
        """The agent of a network in memory (``training/partners.py``'s snapshots of a run's own policy), named
        ``name`` in its errors; the network is used as it is (freeze a copy first)."""
        agent = cls.__new__(cls)
        agent._play(model, game_config, Path(name), deterministic, seed, device)
        return agent

    def _play(self, model: ActorCritic, game_config: dict, path: Path, deterministic: bool, seed: int | None,
              device: str) -> None:
        self.path, self.model = path, model
        self.spec: NetSpec = model.spec
        self.game_config: dict = game_config
        self.obs_radius = self.spec.obs_radius
        self.deterministic = deterministic
        self.device = device
        self.rng = np.random.default_rng(seed)

    def logits(self, observations: Observation) -> np.ndarray:
        grid = np.asarray(observations["observation"])
        scalars = np.asarray(observations["scalars"])
        c, w, _ = self.spec.grid_shape
        if grid.ndim != 4 or grid.shape[1] != c or grid.shape[2] < w or grid.shape[2] % 2 != 1 or \
                scalars.shape[1:] != (self.spec.num_scalars,):
            raise ValueError(f"{self.path}: observations of shapes {grid.shape} / {scalars.shape}, expected "
                             f"(B, {c}, >={w}, >={w}) / (B, {self.spec.num_scalars}): another game or observation")
        if grid.shape[2] > w:  # a wider window: its centre is this network's window
            lo = (grid.shape[2] - w) // 2
            grid = grid[:, :, lo:lo + w, lo:lo + w]
        with torch.no_grad():
            out = self.model.logits(torch.as_tensor(np.ascontiguousarray(grid), device=self.device),
                                    torch.as_tensor(scalars, device=self.device))
        return out.cpu().numpy().astype(np.float64)

    def act_batch(self, observations: Observation | None, action_masks: np.ndarray,
                  games: np.ndarray | None = None) -> np.ndarray:
        masks = self.checked_masks(observations, action_masks)
        if masks.shape[1] != self.spec.num_actions:
            raise ValueError(f"{self.path}: masks of {masks.shape[1]} actions, the network has "
                             f"{self.spec.num_actions}: trained on another game")
        scores = self.logits(observations)
        if not self.deterministic:  # Gumbel-max: a sample from softmax(logits) with this agent's own stream
            scores = scores + self.rng.gumbel(size=scores.shape)
        return np.where(masks, scores, -np.inf).argmax(axis=1)
