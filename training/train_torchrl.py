"""PPO with TorchRL on the native batched env: ClipPPOLoss, a MaskedCategorical policy, GAE, a Collector.

    python -m training.train_torchrl --config configs/tiny.yaml --run-dir runs/torchrl_tiny
    python -m training.evaluate --config configs/tiny.yaml --games 200 --team random \\
        --team torchrl:runs/torchrl_tiny/policy.pt

One policy plays every caver (the env's shared layout: each slot shows its acting caver). Each iteration collects
``--envs`` x ``--steps-per-batch`` decisions with the sampling policy, computes GAE advantages, then runs
``--epochs`` passes of ClipPPOLoss over minibatches. Writes to ``--run-dir``: ``policy.pt`` (the actor; loaded by
``agents.torchrl_agent.TorchRLAgent``), ``curve.json`` (per iteration: frames, seconds, training games finished,
their mean cavers escaped, medal rate and return, the losses), ``curve.png``, and ``eval/`` (training/evaluate.py
on ``--eval-games`` seeded games, the greedy policy beside the random team; 0 skips it).

The defaults are the documented budget (docs/torchrl.md): about 10 minutes on the 2-core machine. Greedy
evaluation is deterministic for a checkpoint; training itself is seeded (``--seed``: the games and torch) but
torch's CPU kernels may differ in the last bits between machines.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import torch
from tensordict import TensorDictBase
from tensordict.nn import TensorDictModule
from torchrl.collectors import Collector
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

from agents.torchrl_agent import SubterraNet, save_policy
from subterra_env.config import load
from subterra_env.games.sub_terra.core.actions import NUM_ACTIONS
from subterra_env.games.sub_terra.core.observe import NUM_SCALARS
from subterra_env.torchrl_env import SubterraTorchRLEnv

_ROOT = Path(__file__).resolve().parents[1]

OBS_KEYS = ["observation", "scalars"]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a = p.add_argument
    a("--config", default=str(_ROOT / "configs" / "tiny.yaml"), help="game settings (YAML) [configs/tiny.yaml]")
    a("--run-dir", required=True, type=Path, help="where the policy, curve and evaluation go")
    a("--envs", type=int, default=128, help="games stepped together (the env's batch size) [128]")
    a("--steps-per-batch", type=int, default=32, help="decisions per game per iteration [32]")
    a("--iterations", type=int, default=100, help="collect + update rounds [100]")
    a("--epochs", type=int, default=2, help="passes over each batch [2]")
    a("--minibatch", type=int, default=256, help="decisions per gradient step [256]")
    a("--lr", type=float, default=5e-4, help="Adam learning rate [5e-4]")
    a("--gamma", type=float, default=0.995, help="discount [0.995]")
    a("--lmbda", type=float, default=0.95, help="GAE lambda [0.95]")
    a("--clip", type=float, default=0.2, help="PPO clip epsilon [0.2]")
    a("--entropy", type=float, default=0.01, help="entropy bonus coefficient [0.01]")
    a("--obs-radius", type=int, default=3, help="observation window radius [3]")
    a("--max-cycles", type=int, default=200, help="rounds before a game is truncated [200]")
    a("--reward-escape", type=float, default=0.1, help="shaping: reward per caver reaching the exit [0.1]")
    a("--seed", type=int, default=0, help="seeds the games and torch [0]")
    a("--threads", type=int, default=1, help="torch CPU threads; 1 is fastest on a busy 2-core machine [1]")
    a("--save-every", type=int, default=10, help="write the policy and curve every N iterations; 0: at the end [10]")
    a("--eval-games", type=int, default=200, help="seeded games for training/evaluate.py at the end; 0: none [200]")
    return p


def make_modules(env: SubterraTorchRLEnv) -> tuple[ProbabilisticActor, ValueOperator, SubterraNet]:
    """The masked categorical actor (logits from the grid and scalars, ``action_mask`` as the mask) and the
    critic, with separate weights."""
    grid_shape = tuple(env.observation_spec["observation"].shape[1:])
    actor_net = SubterraNet(grid_shape, NUM_SCALARS, NUM_ACTIONS)
    actor = ProbabilisticActor(TensorDictModule(actor_net, in_keys=OBS_KEYS, out_keys=["logits"]),
                               in_keys={"logits": "logits", "mask": "action_mask"}, out_keys=["action"],
                               distribution_class=MaskedCategorical, return_log_prob=True)
    critic = ValueOperator(SubterraNet(grid_shape, NUM_SCALARS, 1), in_keys=OBS_KEYS)
    return actor, critic, actor_net


def episode_stats(data: TensorDictBase) -> dict[str, float]:
    """Games that ended in this batch: how many, mean cavers escaped, medal rate, mean final return step."""
    done = data["next", "done"].squeeze(-1)
    n = int(done.sum())
    if not n:
        return {"games": 0, "escaped_mean": float("nan"), "medal_rate": float("nan")}
    result = data["next", "result"][done]
    return {"games": n, "escaped_mean": float(data["next", "escaped"][done].float().mean()),
            "medal_rate": float((result >= 1).float().mean())}


def train(args: argparse.Namespace) -> list[dict[str, Any]]:
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    config = load(args.config)
    env = SubterraTorchRLEnv(args.envs, config, seed=args.seed, obs_radius=args.obs_radius,
                             max_cycles=args.max_cycles, reward_escape=args.reward_escape)
    actor, critic, actor_net = make_modules(env)
    loss_module = ClipPPOLoss(actor, critic, clip_epsilon=args.clip, entropy_coeff=args.entropy,
                              critic_coeff=0.5, loss_critic_type="smooth_l1", normalize_advantage=True)
    advantage = GAE(gamma=args.gamma, lmbda=args.lmbda, value_network=critic, average_gae=False)
    optim = torch.optim.Adam(loss_module.parameters(), lr=args.lr)
    frames = args.envs * args.steps_per_batch
    collector = Collector(env, actor, frames_per_batch=frames, total_frames=frames * args.iterations,
                          auto_register_policy_transforms=False)  # the policy keeps no state between steps
    curve: list[dict[str, Any]] = []
    start = time.perf_counter()
    for i, data in enumerate(collector):  # data: (envs, steps_per_batch)
        stats = episode_stats(data)
        with torch.no_grad():
            advantage(data)
        flat = data.reshape(-1)
        losses: dict[str, float] = {}
        for _ in range(args.epochs):
            for idx in torch.randperm(flat.numel()).split(args.minibatch):
                out = loss_module(flat[idx])
                loss = out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]
                optim.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(loss_module.parameters(), 1.0)
                optim.step()
                losses = {k: float(out[k].detach()) for k in ("loss_objective", "loss_critic", "loss_entropy")}
        collector.update_policy_weights_()
        row = {"iteration": i + 1, "frames": (i + 1) * frames, "seconds": round(time.perf_counter() - start, 2),
               **stats, "return_mean": float(data["next", "reward"].sum() / max(stats["games"], 1)), **losses}
        curve.append(row)
        if args.save_every and (i + 1) % args.save_every == 0:
            save_run(args, actor_net, curve)
        print(f"iter {row['iteration']:4d}  frames {row['frames']:>8,}  {row['seconds']:7.1f} s  games "
              f"{row['games']:4d}  escaped {row['escaped_mean']:.2f}  medals {row['medal_rate']:.2f}", flush=True)
    collector.shutdown()
    save_run(args, actor_net, curve)
    return curve


def save_run(args: argparse.Namespace, actor_net: SubterraNet, curve: list[dict[str, Any]]) -> None:
    """policy.pt, curve.json and curve.png as they stand (also every ``--save-every`` iterations, so a long run
    cut short keeps its latest policy)."""
    args.run_dir.mkdir(parents=True, exist_ok=True)
    settings = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
    save_policy(args.run_dir / "policy.pt", actor_net, args.obs_radius, settings)
    (args.run_dir / "curve.json").write_text(json.dumps({"settings": settings, "iterations": curve}, indent=1))
    plot_curve(curve, args.run_dir / "curve.png")


def plot_curve(curve: list[dict[str, Any]], path: Path) -> None:
    """Cavers escaped per training game (the sampling policy) and the medal rate, against decisions taken."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [r["frames"] for r in curve]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(x, [r["escaped_mean"] for r in curve], label="cavers escaped per training game")
    ax.plot(x, [r["medal_rate"] for r in curve], label="medal rate")
    ax.axhline(0.18, color="grey", ls="--", lw=1, label="random team (0.18 escaped)")
    ax.set_xlabel("env steps (decisions)")
    ax.set_title("TorchRL PPO on the native env, tiny cave")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    for name in ("envs", "steps_per_batch", "iterations", "epochs", "minibatch"):
        if getattr(args, name) < 1:
            build_parser().error(f"--{name.replace('_', '-')} must be >= 1")
    train(args)
    if args.eval_games:
        from training import evaluate

        return evaluate.main(["--config", args.config, "--games", str(args.eval_games), "--out",
                              str(args.run_dir / "eval"), "--team", "random", "--team",
                              f"torchrl:{args.run_dir / 'policy.pt'}", "--no-progress"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
