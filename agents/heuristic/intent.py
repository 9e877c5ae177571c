"""What the heuristic means to do, in one short line for a person at the table ("to the exit, 3 tiles", "bandaging
the Medic", "exploring south", "hiding from the horror").

The line is read from the heuristic's own plan: ``heuristic_intent`` runs the same compiled decision as
``HeuristicAgent`` (``kernels.decide_serial``, the same weights) on its own scratch records, then reads the plan
record it left (``plans.PLAN``: the goal tile of a "goto" plan, the paths from where the caver stands). Nothing here
changes a decision: the agent's code is untouched and its action is returned beside the words, so a caller can
check that it is the action the bot played.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from subterra_env.config import CAVER_NAMES
from subterra_env.games.sub_terra.core import actions as A
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import State

from .agent import Scratch
from .kernels import decide_serial
from .weights import weights as weights_array

DIRS = ("north", "east", "south", "west")
MOVES = {A.K_MOVE, A.K_RUN, A.K_STEP, A.K_STOP, A.K_SWIM, A.K_SQUEEZE, A.K_SPRINT}
CLEARING = {A.K_DIG: "digging", A.K_EXCAVATE: "excavating", A.K_ROPE: "fixing a rope", A.K_GEAR: "using his gear",
            A.K_DEMOLISH: "blasting a wall"}


@dataclass(frozen=True)
class Intent:
    action: int  # the heuristic's decision (the bot's, for a heuristic seat)
    text: str  # one short line
    goal: str  # "exit", "teammate", "bomb", "explore" or "" (no plan this decision: a rotation, a pick...)


def _caver(st: State, g: int, rank: int) -> str:
    return CAVER_NAMES[rank - 1].capitalize() if 1 <= rank <= len(CAVER_NAMES) else f"caver {rank}"


def _steps(pu: np.ndarray, src: int, dst: int) -> int:
    """Tiles from src to dst along the plan's cheapest path (its predecessors), 0 when none."""
    n, t = 0, dst
    while t != src:
        if t < 0 or pu[t] < 0 or n > len(pu):
            return 0
        n, t = n + 1, int(pu[t])
    return n


class IntentReader:
    """Reads the heuristic's plan for the acting caver of a game (scratch records of its own: any bot's stay as
    they are)."""

    def __init__(self, **weights: float):
        self.weights = weights_array(**weights)
        self.scratch = Scratch()

    def __call__(self, core: Core, st: State, mask: np.ndarray, g: int = 0) -> Intent:
        boards, plans = self.scratch.get(1)
        plans["s"][0] = -1  # set by the plan when this decision makes one
        out = np.empty(1, dtype=np.int64)
        decide_serial(st.packed, core.params, self.weights, np.array([g], dtype=np.int64),
                      np.ascontiguousarray(mask[None, :], dtype=np.bool_), boards, plans, out)
        return describe(st, g, int(out[0]), plans[0])


def describe(st: State, g: int, action: int, plan: np.void) -> Intent:
    """The words for ``action`` of the acting caver, with its plan record when the decision made one."""
    kind, arg = int(A.ACTION_KIND[action]), int(A.ACTION_ARG[action])
    s = int(st.actor[g])
    here = int(st.c_tile[g, s]) if s >= 0 else -1
    exit_tile = int(st.exit_tile[g])
    planned = int(plan["s"]) == s and s >= 0
    target = int(plan["target"]) if planned and bool(plan["goto"]) else -1
    goal = ""
    if target >= 0:
        knocked = [r for r in range(st.num_seats) if int(st.c_tile[g, r]) == target and int(st.c_hp[g, r]) == 0
                   and not st.c_dead[g, r] and r != s]
        goal = "exit" if target == exit_tile else "teammate" if knocked else "bomb"
    elif planned:
        goal = "explore"
    d = DIRS[arg] if 0 <= arg < 4 else ""
    if kind == A.K_BANDAGE:
        return Intent(action, f"bandaging the {_caver(st, g, arg)}", goal)
    if kind == A.K_HEAL:
        who = "himself" if arg == int(st.c_rank[g, s]) else f"the {_caver(st, g, arg)}"
        return Intent(action, f"healing {who}", goal)
    if kind == A.K_HIDE:
        return Intent(action, "hiding from the horror", goal)
    if kind == A.K_REPEL:
        return Intent(action, f"repelling the horror {d}".strip(), goal)
    if kind == A.K_DIRECT:
        return Intent(action, f"directing the {_caver(st, g, arg)}", goal)
    if kind in (A.K_REVEAL, A.K_EXPLORE):
        return Intent(action, f"exploring {d}".strip(), goal or "explore")
    if kind in (A.K_ROTATE, A.K_REDRAW, A.K_PICK):
        return Intent(action, "placing the new tile", goal)
    if kind == A.K_EXERT:
        return Intent(action, "exerting for one more action", goal)
    if kind == A.K_PLACE_BOMB:
        return Intent(action, "placing a bomb", goal)
    if kind in (A.K_GIVE, A.K_TAKE):
        verb = "handing a card to" if kind == A.K_GIVE else "taking the card of"
        return Intent(action, f"{verb} the {_caver(st, g, arg)}", goal)
    if kind == A.K_END:
        if here >= 0 and here == exit_tile:
            return Intent(action, "safe on the exit", goal)
        return Intent(action, "ending the turn", goal)
    if kind in (A.K_DIVE, A.K_SURFACE):
        return Intent(action, "diving toward the exit" if goal == "exit" else "diving", goal)
    if kind in CLEARING:
        return Intent(action, f"{CLEARING[kind]} to clear the way", goal)
    if kind in MOVES:
        n = _steps(plan["pu"], here, target) if target >= 0 else 0
        far = f", {n} tile{'s' if n != 1 else ''}" if n else ""
        if goal == "exit":
            return Intent(action, f"to the exit{far}", goal)
        if goal == "teammate":
            knocked = [r for r in range(st.num_seats) if int(st.c_tile[g, r]) == target and r != s]
            who = _caver(st, g, int(st.c_rank[g, knocked[0]])) if knocked else "a teammate"
            return Intent(action, f"going to revive the {who}{far}", goal)
        if goal == "bomb":
            return Intent(action, f"carrying a bomb to its tile{far}", goal)
        return Intent(action, f"exploring {d}".strip() if d else "walking to the unexplored cave", goal or "explore")
    return Intent(action, A.ACTION_NAMES[action], goal)


_LOCAL = threading.local()  # one reader per thread: tables' bots think in worker threads at the same time


def reader() -> IntentReader:
    """This thread's reader (its scratch holds the plan of the last ``heuristic_intent`` call in this thread)."""
    if not hasattr(_LOCAL, "reader"):
        _LOCAL.reader = IntentReader()
    return _LOCAL.reader


def heuristic_intent(core: Core, st: State, mask: np.ndarray, g: int = 0) -> Intent:
    """The heuristic's decision for game ``g`` of ``st`` (legal ``mask``) and what it means to do, in words."""
    return reader()(core, st, mask, g)


__all__ = ["Intent", "IntentReader", "describe", "heuristic_intent", "reader"]
