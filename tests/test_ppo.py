"""The native trainer (``training/ppo.py``, issue 41): advantages on a hand-made stream, masked sampling, IPPO and
MAPPO learning at a tiny budget, behaviour cloning before PPO (the heuristic's decisions or a Minari dataset's), the
checkpoint round trip (torch, ONNX, ``load_policy``, ``training/evaluate.py``), resume (which does not clone again),
bad settings refused before any work, and the ``benchmarks/train_sps.py`` smoke. Tiny budgets, one torch
thread: the whole file runs in well under a minute and a half on a busy 2-core machine."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml

torch = pytest.importorskip("torch", reason="the train extra: pip install -e '.[train]'")

from agents.native_policy import ActorCritic, NativePolicyAgent, NetSpec, save_checkpoint
from training import ppo

ROOT = Path(__file__).resolve().parents[1]
TEST_CONFIG = str(ROOT / "configs" / "train" / "ppo_test.yaml")  # 64 games x 32 decisions = 2,048 a iteration

torch.set_num_threads(1)


def run_ppo(run: Path, *sets: str, extra: tuple[str, ...] = ()) -> int:
    # training/ppo.py builds the network before it seeds torch's global generator (see
    # test_network_initialisation_follows_args_seed): seed it here, so a run does not depend on the tests before it
    torch.manual_seed(0)
    argv = ["--config", TEST_CONFIG, "--run-dir", str(run), *extra]
    for s in sets:
        argv += ["--set", s]
    return ppo.main(argv)


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# ------------------------------------------------------------------------------------------------- advantages
def test_gae_on_a_hand_made_two_caver_stream() -> None:
    """Two game slots, four decisions each; in slot 0 cavers A and B alternate (A, B, A | new game: B): one stream
    on the team reward whichever caver acts. gamma 0.9, lambda 0.8, so gamma * lambda = 0.72.

    slot 0: rewards (0, 0.1, 1.0, 0), values (0.5, 0.4, 0.6, 0.2 | bootstrap 0.3), done at t = 2
      t=3: delta = 0 + 0.9*0.3 - 0.2 = 0.07                   A3 = 0.07
      t=2: done: delta = 1.0 - 0.6 = 0.4 (no bootstrap)       A2 = 0.4 (nothing flows back from t=3)
      t=1: delta = 0.1 + 0.9*0.6 - 0.4 = 0.24                 A1 = 0.24 + 0.72*0.4 = 0.528
      t=0: delta = 0 + 0.9*0.4 - 0.5 = -0.14                  A0 = -0.14 + 0.72*0.528 = 0.24016
      returns = A + V = (0.74016, 0.928, 1.0, 0.27)
    slot 1: rewards (1.0, 0, 0, 0.5), values (0.5, 0.1, 0.2, 0.4 | bootstrap 1.0), done at t = 0
      t=3: delta = 0.5 + 0.9*1.0 - 0.4 = 1.0                  A3 = 1.0
      t=2: delta = 0 + 0.9*0.4 - 0.2 = 0.16                   A2 = 0.16 + 0.72*1.0 = 0.88
      t=1: delta = 0 + 0.9*0.2 - 0.1 = 0.08                   A1 = 0.08 + 0.72*0.88 = 0.7136
      t=0: done: delta = 1.0 - 0.5 = 0.5                      A0 = 0.5
      returns = (1.0, 0.8136, 1.08, 1.4)
    """
    rewards = torch.tensor([[0.0, 1.0], [0.1, 0.0], [1.0, 0.0], [0.0, 0.5]])  # (T=4, B=2)
    values = torch.tensor([[0.5, 0.5], [0.4, 0.1], [0.6, 0.2], [0.2, 0.4], [0.3, 1.0]])  # (T+1, B)
    dones = torch.tensor([[0.0, 1.0], [0.0, 0.0], [1.0, 0.0], [0.0, 0.0]])
    adv, ret = ppo.gae(rewards, values, dones, 0.9, 0.8)
    np.testing.assert_allclose(adv.numpy(), [[0.24016, 0.5], [0.528, 0.7136], [0.4, 0.88], [0.07, 1.0]],
                               rtol=0, atol=1e-6)
    np.testing.assert_allclose(ret.numpy(), [[0.74016, 1.0], [0.928, 0.8136], [1.0, 1.08], [0.27, 1.4]],
                               rtol=0, atol=1e-6)
    # nothing flows across a finished game: another next game (rewards and values after the done) leaves the
    # advantages up to the done unchanged
    rewards2, values2 = rewards.clone(), values.clone()
    rewards2[3, 0], values2[3:, 0] = 5.0, -2.0
    rewards2[1:, 1], values2[1:, 1] = 3.0, 7.0
    adv2, _ = ppo.gae(rewards2, values2, dones, 0.9, 0.8)
    np.testing.assert_allclose(adv2[:3, 0].numpy(), adv[:3, 0].numpy(), rtol=0, atol=1e-6)
    assert adv2[0, 1].item() == pytest.approx(0.5)


# ------------------------------------------------------------------------------------------------- sampling
def test_sample_never_picks_a_masked_action() -> None:
    gen = torch.Generator().manual_seed(0)
    torch.manual_seed(1)
    b, a = 256, 90
    logits = torch.randn(b, a) * 3
    mask = torch.rand(b, a) < 0.1
    mask[torch.arange(b), torch.randint(0, a, (b,))] = True  # at least one legal action a row
    mask[0] = False
    mask[0, 17] = True  # row 0: one legal action
    expected = torch.log_softmax(logits.masked_fill(~mask, -torch.inf), dim=1)
    counts = torch.zeros(b, a)
    for _ in range(200):
        actions, logp = ppo.sample(logits, mask, gen)
        assert mask[torch.arange(b), actions].all()
        assert actions[0].item() == 17 and logp[0].item() == 0.0
        torch.testing.assert_close(logp, expected.gather(1, actions[:, None]).squeeze(1), rtol=0, atol=1e-6)
        counts[torch.arange(b), actions] += 1
    assert counts[~mask].sum().item() == 0
    # the draws follow the masked softmax: over 256 x 200 draws, the chosen action's mean probability matches
    # the expected sum of squared probabilities within a few percent
    probs = expected.exp()
    want = (probs * probs).sum(1).mean().item()
    got = (counts / 200 * probs).sum(1).mean().item()
    assert got == pytest.approx(want, rel=0.05)


def test_sample_with_one_legal_action_a_row_always_returns_it() -> None:
    gen = torch.Generator().manual_seed(5)
    logits = torch.randn(64, 90)
    legal = torch.randint(0, 90, (64,))
    mask = torch.zeros(64, 90, dtype=torch.bool)
    mask[torch.arange(64), legal] = True
    for _ in range(50):
        actions, logp = ppo.sample(logits, mask, gen)
        assert torch.equal(actions, legal)
        assert torch.equal(logp, torch.zeros(64))


# ------------------------------------------------------------------------------------------------- learning
def test_network_initialisation_follows_args_seed(tmp_path: Path) -> None:
    weights = []
    for global_seed in (1, 2):
        torch.manual_seed(global_seed)  # whatever ran before in the process
        assert ppo.main(["--config", TEST_CONFIG, "--run-dir", str(tmp_path / str(global_seed)), "--set",
                         "total_steps=1", "--set", "eval_games=1"]) == 0
        weights.append(torch.load(tmp_path / str(global_seed) / "last.pt", weights_only=False)["model"])
    # one iteration trained from the same args.seed: the same weights, whatever torch's global state was
    for name, w in weights[0].items():
        torch.testing.assert_close(weights[1][name], w, rtol=0, atol=0, msg=name)


# 128 games x 32 decisions x 16 iterations = 65,536 env-steps, lr 0.01, escape shaping 0.1, width 64, 2 epochs
# of 2 minibatches: about 3 s of training (IPPO) and 6 s (MAPPO) on the 2-core machine. On the evaluation's 100
# seeded games (seeds 1,000,000 ..., 60 rounds) uniformly random legal play escapes 0.21 +- 0.10 cavers a game
# (training/evaluate.py --team random; about 0.18 over many games). Measured with these settings, greedy, torch's
# generator seeded 0 before the run (run_ppo): IPPO 0.74, MAPPO 0.99; with seeds 1-3, IPPO 0.89-1.31 and MAPPO
# 0.98-1.04 (lr 0.003 left IPPO at 0.31 for one seed, and 32,768 steps at 0.18: not reliable; an unseeded network
# initialisation once gave IPPO 0.00). The test asserts at least twice random's 0.18.
LEARN = ("total_steps=65536", "num_games=128", "lr=0.01", "reward_escape=0.1", "width=64", "eval_every=0",
         "eval_games=100", "checkpoint_every=0", "torch_threads=1")
RANDOM_TINY = 0.18


@pytest.fixture(scope="module")
def ippo_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("ppo") / "ippo"
    assert run_ppo(run, *LEARN, "critic=ippo") == 0
    return run


def test_ippo_learns_the_tiny_cave(ippo_run: Path) -> None:
    evals = jsonl(ippo_run / "eval.jsonl")
    assert len(evals) == 1 and evals[0]["step"] == 65536 and evals[0]["games"] == 100
    assert evals[0]["escaped_mean"] >= 2 * RANDOM_TINY, evals
    assert len(jsonl(ippo_run / "progress.jsonl")) == 16
    for name in ("config.yaml", "versions.json", "last.pt", "best.pt", "final.pt", "best.onnx"):
        assert (ippo_run / name).is_file(), name


def test_mappo_learns_the_tiny_cave(tmp_path: Path) -> None:
    assert run_ppo(tmp_path / "mappo", *LEARN, "critic=mappo") == 0
    evals = jsonl(tmp_path / "mappo" / "eval.jsonl")
    assert len(evals) == 1 and evals[0]["step"] == 65536
    assert evals[0]["escaped_mean"] >= 2 * RANDOM_TINY, evals
    agent = NativePolicyAgent(tmp_path / "mappo" / "best.pt")
    assert agent.spec.critic == "mappo" and agent.spec.state_size > 0


@pytest.mark.filterwarnings("ignore:precision=bf16 on a CPU without")  # what is tested here, not its speed
@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_egowide_learns_the_tiny_cave(precision: str, tmp_path: Path) -> None:
    """The summary of the env's default window beside the 5 x 5 cells (measured: 0.96 greedy on the 100 games, 0.98
    with ``precision: bf16``; with obs_radius 4 this budget's greedy policy stayed at 0.18, its training games at
    0.41)."""
    assert run_ppo(tmp_path / "wide", *LEARN, "network=egowide", "obs_radius=7", f"precision={precision}") == 0
    evals = jsonl(tmp_path / "wide" / "eval.jsonl")
    assert len(evals) == 1 and evals[0]["step"] == 65536
    assert evals[0]["escaped_mean"] >= 2 * RANDOM_TINY, evals
    assert NativePolicyAgent(tmp_path / "wide" / "best.pt").spec.grid_shape[1:] == (15, 15)


@pytest.mark.parametrize("network, radius", [("ego", 2), ("egowide", 7)])
def test_the_update_reads_the_first_layer_inputs_that_acting_computed(network: str, radius: int) -> None:
    """The ego bodies' first-layer input is kept from acting (``Rollout.inputs``) for the update, which no longer
    computes it again from the stored windows: every row of it is the body's input of that row's window, bit for
    bit; the cnn has none (its input is the window)."""
    trainer = ppo.Trainer(ppo.load_args(TEST_CONFIG, [f"network={network}", f"obs_radius={radius}"]))
    trainer.reset()
    trainer.collect()
    ro, body = trainer.store, trainer.learner.model.body
    assert ro.inputs.shape == (32, 64, body.net[0].in_features) and ro.inputs.dtype == torch.float32
    with torch.no_grad():
        for t in range(32):
            assert torch.equal(ro.inputs[t], body.inputs(torch.from_numpy(ro.grid[t]), torch.from_numpy(ro.scalars[t])))
    assert ppo.Trainer(ppo.load_args(TEST_CONFIG, ["network=cnn", "obs_radius=5"])).store.inputs is None


@pytest.mark.filterwarnings("ignore:precision=bf16 on a CPU without")  # what is tested here, not its speed
def test_bf16_keeps_the_weights_float32_and_stores_the_inputs_rounded_to_bfloat16() -> None:
    """``precision: bf16``: the matrix products in bfloat16 (autocast), the weights and the optimiser's state float32
    (checkpoints play as before), the stored inputs the float32 ones rounded; one update moves the weights and its
    losses are finite."""
    trainer = ppo.Trainer(ppo.load_args(TEST_CONFIG, ["network=egowide", "obs_radius=7", "precision=bf16"]))
    trainer.reset()
    trainer.collect()
    ro, model = trainer.store, trainer.learner.model
    assert ro.inputs.dtype == torch.bfloat16
    with torch.no_grad():
        want = model.body.inputs(torch.from_numpy(ro.grid[3]), torch.from_numpy(ro.scalars[3])).to(torch.bfloat16)
    assert torch.equal(ro.inputs[3], want)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    stats = trainer.learner.update(ro, lr=0.01)
    assert all(np.isfinite(stats[k]) for k in ("policy_loss", "value_loss", "entropy", "approx_kl"))
    assert all(v.dtype == torch.float32 for v in model.state_dict().values() if v.is_floating_point())
    assert not torch.equal(before["body.net.0.weight"], model.state_dict()["body.net.0.weight"])
    state = trainer.learner.opt.state_dict()["state"]
    assert state and all(s["exp_avg"].dtype == torch.float32 for s in state.values())


# ------------------------------------------------------------------------------------------------- behaviour cloning
# The heuristic (3.84 cavers out on tiny) plays 8,000 decisions of 64 games (122 of them finish), cloned for 8 epochs
# of 256 at lr 0.003 into the 2 x 64 network, then one PPO iteration (2,048 env-steps). Measured on the evaluation's
# 100 games (random play: about 0.18), greedy, torch on one thread as in this file: the cloned policy at step 0 gets
# 1.94 (seeds 1 and 2: 1.94, 1.96), held-out accuracy 0.74 (chance 0.28); 1-2 s of cloning on the quiet 2-core
# machine. The test asserts 1.5.
BC = ("bc_teacher=heuristic", "bc_decisions=8000", "bc_epochs=8", "bc_lr=0.003", "bc_batch=256", "width=64",
      "total_steps=2048", "eval_every=0", "eval_games=100", "checkpoint_every=0")


@pytest.fixture(scope="module")
def bc_run(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("ppo") / "bc"
    assert run_ppo(run, *BC) == 0
    return run


def test_cloning_the_heuristic_starts_the_curve_well_above_random(bc_run: Path) -> None:
    evals = jsonl(bc_run / "eval.jsonl")
    assert [e["step"] for e in evals] == [0, 2048]  # the cloned policy, then the end of the run
    assert evals[0]["escaped_mean"] >= 1.5, evals
    assert len(jsonl(bc_run / "progress.jsonl")) == 1
    record = json.loads((bc_run / "bc.json").read_text())
    assert record["teacher"] == "heuristic" and record["decisions"] == 8000 and record["value_cloned"] is True
    assert record["train_decisions"] + record["held_out_decisions"] == 8000 and record["held_out_decisions"] > 0
    assert record["teacher_escaped"] >= 3.0 and record["seconds"] > 0
    history = record["history"]
    assert len(history) == 9 and history[0]["loss"] is None  # epoch 0: before training, then 8 epochs
    assert history[-1]["held_out_acc"] >= 0.6 and history[-1]["held_out_chance"] <= 0.3
    assert history[-1]["train_ce"] < history[0]["train_ce"]


def test_dagger_rounds_train_on_the_clones_own_states_labelled_by_the_teacher(tmp_path: Path) -> None:
    """One DAgger round after the cloning: the clone plays another 8,000 decisions, the heuristic labels them, and
    the network trains on all 16,000 (bc.json's ``dagger``; the epochs of the round counted on in TensorBoard)."""
    run = tmp_path / "dagger"
    assert run_ppo(run, *BC, "bc_dagger_rounds=1") == 0
    record = json.loads((run / "bc.json").read_text())
    assert record["decisions"] == 8000 and record["train_decisions"] + record["held_out_decisions"] == 16000
    (only,) = record["dagger"]
    assert only["round"] == 1 and only["decisions_so_far"] == 16000 and only["clone_games"] > 0
    assert 0.0 < only["acc_on_own_states"] < 1.0 and 0.0 <= only["clone_escaped"] <= 4.0
    assert len(only["history"]) == 9 and only["history"][-1]["train_ce"] < only["history"][0]["train_ce"]
    assert [e["step"] for e in jsonl(run / "eval.jsonl")] == [0, 2048]
    assert (run / "clone.pt").is_file()


def test_resume_after_cloning_does_not_clone_again(bc_run: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    run = tmp_path / "bc"
    shutil.copytree(bc_run, run)
    before = (run / "bc.json").read_bytes()

    def no_second_clone(*_):
        raise AssertionError("--resume cloned again")

    monkeypatch.setattr(ppo, "behaviour_clone", no_second_clone)
    assert ppo.main(["--resume", str(run), "--set", "total_steps=4096"]) == 0
    assert (run / "bc.json").read_bytes() == before
    assert [e["step"] for e in jsonl(run / "eval.jsonl")] == [0, 2048, 4096]  # one step-0 evaluation
    assert [r["step"] for r in jsonl(run / "progress.jsonl")] == [2048, 4096]


def test_cloning_a_minari_dataset_of_the_network_window_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys) -> None:
    pytest.importorskip("minari", reason="the datasets extra")
    from subterra_game.datasets.build import build_dataset

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    build_dataset("subterra/tiny/r7-v0", "tiny", "heuristic", 2, max_cycles=60)  # the default window, radius 7
    assert run_ppo(tmp_path / "r7", "bc_teacher=minari:subterra/tiny/r7-v0") == 2
    err = capsys.readouterr().err
    assert "bc_teacher" in err and "obs radius 7" in err and "obs_radius=2" in err, err
    assert not (tmp_path / "r7").exists()  # refused before any work
    build_dataset("subterra/tiny/r2-v0", "tiny", "heuristic", 4, max_cycles=60, obs_radius=2)
    assert run_ppo(tmp_path / "r2", "bc_teacher=minari:subterra/tiny/r2-v0", "bc_epochs=1", "total_steps=2048",
                   "eval_games=4") == 0
    import minari

    record = json.loads((tmp_path / "r2" / "bc.json").read_text())
    assert record["decisions"] == minari.load_dataset("subterra/tiny/r2-v0").total_steps
    assert record["teacher"] == "minari:subterra/tiny/r2-v0" and len(record["history"]) == 2
    assert [e["step"] for e in jsonl(tmp_path / "r2" / "eval.jsonl")] == [0, 2048]


# ------------------------------------------------------------------------------------------------- checkpoints
def real_observations(radius: int, n: int = 32, steps: int = 40):
    """Observations and masks of seeded tiny games played with random legal actions."""
    from subterra_env.config import preset
    from subterra_env.vector import BatchedGames

    games = BatchedGames(n, preset("tiny"), obs_radius=radius, seed=11, max_cycles=60)
    obs = games.reset()
    rng = np.random.default_rng(0)
    for _ in range(steps):
        mask = games.action_masks()
        yield obs, mask
        actions = np.where(mask, rng.gumbel(size=mask.shape), -np.inf).argmax(axis=1)
        games.step_batch(actions)
        obs = games.observations()


def test_checkpoint_round_trip_torch_onnx_and_evaluate(ippo_run: Path) -> None:
    pytest.importorskip("onnxruntime", reason="the onnx extra")
    from agents.onnx_policy import OnnxPolicyAgent
    from agents.policy_agent import load_policy

    best = ippo_run / "best.pt"
    agent = NativePolicyAgent(best)
    assert agent.obs_radius == 2 and agent.spec.network == "ego" and agent.spec.width == 64
    loaded = load_policy(best)
    assert isinstance(loaded, NativePolicyAgent)
    onnx = OnnxPolicyAgent(ippo_run / "best.onnx")
    assert onnx.obs_radius == agent.obs_radius and not onnx.advised
    decisions = 0
    for obs, mask in real_observations(agent.obs_radius):
        want = agent.logits(obs)
        np.testing.assert_allclose(onnx.logits(obs), want, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(loaded.logits(obs), want, rtol=0, atol=0)
        actions = agent.act_batch(obs, mask)
        assert mask[np.arange(len(actions)), actions].all()
        np.testing.assert_array_equal(onnx.act_batch(obs, mask), actions)
        np.testing.assert_array_equal(loaded.act_batch(obs, mask), actions)
        decisions += len(actions)
    assert decisions == 32 * 40
    # a wider window (the env's default radius 7) is cropped to the checkpoint's
    from subterra_env.config import preset
    from subterra_env.vector import BatchedGames

    g2, g7 = (BatchedGames(8, preset("tiny"), obs_radius=r, seed=4) for r in (2, 7))
    np.testing.assert_array_equal(agent.logits(g7.reset()), agent.logits(g2.reset()))
    # training/evaluate.py plays it
    out = subprocess.run([sys.executable, "-m", "training.evaluate", "--config",
                          str(ROOT / "configs" / "tiny.yaml"), "--team", f"policy:{best}", "--games", "8",
                          "--max-cycles", "60", "--out", str(ippo_run / "eval"), "--no-progress", "--no-plots"],
                         check=False, cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr


# ------------------------------------------------------------------------------------------------- resume
def test_resume_continues_the_run_on_new_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first_games: list[np.ndarray] = []
    reset = ppo.Trainer.reset

    def recording_reset(self) -> None:  # the seeds of the games each run starts with
        reset(self)
        first_games.append(np.concatenate([s.games.seeds.copy() for s in self.shards]))

    monkeypatch.setattr(ppo.Trainer, "reset", recording_reset)
    run = tmp_path / "run"
    assert run_ppo(run, "eval_games=4") == 0  # ppo_test.yaml: 2 iterations of 2,048 env-steps
    assert [r["step"] for r in jsonl(run / "progress.jsonl")] == [2048, 4096]
    assert torch.load(run / "last.pt", weights_only=False)["step"] == 4096
    assert ppo.main(["--resume", str(run), "--set", "total_steps=8192"]) == 0
    progress = jsonl(run / "progress.jsonl")
    assert [r["step"] for r in progress] == [2048, 4096, 6144, 8192]
    assert [r["iteration"] for r in progress] == [1, 2, 3, 4]
    last = torch.load(run / "last.pt", weights_only=False)
    assert (last["step"], last["iteration"]) == (8192, 4)
    assert [r["step"] for r in jsonl(run / "eval.jsonl")] == [2048, 4096, 6144, 8192]  # eval_every 2,048
    # the resumed run plays new games: not the first run's first games again, but Trainer.reseed(2)'s
    fresh, resumed = first_games
    assert len(fresh) == len(resumed) == 64
    assert not np.isin(resumed, fresh).any()
    trainer = ppo.Trainer(ppo.load_args(TEST_CONFIG))
    trainer.reseed(2)
    reset(trainer)
    np.testing.assert_array_equal(np.concatenate([s.games.seeds for s in trainer.shards]), resumed)


def test_resume_counts_the_time_already_spent(tmp_path: Path) -> None:
    """A wall-clock budget (max_seconds) spans the resumed run: a checkpoint that has spent it stops after one
    iteration, and the learning rate is annealed to 0 there, not restarted."""
    run = tmp_path / "run"
    assert run_ppo(run, "eval_games=4") == 0
    last = torch.load(run / "last.pt", weights_only=False)
    last["seconds"] = 1000.0  # as if the first run had taken 1,000 s
    torch.save(last, run / "last.pt")
    assert ppo.main(["--resume", str(run), "--set", "total_steps=8192", "--set", "max_seconds=1000"]) == 0
    progress = jsonl(run / "progress.jsonl")
    assert [r["step"] for r in progress] == [2048, 4096, 6144]
    assert progress[-1]["seconds"] >= 1000.0
    assert torch.load(run / "last.pt", weights_only=False)["optimizer"]["param_groups"][0]["lr"] == 0.0


def test_init_from_starts_where_the_checkpoint_plays(ippo_run: Path, tmp_path: Path, capsys) -> None:
    """A curriculum stage: the new run's step-0 evaluation (same games, greedy) is the checkpoint's own score, and
    its first iteration trains on from those weights (fresh optimiser, counters from 0)."""
    first = jsonl(ippo_run / "eval.jsonl")[0]
    run = tmp_path / "stage2"
    assert run_ppo(run, *LEARN, "critic=ippo", "total_steps=4096", f"init_from={ippo_run / 'best.pt'}") == 0
    evals = jsonl(run / "eval.jsonl")
    assert [e["step"] for e in evals] == [0, 4096]  # LEARN: 128 games x 32 decisions an iteration
    assert evals[0]["escaped_mean"] == first["escaped_mean"]
    assert [p["step"] for p in jsonl(run / "progress.jsonl")] == [4096]
    assert "init: the network of" in capsys.readouterr().out


def test_critic_warmup_leaves_a_mappo_actor_as_it_was(tmp_path: Path) -> None:
    """Two iterations inside ``critic_warmup``: the actor's weights (body and policy head) are bit-identical to the
    start, the centralised critic's are not; the third iteration, past it, moves the actor."""
    first = tmp_path / "first"
    assert run_ppo(first, *LEARN, "critic=mappo", "total_steps=4096") == 0
    start = torch.load(first / "final.pt", weights_only=False)["model"]
    run = tmp_path / "warm"
    assert run_ppo(run, *LEARN, "critic=mappo", "total_steps=8192", "critic_warmup=8192",
                   f"init_from={first / 'final.pt'}") == 0
    after = torch.load(run / "final.pt", weights_only=False)["model"]
    actor = [k for k in start if not k.startswith("critic.")]
    assert actor and all(torch.equal(start[k], after[k]) for k in actor)
    assert not all(torch.equal(start[k], after[k]) for k in start if k.startswith("critic."))
    assert ppo.main(["--resume", str(run), "--set", "total_steps=12288"]) == 0
    moved = torch.load(run / "final.pt", weights_only=False)["model"]
    assert not all(torch.equal(start[k], moved[k]) for k in actor)


def test_init_parts_actor_starts_a_wider_mappo_critic_beside_an_ippo_teams_actor(ippo_run: Path,
                                                                                  tmp_path: Path, capsys) -> None:
    """``init_parts=actor``: the ippo team's body and policy head load into a mappo run whose critic reads a wider
    global state (state_radius 6, 13 x 13 cells); the step-0 evaluation is the team's own score (same games,
    greedy: the actor is the team's), and inside ``critic_warmup`` the actor stays bit-identical while the fresh
    critic trains. Without ``init_parts=actor`` the same start is refused (another critic)."""
    start = ippo_run / "best.pt"
    sets = (*LEARN, "critic=mappo", "state_radius=6", "total_steps=4096", "critic_warmup=4096",
            f"init_from={start}")
    assert run_ppo(tmp_path / "whole", *sets) == 2
    assert "critic='mappo'" in capsys.readouterr().err
    run = tmp_path / "actor"
    assert run_ppo(run, *sets, "init_parts=actor") == 0
    assert "init: the actor of" in capsys.readouterr().out
    assert jsonl(run / "eval.jsonl")[0]["escaped_mean"] == jsonl(ippo_run / "eval.jsonl")[0]["escaped_mean"]
    before = torch.load(start, weights_only=False)["model"]
    after = torch.load(run / "final.pt", weights_only=False)
    actor = [k for k in before if k.startswith(("body.", "policy_head."))]
    assert len(actor) == 6 and all(torch.equal(before[k], after["model"][k]) for k in actor)
    assert "value_head.weight" not in after["model"] and after["spec"]["critic"] == "mappo"
    assert after["spec"]["state_size"] == after["spec"]["grid_shape"][0] * 13 * 13 + after["spec"]["num_scalars"]


def test_init_parts_without_init_from_is_refused(tmp_path: Path, capsys) -> None:
    assert run_ppo(tmp_path / "run", "init_parts=actor") == 2
    assert "init_parts='actor' without init_from" in capsys.readouterr().err


def test_target_kl_stops_an_update_once_the_policy_has_moved_that_far(tmp_path: Path) -> None:
    """``target_kl``: with a bound (1e-5) far below what one step at lr 0.05 moves the policy, each iteration's
    update stops after its first minibatch step (the second minibatch's KL is over 1.5 x the bound, so it takes no
    step); with no bound every iteration takes epochs x minibatches steps (8 here). The first minibatch is scored at
    the rollout's own policy (ratio 1), so its KL is 0 up to rounding."""
    sets = ("total_steps=4096", "epochs=4", "lr=0.05", "eval_every=0", "checkpoint_every=0")
    assert run_ppo(tmp_path / "free", *sets) == 0
    assert [p["minibatch_steps"] for p in jsonl(tmp_path / "free" / "progress.jsonl")] == [8, 8]
    assert run_ppo(tmp_path / "bound", *sets, "target_kl=0.00001") == 0
    rows = jsonl(tmp_path / "bound" / "progress.jsonl")
    assert [p["minibatch_steps"] for p in rows] == [1, 1]
    assert all(p["approx_kl"] < 1e-6 for p in rows)  # only the first minibatch's, taken at the rollout's policy


def start_divergence(start: ActorCritic, model: ActorCritic) -> float:
    """KL(start || model) over the legal actions, the mean over the decisions of seeded random tiny games."""
    from agents.native_policy import masked_log_probs

    total, n = 0.0, 0
    with torch.no_grad():
        for obs, mask in real_observations(start.spec.obs_radius, n=32, steps=20):
            grid, scalars = torch.from_numpy(obs["observation"]), torch.from_numpy(obs["scalars"])
            legal = torch.from_numpy(mask)
            p, q = (masked_log_probs(m.logits(grid, scalars), legal) for m in (start, model))
            total += (p.exp() * (p - q).masked_fill(~legal, 0.0)).sum(1).sum().item()
            n += len(mask)
    return total / n


def test_anchor_kl_holds_fine_tuning_near_its_start_and_a_resumed_run_keeps_the_anchor(ippo_run: Path,
                                                                                       tmp_path: Path) -> None:
    """Two iterations at lr 0.01 from the same start (init_from): without the penalty the policy moves away from
    its start (KL 0.021 measured), with ``anchor_kl=20`` a fifth of that (0.004); the anchor is the start's policy,
    kept in last.pt, so a resumed run penalises the distance from the same start."""
    from agents.native_policy import load_checkpoint

    start = ippo_run / "best.pt"
    sets = (*LEARN, "critic=ippo", "total_steps=8192", f"init_from={start}")
    moved = {}
    for weight in ("0", "20"):
        run = tmp_path / f"anchor{weight}"
        assert run_ppo(run, *sets, f"anchor_kl={weight}") == 0
        moved[weight] = start_divergence(load_checkpoint(start)[0], load_checkpoint(run / "final.pt")[0])
    assert moved["0"] > 0.01 and moved["20"] < moved["0"] / 3, moved
    rows = jsonl(tmp_path / "anchor20" / "progress.jsonl")
    assert all(0.0 <= r["anchor_kl"] < 0.05 for r in rows) and "anchor_kl" not in jsonl(
        tmp_path / "anchor0" / "progress.jsonl")[0]
    assert ppo.main(["--resume", str(tmp_path / "anchor20"), "--set", "total_steps=12288"]) == 0
    kept = torch.load(tmp_path / "anchor20" / "last.pt", weights_only=False)["anchor"]
    started = torch.load(start, weights_only=False)["model"]
    assert kept.keys() == started.keys() and all(torch.equal(kept[k], started[k]) for k in started)


@pytest.mark.parametrize("setting, named", [
    ("width=32", "width=32"),                 # another network: the spec names the width
    ("critic=mappo", "critic='mappo'"),
    ("bc_teacher=heuristic", "not both"),
])
def test_init_from_another_network_is_refused_before_any_work(ippo_run: Path, tmp_path: Path, capsys,
                                                               setting: str, named: str) -> None:
    run = tmp_path / "stage2"
    assert run_ppo(run, *LEARN, "critic=ippo", setting, f"init_from={ippo_run / 'best.pt'}") == 2
    err = capsys.readouterr().err
    assert "init_from" in err and named in err, err
    assert not run.exists()


def test_init_from_a_missing_file_names_it(tmp_path: Path, capsys) -> None:
    assert run_ppo(tmp_path / "run", f"init_from={tmp_path / 'nope.pt'}") == 2
    err = capsys.readouterr().err
    assert "init_from" in err and "nope.pt" in err, err


def test_log_scale_is_log1p_of_the_non_negative_part_and_leaves_its_input_alone() -> None:
    """The networks' input scale: bit-identical to ``log1p(clamp(x, 0))`` on every int8 value (so checkpoints play as
    they did when it was log1p), and a float input is not written in place."""
    from agents.native_policy import log_scale

    every = torch.arange(-128, 128).to(torch.int8)
    assert torch.equal(log_scale(every), torch.log1p(every.float().clamp(min=0)))
    floats = torch.tensor([-2.0, 0.0, 1.0, 3.0])
    assert log_scale(floats).tolist() == pytest.approx([0.0, 0.0, 0.693147, 1.386294], abs=1e-6)
    assert floats.tolist() == [-2.0, 0.0, 1.0, 3.0]


# ------------------------------------------------------------------------------------------------- bad settings
@pytest.mark.parametrize("setting, named", [
    ("lrr=1", "lrr"),
    ("num_games=1", "num_games"),
    ("minibatches=3", "minibatches"),  # 64 games x 32 decisions = 2,048: not a multiple of 3
    ("minibatches=7", "minibatches"),
    ("device=tpu", "device"),
    ("device=cuda", "device"),
    ("critic=qmix", "critic"),
    ("bc_teacher=bogus", "bc_teacher"),
    ("bc_teacher=search:0", "bc_teacher"),
    ("bc_teacher=search:x", "bc_teacher"),
    ("bc_epochs=-1", "bc_epochs"),
    ("anchor_kl=1", "anchor_kl"),  # a fresh network is no anchor
    ("reward_result=[0, 0, 1]", "reward_result"),  # defeat, bronze, silver, gold: four
    ("bc_dagger_rounds=1", "bc_dagger_rounds"),  # no teacher to ask
    ("reward_result=[0, 0, 0, 11]", "reward_result"),
    ("network=egowide", "obs_radius"),  # the test config's window is 5 x 5: nothing beyond it to summarise
])
def test_bad_settings_are_errors_naming_them(setting: str, named: str, tmp_path: Path, capsys) -> None:
    if setting == "device=cuda" and torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    run = tmp_path / "run"
    assert run_ppo(run, setting) == 2
    err = capsys.readouterr().err
    assert named in err, err
    assert not run.exists()  # refused before any work


def test_run_dir_that_exists_and_resume_without_last_pt(tmp_path: Path, capsys) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "notes.txt").write_text("someone's files")
    assert run_ppo(run) == 2
    err = capsys.readouterr().err
    assert "--run-dir" in err and "--overwrite" in err, err
    assert sorted(p.name for p in run.iterdir()) == ["notes.txt"]
    assert ppo.main(["--resume", str(run)]) == 2
    err = capsys.readouterr().err
    assert "last.pt" in err and str(run) in err, err
    assert sorted(p.name for p in run.iterdir()) == ["notes.txt"]


def test_native_agent_refuses_other_files(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="team.zip"):
        NativePolicyAgent(ROOT / "agents" / "shipped" / "team.zip")
    junk = tmp_path / "junk.pt"
    junk.write_bytes(np.random.default_rng(0).bytes(1000))
    with pytest.raises(ValueError, match="junk.pt"):
        NativePolicyAgent(junk)
    with pytest.raises(FileNotFoundError, match="missing.pt"):
        NativePolicyAgent(tmp_path / "missing.pt")


def test_checkpoint_of_another_observation_is_refused(tmp_path: Path) -> None:
    from subterra_env.config import preset, to_dict
    from subterra_env.spaces import grid_shape, num_scalars

    c, w, _ = grid_shape(3)
    spec = NetSpec((c, w, w), num_scalars(), 90, "ego", 16)
    assert spec.obs_radius == 3
    path = save_checkpoint(tmp_path / "r3.pt", ActorCritic(spec), to_dict(preset("tiny")), {})
    agent = NativePolicyAgent(path)
    assert agent.obs_radius == 3
    ok = {"observation": np.zeros((2, c, w, w), np.int8), "scalars": np.zeros((2, spec.num_scalars), np.int8)}
    assert agent.logits(ok).shape == (2, 90)
    for grid in (np.zeros((2, c - 1, w, w), np.int8),  # another channel count
                 np.zeros((2, c, 5, 5), np.int8)):  # a smaller window (radius 2)
        with pytest.raises(ValueError, match="another game or observation"):
            agent.logits({"observation": grid, "scalars": ok["scalars"]})
    with pytest.raises(ValueError, match="actions"):
        agent.act_batch(ok, np.ones((2, 91), bool))
    # and training/ppo.py's resume check: the checkpoint's network against other settings
    with pytest.raises(ppo.SettingsError, match="does not fit"):
        ppo.Trainer(ppo.load_args(TEST_CONFIG), spec)


# ------------------------------------------------------------------------------------------------- benchmark
@pytest.mark.filterwarnings("ignore:precision=bf16 on a CPU without")  # its bf16 row measures the speed
def test_train_sps_smoke(tmp_path: Path) -> None:
    from benchmarks import train_sps

    out = tmp_path / "sps.json"
    rows = train_sps.main(["--seconds", "0.5", "--rows", "native-ego", "native-ego-mappo", "native-egowide",
                           "native-egothreat", "native-egohunt", "native-egowide-bf16", "--num-games", "64",
                           "--torch-threads", "1", "--json", str(out)])
    assert [r["row"] for r in rows] == ["native-ego", "native-ego-mappo", "native-egowide", "native-egothreat",
                                        "native-egohunt", "native-egowide-bf16"]
    for r in rows:
        assert r["trainer"] == "native" and r["env_steps_per_s"] > 0
    assert [(r["network"], r["critic"], r["precision"]) for r in rows] == [
        ("ego", "ippo", "fp32"), ("ego", "mappo", "fp32"), ("egowide", "ippo", "fp32"), ("egothreat", "ippo", "fp32"),
        ("egohunt", "ippo", "fp32"), ("egowide", "ippo", "bf16")]
    saved = json.loads(out.read_text())
    trained = [r for r in saved if r["trainer"] != "reference"]
    assert [(r["row"], r["trainer"], r["network"]) for r in trained] == [(r["row"], r["trainer"], r["network"])
                                                                         for r in rows]
    assert all(r["env_steps_per_s"] > 0 for r in trained)
    # the reference games of the same run (measured with the bench extra, "not installed" rows without it)
    assert [r["row"] for r in saved if r["trainer"] == "reference"] == ["connect_four_v3", "hanabi_v5 players=4"]


def test_a_native_checkpoint_and_its_onnx_export_play_in_the_terminal_game(ippo_run: Path, capsys) -> None:
    """``subterra play`` seats ``policy:RUN/best.pt`` (torch) and ``policy:RUN/best.onnx`` (onnxruntime)."""
    from subterra_game.play import main as play_main

    pytest.importorskip("onnxruntime")
    seats = f"policy:{ippo_run / 'best.pt'},policy:{ippo_run / 'best.onnx'},heuristic,heuristic"
    assert play_main(["--config", str(ROOT / "configs" / "tiny.yaml"), "--seats", seats, "--watch", "--seed", "3",
                      "--delay", "0"]) == 0
    assert "GAME OVER" in capsys.readouterr().out


def test_the_learning_rate_anneals_over_whichever_budget_ends_first() -> None:
    """progress() is the spent share of total_steps, or of max_seconds where the clock runs out sooner."""
    from types import SimpleNamespace

    def progress(step: int, seconds: float, total_steps: int, max_seconds: float) -> float:
        run = SimpleNamespace(step=step, seconds=lambda: seconds,
                              args=SimpleNamespace(total_steps=total_steps, max_seconds=max_seconds))
        return ppo.Run.progress(run)

    assert progress(250, 10.0, 1000, 0.0) == 0.25  # no clock: steps alone
    assert progress(250, 30.0, 1000, 60.0) == 0.5  # the clock is further along
    assert progress(900, 30.0, 1000, 60.0) == 0.9  # the steps are


def test_reward_result_reaches_the_games_a_linear_reward_pays_each_caver_out(tmp_path: Path) -> None:
    """``reward_result=[0, 0, 0, 0]`` with ``reward_escape=0.25``: a game's return is a quarter of its cavers out,
    exactly (the medal's steps would add 1/3 per medal: bronze 0.5 + 1/3)."""
    run = tmp_path / "run"
    assert run_ppo(run, "total_steps=8192", "eval_every=0", "eval_games=2", "reward_result=[0, 0, 0, 0]",
                   "reward_escape=0.25") == 0
    rows = [r for r in jsonl(run / "progress.jsonl") if r["episodes"]]
    assert rows and sum(r["escaped_mean"] for r in rows) > 0, rows
    for r in rows:
        assert r["return_mean"] == pytest.approx(0.25 * r["escaped_mean"], abs=1e-6), r
    assert yaml.safe_load((run / "config.yaml").read_text())["reward_result"] == [0.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("norm_adv, moves", [(True, True), (False, False)])
def test_norm_adv_decides_whether_critic_noise_moves_the_policy_when_no_game_has_a_reward(norm_adv: bool,
                                                                                          moves: bool) -> None:
    """A rollout with no reward and values of 1e-6-scale noise (a critic that has learnt "nothing ever happens"):
    its advantages are that noise. Normalised (the default), they become unit-scale and one update moves the
    actor's logits by 0.37 here; raw (``norm_adv=false``), by about 1e-4 (Adam's epsilon bounds the step). MAPPO:
    the actor shares no weights with the critic; no entropy bonus, so only the advantages can move the actor."""
    sets = ["critic=mappo", "ent_coef=0", "lr=0.01", f"norm_adv={str(norm_adv).lower()}"]
    trainer = ppo.Trainer(ppo.load_args(TEST_CONFIG, sets))
    trainer.reset()
    trainer.collect()
    ro = trainer.store
    ro.rewards[:] = 0.0
    ro.values[:] = np.random.default_rng(0).normal(0.0, 1e-6, ro.values.shape).astype(np.float32)
    grid, scalars = torch.from_numpy(ro.grid[0]), torch.from_numpy(ro.scalars[0])
    state = trainer.learner.state_of(ro.state_grid[0], ro.state_scalars[0])
    with torch.no_grad():
        before = trainer.learner.model(grid, scalars, state)[0]
    trainer.learner.update(ro, lr=0.01)
    with torch.no_grad():
        after = trainer.learner.model(grid, scalars, state)[0]
    legal = torch.from_numpy(ro.mask[0])
    shift = (after - before)[legal].abs().max().item()
    assert (shift > 1e-2) if moves else (shift < 1e-3), shift


def test_a_negative_result_reward_with_discounting_warns_that_a_team_can_learn_to_stall() -> None:
    """A defeat at -1 discounted at 0.995 costs less the later it comes, which pays a team to put off the end rather
    than to escape (the tiny runs with it learned nothing: docs/baselines.md). Raised medals weigh the defeat the
    same way without the warning."""
    with pytest.warns(UserWarning, match=r"reward_result=\[-1.0, 0.5, 0.75, 1.0\] with gamma=0.995: .*stall"):
        ppo.load_args(None, ["reward_result=[-1, 0.5, 0.75, 1]", "gamma=0.995"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        args = ppo.load_args(None, ["reward_result=[0, 2, 2.5, 3]", "gamma=0.995"])
        ppo.load_args(None, ["reward_result=[-1, 0.5, 0.75, 1]", "gamma=1"])  # undiscounted: no reason to stall
    assert args.reward_result == (0.0, 2.0, 2.5, 3.0)


def test_bf16_on_a_cpu_without_bfloat16_arithmetic_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without AVX-512 BF16 or AMX torch emulates bfloat16 on the CPU, slower than float32: the settings say so
    before the run starts; with them, or in float32, nothing is said."""
    monkeypatch.setattr(ppo, "cpu_bf16", lambda: False)
    with pytest.warns(UserWarning, match=r"precision=bf16 on a CPU without bfloat16 arithmetic .* emulates it"):
        ppo.load_args(None, ["precision=bf16"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ppo.load_args(None, ["precision=fp32"])
        monkeypatch.setattr(ppo, "cpu_bf16", lambda: True)
        ppo.load_args(None, ["precision=bf16"])


def test_every_shipped_native_config_loads() -> None:
    """Every configs/train/ppo_*.yaml resolves to training/ppo.py's settings (a renamed or misspelt key fails here,
    not an hour into a run); the small-cave stage keeps the tiny team's network, which its init_from must match."""
    loaded = {p.name: ppo.load_args(p) for p in sorted((ROOT / "configs" / "train").glob("ppo_*.yaml"))}
    assert {"ppo_test.yaml", "ppo_tiny.yaml", "ppo_tiny_mappo_30min.yaml", "ppo_small_from_tiny.yaml",
            "ppo_small_way.yaml"} <= set(loaded)
    way = loaded["ppo_small_way.yaml"]
    assert (way.game, way.reward_way, way.reward_escape, way.max_seconds) == ("small", 0.05, 0.0, 2400)
    assert (way.num_games, way.minibatches, way.network, way.width, way.obs_radius) == (1024, 16, "egowide", 64, 7)
    small, tiny = loaded["ppo_small_from_tiny.yaml"], loaded["ppo_tiny_mappo_30min.yaml"]
    assert (small.game, small.num_games, small.minibatches, small.max_seconds) == ("small", 2048, 4, 300)
    assert (small.network, small.obs_radius, small.width, small.critic, small.state_radius) == \
        (tiny.network, tiny.obs_radius, tiny.width, tiny.critic, tiny.state_radius)


def test_reward_way_reaches_the_training_games() -> None:
    """``reward_way`` is the env's keyword: the trainer's games pay it (tests/test_env_api.py checks the pay)."""
    trainer = ppo.Trainer(ppo.load_args(TEST_CONFIG, ["reward_way=0.05"]))
    assert trainer.shards[0].games.team_reward.way == 0.05
    with pytest.raises(ValueError, match="reward_way"):
        ppo.load_args(TEST_CONFIG, ["reward_way=-1"])


def test_reward_danger_reaches_the_training_games() -> None:
    """``reward_danger`` likewise (a penalty: a positive weight is refused)."""
    trainer = ppo.Trainer(ppo.load_args(TEST_CONFIG, ["reward_danger=-0.2"]))
    assert trainer.shards[0].games.team_reward.danger == -0.2
    with pytest.raises(ValueError, match="reward_danger"):
        ppo.load_args(TEST_CONFIG, ["reward_danger=0.5"])


def test_reward_knockout_reaches_the_training_games() -> None:
    """``reward_knockout`` likewise (a price: a positive weight is refused)."""
    trainer = ppo.Trainer(ppo.load_args(TEST_CONFIG, ["reward_knockout=-0.5"]))
    assert trainer.shards[0].games.team_reward.knockout == -0.5
    with pytest.raises(ValueError, match="reward_knockout"):
        ppo.load_args(TEST_CONFIG, ["reward_knockout=0.5"])
