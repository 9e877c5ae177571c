"""Distil the search into the shipped residual policy: label decisions with the search's action gains, then fit
the policy's network to them.

    python -m training.distil label --decisions 60000 --seed 1 --out runs/distil/labels-1.npz
    python -m training.distil fit runs/distil/labels-*.npz --out runs/distil/fit

**Why gains, not choices.** The search values every legal action in the same sampled futures and leaves, per
decision, each action's mean gain in cavers out over the heuristic's choice (``SearchAgent.last_gains``). Cloning
only the search's choice gives one bit per decision, most of it noise (an earlier attempt with 30,000 chosen
actions learned none of the search's departures, ``agents/shipped/README.md``). Regressing every legal action's
gain uses all of them: the network learns ``logit(a) = scale x gain(a)`` (the heuristic's own action: 0), so the
residual policy ``logit + advice_scale x advice`` leaves the heuristic's choice exactly where it predicts a gain
of more than ``advice_scale / scale`` cavers. That threshold is a setting of the finished network (the checkpoint's
``advice_scale`` buffer): ``fit`` writes one checkpoint per ``--thresholds`` value, and ``training/evaluate.py``
picks between them on seeds the test rows do not use.

Labelling runs the search on the learner's game (the full game by default) through the training script's vector
env (``configs/train/advised.yaml``: observation v1 at radius 7 plus the advice), so the samples are exactly what
the policy sees. The fit starts from a checkpoint (the shipped team), trains the whole policy network on the gains
(Huber loss on the legal actions, targets clipped to +-``--clip`` cavers) and its value head on the returns.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from training import bc
from training.train_ppo import load_args, make_venv, stream_seed

REPO = Path(__file__).resolve().parents[1]

DEFAULT_CONFIG = REPO / "configs" / "train" / "advised.yaml"


def label(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m training.distil label",
                                description="Label decisions with the search's gains.")
    p.add_argument("--config", default=str(DEFAULT_CONFIG), help="training config whose env the policy sees")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="config override")
    p.add_argument("--decisions", type=int, default=20_000, help="decisions to label (rounded up to the slots)")
    p.add_argument("--num-envs", type=int, default=64, help="games played side by side")
    p.add_argument("--seed", type=int, default=0, help="seeds the games and the search's worlds")
    p.add_argument("--worlds", type=int, default=None, help="the search's futures per action (default: its own)")
    p.add_argument("--out", required=True, help="the .npz to write (training/bc.py Demonstrations)")
    a = p.parse_args(argv)
    if a.decisions < 1 or a.num_envs < 1:
        p.error("--decisions and --num-envs must be at least 1")
    args = load_args(a.config, a.set)
    if args.model.advice_scale is None:
        p.error(f"{a.config}: model.advice_scale is not set, so its env has no advice observation to label against")
    venv = make_venv(args, 0, a.num_envs, stream_seed(a.seed, 5_151))
    teacher = bc.make_teacher("search" if a.worlds is None else f"search:{a.worlds}", venv, a.seed)
    start = time.perf_counter()
    demos = bc.collect(venv, teacher, a.decisions, args.ppo.gamma, progress=True, setting="--decisions")
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    demos.save(out)
    valued = ~np.isnan(demos.gains).all(axis=1)
    departed = valued & (demos.actions != demos.obs["advice"].argmax(axis=1))
    print(f"{len(demos)} decisions ({int(valued.sum())} searched, the search left the heuristic's choice in "
          f"{departed.sum() / max(valued.sum(), 1):.1%}) in {time.perf_counter() - start:.0f} s; "
          f"{len(demos.finished)} games finished, {np.mean([f['escaped'] for f in demos.finished] or [0]):.2f} "
          f"cavers out -> {out}")
    return 0


def _deltas(policy: Any, obs: dict) -> Any:
    """The network's logits relative to the advised (heuristic's) action: (B, A)."""
    import torch

    latent_pi, _ = policy._latents(obs)
    logits = policy.action_net(latent_pi)
    advised = obs["advice"].float().argmax(dim=1, keepdim=True)
    return logits - torch.gather(logits, 1, advised)


def choices(deltas: np.ndarray, masks: np.ndarray, advice: np.ndarray, advice_scale: float) -> np.ndarray:
    """The residual policy's greedy actions: argmax over legal actions of delta + advice_scale x advice."""
    score = np.where(masks, deltas + advice_scale * advice, -np.inf)
    return score.argmax(axis=1)


def held_out_report(policy: Any, demos: bc.Demonstrations, scale: float, thresholds: list[float]) -> dict:
    """For each threshold (in cavers): how often the policy leaves the heuristic's choice, how often it agrees
    with the search, and the mean label gain of its choices per decision. On held-out games the labels' noise is
    independent of the choice, so that mean estimates the choices' true gain over the heuristic (a search's own
    choices score higher than their truth: it picks on the same noise)."""
    import torch

    deltas = []
    with torch.no_grad():
        for start in range(0, len(demos), 1024):
            obs, _ = policy.obs_to_tensor({k: v[start:start + 1024] for k, v in demos.obs.items()})
            deltas.append(_deltas(policy, obs).cpu().numpy())
    d = np.concatenate(deltas)
    advice = demos.obs["advice"].astype(np.float64)
    gains = np.nan_to_num(demos.gains.astype(np.float64), nan=0.0)
    target = np.clip(gains, -1, 1) * scale
    legal = demos.masks & ~advice.astype(bool)
    out = {"decisions": len(demos), "corr": float(np.corrcoef(d[legal], target[legal])[0, 1]),
           "search_departs": float(np.mean(demos.actions != advice.argmax(1))),
           "search_gain": float(np.mean(gains[np.arange(len(demos)), demos.actions]))}
    for theta in thresholds:
        pick = choices(d, demos.masks, advice, scale * theta)
        g = gains[np.arange(len(demos)), pick]
        out[f"{theta:g}"] = {"departs": float(np.mean(pick != advice.argmax(1))),
                             "agrees_with_search": float(np.mean(pick == demos.actions)),
                             "gain": float(g.mean()), "gain_se": float(g.std(ddof=1) / np.sqrt(len(g)))}
    return out


def searched(demos: bc.Demonstrations) -> bc.Demonstrations:
    """The decisions the search valued (those with a choice), with a clear error for labels without gains."""
    if demos.gains is None:
        raise SystemExit("these label files carry no gains: write them with distil.py label (a search teacher)")
    return demos.take(np.flatnonzero(~np.isnan(demos.gains).all(axis=1)))


def best_gain(report: dict, thresholds: list[float]) -> float:
    return max(report[f"{t:g}"]["gain"] for t in thresholds)


def fit_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m training.distil fit",
                                description="Fit the residual policy to the search's gains.")
    p.add_argument("demos", nargs="+", help="label files written by distil.py label")
    p.add_argument("--init", default=str(REPO / "agents" / "shipped" / "team.zip"), help="checkpoint to start from")
    p.add_argument("--out", required=True, help="run folder: team-THRESHOLD.zip, fit.json")
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--scale", type=float, default=30.0, help="logit units per caver of gain")
    p.add_argument("--clip", type=float, default=0.3, help="gains clipped to +-this many cavers")
    p.add_argument("--value-coef", type=float, default=0.5)
    p.add_argument("--holdout", type=float, default=0.1, help="share of the games held out")
    p.add_argument("--thresholds", type=float, nargs="+", default=[0.02, 0.04, 0.06, 0.1],
                   help="least predicted gain (cavers) to leave the heuristic's choice; one checkpoint each")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--torch-threads", type=int, default=2)
    a = p.parse_args(argv)
    for name in ("epochs", "batch_size"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(a, name)}")
    for name in ("lr", "scale", "clip"):
        if not getattr(a, name) > 0:
            p.error(f"--{name} must be above 0, got {getattr(a, name)}")
    if not 0 < a.holdout < 1 or min(a.thresholds) < 0:
        p.error(f"--holdout must be in (0, 1) and --thresholds at least 0, got {a.holdout} and {a.thresholds}")
    return a


def fit(argv: list[str]) -> int:
    """The residual policy regressed on the labels' gains (and its value on their returns), the epoch whose best
    threshold gains most on held-out games kept; one checkpoint per ``--thresholds`` value and fit.json."""
    a = fit_args(argv)
    import torch

    from agents.policy_agent import load_maskable_ppo

    torch.manual_seed(a.seed)
    demos = searched(bc.Demonstrations.concat([bc.load_demos(f) for f in a.demos]))
    train, held = bc.split(demos, a.holdout, a.seed)
    model = load_maskable_ppo(a.init, "training/train_ppo.py or distil.py fit", torch_threads=a.torch_threads)
    policy = model.policy
    if "advice" not in train.obs:
        raise SystemExit("the labels carry no advice observation: label them with an advised config")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    history = [{"epoch": 0, "held_out": held_out_report(policy, held, a.scale, a.thresholds)}]
    print(json.dumps(history[-1]))
    best = (best_gain(history[0]["held_out"], a.thresholds), 0, copy.deepcopy(policy.state_dict()))
    opt = torch.optim.Adam(policy.parameters(), lr=a.lr)
    rng = np.random.default_rng(a.seed)
    gains = torch.as_tensor(np.clip(np.nan_to_num(train.gains, nan=0.0), -a.clip, a.clip) * a.scale)
    returns, known = torch.as_tensor(train.returns), torch.as_tensor(train.has_return)
    masks = torch.as_tensor(train.masks)
    for epoch in range(1, a.epochs + 1):
        policy.set_training_mode(True)
        order, losses = rng.permutation(len(train)), []
        for start in range(0, len(train), a.batch_size):
            idx = order[start:start + a.batch_size]
            obs, _ = policy.obs_to_tensor({k: v[idx] for k, v in train.obs.items()})
            d = _deltas(policy, obs)
            legal = masks[idx]
            loss = torch.nn.functional.huber_loss(d[legal], gains[idx][legal].float(), delta=a.scale * 0.1)
            k = known[idx]
            if a.value_coef > 0 and bool(k.any()):
                values = policy.predict_values(obs).flatten()
                loss = loss + a.value_coef * ((values[k] - returns[idx][k]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()
            losses.append(loss.item())
        policy.set_training_mode(False)
        history.append({"epoch": epoch, "loss": float(np.mean(losses)),
                        "held_out": held_out_report(policy, held, a.scale, a.thresholds)})
        print(json.dumps(history[-1]))
        score = best_gain(history[-1]["held_out"], a.thresholds)
        if score > best[0]:
            best = (score, epoch, copy.deepcopy(policy.state_dict()))
    policy.load_state_dict(best[2])  # early stopping: the epoch whose best threshold gained most on held-out games
    print(f"kept epoch {best[1]} (held-out gain {best[0]:+.4f} cavers a decision)")
    for theta in a.thresholds:
        policy.advice_scale.fill_(a.scale * theta)
        model.policy_kwargs["advice_scale"] = a.scale * theta
        model.save(out / f"team-{theta:g}.zip")
    (out / "fit.json").write_text(json.dumps({"argv": argv, "train": len(train), "held_out": len(held),
                                              "kept_epoch": best[1], "history": history}, indent=1))
    print(f"wrote {', '.join(f'team-{t:g}.zip' for t in a.thresholds)} and fit.json to {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    commands = {"label": label, "fit": fit}
    if not argv or argv[0] not in commands:
        print(f"usage: python -m training.distil {{{','.join(commands)}}} ... (see the module docstring)",
              file=sys.stderr)
        return 2
    return commands[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main())
