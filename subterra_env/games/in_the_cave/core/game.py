"""``ItcCore``: the Python face of the compiled rules for one config: new batches, steps, legal masks, and
named reads of a game's record.

A batch is a (B, RECORD_SIZE) int32 array (batch axis first); one game's record is a row. Seeds map to keys with
Sub Terra's ``seed_keys``, so a game's seed alone decides it, in any batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from subterra_env.games.sub_terra.core.rng import seed_keys
from subterra_env.game import STEP_DONE, STEP_ILLEGAL, STEP_OVER  # noqa: F401 (the Game protocol's codes)

from . import kernels
from . import layout as L
from .actions import NUM_ACTIONS
from .borrow import borrowed
from .jit import jit
from .observe import grid_into, vector16_into, vp


class ItcCore:
    def __init__(self, config: Any) -> None:
        self.config = config
        self.P = config.params()
        self.seats = config.num_players
        self._vp_scratch = np.zeros(self.seats, dtype=np.int64)  # advance's VP before a step, per seat

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

    def advance(self, G: np.ndarray, actions: np.ndarray, stepped: np.ndarray, reward_vp: float, max_cycles: int,
                book: Any, mask_out: np.ndarray) -> int:
        """The episode layer's step in one compiled call (``advance_batch``): the actions of the games marked in
        ``stepped`` (checked legal by the caller), each seat's reward, the episode bookkeeping in ``book`` (a
        ``subterra_env.game.EpisodeBook``: its ``rewards`` and ``reward`` are written fresh) and every game's new
        legal mask into ``mask_out`` ((B, NUM_ACTIONS) bool). Returns how many episodes ended."""
        b = G.shape[0]
        book.rewards, book.reward = np.empty((b, self.seats)), np.empty(b)  # fresh: the caller keeps them
        return advance_batch(G, self.P, actions, stepped, float(reward_vp), max_cycles, book.rewards, book.reward,
                             book.ep_return, book.ep_length, book.terminated, book.truncated, book.over, book.done,
                             mask_out, self._vp_scratch)

    def flags(self, G: np.ndarray, max_cycles: int, terminated: np.ndarray, truncated: np.ndarray,
              over: np.ndarray) -> int:
        """Every game's flags (``episode_end``) into the three (B,) bool arrays; returns how many are over."""
        return flags_batch(G, max_cycles, terminated, truncated, over)

    def observe(self, G: np.ndarray, seats: np.ndarray, radius: int, grid_out: np.ndarray,
                vector_out: np.ndarray) -> None:
        """``observe_batch``: each game as its seat sees it, into (B, GRID_CHANNELS, 2R+1, 2R+1) int8 and
        (B, VECTOR_SIZE) int16 arrays."""
        observe_batch(G, self.P, np.asarray(seats, dtype=np.int64), radius, grid_out, vector_out)

    def random_playout(self, G: np.ndarray, seeds: np.ndarray | list[int], max_steps: int = 100_000) -> np.ndarray:
        """Play on with seeded uniform random legal actions (batch-independent); steps taken per game."""
        keys = seed_keys(np.atleast_1d(np.asarray(seeds, dtype=np.int64)))
        return kernels.random_playout(G, self.P, keys, max_steps)


# ---------------------------------------------------------------------------------------------- the episode step
@jit
def episode_end(g, max_cycles):
    """(terminated, truncated) of one game: ended by the rules (R-ITC-END-2); cut off by its own round limit
    (R-ITC-END-4) or after ``max_cycles`` rounds."""
    over = g[L.OVER]
    return over == L.ENDED, over == L.TRUNCATED or (over == L.RUNNING and g[L.ROUND] > max_cycles)


@jit
def flags_batch(G, max_cycles, terminated, truncated, over):
    """Every game's ``episode_end`` into the three (B,) bool arrays; returns how many are over."""
    n_over = 0
    for b in range(G.shape[0]):
        te, tr = episode_end(G[b], max_cycles)
        terminated[b], truncated[b], over[b] = te, tr, te or tr
        n_over += te or tr
    return n_over


@jit
def seat_rewards(g, seats, reward_vp, vp_before, out):
    """After game g, running before, stepped: each seat's reward into ``out`` (S,), float64, in the order of the
    AEC env's formula: ``reward_vp`` per VP gained (``vp_before``: each seat's VP before the step), then, if the
    game ended in this step (R-ITC-END-3), the seat's final score minus the mean of the others' (eliminated teams
    score 0; a truncated game: nothing)."""
    for s in range(seats):
        out[s] = reward_vp * (vp(g, s) - vp_before[s]) if reward_vp != 0.0 else 0.0
    if g[L.OVER] == L.ENDED:
        total = 0.0
        for s in range(seats):
            total += g[L.SCORE + s]
        for s in range(seats):
            out[s] += g[L.SCORE + s] - (total - g[L.SCORE + s]) / (seats - 1)


@jit
def advance_batch(G, P, actions, stepped, reward_vp, max_cycles, rewards, reward, ep_return, ep_length, terminated,
                  truncated, over, done, mask_out, vp_before):
    """``ItcCore.advance``: every game marked in ``stepped`` and not over takes its action and books its rewards,
    return, length and flags (``done``: its episode ended now); the others get reward 0 and keep their flags;
    every game's legal mask into ``mask_out`` (bool, written as bytes: the mask kernels' type)."""
    G, P = borrowed(G), borrowed(P)
    masks = mask_out.view(np.uint8)
    seats = P[L.PR_SEATS]
    n_done = 0
    for b in range(G.shape[0]):
        g = G[b]
        done[b] = False
        rewards[b, :] = 0.0
        reward[b] = 0.0
        if stepped[b] and not over[b] and g[L.OVER] == L.RUNNING:
            seat = g[L.ACTOR]
            for s in range(seats):
                vp_before[s] = vp(g, s) if reward_vp != 0.0 else 0
            if kernels.legal(g, P, actions[b]):
                kernels.apply(g, P, actions[b])
            seat_rewards(g, seats, reward_vp, vp_before, rewards[b])
            reward[b] = rewards[b, seat]
            for s in range(seats):
                ep_return[b, s] += rewards[b, s]
            ep_length[b] += 1
            te, tr = episode_end(g, max_cycles)
            terminated[b], truncated[b], over[b], done[b] = te, tr, te or tr, te or tr
            n_done += te or tr
        kernels.mask_into(g, P, masks[b])
    return n_done


@jit
def observe_batch(G, P, seats, radius, grid_out, vector_out):
    """Each game b as its seat ``seats[b]`` sees it: the grid centred on that seat's pawn into ``grid_out[b]``,
    its vector into ``vector_out[b]`` (``subterra_env.games.in_the_cave.observe``: the same writers, one call)."""
    n = P[L.PR_SEATS]
    for b in range(G.shape[0]):
        g, s = G[b], seats[b]
        pos = g[L.POS + s]
        grid_into(g, s, radius, g[L.TX + pos], g[L.TY + pos], n, grid_out[b])
        vector16_into(g, P, s, n, vector_out[b])


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
