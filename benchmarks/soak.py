"""Soak test: many games over mixed settings, played by the heuristic with random legal actions mixed in, the
rules' invariants checked every step.

    python -m benchmarks.soak [--games 100000] [--batch 2048] [--check-every 1] [--seed 0] [--out PATH]
    python -m benchmarks.soak --lanes scenarios       # only the expansion scenarios' lanes (or --lanes 0 3 8)
    python -m benchmarks.soak --epsilon 1             # every action uniformly random (the soak before issue 40)
    python -m benchmarks.soak --replay LANE:SEED      # replay one reported game alone, checked every step
    python -m benchmarks.soak --game in_the_cave ...  # In the Cave's soak instead (benchmarks/soak_itc.py)

Why: the rule tests cover chosen situations; a long soak finds the rare ones (a crash, a broken invariant, a
game that never ends, memory that keeps growing). Each settings lane (LANES: the base game's SETTINGS, which
the golden trajectories also record, then the built scenarios') is one batch of `--batch` games
on its own Core; lanes are stepped in turn and every finished slot is refilled at once with a new seed
(``state.put(idx, core.init(seeds))``), so batches stay full until the last games drain.

Who plays: uniformly random play never gets a caver out (issue 40: 100% defeats in every lane), so escapes,
medals, the exit's immunity, Out of Time with cavers on the exit and the scenarios' wins went unchecked. Each
decision is the compiled heuristic's (agents/heuristic), except that with the lane's probability epsilon
(LANE_EPSILON, or --epsilon for every lane) it is a uniformly random legal action instead: the heuristic takes the
games to the endgame, the random actions take them where the heuristic never goes. The heuristic draws no random
numbers and the coin and the random action come from per-game streams keyed by (seed, decision number), so any
reported game replays alone, exactly, from its lane, seed and epsilon. The report gives each lane's medal mix,
the games that ended with at least one caver out and the wins (a medal; in a scenario, its win condition met).

Prints a progress line every few seconds and a table at the end, writes JSON (default
benchmarks/results/soak.json) and exits non-zero on any error. Each error in the JSON names its lane and
settings, the game's seed, game_step (the game's decision counter when it failed; -1 if unknown), when it
happened (setup, step, check, play) and the message; ``--replay LANE:SEED`` then reproduces it alone.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.heuristic import HeuristicAgent
from benchmarks.soak_shared import action_keys, choose_actions, peak_rss_mb, random_decisions, rss_mb
from subterra_env.config import GameConfig
from subterra_env.games.sub_terra.core.invariants import InvariantError, check_invariants, snapshot
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RESULT_NAMES, RUNNING, State
from subterra_env.info import game_info

SETTINGS: tuple[dict[str, Any], ...] = (
    {},
    {"num_cavers": 5, "difficulty": "advanced"},
    {"num_cavers": 6, "difficulty": "expert", "seat_order": "random"},
    {"difficulty": "easier", "hide_third_round_auto": True, "diver_surface_whole_turn": True},
    {"exit_counts_in_cave": True, "no_effect_actions_illegal": False, "exit_never_discarded": False},
    {"cavers": ("diver", "scout", "medic", "leader"), "explore_cost": 2, "heal_cost": 1,
     "scout_may_discard_exit": True},
    {"num_cavers": 6, "cavers": ("geologist", "engineer", "climber", "medic", "bodyguard", "leader"),
     "gas_enter_damage": 3, "cave_in_damage": 4},
    {"num_cavers": 5, "cavers": ("diver", "scout", "geologist", "engineer", "bodyguard")},
)
# The expansion scenarios' lanes (RULES_VAR.md): after SETTINGS, so the golden groups (soak0..) keep their numbers.
SCENARIO_LANES: tuple[dict[str, Any], ...] = (
    {"scenario": "annihilation"},
    {"scenario": "annihilation", "num_cavers": 6, "difficulty": "expert", "seat_order": "random"},
    {"scenario": "extraction", "biosamples": True},
    {"scenario": "extraction", "num_cavers": 5, "difficulty": "advanced", "seat_order": "random",
     "sanctuary_blocks_horrors": True},
    {"scenario": "investigation"},
    {"scenario": "investigation", "num_cavers": 6, "difficulty": "expert", "seat_order": "random",
     "gas_mask_keeps": True},
    {"scenario": "investigation", "num_cavers": 5, "difficulty": "advanced", "explicit_reactions": True},
)
LANES: tuple[dict[str, Any], ...] = SETTINGS + SCENARIO_LANES
# Each lane's chance that a decision is random rather than the heuristic's. Spread so that some lanes play close
# to the heuristic (most games reach the exit) and others wander more (stranger positions, still >= 30% of games
# with a caver out: at 256 games a lane, epsilon 0.1 leaves extraction with biosamples (lane 10) at 30% and lane
# 5 at 36%; epsilon 0.03 keeps every lane above 45%).
LANE_EPSILON: tuple[float, ...] = (0.01, 0.03, 0.06, 0.01, 0.03, 0.03, 0.01, 0.03,
                                   0.01, 0.03, 0.01, 0.03, 0.06, 0.01, 0.03)
assert len(LANE_EPSILON) == len(LANES)
DEFAULT_OUT = Path(__file__).parent / "results" / "soak.json"
_MAX_STORED_ERRORS = 100
_MAX_ISOLATIONS = 5  # crashes whose game is searched for by replay (each costs a few seconds)


# ---------------------------------------------------------------------------------------------- play
class Player:
    """The soak's player for one Core: the heuristic, with a random legal action at probability epsilon."""

    def __init__(self, core: Core, st: State, epsilon: float):
        self.core, self.epsilon = core, epsilon
        # decide() is given the core and state on each call; the binding only satisfies the constructor
        self.agent = HeuristicAgent(_Bound(core, st))

    def actions(self, st: State, keys: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = choose_actions(keys, st.steps, mask)
        planned = np.flatnonzero((st.result == RUNNING) & ~random_decisions(keys, st.steps, self.epsilon))
        if len(planned):
            actions[planned] = self.agent.decide(self.core, st, planned, mask[planned])
        return actions


@dataclass
class _Bound:
    core: Core
    state: State


def replay(cfg: GameConfig, seeds: list[int], max_steps: int, epsilon: float) -> BaseException | None:
    """Play these games as the soak did, checking every step; the first exception, or None."""
    try:
        core = Core(cfg)
        st = core.init(np.asarray(seeds, dtype=np.int64))
        keys = action_keys(np.asarray(seeds, dtype=np.int64))
        player = Player(core, st, epsilon)
        mask = core.legal_mask(st)
        check_invariants(cfg, None, st, mask)
        while (st.result == RUNNING).any() and st.steps.max() < max_steps:
            before = snapshot(st)
            core.step(st, player.actions(st, keys, mask))
            mask = core.legal_mask(st)
            check_invariants(cfg, before, st, mask)
    except Exception as e:  # noqa: BLE001 - reporting any failure is the point
        return e
    return None


def isolate(cfg: GameConfig, seeds: list[int], max_steps: int, epsilon: float) -> list[int]:
    """Seeds among `seeds` whose game fails when replayed alone (bisection over batch replays)."""
    if replay(cfg, seeds, max_steps, epsilon) is None:
        return []
    if len(seeds) == 1:
        return seeds
    half = len(seeds) // 2
    return isolate(cfg, seeds[:half], max_steps, epsilon) + isolate(cfg, seeds[half:], max_steps, epsilon)


# ---------------------------------------------------------------------------------------------- lanes
@dataclass
class Lane:
    """One settings lane: a Core and a full batch of games, refilled as games end."""

    index: int
    core: Core
    st: State
    mask: np.ndarray
    seeds: np.ndarray  # (B,) seed of the game in each slot
    keys: np.ndarray  # (B,) action-stream key of each slot
    counted: np.ndarray  # (B,) the slot's game counts toward --games and is not tallied yet
    player: Player
    loops: int = 0
    games: int = 0
    failed: int = 0
    steps: int = 0  # decisions played in this lane (every running game, every step)
    game_steps: int = 0  # decisions of the games tallied as finished
    results: np.ndarray = field(default_factory=lambda: np.zeros(len(RESULT_NAMES), dtype=np.int64))
    out_games: int = 0  # tallied games that ended with at least one caver out
    out_results: np.ndarray = field(default_factory=lambda: np.zeros(len(RESULT_NAMES), dtype=np.int64))
    cavers_out: int = 0  # cavers out, summed over the tallied games

    @property
    def settings(self) -> dict[str, Any]:
        return LANES[self.index]

    def load(self, slots: np.ndarray, seeds: np.ndarray, counted: bool) -> None:
        """Start new games in the given slots (checked right after setup)."""
        fresh = self.core.init(seeds)
        mask = self.core.legal_mask(fresh)
        self.st.put(slots, fresh)
        self.mask[slots] = mask
        self.seeds[slots] = seeds
        self.keys[slots] = action_keys(seeds)
        self.counted[slots] = counted
        check_invariants(self.core.cfg, None, fresh, mask)

    def step(self, check: bool) -> None:
        """One decision for every running game; invariants checked after it when `check`."""
        self.steps += int((self.st.result == RUNNING).sum())
        actions = self.player.actions(self.st, self.keys, self.mask)
        before = snapshot(self.st) if check else None
        self.core.step(self.st, actions)
        self.mask = self.core.legal_mask(self.st)
        if before is not None:
            check_invariants(self.core.cfg, before, self.st, self.mask)


    def tally(self, ended: np.ndarray) -> None:
        """Count the results of the games in slots `ended` (over, counted, not tallied yet)."""
        self.counted[ended] = False
        self.games += len(ended)
        self.game_steps += int(self.st.steps[ended].sum())
        results = self.st.result[ended]
        self.results += np.bincount(results, minlength=len(RESULT_NAMES))
        out = np.array([game_info(self.st, int(g))["escaped"] for g in ended], dtype=np.int64)
        self.cavers_out += int(out.sum())
        self.out_games += int((out > 0).sum())
        self.out_results += np.bincount(results[out > 0], minlength=len(RESULT_NAMES))


def new_lane(index: int, seeds: np.ndarray, counted: np.ndarray, epsilon: float) -> Lane:
    """A lane of the given settings index playing `seeds`; `counted` marks the games that count."""
    core = Core(GameConfig(**LANES[index]))
    st = core.init(seeds)
    lane = Lane(index, core, st, core.legal_mask(st), seeds.copy(), action_keys(seeds), counted.copy(),
                Player(core, st, epsilon))
    check_invariants(core.cfg, None, st, lane.mask)
    return lane


# ---------------------------------------------------------------------------------------------- the soak
class Soak:
    """Runs the lanes until --games games have finished or failed; keeps every count and error."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.rss_start = rss_mb()  # before the lanes are allocated, so their size shows
        self.next_seed = int(args.seed) << 32
        self.finished = self.failed = self.aborted = self.isolations = 0
        self.errors: list[dict[str, Any]] = []
        self.error_count = 0
        self.lanes: list[Lane] = []
        for i in args.lanes:
            n = min(args.batch, self.budget())
            counted = np.arange(args.batch) < n
            self.lanes.append(new_lane(i, self.new_seeds(args.batch), counted, lane_epsilon(args, i)))

    # --- counts
    def in_flight(self) -> int:
        return sum(int(lane.counted.sum()) for lane in self.lanes)

    def budget(self) -> int:
        """Games still to start: --games less those finished, failed or under way."""
        return self.args.games - self.finished - self.failed - self.in_flight()

    def new_seeds(self, n: int) -> np.ndarray:
        seeds = np.arange(self.next_seed, self.next_seed + n, dtype=np.int64)
        self.next_seed += n
        return seeds

    def done(self) -> bool:
        return self.finished + self.failed >= self.args.games or not any(lane.counted.any() for lane in self.lanes)

    # --- one lane iteration
    def advance(self, lane: Lane) -> None:
        check = lane.loops % self.args.check_every == 0
        lane.loops += 1
        try:
            lane.step(check)
        except InvariantError as e:
            self.fail_games(lane, e.games, f"InvariantError: {e}", during="check")
        except Exception as e:  # noqa: BLE001 - any crash is a soak result, not a reason to stop
            self.crash(lane, e)
        self.harvest(lane)
        self.refill(lane)

    def harvest(self, lane: Lane) -> None:
        """Tally the counted games that ended; fail the ones past --max-game-steps."""
        st = lane.st
        ended = np.flatnonzero(lane.counted & (st.result != RUNNING))
        lane.tally(ended)
        self.finished += len(ended)
        stuck = np.flatnonzero(lane.counted & (st.steps >= self.args.max_game_steps))
        if len(stuck):
            self.fail_games(lane, stuck, f"did not end within {self.args.max_game_steps} decisions", during="play")

    def refill(self, lane: Lane) -> None:
        """Start new counted games in the slots whose game has ended, as far as the budget allows."""
        free = np.flatnonzero(~lane.counted & (lane.st.result != RUNNING))[:max(self.budget(), 0)]
        if len(free):
            try:
                lane.load(free, self.new_seeds(len(free)), counted=True)
            except InvariantError as e:
                self.fail_games(lane, free[e.games], f"InvariantError after setup: {e}", during="setup")

    # --- failures
    def fail_games(self, lane: Lane, slots: np.ndarray, message: str, during: str) -> None:
        """Record the games in `slots` as failed and replace them by uncounted fresh games."""
        for slot in slots:
            self.record(lane, int(lane.seeds[slot]), int(lane.st.steps[slot]), message, during)
        counted = int(lane.counted[slots].sum())
        lane.failed += counted
        self.failed += counted
        lane.counted[slots] = False
        lane.load(np.asarray(slots), self.new_seeds(len(slots)), counted=False)

    def crash(self, lane: Lane, exc: Exception) -> None:
        """An exception from the core: find the game(s) by replay, then restart the whole lane.

        The exception may have left any game of the batch half-updated, so every game under way is dropped
        (counted as aborted and started again) except the culprits, which count as failed.
        """
        message = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=-3)}"
        live = np.flatnonzero(lane.st.result == RUNNING)
        culprits = self.isolate_slots(lane, live)
        for slot in culprits:
            self.record(lane, int(lane.seeds[slot]), int(lane.st.steps[slot]), message,
                        during="step (isolated by replay)")
        if not len(culprits):
            seeds = [int(s) for s in lane.seeds[live[:20]]]
            self.record(lane, None, -1, f"{message}\nnot isolated; live seeds {seeds}...", during="step")
        failed = int(lane.counted[culprits].sum())
        lane.failed += failed
        self.failed += failed
        self.aborted += int(lane.counted.sum()) - failed
        lane.counted[:] = False
        lane.load(np.arange(self.args.batch), self.new_seeds(self.args.batch), counted=False)

    def isolate_slots(self, lane: Lane, live: np.ndarray) -> np.ndarray:
        """Slots among `live` whose game fails when replayed alone (only for the first few crashes: slow)."""
        if self.isolations >= _MAX_ISOLATIONS:
            return np.zeros(0, dtype=np.intp)
        self.isolations += 1
        bad = isolate(lane.core.cfg, [int(s) for s in lane.seeds[live]], self.args.max_game_steps,
                      lane.player.epsilon)
        return live[np.isin(lane.seeds[live], bad)]

    def record(self, lane: Lane, seed: int | None, game_step: int, message: str, during: str) -> None:
        self.error_count += 1
        print(f"ERROR lane {lane.index} {lane.settings} seed {seed} step {game_step}: {message}",
              file=sys.stderr, flush=True)
        if len(self.errors) < _MAX_STORED_ERRORS:
            self.errors.append({"lane": lane.index, "settings": _jsonable(lane.settings), "seed": seed,
                                "epsilon": lane.player.epsilon, "game_step": game_step, "during": during,
                                "error": message})

    # --- the run
    def run(self) -> dict[str, Any]:
        a = self.args
        rss_warm: float | None = None
        start = last_print = time.perf_counter()
        while not self.done():
            for lane in self.lanes:
                self.advance(lane)
            if rss_warm is None and self.finished + self.failed >= a.games * a.warmup:
                rss_warm = rss_mb()
            if time.perf_counter() - last_print >= a.progress_seconds:
                last_print = time.perf_counter()
                self.progress(last_print - start)
        seconds = time.perf_counter() - start
        return self.report(seconds, self.rss_start, rss_warm if rss_warm is not None else rss_mb(), rss_mb())

    def progress(self, elapsed: float) -> None:
        done = self.finished + self.failed
        steps = sum(lane.steps for lane in self.lanes)
        print(f"[{elapsed:7.1f}s] {done:>9,}/{self.args.games:,} games  {done / elapsed:8,.0f} games/s  "
              f"{steps:>13,} steps  errors {self.error_count}  RSS {rss_mb():7.1f} MB", flush=True)

    def report(self, seconds: float, rss_start: float, rss_warm: float, rss_end: float) -> dict[str, Any]:
        steps = sum(lane.steps for lane in self.lanes)
        games = self.finished + self.failed
        return {
            "games": games, "finished": self.finished, "failed": self.failed, "aborted": self.aborted,
            "errors": self.error_count, "error_list": self.errors,
            "seconds": seconds, "games_per_s": games / seconds, "steps_total": steps, "steps_per_s": steps / seconds,
            "batch": self.args.batch, "check_every": self.args.check_every, "seed": self.args.seed,
            "max_game_steps": self.args.max_game_steps,
            "rss_mb": {"start": rss_start, "after_warmup": rss_warm, "end": rss_end,
                       "growth_after_warmup": rss_end - rss_warm, "peak": peak_rss_mb()},
            "lanes": [lane_report(lane) for lane in self.lanes],
            "machine": platform.platform(), "python": platform.python_version(), "numpy": np.__version__,
        }


def lane_report(lane: Lane) -> dict[str, Any]:
    """The lane's counts; ``results`` is the medal mix, ``with_caver_out`` the games with >= 1 caver out at the
    end and their medal mix, ``wins`` the games won (any medal: in a scenario lane, its win condition met)."""
    games = max(lane.games, 1)
    return {"lane": lane.index, "settings": _jsonable(lane.settings), "epsilon": lane.player.epsilon,
            "games": lane.games, "failed": lane.failed,
            "steps": lane.steps, "steps_per_game": lane.game_steps / games,
            "results": dict(zip(RESULT_NAMES, (int(n) for n in lane.results))),
            "with_caver_out": {"games": lane.out_games, "share": lane.out_games / games,
                               "results": dict(zip(RESULT_NAMES, (int(n) for n in lane.out_results)))},
            "cavers_out_per_game": lane.cavers_out / games,
            "wins": int(lane.results[1:].sum()), "win_share": int(lane.results[1:].sum()) / games,
            "scenario": lane.settings.get("scenario", "base")}


def lane_epsilon(args: argparse.Namespace, index: int) -> float:
    return LANE_EPSILON[index] if args.epsilon is None else args.epsilon


def _jsonable(settings: dict[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in settings.items()}


# ---------------------------------------------------------------------------------------------- output
def print_table(rep: dict[str, Any]) -> None:
    print(f"\n{'lane':<5}{'eps':>5}{'games':>9}{'failed':>7}{'steps/g':>8}  "
          + "".join(f"{n:>8}" for n in RESULT_NAMES) + f"{'>=1 out':>9}{'out/g':>6}{'wins':>8}  settings")
    for ln in rep["lanes"]:
        shares = "".join(f"{100 * n / max(ln['games'], 1):7.1f}%" for n in ln["results"].values())
        print(f"{ln['lane']:<5}{ln['epsilon']:>5.2f}{ln['games']:>9,}{ln['failed']:>7}{ln['steps_per_game']:>8.1f}  "
              f"{shares}{100 * ln['with_caver_out']['share']:>8.1f}%{ln['cavers_out_per_game']:>6.2f}"
              f"{100 * ln['win_share']:>7.1f}%  {ln['settings'] or 'defaults'}")
    rss = rep["rss_mb"]
    rows = [("games", f"{rep['games']:,} ({rep['finished']:,} finished, {rep['failed']} failed, "
                      f"{rep['aborted']} aborted)"),
            ("time", f"{rep['seconds']:.1f} s"), ("games/s", f"{rep['games_per_s']:,.1f}"),
            ("steps", f"{rep['steps_total']:,} ({rep['steps_per_s']:,.0f}/s)"),
            ("checked", f"every {rep['check_every']} step(s), batch {rep['batch']} per lane"),
            ("errors", str(rep["errors"])),
            ("RSS MB", f"start {rss['start']:.1f}, after warm-up {rss['after_warmup']:.1f}, end {rss['end']:.1f} "
                       f"(growth {rss['growth_after_warmup']:+.1f}), peak {rss['peak']:.1f}")]
    print()
    for name, value in rows:
        print(f"{name:<10}{value}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=100_000, help="games to finish (default 100000)")
    p.add_argument("--batch", type=int, default=2048, help="games per settings lane (default 2048)")
    p.add_argument("--check-every", type=int, default=1, help="check the invariants every N steps (default 1)")
    p.add_argument("--seed", type=int, default=0, help="base of the game seeds")
    p.add_argument("--max-game-steps", type=int, default=5000, help="a game past this many decisions fails")
    p.add_argument("--warmup", type=float, default=0.1, help="fraction of the games before the warm-up RSS")
    p.add_argument("--progress-seconds", type=float, default=5.0)
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"JSON report (default {DEFAULT_OUT})")
    p.add_argument("--replay", metavar="LANE:SEED", help="replay one game alone, checked every step, and exit")
    p.add_argument("--epsilon", type=float, default=None,
                   help="chance that a decision is a random legal action rather than the heuristic's, in every "
                        "lane (default: each lane's LANE_EPSILON; 1: all random). A --replay needs the same value")
    p.add_argument("--lanes", nargs="+", default=["all"],
                   help=f"lanes to run: indices 0..{len(LANES) - 1} of LANES, 'base' (SETTINGS), 'scenarios' "
                        "(SCENARIO_LANES) or 'all' [default]")
    args = p.parse_args(argv)
    named = {"all": range(len(LANES)), "base": range(len(SETTINGS)),
             "scenarios": range(len(SETTINGS), len(LANES))}
    try:
        args.lanes = sorted({i for x in args.lanes for i in (named[x] if x in named else [int(x)])})
    except ValueError:
        p.error(f"--lanes {args.lanes}: expected lane indices, 'all', 'base' or 'scenarios'")
    if not args.lanes or not all(0 <= i < len(LANES) for i in args.lanes):
        p.error(f"--lanes: indices 0..{len(LANES) - 1}")
    if args.games < 1 or args.batch < 1 or args.check_every < 1:
        p.error("--games, --batch and --check-every must be >= 1")
    if args.epsilon is not None and not 0 <= args.epsilon <= 1:
        p.error("--epsilon must be in 0..1")
    return args


def replay_one(spec: str, args: argparse.Namespace) -> int:
    """--replay LANE:SEED: play that game alone as the soak did, checked every step; print how it ends."""
    lane, seed = (int(x) for x in spec.split(":"))
    epsilon = lane_epsilon(args, lane)
    error = replay(GameConfig(**LANES[lane]), [seed], args.max_game_steps, epsilon)
    outcome = "ok" if error is None else f"{type(error).__name__}: {error}"
    print(f"lane {lane} {LANES[lane]} seed {seed} epsilon {epsilon:g}: {outcome}")
    if error is not None:
        traceback.print_exception(error)
    return 0 if error is None else 1


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:2] == ["--game", "in_the_cave"]:  # the other game's soak, with its own options
        from benchmarks import soak_itc

        return soak_itc.main(argv[2:])
    if argv[:2] == ["--game", "subterra"]:
        argv = argv[2:]
    args = parse_args(argv)
    if args.replay:
        return replay_one(args.replay, args)
    who = "each lane's epsilon" if args.epsilon is None else f"epsilon {args.epsilon:g}"
    print(f"soak: {args.games:,} games, {len(args.lanes)} settings lanes x {args.batch} games, heuristic with random "
          f"actions at {who}, invariants every {args.check_every} step(s)", flush=True)
    rep = Soak(args).run()
    print_table(rep)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rep, indent=2))
    print(f"wrote {args.out}")
    return 1 if rep["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
