"""``ItcCore``: the Python face of the compiled rules for one config: new batches, steps, legal masks, and
named reads of a game's record.

A batch is a (B, RECORD_SIZE) int32 array (batch axis first); one game's record is a row. Seeds map to keys with
Sub Terra's ``seed_keys``, so a game's seed alone decides it, in any batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from subterra_env.core.rng import seed_keys

from . import kernels
from . import layout as L
from .actions import NUM_ACTIONS


STEP_DONE, STEP_ILLEGAL, STEP_OVER = 0, 1, 2  # ItcCore.step's codes


class ItcCore:
    def __init__(self, config: Any) -> None:
        self.config = config
        self.P = config.params()
        self.seats = config.num_players

    def init(self, seeds: np.ndarray | list[int] | int) -> np.ndarray:
        seeds = np.atleast_1d(np.asarray(seeds, dtype=np.int64))
        G = np.zeros((len(seeds), L.RECORD_SIZE), dtype=np.int32)
        kernels.init_batch(G, self.P, seed_keys(seeds))
        return G

    def step(self, G: np.ndarray, actions: np.ndarray | list[int]) -> np.ndarray:
        """One action per game; returns a (B,) int8 code per game, and never raises for a game's action:

        - ``STEP_DONE`` (0): the action was taken;
        - ``STEP_ILLEGAL`` (1): the action is not legal in that game now (out of range too): that game is unchanged;
        - ``STEP_OVER`` (2): that game had already ended (or was truncated): unchanged.

        Codes rather than an exception because one call steps a whole batch and one bad game must not stop the
        others; the per-game interfaces raise instead: the AEC env and ``Position.act`` raise IllegalActionError
        naming the legal actions. Check ``(codes == STEP_DONE).all()`` when driving ``ItcCore`` directly."""
        codes = np.zeros(G.shape[0], dtype=np.int8)
        kernels.step_batch(G, self.P, np.asarray(actions, dtype=np.int64), codes)
        return codes

    def masks(self, G: np.ndarray) -> np.ndarray:
        """(B, NUM_ACTIONS) uint8: the legal actions of each game's actor (all 0 once over)."""
        out = np.zeros((G.shape[0], NUM_ACTIONS), dtype=np.uint8)
        kernels.mask_batch(G, self.P, out)
        return out

    def legal_mask(self, G: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``masks`` as (B, NUM_ACTIONS) bool, into ``out`` (a C-contiguous bool array of that shape) when given:
        the episode layer's masks (``subterra_env.game.Game.legal_mask``)."""
        b = G.shape[0]
        if out is None:
            out = np.empty((b, NUM_ACTIONS), dtype=np.bool_)
        elif out.shape != (b, NUM_ACTIONS) or out.dtype != np.bool_ or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous ({b}, {NUM_ACTIONS}) bool array, got {out.dtype} "
                             f"{out.shape}")
        kernels.mask_batch(G, self.P, out.view(np.uint8))  # a bool is one byte: the kernel writes 0 or 1
        return out

    def random_playout(self, G: np.ndarray, seeds: np.ndarray | list[int], max_steps: int = 100_000) -> np.ndarray:
        """Play on with seeded uniform random legal actions (batch-independent); steps taken per game."""
        keys = seed_keys(np.atleast_1d(np.asarray(seeds, dtype=np.int64)))
        return kernels.random_playout(G, self.P, keys, max_steps)


# ---------------------------------------------------------------------------------------------- named reads
def seat_field(g: np.ndarray, base: int, s: int) -> int:
    return int(g[base + s])


def backpack(g: np.ndarray, s: int) -> np.ndarray:
    return g[L.BP + s * L.NK:L.BP + (s + 1) * L.NK]


def camp_contents(g: np.ndarray, s: int) -> np.ndarray:
    return g[L.CAMPC + s * L.NK:L.CAMPC + (s + 1) * L.NK]


def depth_levels(g: np.ndarray, s: int) -> list[int]:
    """The depth-reached token levels (depth / 25) seat s holds."""
    row = g[L.DEPTH_TOK + s * L.LEVELS:L.DEPTH_TOK + (s + 1) * L.LEVELS]
    return [int(i) for i in np.nonzero(row)[0]]


def tokens(g: np.ndarray, s: int) -> dict[str, Any]:
    """Seat s's exploration tokens."""
    return {"traverse": int(g[L.TRAV + s]), "water": int(g[L.WATER + s]), "photo": int(g[L.PHOTO + s]),
            "squeeze": [int(v) for v in g[L.SQ + 3 * s:L.SQ + 3 * s + 3]], "depth": depth_levels(g, s)}


def tiles(g: np.ndarray) -> list[dict[str, int]]:
    """Every placed tile (home base first) as a dict of its fields."""
    out = []
    for t in range(int(g[L.N_TILES])):
        out.append({"x": int(g[L.TX + t]), "y": int(g[L.TY + t]), "kind": int(g[L.TKIND + t]),
                    "open": int(g[L.TOPEN + t]), "depth": int(g[L.TDEPTH + t]), "token": int(g[L.TTOKEN + t]),
                    "squeeze": int(g[L.TSQ + t]), "boulder_side": int(g[L.TBSIDE + t]),
                    "rope": int(g[L.TROPE + t]), "cat": int(g[L.TCAT + t])})
    return out


def tile_index(g: np.ndarray, x: int, y: int) -> int:
    """Tile in cell (x, y), -1 = empty (a scan: for tests and observations, not the compiled rules)."""
    n = int(g[L.N_TILES])
    hit = np.nonzero((g[L.TX:L.TX + n] == x) & (g[L.TY:L.TY + n] == y))[0]
    return int(hit[0]) if len(hit) else -1


def stacks_left(g: np.ndarray) -> list[int]:
    """Tiles left in stacks I..IV."""
    pos, out, start = int(g[L.STACK_POS]), [], 0
    for st in range(4):
        end = int(g[L.STACK_END + st])
        out.append(max(0, end - max(pos, start)))
        start = end
    return out
