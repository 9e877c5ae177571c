"""MaskablePPO for In the Cave against the heuristic: a short, single-agent training run and its evaluation.

    python training/train_itc_ppo.py [--timesteps 50000] [--eval-games 100] [--seed 0] [--out runs/itc_ppo]

The learner plays one team of a 2-team game (default settings; its seat alternates by episode); the other team is
``agents.in_the_cave.heuristic_action``, stepped inside the env (``ItcVsHeuristic``), so each env step is one
decision of the learner. Observation: the AEC env's grid and vector, flattened to float32; ``action_masks()`` gives
MaskablePPO the legal actions. Reward: at the end the AEC env's (own final score minus the other's) / 100, plus
``--reward-vp`` per VP of tokens gained as they are gained (shaping; a truncated game gives 0 at the end).
After training, the greedy policy plays ``--eval-games`` seeded games against the heuristic (seats alternating);
the script prints and writes (``OUT/result.json``) the win rate with its Wilson 95% interval and the budget.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from agents.in_the_cave.evaluate import wilson  # noqa: E402
from agents.in_the_cave.heuristic import heuristic_action  # noqa: E402
from subterra_env.in_the_cave import ItcConfig  # noqa: E402
from subterra_env.in_the_cave.core import layout as L  # noqa: E402
from subterra_env.in_the_cave.core.actions import NUM_ACTIONS  # noqa: E402
from subterra_env.in_the_cave.core.game import ItcCore  # noqa: E402
from subterra_env.in_the_cave.observe import GRID_CHANNELS, VECTOR_SIZE, grid, vector, vp  # noqa: E402

OBS_RADIUS = 5  # a smaller window than the env's default 7: fewer inputs for a short run


class ItcVsHeuristic(gymnasium.Env):
    """One team of a 2-team game of In the Cave against the heuristic; one step = one decision of the learner."""

    metadata = {"render_modes": []}

    def __init__(self, seed: int = 0, reward_vp: float = 0.0, config: ItcConfig | None = None):
        self.config = config or ItcConfig(num_players=2)
        if self.config.num_players != 2:
            raise ValueError(f"num_players={self.config.num_players}: this env is for 2 teams")
        self.core = ItcCore(self.config)
        self.reward_vp = float(reward_vp)
        w = 2 * OBS_RADIUS + 1
        self.observation_space = gymnasium.spaces.Box(-1000.0, 1000.0, (GRID_CHANNELS * w * w + VECTOR_SIZE,),
                                                      dtype=np.float32)
        self.action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self._seeds = np.random.default_rng(seed)
        self.episodes = 0
        self.G: np.ndarray | None = None

    def _obs(self) -> np.ndarray:
        g, s = self.G[0], self.seat
        pos = int(g[L.POS + s])
        gr = grid(g, s, OBS_RADIUS, int(g[L.TX + pos]), int(g[L.TY + pos]), 2)
        return np.concatenate((gr.ravel(), vector(g, self.core.P, s, 2))).astype(np.float32)

    def _heuristic_until_learner(self) -> None:
        g = self.G[0]
        while g[L.OVER] == L.RUNNING and int(g[L.ACTOR]) != self.seat:
            self.core.step(self.G, [heuristic_action(g, self.core.P, self.core.masks(self.G)[0])])

    def action_masks(self) -> np.ndarray:
        return self.core.masks(self.G)[0].astype(bool)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        self.seat = self.episodes % 2
        self.episodes += 1
        self.G = self.core.init([int(self._seeds.integers(0, 2**62))])
        self._heuristic_until_learner()
        self._vp = vp(self.G[0], self.seat)
        return self._obs(), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self.action_masks()[int(action)]:
            raise ValueError(f"action {int(action)} is not legal now")
        self.core.step(self.G, [int(action)])
        self._heuristic_until_learner()
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
                    "shared": bool(g[L.WIN + self.seat] and g[L.WIN + 1 - self.seat]), "score": me}
        return self._obs(), float(reward), over == L.ENDED, over == L.TRUNCATED, info


def evaluate(model: Any, games: int, seed: int) -> dict[str, Any]:
    """The greedy (deterministic, masked) policy against the heuristic in ``games`` seeded games."""
    env = ItcVsHeuristic(seed=seed)
    wins, truncated, scores = 0.0, 0, []
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
    lo, hi = wilson(wins, games)
    return {"games": games, "win_rate": wins / games, "ci95": [round(lo, 4), round(hi, 4)],
            "truncated": truncated, "mean_score_finished": float(np.mean(scores)) if scores else None}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--timesteps", type=int, default=50_000, help="learner decisions to train on (default 50000)")
    p.add_argument("--eval-games", type=int, default=100, help="greedy games against the heuristic (default 100)")
    p.add_argument("--reward-vp", type=float, default=0.02, help="shaping per VP gained (default 0.02)")
    p.add_argument("--n-steps", type=int, default=1024, help="PPO rollout length (default 1024)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=ROOT / "runs" / "itc_ppo", help="where model.zip and result.json go")
    args = p.parse_args(argv)
    if args.timesteps < 1 or args.eval_games < 1 or args.n_steps < 2:
        p.error("--timesteps and --eval-games must be >= 1, --n-steps >= 2")
    import torch
    from sb3_contrib import MaskablePPO

    torch.manual_seed(args.seed)
    env = ItcVsHeuristic(seed=args.seed, reward_vp=args.reward_vp)
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=min(256, args.n_steps), seed=args.seed,
                        verbose=0, device="cpu")
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    train_s = time.perf_counter() - start
    result = {"timesteps": args.timesteps, "episodes_started": env.episodes, "train_seconds": round(train_s, 1),
              "reward_vp": args.reward_vp, "n_steps": args.n_steps, "seed": args.seed,
              "vs_heuristic": evaluate(model, args.eval_games, seed=10_000 + args.seed)}
    args.out.mkdir(parents=True, exist_ok=True)
    model.save(args.out / "model.zip")
    (args.out / "result.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
