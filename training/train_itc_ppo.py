"""MaskablePPO for In the Cave against the heuristic or itself, with an optional warm start by imitation.

    python -m training.train_itc_ppo [--timesteps 50000] [--eval-games 100] [--seed 0] [--out runs/itc_ppo]
    python -m training.train_itc_ppo --bc-games 150 --dagger-rounds 3 --net 256 256 --timesteps 30000 --lr 5e-5 \
        --eval-every 10000 --out runs/itc_dagger          # imitate the heuristic, DAgger, then PPO
    python -m training.train_itc_ppo --opponent self --sync-every 4 --timesteps 100000 --eval-every 20000

The learner plays one team of a 2-team game (default settings; its seat alternates by episode); the other team is
the heuristic (``agents.in_the_cave.heuristic_action``) or, with ``--opponent self``, a frozen copy of the learner
refreshed every ``--sync-every`` rollouts (self-play), stepped inside the env (``ItcVsOpponent``), so each env step
is one decision of the learner. Observation: the AEC env's grid and vector, flattened to float32;
``action_masks()`` gives MaskablePPO the legal actions. Reward: at the end the AEC env's (own final score minus the
other's) / 100, plus ``--reward-vp`` per VP of tokens gained as they are gained (shaping; a truncated game gives 0).

Warm start (``training/itc_selfplay.py``): ``--bc-games N`` clones the heuristic's decisions in N
heuristic-vs-heuristic games (saved as OUT/demos.npz; ``--demos`` reuses them), then ``--dagger-rounds K`` times
the learner plays ``--dagger-games`` games against the heuristic, the heuristic labels the learner's states, and the
policy trains on everything so far. ``--eval-every`` draws the learning curve (OUT/curve.png, OUT/curve.jsonl):
greedy games against the heuristic after each imitation stage and every so many PPO timesteps.
At the end the greedy policy plays ``--eval-games`` seeded games against the heuristic (seats alternating); the
script prints and writes (``OUT/result.json``) the win rate with its Wilson 95% interval and the budget.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, Callable

import gymnasium
import numpy as np

from agents.in_the_cave.evaluate import wilson
from agents.in_the_cave.heuristic import heuristic_action
from subterra_env.in_the_cave import ItcConfig
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.actions import NUM_ACTIONS
from subterra_env.games.in_the_cave.core.game import ItcCore
from subterra_env.games.in_the_cave.observe import LEARNER_RADIUS, flat, flat_size, vp

ROOT = Path(__file__).resolve().parents[1]

OBS_RADIUS = LEARNER_RADIUS  # a smaller window than the env's default 7: fewer inputs for a short run
# The learner's input for team ``seat`` of game record ``g``: the grid centred on its pawn and the vector, flattened
# to float32 (``subterra_env.games.in_the_cave.observe.flat``; it serves the learner, a self-play opponent, BC's teacher
# samples and the ``policy:`` agent of ``agents.in_the_cave``).
observe = flat


def heuristic_opponent(g: np.ndarray, P: np.ndarray, seat: int, mask: np.ndarray) -> int:
    return heuristic_action(g, P, mask)


Opponent = Callable[[np.ndarray, np.ndarray, int, np.ndarray], int]  # (record, params, seat, mask) -> action


class ItcVsOpponent(gymnasium.Env):
    """One team of a 2-team game of In the Cave against an opponent (the heuristic unless ``opponent`` is given:
    any ``(record, params, seat, mask) -> action``, e.g. a frozen copy of the learner for self-play); one step =
    one decision of the learner."""

    metadata = {"render_modes": []}

    def __init__(self, seed: int = 0, reward_vp: float = 0.0, config: ItcConfig | None = None,
                 opponent: Opponent | None = None):
        self.config = config or ItcConfig(num_players=2)
        if self.config.num_players != 2:
            raise ValueError(f"num_players={self.config.num_players}: this env is for 2 teams")
        self.core = ItcCore(self.config)
        self.reward_vp = float(reward_vp)
        self.observation_space = gymnasium.spaces.Box(-1000.0, 1000.0, (flat_size(OBS_RADIUS),), dtype=np.float32)
        self.action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self._seeds = np.random.default_rng(seed)
        self.episodes = 0
        self.opponent: Opponent = opponent or heuristic_opponent
        self.G: np.ndarray | None = None

    def _obs(self) -> np.ndarray:
        return observe(self.G[0], self.core.P, self.seat)

    def _opponent_until_learner(self) -> None:
        g = self.G[0]
        while g[L.OVER] == L.RUNNING and int(g[L.ACTOR]) != self.seat:
            other = int(g[L.ACTOR])
            self.core.step(self.G, [self.opponent(g, self.core.P, other, self.core.masks(self.G)[0])])

    def action_masks(self) -> np.ndarray:
        return self.core.masks(self.G)[0].astype(bool)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        self.seat = self.episodes % 2
        self.episodes += 1
        self.G = self.core.init([int(self._seeds.integers(0, 2**62))])
        self._opponent_until_learner()
        self._vp = vp(self.G[0], self.seat)
        return self._obs(), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self.action_masks()[int(action)]:
            raise ValueError(f"action {int(action)} is not legal now")
        self.core.step(self.G, [int(action)])
        self._opponent_until_learner()
        g = self.G[0]
        now = vp(g, self.seat)
        reward = self.reward_vp * (now - self._vp)
        self._vp = now
        over = int(g[L.OVER])
        info: dict[str, Any] = {}
        if over == L.ENDED:
            me, other = int(g[L.SCORE + self.seat]), int(g[L.SCORE + 1 - self.seat])
            reward += (me - other) / 100.0
            info = {"won": bool(g[L.WIN + self.seat]) and not g[L.WIN + 1 - self.seat],
                    "shared": bool(g[L.WIN + self.seat] and g[L.WIN + 1 - self.seat]), "score": me,
                    "other_score": other}
        return self._obs(), float(reward), over == L.ENDED, over == L.TRUNCATED, info


ItcVsHeuristic = ItcVsOpponent  # the default opponent is the heuristic


def evaluate(model: Any, games: int, seed: int) -> dict[str, Any]:
    """The greedy (deterministic, masked) policy against the heuristic in ``games`` seeded games."""
    env = ItcVsHeuristic(seed=seed)
    wins, truncated, scores, others = 0.0, 0, [], []
    for _ in range(games):
        obs, _ = env.reset()
        done = False
        while not done:
            a, _ = model.predict(obs, deterministic=True, action_masks=env.action_masks())
            obs, _, term, trunc, info = env.step(int(a))
            done = term or trunc
        if trunc:
            truncated += 1
        else:
            wins += 1.0 if info["won"] else 0.5 if info["shared"] else 0.0
            scores.append(info["score"])
            others.append(info["other_score"])
    lo, hi = wilson(wins, games)
    return {"games": games, "win_rate": wins / games, "ci95": [round(lo, 4), round(hi, 4)],
            "truncated": truncated, "mean_score_finished": float(np.mean(scores)) if scores else None,
            "opponent_mean_score": float(np.mean(others)) if others else None}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--timesteps", type=int, default=50_000, help="learner decisions to train on (default 50000)")
    p.add_argument("--eval-games", type=int, default=100, help="greedy games against the heuristic (default 100)")
    p.add_argument("--reward-vp", type=float, default=0.02, help="shaping per VP gained (default 0.02)")
    p.add_argument("--n-steps", type=int, default=1024, help="PPO rollout length (default 1024)")
    p.add_argument("--lr", type=float, default=3e-4, help="PPO learning rate (default 3e-4)")
    p.add_argument("--opponent", choices=("heuristic", "self"), default="heuristic",
                   help="the other team while training: the heuristic, or a frozen copy of the learner (self-play)")
    p.add_argument("--sync-every", type=int, default=4, help="self-play: rollouts between opponent refreshes")
    p.add_argument("--bc-games", type=int, default=0,
                   help="warm start: clone the heuristic's decisions in this many heuristic-vs-heuristic games")
    p.add_argument("--bc-epochs", type=int, default=8)
    p.add_argument("--bc-lr", type=float, default=1e-3)
    p.add_argument("--demos", type=Path, help="the BC games' demonstrations from an earlier run (OUT/demos.npz)")
    p.add_argument("--dagger-rounds", type=int, default=0,
                   help="after BC: rounds of DAgger (the learner plays, the heuristic labels its states)")
    p.add_argument("--dagger-games", type=int, default=40, help="games per DAgger round (default 40)")
    p.add_argument("--eval-every", type=int, default=0,
                   help="timesteps between curve points (greedy games vs the heuristic; 0: no curve)")
    p.add_argument("--curve-games", type=int, default=20, help="games per curve point (default 20)")
    p.add_argument("--net", type=int, nargs="+", default=[64, 64], help="hidden layer sizes (default 64 64)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=ROOT / "runs" / "itc_ppo", help="where model.zip and result.json go")
    args = p.parse_args(argv)
    if args.timesteps < 0 or args.eval_games < 1 or args.n_steps < 2 or args.bc_games < 0 or args.sync_every < 1:
        p.error("--timesteps and --bc-games must be >= 0, --eval-games and --sync-every >= 1, --n-steps >= 2")
    if args.dagger_rounds and not (args.bc_games or args.demos):
        p.error("--dagger-rounds needs a BC warm start (--bc-games or --demos)")
    if args.timesteps == 0 and args.bc_games == 0 and not args.demos:
        p.error("nothing to train: give --timesteps or --bc-games")
    return args


def warm_start(model: Any, args: argparse.Namespace, curve: Path, curve_point: Callable[[Any], dict[str, Any]],
               start: float) -> list[dict[str, Any]]:
    """Behaviour cloning of the heuristic's decisions (``--bc-games`` new games, or ``--demos``), then
    ``--dagger-rounds`` of DAgger; one row per stage (held-out accuracy), also on the curve with ``--eval-every``."""
    from training.bc import Demonstrations, load_demos, split, train_bc
    from training.itc_selfplay import collect_demos, write_row

    if args.demos:
        demos = load_demos(args.demos)
    else:
        demos = collect_demos(args.bc_games, seed=30_000 + 1000 * args.seed, observe=observe)
        demos.save(args.out / "demos.npz")
    stages = []
    for k in range(args.dagger_rounds + 1):
        if k:  # DAgger: the learner's own states, labelled by the heuristic, join the data
            more = collect_demos(args.dagger_games, seed=40_000 + 1000 * k + 100_000 * args.seed,
                                 observe=observe, learner=model)
            demos = Demonstrations.concat([demos, more])
        train_set, held_out = split(demos, holdout=0.1, seed=args.seed)
        history = train_bc(model.policy, train_set, held_out, epochs=args.bc_epochs, batch_size=512,
                           lr=args.bc_lr, seed=args.seed + k)
        stage = {"stage": f"DAgger {k}" if k else "BC", "decisions": len(demos),
                 "seconds": round(time.perf_counter() - start, 1),
                 **{x: round(v, 4) for x, v in history[-1].items() if x.startswith("held_out_acc")}}
        stages.append(stage)
        print(json.dumps(stage), flush=True)
        if args.eval_every:
            write_row(curve, {"timesteps": 0, **stage, **curve_point(model)})
    return stages


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    import torch
    from sb3_contrib import MaskablePPO

    from training.itc_selfplay import PolicyOpponent, make_callback, plot_curve

    torch.manual_seed(args.seed)
    env = ItcVsOpponent(seed=args.seed, reward_vp=args.reward_vp)
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=min(256, args.n_steps), seed=args.seed,
                        learning_rate=args.lr, policy_kwargs={"net_arch": list(args.net)}, verbose=0, device="cpu")
    args.out.mkdir(parents=True, exist_ok=True)
    curve = args.out / "curve.jsonl"
    curve.unlink(missing_ok=True)
    result: dict[str, Any] = {"timesteps": args.timesteps, "opponent": args.opponent, "bc_games": args.bc_games,
                              "reward_vp": args.reward_vp, "n_steps": args.n_steps, "lr": args.lr,
                              "net": list(args.net), "seed": args.seed}

    def curve_point(m: Any) -> dict[str, Any]:
        return evaluate(m, args.curve_games, seed=20_000 + args.seed)

    start = time.perf_counter()
    if args.bc_games or args.demos:
        result["bc"] = warm_start(model, args, curve, curve_point, start)
    opponent = PolicyOpponent(model.policy, observe) if args.opponent == "self" else None
    if opponent is not None:
        env.opponent = opponent
    if args.timesteps:
        model.learn(total_timesteps=args.timesteps,
                    callback=make_callback(opponent, args.sync_every, args.eval_every, curve_point, curve))
    result.update({"episodes_started": env.episodes, "train_seconds": round(time.perf_counter() - start, 1),
                   "vs_heuristic": evaluate(model, args.eval_games, seed=10_000 + args.seed)})
    if opponent is not None:
        result["opponent_refreshes"] = opponent.syncs
    model.save(args.out / "model.zip")
    if curve.exists():
        warm = f"{args.bc_games} games" if args.bc_games else f"{args.demos.name}" if args.demos else ""
        dagger = f" + {args.dagger_rounds} DAgger rounds" if args.dagger_rounds else ""
        plot_curve(curve, args.out / "curve.png", f"In the Cave, learner vs {args.opponent} while training"
                   + (f", warm start: the heuristic cloned ({warm}){dagger}" if warm else ""))
        result["curve"] = str(args.out / "curve.png")
    (args.out / "result.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
