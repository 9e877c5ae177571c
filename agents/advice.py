"""The heuristic's advice as an observation: what the compiled heuristic team would play, one-hot over the actions.

A trained policy that reads the advice is a *residual* policy (``agents.advised_policy.AdvisedPolicy``): its
logits are ``network(observation) + advice_scale * advice``, so it starts as the heuristic team it was built on
and training only has to learn where to depart from it. The advice is public information (the heuristic reads
only the public board; ``tests/test_heuristic.py`` checks that permuting the hidden orders never changes it), so a
policy that reads it still plays from what its caver may know.

    venv = AdviceVecEnv(SubterraVecEnv(32, config, seed=0))   # agents.advice_vec_env: obs gains "advice"
    obs = venv.reset(); obs["advice"].argmax(1)               # the heuristic's choice in every slot

Anything that plays an advised checkpoint outside a vector env (evaluate.py, ``subterra play``) binds the
``PolicyAgent`` to its games, which computes the same advice (``advice_onehot``) from the bound State.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from subterra_env.games.sub_terra.core.actions import NUM_ACTIONS
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import State

ADVICE_KEY = "advice"
ADVICE_SPACE = gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)


def advice_onehot(advisor: Any, core: Core, st: State, games: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """(len(games), A) int8: 1 at the action ``advisor`` (a ``HeuristicAgent``) decides for each game."""
    out = np.zeros((len(games), NUM_ACTIONS), dtype=np.int8)
    if len(games):
        out[np.arange(len(games)), advisor.decide(core, st, np.asarray(games), masks)] = 1
    return out


def with_advice_space(space: gymnasium.spaces.Dict) -> gymnasium.spaces.Dict:
    """The observation space plus the advice key."""
    return gymnasium.spaces.Dict({**space.spaces, ADVICE_KEY: ADVICE_SPACE})


class AdvisedAgentMixin:
    """What a policy agent (``PolicyAgent``, ``OnnxPolicyAgent``) needs to play a checkpoint trained on the advice:
    ``advised`` (set by the agent from its checkpoint), ``bind(source)`` and the advice of the rows' games."""

    advised: bool = False
    advisor: Any = None  # the bound HeuristicAgent of an advised checkpoint
    path: Any = None

    def bind(self, source: Any, slot: int | None = None) -> Any:
        """This agent bound to the games of ``source`` (an AEC env, a vector env, evaluate.py's games holder): a
        shallow copy sharing the loaded network, which computes the heuristic's advice from those games. A
        checkpoint without advice needs no binding; binding it is harmless."""
        import copy

        from .heuristic import HeuristicAgent

        bound = copy.copy(self)
        rng = getattr(self, "rng", None)
        if rng is not None:  # its own sampling stream, so two bound copies do not share draws
            bound.rng = np.random.default_rng(rng.integers(1 << 63))
        bound.advisor = HeuristicAgent(source, slot=slot) if self.advised else None
        return bound

    def bound_games(self) -> np.ndarray | None:
        """For ``act``: the bound game's index (None when unbound)."""
        return None if self.advisor is None else np.array([self.advisor.view.game])

    def advice(self, masks: np.ndarray, games: np.ndarray | None) -> np.ndarray:
        """(rows, A) one-hot of the heuristic's choice in each row's game (``games``: indices into the bound batch,
        None: every game of it in order)."""
        if self.advisor is None:
            raise ValueError(f"{self.path} was trained with the heuristic's advice (agents.advised_policy): bind "
                             "the agent to its games first, PolicyAgent(path).bind(env)")
        view = self.advisor.view
        games = np.arange(len(masks)) if games is None else np.asarray(games)
        if len(games) != len(masks):
            raise ValueError(f"{len(masks)} mask rows but {len(games)} games")
        return advice_onehot(self.advisor, view.core, view.state, games, masks)
