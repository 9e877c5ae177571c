"""End-to-end training throughput: env-steps per second of whole PPO iterations (collection + updates), in one run.

    python -m benchmarks.train_sps                                   # the three rows, 20 s each, on the CPU
    python -m benchmarks.train_sps --seconds 30 --repeats 3 --json /tmp/train_sps.json
    python -m benchmarks.train_sps --device cuda --num-games 4096 --rows native-ego native-ego-shards2 native-cnn

Rows (each timed over ``--seconds`` of whole iterations after one warm-up iteration; with ``--repeats`` the rows
run interleaved, round after round, and each row reports its median):

    sb3            SB3 MaskablePPO with the default network (``SubterraFeaturesExtractor``, obs_radius 7), 16 games,
                   n_steps 128, minibatch 512, 4 epochs: the settings of ``make run``'s former trainer
    native-cnn     ``training/ppo.py`` with the same network (``network=cnn``, obs_radius 7), minibatches of 1,024
    native-ego     ``training/ppo.py`` with the light egocentric network (``network=ego``, obs_radius 2, two layers of
                   ``--width``, default 128 as ``make run``)
    native-ego-shards2   the same with the engine overlapped with the policy (``shards=2``)
    native-ego-mappo     the same as native-ego with the centralised critic (``critic=mappo``)
    native-egowide       ``network=egowide`` (ego's 5 x 5 cells beside a summary of the env's default 15 x 15
                         window, obs_radius 7), the same width
    native-egothreat     ``network=egothreat`` (egowide with the nearest horrors' and horror tiles' places)
    native-egohunt       ``network=egohunt`` (egowide with a search for whom the horrors hunt and spawn for)
    native-egowide-bf16  native-egowide with ``precision=bf16`` (the network's matrix products in bfloat16)

The native rows take ``--num-games`` games (default 1024), 32 decisions each per iteration, 4 epochs of 4
minibatches (the CNN row: of 1,024 samples). Columns: env-steps/s, then the split of the wall time (engine = the
rules and observations, inference = the policy choosing actions, update = the PPO update, other = the rest). The
JSON (``--json PATH``) is a list of rows, each with ``trainer`` (``sb3`` or ``native``), ``network``,
``env_steps_per_s``, the split and the machine, then the reference rows (``trainer`` ``reference``: PettingZoo's
connect_four_v3 and hanabi_v5 timed in the same run, with the bench extra; ``--no-reference`` skips them). Wall
clock on a shared machine: quote rows from the same run, and only rows that agree across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path
from typing import Any, Callable

import torch

ROWS = ("sb3", "native-cnn", "native-ego", "native-ego-shards2", "native-ego-mappo", "native-egowide",
        "native-egothreat", "native-egohunt", "native-egowide-bf16")
DEFAULT_ROWS = ("sb3", "native-cnn", "native-ego")


def native_row(name: str, opts: argparse.Namespace) -> Callable[[float], dict[str, Any]]:
    """A function timing ``seconds`` of whole iterations of training/ppo.py with the row's settings."""
    from training.ppo import Args, Trainer

    settings: dict[str, Any] = dict(game=opts.game, num_games=opts.num_games, rollout=32, device=opts.device,
                                    torch_threads=opts.torch_threads, engine_threads=opts.engine_threads,
                                    progress_bar=False, anneal_lr=False)
    if name == "native-cnn":
        # minibatches of 1,024 samples: the CNN's activations of bigger ones fall out of the caches (measured on 2
        # cores: 10,100 samples/s forward + backward at 1,024, 7,200 at 8,192)
        settings.update(network="cnn", obs_radius=7, minibatches=max(1, opts.num_games * 32 // 1024))
    elif name.startswith(("native-egowide", "native-egothreat", "native-egohunt")):
        settings.update(network=name.split("-")[1], obs_radius=7, width=opts.width)
    else:
        settings.update(network="ego", obs_radius=2, width=opts.width)
    if name.endswith("shards2"):
        settings["shards"] = 2
    if name.endswith("mappo"):
        settings["critic"] = "mappo"
    if name.endswith("bf16"):
        settings["precision"] = "bf16"
    args = Args(**settings)
    args.validate()
    trainer = Trainer(args)
    trainer.reset()
    trainer.iterate(args.lr)  # warm-up: first calls, allocator, compiled code

    def timed(seconds: float) -> dict[str, Any]:
        before = dict(trainer.timing)
        steps, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            trainer.iterate(args.lr)
            steps += args.num_games * args.rollout
        wall = time.perf_counter() - t0
        split = {k: (trainer.timing[k] - before[k]) / wall for k in before}
        split["other"] = max(0.0, 1.0 - sum(split.values()))
        return {"trainer": "native", "network": args.network, "width": args.width,
                "env_steps_per_s": steps / wall, "split": split,
                "num_games": args.num_games, "shards": args.shards, "critic": args.critic, "device": args.device,
                "precision": args.precision}

    return timed


def sb3_row(opts: argparse.Namespace) -> Callable[[float], dict[str, Any]]:
    """SB3 MaskablePPO learning on the SB3 vector env; iterations timed by a callback."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from subterra_env.models import SubterraFeaturesExtractor
    from subterra_env.sb3 import SubterraVecEnv
    from training.run_files import build_game

    venv = SubterraVecEnv(16, build_game({"preset": opts.game}), seed=0, obs_radius=7, max_cycles=60,
                          copy_obs=False, threads=opts.engine_threads)
    model = MaskablePPO("MultiInputPolicy", venv, n_steps=128, batch_size=512, n_epochs=4, seed=0, verbose=0,
                        device=opts.device, policy_kwargs=dict(features_extractor_class=SubterraFeaturesExtractor))
    per_iter = 16 * 128

    class Stop(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.deadline = 0.0
            self.collect = 0.0
            self.t_rollout = 0.0

        def _on_rollout_start(self) -> None:
            self.t_rollout = time.perf_counter()

        def _on_rollout_end(self) -> None:
            self.collect += time.perf_counter() - self.t_rollout

        def _on_step(self) -> bool:
            return time.perf_counter() < self.deadline

    stop = Stop()
    stop.deadline = float("inf")
    model.learn(per_iter, callback=stop)  # warm-up: one iteration

    def timed(seconds: float) -> dict[str, Any]:
        stop.collect = 0.0
        t0 = time.perf_counter()
        stop.deadline = t0 + seconds
        start_steps = model.num_timesteps
        # whole iterations only: learn() stops at the deadline inside a rollout, so count the finished ones
        model.learn(10**12, callback=stop, reset_num_timesteps=False)
        wall = time.perf_counter() - t0
        done = (model.num_timesteps - start_steps) // per_iter * per_iter
        collect = min(stop.collect, wall)
        return {"trainer": "sb3", "network": "cnn", "env_steps_per_s": done / wall,
                "split": {"collection": collect / wall, "update": 1 - collect / wall},
                "num_games": 16, "shards": 1, "critic": "ippo", "device": opts.device}

    return timed


def reference_rows(seconds: float, repeats: int) -> list[dict[str, Any]]:
    """PettingZoo's connect_four_v3 and hanabi_v5 stepped at random (``benchmarks/sps.py``'s reference rows), so
    that a run's figures can be compared across machines through them; "not installed" without the bench extra."""
    from functools import partial

    from benchmarks import sps

    # timed alone (no interleaved game), warmed up for at most a second: the training rows are the run's point
    timing = sps.Timing(seconds=seconds, repeats=repeats, warmup=min(1.0, seconds), rest=0.0)
    rows = []
    for module, env_id, kwargs in sps.REFERENCES:
        label = module + "".join(f" {k}={v}" for k, v in kwargs.items())
        row = sps.measure("reference", label, 1, partial(sps.aec_stepper, sps.pettingzoo_classic(module, env_id,
                                                                                                 **kwargs), 0),
                          timing)
        rows.append({"row": label, "trainer": "reference", "env_steps_per_s": row.env_steps_per_s,
                     "status": row.status})
    return rows


def machine() -> dict[str, Any]:
    info = {"python": platform.python_version(), "torch": torch.__version__, "cpus": os.cpu_count(),
            "torch_threads": torch.get_num_threads(), "platform": platform.platform()}
    if torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(0)
    return info


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rows", nargs="+", default=list(DEFAULT_ROWS), choices=ROWS, help="which rows to time")
    p.add_argument("--seconds", type=float, default=20.0, help="seconds of whole iterations a row, a repeat")
    p.add_argument("--repeats", type=int, default=1, help="rounds over the rows; each row reports its median")
    p.add_argument("--num-games", type=int, default=1024, help="games of the native rows")
    p.add_argument("--game", default="tiny", help="preset or GameConfig YAML")
    p.add_argument("--device", default="cpu", help="cpu or cuda")
    p.add_argument("--width", type=int, default=128, help="hidden width of the ego networks' two layers")
    p.add_argument("--torch-threads", type=int, default=2, help="torch's CPU threads")
    p.add_argument("--engine-threads", type=int, default=1,
                   help="numba threads of the rules (0: every core)")
    p.add_argument("--json", type=Path, help="write the rows as a JSON list")
    p.add_argument("--no-reference", action="store_true",
                   help="skip the reference rows (connect_four_v3, hanabi_v5; need pip install -e .[bench])")
    opts = p.parse_args(argv)
    if opts.seconds <= 0 or opts.repeats < 1:
        p.error("--seconds must be positive and --repeats at least 1")
    from training.ppo import check_device
    from training.schema import SettingsError

    try:
        check_device(opts.device)
    except SettingsError as e:
        p.error(str(e))
    opts.engine_threads = None if opts.engine_threads == 0 else opts.engine_threads
    torch.set_num_threads(opts.torch_threads)
    timers = {name: sb3_row(opts) if name == "sb3" else native_row(name, opts) for name in opts.rows}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in opts.rows}
    for _ in range(opts.repeats):
        for name, timed in timers.items():
            runs[name].append(timed(opts.seconds))
    rows = []
    for name, results in runs.items():
        sps = [r["env_steps_per_s"] for r in results]
        best = results[sps.index(statistics.median_low(sps))]
        rows.append({"row": name, **best, "env_steps_per_s": statistics.median(sps), "repeats": sps,
                     "seconds": opts.seconds, "game": opts.game, "machine": machine()})
    base = next((r["env_steps_per_s"] for r in rows if r["trainer"] == "sb3"), None)
    print(f"{'row':22s} {'env-steps/s':>12s} {'x sb3':>7s}  split of the wall time")
    for r in rows:
        ratio = f"{r['env_steps_per_s'] / base:6.1f}x" if base else "      -"
        split = ", ".join(f"{k} {v:.0%}" for k, v in r["split"].items())
        spread = f" (runs {min(r['repeats']):,.0f}..{max(r['repeats']):,.0f})" if len(r["repeats"]) > 1 else ""
        print(f"{r['row']:22s} {r['env_steps_per_s']:12,.0f} {ratio}  {split}{spread}")
    references = [] if opts.no_reference else reference_rows(min(opts.seconds, 2.0), max(3, opts.repeats))
    for r in references:
        shown = f"{r['env_steps_per_s']:12,.0f}" if r["status"] == "ok" else f"  {r['status'][:70]}"
        print(f"{r['row']:22s} {shown}  (reference: PettingZoo, random play, one game)")
    if opts.json:
        opts.json.parent.mkdir(parents=True, exist_ok=True)
        opts.json.write_text(json.dumps(rows + references, indent=1))
    return rows


if __name__ == "__main__":
    main()
