"""Parameter-shared MaskablePPO for the Sub Terra team: one policy plays every caver.

    python -m training.train_ppo --config configs/train/default.yaml [--set ppo.learning_rate=1e-4 ...]
                                 [--run-dir runs/NAME [--overwrite]]
    python -m training.train_ppo --resume runs/NAME [--set total_timesteps=N]

Reads top to bottom: the settings (dataclasses, one docstring per setting; every one of them lives in the YAML
file and unknown keys are errors), the seeding block, behaviour cloning from a teacher team (training/bc.py), then
PPO on ``subterra_env.sb3.SubterraVecEnv`` with a curriculum over game presets, periodic greedy evaluation
(``best.zip``), checkpoints and TensorBoard logs. The run directory holds::

    config.yaml  versions.json (packages + git revision)  state.json (where the run is, for --resume)
    tb/ (TensorBoard events + progress.csv)  checkpoints/step_*.zip  best.zip  best.json  final.zip
    curriculum.jsonl (one line per stage entered)  eval.jsonl (one line per evaluation)

Rewards: the env's team reward (``reward_result`` per medal at the end) plus optional shaping per caver reaching
the exit (``reward_escape``), per health point lost (``reward_health``, negative: a penalty), per tile placed
(``reward_tile``) and per step of the way to the exit the team closes (``reward_way``). Each shaping term is a
weight times the change of a count, i.e. a potential difference Phi(s') - Phi(s) with Phi = weight x count:
potential-based (policy-invariant) for gamma = 1 and close to it for gamma near 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import shutil
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml

from training import bc
from training.run_files import append_jsonl, build_game, stream_seed, versions  # noqa: F401
from training.schema import SettingsError, apply_override, from_mapping, to_plain

REPO = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------------------------------- settings
@dataclass
class EnvArgs:
    num_envs: int = field(default=16, metadata=dict(min=1, max=4096))
    """Games stepped together (vector env slots); PPO collects ``num_envs * ppo.n_steps`` decisions per update."""
    obs_radius: int = field(default=7, metadata=dict(min=1, max=20))
    """Observation window radius: (2R+1)^2 cells around the acting caver. Fixed for a whole curriculum."""
    max_cycles: int = field(default=200, metadata=dict(min=1))
    """Rounds after which a game is truncated."""
    threads: int | None = field(default=1, metadata=dict(min=1, max=64))
    """numba threads of the rules (and of the heuristic's advice); null: every core. One is the default because
    SB3's loop steps small batches, where a parallel section waits on a busy core: on the 2-core machine under
    load, a 64-game step took 340 us per game with numba's default threads and 11 us with one."""
    reward_result: tuple[float, float, float, float] = (0.0, 1 / 3, 2 / 3, 1.0)
    """Team reward at the end of a game for defeat, bronze, silver, gold."""
    reward_escape: float = 0.0
    """Shaping: team reward per caver reaching the exit tile."""
    reward_health: float = 0.0
    """Shaping: team reward per health point lost, as the env's ``reward_health`` (negative penalises; healing pays
    it back)."""
    reward_tile: float = 0.0
    """Shaping: team reward per tile placed (exploring)."""
    reward_way: float = 0.0
    """Shaping: team reward per step of the way to the exit the team closes, as the env's ``reward_way``."""


@dataclass
class StageArgs:
    game: dict[str, Any] = field(default_factory=dict)
    """The game of this stage: ``preset`` (a YAML file for ``subterra_env.load`` or a preset name such as
    ``default``) and/or GameConfig keys on top of it; empty = the full game."""
    advance_after_steps: int | None = field(default=None, metadata=dict(min=1))
    """Go to the next stage after this many env steps in this stage (null: no step limit)."""
    advance_at_success: float | None = field(default=None, metadata=dict(min=0.0, max=1.0))
    """Go to the next stage when an evaluation's success rate (games with a medal) reaches this (null: never)."""


@dataclass
class PPOArgs:
    learning_rate: float = field(default=3e-4, metadata=dict(min=0.0))
    """Adam step size."""
    n_steps: int = field(default=128, metadata=dict(min=1))
    """Decisions per slot per rollout."""
    batch_size: int = field(default=256, metadata=dict(min=2))
    """Minibatch size of the PPO update."""
    n_epochs: int = field(default=4, metadata=dict(min=1))
    """Passes over each rollout."""
    gamma: float = field(default=0.995, metadata=dict(min=0.0, max=1.0))
    """Discount per decision (a game is a few hundred decisions)."""
    gae_lambda: float = field(default=0.95, metadata=dict(min=0.0, max=1.0))
    """GAE lambda."""
    clip_range: float = field(default=0.2, metadata=dict(min=0.0))
    """PPO ratio clip."""
    ent_coef: float = field(default=0.01, metadata=dict(min=0.0))
    """Entropy bonus weight."""
    vf_coef: float = field(default=0.5, metadata=dict(min=0.0))
    """Value loss weight."""
    max_grad_norm: float = field(default=0.5, metadata=dict(min=0.0))
    """Gradient clip."""
    target_kl: float | None = field(default=None, metadata=dict(min=0.0))
    """Stop an update's epochs early past this KL (null: never)."""


@dataclass
class ModelArgs:
    features_dim: int = field(default=256, metadata=dict(min=1))
    """Output size of SubterraFeaturesExtractor (shared by the policy and value heads)."""
    cnn_channels: tuple[int, int] = (32, 64)
    """Channels of the two stride-2 3x3 convolutions over the grid."""
    cnn_dim: int = field(default=128, metadata=dict(min=1))
    """Linear layer after the convolutions."""
    mlp_dim: int = field(default=128, metadata=dict(min=1))
    """Hidden layer over the scalars and the uncompressed centre crop."""
    centre_radius: int = field(default=1, metadata=dict(min=-1))
    """Half-size of the centre crop (1 = 3x3 cells; -1 = none)."""
    net_arch: list[int] = field(default_factory=lambda: [64, 64])
    """Hidden layers of the policy head and (separately) of the value head."""
    advice_scale: float | None = field(default=None, metadata=dict(min=0.0, max=50.0))
    """A residual policy on the heuristic's advice (agents.advised_policy): the logits gain advice_scale at the
    action the compiled heuristic would play, so training starts from the heuristic team; null: a plain policy."""


@dataclass
class EvalArgs:
    every: int = field(default=20_000, metadata=dict(min=0))
    """Evaluate every this many env steps (0: only at the end)."""
    games: int = field(default=64, metadata=dict(min=1, max=4096))
    """Seeded games per evaluation (slot i plays the first game of the stream (seed, i))."""
    seed: int = 1_000_000
    """Seed of the evaluation games: the same games at every evaluation."""
    deterministic: bool = True
    """Greedy policy (argmax over legal actions) instead of sampling."""


@dataclass
class CheckpointArgs:
    every: int = field(default=50_000, metadata=dict(min=1))
    """Save a checkpoint every this many env steps (and at the end)."""
    keep: int = field(default=3, metadata=dict(min=1))
    """Checkpoints kept (older ones are deleted)."""


@dataclass
class BCArgs:
    enabled: bool = False
    """Warm start by behaviour cloning before PPO (on the first stage's game)."""
    teacher: str = field(default="heuristic", metadata=dict(
        choices=("heuristic", "search", "search:4", "search:16", "random", "first_legal")))
    """The teacher team: heuristic (agents.heuristic.HeuristicAgent on every slot), search (agents.search.SearchAgent,
    8 worlds a decision; search:4, search:16), random, first_legal (tests)."""
    decisions: int = field(default=20_000, metadata=dict(min=1))
    """Teacher decisions to collect."""
    num_envs: int = field(default=64, metadata=dict(min=1, max=4096))
    """Games the teacher plays at once while collecting."""
    epochs: int = field(default=4, metadata=dict(min=0))
    """Passes over the demonstrations."""
    batch_size: int = field(default=512, metadata=dict(min=1))
    """Minibatch size."""
    lr: float = field(default=1e-3, metadata=dict(min=0.0))
    """Adam step size."""
    value_coef: float = field(default=0.5, metadata=dict(min=0.0))
    """Weight of the value loss on the teacher's discounted returns (0: train the action head only)."""
    holdout: float = field(default=0.1, metadata=dict(min=0.0, max=0.9))
    """Fraction of the teacher's games held out to measure imitation."""
    demos: list[str] = field(default_factory=list)
    """.npz files of demonstrations (an earlier run's demos.npz) or Minari datasets ("minari:ID", docs/datasets.md)
    to clone instead of collecting new ones; empty: collect ``decisions`` from ``teacher``."""
    save_demos: bool = False
    """Write the collected demonstrations to RUN/demos.npz (a search teacher labels slowly: label once, reuse)."""


@dataclass
class LogArgs:
    progress_bar: bool = True
    """A tqdm progress bar over the whole run."""
    stats_window: int = field(default=100, metadata=dict(min=1))
    """Finished games averaged in the rollout/ episode statistics."""
    verbose: int = field(default=0, metadata=dict(choices=(0, 1)))
    """1: also print SB3's log tables."""


@dataclass
class TrainArgs:
    seed: int = 0
    """Seeds python, numpy, torch, SB3 and the env slots (slot i of stage s plays the stream (seed, s, k, i))."""
    total_timesteps: int = field(default=100_000, metadata=dict(min=1))
    """Env steps (decisions) of PPO in all, over every stage."""
    torch_threads: int = field(default=1, metadata=dict(min=1, max=64))
    """torch CPU threads (1 is fastest for this small network on a shared machine)."""
    device: str = field(default="cpu", metadata=dict(choices=("cpu", "cuda", "auto")))
    """torch device."""
    game: dict[str, Any] | None = None
    """The game when there is no curriculum (see StageArgs.game); null with a curriculum."""
    curriculum: list[StageArgs] = field(default_factory=list)
    """Stages in order (each a game and an advance rule); empty: train on ``game`` throughout."""
    env: EnvArgs = field(default_factory=EnvArgs)
    ppo: PPOArgs = field(default_factory=PPOArgs)
    model: ModelArgs = field(default_factory=ModelArgs)
    eval: EvalArgs = field(default_factory=EvalArgs)
    checkpoint: CheckpointArgs = field(default_factory=CheckpointArgs)
    bc: BCArgs = field(default_factory=BCArgs)
    log: LogArgs = field(default_factory=LogArgs)

    def validate(self, prefix: str = "") -> None:
        """Cross-field checks, and every stage's game built once so a bad game setting fails at load time."""
        if self.game is not None and self.curriculum:
            raise SettingsError("give either 'game' or 'curriculum' (whose stages name their games), not both")
        if not self.curriculum:  # one stage: the game, throughout
            build_game(self.game or {}, f"{prefix}game" if prefix else "game")
            self.curriculum = [StageArgs(game=self.game or {})]
            self.game = None
        for i, stage in enumerate(self.curriculum):
            build_game(stage.game, f"curriculum.{i}.game")


RESUME_OVERRIDES = ("total_timesteps", "log.progress_bar", "log.verbose")


def load_args(path: str | Path, overrides: list[str] = (), allowed_overrides: tuple[str, ...] | None = None
              ) -> TrainArgs:
    """Read a training YAML, apply ``key=value`` overrides, validate every key (SettingsError otherwise)."""
    try:
        data = yaml.safe_load(Path(path).read_text()) or {}
    except (OSError, yaml.YAMLError) as e:
        raise SettingsError(f"{path}: cannot read the training config: {e}") from e
    for assignment in overrides:
        key = assignment.split("=", 1)[0].strip()
        if allowed_overrides is not None and key not in allowed_overrides:
            raise SettingsError(f"--set {key}: a resumed run keeps its config; only {list(allowed_overrides)} "
                                "may change")
        apply_override(data, assignment)
    try:
        return from_mapping(TrainArgs, data)
    except SettingsError as e:
        raise SettingsError(f"{path}: {e}") from e


# ----------------------------------------------------------------------------------------- envs, model, helpers
def make_venv(args: TrainArgs, stage: int, num_envs: int, seed: int):
    """The SB3 vector env of a stage's game, slots seeded from the stream (seed, i)."""
    from subterra_env.sb3 import SubterraVecEnv

    e = args.env
    venv = SubterraVecEnv(num_envs, build_game(args.curriculum[stage].game), seed=seed, obs_radius=e.obs_radius,
                          max_cycles=e.max_cycles, reward_result=tuple(e.reward_result),
                          reward_escape=e.reward_escape, reward_health=e.reward_health, reward_tile=e.reward_tile,
                          reward_way=e.reward_way,
                          threads=e.threads,
                          copy_obs=False)  # SB3's rollout buffer copies each observation before the next step
    if args.model.advice_scale is None:
        return venv
    from agents.advice_vec_env import AdviceVecEnv

    return AdviceVecEnv(venv)


def evaluate(model, args: TrainArgs, stage: int) -> dict[str, float]:
    """``eval.games`` seeded games of the stage's game with the current policy (greedy by default)."""
    venv = make_venv(args, stage, args.eval.games, args.eval.seed)
    games = bc.play_games(venv, lambda obs, masks: model.predict(
        obs, action_masks=masks, deterministic=args.eval.deterministic)[0])
    return bc.summarize(games)


# ------------------------------------------------------------------------------------------------- callbacks
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402


class EpisodeStats(BaseCallback):
    """rollout/ statistics of the finished games (from the infos of the vector env), over the last ``window``
    games: cavers escaped, rounds, medal rates. SB3 itself logs ep_rew_mean / ep_len_mean from the ``episode``
    infos the env writes."""

    def __init__(self, window: int):
        super().__init__()
        self.games: deque[dict] = deque(maxlen=window)
        self.total_games = 0

    def _on_step(self) -> bool:
        for info, done in zip(self.locals["infos"], self.locals["dones"]):
            if done and "result" in info:
                self.games.append({"result": bc.result_name(info["result"]), "escaped": info.get("escaped", 0),
                                   "round": info.get("round", 0),
                                   "truncated": bool(info.get("TimeLimit.truncated", False))})
                self.total_games += 1
        return True

    def _on_rollout_end(self) -> None:
        if not self.games:
            return
        g = list(self.games)
        self.logger.record("rollout/ep_escaped_mean", float(np.mean([x["escaped"] for x in g])))
        self.logger.record("rollout/ep_rounds_mean", float(np.mean([x["round"] for x in g])))
        self.logger.record("rollout/medal_rate", float(np.mean([x["result"] != "defeat" for x in g])))
        for name in bc.MEDAL_POINTS:
            self.logger.record(f"rollout/rate_{name}", float(np.mean([x["result"] == name for x in g])))
        self.logger.record("rollout/truncated_rate", float(np.mean([x["truncated"] for x in g])))
        self.logger.record("rollout/games_total", self.total_games)


class Progress(BaseCallback):
    """One tqdm bar over the whole run (all stages, resumes start where they were)."""

    def __init__(self, total: int, enabled: bool):
        super().__init__()
        self.total, self.enabled, self.bar = total, enabled, None
        self.text = ""

    def _on_training_start(self) -> None:
        if self.enabled and self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, initial=self.model.num_timesteps, unit="step", dynamic_ncols=True)

    def _on_step(self) -> bool:
        if self.bar is not None:
            self.bar.update(min(self.model.num_timesteps, self.total) - self.bar.n)
            if self.text:
                self.bar.set_postfix_str(self.text, refresh=False)
        return True

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class Periodic(BaseCallback):
    """Evaluation (best.zip), checkpoints (state.json) and the curriculum's advance rules. Stops ``learn`` when the
    stage should advance; the main loop then builds the next stage's env."""

    def __init__(self, args: TrainArgs, run: Path, state: dict, progress: Progress):
        super().__init__()
        self.args, self.run, self.state, self.progress = args, run, state, progress
        self.advance = False
        self.last_eval: tuple[tuple[int, int], dict[str, float]] | None = None

    def _init_callback(self) -> None:
        self.advance = False
        self.next_eval = self._next(self.args.eval.every)
        self.next_ckpt = self._next(self.args.checkpoint.every)

    def _next(self, every: int) -> int:
        return (self.model.num_timesteps // every + 1) * every if every else 2**62

    def _on_step(self) -> bool:
        if self.advance:  # decided at the end of the last rollout, which PPO has trained on since
            return False
        n, stage_no = self.model.num_timesteps, self.state["stage"]
        stage, last = self.args.curriculum[stage_no], stage_no == len(self.args.curriculum) - 1
        if n >= self.next_eval:
            self.next_eval = self._next(self.args.eval.every)
            result = self.run_eval()
            if not last and stage.advance_at_success is not None and result["success"] >= stage.advance_at_success:
                self.advance = True
        if n >= self.next_ckpt:
            self.next_ckpt = self._next(self.args.checkpoint.every)
            save_checkpoint(self.model, self.run, self.state, self.args.checkpoint.keep)
        return not self.advance

    def _on_rollout_end(self) -> None:
        stage_no = self.state["stage"]
        self.logger.record("curriculum/stage", stage_no)
        after = self.args.curriculum[stage_no].advance_after_steps
        if stage_no < len(self.args.curriculum) - 1 and after is not None and \
                self.model.num_timesteps - self.state["stage_start"] >= after:
            self.advance = True

    def run_eval(self) -> dict[str, float]:
        """Evaluate, log under eval/, keep the best model of the current stage (escaped, then medal score)."""
        n = self.model.num_timesteps
        if self.last_eval is not None and self.last_eval[0] == (n, self.state["stage"]):
            return self.last_eval[1]  # the run ended right on a periodic evaluation
        result = evaluate(self.model, self.args, self.state["stage"])
        self.last_eval = ((n, self.state["stage"]), result)
        for k, v in result.items():
            self.model.logger.record(f"eval/{k}", v)
        self.model.logger.record("eval/stage", self.state["stage"])
        score = [result["escaped"], result["medal_score"]]
        best = self.state.get("best")
        if best is None or best["stage"] != self.state["stage"] or score > best["score"]:
            self.model.save(self.run / "best.zip")
            self.state["best"] = {"stage": self.state["stage"], "score": score, "step": n, **result}
            (self.run / "best.json").write_text(json.dumps(self.state["best"], indent=1))
        append_jsonl(self.run / "eval.jsonl", {"step": n, "stage": self.state["stage"], **result})
        self.progress.text = f"stage {self.state['stage']} escaped {result['escaped']:.2f} " \
                             f"medals {result['success']:.0%}"
        return result


def save_checkpoint(model, run: Path, state: dict, keep: int) -> Path:
    """checkpoints/step_N.zip and state.json (the run's position, for --resume); keeps the newest ``keep``."""
    folder = run / "checkpoints"
    folder.mkdir(exist_ok=True)
    path = folder / f"step_{model.num_timesteps:09d}.zip"
    model.save(path)
    state.update(num_timesteps=model.num_timesteps, checkpoint=str(path.relative_to(run)))
    (run / "state.json").write_text(json.dumps(state, indent=1))
    for old in sorted(folder.glob("step_*.zip"))[:-keep]:
        old.unlink()
    return path


# ------------------------------------------------------------------------------------------------------ main
def parse_cli(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--config", help="training YAML (configs/train/*.yaml); not with --resume")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a setting, e.g. ppo.learning_rate=1e-4 or curriculum.0.advance_after_steps=5000")
    p.add_argument("--run-dir", help="where to write the run (default runs/<config name>-<time>)")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue a run from its last checkpoint, same config")
    p.add_argument("--overwrite", action="store_true",
                   help="start afresh in --run-dir even if it holds an earlier run (which is deleted)")
    ns = p.parse_args(argv)
    if bool(ns.config) == bool(ns.resume):
        p.error("give --config (a new run) or --resume RUN_DIR (continue one)")
    if ns.resume and ns.run_dir:
        p.error("--resume continues in its own run directory; leave out --run-dir")
    return ns


def open_run(cli: argparse.Namespace) -> tuple[Path, TrainArgs, dict]:
    """The run directory, its settings and its position: the resumed run's (``--resume``), or a new run's (an
    earlier run in ``--run-dir`` deleted under ``--overwrite``). Raises SettingsError."""
    if cli.resume:
        run = Path(cli.resume)
        if not (run / "state.json").exists():
            raise SettingsError(f"--resume {run}: no state.json there (no checkpoint was saved yet)")
        args = load_args(run / "config.yaml", cli.set, allowed_overrides=RESUME_OVERRIDES)
        state = json.loads((run / "state.json").read_text())
        state["segment"] += 1
        return run, args, state
    args = load_args(cli.config, cli.set)
    run = Path(cli.run_dir or f"runs/{Path(cli.config).stem}-{time.strftime('%Y%m%d-%H%M%S')}")
    if run.exists() and any(run.iterdir()):
        if not (cli.overwrite and (run / "config.yaml").exists()):
            raise SettingsError(f"--run-dir {run} exists and is not empty: use --resume {run}, --overwrite "
                                "(for an earlier run's directory) or another directory")
        shutil.rmtree(run)
    state = {"stage": 0, "stage_start": 0, "segment": 0, "num_timesteps": 0, "checkpoint": None,
             "best": None, "bc": None}
    return run, args, state


def stage_venv(args: TrainArgs, state: dict, stage: int):
    """The vector env of curriculum stage ``stage``, its game slots seeded by a stream of their own per stage and per
    resumed segment."""
    return make_venv(args, stage, args.env.num_envs, stream_seed(args.seed, stage, state["segment"]))


def make_logger(args: TrainArgs, run: Path, state: dict):
    """TensorBoard events and a CSV copy (a resumed segment writes its own CSV: SB3 would overwrite the file)."""
    from stable_baselines3.common.logger import CSVOutputFormat, HumanOutputFormat, Logger, TensorBoardOutputFormat

    csv_name = "progress.csv" if state["segment"] == 0 else f"progress-resume{state['segment']}.csv"
    (run / "tb").mkdir(exist_ok=True)
    outputs = [TensorBoardOutputFormat(str(run / "tb")), CSVOutputFormat(str(run / "tb" / csv_name))]
    return Logger(str(run / "tb"), outputs + ([HumanOutputFormat(sys.stdout)] if args.log.verbose else []))


def build_model(args: TrainArgs, run: Path, state: dict, venv, resume: bool):
    """The MaskablePPO model: loaded from the run's last checkpoint, or new with the settings' network (the advised
    policy where ``model.advice_scale`` is set)."""
    from sb3_contrib import MaskablePPO

    from subterra_env.models import SubterraFeaturesExtractor

    if resume:
        model = MaskablePPO.load(run / state["checkpoint"], env=venv, device=args.device)
        print(f"resumed {run} at step {model.num_timesteps} (stage {state['stage']})")
        return model
    m = args.model
    policy_kwargs = dict(
        features_extractor_class=SubterraFeaturesExtractor,
        features_extractor_kwargs=dict(features_dim=m.features_dim, cnn_channels=tuple(m.cnn_channels),
                                       cnn_dim=m.cnn_dim, mlp_dim=m.mlp_dim, centre_radius=m.centre_radius),
        net_arch=dict(pi=list(m.net_arch), vf=list(m.net_arch)))
    policy: Any = "MultiInputPolicy"
    if m.advice_scale is not None:
        from agents.advised_policy import AdvisedPolicy

        policy, policy_kwargs["advice_scale"] = AdvisedPolicy, m.advice_scale
    return MaskablePPO(policy, venv, policy_kwargs=policy_kwargs, seed=args.seed,
                       device=args.device, verbose=args.log.verbose, **dataclasses.asdict(args.ppo))


def warm_start(model, args: TrainArgs, run: Path, state: dict, logger) -> None:
    """Behaviour cloning from the teacher team (training/bc.py): its decisions collected (or loaded from
    ``bc.demos``), the policy and value fitted to them; ``state["bc"]`` and bc.json record how it went."""
    t0 = time.time()
    if args.bc.demos:
        demos = bc.Demonstrations.concat([bc.load_demos(p if bc.is_dataset(p) or Path(p).exists() else REPO / p,
                                                        args.ppo.gamma) for p in args.bc.demos])
    else:
        bc_env = make_venv(args, 0, args.bc.num_envs, stream_seed(args.seed, 7_777))
        demos = bc.collect(bc_env, bc.make_teacher(args.bc.teacher, bc_env, args.seed), args.bc.decisions,
                           args.ppo.gamma, setting="bc.decisions")
    if args.bc.save_demos:
        demos.save(run / "demos.npz")
    train_set, held_out = bc.split(demos, args.bc.holdout, args.seed)

    def log_bc(epoch: int, metrics: dict[str, float]) -> None:
        for k, v in metrics.items():
            if v is not None:
                logger.record(f"bc/{k}", v)
        logger.dump(step=epoch)

    history = bc.train_bc(model.policy, train_set, held_out, args.bc.epochs, args.bc.batch_size, args.bc.lr,
                          args.bc.value_coef, args.seed, log_bc)
    teacher = bc.summarize([{**g, "length": 0, "return": 0.0} for g in demos.finished]) if demos.finished \
        else {}
    state["bc"] = {"decisions": len(demos), "teacher_games": len(demos.finished),
                   "teacher_escaped": teacher.get("escaped"), "teacher_success": teacher.get("success"),
                   "seconds": round(time.time() - t0, 1), "before": history[0], "after": history[-1]}
    (run / "bc.json").write_text(json.dumps(state["bc"], indent=1))
    a = history[-1]
    print(f"bc: {len(demos)} decisions of {args.bc.teacher} ({len(demos.finished)} games, escaped "
          f"{teacher.get('escaped', float('nan')):.2f}); held-out accuracy {a.get('held_out_acc', 0):.3f} "
          f"(chance {a.get('held_out_chance', 0):.3f}) in {time.time() - t0:.0f}s")


def learn_stages(model, args: TrainArgs, run: Path, state: dict, callbacks, periodic: Periodic,
                 progress: Progress) -> bool:
    """PPO up to ``total_timesteps``, moving to the next curriculum stage (a new vector env) when ``periodic`` says
    so. False when interrupted (Ctrl-C): a checkpoint is saved for --resume."""
    while model.num_timesteps < args.total_timesteps:
        try:
            model.learn(args.total_timesteps - model.num_timesteps, callback=callbacks, reset_num_timesteps=False,
                        log_interval=1)
        except KeyboardInterrupt:
            progress.close()
            path = save_checkpoint(model, run, state, args.checkpoint.keep)
            print(f"interrupted: saved {path}; continue with --resume {run}", file=sys.stderr)
            return False
        if periodic.advance:
            state["stage"] += 1
            state["stage_start"] = model.num_timesteps
            append_jsonl(run / "curriculum.jsonl", {"step": model.num_timesteps, "stage": state["stage"],
                                                    "event": "advance"})
            model.logger.record("curriculum/stage", state["stage"])
            model.logger.dump(model.num_timesteps)
            print(f"curriculum: stage {state['stage']} from step {model.num_timesteps}")
            model.set_env(stage_venv(args, state, state["stage"]))
    return True


def finish(model, args: TrainArgs, run: Path, state: dict, periodic: Periodic, elapsed: float, steps: int) -> None:
    """The end of a run: a last evaluation (best.zip), a checkpoint, final.zip and summary.json."""
    periodic.init_callback(model)
    result = periodic.run_eval()
    model.logger.dump(model.num_timesteps)
    save_checkpoint(model, run, state, args.checkpoint.keep)
    model.save(run / "final.zip")
    summary = {"num_timesteps": model.num_timesteps, "stage": state["stage"], "ppo_seconds": round(elapsed, 1),
               "ppo_steps_per_second": round(steps / max(elapsed, 1e-9), 1), "final_eval": result}
    (run / "summary.json").write_text(json.dumps(summary, indent=1))
    print(f"done: {model.num_timesteps} steps, {summary['ppo_steps_per_second']:.0f} steps/s; final eval: escaped "
          f"{result['escaped']:.2f}, medals {result['success']:.0%}; run dir {run}")


def main(argv: list[str] | None = None) -> int:
    cli = parse_cli(argv)
    from stable_baselines3.common.callbacks import CallbackList

    try:
        run, args, state = open_run(cli)
    except SettingsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    run.mkdir(parents=True, exist_ok=True)
    (run / "config.yaml").write_text(yaml.safe_dump(to_plain(args), sort_keys=False))
    (run / "versions.json").write_text(json.dumps(versions(), indent=1))

    # --- seeding: python, numpy, torch here; SB3 (policy init, sampling) through seed=; env slots per stage
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)

    venv = stage_venv(args, state, state["stage"])
    logger = make_logger(args, run, state)
    model = build_model(args, run, state, venv, resume=bool(cli.resume))
    model.set_logger(logger)
    append_jsonl(run / "curriculum.jsonl", {"step": model.num_timesteps, "stage": state["stage"],
                                            "event": "resume" if cli.resume else "start"})
    if args.bc.enabled and state["bc"] is None:
        warm_start(model, args, run, state, logger)

    progress = Progress(args.total_timesteps, args.log.progress_bar)
    periodic = Periodic(args, run, state, progress)
    callbacks = CallbackList([EpisodeStats(args.log.stats_window), periodic, progress])
    t0, start_steps = time.time(), model.num_timesteps
    if not learn_stages(model, args, run, state, callbacks, periodic, progress):
        return 130
    elapsed = time.time() - t0
    progress.close()
    finish(model, args, run, state, periodic, elapsed, model.num_timesteps - start_steps)
    return 0

if __name__ == "__main__":
    sys.exit(main())
