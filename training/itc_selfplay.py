"""In the Cave training helpers for ``train_itc_ppo.py``: the heuristic's decisions as demonstrations (a behaviour
cloning warm start), a frozen copy of the learner as its self-play opponent, and the learning curve.

    demos = collect_demos(games=100, seed=0)        # heuristic vs heuristic, every decision from its team's view
    train_bc(model.policy, *split(demos, 0.1), epochs=8, batch_size=512, lr=1e-3)   # training/bc.py
    opponent = PolicyOpponent(model.policy)          # plays the other seat; SelfPlaySync refreshes it

The demonstrations reuse ``training/bc.py`` (``Demonstrations``, ``train_bc``): one observation key,
``observation``, the learners' flattened input (``subterra_env.games.in_the_cave.observe.flat``, the default ``observe``
here); the value target of a decision is its team's final score minus the other's, / 100 (the env's end reward),
known for games that ended.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from agents.in_the_cave.heuristic import heuristic_action
from subterra_env.in_the_cave import ItcConfig
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.game import ItcCore
from subterra_env.games.in_the_cave.observe import flat

from training.bc import Demonstrations

Observe = Callable[[np.ndarray, np.ndarray, int], np.ndarray]


def collect_demos(games: int, seed: int, observe: Observe = flat, config: ItcConfig | None = None,
                  learner: Any = None) -> Demonstrations:
    """The heuristic's decisions in ``games`` seeded games (seeds ``seed`` ..), each seen from the deciding team's
    side. Without ``learner``: heuristic against heuristic, both teams' decisions. With a ``learner`` (a
    MaskablePPO model), DAgger: the learner plays team ``i % 2`` of game i greedily against the heuristic, and each
    of its decisions is recorded with the action the heuristic would have taken there (its label)."""
    core = ItcCore(config or ItcConfig(num_players=2))
    obs, masks, actions, returns, known, game_ids, finished = [], [], [], [], [], [], []
    for i in range(games):
        G = core.init([seed + i])
        g = G[0]
        seats: list[int] = []
        while g[L.OVER] == L.RUNNING:
            mask = core.masks(G)[0].astype(bool)
            s = int(g[L.ACTOR])
            a = heuristic_action(g, core.P, mask)
            if learner is None or s == i % 2:
                x = observe(g, core.P, s)
                obs.append(x)
                masks.append(mask)
                actions.append(a)
                seats.append(s)
                if learner is not None:
                    a = int(learner.predict(x, deterministic=True, action_masks=mask)[0])
            core.step(G, [a])
        ended = int(g[L.OVER]) == L.ENDED
        score = g[L.SCORE:L.SCORE + 2].astype(np.float32)
        returns += [float(score[s] - score[1 - s]) / 100.0 if ended else 0.0 for s in seats]
        known += [ended] * len(seats)
        game_ids += [i] * len(seats)
        finished.append({"result": "ended" if ended else "truncated", "scores": score.tolist()})
    return Demonstrations({"observation": np.asarray(obs, dtype=np.float32)}, np.asarray(masks, dtype=bool),
                          np.asarray(actions, dtype=np.int64), np.asarray(returns, dtype=np.float32),
                          np.asarray(known, dtype=bool), np.asarray(game_ids, dtype=np.int64), finished)


class PolicyOpponent:
    """A frozen copy of a MaskablePPO policy playing the other team (self-play): it samples its actions (a
    deterministic copy would let the learner exploit one fixed line of play). ``sync(policy)`` refreshes it."""

    def __init__(self, policy: Any, observe: Observe = flat, deterministic: bool = False):
        self.policy = copy.deepcopy(policy)
        self.policy.set_training_mode(False)
        self.observe = observe
        self.deterministic = deterministic
        self.syncs = 0

    def sync(self, policy: Any) -> None:
        self.policy.load_state_dict(policy.state_dict())
        self.syncs += 1

    def __call__(self, g: np.ndarray, P: np.ndarray, seat: int, mask: np.ndarray) -> int:
        with torch.no_grad():
            a, _ = self.policy.predict(self.observe(g, P, seat), deterministic=self.deterministic,
                                       action_masks=mask.astype(bool))
        return int(a)


def make_callback(opponent: PolicyOpponent | None, sync_every: int, eval_every: int,
                  evaluate: Callable[[Any], dict[str, Any]], log: Path) -> Any:
    """An SB3 callback: after every ``sync_every`` rollouts the self-play opponent becomes the current policy;
    every ``eval_every`` timesteps the greedy policy is evaluated (``evaluate(model)``) and the row appended to
    ``log`` (JSON lines: timesteps, the evaluation)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Callback(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.rollouts = 0
            self.next_eval = eval_every

        def _on_rollout_end(self) -> None:
            self.rollouts += 1
            if opponent is not None and self.rollouts % sync_every == 0:
                opponent.sync(self.model.policy)

        def _on_step(self) -> bool:
            if eval_every > 0 and self.num_timesteps >= self.next_eval:
                self.next_eval += eval_every
                n = int(self.num_timesteps)
                write_row(log, {"timesteps": n, "stage": f"PPO {n:,}", **evaluate(self.model)})
            return True

    return Callback()


def write_row(log: Path, row: dict[str, Any]) -> None:
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as f:
        f.write(json.dumps(row) + "\n")


def plot_curve(log: Path, out: Path, title: str) -> None:
    """Win rate against the heuristic (with its 95% interval) and the mean final scores at each stage of a run
    (BC, DAgger rounds, PPO timesteps), as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [json.loads(x) for x in log.read_text().splitlines() if x.strip()]
    xs = list(range(len(rows)))
    labels = [r.get("stage", f"PPO {r['timesteps']:,}") for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.2))
    a.plot(xs, [r["win_rate"] for r in rows], "o-", label="win rate vs heuristic (greedy)")
    a.fill_between(xs, [r["ci95"][0] for r in rows], [r["ci95"][1] for r in rows], alpha=0.2,
                   label="95% Wilson interval")
    a.set_ylim(-0.02, 1.02)
    a.set_ylabel("win rate")
    a.legend(loc="upper left")

    def score(r: dict[str, Any], key: str) -> float:
        return r[key] if r.get(key) is not None else np.nan

    b.plot(xs, [score(r, "mean_score_finished") for r in rows], "o-", label="learner")
    b.plot(xs, [score(r, "opponent_mean_score") for r in rows], "s--", label="heuristic")
    b.set_ylabel("mean final score (finished games)")
    b.legend(loc="upper left")
    for ax in (a, b):
        ax.set_xticks(xs, labels, rotation=30, ha="right", fontsize=8)
        ax.grid(alpha=0.3)
    fig.suptitle(f"{title} ({rows[0]['games']} games a point)")
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
