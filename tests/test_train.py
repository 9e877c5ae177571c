"""training/train_ppo.py end to end (tiny budget), resume, curriculum, config errors; BC; PolicyAgent; the model."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch
from sb3_contrib import MaskablePPO

import subterra_env
from agents.policy_agent import PolicyAgent
from subterra_env.models import SubterraFeaturesExtractor
from subterra_env.sb3 import SubterraVecEnv
from training import bc
from training.schema import SettingsError
from training.train_ppo import TrainArgs, load_args

ROOT = Path(__file__).resolve().parents[1]

TINY_TEST = ROOT / "configs" / "train" / "tiny_test.yaml"
SMALL_MODEL = dict(features_extractor_class=SubterraFeaturesExtractor,
                   features_extractor_kwargs=dict(features_dim=32, cnn_channels=(8, 8), cnn_dim=16, mlp_dim=16),
                   net_arch=[16])


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """One torch thread: much faster than two for these small networks on a shared 2-core machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def train(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "training.train_ppo", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """One tiny_test run (BC, two curriculum stages, evaluations, checkpoints), shared by the tests below."""
    run = tmp_path_factory.mktemp("runs") / "tiny"
    out = train("--config", str(TINY_TEST), "--run-dir", str(run))
    assert out.returncode == 0, out.stderr[-3000:]
    return run


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


def test_run_dir_holds_everything(run_dir):
    for name in ("final.zip", "best.zip", "best.json", "config.yaml", "versions.json", "state.json", "bc.json",
                 "summary.json"):
        assert (run_dir / name).is_file(), name
    assert list((run_dir / "checkpoints").glob("step_*.zip"))
    assert list((run_dir / "tb").glob("events.out.tfevents.*"))
    versions = json.loads((run_dir / "versions.json").read_text())
    assert versions["torch"] == torch.__version__.split("+")[0] or versions["torch"] == torch.__version__
    assert "git_revision" in versions and "sb3-contrib" in versions
    # the saved config is the resolved one and loads back to the same settings
    assert load_args(run_dir / "config.yaml") == load_args(TINY_TEST)
    state = json.loads((run_dir / "state.json").read_text())
    assert state["num_timesteps"] >= 512
    rows = read_csv(run_dir / "tb" / "progress.csv")
    assert any(r.get("rollout/ep_escaped_mean") for r in rows)  # episode statistics from finished games
    assert any(r.get("rollout/ep_rew_mean") for r in rows)
    assert any(r.get("eval/escaped") for r in rows)
    assert any(r.get("bc/held_out_acc") for r in rows)


def test_curriculum_advances_after_n_steps(run_dir):
    events = [json.loads(line) for line in (run_dir / "curriculum.jsonl").read_text().splitlines()]
    assert [e["event"] for e in events] == ["start", "advance"]
    assert events[1]["stage"] == 1 and 256 <= events[1]["step"] < 512  # stage 0 has advance_after_steps: 256
    stages = [r["curriculum/stage"] for r in read_csv(run_dir / "tb" / "progress.csv") if r["curriculum/stage"]]
    assert stages[0] == "0" and stages[-1] == "1"
    assert json.loads((run_dir / "state.json").read_text())["stage"] == 1


def test_curriculum_advances_on_evaluation_success(tmp_path):
    run = tmp_path / "success"
    out = train("--config", str(TINY_TEST), "--run-dir", str(run), "--set", "bc.enabled=false",
                "--set", "curriculum.0.advance_after_steps=null", "--set", "curriculum.0.advance_at_success=0.0",
                "--set", "eval.every=128", "--set", "total_timesteps=256")
    assert out.returncode == 0, out.stderr[-3000:]
    events = [json.loads(line) for line in (run / "curriculum.jsonl").read_text().splitlines()]
    assert events[1] == {"step": 128, "stage": 1, "event": "advance"}  # the first evaluation (success >= 0)
    evals = [json.loads(line) for line in (run / "eval.jsonl").read_text().splitlines()]
    assert [(e["step"], e["stage"]) for e in evals][:2] == [(128, 0), (256, 1)]
    assert not (run / "bc.json").exists()


def test_resume_continues_the_step_count(run_dir, tmp_path):
    run = tmp_path / "resumed"
    shutil.copytree(run_dir, run)
    before = json.loads((run / "state.json").read_text())["num_timesteps"]
    out = train("--resume", str(run), "--set", "total_timesteps=1024")
    assert out.returncode == 0, out.stderr[-3000:]
    state = json.loads((run / "state.json").read_text())
    assert state["num_timesteps"] >= 1024 and state["segment"] == 1 and state["stage"] == 1
    assert PolicyAgent(run / "final.zip").model.num_timesteps == state["num_timesteps"]
    events = [json.loads(line) for line in (run / "curriculum.jsonl").read_text().splitlines()]
    assert events[-1] == {"step": before, "stage": 1, "event": "resume"}
    resumed = read_csv(run / "tb" / "progress-resume1.csv")
    steps = [int(r["time/total_timesteps"]) for r in resumed if r.get("time/total_timesteps")]
    assert steps and min(steps) > before
    # a resumed run keeps its config: other overrides are refused, naming the ones allowed
    out = train("--resume", str(run), "--set", "ppo.gamma=0.5")
    assert out.returncode == 2 and "ppo.gamma" in out.stderr and "total_timesteps" in out.stderr


@pytest.mark.parametrize("override, words", [
    ("ppo.n_epohcs=3", ["unknown key", "ppo.n_epohcs", "allowed keys in ppo", "n_epochs", "learning_rate"]),
    ("colour=red", ["unknown key", "colour", "allowed keys in the top level", "total_timesteps", "curriculum"]),
    ("bc.teachr=random", ["bc.teachr", "allowed keys in bc", "teacher"]),
    ("curriculum.0.speed=2", ["curriculum.0.speed", "advance_after_steps"]),
    ("ppo.n_epochs=four", ["ppo.n_epochs", "expected an integer"]),
    ("env.reward_result=[1, 2]", ["env.reward_result", "4 values"]),
    ("ppo.gamma=1.5", ["ppo.gamma", "out of range", "<= 1"]),
    ("env.num_envs=0", ["env.num_envs", "out of range", ">= 1"]),
    ("bc.teacher=oracle", ["bc.teacher", "heuristic"]),
    ("curriculum.0.game.num_cavers=9", ["curriculum.0.game", "num_cavers"]),
    ("curriculum.1.game.colour=red", ["curriculum.1.game", "colour", "known settings"]),
])
def test_bad_settings_are_refused_with_the_key(override, words):
    with pytest.raises(SettingsError) as e:
        load_args(TINY_TEST, [override])
    for word in words:
        assert word in str(e.value), (word, str(e.value))


def test_bad_settings_exit_2_from_the_command_line(tmp_path):
    out = train("--config", str(TINY_TEST), "--set", "ppo.n_epohcs=3", "--run-dir", str(tmp_path / "x"))
    assert out.returncode == 2
    assert "ppo.n_epohcs" in out.stderr and "n_epochs" in out.stderr
    assert not (tmp_path / "x").exists()


def test_every_shipped_training_config_loads():
    from training import ppo

    for path in sorted((ROOT / "configs" / "train").glob("*.yaml")):
        if path.name.startswith("ppo_"):  # the native trainer's (training/ppo.py)
            assert isinstance(ppo.load_args(path), ppo.Args), path
            continue
        args = load_args(path)
        assert isinstance(args, TrainArgs) and args.curriculum, path
    curriculum = load_args(ROOT / "configs" / "train" / "curriculum.yaml").curriculum
    assert [s.game.get("preset") for s in curriculum][-1] == "configs/full.yaml"


def tiny_env(num_envs: int, seed: int, radius: int = 3) -> SubterraVecEnv:
    return SubterraVecEnv(num_envs, subterra_env.load(ROOT / "configs" / "tiny.yaml"), seed=seed, obs_radius=radius)


def test_policy_agent_acts_as_the_model_did_before_saving(tmp_path):
    venv = tiny_env(8, seed=5)
    model = MaskablePPO("MultiInputPolicy", venv, policy_kwargs=SMALL_MODEL, seed=0, n_steps=16, batch_size=32)
    model.learn(128)  # a few updates: weights away from their initial values
    obs_batches, mask_batches, actions = [], [], []
    obs = venv.reset()
    for _ in range(20):
        masks = venv.action_masks()
        a, _ = model.predict(obs, action_masks=masks, deterministic=True)
        obs_batches.append(obs)
        mask_batches.append(masks)
        actions.append(a)
        obs, *_ = venv.step(a)
    model.save(tmp_path / "team.zip")

    agent = PolicyAgent(tmp_path / "team.zip")
    assert agent.obs_radius == 3
    for obs, masks, a in zip(obs_batches, mask_batches, actions):
        assert np.array_equal(agent.act_batch(obs, masks), a)
        # one decision at a time, with the AEC env's extra action_mask key ignored
        single = {"observation": obs["observation"][0], "scalars": obs["scalars"][0], "action_mask": masks[0]}
        assert agent.act(single, masks[0]) == a[0]
    # sampled play is legal and reproducible from the agent's seed
    stacked = {k: np.concatenate([o[k] for o in obs_batches]) for k in ("observation", "scalars")}
    masks = np.concatenate(mask_batches)
    first = PolicyAgent(tmp_path / "team.zip", deterministic=False, seed=3).act_batch(stacked, masks)
    again = PolicyAgent(tmp_path / "team.zip", deterministic=False, seed=3).act_batch(stacked, masks)
    assert np.array_equal(first, again) and masks[np.arange(len(masks)), first].all()


def test_policy_agent_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no policy checkpoint"):
        PolicyAgent(tmp_path / "missing.zip")
    import gymnasium

    class BoxEnv(gymnasium.Env):  # a checkpoint trained on another observation (v0's Box)
        observation_space = gymnasium.spaces.Box(0, 127, (83, 7, 7), np.int8)
        action_space = gymnasium.spaces.Discrete(90)

        def reset(self, seed=None, options=None):
            return np.zeros((83, 7, 7), np.int8), {}

        def step(self, a):
            return np.zeros((83, 7, 7), np.int8), 0.0, True, False, {}

        def action_masks(self):
            return np.ones(90, bool)

    MaskablePPO("MlpPolicy", BoxEnv(), n_steps=8, batch_size=8).save(tmp_path / "v0.zip")
    with pytest.raises(ValueError, match="not the v1 observation"):
        PolicyAgent(tmp_path / "v0.zip")
    (tmp_path / "junk.zip").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a loadable MaskablePPO checkpoint"):
        PolicyAgent(tmp_path / "junk.zip")


def test_behaviour_cloning_imitates_the_heuristic_team():
    torch.manual_seed(0)
    venv = tiny_env(32, seed=11, radius=5)
    demos = bc.collect(venv, bc.make_teacher("heuristic", venv), decisions=6400, gamma=0.99)
    assert len(demos) == 6400 and demos.masks[np.arange(6400), demos.actions].all()
    assert demos.finished and np.mean([g["escaped"] for g in demos.finished]) > 3  # the teacher plays well
    train_set, held_out = bc.split(demos, holdout=0.2, seed=0)
    assert not set(train_set.game) & set(held_out.game) and len(held_out) > 300
    model = MaskablePPO("MultiInputPolicy", tiny_env(2, seed=0, radius=5), seed=0,
                        policy_kwargs=dict(features_extractor_class=SubterraFeaturesExtractor))
    history = bc.train_bc(model.policy, train_set, held_out, epochs=6, batch_size=128, lr=1e-3, seed=0)
    before, after = history[0], history[-1]
    assert after["held_out_ce"] < before["held_out_ce"] - 0.3
    assert before["held_out_acc"] < 0.4  # about chance (a uniform legal choice) before training
    # the teacher's action on held-out games: 0.58 when written, a uniform legal choice 0.28
    assert after["held_out_acc"] > 0.45 and after["held_out_acc"] > after["held_out_chance"] + 0.15


def test_bc_memory_estimate_and_refusal(monkeypatch):
    obs = {"observation": np.zeros((4, 34, 15, 15), np.int8), "scalars": np.zeros((4, 49), np.int8)}
    masks = np.zeros((4, 90), bool)
    # 7,650 + 49 observation bytes, 90 mask bytes and 26 of numbers a decision, twice (the split's copy)
    assert bc.check_memory(obs, masks, 1000) == 15_630_000
    assert bc.check_memory(obs, masks, 1000, copies=1, gains=True) == 8_175_000  # + 4 bytes an action
    monkeypatch.setattr(bc, "memory_available", lambda: 1_000_000)  # 1 MB; the tiny window needs 3.7

    class Teacher:  # the refusal comes before the first decision
        def act_batch(self, _obs, _masks):
            raise AssertionError("a decision was played")

    with pytest.raises(MemoryError, match=r"bc_decisions=1,000 needs about .* lower bc_decisions"):
        bc.collect(tiny_env(4, seed=2), Teacher(), decisions=1000, setting="bc_decisions")


def test_bc_collect_returns_and_games():
    venv = tiny_env(4, seed=2)
    demos = bc.collect(venv, bc.FirstLegalAgent(), decisions=400, gamma=0.5)
    assert len(demos) == 400 and np.array_equal(demos.actions, demos.masks.argmax(1))
    # (step, slot) order: consecutive rows of one slot are 4 apart; a game's id is unique to its slot
    assert len(np.unique(demos.game)) >= 4 and all(len(np.unique(demos.game[demos.game == g] % 4)) == 1
                                                  for g in np.unique(demos.game))
    assert demos.has_return.any() and (demos.returns[~demos.has_return] == 0).all()


def test_bc_collect_with_a_player_records_the_teachers_labels_along_the_players_games():
    """DAgger's collection: the first legal action moves the games, the heuristic's choice in each state is the
    label. The states are the first-legal player's (the same as when it plays alone), the labels the heuristic's."""
    alone = bc.collect(tiny_env(4, seed=2), bc.FirstLegalAgent(), decisions=400, gamma=0.5)
    venv = tiny_env(4, seed=2)
    first_legal = bc.FirstLegalAgent()
    dagger = bc.collect(venv, bc.make_teacher("heuristic", venv), decisions=400, gamma=0.5,
                        player=lambda obs, masks: first_legal.act_batch(obs, masks))
    for k in alone.obs:
        assert np.array_equal(dagger.obs[k], alone.obs[k]), k
    assert np.array_equal(dagger.masks, alone.masks) and np.array_equal(dagger.returns, alone.returns)
    assert dagger.masks[np.arange(400), dagger.actions].all()  # the heuristic's legal choices, not the player's
    assert (dagger.actions != alone.actions).all()  # the heuristic never takes the first legal action here


def test_features_extractor_ignores_the_action_mask_and_scales_to_features_dim():
    venv = tiny_env(3, seed=0)
    space = venv.observation_space
    extractor = SubterraFeaturesExtractor(space, features_dim=40)
    obs = {k: torch.as_tensor(v).float() for k, v in venv.reset().items()}
    out = extractor(obs)
    assert out.shape == (3, 40) and torch.isfinite(out).all()
    with_mask = dict(obs, action_mask=torch.ones(3, 90))
    assert torch.equal(extractor(with_mask), out)
    with pytest.raises(ValueError, match="Dict observation space"):
        SubterraFeaturesExtractor(space["observation"])
