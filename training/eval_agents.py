"""Agents and team specs for training/evaluate.py: parsing 'random' / 'heuristic' / 'search' / 'search:WORLDS' /
'ceiling' / 'policy:PATH' / 'rllib:PATH' / 'torchrl:PATH' entries, building them once per evaluation (policies cached by path), the batch-invariant random player,
observations."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from agents.random_agent import RandomAgent
from agents.rllib_agent import checkpoint_label, find_module_dir
from subterra_env.core import rng
from subterra_env.core.observe import observe
from subterra_env.core.rules import Core
from subterra_env.episode import Episodes
from subterra_env.core.state import State

DEFAULT_OBS_RADIUS = 7
RLLIB_EXTRA = ("pip install -e .[distributed] (Ray pins gymnasium 1.2.2; the Makefile keeps it in its own venv: "
               "make test-rllib creates .venv-rllib, then use .venv-rllib/bin/python)")


class EvalError(ValueError):
    """Bad evaluation input (team spec, checkpoint, config); the message names the culprit."""


class SeededRandomAgent:
    """Uniform legal play whose draw for a decision depends only on (game seed, decisions taken, salt), so every
    game plays the same alone or in any batch. Bound to an object with ``.state`` and ``.seeds`` (the seed of
    each game of that batch)."""

    needs_observation = False

    def __init__(self, games: Any, salt: int = 0):
        self.games, self.salt = games, int(salt)
        self._fallback = np.random.default_rng(salt)

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        return int(self._fallback.choice(np.flatnonzero(action_mask)))

    def act_batch(self, observations: Any, action_masks: np.ndarray, games: np.ndarray | None = None) -> np.ndarray:
        masks = np.asarray(action_masks, dtype=bool)
        st = self.games.state
        games = np.arange(st.batch_size) if games is None else np.asarray(games)
        keys = rng.mix(rng.seed_keys(self.games.seeds[games]) ^ np.uint64(0xE7A1 + self.salt))
        draw = rng.stream(keys, st.steps[games].astype(np.uint64), 1)[:, 0]
        n = masks.sum(1)
        if not n.all():
            raise ValueError(f"row {int(np.argmin(n))} of action_masks has no legal action")
        k = (draw % n.astype(np.uint64)).astype(np.int64)
        return (np.cumsum(masks, axis=1) > k[:, None]).argmax(axis=1)


class GamesHolder:
    """What game-bound agents read: the Core, the State of the current batch and its games' seeds (the source
    given to ``HeuristicAgent(source)``; ``agents.base.game_view`` accepts any object with .core and .state).
    Evaluation plays its batches as ``subterra_env.episode.Episodes`` (``episodes``); this follows the current
    one, so agents bound once see every batch."""

    def __init__(self, core: Core):
        self.core = core
        self.episodes: Episodes | None = None

    @property
    def state(self) -> State | None:
        return None if self.episodes is None else self.episodes.state

    @property
    def seeds(self) -> np.ndarray:
        return np.zeros(0, dtype=np.int64) if self.episodes is None else self.episodes.seeds


def parse_team(spec: str | Sequence[Any]) -> list[Any]:
    """Validate a team spec: a list of entries ('random', 'heuristic', 'policy:PATH', 'rllib:PATH' or agent objects)."""
    if isinstance(spec, str):
        entries: list[Any] = [e.strip() for e in spec.split(",")]
    else:
        entries = list(spec)
    if not entries:
        raise EvalError("empty team spec")
    for e in entries:
        if not isinstance(e, str):
            if not hasattr(e, "act_batch"):
                raise EvalError(f"team entry {e!r} is not an agent (no act_batch)")
            continue
        if e in ("random", "heuristic", "search", "ceiling"):
            continue
        if e.startswith("search:"):
            worlds = e[len("search:"):]
            if not worlds.isdigit() or int(worlds) < 1:
                raise EvalError(f"team entry {e!r}: expected 'search:WORLDS' with WORLDS a whole number >= 1")
            continue
        if e.startswith("policy:"):
            path = Path(e[len("policy:"):])
            if not path.is_file():
                raise EvalError(f"policy checkpoint not found: {str(path)!r} (team spec {spec!r})")
            continue
        if e.startswith("rllib:"):
            check_rllib_entry(e, spec)
            continue
        if e.startswith("torchrl:"):
            path = Path(e[len("torchrl:"):])
            if not path.is_file():
                raise EvalError(f"TorchRL policy not found: {str(path)!r} (team spec {spec!r}); expected the "
                                "policy.pt of training/train_torchrl.py")
            continue
        raise EvalError(f"unknown team entry {e!r} in {spec!r}: expected 'random', 'heuristic', 'search', "
                        "'search:WORLDS', 'ceiling', 'policy:PATH', 'rllib:PATH', 'torchrl:PATH' or a comma list "
                        "of these")
    return entries


def check_rllib_entry(entry: str, spec: Any) -> None:
    """An 'rllib:PATH' entry names an RLlib checkpoint and Ray is installed (checked without importing Ray)."""
    path = entry[len("rllib:"):]
    try:
        find_module_dir(path)
    except FileNotFoundError:
        raise EvalError(f"RLlib checkpoint not found: {path!r} (team spec {spec!r}); expected RUN/final or "
                        "RUN/checkpoints/iter_N of training/train_rllib.py") from None
    except ValueError as err:
        raise EvalError(f"team spec {spec!r}: {err}") from None
    try:
        has_ray = importlib.util.find_spec("ray") is not None
    except (ImportError, ValueError):
        has_ray = False
    if not has_ray:
        raise EvalError(f"team entry {entry!r} needs Ray RLlib, which is not installed for {sys.executable}: "
                        f"{RLLIB_EXTRA}")


def as_entry(e: Any) -> Any:
    """A cross-play or partner-matrix entry: agents, 'kind:ARG' specs and every name parse_team accepts
    ('random', 'heuristic', and any name added there later) as they are; a bare path (an existing file or
    directory, or a name with a '/' or ending in '.zip') is 'rllib:PATH' for a directory (an RLlib checkpoint),
    else 'policy:PATH'; anything else is kept, for parse_team to name as unknown."""
    if not isinstance(e, str) or re.match(r"[A-Za-z_]\w*:", e):
        return e
    try:
        parse_team([e])
        return e
    except EvalError:
        pass
    if Path(e).exists() or "/" in e or e.endswith(".zip"):
        return f"rllib:{e}" if Path(e).is_dir() else f"policy:{e}"
    return e


def entry_label(entry: Any) -> str:
    if isinstance(entry, str):
        if entry.startswith("rllib:"):
            return f"rllib:{checkpoint_label(entry[len('rllib:'):])}"
        if entry.startswith("torchrl:"):
            path = Path(entry[len("torchrl:"):])
            return f"torchrl:{path.parent.name}/{path.stem}"
        return f"policy:{Path(entry[7:]).stem}" if entry.startswith("policy:") else entry
    return str(getattr(entry, "label", None) or type(entry).__name__)


def team_label(entries: Sequence[Any]) -> str:
    """The entries as given, policies by file stem, RLlib checkpoints by run and checkpoint name: 'heuristic',
    'policy:team,heuristic', 'rllib:rllib_tiny/final'."""
    return ",".join(entry_label(e) for e in entries)


class AgentCache:
    """Loaded policies (MaskablePPO and RLlib) by path, shared across evaluations (cross-play loads each
    checkpoint once)."""

    def __init__(self, deterministic: bool = True, seed: int = 0):
        self.deterministic, self.seed = deterministic, seed
        self.policies: dict[str, Any] = {}

    def build(self, entry: Any, games: GamesHolder, salt: int) -> Any:
        if not isinstance(entry, str):
            return entry
        if entry == "random":
            return SeededRandomAgent(games, salt)
        if entry == "heuristic":
            try:
                from agents.heuristic import HeuristicAgent
            except ImportError as e:
                raise EvalError(f"team entry 'heuristic': agents.heuristic is not available ({e})") from e
            return HeuristicAgent(games, seed=self.seed)
        if entry == "search" or entry.startswith("search:") or entry == "ceiling":
            from agents.search import SearchAgent

            worlds = int(entry[len("search:"):]) if entry.startswith("search:") else None  # None: the default
            return SearchAgent(games, seed=self.seed + salt, worlds=worlds, clairvoyant=entry == "ceiling")
        if entry.startswith("rllib:"):
            return self._rllib(entry)
        if entry.startswith("torchrl:"):
            return self._torchrl(entry)
        path = entry[len("policy:"):]
        if path not in self.policies:
            try:
                from agents.policy_agent import load_policy
            except ImportError as e:
                raise EvalError(f"team entry {entry!r}: agents.policy_agent is not available ({e})") from e
            try:
                self.policies[path] = load_policy(path, deterministic=self.deterministic, seed=self.seed)
            except Exception as e:  # a corrupt or incompatible checkpoint: name it
                raise EvalError(f"cannot load policy checkpoint {path!r}: {type(e).__name__}: {e}") from e
        agent = self.policies[path]
        return agent.bind(games) if getattr(agent, "advised", False) else agent  # advised: reads the heuristic's advice

    def _torchrl(self, entry: str) -> Any:
        if entry not in self.policies:
            path = entry[len("torchrl:"):]
            try:
                from agents.torchrl_agent import TorchRLAgent

                self.policies[entry] = TorchRLAgent(path, deterministic=self.deterministic, seed=self.seed)
            except ImportError as e:
                raise EvalError(f"team entry {entry!r}: agents.torchrl_agent needs torch ({e})") from e
            except (OSError, ValueError, KeyError, RuntimeError) as e:  # a corrupt or foreign checkpoint: name it
                raise EvalError(f"cannot load TorchRL policy {path!r}: {type(e).__name__}: {e}") from e
        return self.policies[entry]

    def _rllib(self, entry: str) -> Any:
        if entry not in self.policies:  # keyed by the whole entry: 'rllib:X' and 'policy:X' differ
            path = entry[len("rllib:"):]
            check_rllib_entry(entry, entry)
            try:
                from agents.rllib_agent import RLlibAgent

                self.policies[entry] = RLlibAgent(path, deterministic=self.deterministic, seed=self.seed)
            except ImportError as e:
                raise EvalError(f"team entry {entry!r}: cannot import Ray RLlib ({e}): {RLLIB_EXTRA}") from e
            except Exception as e:  # a corrupt or incompatible checkpoint: name it
                raise EvalError(f"cannot load RLlib checkpoint {path!r}: {type(e).__name__}: {e}") from e
        return self.policies[entry]


def needs_observation(agent: Any) -> bool:
    flag = getattr(agent, "needs_observation", None)
    if flag is not None:
        return bool(flag)
    if isinstance(agent, RandomAgent):
        return False
    return True


def observations(core: Core, st: State, idx: np.ndarray, radius: int) -> dict[str, np.ndarray]:
    sub = st.take(idx)
    grid, scalars = observe(core.cat, sub, np.maximum(sub.actor, 0), radius)
    return {"observation": grid, "scalars": scalars}
