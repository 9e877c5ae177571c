"""Team specs and the agents they name, shared by evaluation (``training/evaluate.py``) and the dataset builder
(``subterra dataset build``).

A team spec is a comma list of entries, one per seat (seat i plays entry ``i mod len``): ``random`` (uniform legal
play, batch-invariant), ``heuristic``, ``search``, ``search:WORLDS``, ``ceiling`` (the clairvoyant search, a
diagnostic), ``policy:PATH`` (a MaskablePPO checkpoint), ``rllib:PATH``, ``torchrl:PATH``; from Python also agent
objects. ``parse_team`` checks a spec, ``AgentCache.build`` makes the agents (policies loaded once per path) and
``seat_groups`` gives each distinct agent the seats it plays; agents bound to their games read them through a
``GamesHolder`` (or any object with ``.core``, ``.state`` and ``.seeds``, such as ``subterra_env.episode.Episodes``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any, NamedTuple, Sequence

import numpy as np

from subterra_env.games.sub_terra.core import rng
from subterra_env.games.sub_terra.core.observe import observe
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import State
from subterra_env.episode import Episodes

from .random_agent import RandomAgent
from .rllib_agent import checkpoint_label, find_module_dir

DEFAULT_OBS_RADIUS = 7
RLLIB_EXTRA = ("pip install -e .[distributed] (Ray pins gymnasium 1.2.2; the Makefile keeps it in its own venv: "
               "make test-rllib creates .venv-rllib, then use .venv-rllib/bin/python)")


class TeamError(ValueError):
    """A bad team spec or an agent that cannot be built (unknown entry, missing or corrupt checkpoint, missing
    extra); the message names the culprit."""


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
        raise TeamError("empty team spec")
    for e in entries:
        if not isinstance(e, str):
            if not hasattr(e, "act_batch"):
                raise TeamError(f"team entry {e!r} is not an agent (no act_batch)")
            continue
        if e in ("random", "heuristic", "search", "ceiling"):
            continue
        if e.startswith("search:"):
            worlds = e[len("search:"):]
            if not worlds.isdigit() or int(worlds) < 1:
                raise TeamError(f"team entry {e!r}: expected 'search:WORLDS' with WORLDS a whole number >= 1")
            continue
        if e.startswith("policy:"):
            path = Path(e[len("policy:"):])
            if not path.is_file():
                raise TeamError(f"policy checkpoint not found: {str(path)!r} (team spec {spec!r})")
            continue
        if e.startswith("rllib:"):
            check_rllib_entry(e, spec)
            continue
        if e.startswith("torchrl:"):
            path = Path(e[len("torchrl:"):])
            if not path.is_file():
                raise TeamError(f"TorchRL policy not found: {str(path)!r} (team spec {spec!r}); expected the "
                                "policy.pt of training/train_torchrl.py")
            continue
        raise TeamError(f"unknown team entry {e!r} in {spec!r}: expected 'random', 'heuristic', 'search', "
                        "'search:WORLDS', 'ceiling', 'policy:PATH', 'rllib:PATH', 'torchrl:PATH' or a comma list "
                        "of these")
    return entries


def check_rllib_entry(entry: str, spec: Any) -> None:
    """An 'rllib:PATH' entry names an RLlib checkpoint and Ray is installed (checked without importing Ray)."""
    path = entry[len("rllib:"):]
    try:
        find_module_dir(path)
    except FileNotFoundError:
        raise TeamError(f"RLlib checkpoint not found: {path!r} (team spec {spec!r}); expected RUN/final or "
                        "RUN/checkpoints/iter_N of training/train_rllib.py") from None
    except ValueError as err:
        raise TeamError(f"team spec {spec!r}: {err}") from None
    try:
        has_ray = importlib.util.find_spec("ray") is not None
    except (ImportError, ValueError):
        has_ray = False
    if not has_ray:
        raise TeamError(f"team entry {entry!r} needs Ray RLlib, which is not installed for {sys.executable}: "
                        f"{RLLIB_EXTRA}")


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
                raise TeamError(f"team entry 'heuristic': agents.heuristic is not available ({e})") from e
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
                raise TeamError(f"team entry {entry!r}: agents.policy_agent is not available ({e})") from e
            try:
                self.policies[path] = load_policy(path, deterministic=self.deterministic, seed=self.seed)
            except Exception as e:  # a corrupt or incompatible checkpoint: name it
                raise TeamError(f"cannot load policy checkpoint {path!r}: {type(e).__name__}: {e}") from e
        agent = self.policies[path]
        return agent.bind(games) if getattr(agent, "advised", False) else agent  # advised: reads the heuristic's advice

    def _torchrl(self, entry: str) -> Any:
        if entry not in self.policies:
            path = entry[len("torchrl:"):]
            try:
                from agents.torchrl_agent import TorchRLAgent

                self.policies[entry] = TorchRLAgent(path, deterministic=self.deterministic, seed=self.seed)
            except ImportError as e:
                raise TeamError(f"team entry {entry!r}: agents.torchrl_agent needs torch ({e})") from e
            except (OSError, ValueError, KeyError, RuntimeError) as e:  # a corrupt or foreign checkpoint: name it
                raise TeamError(f"cannot load TorchRL policy {path!r}: {type(e).__name__}: {e}") from e
        return self.policies[entry]

    def _rllib(self, entry: str) -> Any:
        if entry not in self.policies:  # keyed by the whole entry: 'rllib:X' and 'policy:X' differ
            path = entry[len("rllib:"):]
            check_rllib_entry(entry, entry)
            try:
                from agents.rllib_agent import RLlibAgent

                self.policies[entry] = RLlibAgent(path, deterministic=self.deterministic, seed=self.seed)
            except ImportError as e:
                raise TeamError(f"team entry {entry!r}: cannot import Ray RLlib ({e}): {RLLIB_EXTRA}") from e
            except Exception as e:  # a corrupt or incompatible checkpoint: name it
                raise TeamError(f"cannot load RLlib checkpoint {path!r}: {type(e).__name__}: {e}") from e
        return self.policies[entry]


def needs_observation(agent: Any) -> bool:
    flag = getattr(agent, "needs_observation", None)
    if flag is not None:
        return bool(flag)
    if isinstance(agent, RandomAgent):
        return False
    return True


def observations(core: Core, st: State, idx: np.ndarray, radius: int) -> dict[str, np.ndarray]:
    # the games' rows observed in place: a State of them (``st.take``) costs more than observing them
    grid, scalars = observe(core.cat, st, np.maximum(st.actor[idx], 0), radius, rows=idx)
    return {"observation": grid, "scalars": scalars}


class SeatGroup(NamedTuple):
    """One distinct agent of a team, the seats it plays (seat numbers, seating order) and its label."""

    agent: Any
    seats: np.ndarray
    label: str


def check_team_size(entries: Sequence[Any], spec: Any, num_seats: int) -> None:
    """TeamError unless the team has at most one entry per seat (seat i plays entry ``i mod len``)."""
    if len(entries) > num_seats:
        raise TeamError(f"team {spec!r} has {len(entries)} entries but the game has {num_seats} seats")


def seat_groups(entries: Sequence[Any], cache: AgentCache, games: Any, num_seats: int) -> list[SeatGroup]:
    """Build the team's agents (``cache.build``, bound to ``games``) and give each distinct one its seats: seat i
    plays entry ``i mod len(entries)``, and equal specs are one agent ('random,random' plays as 'random'). A
    game-bound agent that does not know the game's scenario is a TeamError naming both."""
    first: dict[Any, Any] = {}
    for i, e in enumerate(entries):
        key = e if isinstance(e, str) else id(e)
        if key not in first:
            first[key] = cache.build(e, games, salt=i)
    built = [first[e if isinstance(e, str) else id(e)] for e in entries]
    seat_agent = [built[s % len(entries)] for s in range(num_seats)]
    unique = list({id(a): a for a in seat_agent}.values())
    groups = [SeatGroup(a, np.array([s for s in range(num_seats) if seat_agent[s] is a]),
                        entry_label(entries[seat_agent.index(a) % len(entries)])) for a in unique]
    scenario = games.core.cfg.scenario
    for group in groups:
        plays = getattr(group.agent, "plays", None)
        if plays is not None and not plays(scenario):
            raise TeamError(f"team entry {group.label!r} cannot play the scenario {scenario!r} (it plays "
                            f"{', '.join(group.agent.scenarios)})")
    return groups
