"""RLlib PPO (new API stack) for the Sub Terra team: one shared policy for every caver, action masking, on one
machine or a Ray cluster. Needs the ``distributed`` extra: ``pip install -e .[distributed]``.

    python -m training.train_rllib --config configs/train/rllib/local.yaml [--set ppo.lr=1e-4 ...] [--run-dir DIR]
    python -m training.train_rllib --config configs/train/rllib/cluster.yaml --address auto    # after `ray start`
    python -m training.train_rllib --resume runs/rllib [--set stop.iterations=400]

The pieces (env, masking RLModule, PPOConfig, callbacks) live in ``subterra_env.rllib``; this script reads the
YAML settings (every key below, unknown keys are errors), starts or joins Ray, trains and checkpoints. The run
directory holds::

    config.yaml  state.json (iteration, env steps, the last checkpoint: for --resume)  progress.jsonl (one line
    per iteration)  checkpoints/iter_NNNNNN/ (Algorithm.save_to_path; the newest ``checkpoint.keep``)  final/

A checkpoint's policy, for play or evaluation::

    from ray.rllib.core.rl_module.rl_module import RLModule
    module = RLModule.from_checkpoint(f"{ckpt}/learner_group/learner/rl_module/shared")
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]

# Every setting with its default; the YAML file and --set may only use these keys.
DEFAULTS: dict[str, Any] = {
    "seed": 0,
    "torch_threads": None,  # torch threads in the driver process (which samples when num_env_runners is 0)
    "game": {},  # GameConfig settings; "preset": a preset name or a YAML file (configs/tiny.yaml) to start from
    "env": {  # subterra_env.raw_env keywords besides the game settings, and the RLlib env's illegal-action rule
        "obs_radius": 7, "max_cycles": 200, "reward_result": [0.0, 1 / 3, 2 / 3, 1.0], "reward_escape": 0.0,
        "reward_health": 0.0, "reward_tile": 0.0, "reward_way": 0.0, "reward_danger": 0.0, "reward_knockout": 0.0,
        "agent_names": "caver",
        "illegal_action": "penalise",
        "illegal_reward": -1.0,
    },
    "ray": {"address": None, "num_cpus": None, "num_gpus": None},  # address: None starts a local Ray
    "resources": {"num_env_runners": 2, "num_envs_per_env_runner": 4, "num_cpus_per_env_runner": 1,
                  "num_learners": 0, "num_gpus_per_learner": 0},
    "ppo": {"train_batch_size_per_learner": 4000, "minibatch_size": 256, "num_epochs": 4, "lr": 3e-4,
            "gamma": 0.995, "lambda_": 0.95, "entropy_coeff": 0.01, "clip_param": 0.2,
            "rollout_fragment_length": "auto"},
    "model": {"conv_channels": [32, 64], "hidden": 256, "vf_share_layers": True},
    "stop": {"iterations": 100, "env_steps": None},  # whichever comes first (env_steps None: no limit)
    "checkpoint": {"every": 10, "keep": 3},
}


class SettingsError(ValueError):
    """A bad key or value in the YAML file or a --set override; the message names it."""


def merge(base: dict, new: dict, where: str = "") -> dict:
    """``base`` updated by ``new``; keys not in ``base`` are errors (except under ``game``, checked by GameConfig)."""
    out = copy.deepcopy(base)
    for key, value in (new or {}).items():
        name = f"{where}{key}"
        if key not in base and where != "game.":
            raise SettingsError(f"unknown key {name!r}; allowed keys in {where.rstrip('.') or 'the top level'}: "
                                f"{sorted(base)}")
        if isinstance(base.get(key), dict) and key != "game":
            if not isinstance(value, dict):
                raise SettingsError(f"{name}: expected a mapping of {sorted(base[key])}, got {value!r}")
            out[key] = merge(base[key], value, name + ".")
        elif key == "game":
            if not isinstance(value, dict):
                raise SettingsError(f"game: expected a mapping of game settings, got {value!r}")
            out[key] = {**base.get(key, {}), **value}
        else:
            out[key] = value
    return out


def override(settings: dict, assignment: str) -> dict:
    """Apply one ``--set a.b=value`` (value parsed as YAML)."""
    if "=" not in assignment:
        raise SettingsError(f"--set {assignment!r}: expected key=value, e.g. ppo.lr=1e-4")
    path, raw = assignment.split("=", 1)
    value = yaml.safe_load(raw)
    keys = path.strip().split(".")
    nested: Any = value
    for key in reversed(keys):
        nested = {key: nested}
    return merge(settings, nested)


def load_settings(path: str | Path | None, sets: list[str]) -> dict:
    data: dict = {}
    if path is not None:
        try:
            data = yaml.safe_load(Path(path).read_text()) or {}
        except (OSError, yaml.YAMLError) as e:
            raise SettingsError(f"{path}: {e}") from e
        if not isinstance(data, dict):
            raise SettingsError(f"{path}: expected a mapping of settings")
    settings = merge(DEFAULTS, data)
    for s in sets:
        settings = override(settings, s)
    return settings


def game_config(game: dict):
    """The GameConfig of the ``game`` mapping: a preset name or YAML file (``preset``), then the other keys."""
    import subterra_env
    from subterra_env.config import ConfigError

    game = dict(game)
    name = str(game.pop("preset", "default"))
    try:
        if name.endswith((".yaml", ".yml")):
            p = Path(name)
            base = subterra_env.load(p if p.is_absolute() or p.exists() else REPO / p)
            return base.replace(**game) if game else base
        return subterra_env.preset(name, **game)
    except ConfigError as e:
        raise SettingsError(f"game: {e}") from e


def env_config(settings: dict) -> dict:
    """``env_config`` for ``SubterraMultiAgentEnv``: the GameConfig (resolved here, so cluster nodes need no YAML
    files) and the env keywords; checked by making one env."""
    from subterra_env.rllib import SubterraMultiAgentEnv

    env = dict(settings["env"])
    if not isinstance(env["reward_result"], (list, tuple)) or len(env["reward_result"]) != 4:
        raise SettingsError("env.reward_result: expected 4 values (defeat, bronze, silver, gold)")
    env["reward_result"] = tuple(float(x) for x in env["reward_result"])
    cfg = {"config": game_config(settings["game"]), **env}
    try:
        SubterraMultiAgentEnv(cfg)
    except ValueError as e:
        raise SettingsError(f"env: {e}") from e
    return cfg


def run_seed(seed: int, iteration: int) -> int:
    """The seed of a run segment that starts after ``iteration`` finished iterations (0: a new run).

    RLlib derives every env runner's game seeds and the sampling RNG from the config's seed when the Algorithm is
    built, and restoring a checkpoint does not move them on: a resumed run with the same seed replayed the first
    segment's games (issue 40: its first iteration reproduced iteration 1's 51 episodes and return exactly). Each
    segment therefore gets its own seed, far enough from the last (runners add small offsets to it) that their
    games do not overlap, and the same for the same restored iteration, so a resume is itself reproducible."""
    return int(seed) + 1_000_003 * int(iteration)


def build_config(settings: dict, iteration: int = 0):
    """The PPOConfig of these settings (``subterra_env.rllib.ppo_config``) for a segment starting after
    ``iteration`` iterations (``run_seed``)."""
    from subterra_env.rllib import ppo_config

    model = dict(settings["model"])
    model["conv_channels"] = tuple(model["conv_channels"])
    r, p = settings["resources"], settings["ppo"]
    return ppo_config(env_config(settings), num_env_runners=r["num_env_runners"],
                      num_envs_per_env_runner=r["num_envs_per_env_runner"],
                      num_cpus_per_env_runner=r["num_cpus_per_env_runner"], num_learners=r["num_learners"],
                      num_gpus_per_learner=r["num_gpus_per_learner"],
                      rollout_fragment_length=p["rollout_fragment_length"],
                      train_batch_size_per_learner=p["train_batch_size_per_learner"],
                      minibatch_size=p["minibatch_size"], num_epochs=p["num_epochs"], lr=p["lr"], gamma=p["gamma"],
                      lambda_=p["lambda_"], entropy_coeff=p["entropy_coeff"], clip_param=p["clip_param"],
                      model=model, seed=run_seed(settings["seed"], iteration))


def summary(result: dict, seconds: float) -> dict:
    """One progress line from an ``Algorithm.train()`` result."""
    er = result.get("env_runners", {})
    sampled = er.get("num_env_steps_sampled", 0) or 0
    sample_s = result.get("timers", {}).get("env_runner_sampling_timer")
    line = {
        "iteration": result.get("training_iteration"),
        "env_steps": int(result.get("num_env_steps_sampled_lifetime", er.get("num_env_steps_sampled_lifetime", 0))),
        "env_steps_this_iter": int(sampled),
        "seconds": round(seconds, 3),
        "env_steps_per_s": round(sampled / seconds, 1) if seconds else None,
        "sample_steps_per_s": round(sampled / sample_s, 1) if sample_s else None,
        "episodes": int(er.get("num_episodes", 0) or 0),
        "episode_return_mean": er.get("episode_return_mean"),
        "result_mean": er.get("subterra/result"),
        "medal_rate": er.get("subterra/medal"),
        "escaped_mean": er.get("subterra/escaped"),
    }
    return {k: (float(v) if hasattr(v, "item") else v) for k, v in line.items()}


def train(settings: dict, run_dir: Path, resume: bool = False, address: str | None = None,
          log=print) -> dict:
    """Train until ``stop``; returns the last progress line. Checkpoints under ``run_dir/checkpoints``."""
    import ray
    import torch

    if settings["torch_threads"]:
        torch.set_num_threads(int(settings["torch_threads"]))
    state_file = run_dir / "state.json"
    state = json.loads(state_file.read_text()) if resume and state_file.exists() else {}
    restored = int(state.get("iteration", 0)) if state.get("checkpoint") else 0
    config = build_config(settings, restored)  # settings errors before Ray starts; new games after a resume
    ray_cfg = settings["ray"]
    address = address or ray_cfg["address"]
    started = not ray.is_initialized()
    if started:
        if address:
            ray.init(address=address)
        else:
            ray.init(num_cpus=ray_cfg["num_cpus"], num_gpus=ray_cfg["num_gpus"], include_dashboard=False)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(settings, sort_keys=False))
    algo = config.build_algo()
    try:
        if resume and state.get("checkpoint"):
            algo.restore_from_path(str(Path(state["checkpoint"]).resolve()))
            log(f"resumed from {state['checkpoint']} (iteration {state['iteration']}; seed "
                f"{run_seed(settings['seed'], restored)}: new games)")
        stop, ck = settings["stop"], settings["checkpoint"]
        iteration, line = restored, {}
        kept = sorted((run_dir / "checkpoints").glob("iter_*")) if (run_dir / "checkpoints").exists() else []
        with open(run_dir / "progress.jsonl", "a") as progress:
            while iteration < stop["iterations"] and not (
                    stop["env_steps"] and line.get("env_steps", state.get("env_steps", 0)) >= stop["env_steps"]):
                t0 = time.perf_counter()
                result = algo.train()
                iteration += 1
                line = summary(result, time.perf_counter() - t0)
                line["iteration"] = iteration
                progress.write(json.dumps(line) + "\n")
                progress.flush()
                log(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in line.items()
                             if v is not None))
                if ck["every"] and iteration % ck["every"] == 0:
                    path = run_dir / "checkpoints" / f"iter_{iteration:06d}"
                    algo.save_to_path(str(path.resolve()))
                    kept.append(path)
                    while ck["keep"] and len(kept) > ck["keep"]:
                        shutil.rmtree(kept.pop(0), ignore_errors=True)
                    state = {"iteration": iteration, "env_steps": line["env_steps"], "checkpoint": str(path)}
                    state_file.write_text(json.dumps(state))
        final = run_dir / "final"
        algo.save_to_path(str(final.resolve()))
        state = {"iteration": iteration, "env_steps": line.get("env_steps", state.get("env_steps", 0)),
                 "checkpoint": str(final)}
        state_file.write_text(json.dumps(state))
        return line
    finally:
        algo.stop()
        if started:
            ray.shutdown()


def main(argv: list[str] | None = None) -> int:
    # the docstring's first paragraph, whole (its first line alone stops mid-sentence)
    p = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("--config", help="YAML settings (configs/train/rllib/*.yaml)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override one setting, e.g. resources.num_env_runners=4 (repeatable)")
    p.add_argument("--run-dir", default=None, help="where checkpoints and logs go (default runs/rllib)")
    p.add_argument("--address", default=None,
                   help="join a running Ray cluster (e.g. auto, or HEAD_IP:6379 after `ray start --head`)")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its last checkpoint")
    args = p.parse_args(argv)
    try:
        import ray  # noqa: F401
    except ImportError:
        print("train_rllib.py needs Ray RLlib: pip install -e '.[distributed]'", file=sys.stderr)
        return 2
    if not args.config and not args.resume:
        p.error("give --config FILE (or --resume RUN_DIR)")
    try:
        if args.resume:
            run_dir = Path(args.resume)
            settings = load_settings(run_dir / "config.yaml", args.set)
        else:
            settings = load_settings(args.config, args.set)
            run_dir = Path(args.run_dir or "runs/rllib")
        build_config(settings)  # refuse bad settings before anything starts
    except (SettingsError, TypeError, ValueError) as e:  # also bad values that PPOConfig refuses
        print(f"error: {e}", file=sys.stderr)
        return 2
    train(settings, run_dir, resume=bool(args.resume), address=args.address)
    return 0


if __name__ == "__main__":
    sys.exit(main())
