"""The heuristic's next decisions on a scenario map, for tests that check what it plays (each one is played)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from agents import HeuristicAgent
from subterra_env import scenario
from subterra_env.config import GameConfig
from subterra_env.games.sub_terra.core.actions import ACTION_NAMES
from subterra_env.games.sub_terra.core.rules import Core


def heuristic_decisions(cfg: GameConfig, text: str, n: int = 1) -> list[str]:
    """The names of the heuristic's next ``n`` actions on the map ``text`` built under ``cfg``."""
    core = Core(cfg)
    st = scenario.build(text, core=core)
    agent = HeuristicAgent(SimpleNamespace(core=core, state=st))
    out = []
    for _ in range(n):
        a = agent.act(None, core.legal_mask(st)[0])
        out.append(ACTION_NAMES[a])
        core.step(st, np.array([a]))
    return out
