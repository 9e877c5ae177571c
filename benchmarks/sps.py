"""Steps per second of every interface to the Sub Terra rules, with reference PettingZoo games, in one run.

    python -m benchmarks.sps                       # full run: about 12 min on a 2-core machine
    python -m benchmarks.sps --quick               # seconds: B up to 256, 0.2 s, 1 repeat (the smoke test)
    python -m benchmarks.sps --batches 1 64 4096 --seconds 5 --repeats 7 --out /tmp/sps.json
    python -m benchmarks.sps --kinds aec core itc reference --batches 1 4096   # only some kinds of rows
    python -m benchmarks.sps_compare run1.json run2.json ...   # how far the rows of several runs agree

How a row is timed (so that runs agree: the machines are shared and noisy): every row's stepper is built and warmed
up for ``--warmup`` seconds, then the rows are timed in ``--repeats`` rounds, each row once a round for
``--seconds`` after 0.2 s of untimed calls (``--order rounds``; ``--order rows`` times a row's repeats one after the
other instead), so that a row's repeats are spread over the whole run rather than the few seconds in which the
machine's speed drifts together; before every timed run the machine rests ``--rest`` seconds (the OpenMP workers of
a threaded row spin on after it and slowed the next rows) and Python collects its garbage; after every timed run the
reference game (``--reference``, connect_four_v3) is timed the same way, so each repeat gives the row's ratio to it
under the same conditions. The table reports the median rate, the spread of the repeats ((max - min) / median: above
15% the row is not a figure yet) and "x ref", the median of the ratios, which cancels the drift of the machine's
load between rows and between runs. Beside them, "undisturbed" and "x undist.": each run is cut into 0.1 s slices,
and the row's 90th percentile of its slices' rates over the reference's 90th percentile (its runs interleaved with
this row's): other tenants of the machine only ever slow a slice down, so the fast end is what the code costs
(``undisturbed``).

Rows (every one timed by the same loop; all but the heuristic's under random legal play):

    aec        the PettingZoo AEC env, ``subterra_env.env()``, one game
    core       the compiled ``Core`` at each batch size B, the way the episode layer takes it: one ``core.advance``
               call per decision of every game (step, episode bookkeeping, legal masks, info counts: "step+mask";
               and the acting cavers' observations, radius 7, into preallocated arrays: "step+mask+obs"), then the
               episode layer's autoreset (``core.restart_games``: the new games, their mask rows and observations),
               so every call steps B live games (``core/advance.py``, ``benchmarks/one_call.py``).
               The actions come from the mask, so the step runs unchecked (as the vector envs do); at B = 4096
               (or the largest B) more rows: 1 thread (``Core(threads=1)``) beside numba's default (every core),
               "separate kernels" (step, then masks, then observations, each a pass over the batch), "radius
               2" (the native trainer's 5 x 5 window instead of the default 15 x 15: 0.9 KB written a game a
               decision instead of 7.6 KB; at B = 4096 memory bounds the default row), "checked"
               (separate calls with the default checked step, each action tested against a freshly computed mask)
               and "observation bytes alone" (the default window's arrays zeroed by the same threads, no rules:
               the memory floor of the step+mask+obs rows)
    heuristic  the compiled heuristic team (``agents.heuristic.HeuristicAgent``) on the same games, at B = 4096 (or
               the largest B): "heuristic decide" times ``decide`` alone (decisions per second of the team's
               choices; the rules' legal_mask + step between calls run outside the timer), at numba's default
               threads, at 1 thread (``threads=1``) and at B = 1; "heuristic team, whole games" times ``play``
               (decide + mask + step inside one compiled call, ``HEURISTIC_PLAY_CHUNK`` decisions per game per
               call), so its decisions per second include the rules. The batch starts spread over whole games
               (group k of ``STAGGER_GROUPS`` first plays ``k * STAGGER_STEP`` decisions by the heuristic), and
               finished games (or ones past round ``MAX_ROUND``, as training/evaluate.py truncates them) are
               re-initialised in place, so the timed states cover early, middle and late game
    vector     the stable-baselines3 VecEnv and the gymnasium VectorEnv at ``--num-envs`` slots
    torchrl    the native TorchRL env (``subterra_env.torchrl_env.SubterraTorchRLEnv``) at B = 1, 256 and 1024
               (``TORCHRL_BATCHES``, whatever ``--batches``), stepped with ``step_and_maybe_reset`` as TorchRL's
               rollouts and collectors do, and TorchRL's ``PettingZooWrapper(subterra_env.env(), use_mask=True)``
               (one game, ``rand_action`` under its masks), when torchrl is installed (``pip install -e .[torchrl]``)
    scenarios  each built expansion scenario (RULES_VAR.md: Annihilation, Extraction, Investigation): its AEC
               env, and the core "step+mask+obs" at B = 1 and B = 4096 (or the largest B), beside the base game's
               core rows
    itc        In the Cave (``subterra_env.in_the_cave``): its AEC env ``in_the_cave_v0`` (2 teams, one game), and its
               compiled ``ItcCore`` "step+mask" (``masks`` + ``step``, single-threaded) at B = 1 and B = 4096 (or
               the largest B); finished or truncated games are replaced in place by new ones inside the timer
    reference  PettingZoo's connect_four_v3 and hanabi_v5 (4 players), when installed (``pip install -e .[bench]``)

Columns: env-steps/s (decisions taken per second over all games), batch calls/s, µs per call, games finished/s
("-", 0 in the JSON, for the "heuristic decide" rows, whose timer leaves the rules out: their seconds are
decide's alone; the JSON's "timer" says which rows: "decide", else "wall").
The core's batch starts with B new games, so at large B, where a run is a few dozen calls and a random game about
a hundred decisions, games/s is below its steady state (about env-steps/s / decisions per game).
The random policy of the core rows is a compiled loop (``random_legal``), so that the rows time the engine
rather than numpy's random-number calls. A row whose import fails prints "not installed (reason)" instead of
crashing. Memory: State.nbytes_per_game()
and the tracemalloc peak per game of init + a few step+mask+obs calls at the largest B. The JSON (default
benchmarks/results/sps.json) also records the machine. Timings are wall clock on a shared machine: indicative.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import platform
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numba
import numpy as np

import subterra_env
from subterra_env.config import GameConfig
from subterra_env.games.sub_terra.core.advance import Advance
from subterra_env.games.sub_terra.core.jit import PARALLEL_MIN_BATCH, parallel_section
from subterra_env.games.sub_terra.core.observe import observe
from subterra_env.games.sub_terra.core.restart import restart_games
from subterra_env.games.sub_terra.core.rng import draw_one
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RUNNING
from subterra_env.game import EpisodeBook
from subterra_env.rewards import TeamReward
from subterra_env.spaces import grid_shape, num_scalars

# One timed call: returns (env-steps taken, games finished) during the call, and optionally the seconds of the
# call that count (a stepper that keeps part of its work out of the timer); without them the call's wall time.
Step = Callable[[], "tuple[int, int] | tuple[int, int, float]"]

DEFAULT_BATCHES = (1, 16, 256, 1024, 4096, 16384)
QUICK_BATCHES = (1, 16, 256)
DEFAULT_OUT = Path(__file__).parent / "results" / "sps.json"
OBS_RADIUS = 7
TRAINER_RADIUS = 2  # training/ppo.py's ego network's window (configs/train/ppo_tiny.yaml obs_radius)
WARMUP_CALLS = 3
REWARM = 0.2  # seconds of untimed calls before each timed run in rounds (``time_in_rounds``), at most --warmup
MEMORY_CALLS = 5
TORCHRL_BATCHES = (1, 256, 1024)  # the rows: >= 100,000 env-steps/s at B = 1024 on the 2-core machine
HEURISTIC_BATCH = 4096  # the target: >= 100,000 heuristic decisions/s at B = 4096 on the 2-core machine
HEURISTIC_PLAY_CHUNK = 8  # decisions per game in one timed ``play`` call of the whole-games row
STAGGER_GROUPS = 16  # the heuristic rows' batch starts in this many groups, group k advanced k * STAGGER_STEP
STAGGER_STEP = 16  # decisions (a full game is about 250 heuristic decisions)
MAX_ROUND = 200  # games past this round are re-initialised, as training/evaluate.py truncates them (max_cycles)
SLICE = 0.1  # seconds: the timed runs are cut into slices this long for the undisturbed rates (``undisturbed``)
UNDISTURBED = 0.9  # the quantile of the slices' rates reported as a row's undisturbed rate
# Reference games: (module under pettingzoo.classic, registry id, settings).
REFERENCES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("connect_four_v3", "classic/connect_four-v3", {}),
    ("hanabi_v5", "classic/hanabi-v5", {"players": 4}),
)


@dataclass
class Row:
    """One line of the table (and of the JSON's "rows")."""

    kind: str  # aec | core | heuristic | vector | torchrl | itc | reference
    name: str
    batch: int
    status: str = "ok"  # or "not installed (reason)"
    timer: str = "wall"  # what the rates divide by: "wall" (the whole call) or "decide" (the agent's part alone)
    env_steps_per_s: float = 0.0
    calls_per_s: float = 0.0
    us_per_call: float = 0.0
    games_per_s: float = 0.0
    samples: list[float] = field(default_factory=list)  # env-steps/s of every repeat, sorted
    spread: float = 0.0  # (max - min) / median of the samples: above 0.15 the row is not a figure yet
    x_reference: float = 0.0  # median over the repeats of env-steps/s / the interleaved reference's (0: none)
    # The rate when nothing else slows the machine: the UNDISTURBED quantile of the runs' SLICE-second slices
    # (timed_run), and its ratio to the reference's, taken the same way from the runs interleaved with this row's.
    undisturbed_env_steps_per_s: float = 0.0
    x_reference_undisturbed: float = 0.0
    slices: int = 0  # how many slices the undisturbed rate is taken over


# ---------------------------------------------------------------------------------------------- timing
def timed_run(step: Step, seconds: float, slices: list[float] | None = None) -> tuple[float, float, float]:
    """Call ``step`` for ``seconds``; returns (env-steps/s, calls/s, games/s).

    A step that returns its own timed seconds (a third value) is called until those add up to ``seconds``, and
    the rates divide by them rather than by the wall clock. ``slices``: the env-steps/s of every SLICE seconds
    of the run (whole calls; a last part shorter than SLICE is left out, a run shorter than SLICE is one slice)
    are appended to it."""
    steps = games = calls = 0
    counted = elapsed = mark = 0.0
    own_timer = False
    mark_steps = 0
    start = time.perf_counter()
    while elapsed < seconds:
        s, g, *timed = step()
        steps, games, calls = steps + s, games + g, calls + 1
        if timed:
            own_timer, counted = True, counted + timed[0]
        elapsed = counted if own_timer else time.perf_counter() - start
        if slices is not None and elapsed - mark >= SLICE:
            slices.append((steps - mark_steps) / (elapsed - mark))
            mark, mark_steps = elapsed, steps
    if slices is not None and mark == 0.0:  # a run shorter than a slice is one slice
        slices.append(steps / elapsed)
    return steps / elapsed, calls / elapsed, games / elapsed


def measure(kind: str, name: str, batch: int, make_step: Callable[[], Step], timing: Timing,
            timer: str = "wall") -> Row:
    """The row of one benchmark: warm up, then the median (by env-steps/s) of ``timing.repeats`` timed runs,
    each followed by a run of the interleaved reference game (``timing.reference``) under the same conditions,
    so the row's ratio to it (``x_reference``, the median of the per-repeat ratios) cancels the machine's drift.
    Beside the medians, the undisturbed rates (``undisturbed``): the row's and the reference's over the slices of
    all their runs. The repeats run one after the other (``--order rows``; ``run_rows`` takes them in rounds).

    Before every timed run the machine rests (``timing.rest`` seconds: numba's OpenMP workers of a threaded row
    spin on after it, and the kernel's page cache and frequency settle) and Python's garbage is collected.
    An ImportError while building the stepper gives a "not installed" row instead of an exception."""
    timed = Timed.start(kind, name, batch, make_step, timing, timer)
    if isinstance(timed, Row):
        return timed
    for _ in range(timing.repeats):
        timed.run_once(timing)
    return timed.row()


@dataclass
class Timed:
    """A row being timed: its warmed-up stepper, and the runs (rate, calls/s, games/s) and slices so far."""

    kind: str
    name: str
    batch: int
    timer: str
    step: Step
    runs: list[tuple[float, float, float]] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)  # each run's rate over the reference run after it
    slices: list[float] = field(default_factory=list)
    reference_slices: list[float] = field(default_factory=list)

    @classmethod
    def start(cls, kind: str, name: str, batch: int, make_step: Callable[[], Step], timing: Timing,
              timer: str = "wall") -> Timed | Row:
        """The stepper built and warmed up; a "not installed" Row where building it raised ImportError."""
        try:
            step = make_step()
        except ImportError as e:
            return Row(kind, name, batch, status=f"not installed ({type(e).__name__}: {e})", timer=timer)
        warm_up(step, timing.warmup)
        return cls(kind, name, batch, timer, step)

    def run_once(self, timing: Timing, rewarm: float = 0.0) -> None:
        """One timed run of the row and one of the reference after it; ``rewarm`` seconds of untimed calls first
        (``warm_up``: a row whose caches the other rows of a round have since filled)."""
        if rewarm:
            warm_up(self.step, rewarm)
        self.runs.append(timing.run(self.step, self.slices))
        if timing.reference is not None:
            self.ratios.append(self.runs[-1][0] / timing.run(timing.reference, self.reference_slices)[0])

    def row(self) -> Row:
        """The table's line: the median run, the repeats' spread, the median ratio, the undisturbed rates."""
        fast, fast_reference = undisturbed(self.slices), undisturbed(self.reference_slices)
        runs = sorted(self.runs)
        sps, cps, gps = runs[len(runs) // 2]
        if self.timer != "wall":
            gps = 0.0  # games finished per second of the agent's part alone would mean nothing: not reported
        samples = [r[0] for r in runs]
        return Row(self.kind, self.name, self.batch, timer=self.timer, env_steps_per_s=sps, calls_per_s=cps,
                   us_per_call=1e6 / cps if cps else 0.0, games_per_s=gps, samples=samples,
                   spread=(samples[-1] - samples[0]) / sps if sps else 0.0,
                   x_reference=float(np.median(self.ratios)) if self.ratios else 0.0,
                   undisturbed_env_steps_per_s=fast,
                   x_reference_undisturbed=fast / fast_reference if fast_reference else 0.0,
                   slices=len(self.slices))


def undisturbed(slices: list[float]) -> float:
    """The rate of a row when nothing else slows the machine: the UNDISTURBED quantile of its slices' rates (0.0
    for none).

    Why a high quantile and not the median: on the shared machines another tenant halves a Python loop's speed
    for a fraction of a second at a time, often (connect_four_v3 alone, 200 slices of 0.1 s on a quiet 2-core
    VM: 3,600-9,300 steps/s, 10th percentile 4,600, median 7,800, 90th 8,900), and such slowdowns come and go
    independently of what is timed, so even interleaved, the median ratios of a row moved by up to 44% between
    three runs (docs/benchmarks/sps_agree_2026-12-04b.json).
    Outside work only ever slows a run down, so the fast end of the slices is what the code itself costs (as
    Python's timeit advises: its fastest repeat); the quantile rather than the maximum leaves out a lucky slice."""
    return float(np.quantile(slices, UNDISTURBED)) if slices else 0.0


def warm_up(step: Step, seconds: float) -> None:
    """Call ``step`` for at least WARMUP_CALLS calls and ``seconds`` (caches, branch predictors, lazily compiled
    code and the allocator reach their steady state before the timer starts)."""
    start, calls = time.perf_counter(), 0
    while calls < WARMUP_CALLS or time.perf_counter() - start < seconds:
        step()
        calls += 1


@dataclass
class Timing:
    """How every row is timed: ``repeats`` runs of ``seconds``, each after ``rest`` seconds of rest, warmed up for
    ``warmup`` seconds; ``reference`` is the stepper of the game each run is interleaved with (None: none)."""

    seconds: float
    repeats: int
    warmup: float
    rest: float
    reference: Step | None = None
    reference_name: str = ""

    def run(self, step: Step, slices: list[float] | None = None) -> tuple[float, float, float]:
        gc.collect()
        time.sleep(self.rest)
        return timed_run(step, self.seconds, slices)


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of a (B, A) mask (the batched policy of every vector row)."""
    out = np.empty(len(mask), dtype=np.int64)
    _pick_legal(mask, rng.integers(0, 2**62, size=len(mask)), out)
    return out


class RandomLegal:
    """random_legal for a batch stepped again and again: the random numbers come from a counter-based stream inside
    the compiled pick (at B = 1 a numpy draw per call would cost as much as the engine's own step), and at
    ``PARALLEL_MIN_BATCH`` games or more the pick is spread over ``threads`` numba threads as the core's kernels are
    (at B = 4096 the serial pick and numpy's draws took 0.2-0.34 ms of a 3.6 ms decision on two threads)."""

    def __init__(self, rng: np.random.Generator, batch: int, threads: int | None = None):
        self.key, self.counter, self.batch, self.threads = np.uint64(rng.integers(0, 2**63)), 0, batch, threads
        self.out = np.empty(batch, dtype=np.int64)

    def __call__(self, mask: np.ndarray) -> np.ndarray:
        if self.batch >= PARALLEL_MIN_BATCH and self.threads != 1:
            with parallel_section(self.threads):
                _pick_stream_parallel(mask, self.key, self.counter, self.out)
        else:
            _pick_stream(mask, self.key, self.counter, self.out)
        self.counter += self.batch
        return self.out


# Not cached: numba's cache records the module by name, and a cache written under one name (a test loading the file,
# ``python benchmarks/sps.py``) fails to load under another (``python -m benchmarks.sps``). It compiles in a second.
@numba.njit
def _pick_one(mask: np.ndarray, b: int, draw: int, out: np.ndarray) -> None:
    """out[b] = the legal action of row b numbered draw % (its legal count); 0 where none is legal."""
    n = 0
    for a in range(mask.shape[1]):
        n += mask[b, a]
    k = draw % max(n, 1)
    out[b] = 0
    for a in range(mask.shape[1]):
        if mask[b, a]:
            if k == 0:
                out[b] = a
                break
            k -= 1


@numba.njit
def _pick_legal(mask: np.ndarray, draws: np.ndarray, out: np.ndarray) -> None:
    for b in range(mask.shape[0]):
        _pick_one(mask, b, draws[b], out)


@numba.njit
def _stream_draw(key: np.uint64, counter: int) -> int:
    """The stream's draw at ``counter``, below 2**62 as the numpy draws of random_legal."""
    return np.int64(draw_one(key, np.uint64(counter)) >> np.uint64(2))


@numba.njit
def _pick_stream(mask: np.ndarray, key: np.uint64, counter: int, out: np.ndarray) -> None:
    for b in range(mask.shape[0]):
        _pick_one(mask, b, _stream_draw(key, counter + b), out)


@numba.njit(parallel=True)
def _pick_stream_parallel(mask: np.ndarray, key: np.uint64, counter: int, out: np.ndarray) -> None:
    for b in numba.prange(mask.shape[0]):
        _pick_one(mask, b, _stream_draw(key, counter + b), out)


@numba.njit(parallel=True)
def zero_observations(grid: np.ndarray, scalars: np.ndarray) -> None:
    # what observe_game does first for every game (out[:] = 0, sc[:] = 0), over the same threads, and nothing else
    for b in numba.prange(grid.shape[0]):
        grid[b] = 0
        scalars[b] = 0


# ---------------------------------------------------------------------------------------------- steppers
def observation_bytes_stepper(batch: int, radius: int = OBS_RADIUS) -> Step:
    """The memory floor of the observation rows: every game's observation arrays zeroed by numba's threads, as
    the compiled writer starts each game's, and no rule, mask or observation computed. Its env-steps/s is what the
    machine's memory allows a row that writes these bytes; beside the step + mask row it bounds the step + mask +
    obs row (1 / (1 / step+mask + 1 / this))."""
    grid = np.ones((batch, *grid_shape(radius)), dtype=np.int8)
    scalars = np.ones((batch, num_scalars()), dtype=np.int8)

    def step() -> tuple[int, int]:
        with parallel_section(None):
            zero_observations(grid, scalars)
        return batch, 0

    return step


def aec_stepper(make_env: Callable[[], Any], seed: int) -> Step:
    """One decision per call in any PettingZoo AEC env with ``action_mask`` observations; resets finished games."""
    env = make_env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)

    def step() -> tuple[int, int]:
        games = 0
        while True:
            if not env.agents:
                env.reset()
                games += 1
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            return 1, games

    return step


def core_stepper(batch: int, with_obs: bool, seed: int, config: GameConfig | None = None,
                 threads: int | None = None, checked: bool = False, one_call: bool | None = None,
                 radius: int = OBS_RADIUS) -> Step:
    """One decision of every game of a batch as the episode layer takes it: one ``core.advance`` call (step,
    episode bookkeeping, legal masks, info counts and, ``with_obs``, the acting cavers' observations) and the
    autoreset of the games that ended (``restart_games``: their setup, mask rows and observations, in one more
    call). ``one_call=False``: the separate kernels instead (legal_mask, observe, step, each a pass over the whole
    batch; finished games re-initialised in place). ``checked``: separate calls with the default checked step (each
    action tested against a freshly computed mask). ``radius``: the observation window's (7: the env's default,
    15 x 15; 2: the native trainer's 5 x 5)."""
    core = Core(config or GameConfig(), threads=threads)
    next_seed = seed << 32  # game seeds seed<<32, seed<<32 + 1, ...: a fresh game for every reset
    st = core.init(np.arange(next_seed, next_seed + batch))
    next_seed += batch
    policy = RandomLegal(np.random.default_rng(seed), batch, threads)
    scenario = core.cfg.scenario  # a scenario's observation has more planes and scalars
    grid = np.zeros((batch, *grid_shape(radius, scenario)), dtype=np.int8)
    scalars = np.zeros((batch, num_scalars(scenario)), dtype=np.int8)
    mask = core.legal_mask(st)
    book = EpisodeBook(batch, core.cfg.num_cavers, True, MAX_ROUND)  # the episode layer's arrays
    book.counts = np.zeros((5, batch), dtype=np.int64)
    flags, team = (book.terminated, book.truncated, book.over, book.done), TeamReward()

    def new_seeds(n: int) -> np.ndarray:  # the next n game seeds of the stream
        nonlocal next_seed
        next_seed += n
        return np.arange(next_seed - n, next_seed)

    # bound once for these arrays, as the episode layer does (sub_terra.SubTerra.advance): binding looks up the
    # compiled entry (jit.compiled_entry), which costs milliseconds, so a binding per call would time the lookup
    bound = Advance(core, team).bind(st, book.reward, book.ep_return, book.ep_length, MAX_ROUND, flags, mask,
                                     book.counts, (grid, scalars) if with_obs else None, radius)

    def one_trip() -> tuple[int, int]:
        bound(policy(mask), book.all_slots)
        done = np.flatnonzero(book.over)
        if len(done):  # the episode layer's autoreset: the new games, their mask rows and observations only
            restart_games(core, st, done, new_seeds(len(done)), mask, book.counts, MAX_ROUND, book.ep_return,
                          book.ep_length, (book.terminated, book.truncated, book.over),
                          (grid, scalars) if with_obs else None, radius)
        return batch, len(done)

    def separate_calls() -> tuple[int, int]:
        core.legal_mask(st, out=mask)
        if with_obs:  # every game runs (finished ones are replaced below), so every actor is a seat
            observe(core.cat, st, st.actor, radius, grid, scalars)
        core.step(st, policy(mask), check=checked)
        done = np.flatnonzero(st.result != RUNNING)
        if len(done):
            core.reset(st, done, new_seeds(len(done)))
        return batch, len(done)

    if one_call is None:  # the one call at every batch size, as the episode layer (core/advance.py)
        one_call = not checked
    return one_trip if one_call else separate_calls


def itc_core_stepper(batch: int, seed: int, num_players: int = 2) -> Step:
    """One batched call of In the Cave's ``ItcCore``: masks + step with random legal actions; games that end or are
    truncated (R-ITC-END-4) are replaced in place by new games (inside the timer)."""
    from subterra_env.in_the_cave import ItcConfig
    from subterra_env.games.in_the_cave.core import layout as itc_layout
    from subterra_env.games.in_the_cave.core.game import ItcCore

    core = ItcCore(ItcConfig(num_players=num_players))
    next_seed = seed << 32
    G = core.init(np.arange(next_seed, next_seed + batch))
    next_seed += batch
    policy = RandomLegal(np.random.default_rng(seed), batch)

    def step() -> tuple[int, int]:
        nonlocal next_seed
        core.step(G, policy(core.masks(G)))
        done = np.flatnonzero(G[:, itc_layout.OVER] != itc_layout.RUNNING)
        if len(done):
            G[done] = core.init(np.arange(next_seed, next_seed + len(done)))
            next_seed += len(done)
        return batch, len(done)

    return step


def itc_env() -> Any:
    from subterra_env.in_the_cave import env

    return env()


def heuristic_agent() -> type:
    """``agents.heuristic.HeuristicAgent`` (imported when a heuristic row runs)."""
    from agents.heuristic import HeuristicAgent

    return HeuristicAgent


_STAGGERED: dict[tuple[int, int], tuple[Any, int]] = {}


def staggered_games(batch: int, seed: int) -> tuple[Any, int]:
    """A batch of ``batch`` full games spread over whole games, and the next unused game seed: game b (seed
    ``seed << 32 | b``) is first played by the heuristic team for ``(b % STAGGER_GROUPS) * STAGGER_STEP``
    decisions; games that end (or pass round MAX_ROUND) on the way start afresh with the next seeds. Built once
    per (batch, seed) and copied (every heuristic row starts from the same states)."""
    if (batch, seed) not in _STAGGERED:
        _STAGGERED[(batch, seed)] = _stagger(Core(GameConfig()), batch, seed)
    st, next_seed = _STAGGERED[(batch, seed)]
    return st.copy(), next_seed


def _stagger(core: Core, batch: int, seed: int) -> tuple[Any, int]:
    HeuristicAgent = heuristic_agent()
    next_seed = seed << 32
    st = core.init(np.arange(next_seed, next_seed + batch))
    next_seed += batch
    team = HeuristicAgent(_Games(core, st))
    for k in range(1, STAGGER_GROUPS):
        games = np.arange(k, batch, STAGGER_GROUPS)
        if not len(games):
            continue
        sub = st.take(games)
        team.play(core, sub, max_steps=k * STAGGER_STEP, max_round=MAX_ROUND)
        st.put(games, sub)
    next_seed = _restart_finished(core, st, next_seed)[0]
    return st, next_seed


class _Games:
    """What a game-bound agent reads (agents.base.game_view): the core and the State."""

    def __init__(self, core: Core, state: Any):
        self.core, self.state = core, state


def _restart_finished(core: Core, st: Any, next_seed: int) -> tuple[int, int]:
    """Finished games, and games past round MAX_ROUND, start afresh in place; returns (next seed, games done)."""
    done = np.flatnonzero((st.result != RUNNING) | (st.round > MAX_ROUND))
    if len(done):
        core.reset(st, done, np.arange(next_seed, next_seed + len(done)))
    return next_seed + len(done), len(done)


def heuristic_decide_stepper(batch: int, seed: int, threads: int | None = None) -> Step:
    """One timed ``HeuristicAgent.decide`` over every game of a staggered batch; then (untimed) the decided
    actions are stepped and finished games re-initialised. Returns the decide call's own seconds."""
    HeuristicAgent = heuristic_agent()
    core = Core(GameConfig(), threads=threads)
    st, next_seed = staggered_games(batch, seed)
    team = HeuristicAgent(_Games(core, st), threads=threads)
    games = np.arange(batch)
    mask = np.zeros((batch, core.num_actions), dtype=bool)

    def step() -> tuple[int, int, float]:
        nonlocal next_seed
        core.legal_mask(st, out=mask)
        start = time.perf_counter()
        actions = team.decide(core, st, games, mask)
        seconds = time.perf_counter() - start
        core.step(st, actions, check=False)  # the heuristic's actions are legal (it checks them against the mask)
        next_seed, done = _restart_finished(core, st, next_seed)
        return batch, done, seconds

    return step


def heuristic_play_stepper(batch: int, seed: int, threads: int | None = None) -> Step:
    """One ``HeuristicAgent.play`` call of HEURISTIC_PLAY_CHUNK decisions per game (decide + legal_mask + step
    compiled together) on a staggered batch; finished games re-initialised in place (inside the timer, as in the
    core rows)."""
    HeuristicAgent = heuristic_agent()
    core = Core(GameConfig(), threads=threads)
    st, next_seed = staggered_games(batch, seed)
    team = HeuristicAgent(_Games(core, st), threads=threads)

    def step() -> tuple[int, int]:
        nonlocal next_seed
        taken = team.play(core, st, max_steps=HEURISTIC_PLAY_CHUNK, max_round=MAX_ROUND)
        next_seed, done = _restart_finished(core, st, next_seed)
        return int(taken.sum()), done

    return step


def sb3_stepper(num_envs: int, seed: int) -> Step:
    """The stable-baselines3 VecEnv (needs the train extra), actions from ``action_masks()``."""
    from subterra_env.sb3 import SubterraVecEnv

    venv = SubterraVecEnv(num_envs=num_envs, seed=seed)
    venv.reset()
    rng = np.random.default_rng(seed)

    def step() -> tuple[int, int]:
        _, _, dones, _ = venv.step(random_legal(rng, venv.action_masks()))
        return num_envs, int(dones.sum())

    return step


def gym_vector_stepper(num_envs: int, seed: int) -> Step:
    """The gymnasium VectorEnv, actions from ``info["action_mask"]``."""
    from subterra_env.vector import SubterraVectorEnv

    venv = SubterraVectorEnv(num_envs)
    _, info = venv.reset(seed=seed)
    rng = np.random.default_rng(seed)

    def step() -> tuple[int, int]:
        nonlocal info
        _, _, term, trunc, info = venv.step(random_legal(rng, info["action_mask"]))
        return num_envs, int((term | trunc).sum())

    return step


def torchrl_stepper(batch: int, seed: int) -> Step:
    """The native TorchRL env (default game), random legal actions from its ``action_mask``; one
    ``step_and_maybe_reset`` per call (the finished slots' new games handed out, as in a rollout)."""
    import torch

    from subterra_env.torchrl_env import SubterraTorchRLEnv

    env = SubterraTorchRLEnv(batch, seed=seed)
    td = env.reset()
    policy = RandomLegal(np.random.default_rng(seed), batch)

    def step() -> tuple[int, int]:
        nonlocal td
        td["action"] = torch.from_numpy(policy(td["action_mask"].numpy()))
        out, td = env.step_and_maybe_reset(td)
        return batch, int(out["next", "done"].sum())

    return step


def torchrl_pettingzoo_stepper(seed: int) -> Step:
    """TorchRL's PettingZooWrapper over the AEC env as the README shows it (one group per caver, masks on);
    ``rand_action`` samples each group's action under its mask."""
    import warnings

    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "PettingZoo in TorchRL is tested")
        env = PettingZooWrapper(subterra_env.env(), use_mask=True, seed=seed)
    td = env.reset()

    def step() -> tuple[int, int]:
        nonlocal td
        out, td = env.step_and_maybe_reset(env.rand_action(td))
        return 1, int(out["next", "done"].any())

    return step


def pettingzoo_classic(module: str, env_id: str, **kwargs: Any) -> Callable[[], Any]:
    """A factory of a PettingZoo classic game; any failure to build it is raised as ImportError (with the reason)."""

    def make() -> Any:
        try:
            import pettingzoo

            if hasattr(pettingzoo, "make"):  # the registry API (PettingZoo >= 1.27); the module API warns
                return pettingzoo.make("aec", env_id, **kwargs)
            return importlib.import_module(f"pettingzoo.classic.{module}").env(**kwargs)
        except ImportError:
            raise
        except Exception as e:  # e.g. gymnasium's DependencyNotInstalled, an unknown env id
            raise ImportError(f"{type(e).__name__}: {e}") from e

    return make


def reference_stepper(module: str, seed: int) -> Step | None:
    """The warmed-up stepper of the reference game every row is interleaved with; None (with a note) where
    PettingZoo's classic games are not installed."""
    env_id, kwargs = next((i, k) for m, i, k in REFERENCES if m == module)
    try:
        step = aec_stepper(pettingzoo_classic(module, env_id, **kwargs), seed)
    except ImportError as e:
        print(f"no interleaved reference: {module} is not installed ({e})")
        return None
    warm_up(step, 0.2)
    return step


# ---------------------------------------------------------------------------------------------- rows
KINDS = ("aec", "core", "heuristic", "vector", "torchrl", "scenarios", "itc", "reference")
SCENARIO_ROWS = ("annihilation", "extraction", "investigation")  # the built scenarios (config.BUILT_SCENARIOS but "base")


def run_rows(batches: list[int], num_envs: int, timing: Timing, seed: int,
             kinds: tuple[str, ...] = KINDS, order: str = "rounds") -> list[Row]:
    """Every row of ``kinds``, printed as its line is known (in rounds, after the last round). ``order``: "rounds"
    builds and warms up every row first, then times repeat k of every row in round k (``time_in_rounds``); "rows"
    times a row's repeats one after the other, then the next row's (the only order before issue 43's rounds)."""
    if order not in ("rounds", "rows"):
        raise ValueError(f"order={order!r}: expected 'rounds' or 'rows'")

    def row(kind: str, name: str, batch: int, make_step: Callable[[], Step], timer: str = "wall") -> Row | Timed:
        if order == "rounds":
            return Timed.start(kind, name, batch, make_step, timing, timer)
        r = measure(kind, name, batch, make_step, timing, timer=timer)
        print_row(r, flush=True)
        return r

    if order == "rows":
        print_header(timing.reference_name)
    rows: list[Row | Timed] = []
    if "aec" in kinds:
        rows.append(row("aec", "subterra AEC env (PettingZoo)", 1, partial(aec_stepper, subterra_env.env, seed)))
    if "core" in kinds:
        for b in batches:
            for with_obs, variant in ((False, "step+mask"), (True, "step+mask+obs")):
                rows.append(row("core", f"core {variant}", b, partial(core_stepper, b, with_obs, seed)))
        if max(batches) >= PARALLEL_MIN_BATCH and numba.get_num_threads() > 1:
            b = 4096 if 4096 in batches else max(batches)  # the 1-vs-2-thread comparison is at B = 4096
            rows.append(row("core", "core step+mask, 1 thread", b, partial(core_stepper, b, False, seed,
                                                                             threads=1)))
            rows.append(row("core", "core step+mask+obs, 1 thread", b, partial(core_stepper, b, True, seed,
                                                                                 threads=1)))
            rows.append(row("core", "core step+mask+obs, checked", b, partial(core_stepper, b, True, seed,
                                                                                checked=True)))
        b = 4096 if 4096 in batches else max(batches)
        # the default 15 x 15 window writes 7.6 KB a game a decision (memory-bound at B = 4096); the trainer's
        # 5 x 5 writes 0.9 KB
        rows.append(row("core", "core step+mask+obs, radius 2", b, partial(core_stepper, b, True, seed,
                                                                            radius=TRAINER_RADIUS)))
        rows.append(row("core", "core step+mask+obs, separate kernels", b, partial(core_stepper, b, True, seed,
                                                                                     one_call=False)))
        rows.append(row("core", "core observation bytes alone (zeroed, no rules)", b,
                        partial(observation_bytes_stepper, b)))
    if "heuristic" in kinds:
        rows += heuristic_rows(batches, seed, row)
    if "vector" in kinds:
        rows.append(row("vector", "SB3 VecEnv", num_envs, partial(sb3_stepper, num_envs, seed)))
        rows.append(row("vector", "gymnasium VectorEnv", num_envs, partial(gym_vector_stepper, num_envs, seed)))
    if "torchrl" in kinds:
        for b in TORCHRL_BATCHES:
            rows.append(row("torchrl", "TorchRL env (native)", b, partial(torchrl_stepper, b, seed)))
        rows.append(row("torchrl", "TorchRL PettingZooWrapper", 1, partial(torchrl_pettingzoo_stepper, seed)))
    if "scenarios" in kinds:
        for name in SCENARIO_ROWS:
            cfg = GameConfig(scenario=name)
            rows.append(row("scenarios", f"{name} AEC env (PettingZoo)", 1,
                            partial(aec_stepper, partial(subterra_env.env, scenario=name), seed)))
            for b in sorted({1, 4096 if 4096 in batches else max(batches)}):
                rows.append(row("scenarios", f"{name} core step+mask+obs", b,
                                partial(core_stepper, b, True, seed, config=cfg)))
    if "itc" in kinds:
        rows.append(row("itc", "in_the_cave AEC env (PettingZoo)", 1, partial(aec_stepper, itc_env, seed)))
        for b in sorted({1, 4096 if 4096 in batches else max(batches)}):
            rows.append(row("itc", "in_the_cave core step+mask", b, partial(itc_core_stepper, b, seed)))
    if "reference" in kinds:
        for module, env_id, kwargs in REFERENCES:
            label = module + "".join(f" {k}={v}" for k, v in kwargs.items())
            make_env = pettingzoo_classic(module, env_id, **kwargs)
            rows.append(row("reference", label, 1, partial(aec_stepper, make_env, seed)))
    if order == "rows":
        return rows  # type: ignore[return-value]  # measured: every entry is a Row
    return time_in_rounds(rows, timing)


def time_in_rounds(rows: list[Row | Timed], timing: Timing) -> list[Row]:
    """Repeat k of every row in round k, each after REWARM seconds of its own untimed calls; then the table.

    Why rounds: the machine's speed drifts over tens of seconds to minutes (another tenant's work, the host's
    clock and caches), which a row's repeats taken together (10-20 s) all share, so its median moved with the
    moment it ran. In rounds, a row's repeats are spread over the whole run and its median over as many moments."""
    timed = [r for r in rows if isinstance(r, Timed)]
    start = time.perf_counter()
    for k in range(timing.repeats):
        for t in timed:
            t.run_once(timing, rewarm=min(REWARM, timing.warmup))
        print(f"round {k + 1} of {timing.repeats}: {len(timed)} rows timed ({time.perf_counter() - start:,.0f} s)",
              flush=True)
    print()
    print_header(timing.reference_name)
    table = [r.row() if isinstance(r, Timed) else r for r in rows]
    for r in table:
        print_row(r, flush=True)
    return table


def heuristic_rows(batches: list[int], seed: int, row: Callable[..., Row | Timed]) -> list[Row | Timed]:
    """The compiled heuristic team's rows (see the module docstring), at B = 4096 (or the largest B) and B = 1."""
    b = HEURISTIC_BATCH if HEURISTIC_BATCH in batches else max(batches)
    rows = [row("heuristic", "heuristic decide", b, partial(heuristic_decide_stepper, b, seed), "decide")]
    if b >= PARALLEL_MIN_BATCH and numba.get_num_threads() > 1:
        rows.append(row("heuristic", "heuristic decide, 1 thread", b,
                        partial(heuristic_decide_stepper, b, seed, threads=1), "decide"))
    if b != 1:
        rows.append(row("heuristic", "heuristic decide", 1, partial(heuristic_decide_stepper, 1, seed), "decide"))
    rows.append(row("heuristic", "heuristic team, whole games", b, partial(heuristic_play_stepper, b, seed)))
    return rows


def memory_per_game(batch: int, seed: int) -> dict[str, float]:
    """State bytes per game, and the tracemalloc peak per game of init + MEMORY_CALLS step+mask+obs calls."""
    tracemalloc.start()
    try:
        step = core_stepper(batch, True, seed)
        for _ in range(MEMORY_CALLS):
            step()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    state_bytes = Core(GameConfig()).init(np.arange(1)).nbytes_per_game()
    return {"batch": batch, "state_bytes_per_game": state_bytes, "peak_traced_bytes_per_game": peak / batch,
            "peak_traced_mib": peak / 2**20, "calls": MEMORY_CALLS}


# ---------------------------------------------------------------------------------------------- output
COLUMNS = (("benchmark", 32, "<"), ("B", 6, ">"), ("env-steps/s", 13, ">"), ("calls/s", 11, ">"),
           ("µs/call", 11, ">"), ("games/s", 10, ">"), ("spread", 8, ">"), ("x ref", 9, ">"),
           ("undisturbed", 13, ">"), ("x undist.", 10, ">"))
STATUS_WIDTH = 100  # a "not installed (reason)" is cut to this in the table (the JSON keeps all of it)


def print_header(reference: str = "") -> None:
    if reference:
        print(f"x ref: the row's rate over {reference}'s, timed alternately with it (median of the repeats' "
              "ratios); spread: (max - min) / median of the repeats;\nundisturbed: the 90th percentile of the "
              f"runs' {SLICE:g} s slices; x undist.: over {reference}'s, taken the same way")
    print("".join(f"{title:{align}{width}}" for title, width, align in COLUMNS))
    print("-" * sum(width for _, width, _ in COLUMNS))


def print_row(r: Row, flush: bool = False) -> None:
    head = f"{r.name:<32}{r.batch:>6}"
    if r.status != "ok":
        status = r.status if len(r.status) <= STATUS_WIDTH else r.status[:STATUS_WIDTH - 4] + "...)"
        print(f"{head}  {status}", flush=flush)
        return
    games = f"{r.games_per_s:>10,.1f}" if r.timer == "wall" else f"{'-':>10}"
    ratio = f"{r.x_reference:>8.2f}x" if r.x_reference else f"{'-':>9}"
    fast = f"{r.x_reference_undisturbed:>9.2f}x" if r.x_reference_undisturbed else f"{'-':>10}"
    print(f"{head}{r.env_steps_per_s:>13,.0f}{r.calls_per_s:>11,.1f}{r.us_per_call:>11,.0f}{games}"
          f"{r.spread:>8.0%}{ratio}{r.undisturbed_env_steps_per_s:>13,.0f}{fast}", flush=flush)


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (None where the OS has none): the machine is shared."""
    return list(os.getloadavg()) if hasattr(os, "getloadavg") else None


def machine() -> dict[str, Any]:
    return {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(), "numba_threads": numba.get_num_threads(),
            "load_average": load_average(),
            "python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
            "subterra_env": subterra_env.__version__}


# ---------------------------------------------------------------------------------------------- main
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batches", type=int, nargs="+", default=None, metavar="B",
                   help=f"core batch sizes [default: {' '.join(map(str, DEFAULT_BATCHES))}; "
                        f"{' '.join(map(str, QUICK_BATCHES))} with --quick]")
    p.add_argument("--num-envs", type=int, default=256,
                   help="slots of the SB3 and gymnasium vector envs [default: 256]")
    p.add_argument("--seconds", type=float, default=None,
                   help="length of one timed run [default: 2; 0.2 with --quick]")
    p.add_argument("--repeats", type=int, default=None,
                   help="timed runs per row, the median is reported [default: 5; 1 with --quick]")
    p.add_argument("--warmup", type=float, default=None,
                   help="seconds of untimed calls before a row's first timed run [default: 1; 0.05 with --quick]")
    p.add_argument("--rest", type=float, default=None,
                   help="seconds of rest before every timed run [default: 0.3; 0 with --quick]")
    p.add_argument("--reference", default="connect_four_v3", choices=[m for m, _, _ in REFERENCES] + ["none"],
                   help="the game every timed run is interleaved with, for the 'x ref' column "
                        "[default: connect_four_v3; 'none' to time the rows alone]")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the games and of the random policies [default: 0]")
    p.add_argument("--quick", action="store_true",
                   help="a tiny run for smoke tests: the smaller defaults above")
    p.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS),
                   help="which kinds of rows to run [default: all]")
    p.add_argument("--order", choices=("rounds", "rows"), default="rounds",
                   help="rounds: repeat k of every row in round k (a row's repeats spread over the run); rows: a "
                        "row's repeats one after the other [default: rounds]")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help="where to write the JSON results [default: benchmarks/results/sps.json]")
    args = p.parse_args(argv)
    args.batches = args.batches or list(QUICK_BATCHES if args.quick else DEFAULT_BATCHES)
    args.seconds = args.seconds if args.seconds is not None else (0.2 if args.quick else 2.0)
    args.repeats = args.repeats if args.repeats is not None else (1 if args.quick else 5)
    args.warmup = args.warmup if args.warmup is not None else (0.05 if args.quick else 1.0)
    args.rest = args.rest if args.rest is not None else (0.0 if args.quick else 0.3)
    if min(args.batches) < 1 or args.num_envs < 1 or args.seconds <= 0 or args.repeats < 1:
        p.error("batch sizes, --num-envs and --repeats must be >= 1 and --seconds > 0")
    if args.warmup < 0 or args.rest < 0:
        p.error("--warmup and --rest must be >= 0")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run every row, print the table, write the JSON; returns what was written."""
    args = parse_args(argv)
    info = machine()  # the load average as the run starts
    print(f"{args.repeats} x {args.seconds:g} s per row (median and undisturbed rates reported); "
          f"{os.cpu_count()} CPUs, {numba.get_num_threads()} numba threads, Python {platform.python_version()}, "
          f"numpy {np.__version__}, numba {numba.__version__}\n")
    timing = Timing(args.seconds, args.repeats, args.warmup, args.rest)
    if args.reference != "none" and (reference := reference_stepper(args.reference, args.seed)) is not None:
        timing.reference, timing.reference_name = reference, args.reference
    rows = run_rows(args.batches, args.num_envs, timing, args.seed, tuple(args.kinds), args.order)
    memory = memory_per_game(max(args.batches), args.seed)
    print(f"\nmemory: state {memory['state_bytes_per_game']:,} B/game; tracemalloc peak "
          f"{memory['peak_traced_bytes_per_game']:,.0f} B/game (init + {MEMORY_CALLS} step+mask+obs calls "
          f"at B={memory['batch']}, {memory['peak_traced_mib']:,.1f} MiB)")
    result = {"machine": info | {"load_average_end": load_average()},
              "settings": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
              "rows": [asdict(r) for r in rows], "memory": memory}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(f"wrote {args.out}")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
