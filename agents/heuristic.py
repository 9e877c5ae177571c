"""HeuristicAgent: a hand-written team player for Sub Terra that reads the public board.

Bind it to a game (``HeuristicAgent(env)``, a vector env, ``BatchedGames`` or any object with ``.core`` and
``.state``); then ``act(observation, action_mask)`` decides for the bound game and ``act_batch(observations,
action_masks, games)`` for rows of the bound batch. Observations are not needed (None is fine): every decision
is made from the State's public part, read afresh each time, so the agent keeps no memory between calls and
never reads the stack or deck order, the random key or scripted dice (only their counts).

How it plays (modules: ``heuristic_board`` the public board and its graph searches, ``heuristic_paths`` paths
into actions, ``heuristic_tiles`` tile decisions, ``heuristic_turn`` decision kinds and overrides,
``heuristic_plans`` whole-turn plans valued in AP):

* tiles per round win the game: while the exit is hidden every caver spends its AP revealing and exploring
  (the last draw of a turn an explore unless the new tile is likely worse to end on than where it stands),
  walking to the cheapest frontier tile when none is at hand, and exerts for one more tile while healthy;
  rotations keep open sides and link to placed tiles (short ways out); the Scout redraws horror tiles and dead
  ends (and any tile once the exit may be next), the Geologist places the better of his two tiles and keeps the
  worse aside, the Leader directs a teammate standing at the frontier when his own AP would only walk;
* health: a caver on 1 health heals himself; the Medic bandages teammates on his tile (and walks to them),
  the hurt end their turn next to him; a knocked-out teammate is revived by whoever reaches him cheapest when
  that is a few AP away (farther rescues cost more tiles than they give back);
* danger: the end of each turn is valued by the hazard cards' odds on that tile (a cave-in's 3 damage is a
  knock-out, priced as such), horrors within reach, the Bodyguard's protection once he has acted; the
  Bodyguard repels adjacent horrors, a caver a horror will reach runs or hides;
* once the exit is placed, everyone takes the cheapest AP path to it (moves, runs, the Medic's sprint, swims,
  squeezes, digs or excavations, ropes or gear, the Engineer's blasts, the Diver's dive and surfacing near it),
  exerting when that reaches the exit this turn (no damage there) or with health to spare; knocked-out
  teammates are revived on the way while there is time to bring them out; the Leader on the exit directs
  teammates onward.

Every returned action is legal: each choice is checked against the mask, with a safe legal fallback.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from subterra_env.core.actions import A_END, A_REDRAW, A_ROTATE, A_STEP, A_STOP, A_SURFACE
from subterra_env.core.state import P_PICK, P_PLACE, P_RUN, P_SURFACE

from .base import GameView, Observation, check_mask, game_view
from .heuristic_board import Board
from .heuristic_tiles import choose_pick, choose_rotation, want_redraw
from .heuristic_turn import TurnPlanner


class HeuristicAgent:
    """Strong rule-based team play (see the module docstring). It keeps no state between decisions (each one is
    planned from the public State alone) and draws no random numbers: ``seed`` is accepted for the common agent
    signature. ``weights`` override TurnPlanner's (in AP units), for experiments."""

    strict = False  # True: planning errors raise instead of falling back to a safe action (tests, debugging)

    def __init__(self, source: Any, slot: int | None = None, seed: int = 0, **weights: Any):
        self.view: GameView = game_view(source, slot)
        self.seed = seed
        self.planner = TurnPlanner(**weights)

    # ------------------------------------------------------------------ protocol
    def act(self, observation: Observation | None, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask).astype(bool)
        check_mask(mask)
        return self._decide(self.view.game, mask)

    def act_batch(self, observations: Observation | None, action_masks: np.ndarray,
                  games: np.ndarray | None = None) -> np.ndarray:
        masks = np.asarray(action_masks).astype(bool)
        rows = masks.shape[0]
        games = np.arange(rows) if games is None else np.asarray(games)
        if len(games) != rows:
            raise ValueError(f"{rows} mask rows but {len(games)} games")
        out = np.empty(rows, dtype=np.int64)
        for i in range(rows):
            check_mask(masks[i])
            out[i] = self._decide(int(games[i]), masks[i])
        return out

    # ------------------------------------------------------------------ one decision
    def _decide(self, g: int, mask: np.ndarray) -> int:
        view = self.view
        try:
            b = Board(view.core, view.state, g)
            b.ko_extra, b.haz_scale = self.planner.ko_extra, self.planner.haz_scale
            a = self._choose(b, mask)
        except Exception:  # a planning bug must never stop a game: fall back to a safe legal action
            if self.strict:
                raise
            a = -1
        if a < 0 or a >= len(mask) or not mask[a]:
            a = _fallback(mask)
        return int(a)

    def _choose(self, b: Board, mask: np.ndarray) -> int:
        p = self.planner
        if b.pend == P_PLACE:
            if mask[A_REDRAW] and want_redraw(b):
                return A_REDRAW
            return choose_rotation(b, mask)
        if b.pend == P_PICK:
            return choose_pick(b)
        if b.pend == P_RUN:
            return p.run_step(b, mask)
        if b.pend == P_SURFACE:
            return p.surface(b, mask)
        if b.directing >= 0:
            return p.directed(b, mask)
        return p.turn(b, mask)


def _fallback(mask: np.ndarray) -> int:
    """A safe legal action: end the turn, stop a run, the first rotation / step / surfacing, else anything."""
    for a in (A_END, A_STOP):
        if mask[a]:
            return a
    for lo, width in ((A_ROTATE, 4), (A_STEP, 4), (A_SURFACE, 8)):
        hits = np.flatnonzero(mask[lo:lo + width])
        if len(hits):
            return lo + int(hits[0])
    return int(check_mask(mask)[0])
