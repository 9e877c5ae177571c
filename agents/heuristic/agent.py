"""HeuristicAgent: the hand-written team player, compiled (the decisions live in this folder's numba modules).

Bind it to a game (``HeuristicAgent(env)``, a vector env, ``BatchedGames`` or any object with ``.core`` and
``.state``); then ``act(observation, action_mask)`` decides for the bound game and ``act_batch(observations,
action_masks, games)`` for rows of the bound batch, in one compiled call. Observations are not needed (None is
fine): every decision is made from the State's public part, read afresh each time, so the agent keeps no memory
between calls and never reads the stack or deck order, the random key or scripted dice (only their counts).

How it plays (modules: ``board`` the public board, its danger and graph searches, ``paths`` paths into actions,
``tiles`` tile decisions, ``plans`` whole-turn plans valued in AP, ``turn`` decision kinds and overrides,
``kernels`` the batch loops):

* tiles per round win the game: while the exit is hidden every caver spends its AP revealing and exploring (the
  last draw of a turn an explore unless the new tile is likely worse to end on than where it stands), walking to
  the cheapest frontier tile when none is at hand, and exerts for one more tile while healthy; rotations keep open
  sides and link to placed tiles (short ways out); the Scout redraws horror tiles and dead ends (and any tile once
  the exit may be next), the Geologist places the better of his two tiles and keeps the worse aside, the Leader
  directs a teammate standing at the frontier when his own AP would only walk;
* health: a caver heals himself when that plan is worth more than drawing on (one more point at 1 health is worth
  3 AP); the Medic bandages teammates on his tile (and walks to them), the hurt
  end their turn next to him; a knocked-out teammate is revived by whoever reaches him cheapest when that is a few
  AP away (farther rescues cost more tiles than they give back);
* danger: the end of each turn is valued by the hazard cards' odds on that tile (a cave-in's 3 damage is a
  knock-out, priced as such), horrors within reach, the Bodyguard's protection once he has acted; the Bodyguard
  repels adjacent horrors, a caver a horror will reach runs or hides;
* once the exit is placed, everyone takes the cheapest AP path to it (moves, runs, the Medic's sprint, swims,
  squeezes, digs or excavations, ropes or gear, the Engineer's blasts, the Diver's dive and surfacing near it),
  exerting when that reaches the exit this turn (no damage there) or with health to spare; knocked-out teammates
  are revived on the way while there is time to bring them out; the Leader on the exit directs teammates onward.

Every returned action is legal: each choice is checked against the mask, with a safe legal fallback.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from subterra_env.games.sub_terra.core.jit import PARALLEL_MIN_BATCH, parallel_section
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import State

from ..base import GameBoundAgent, GameView, game_view
from .board import BOARD
from .kernels import SCRATCH_CHUNKS, decide_parallel, decide_serial, play_parallel, play_serial
from .plans import PLAN
from .weights import weights as weights_array


class Scratch:
    """The compiled heuristic's scratch records (one pair per chunk of a batch, see ``kernels``), reused."""

    def __init__(self) -> None:
        self.boards = np.zeros(SCRATCH_CHUNKS, BOARD)
        self.plans = np.zeros(SCRATCH_CHUNKS, PLAN)

    def get(self, rows: int) -> tuple[np.ndarray, np.ndarray]:
        k = max(1, min(rows, SCRATCH_CHUNKS))
        return self.boards[:k], self.plans[:k]


class HeuristicAgent(GameBoundAgent):
    """Strong rule-based team play (see the module docstring). It keeps no state between decisions (each one is
    planned from the public State alone) and draws no random numbers: ``seed`` is accepted for the common agent
    signature. ``weights`` override the planner's (names in ``agents.heuristic.weights.DEFAULTS``, AP units), for
    experiments; ``threads``: None uses numba's thread pool for batches of 64 rows or more, 1 never."""


    # Annihilation: deliver the bombs, then go out; Extraction: leapers avoided like horrors, the sanctuary safe,
    # biosamples taken from unconscious teammates and carried out
    # Investigation: the simple items used when they help (agents/heuristic/items.py)
    scenarios = ("base", "annihilation", "extraction", "investigation")

    def __init__(self, source: Any, slot: int | None = None, seed: int = 0, threads: int | None = None,
                 **weights: float):
        self.view: GameView = game_view(source, slot)
        self.seed = seed
        self.threads = threads
        self.weights = weights_array(**weights)
        self._scratch = Scratch()

    # ------------------------------------------------------------------ compiled calls
    def decide(self, core: Core, st: State, games: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The actions for games ``games`` of ``st`` (rows of ``masks``: their legal masks), in one call."""
        games = np.ascontiguousarray(games, dtype=np.int64)
        if len(games) and (games.min() < 0 or games.max() >= st.batch_size):
            raise IndexError(f"games {games} out of range 0..{st.batch_size - 1}")
        masks = np.ascontiguousarray(masks, dtype=np.bool_)
        if masks.shape != (len(games), core.num_actions):
            raise ValueError(f"masks must have shape ({len(games)}, {core.num_actions}), got {masks.shape}")
        out = np.empty(len(games), dtype=np.int64)
        boards, plans = self._scratch.get(len(games))
        if len(games) >= PARALLEL_MIN_BATCH and self.threads != 1:
            with parallel_section(self.threads):
                decide_parallel(st.packed, core.params, self.weights, games, masks, boards, plans, out)
        else:
            decide_serial(st.packed, core.params, self.weights, games, masks, boards, plans, out)
        return out

    def play(self, core: Core, st: State, max_steps: int = 1 << 30, max_round: int = 1 << 30) -> np.ndarray:
        """Every seat of every game of ``st`` played by this heuristic, in place, until the game ends, after
        ``max_steps`` decisions, or once the round passes ``max_round``; returns the decisions taken per game."""
        taken = np.zeros(st.batch_size, dtype=np.int64)
        boards, plans = self._scratch.get(st.batch_size)
        if st.batch_size >= PARALLEL_MIN_BATCH and self.threads != 1:
            with parallel_section(self.threads):
                play_parallel(st.packed, core.params, self.weights, boards, plans, max_steps, max_round, taken)
        else:
            play_serial(st.packed, core.params, self.weights, boards, plans, max_steps, max_round, taken)
        return taken
