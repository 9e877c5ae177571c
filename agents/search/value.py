"""The value estimate at the search's horizon: how many cavers the heuristic team will get out from here.

Rollouts played to the end of the game cost the most where the search needs the most futures: on the full game a
rollout from the early rounds plays some twenty rounds, and its outcome varies by about 0.7 caver, while the actions
of one decision differ by hundredths. Played for a few rounds and valued by this estimate instead, a rollout costs a
fraction and its paired difference varies far less (the later dice and cards are averaged inside the estimate), so
many more futures fit the same budget.

The estimate is a small network over each caver's public situation (``caver_features``: health, whether the exit is
placed and the way to it on the table, hazard cards and tiles left, the horrors' nearness, the teammates' mean of
the same), giving that caver's chance of standing on the exit at the end under the heuristic team; a game's value is
the sum over its cavers (and a finished game's value its cavers out). ``training/fit_value.py`` fits it on seeded
heuristic games of the base game's presets and table sizes and writes ``value_net.npz`` beside this file, with the
calibration it measured on held-out games. Only public information: the tile and card counts, never their order.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from subterra_env.games.sub_terra.core.board import FAR, distances_from, tiles_left
from subterra_env.games.sub_terra.core.hazards import cards_left
from subterra_env.games.sub_terra.core.kernels import cavers_out_batch
from subterra_env.games.sub_terra.core.state import RUNNING, State, take_rows

from .jit import jit

NF = 20  # features of one caver (``caver_features``)
MAX_WAY = 30  # tiles: a longer way to the exit (or none) counts as this long
NET_PATH = Path(__file__).resolve().parent / "value_net.npz"


@jit
def caver_features(states, stack_size, out):
    """out (B, S, NF): each caver's public situation (scaled to about 0..1), for the value network."""
    dist = np.empty(states[0].t_nbr.shape[0] + 2, np.int64)
    queue = np.empty(states[0].t_nbr.shape[0] + 2, np.int64)
    for b in range(states.shape[0]):
        g = states[b]
        distances_from(g, g.exit_tile, FAR, dist, queue, -1)  # the way to the exit through connected sides
        conscious = 0
        horrors = 0
        for s in range(g.n_seats):
            if g.c_hp[s] > 0 and not g.c_dead[s]:
                conscious += 1
        for h in range(g.h_tile.shape[0]):
            if g.h_tile[h] >= 0:
                horrors += 1
        tiles = tiles_left(g, stack_size)
        cards = cards_left(g)
        placed = g.exit_tile >= 0
        for s in range(g.n_seats):
            f = out[b, s]
            f[:] = 0.0
            t = g.c_tile[s]
            alive = not g.c_dead[s]
            way = MAX_WAY
            if placed and t >= 0:
                way = min(dist[t], MAX_WAY)
            if not placed:
                way = 0
            near = 20  # the nearest horror, in grid steps
            if t >= 0:
                for h in range(g.h_tile.shape[0]):
                    ht = g.h_tile[h]
                    if ht >= 0:
                        near = min(near, abs(g.t_x[ht] - g.t_x[t]) + abs(g.t_y[ht] - g.t_y[t]))
            f[0] = 1.0 if alive and g.c_hp[s] > 0 else 0.0
            f[1] = g.c_hp[s] / 5.0 if alive else 0.0
            f[2] = 1.0 if g.c_dead[s] else 0.0
            f[3] = 1.0 if placed else 0.0
            f[4] = 1.0 if placed and t == g.exit_tile else 0.0
            f[5] = way / 10.0
            f[6] = (way / 10.0) ** 2
            f[7] = cards / 10.0
            f[8] = tiles / 20.0
            f[9] = g.round / 20.0
            f[10] = conscious / 4.0
            f[11] = g.open_sides / 10.0
            f[12] = 1.0 if t >= 0 and g.t_flood[t] else 0.0
            f[13] = 1.0 if g.c_under[s] else 0.0
            f[14] = near / 10.0
            f[15] = horrors / 3.0
            f[16] = 1.0 if g.gas_active else 0.0
            f[17] = (cards - way) / 10.0 if placed else (cards - tiles / 3.0) / 10.0  # slack: rounds to spare
            f[18] = g.c_rank[s] / 8.0
            f[19] = 1.0 if g.c_hidden[s] else 0.0


def network_inputs(st: State, games: np.ndarray | None = None) -> np.ndarray:
    """(n, S, 2 NF) float32: each caver's features and its teammates' mean, for games ``games`` (all if None)."""
    S = st.c_hp.shape[1]
    packed = st.packed if games is None else take_rows(st.packed, games)
    f = np.zeros((len(packed), S, NF), dtype=np.float32)
    if len(packed):
        caver_features(packed, st.stack.shape[1], f)
    mates = (f.sum(axis=1, keepdims=True) - f) / max(S - 1, 1)
    return np.concatenate([f, mates], axis=2)


class ValueNet:
    """The fitted network (``value_net.npz``: layers ``w0, b0, w1, b1, ...``, ReLU between, a logit out) and the
    game values it gives."""

    def __init__(self, path: str | Path = NET_PATH):
        with np.load(path) as data:
            self.layers = []
            i = 0
            while f"w{i}" in data:
                self.layers.append((data[f"w{i}"].astype(np.float32), data[f"b{i}"].astype(np.float32)))
                i += 1
        if not self.layers or self.layers[0][0].shape[0] != 2 * NF:
            raise ValueError(f"{path}: not a value network over {2 * NF} inputs (fit one with training/fit_value.py)")

    def escape_odds(self, x: np.ndarray) -> np.ndarray:
        """Each caver's chance of getting out, for inputs x (..., 2 NF)."""
        h = x.reshape(-1, x.shape[-1])
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < len(self.layers) - 1:
                np.maximum(h, 0.0, out=h)
        return (1.0 / (1.0 + np.exp(-h[:, 0]))).reshape(x.shape[:-1])

    def values(self, st: State) -> np.ndarray:
        """(B,) float64: cavers out of every finished game, the expected cavers out of every running one."""
        value = np.empty(st.batch_size, dtype=np.int64)
        cavers_out_batch(st.packed, value)
        out = value.astype(np.float64)
        running = np.flatnonzero(st.result == RUNNING)
        if len(running):
            out[running] = self.escape_odds(network_inputs(st, running)).sum(axis=1)
        return out
