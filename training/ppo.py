"""Native PPO for the Sub Terra team: one readable file, no RL framework underneath (CleanRL's style).

    python -m training.ppo --config configs/train/ppo_tiny.yaml [--set lr=1e-3 ...] [--run-dir runs/NAME]
    python -m training.ppo --resume runs/NAME [--set total_steps=N]   # max_seconds counts the time spent before

Reads top to bottom: the settings (``Args``, one docstring each; YAML keys and ``--set`` overrides are checked, an
unknown key or an out-of-range value is an error naming it before any work starts), the seeding block, the
rollout storage, collection, advantages, the PPO update, evaluation and checkpoints, then ``main``.

The games are ``subterra_env.vector.BatchedGames`` stepped directly: each step writes the next observations and
masks straight into the rollout arrays (``step_batch(out=...)``), which torch reads without a copy on a CPU; no
Python runs per game. One policy plays every caver (parameter sharing). Consecutive decisions of one game slot may
belong to different cavers; the reward is the team's, so a slot's decisions form one stream and the advantages
are computed along it (``gae``). A truncated game bootstraps the value of its final observation; a finished one
does not. Critics: ``ippo`` (the value on the acting caver's observation, sharing the actor's body) or ``mappo``
(a centralised critic on the env's global state; ``agents.native_policy``).

Behaviour cloning (``bc_teacher``; null trains from scratch): before the first iteration the heuristic or the search
plays ``bc_decisions`` decisions of the same game (same window, rounds and reward), or a Minari dataset of this
network's window is read (``minari:ID``; another window is an error before any work), and ``training/bc.py``'s
``train_bc`` clones them: masked cross-entropy on the actor, the value regressed on the teacher's discounted returns
at this run's ``gamma`` (mappo: on the global state collected beside; a dataset has none, so there the actor alone
is cloned). ``bc.json`` holds the teacher, the decisions, each epoch's train and held-out accuracy and
cross-entropy and the seconds (counted in the run's); ``eval.jsonl`` starts with the cloned policy's evaluation at
step 0. ``bc_dagger_rounds`` adds DAgger: the clone plays, the teacher labels the states it reaches, and the
network trains on all the decisions so far, each round (bc.json's ``dagger``). ``--resume`` does not clone again:
the checkpoint holds the cloned and trained weights. ``init_from`` starts instead from another run's checkpoint of
the same network (a curriculum stage: the tiny cave's team on the small cave), with a fresh optimiser (with
``init_parts: actor``, its actor only, beside a fresh critic of this run's kind and global state);
``eval.jsonl`` then starts with its evaluation in this game at step 0. ``anchor_kl`` adds a penalty on the distance
KL(start || policy) from the policy PPO started from (the clone or ``init_from``'s), a frozen copy kept in the
checkpoints so that ``--resume`` holds the run to the same start.

``partner: heuristic`` seats the heuristic in some of the training games (``partner_games`` of them, on 1 to all
but one of the seats, drawn per game; ``training/partners.py``), ``partner: policy:A.pt,policy:B.pt,heuristic`` one
of a population of frozen teams, ``partner: past`` one of the run's own earlier policies (a frozen copy every
``partner_every`` env-steps, the last ``partner_pool`` kept, and saved in the checkpoints for ``--resume``): the
policy learns beside players unlike itself, their decisions move the games but are not trained on
(``Rollout.learn``), and ``progress.jsonl`` gives the mixed and the self-play games' cavers out apart.

``shards=2`` splits the games in two halves and steps one half's games in a worker thread while the policy picks
the other half's actions (numba releases the GIL): it pays where the engine and the network cost about the same
(a GPU with many cores), not on a 2-core CPU where both want the same cores (``docs/baselines.md`` has the
measurement).

The run directory holds ``config.yaml`` (the resolved settings), ``versions.json``, ``progress.jsonl`` (one line
per iteration: steps, env-steps/s, the time split, episode statistics, losses), ``eval.jsonl``, ``tb/``
(TensorBoard), ``checkpoints/step_*.pt``, ``last.pt`` (for ``--resume``), ``best.pt`` (best greedy evaluation),
``final.pt``, ``best.onnx`` (the browser table's format) and, after a BC stage, ``clone.pt``.
``policy:RUN/best.pt`` plays in ``training/evaluate.py``, ``subterra play`` and the browser table.
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import sys
import time
import warnings
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml

from agents.native_policy import (CRITICS, NETWORKS, ActorCritic, NativePolicyAgent, NetSpec, actor_weights,
                                  check_window, load_checkpoint, masked_log_probs, save_checkpoint)
from agents.onnx_policy import export_onnx
from subterra_env.rewards import DEFAULT_RESULT
from training import bc, partners
from training.run_files import append_jsonl, build_game, stream_seed, versions
from training.schema import SettingsError, apply_override, from_mapping, to_plain


# ----------------------------------------------------------------------------------------------------- settings
@dataclass
class Args:
    game: str = "tiny"
    """The game: a preset name (tiny, small, medium, full, ...) or a GameConfig YAML file."""
    seed: int = 0
    """Seeds the network's initialisation, the action sampling and the games (slot i of shard k: stream
    (seed + k, i))."""
    total_steps: int = field(default=10_000_000, metadata=dict(min=1))
    """Env-steps (decisions, summed over the games) to train for."""
    num_games: int = field(default=1024, metadata=dict(min=2, max=65536))
    """Games stepped together; each iteration collects ``num_games * rollout`` decisions."""
    rollout: int = field(default=32, metadata=dict(min=1, max=4096))
    """Decisions per game per iteration (the PPO horizon)."""
    shards: int = field(default=1, metadata=dict(choices=(1, 2)))
    """2: step one half of the games while the policy acts on the other (see the module docstring)."""
    network: str = field(default="ego", metadata=dict(choices=NETWORKS))
    """The actor's body: ``ego`` (flat window + scalars, two layers of ``width``), ``egowide`` (ego's 5 x 5 cells
    beside a fixed summary of the wider window: the team's health and places, the exit's, 3 x 3 regions),
    ``egothreat`` (egowide with the nearest horrors' and horror tiles' places), ``egohunt`` (egowide with each
    caver's steps to the horrors and whether one hunts it or spawns for it next) or ``cnn``
    (``agents/native_policy.py``)."""
    obs_radius: int = field(default=2, metadata=dict(min=1, max=20))
    """The observation window's radius: (2R+1)^2 cells around the acting caver (ego: 2; egowide, egothreat, egohunt:
    above 2, e.g. 7; cnn: 5 to 7)."""
    width: int = field(default=256, metadata=dict(min=8, max=4096))
    """Hidden layer width."""
    critic: str = field(default="ippo", metadata=dict(choices=CRITICS))
    """``ippo``: value head on the actor's body; ``mappo``: its own MLP over the global state."""
    state_radius: int = field(default=4, metadata=dict(min=1, max=20))
    """mappo: the global state's window radius around the start tile."""
    lr: float = field(default=3e-4, metadata=dict(min=0.0, max=1.0))
    """Adam's learning rate (annealed linearly to 0 over ``total_steps``, or over ``max_seconds`` if that budget
    runs out first, when ``anneal_lr``)."""
    anneal_lr: bool = True
    """Anneal the learning rate linearly to 0."""
    gamma: float = field(default=0.995, metadata=dict(min=0.0, max=1.0))
    """Discount per decision."""
    gae_lambda: float = field(default=0.95, metadata=dict(min=0.0, max=1.0))
    """GAE's lambda."""
    epochs: int = field(default=4, metadata=dict(min=1, max=100))
    """Passes over each rollout."""
    minibatches: int = field(default=4, metadata=dict(min=1, max=4096))
    """Minibatches per pass; must divide ``num_games * rollout``."""
    clip: float = field(default=0.2, metadata=dict(min=0.0, max=10.0))
    """PPO's clip range of the probability ratio."""
    ent_coef: float = field(default=0.01, metadata=dict(min=0.0, max=10.0))
    """Weight of the entropy bonus (over the legal actions)."""
    vf_coef: float = field(default=0.5, metadata=dict(min=0.0, max=100.0))
    """Weight of the value loss."""
    max_grad_norm: float = field(default=0.5, metadata=dict(min=0.0))
    """Gradient clipping by global norm."""
    norm_adv: bool = True
    """Normalise each minibatch's advantages to mean 0 and std 1 (CleanRL's and SB3's default). Off: the raw
    advantages. Where no game has earned a reward yet (a big cave from scratch), the advantages are the critic's
    residual noise, which normalising blows up to unit scale: the policy then moves at random and loses entropy."""
    target_kl: float = field(default=0.0, metadata=dict(min=0.0, max=10.0))
    """Stop an iteration's update at the first minibatch whose approximate KL divergence from the rollout's policy
    exceeds 1.5 x this (SB3's rule): a bound on how far one iteration moves the policy. 0: no bound."""
    max_cycles: int = field(default=60, metadata=dict(min=1))
    """Rounds after which a game is truncated."""
    reward_result: tuple[float, float, float, float] = field(default=DEFAULT_RESULT,
                                                             metadata=dict(min=-10.0, max=10.0))
    """The team reward at the end of a game by result (defeat, bronze, silver, gold), the env's ``reward_result``.
    ``[0, 0, 0, 0]`` with ``reward_escape: 0.25`` rewards cavers out, the evaluation's measure, one for one: the
    medals' scale values losing the last caver (1 out -> 0, both a defeat) at nothing."""
    reward_escape: float = field(default=0.0, metadata=dict(min=0.0, max=10.0))
    """Shaping per caver reaching the exit (a potential difference)."""
    reward_tile: float = field(default=0.0, metadata=dict(min=0.0, max=10.0))
    """Shaping per tile placed: a reward for exploring, where a bigger cave's exit is found only by placing tiles."""
    reward_health: float = field(default=0.0, metadata=dict(min=-10.0, max=10.0))
    """Shaping per health point lost, the env's ``reward_health`` (negative: a penalty, and healing earns it back):
    a price on the risks that lose a caver."""
    reward_way: float = field(default=0.0, metadata=dict(min=0.0, max=10.0))
    """Shaping per step of the way to the exit the team's cavers close, the env's ``reward_way``: each caver's steps
    to the exit, capped at 20 (``subterra_env.rewards.WAY_CAP``, also a dead caver's, everyone's before the exit
    is placed and anyone's off the exit at the end), summed over the team; it pays for placing the exit near the
    team and for the cavers gathering on it, charges a caver lost what its way was short of the cap, and over a
    game pays 20 x ``reward_way`` per caver out."""
    reward_danger: float = field(default=0.0, metadata=dict(min=-10.0, max=0.0))
    """A price per caver within a horror's reach after each step, the env's ``reward_danger`` (negative): a victim
    the horror phase moves a horror onto (the horror one step away, it the closest victim) or one on an empty horror
    tile (a horror card's spawn comes there first; ``subterra_env.rewards.horror_danger``). Paid at every decision
    while the caver stays, from the one that put it there, rounds before the horror phase or a card knocks it out.
    From scratch it teaches the team not to explore; from a team that escapes it keeps cavers off empty horror tiles
    without lifting cavers out (docs/baselines.md, 'A price on the horrors' reach')."""
    reward_knockout: float = field(default=0.0, metadata=dict(min=-10.0, max=0.0))
    """A price per caver knocked out, the env's ``reward_knockout`` (negative; a potential difference over the
    cavers unconscious or devoured, so a heal pays it back): charged on the step that knocks the caver out, where the
    way reward alone charges only a caver lost, rounds later (a step of the way onto a horror's tile pays)."""
    device: str = "cpu"
    """``cpu``, ``cuda`` or ``cuda:N``: where the network runs (the games always run on the CPU cores)."""
    precision: str = field(default="fp32", metadata=dict(choices=("fp32", "bf16")))
    """The network's arithmetic while training: ``bf16`` runs its matrix products in bfloat16 (``torch.autocast``;
    the weights, the optimiser and the losses stay float32, and the ego bodies' stored inputs are bfloat16), which
    a CPU with AMX or AVX-512 BF16 does faster (1.4-1.7x the egowide rows of benchmarks/train_sps.py on the 2-core
    machine with AMX); without them torch emulates it, 3.6x slower than float32 on an AVX2-only CPU (a warning says
    so); evaluation and play run float32."""
    torch_threads: int = field(default=2, metadata=dict(min=1, max=256))
    """torch's CPU threads."""
    engine_threads: int | None = field(default=1, metadata=dict(min=1, max=256))
    """numba threads of the rules and observations; null: every core (a many-core GPU machine)."""
    eval_every: int = field(default=1_000_000, metadata=dict(min=0))
    """Env-steps between greedy evaluations (0: only at the end); the best one is kept as best.pt."""
    eval_games: int = field(default=200, metadata=dict(min=1, max=100000))
    """Seeded games per evaluation."""
    eval_seed: int = 1_000_000
    """First game seed of the evaluations (games eval_seed .. eval_seed + eval_games - 1)."""
    checkpoint_every: int = field(default=5_000_000, metadata=dict(min=0))
    """Env-steps between kept checkpoints (checkpoints/step_*.pt); last.pt is written every iteration."""
    max_seconds: float = field(default=0.0, metadata=dict(min=0.0))
    """Stop after this many seconds of training, a resumed run's earlier ones included (0: no limit); the run ends
    as if total_steps were reached."""
    progress_bar: bool = True
    """A tqdm progress bar on stderr."""
    init_from: str | None = None
    """Start from this checkpoint's network weights instead of a fresh network (a curriculum stage: a tiny-cave run's
    best.pt for the small cave); its network (window, planes, scalars, actions, width, critic) must be this run's
    (its actor's only, with ``init_parts: actor``).
    The optimiser, the counters and the games start fresh. null: a fresh network."""
    init_parts: str = field(default="all", metadata=dict(choices=("all", "actor")))
    """With ``init_from``: ``all`` loads the whole network; ``actor`` only the actor (the body and the policy head,
    which must match) with a fresh critic, so the critic may differ: a wider global state (``state_radius``) for a
    bigger cave, or ``mappo`` after an ``ippo`` team. Pair it with ``critic_warmup`` so the fresh critic fits the
    game before its advantages move the actor."""
    critic_warmup: int = field(default=0, metadata=dict(min=0))
    """Env-steps at the start in which only the value is trained (the policy and entropy terms off): a critic fitted
    to this game before a started actor (``init_from``, a clone) is moved by its advantages. With ``mappo`` the
    actor stays exactly as it was; with ``ippo`` the shared body still moves with the value loss."""
    anchor_kl: float = field(default=0.0, metadata=dict(min=0.0, max=100.0))
    """Weight of a penalty KL(start || policy) over the legal actions of each minibatch, "start" being the policy
    PPO began from (the clone of ``bc_teacher``, or ``init_from``'s): the advantages move the policy while the
    penalty holds it near what the clone knows (AlphaStar's KL to its supervised policy). 0: none; needs a start."""
    partner: str | None = None
    """Seat fixed agents beside the policy in some training games (``training/partners.py``): ``heuristic``,
    ``policy:PATH`` (a checkpoint of this game, greedy, its window no wider), ``past`` (the run's own earlier
    policies, ``partner_every``), or several joined by commas (one a game); null: self-play only. Their decisions
    are not trained on; the team reward of the game is the policy's."""
    partner_games: float = field(default=0.5, metadata=dict(min=0.0, max=1.0))
    """With ``partner``: the share of new training games that are mixed (1 .. cavers - 1 partner seats, drawn)."""
    partner_every: int = field(default=0, metadata=dict(min=0))
    """With ``partner: past``: env-steps between the frozen copies of the policy that join the pool (0: none)."""
    partner_pool: int = field(default=8, metadata=dict(min=1, max=64))
    """With ``partner: past``: how many of the latest copies are kept (each one entry of the partner draw)."""
    bc_teacher: str | None = None
    """Clone a teacher before PPO (null: from scratch): heuristic, search, search:WORLDS or minari:DATASET_ID."""
    bc_decisions: int = field(default=200_000, metadata=dict(min=1))
    """Teacher decisions to collect (a Minari dataset gives all of its own). Each is held twice while it is split
    into training and held-out games: 1M decisions of the 15 x 15 window need about 15.6 GB, and a run that would need
    more than the machine has available stops before the first (``bc.check_memory``)."""
    bc_games: int = field(default=64, metadata=dict(min=1, max=65536))
    """Games the teacher plays at once while collecting."""
    bc_epochs: int = field(default=4, metadata=dict(min=0, max=1000))
    """Passes of behaviour cloning over the demonstrations."""
    bc_lr: float = field(default=1e-3, metadata=dict(min=0.0, max=1.0))
    """Adam's learning rate for the cloning (an optimiser of its own: PPO's starts fresh)."""
    bc_batch: int = field(default=512, metadata=dict(min=1, max=1_000_000))
    """Minibatch size of the cloning."""
    bc_holdout: float = field(default=0.1, metadata=dict(min=0.0, max=0.9))
    """Share of the teacher's games held out to measure the imitation (bc.json)."""
    bc_dagger_rounds: int = field(default=0, metadata=dict(min=0, max=100))
    """Rounds of DAgger after the cloning: the clone plays ``bc_decisions`` decisions greedily, the teacher labels
    every state it reached, and the network trains ``bc_epochs`` more on all the decisions so far (the aggregate),
    so it learns to recover from its own mistakes. A teacher that plays (heuristic, search), not a dataset."""

    def validate(self, prefix: str = "") -> None:
        batch = self.num_games * self.rollout
        if batch % self.minibatches:
            raise SettingsError(f"minibatches={self.minibatches} does not divide num_games * rollout = {batch}")
        if self.num_games % self.shards:
            raise SettingsError(f"shards={self.shards} does not divide num_games={self.num_games}")
        try:
            check_window(self.network, self.obs_radius)
        except ValueError as e:
            raise SettingsError(str(e)) from None
        check_device(self.device)
        check_teacher_name(self.bc_teacher)
        if self.partner is not None:
            try:
                entries = partners.parse(self.partner)
            except ValueError as e:
                raise SettingsError(f"partner={self.partner!r}: {e}; or null (self-play only)") from None
            if (partners.PAST in entries) != bool(self.partner_every):
                raise SettingsError(f"partner={self.partner!r} with partner_every={self.partner_every}: the "
                                    "past entry needs partner_every > 0 (env-steps between copies), and "
                                    "partner_every needs the past entry")
        elif self.partner_every:
            raise SettingsError(f"partner_every={self.partner_every} without partner: set partner=past")
        if self.anchor_kl and self.init_from is None and self.bc_teacher is None:
            raise SettingsError(f"anchor_kl={self.anchor_kl}: the penalty holds the policy near the one PPO starts "
                                "from, which needs bc_teacher or init_from (a fresh network is no anchor)")
        if self.bc_dagger_rounds and (self.bc_teacher is None or bc.is_dataset(self.bc_teacher)):
            raise SettingsError(f"bc_dagger_rounds={self.bc_dagger_rounds}: DAgger asks a teacher that plays "
                                f"(heuristic, search) about the clone's states; bc_teacher is {self.bc_teacher!r}")
        if self.init_parts != "all" and self.init_from is None:
            raise SettingsError(f"init_parts={self.init_parts!r} without init_from: it says which parts of "
                                "init_from's network to load")
        if self.init_from is not None and self.bc_teacher is not None:
            raise SettingsError(f"init_from={self.init_from!r} and bc_teacher={self.bc_teacher!r}: a run starts from "
                                "a checkpoint or from a clone, not both")
        if self.precision == "bf16" and torch.device(self.device).type == "cpu" and cpu_bf16() is False:
            warnings.warn("precision=bf16 on a CPU without bfloat16 arithmetic (no avx512_bf16 or amx_bf16 in "
                          "/proc/cpuinfo): torch emulates it, slower than fp32 (docs/training.md); use precision=fp32 "
                          "here", stacklevel=2)
        if min(self.reward_result) < 0 and self.gamma < 1:
            # measured on the tiny cave: [-1, 1/3, 2/3, 1] was at 0.00-0.03 cavers out after 1.6M env-steps
            warnings.warn(f"reward_result={list(self.reward_result)} with gamma={self.gamma}: a negative "
                          "result discounted is cheaper the later it comes, so a team can learn to put off the "
                          "end (stall) rather than escape; to weigh a defeat more, raise the medals instead "
                          "(e.g. [0, 2, 2.33, 2.67]): docs/training.md", stacklevel=2)


def check_teacher_name(name: str | None) -> None:
    """bc_teacher names a teacher ``training/bc.py`` can make (its one check), or a Minari dataset."""
    if name is None or bc.is_dataset(name) and len(name) > len(bc.DATASET_PREFIX):
        return
    try:
        bc.check_teacher_name(name)
    except ValueError:
        raise SettingsError(f"bc_teacher={name!r}: expected {bc.TEACHERS}, minari:DATASET_ID or null (no "
                            "behaviour cloning)") from None


def cpu_bf16() -> bool | None:
    """Whether this CPU does bfloat16 arithmetic in hardware (AVX-512 BF16 or AMX, as /proc/cpuinfo's flags say),
    None where there is no /proc/cpuinfo to read. Without it ``torch.autocast`` on the CPU emulates bfloat16."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    return "avx512_bf16" in flags or "amx_bf16" in flags


def check_device(device: str) -> None:
    """A clear error for a device torch cannot use here, before any work starts."""
    try:
        dev = torch.device(device)
    except RuntimeError as e:
        raise SettingsError(f"device={device!r}: not a torch device ({e}); expected cpu, cuda or cuda:N") from e
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise SettingsError(f"device={device!r}: torch sees no CUDA device here (torch {torch.__version__}, "
                                "a CPU build?); use device=cpu")
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise SettingsError(f"device={device!r}: only {torch.cuda.device_count()} CUDA device(s) here")
    elif dev.type != "cpu":
        raise SettingsError(f"device={device!r}: expected cpu, cuda or cuda:N")


def load_args(path: str | Path | None, overrides: list[str] = ()) -> Args:
    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = yaml.safe_load(Path(path).read_text()) or {}
        except OSError as e:
            raise SettingsError(f"--config {path}: {e.strerror}") from e
    for assignment in overrides:
        apply_override(data, assignment)
    return from_mapping(Args, data)


# ------------------------------------------------------------------------------------------------------- games
def episode_settings(args: Args) -> dict[str, Any]:
    """The episode keywords of the run's games (window, rounds, shaping, threads): the training games and the BC
    teacher's play the same game."""
    return dict(obs_radius=args.obs_radius, max_cycles=args.max_cycles, reward_result=tuple(args.reward_result),
                reward_escape=args.reward_escape, reward_tile=args.reward_tile, reward_health=args.reward_health,
                reward_way=args.reward_way, reward_danger=args.reward_danger, reward_knockout=args.reward_knockout,
                threads=args.engine_threads)


class Shard:
    """One block of games and its slice of the rollout storage: ``step`` writes the games' next observations,
    masks (and global states for mappo) into row t + 1 of the storage, in place."""

    def __init__(self, args: Args, config, seed: int, rows: slice, store: Rollout, spec: NetSpec):
        from subterra_env.vector import BatchedGames

        n = rows.stop - rows.start
        self.games = BatchedGames(n, config, copy_obs=False, seed=seed, **episode_settings(args))
        self.rows, self.store, self.state_radius = rows, store, args.state_radius
        self.mappo = args.critic == "mappo"
        self.partners = None
        if args.partner:
            self.partners = partners.Partners(args.partner, args.partner_games, self.games, seed, spec,
                                              torch.device(args.device), args.partner_pool)

    def out(self, t: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        s = self.store
        return s.grid[t, self.rows], s.scalars[t, self.rows], s.mask[t, self.rows]

    def reset(self) -> None:
        self.games.reset(out=self.out(0))
        self.observe_state(self.games.state, 0)
        if self.partners is not None:
            self.partners.draw(np.arange(self.games.num_envs))

    def observe_state(self, st, t: int) -> None:
        if self.mappo:
            s = self.store
            global_state(self.games, st, self.state_radius, s.state_grid[t, self.rows], s.state_scalars[t, self.rows])

    def step(self, actions: np.ndarray, t: int):
        """Apply the actions of row t; returns the ``BatchStep``."""
        s = self.games.step_batch(actions, out=self.out(t + 1), checked=True)  # sampled from the mask: legal
        self.observe_state(self.games.state, t + 1)
        return s


def global_state(games, st, radius: int, grid_out=None, scalars_out=None) -> tuple[np.ndarray, np.ndarray]:
    """``raw_env.state()`` for every game of ``st``: the acting caver's view centred on the start tile."""
    from subterra_env.games.sub_terra.core.observe import observe

    centre = np.zeros(st.batch_size, dtype=np.intp)  # tile 0 is the start tile
    return observe(games.core.cat, st, np.maximum(st.actor, 0), radius, grid_out, scalars_out, centre=centre,
                   threads=games.core.threads)


@dataclass
class Rollout:
    """Row t of every array is decision t of each game (T + 1 rows of observations: the last one bootstraps)."""

    grid: np.ndarray  # (T+1, B, C, W, W) int8
    scalars: np.ndarray  # (T+1, B, S) int8
    mask: np.ndarray  # (T+1, B, A) bool
    state_grid: np.ndarray | None  # mappo: (T+1, B, C, Ws, Ws) int8
    state_scalars: np.ndarray | None
    actions: np.ndarray  # (T, B) int64
    logp: np.ndarray  # (T, B) float32
    values: np.ndarray  # (T+1, B) float32
    rewards: np.ndarray  # (T, B) float32, truncated games' final values folded in
    dones: np.ndarray  # (T, B) float32: the game ended at this decision (next row is a new game)
    learn: np.ndarray | None = None  # partner: (T, B) bool, the decision is the policy's own (not a partner's)
    # the ego bodies: (T, B, n) on the learner's device (float32; bfloat16 with precision bf16), the first-layer
    # input that acting computed, which the update reuses (computing it again cost a fifth of an egowide iteration)
    inputs: torch.Tensor | None = None

    @staticmethod
    def allocate(args: Args, grid_shape, num_scalars: int, num_actions: int, state_shape) -> Rollout:
        t, b = args.rollout, args.num_games
        mappo = args.critic == "mappo"
        return Rollout(
            grid=np.zeros((t + 1, b, *grid_shape), np.int8), scalars=np.zeros((t + 1, b, num_scalars), np.int8),
            mask=np.zeros((t + 1, b, num_actions), bool),
            state_grid=np.zeros((t + 1, b, *state_shape), np.int8) if mappo else None,
            state_scalars=np.zeros((t + 1, b, num_scalars), np.int8) if mappo else None,
            actions=np.zeros((t, b), np.int64), logp=np.zeros((t, b), np.float32),
            values=np.zeros((t + 1, b), np.float32), rewards=np.zeros((t, b), np.float32),
            dones=np.zeros((t, b), np.float32), learn=np.ones((t, b), bool) if args.partner else None)

    def roll(self) -> None:
        """The last row of observations becomes the first of the next rollout."""
        for a in (self.grid, self.scalars, self.mask, self.state_grid, self.state_scalars):
            if a is not None:
                a[0] = a[-1]


# -------------------------------------------------------------------------------------------------- the algorithm
def gae(rewards: torch.Tensor, values: torch.Tensor, dones: torch.Tensor, gamma: float,
        lam: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(advantages, returns), each (T, B), along each game stream. ``values`` (T + 1, B): row T bootstraps the
    decision after the rollout; ``dones[t]`` = 1 when the game ended at decision t, so decision t + 1 starts
    another game and nothing flows back across it. Whichever caver acts at a decision, the reward is the team's:
    a stream of several cavers is one return."""
    adv = torch.zeros_like(rewards)
    last = torch.zeros_like(rewards[0])
    for t in range(rewards.shape[0] - 1, -1, -1):
        carry = 1.0 - dones[t]
        delta = rewards[t] + gamma * values[t + 1] * carry - values[t]
        last = delta + gamma * lam * carry * last
        adv[t] = last
    return adv, adv + values[:-1]


def average(x: torch.Tensor, weight: torch.Tensor | None) -> torch.Tensor:
    """The mean of ``x`` over a minibatch, or, with ``partner``, over the policy's own decisions (``weight`` 1) only:
    a partner's decisions are not the policy's to learn from."""
    if weight is None:
        return x.mean()
    return (x * weight).sum() / weight.sum().clamp(min=1.0)


def sample(logits: torch.Tensor, mask: torch.Tensor, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """(actions, their log-probabilities) from the masked policy: Gumbel-max over the legal actions only."""
    logp = masked_log_probs(logits, mask)
    u = torch.rand(logp.shape, generator=gen, device=logp.device).clamp_(1e-20, 1.0)
    actions = (logp - torch.log(-torch.log(u))).argmax(dim=1)
    return actions, logp.gather(1, actions[:, None]).squeeze(1)


class Learner:
    """The network, its optimiser and the PPO update."""

    def __init__(self, args: Args, spec: NetSpec):
        self.args = args
        self.device = torch.device(args.device)
        torch.manual_seed(args.seed)  # the initial weights follow args.seed, whatever drew from torch before
        self.model = ActorCritic(spec).to(self.device)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=args.lr, eps=1e-5)
        self.gen = torch.Generator(device=self.device)
        self.gen.manual_seed(args.seed)
        self.cpu_gen = torch.Generator()
        self.cpu_gen.manual_seed(args.seed + 1)
        self.mappo = args.critic == "mappo"
        self.bf16 = args.precision == "bf16"
        self.stored = torch.bfloat16 if self.bf16 else torch.float32  # the kept first-layer inputs' dtype
        self.anchor: ActorCritic | None = None  # anchor_kl's frozen start policy (set_anchor)

    def forward(self, grid=None, scalars=None, state_inputs=None, inputs=None) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits, value) in float32, in the run's ``precision``, of the observations or of the ego bodies'
        first-layer ``inputs``; mappo: the critic's ``state_inputs`` (``ActorCritic.state_inputs``)."""
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.bf16):
            hidden = self.model.body(grid, scalars) if inputs is None else self.model.body.net(inputs)
            logits, value = self.model.heads(hidden, state_inputs)
        return logits.float(), value.float()

    def set_anchor(self, weights: dict[str, torch.Tensor] | None = None) -> None:
        """Freeze a copy of the network (or of ``weights``, a resumed run's anchor) as anchor_kl's start policy."""
        self.anchor = copy.deepcopy(self.model).requires_grad_(False).eval()
        if weights is not None:
            self.anchor.load_state_dict(weights)

    @torch.no_grad()
    def anchor_log_probs(self, flat: dict[str, torch.Tensor], size: int) -> torch.Tensor:
        """The frozen start policy's log-probabilities of the whole rollout, once per update (every epoch reuses
        them), in minibatch-sized chunks."""
        return torch.cat([masked_log_probs(self.anchor.logits(flat["grid"][i:i + size], flat["scalars"][i:i + size]),
                                           flat["mask"][i:i + size]) for i in range(0, len(flat["mask"]), size)])

    def tensor(self, a: np.ndarray) -> torch.Tensor:
        t = torch.from_numpy(a)  # shares memory with the rollout on a CPU
        return t if self.device.type == "cpu" else t.to(self.device, non_blocking=True)

    def state_of(self, grid: np.ndarray | None, scalars: np.ndarray | None) -> torch.Tensor | None:
        if not self.mappo:
            return None
        return torch.cat([self.tensor(grid).flatten(1), self.tensor(scalars)], dim=1)

    def critic_inputs(self, grid: np.ndarray | None, scalars: np.ndarray | None) -> torch.Tensor | None:
        """mappo: the critic's first-layer input of the global state's grid and scalars (None for ippo)."""
        return self.model.state_inputs(self.state_of(grid, scalars))

    def input_buffer(self, rollout: int, num_games: int) -> torch.Tensor | None:
        """``Rollout.inputs`` for the ego bodies (None for the cnn: its input is the window itself)."""
        body = self.model.body
        if not hasattr(body, "inputs"):
            return None
        return torch.zeros((rollout, num_games, body.net[0].in_features), dtype=self.stored, device=self.device)

    @torch.no_grad()
    def act(self, grid, scalars, mask, sgrid=None, sscalars=None,
            inputs_out: torch.Tensor | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(actions, their log-probabilities, values); ``inputs_out``: where the body's first-layer input goes."""
        state = self.critic_inputs(sgrid, sscalars)
        if inputs_out is None:
            logits, value = self.forward(self.tensor(grid), self.tensor(scalars), state)
        else:
            inputs_out.copy_(self.model.body.inputs(self.tensor(grid), self.tensor(scalars)))
            logits, value = self.forward(state_inputs=state, inputs=inputs_out)
        actions, logp = sample(logits, self.tensor(mask), self.gen)
        return actions.cpu().numpy(), logp.cpu().numpy(), value.cpu().numpy()

    @torch.no_grad()
    def value(self, grid, scalars, sgrid=None, sscalars=None) -> np.ndarray:
        state = self.critic_inputs(sgrid, sscalars)
        return self.forward(self.tensor(grid), self.tensor(scalars), state)[1].cpu().numpy()

    def flatten(self, ro: Rollout) -> dict[str, torch.Tensor]:
        """One rollout as T x B flat samples, with its advantages and returns (and, where the run has them, the
        partner weights, the MAPPO critic's inputs and the ego bodies' cached first-layer inputs)."""
        a = self.args
        t, b = ro.actions.shape
        n = t * b
        adv, ret = gae(self.tensor(ro.rewards), self.tensor(ro.values), self.tensor(ro.dones), a.gamma,
                       a.gae_lambda)
        flat = {"grid": self.tensor(ro.grid[:t]).reshape(n, *ro.grid.shape[2:]),
                "scalars": self.tensor(ro.scalars[:t]).reshape(n, -1),
                "mask": self.tensor(ro.mask[:t]).reshape(n, -1),
                "actions": self.tensor(ro.actions).reshape(n), "logp": self.tensor(ro.logp).reshape(n),
                "adv": adv.reshape(n), "ret": ret.reshape(n)}
        if ro.learn is not None:
            flat["learn"] = self.tensor(ro.learn).reshape(n).float()
        if self.mappo:
            # the critic's first-layer input once a rollout (it was a fifth of a MAPPO update step once a minibatch)
            flat["state"] = self.critic_inputs(ro.state_grid[:t].reshape(n, *ro.state_grid.shape[2:]),
                                               ro.state_scalars[:t].reshape(n, -1)).to(self.stored)
        if ro.inputs is not None:  # the ego bodies' first-layer input as acting computed it (the same every epoch)
            flat["inputs"] = ro.inputs.reshape(n, -1)
        return flat

    def update(self, ro: Rollout, lr: float, actor: bool = True) -> dict[str, float]:
        """The PPO update over one rollout: ``epochs`` passes of ``minibatches`` shuffled minibatches (``actor``
        False: the value loss alone, ``critic_warmup``)."""
        a = self.args
        for g in self.opt.param_groups:
            g["lr"] = lr
        flat = self.flatten(ro)
        n = len(flat["actions"])
        size = n // a.minibatches
        stats: dict[str, list[float]] = {"policy_loss": [], "value_loss": [], "entropy": [], "approx_kl": [],
                                         "clip_fraction": []}
        if self.anchor is not None and actor:
            stats["anchor_kl"] = []
            flat["anchor_logp"] = self.anchor_log_probs(flat, size)
        bound = 1.5 * a.target_kl if a.target_kl and actor else float("inf")  # the value-only warm-up: no bound
        for _ in range(a.epochs):
            order = torch.randperm(n, generator=self.cpu_gen).to(self.device)
            # target_kl: once a minibatch finds the policy moved far enough, no more steps this iteration
            if not all(self.minibatch_step(flat, order[i:i + size], actor, bound, stats) for i in range(0, n, size)):
                break
        means = {k: float(np.mean(v)) if v else float("nan") for k, v in stats.items()}
        return {**means, "minibatch_steps": len(stats["approx_kl"])}

    def minibatch_step(self, flat: dict[str, torch.Tensor], idx: torch.Tensor, actor: bool, bound: float,
                       stats: dict[str, list[float]]) -> bool:
        """One gradient step on the samples ``idx``, its losses appended to ``stats``; False, and no step, when the
        policy has already moved from the rollout's by more than ``bound`` (approximate KL)."""
        a = self.args
        state = flat["state"][idx] if self.mappo else None
        logits, value = (self.forward(state_inputs=state, inputs=flat["inputs"][idx]) if "inputs" in flat
                         else self.forward(flat["grid"][idx], flat["scalars"][idx], state))
        mask = flat["mask"][idx]
        w = flat["learn"][idx] if "learn" in flat else None
        logp_all = masked_log_probs(logits, mask)
        logp = logp_all.gather(1, flat["actions"][idx, None]).squeeze(1)
        # illegal actions: probability 0, and their -inf log-probability zeroed before the product (0 x -inf would be
        # NaN, and NaN gradients flow even through a torch.where branch not taken)
        entropy = -average((logp_all.exp() * logp_all.masked_fill(~mask, 0.0)).sum(1), w)
        log_ratio = logp - flat["logp"][idx]
        ratio = log_ratio.exp()
        with torch.no_grad():
            kl = average((ratio - 1) - log_ratio, w).item()
        if kl > bound:
            return False
        mb_adv = flat["adv"][idx]
        if a.norm_adv and w is None:
            mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
        elif a.norm_adv:  # the policy's own decisions' advantages set the scale
            centred = mb_adv - average(mb_adv, w)
            mb_adv = centred / (average(centred.pow(2), w).sqrt() + 1e-8)
        policy_loss = average(torch.max(-mb_adv * ratio, -mb_adv * ratio.clamp(1 - a.clip, 1 + a.clip)), w)
        value_loss = 0.5 * (value - flat["ret"][idx]).pow(2).mean()
        # the same expression as before critic_warmup existed, so that seeded runs stay bit-identical
        value_term = a.vf_coef * value_loss
        loss = policy_loss - a.ent_coef * entropy + value_term if actor else value_term
        if "anchor_logp" in flat:
            start = flat["anchor_logp"][idx]  # KL(start || policy) over the legal actions
            divergence = average((start.exp() * (start - logp_all).masked_fill(~mask, 0.0)).sum(1), w)
            loss = loss + a.anchor_kl * divergence
            stats["anchor_kl"].append(divergence.item())
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), a.max_grad_norm)
        self.opt.step()
        with torch.no_grad():
            stats["policy_loss"].append(policy_loss.item())
            stats["value_loss"].append(value_loss.item())
            stats["entropy"].append(entropy.item())
            stats["approx_kl"].append(kl)
            stats["clip_fraction"].append(average(((ratio - 1).abs() > a.clip).float(), w).item())
        return True


# ------------------------------------------------------------------------------------------------- the trainer
class Trainer:
    """Collection and updates over ``args.shards`` blocks of games; ``iterate`` runs one PPO iteration."""

    def __init__(self, args: Args, spec_check: NetSpec | None = None):
        from subterra_env.spaces import grid_shape, num_scalars

        self.args = args
        from subterra_env.config import to_dict

        self.config = build_game({"preset": args.game}, key="game")
        self.config_dict = to_dict(self.config)
        scenario = self.config.scenario
        gshape, k = grid_shape(args.obs_radius, scenario), num_scalars(scenario)
        sshape = grid_shape(args.state_radius, scenario)
        from subterra_env.games.sub_terra.core.rules import Core

        num_actions = Core(self.config, threads=1).num_actions
        self.spec = NetSpec(tuple(gshape), k, num_actions, args.network, args.width, args.critic,
                            int(np.prod(sshape)) + k if args.critic == "mappo" else 0)
        if spec_check is not None and spec_check != self.spec:
            raise SettingsError(f"the checkpoint's network {spec_check} does not fit these settings' {self.spec} "
                                "(another game, observation window or network)")
        self.store = Rollout.allocate(args, gshape, k, num_actions, sshape)
        half = args.num_games // args.shards
        self.shards = [Shard(args, self.config, args.seed + i, slice(i * half, (i + 1) * half), self.store,
                             self.spec) for i in range(args.shards)]
        self.learner = Learner(args, self.spec)
        self.store.inputs = self.learner.input_buffer(args.rollout, args.num_games)
        self.pool = ThreadPoolExecutor(1) if args.shards > 1 else None
        self.episodes: deque[tuple[float, int, int, bool]] = deque(maxlen=max(100, args.num_games))
        self.timing = {"engine": 0.0, "inference": 0.0, "update": 0.0}

    def reseed(self, salt: int) -> None:
        """New seed streams for the games (a resumed run plays new games, not the first run's again)."""
        for i, shard in enumerate(self.shards):
            shard.games.seed(int(np.random.SeedSequence([self.args.seed + i, salt]).generate_state(1)[0]))
            if shard.partners is not None:
                stream = np.random.SeedSequence([self.args.seed + i, salt, 1])
                shard.partners.reseed(int(stream.generate_state(1)[0]))

    def reset(self) -> None:
        for shard in self.shards:
            shard.reset()

    def add_past(self, name: str, weights: dict[str, torch.Tensor] | None = None) -> None:
        """``partner: past``: a frozen copy of the policy (or of ``weights``, a resumed run's copy) joins every
        shard's pool as ``name`` (past@STEP)."""
        model = copy.deepcopy(self.learner.model).requires_grad_(False).eval()
        if weights is not None:
            model.load_state_dict(weights)
        agent = NativePolicyAgent.of_model(model, self.config_dict, name, device=self.args.device)
        for shard in self.shards:
            shard.partners.add_past(agent, name)

    def past_pool(self) -> list[tuple[str, dict[str, torch.Tensor]]]:
        """The past copies as (name, weights), oldest first (a checkpoint keeps them for ``--resume``)."""
        p = self.shards[0].partners
        return [] if p is None else [(name, agent.model.state_dict()) for name, agent in p.past()]

    def _act(self, shard: Shard, t: int) -> np.ndarray:
        ro, r = self.store, shard.rows
        t0 = time.perf_counter()
        sg = ro.state_grid[t, r] if ro.state_grid is not None else None
        ss = ro.state_scalars[t, r] if ro.state_scalars is not None else None
        inputs = ro.inputs[t, r] if ro.inputs is not None else None
        actions, logp, value = self.learner.act(ro.grid[t, r], ro.scalars[t, r], ro.mask[t, r], sg, ss, inputs)
        if shard.partners is not None:  # a partner's seat: its action replaces the sample (its time counted here)
            ro.learn[t, r] = shard.partners.play(actions, ro.grid[t, r], ro.scalars[t, r], ro.mask[t, r])
        ro.actions[t, r], ro.logp[t, r], ro.values[t, r] = actions, logp, value
        self.timing["inference"] += time.perf_counter() - t0
        return actions

    def _record(self, shard: Shard, t: int, s) -> None:
        """Rewards and dones of row t; a truncated game's final value is folded into its reward (bootstrap)."""
        ro, r = self.store, shard.rows
        ro.rewards[t, r] = s.reward
        ro.dones[t, r] = s.terminated | s.truncated
        if len(s.done):
            cut = s.truncated[s.done]
            if cut.any():
                sg = ss = None
                if self.args.critic == "mappo":
                    sg, ss = global_state(shard.games, s.ended.take(np.flatnonzero(cut)), self.args.state_radius)
                v = self.learner.value(s.final_grid[cut], s.final_scalars[cut], sg, ss)
                ro.rewards[t, r][s.done[cut]] += self.args.gamma * v
            mixed = shard.partners.mixed(s.done) if shard.partners is not None else np.zeros(len(s.done), bool)
            for j in range(len(s.done)):
                self.episodes.append((float(s.episode_return[j]), int(s.final_info["escaped"][j]),
                                      int(s.final_info["result"][j]), bool(mixed[j])))
            if shard.partners is not None:
                shard.partners.draw(s.done)

    def collect(self) -> None:
        ro = self.store
        if self.pool is None:
            shard = self.shards[0]
            for t in range(self.args.rollout):
                actions = self._act(shard, t)
                t0 = time.perf_counter()
                s = shard.step(actions, t)
                self.timing["engine"] += time.perf_counter() - t0
                self._record(shard, t, s)
        else:  # the engine steps one half while the policy acts on the other
            a, b = self.shards
            for t in range(self.args.rollout):
                pending = self.pool.submit(a.step, self._act(a, t), t)
                actions_b = self._act(b, t)
                s_a = self._wait(pending)
                pending = self.pool.submit(b.step, actions_b, t)
                self._record(a, t, s_a)
                self._record(b, t, self._wait(pending))
        last = self.args.rollout
        for shard in self.shards:
            r = shard.rows
            sg = ro.state_grid[last, r] if ro.state_grid is not None else None
            ss = ro.state_scalars[last, r] if ro.state_scalars is not None else None
            ro.values[last, r] = self.learner.value(ro.grid[last, r], ro.scalars[last, r], sg, ss)

    def _wait(self, pending):
        """The step's result; the time spent waiting is the engine's share that the policy did not hide."""
        t0 = time.perf_counter()
        result = pending.result()
        self.timing["engine"] += time.perf_counter() - t0
        return result

    def iterate(self, lr: float, actor: bool = True) -> dict[str, float]:
        self.collect()
        t0 = time.perf_counter()
        stats = self.learner.update(self.store, lr, actor)
        if self.learner.device.type == "cuda":
            torch.cuda.synchronize()
        self.timing["update"] += time.perf_counter() - t0
        self.store.roll()
        return stats


def evaluate_greedy(model: ActorCritic, config, obs_radius: int, games: int, seed: int, max_cycles: int,
                    device: torch.device) -> dict[str, float]:
    """Greedy play of ``games`` seeded games (seeds seed .. seed + games - 1): mean cavers out with its 95%
    interval and the medal shares (the numbers ``training/evaluate.py`` reports for the same seeds)."""
    from subterra_env.vector import BatchedGames

    env = BatchedGames(games, config, obs_radius=obs_radius, copy_obs=False, autoreset=False, max_cycles=max_cycles,
                       threads=1)
    obs = env.reset(seeds=np.arange(seed, seed + games))
    escaped = np.zeros(games)
    result = np.zeros(games, dtype=np.int64)
    model.eval()
    with torch.no_grad():
        while not env.over.all():
            logits = model.logits(torch.from_numpy(obs["observation"]).to(device),
                                  torch.from_numpy(obs["scalars"]).to(device))
            mask = torch.from_numpy(env.mask).to(device)
            actions = logits.masked_fill(~mask, -torch.inf).argmax(1).cpu().numpy()
            s = env.step_batch(actions, checked=True)  # ended games are skipped by the core
            escaped[s.done] = s.final_info["escaped"]
            result[s.done] = s.final_info["result"]
            obs = env.observations(copy=False)
    model.train()
    half = 1.96 * escaped.std(ddof=1) / np.sqrt(games) if games > 1 else 0.0
    return {"games": games, "seed": seed, "escaped_mean": float(escaped.mean()), "escaped_ci95": float(half),
            **{f"share_{name}": float((result == code).mean())
               for code, name in enumerate(("defeat", "bronze", "silver", "gold"))}}


# ---------------------------------------------------------------------------------------------- behaviour cloning
class GlobalStateVecEnv:
    """A teacher's vector env whose observations also hold ``state``: the flat global state the mappo critic reads
    (as ``Learner.state_of`` joins it), so the cloned critic learns the teacher's returns from its own input."""

    def __init__(self, venv, radius: int):
        self.venv, self.games, self.num_envs, self.radius = venv, venv.games, venv.num_envs, radius

    def _with_state(self, obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        grid, scalars = global_state(self.games, self.games.state, self.radius)
        return {**obs, "state": np.concatenate([grid.reshape(len(grid), -1), scalars], axis=1)}

    def reset(self) -> dict[str, np.ndarray]:
        return self._with_state(self.venv.reset())

    def step(self, actions: np.ndarray):
        obs, rewards, dones, infos = self.venv.step(actions)
        return self._with_state(obs), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        return self.venv.action_masks()


def check_teacher(args: Args, spec: NetSpec) -> None:
    """A Minari teacher's observations must be this network's (window, planes, scalars) and its actions the game's:
    anything else is refused before any work, naming the mismatch."""
    if not (args.bc_teacher and bc.is_dataset(args.bc_teacher)):
        return
    try:
        shapes, num_actions = bc.dataset_spaces(args.bc_teacher[len(bc.DATASET_PREFIX):])
    except ValueError as e:  # DatasetError: Minari not installed, a malformed id, no such dataset
        raise SettingsError(f"bc_teacher={args.bc_teacher!r}: {e}") from e
    grid, scalars = shapes.get("observation"), shapes.get("scalars")
    if grid == spec.grid_shape and scalars == (spec.num_scalars,) and num_actions == spec.num_actions:
        return
    radius = (grid[-1] - 1) // 2 if grid and len(grid) == 3 else None
    raise SettingsError(f"bc_teacher={args.bc_teacher!r}: the dataset's observations {grid} (obs radius {radius}) "
                        f"with {scalars} scalars and {num_actions} actions do not fit this network's "
                        f"{spec.grid_shape} (obs_radius={args.obs_radius}) with ({spec.num_scalars},) scalars and "
                        f"{spec.num_actions} actions: set obs_radius={radius}, or build the dataset from this game "
                        f"with --obs-radius {args.obs_radius}")


def initial_weights(args: Args, spec: NetSpec) -> dict[str, torch.Tensor] | None:
    """``init_from``'s network weights (``init_parts``: all of them, or the actor's only), refused before any work
    unless its network is this run's (the window, planes, scalars and actions of the game, the network's kind and
    width, and for ``all`` the critic and its global state)."""
    if args.init_from is None:
        return None
    try:
        model, data = load_checkpoint(args.init_from)
    except (FileNotFoundError, ValueError) as e:
        raise SettingsError(f"init_from={args.init_from!r}: {e}") from e
    theirs = model.spec
    if args.init_parts == "actor":
        theirs = replace(theirs, critic=spec.critic, state_size=spec.state_size)
    if theirs != spec:
        what = "" if args.init_parts == "actor" else ", critic"
        raise SettingsError(f"init_from={args.init_from!r}: its network {model.spec} is not this run's {spec} "
                            f"(another observation window, network, width{what} or game with other planes or "
                            "actions)")
    if args.init_parts == "actor":
        return actor_weights(data["model"])
    return data["model"]


def teacher_games(args: Args, trainer: Trainer) -> Any:
    """The games a teacher plays for the cloning: this very game (window, rounds, reward) from a seed stream of
    their own, as an SB3 VecEnv (with the global state beside for mappo)."""
    from subterra_env.sb3 import SubterraVecEnv

    # copy_obs off: collect copies each step into its arrays
    venv = SubterraVecEnv(args.bc_games, trainer.config, seed=stream_seed(args.seed, 7_777), copy_obs=False,
                          **episode_settings(args))
    return GlobalStateVecEnv(venv, args.state_radius) if args.critic == "mappo" else venv


def behaviour_clone(args: Args, run: Run) -> dict[str, Any]:
    """The BC stage: the teacher's decisions cloned by ``training/bc.py``'s ``train_bc`` (masked cross-entropy on
    the actor; the value on the known returns, weighted ``vf_coef``, unless a mappo critic has no global state in
    the demonstrations), then ``bc_dagger_rounds`` rounds of DAgger. The demonstrations: a Minari dataset's
    (``check_teacher``), or ``bc_decisions`` of the heuristic or the search in ``teacher_games``, with the
    discounted returns at this run's gamma. Writes bc.json and the ``bc/`` TensorBoard scalars (x: the epoch,
    counted on through the rounds); returns the record."""
    t0 = time.perf_counter()
    run.say(f"bc: {args.bc_teacher}'s decisions, then {args.bc_epochs} epochs of cloning"
            + (f", then {args.bc_dagger_rounds} rounds of DAgger" if args.bc_dagger_rounds else ""))
    if bc.is_dataset(args.bc_teacher):
        venv = teacher = None
        demos = bc.load_demos(args.bc_teacher, args.gamma)
    else:
        venv = teacher_games(args, run.trainer)
        teacher = bc.make_teacher(args.bc_teacher, venv, args.seed)
        demos = bc.collect(venv, teacher, args.bc_decisions, args.gamma, setting="bc_decisions")
    train_set, held_out = bc.split(demos, args.bc_holdout, args.seed)
    value = args.critic == "ippo" or "state" in demos.obs
    policy = bc.NativePolicy(run.learner.model)
    offset = 0  # TensorBoard's epoch axis runs on through the DAgger rounds

    def log(epoch: int, metrics: dict[str, float]) -> None:
        for k, v in metrics.items():
            if v is not None:
                run.writer.add_scalar(f"bc/{k}", v, offset + epoch)

    def clone() -> list[dict[str, float]]:
        return bc.train_bc(policy, train_set, held_out, args.bc_epochs, args.bc_batch, args.bc_lr,
                           args.vf_coef if value else 0.0, args.seed, log)

    history = clone()
    rounds = []
    for r in range(1, args.bc_dagger_rounds + 1):
        offset += args.bc_epochs + 1
        own = bc.collect(venv, teacher, args.bc_decisions, args.gamma, player=bc.greedy_player(policy),
                          setting="bc_decisions")
        before = bc.evaluate_bc(policy, own)  # how often the clone agrees with the teacher in its own states
        played = bc.summarize([{**g, "length": 0, "return": 0.0} for g in own.finished]) if own.finished else {}
        own_train, own_held = bc.split(own, args.bc_holdout, args.seed + r)
        train_set, held_out = (bc.Demonstrations.concat([train_set, own_train]),
                               bc.Demonstrations.concat([held_out, own_held]))
        rounds.append({"round": r, "clone_games": len(own.finished), "clone_escaped": played.get("escaped"),
                       "acc_on_own_states": before["acc"], "decisions_so_far": len(train_set) + len(held_out),
                       "history": clone()})
        run.say(f"bc: DAgger round {r}: the clone escaped {played.get('escaped', float('nan')):.2f} a game in "
                f"{len(own.finished)} games, agreed with {args.bc_teacher} on {before['acc']:.3f} of its states; "
                f"now {rounds[-1]['history'][-1]['train_acc']:.3f} on {len(train_set):,} decisions")
    run.learner.model.train()  # train_bc leaves it in eval mode
    teacher_play = bc.summarize([{**g, "length": 0, "return": 0.0} for g in demos.finished]) if demos.finished else {}
    record = {"teacher": args.bc_teacher, "decisions": len(demos), "train_decisions": len(train_set),
              "held_out_decisions": len(held_out), "teacher_games": len(demos.finished),
              "teacher_escaped": teacher_play.get("escaped"), "value_cloned": value,
              "seconds": round(time.perf_counter() - t0, 1), "history": history,
              **({"dagger": rounds} if rounds else {})}
    (run.path / "bc.json").write_text(json.dumps(record, indent=1))
    last = (rounds[-1]["history"] if rounds else history)[-1]
    run.say(f"bc: {record['train_decisions'] + len(held_out):,} decisions of {args.bc_teacher} in "
            f"{record['seconds']:.0f} s; accuracy train {last['train_acc']:.3f}, held out "
            f"{last.get('held_out_acc', float('nan')):.3f} (chance {last['train_chance']:.3f})")
    return record


# ------------------------------------------------------------------------------------------------------ the run
def parse_cli(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Native PPO (IPPO or MAPPO) for the Sub Terra team, stepping the "
                                "batched rules core directly; every setting is a field of Args in this file.")
    p.add_argument("--config", help="a YAML file of Args settings (configs/train/ppo_*.yaml)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override one setting")
    p.add_argument("--run-dir", help="where the run's files go (default runs/ppo-<game>-<time>)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing run directory")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its last.pt")
    return p.parse_args(argv)


def prepare_run(cli: argparse.Namespace) -> tuple[Args, Path, dict | None]:
    """(settings, run directory, the checkpoint to resume or None); every setting checked before any work."""
    if cli.resume:
        run = Path(cli.resume)
        if not (run / "last.pt").is_file():
            raise SettingsError(f"--resume {run}: no last.pt there (no iteration finished)")
        args = load_args(run / "config.yaml", cli.set)
        return args, run, torch.load(run / "last.pt", map_location="cpu", weights_only=False)
    args = load_args(cli.config, cli.set)
    run = Path(cli.run_dir or f"runs/ppo-{Path(args.game).stem}-{time.strftime('%Y%m%d-%H%M%S')}")
    if run.exists() and any(run.iterdir()):
        if not cli.overwrite:
            raise SettingsError(f"--run-dir {run} exists and is not empty: --resume {run}, --overwrite or another "
                                "--run-dir")
        shutil.rmtree(run)
    return args, run, None


class Run:
    """A run directory being written: the step counters, the best evaluation, the logs and the checkpoints."""

    def __init__(self, args: Args, path: Path, trainer: Trainer, resumed: dict | None):
        from torch.utils.tensorboard import SummaryWriter

        self.args, self.path, self.trainer, self.learner = args, path, trainer, trainer.learner
        self.step, self.iteration, self.best, self.last_eval = 0, 0, -1.0, -1
        self.earlier_seconds = 0.0  # a resumed run's time before: max_seconds and the annealing count it
        if resumed is not None:
            self.restore(resumed)
        path.mkdir(parents=True, exist_ok=True)
        (path / "config.yaml").write_text(yaml.safe_dump(to_plain(args), sort_keys=False))
        (path / "versions.json").write_text(json.dumps(versions(), indent=1))
        self.writer = SummaryWriter(str(path / "tb"))
        self.bar = None
        if args.progress_bar:
            from tqdm import tqdm

            self.bar = tqdm(total=args.total_steps, initial=self.step, unit="step", unit_scale=True,
                            dynamic_ncols=True)
        self.start = time.perf_counter()

    def restore(self, resumed: dict) -> None:
        """The network, optimiser, random streams and counters of ``last.pt``; the games get new seed streams."""
        learner = self.learner
        learner.model.load_state_dict(resumed["model"])
        learner.opt.load_state_dict(resumed["optimizer"])
        learner.gen.set_state(resumed["gen"].to(learner.gen.device) if learner.device.type == "cpu"
                              else resumed["gen"])
        learner.cpu_gen.set_state(resumed["cpu_gen"])
        if resumed.get("anchor") is not None:
            learner.set_anchor(resumed["anchor"])
        for name, weights in resumed.get("past", []):  # oldest first: the ring fills as it did
            self.trainer.add_past(name, weights)
        self.step, self.iteration, self.best = resumed["step"], resumed["iteration"], resumed["best"]
        self.earlier_seconds = resumed.get("seconds", 0.0)  # absent from checkpoints before 2026-11-30
        self.trainer.reseed(self.iteration)

    def seconds(self) -> float:
        """Wall-clock seconds of the run, a resumed run's earlier ones included."""
        return self.earlier_seconds + time.perf_counter() - self.start

    def progress(self) -> float:
        """The share of the budget spent: of total_steps, or of max_seconds where that runs out sooner (a
        wall-clock budget then anneals the learning rate to 0 by its end, at the cost of depending on the
        machine's speed)."""
        done = self.step / self.args.total_steps
        return max(done, self.seconds() / self.args.max_seconds) if self.args.max_seconds else done

    def checkpoint(self, name: str) -> Path:
        learner = self.learner
        return save_checkpoint(self.path / name, learner.model, self.trainer.config_dict, {
            "args": to_plain(self.args), "step": self.step, "iteration": self.iteration, "best": self.best,
            "seconds": self.seconds(),
            "optimizer": learner.opt.state_dict(), "gen": learner.gen.get_state(),
            "cpu_gen": learner.cpu_gen.get_state(),
            "anchor": learner.anchor.state_dict() if learner.anchor is not None else None,
            "past": self.trainer.past_pool() if name == "last.pt" else []})  # resume reads last.pt only

    def evaluate(self) -> None:
        """A greedy evaluation of the current policy; the best one so far is kept as best.pt."""
        a = self.args
        res = evaluate_greedy(self.learner.model, self.trainer.config, a.obs_radius, a.eval_games, a.eval_seed,
                              a.max_cycles, self.learner.device)
        res.update(step=self.step, seconds=round(self.seconds(), 1))
        append_jsonl(self.path / "eval.jsonl", res)
        self.writer.add_scalar("eval/escaped_mean", res["escaped_mean"], self.step)
        self.last_eval = self.step
        if res["escaped_mean"] > self.best:
            self.best = res["escaped_mean"]
            self.checkpoint("best.pt")
        if self.bar is not None:
            self.bar.write(f"step {self.step:,}: greedy {res['escaped_mean']:.2f} ± {res['escaped_ci95']:.2f} "
                           f"cavers out (best {self.best:.2f})")

    def say(self, text: str) -> None:
        """A line on the terminal that leaves the progress bar whole."""
        if self.bar is not None:
            self.bar.write(text)
        else:
            print(text, flush=True)

    def iterate(self) -> dict[str, Any]:
        """One PPO iteration, logged (progress.jsonl, TensorBoard, the bar) and saved as last.pt."""
        a, trainer = self.args, self.trainer
        lr = a.lr * max(0.0, 1.0 - self.progress()) if a.anneal_lr else a.lr
        t0, before = time.perf_counter(), dict(trainer.timing)
        stats = trainer.iterate(lr, actor=self.step >= a.critic_warmup)
        wall = time.perf_counter() - t0
        per_iter = a.num_games * a.rollout
        self.step += per_iter
        self.iteration += 1
        split = {k: trainer.timing[k] - before[k] for k in before}
        split["other"] = max(0.0, wall - sum(split.values()))
        eps = list(trainer.episodes)
        record = {"step": self.step, "iteration": self.iteration, "seconds": round(self.seconds(), 2),
                  "env_steps_per_s": round(per_iter / wall, 1),
                  **{f"time_{k}": round(v / wall, 4) for k, v in split.items()}, **stats,
                  "episodes": len(eps), "return_mean": float(np.mean([e[0] for e in eps])) if eps else None,
                  "escaped_mean": float(np.mean([e[1] for e in eps])) if eps else None,
                  "medal_rate": float(np.mean([e[2] >= 1 for e in eps])) if eps else None}
        if a.partner is not None:  # the mixed games apart from the self-play ones
            for name, part in (("self_play", [e for e in eps if not e[3]]), ("mixed", [e for e in eps if e[3]])):
                record[f"escaped_{name}"] = float(np.mean([e[1] for e in part])) if part else None
        append_jsonl(self.path / "progress.jsonl", record)
        for k, v in record.items():
            if isinstance(v, float):
                self.writer.add_scalar(f"train/{k}", v, self.step)
        if self.crossed(a.partner_every):  # before last.pt, which keeps the pool for --resume
            trainer.add_past(f"past@{self.step}")
        self.checkpoint("last.pt")
        if self.bar is not None:
            self.bar.update(per_iter)
            self.bar.set_postfix(sps=f"{record['env_steps_per_s']:,.0f}", out=f"{record['escaped_mean'] or 0:.2f}",
                                 refresh=False)
        return record

    def crossed(self, every: int) -> bool:
        """The last iteration crossed a multiple of ``every`` env-steps (0: never)."""
        per_iter = self.args.num_games * self.args.rollout
        return bool(every) and self.step // every > (self.step - per_iter) // every

    def finish(self) -> None:
        if self.last_eval != self.step:  # the final policy is always evaluated
            self.evaluate()
        self.checkpoint("final.pt")
        export_onnx(self.path / "best.pt", self.path / "best.onnx")
        self.writer.close()
        if self.bar is not None:
            self.bar.close()
        print(f"{self.path}: {self.step:,} env-steps in {self.seconds():.0f} s; best greedy {self.best:.2f} cavers "
              f"out ({self.args.eval_games} games); policy: {self.path / 'best.pt'}")


def main(argv: list[str] | None = None) -> int:
    cli = parse_cli(argv)
    try:
        args, path, resumed = prepare_run(cli)
        spec = None
        if resumed is not None:
            spec = load_checkpoint(path / "last.pt")[0].spec
        trainer = Trainer(args, spec)
        if resumed is None:
            check_teacher(args, trainer.spec)
        start = initial_weights(args, trainer.spec) if resumed is None else None
    except (SettingsError, FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    # seeding: the network's initialisation and the sampling (Learner) and the games (Shard seeds) follow args.seed
    torch.set_num_threads(args.torch_threads)
    run = Run(args, path, trainer, resumed)
    if resumed is None and start is not None:
        trainer.learner.model.load_state_dict(start, strict=args.init_parts == "all")  # actor: the critic stays new
        run.say(f"init: the {'network' if args.init_parts == 'all' else 'actor'} of {args.init_from}")
        run.evaluate()  # at step 0: the curve starts from the checkpoint's policy in this game
    if resumed is None and args.bc_teacher:  # a resumed run's checkpoint already holds the cloned weights
        behaviour_clone(args, run)
        run.checkpoint("clone.pt")  # the clone itself: to evaluate, or to start another run from (init_from)
        run.evaluate()  # at step 0: the curve starts from the cloned policy
    if resumed is None and args.anchor_kl:
        trainer.learner.set_anchor()  # the start policy: the clone or init_from's (validate: one of them is set)
    trainer.reset()
    while run.step < args.total_steps:
        run.iterate()
        out_of_time = args.max_seconds and run.seconds() >= args.max_seconds
        if run.crossed(args.checkpoint_every):
            (path / "checkpoints").mkdir(exist_ok=True)
            shutil.copyfile(path / "last.pt", path / "checkpoints" / f"step_{run.step}.pt")
        if run.crossed(args.eval_every) and not out_of_time:
            run.evaluate()
        if out_of_time:
            break
    run.finish()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
