"""Soak In the Cave: many games over mixed settings, played by the heuristic with random legal actions mixed in,
the invariant checker after every step.

    python -m benchmarks.soak_itc [--games 100000] [--batch 64] [--check-every 1] [--max-seconds 0] [--out PATH]
    python -m benchmarks.soak_itc --epsilon 1                 # every action uniformly random (before issue 40)
    python -m benchmarks.soak --game in_the_cave ...          # the same, through the Sub Terra soak's entry point
    python -m benchmarks.soak_itc --replay LANE:SEED          # replay one reported game alone, checked every step

Why: the rule tests cover chosen positions; a long soak finds the rare ones (a refused "legal" action, a broken
invariant, a game that never ends, memory that keeps growing). Each settings lane (SETTINGS: 2-5 teams, the
first-game packing with a limited bank, non-default numbers) is one batch of ``--batch`` games on its own
``ItcCore``; lanes are stepped in turn and every finished slot is refilled with a new seed.

Who plays: uniformly random play never reaches the rules' own end (issue 40: every game truncated at max_rounds),
so end-of-game scoring never ran under the checker. Each decision is In the Cave's heuristic's
(agents/in_the_cave/heuristic.py), except that with the lane's probability epsilon (LANE_EPSILON, or --epsilon)
it is a uniformly random legal action. The heuristic draws no random numbers, and the coin and the random action
come from per-game streams keyed by (seed, decision number) (``soak_shared.random_decisions``,
``soak_shared.choose_actions``), so any reported game replays alone, exactly, from its lane, seed and epsilon. The
report splits each lane's games into those ended by the rules (final scoring) and those truncated at max_rounds.

After every ``--check-every`` steps each game that was running is checked with
``subterra_env.games.in_the_cave.invariants.check_batch`` (token conservation, slot limits, connectivity, depths,
ropes, exploration tokens, and at the end the scores against a recount; compiled, a few microseconds a game).
``--max-seconds`` stops the run when the time is up, and the report says how many games finished. RSS is read at
the start, half-way (half the games finished, or half of --max-seconds gone) and at the end. Exits non-zero on any
error; the JSON (default benchmarks/results/soak_itc.json) names each error's lane, settings, seed and step.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.in_the_cave.heuristic import heuristic_action
from benchmarks import soak_shared
from subterra_env.in_the_cave import preset
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.game import ItcCore
from subterra_env.games.in_the_cave.invariants import check, check_batch

SETTINGS: tuple[dict[str, Any], ...] = (
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 5},
    {"num_players": 3, "initial_pack": "fixed", "limited_bank": True},
    {"num_players": 4, "backpack_slots": 6, "camp_slots": 3, "action_points": 4, "limited_bank": True,
     "bank_consumables": 20, "bank_ropes": 8, "bank_oxygen": 4, "removed_per_stack": 10, "final_rounds": 2,
     "max_rounds": 40, "max_free_actions": 8,
     "fixed_pack": {"consumable": 2, "rope": 1, "oxygen": 1, "camera": 1, "raft": 1}},
)
# Each lane's chance that a decision is random rather than the heuristic's. The heuristic alone ends every game of
# lanes 0-4 by the rules (32 games each), a little randomness keeps that above 75%; in lane 5 (40 rounds, 4 AP,
# a small bank) the heuristic alone never completes the cave in time and random tile placements close it: 0% at
# epsilon 0, about 60% at 0.1, 44% at 0.2 (32-game samples).
LANE_EPSILON: tuple[float, ...] = (0.03, 0.02, 0.02, 0.01, 0.03, 0.1)
assert len(LANE_EPSILON) == len(SETTINGS)
DEFAULT_OUT = Path(__file__).parent / "results" / "soak_itc.json"
RESULT_NAMES = ("running", "ended", "truncated")
_MAX_STORED_ERRORS = 100


@dataclass
class Lane:
    index: int
    core: ItcCore
    G: np.ndarray
    seeds: np.ndarray
    keys: np.ndarray
    counted: np.ndarray  # the slot's game counts toward --games and is not tallied yet
    epsilon: float
    games: int = 0
    failed: int = 0
    steps: int = 0
    game_steps: int = 0
    results: np.ndarray = field(default_factory=lambda: np.zeros(3, dtype=np.int64))

    def load(self, slots: np.ndarray, seeds: np.ndarray, counted: bool) -> None:
        self.G[slots] = self.core.init(seeds)
        self.seeds[slots] = seeds
        self.keys[slots] = soak_shared.action_keys(seeds)
        self.counted[slots] = counted


def config_of(index: int):
    return preset("default", **SETTINGS[index])


def lane_epsilon(args: argparse.Namespace, index: int) -> float:
    return LANE_EPSILON[index] if args.epsilon is None else args.epsilon


def choose_actions(core: ItcCore, G: np.ndarray, keys: np.ndarray, masks: np.ndarray, epsilon: float) -> np.ndarray:
    """The heuristic's action for each running game, a random legal one at probability epsilon (replayable)."""
    steps = G[:, L.STEPS].astype(np.int64)
    actions = soak_shared.choose_actions(keys, steps, masks)
    planned = (G[:, L.OVER] == L.RUNNING) & ~soak_shared.random_decisions(keys, steps, epsilon)
    for i in np.flatnonzero(planned):  # the heuristic is plain Python, one game at a time
        actions[i] = heuristic_action(G[i], core.P, masks[i])
    return actions


class ItcSoak:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.rss_start = soak_shared.rss_mb()
        self.next_seed = int(args.seed) << 32
        self.finished = self.failed = 0
        self.errors: list[dict[str, Any]] = []
        self.error_count = 0
        self.lanes: list[Lane] = []
        for i in range(len(SETTINGS)):
            n = min(args.batch, self.budget())
            seeds = self.new_seeds(args.batch)
            core = ItcCore(config_of(i))
            lane = Lane(i, core, core.init(seeds), seeds, soak_shared.action_keys(seeds), np.arange(args.batch) < n,
                        lane_epsilon(args, i))
            self.lanes.append(lane)
            self.check(lane, np.arange(args.batch), "setup")

    def budget(self) -> int:
        in_flight = sum(int(lane.counted.sum()) for lane in self.lanes)
        return self.args.games - self.finished - self.failed - in_flight

    def new_seeds(self, n: int) -> np.ndarray:
        seeds = np.arange(self.next_seed, self.next_seed + n, dtype=np.int64)
        self.next_seed += n
        return seeds

    def check(self, lane: Lane, slots: np.ndarray, during: str) -> None:
        """The invariants of the games in ``slots``, in one compiled call; each failing game is reported."""
        for slot, errs in check_batch(lane.G, lane.core.config, slots).items():
            self.fail(lane, slot, f"invariants: {errs}", during)

    def fail(self, lane: Lane, slot: int, message: str, during: str) -> None:
        self.error_count += 1
        seed, step = int(lane.seeds[slot]), int(lane.G[slot, L.STEPS])
        print(f"ERROR lane {lane.index} {SETTINGS[lane.index]} seed {seed} step {step}: {message}",
              file=sys.stderr, flush=True)
        if len(self.errors) < _MAX_STORED_ERRORS:
            self.errors.append({"lane": lane.index, "settings": SETTINGS[lane.index], "seed": seed,
                                "epsilon": lane.epsilon, "game_step": step, "during": during, "error": message})
        if lane.counted[slot]:
            lane.failed += 1
            self.failed += 1
        lane.load(np.array([slot]), self.new_seeds(1), counted=False)  # an uncounted stand-in keeps the batch full

    def advance(self, lane: Lane, check_now: bool) -> None:
        G = lane.G
        running = np.flatnonzero(G[:, L.OVER] == L.RUNNING)
        masks = lane.core.masks(G)
        actions = choose_actions(lane.core, G, lane.keys, masks, lane.epsilon)
        codes = lane.core.step(G, actions)
        lane.steps += len(running)
        for slot in running[codes[running] != 0]:  # the mask said legal, the step refused it
            self.fail(lane, int(slot), f"action {int(actions[slot])} in the mask but refused (code "
                                       f"{int(codes[slot])})", "step")
        if check_now:
            self.check(lane, running[G[running, L.STEPS] > 0], "check")  # not a stand-in loaded just above
        over = np.flatnonzero(lane.counted & (G[:, L.OVER] != L.RUNNING))
        lane.counted[over] = False
        lane.games += len(over)
        self.finished += len(over)
        lane.game_steps += int(G[over, L.STEPS].sum())
        lane.results += np.bincount(G[over, L.OVER], minlength=3)
        for slot in np.flatnonzero(lane.counted & (G[:, L.STEPS] >= self.args.max_game_steps)):
            self.fail(lane, int(slot), f"did not end within {self.args.max_game_steps} decisions", "play")
        free = np.flatnonzero(~lane.counted & (G[:, L.OVER] != L.RUNNING))[:max(self.budget(), 0)]
        if len(free):
            lane.load(free, self.new_seeds(len(free)), counted=True)
            self.check(lane, free, "setup")

    def done(self) -> bool:
        return self.finished + self.failed >= self.args.games or not any(ln.counted.any() for ln in self.lanes)

    def run(self) -> dict[str, Any]:
        a = self.args
        rss_half: float | None = None
        start = last_print = time.perf_counter()
        loops, timed_out = 0, False
        while not self.done():
            for lane in self.lanes:
                self.advance(lane, loops % a.check_every == 0)
            loops += 1
            now = time.perf_counter()
            if rss_half is None and (self.finished + self.failed >= a.games / 2
                                     or (a.max_seconds and now - start >= a.max_seconds / 2)):
                rss_half = soak_shared.rss_mb()
            if now - last_print >= a.progress_seconds:
                last_print = now
                done = self.finished + self.failed
                print(f"[{now - start:7.1f}s] {done:>8,}/{a.games:,} games  {done / (now - start):7.1f} games/s  "
                      f"errors {self.error_count}  RSS {soak_shared.rss_mb():7.1f} MB", flush=True)
            if a.max_seconds and now - start >= a.max_seconds:
                timed_out = True
                break
        seconds = time.perf_counter() - start
        steps = sum(lane.steps for lane in self.lanes)
        games = self.finished + self.failed
        return {
            "games": games, "requested": a.games, "finished": self.finished, "failed": self.failed,
            "stopped_by_max_seconds": timed_out, "errors": self.error_count, "error_list": self.errors,
            "seconds": seconds, "games_per_s": games / seconds, "steps_total": steps, "steps_per_s": steps / seconds,
            "batch": a.batch, "check_every": a.check_every, "seed": a.seed, "max_game_steps": a.max_game_steps,
            "rss_mb": {"start": self.rss_start, "half": rss_half, "end": soak_shared.rss_mb(),
                       "peak": soak_shared.peak_rss_mb()},
            "lanes": [{"lane": ln.index, "settings": SETTINGS[ln.index], "epsilon": ln.epsilon, "games": ln.games,
                       "failed": ln.failed, "steps": ln.steps, "steps_per_game": ln.game_steps / max(ln.games, 1),
                       "results": dict(zip(RESULT_NAMES[1:], (int(n) for n in ln.results[1:]))),
                       "rules_end_share": int(ln.results[L.ENDED]) / max(ln.games, 1)}
                      for ln in self.lanes],
            "machine": platform.platform(), "python": platform.python_version(), "numpy": np.__version__,
        }


def replay_one(spec: str, max_steps: int, args: argparse.Namespace) -> int:
    """--replay LANE:SEED: that game alone as the soak played it, checked every step."""
    lane, seed = (int(x) for x in spec.split(":"))
    epsilon = lane_epsilon(args, lane)
    core = ItcCore(config_of(lane))
    seeds = np.array([seed], dtype=np.int64)
    G, keys = core.init(seeds), soak_shared.action_keys(seeds)
    problem = "; ".join(check(G[0], core.config))
    while not problem and G[0, L.OVER] == L.RUNNING and G[0, L.STEPS] < max_steps:
        a = choose_actions(core, G, keys, core.masks(G), epsilon)
        if core.step(G, a)[0] != 0:
            problem = f"action {int(a[0])} refused"
        problem = problem or "; ".join(check(G[0], core.config))
    outcome = problem or f"ok, {RESULT_NAMES[int(G[0, L.OVER])]} after {int(G[0, L.STEPS])} steps"
    print(f"lane {lane} {SETTINGS[lane]} seed {seed} epsilon {epsilon:g} step {int(G[0, L.STEPS])}: {outcome}")
    return 1 if problem else 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=100_000, help="games to finish (default 100000)")
    p.add_argument("--batch", type=int, default=64, help="games per settings lane (default 64)")
    p.add_argument("--check-every", type=int, default=1, help="check the invariants every N steps (default 1)")
    p.add_argument("--max-seconds", type=float, default=0, help="stop after this long (default 0: no limit)")
    p.add_argument("--seed", type=int, default=0, help="base of the game seeds")
    p.add_argument("--max-game-steps", type=int, default=20_000, help="a game past this many decisions fails")
    p.add_argument("--progress-seconds", type=float, default=30.0)
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"JSON report (default {DEFAULT_OUT})")
    p.add_argument("--replay", metavar="LANE:SEED", help="replay one game alone, checked every step, and exit")
    p.add_argument("--epsilon", type=float, default=None,
                   help="chance that a decision is a random legal action rather than the heuristic's, in every "
                        "lane (default: each lane's LANE_EPSILON; 1: all random). A --replay needs the same value")
    args = p.parse_args(argv)
    if args.epsilon is not None and not 0 <= args.epsilon <= 1:
        p.error("--epsilon must be in 0..1")
    if args.games < 1 or args.batch < 1 or args.check_every < 1 or args.max_seconds < 0:
        p.error("--games, --batch and --check-every must be >= 1, --max-seconds >= 0")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.replay:
        return replay_one(args.replay, args.max_game_steps, args)
    who = "each lane's epsilon" if args.epsilon is None else f"epsilon {args.epsilon:g}"
    print(f"In the Cave soak: {args.games:,} games, {len(SETTINGS)} lanes x {args.batch} games, heuristic with random "
          f"actions at {who}, invariants every {args.check_every} step(s)"
          + (f", at most {args.max_seconds:g} s" if args.max_seconds else ""), flush=True)
    rep = ItcSoak(args).run()
    rss = rep["rss_mb"]
    half = f"{rss['half']:.1f}" if rss["half"] is not None else "not reached"
    print(f"\ngames {rep['games']:,} of {rep['requested']:,} ({rep['finished']:,} finished, {rep['failed']} failed"
          f"{', stopped by --max-seconds' if rep['stopped_by_max_seconds'] else ''}) in {rep['seconds']:.1f} s: "
          f"{rep['games_per_s']:.2f} games/s, {rep['steps_total']:,} steps ({rep['steps_per_s']:,.0f}/s)\n"
          f"errors {rep['errors']}\nRSS MB start {rss['start']:.1f}, half {half}, end {rss['end']:.1f}, "
          f"peak {rss['peak']:.1f}")
    for ln in rep["lanes"]:
        print(f"  lane {ln['lane']} (epsilon {ln['epsilon']:.2f}): {ln['games']:>7,} games, "
              f"{ln['steps_per_game']:7.1f} steps/game, rules' end {100 * ln['rules_end_share']:5.1f}% "
              f"{ln['results']}  {ln['settings']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rep, indent=2))
    print(f"wrote {args.out}")
    return 1 if rep["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
