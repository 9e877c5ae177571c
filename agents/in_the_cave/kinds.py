"""In the Cave agent kinds with one signature, ``(record, params, seat, mask) -> action``, and their specs.

    kind = parse_kind("policy:runs/itc_dagger/model.zip")   # or "random", "heuristic"
    agent = kind.make(seed)                                   # a fresh agent for one side of one game
    a = agent(G[0], core.P, seat, core.masks(G)[0])           # a legal action of the game record G[0]

Kinds (``KINDS``): ``random`` (uniform among the legal actions, its own stream seeded by ``make``), ``heuristic``
(``heuristic_action``: deterministic, public information only) and ``policy:PATH`` (a MaskablePPO checkpoint of
``training/train_itc_ppo.py``, played greedily with the mask applied: the legal action of highest logit, from the
learners' flat input ``subterra_env.games.in_the_cave.observe.flat`` with the radius its observation size implies). The
policy kind needs the ``train`` extra (torch, sb3-contrib); its checkpoint is loaded once per kind. A spec may
name its kind for reports: ``LABEL=KIND`` (e.g. ``dagger=policy:runs/itc_dagger/model.zip``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from subterra_env.games.in_the_cave.core.actions import NUM_ACTIONS
from subterra_env.games.in_the_cave.observe import LEARNER_RADIUS, flat, flat_radius, flat_size

from ..policy_agent import load_maskable_ppo
from .heuristic import heuristic_action

Agent = Callable[[np.ndarray, np.ndarray, int, np.ndarray], int]  # (record, params, seat, mask) -> action


class SpecError(ValueError):
    """An agent spec that names no known kind, or a kind with a missing or unexpected argument."""


class RandomPlayer:
    """Uniform among the legal actions of ``mask``, from its own seeded stream."""

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def __call__(self, g: np.ndarray, P: np.ndarray, seat: int, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("mask has no legal action")
        return int(self.rng.choice(legal))


def heuristic_player(g: np.ndarray, P: np.ndarray, seat: int, mask: np.ndarray) -> int:
    """``heuristic_action`` (the deciding seat is the record's actor)."""
    return heuristic_action(g, P, mask)


class PolicyPlayer:
    """A MaskablePPO checkpoint (``training/train_itc_ppo.py``'s ``model.zip``) played greedily: the legal action of
    highest logit, from ``flat(g, P, seat, radius)``, the radius read from the checkpoint's observation size."""

    def __init__(self, path: str | Path, device: str = "cpu", torch_threads: int | None = 1):
        """``torch_threads``: torch's CPU thread count, set for the whole process at load (None: leave it; one
        thread is fastest for this small network on a busy machine, as for Sub Terra's ``PolicyAgent``)."""
        path = Path(path)
        model = load_maskable_ppo(path, "training/train_itc_ppo.py writes OUT/model.zip", device, torch_threads)
        self.radius = check_spaces(model.observation_space, model.action_space, path)
        self.path = path
        self.policy = model.policy
        self.policy.set_training_mode(False)

    def logits(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            obs, _ = self.policy.obs_to_tensor(x)
            dist = self.policy.get_distribution(obs, action_masks=mask.astype(bool)[None])
            return dist.distribution.logits.cpu().numpy()[0]

    def __call__(self, g: np.ndarray, P: np.ndarray, seat: int, mask: np.ndarray) -> int:
        legal = mask.astype(bool)
        if not legal.any():
            raise ValueError("mask has no legal action")
        scores = self.logits(flat(g, P, seat, self.radius), legal).astype(np.float64)
        return int(np.where(legal, scores, -np.inf).argmax())


def check_spaces(observation_space: Any, action_space: Any, path: Path | str = "checkpoint") -> int:
    """The flat input's radius of a checkpoint's spaces; ValueError unless the observation is a flat float32 Box of
    some ``flat_size(radius)`` and the actions are In the Cave's ``NUM_ACTIONS``."""
    shape = getattr(observation_space, "shape", None)
    radius = flat_radius(shape[0]) if shape is not None and len(shape) == 1 else None
    if radius is None or getattr(observation_space, "dtype", None) != np.float32:
        raise ValueError(f"{path}: observation size does not match: its observation space is {observation_space}, "
                         f"In the Cave's flat input (subterra_env.games.in_the_cave.observe.flat) is float32 of "
                         f"flat_size(radius) values ({flat_size(LEARNER_RADIUS)} at the learners' radius "
                         f"{LEARNER_RADIUS}): trained on another observation or another game")
    if getattr(action_space, "n", None) != NUM_ACTIONS:
        raise ValueError(f"{path}: its action space {action_space} is not In the Cave's Discrete({NUM_ACTIONS})")
    return radius


@dataclass(frozen=True)
class AgentKind:
    """A parsed spec: ``label`` names it in reports (the spec, numbered if repeated); ``make(seed)`` gives a fresh
    agent for one side of one game (the seed matters to ``random`` only); ``seeded`` says whether it does."""

    spec: str
    label: str
    make: Callable[[int], Agent]
    seeded: bool = False


def _random(arg: str | None, spec: str) -> AgentKind:
    if arg is not None:
        raise SpecError(f"agent spec {spec!r}: 'random' takes no argument (its seed comes from the game's)")
    return AgentKind(spec, spec, RandomPlayer, seeded=True)


def _heuristic(arg: str | None, spec: str) -> AgentKind:
    if arg is not None:
        raise SpecError(f"agent spec {spec!r}: 'heuristic' takes no argument")
    return AgentKind(spec, spec, lambda seed: heuristic_player)


def _policy(arg: str | None, spec: str) -> AgentKind:
    if not arg:
        raise SpecError(f"agent spec {spec!r}: 'policy' needs a checkpoint path: policy:PATH "
                        "(e.g. policy:runs/itc_dagger/model.zip)")
    player = PolicyPlayer(arg)  # loaded once; greedy, so one player serves every game and seat
    return AgentKind(spec, spec, lambda seed: player)


KINDS: dict[str, Callable[[str | None, str], AgentKind]] = {"random": _random, "heuristic": _heuristic,
                                                              "policy": _policy}
KIND_HELP = "random, heuristic or policy:PATH (a MaskablePPO .zip of training/train_itc_ppo.py)"


def parse_kind(spec: str) -> AgentKind:
    """``random``, ``heuristic`` or ``policy:PATH`` as an ``AgentKind``, optionally named: ``LABEL=KIND`` (e.g.
    ``dagger=policy:runs/itc_dagger/model.zip``; the label defaults to the spec). SpecError for an unknown kind or
    a bad argument; FileNotFoundError / ValueError from ``PolicyPlayer`` for a missing or unsuitable checkpoint."""
    spec = spec.strip()
    label, eq, rest = spec.partition("=")
    if eq and label.strip() and not any(c in label for c in ":/\\"):
        label, body = label.strip(), rest.strip()
    else:
        label, body = spec, spec
    name, sep, arg = body.partition(":")
    make = KINDS.get(name.strip().lower())
    if make is None:
        raise SpecError(f"unknown agent kind {name.strip()!r} in {spec!r}: expected {KIND_HELP}, optionally "
                        "named LABEL=KIND")
    kind = make(arg.strip() if sep else None, spec)
    return AgentKind(spec, label, kind.make, kind.seeded)


def parse_kinds(specs: list[str]) -> list[AgentKind]:
    """Every spec parsed (a policy loaded once even if repeated); a repeated label gets ``#2``, ``#3``..."""
    kinds: list[AgentKind] = []
    seen: dict[str, AgentKind] = {}
    for spec in specs:
        kind = seen.get(spec.strip()) or parse_kind(spec)
        seen[spec.strip()] = kind
        n = sum(k.label == kind.label or k.label.startswith(kind.label + "#") for k in kinds)
        kinds.append(AgentKind(kind.spec, f"{kind.label}#{n + 1}" if n else kind.label, kind.make, kind.seeded))
    return kinds
