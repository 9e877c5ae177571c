"""Stable agents for frameworks (issue 11): the env as shipped works with TorchRL's PettingZooWrapper, RLlib
(our MultiAgentEnv and RLlib's PettingZooEnv with seat names) and PettingZoo's tests; the info keys agree across
interfaces. TorchRL and RLlib tests skip when those packages are not installed (extras ``torchrl``, ``distributed``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test

import subterra_env
from subterra_env import CAVER_NAMES
from subterra_env.games.sub_terra.core.observe import SCALARS
from subterra_env.info import INFO_KEYS, RESULTS, result_name
from random_play import random_legal

ROOT = Path(__file__).resolve().parents[1]
RANK = SCALARS.index("caver 0 rank")
NO_RLLIB = "Ray RLlib not installed (pip install -e '.[distributed]')"
NO_TORCHRL = "TorchRL not installed (pip install -e '.[torchrl]')"


# ------------------------------------------------------------------------------------------------ stable agents
def test_spaces_are_declared_for_every_possible_agent() -> None:
    e = subterra_env.env()
    for a in e.possible_agents:
        assert e.observation_space(a)["action_mask"].shape == (90,) and e.action_space(a).n == 90
    assert e.possible_agents == list(CAVER_NAMES)


def test_observing_a_caver_not_in_this_game_gives_the_empty_observation() -> None:
    e = subterra_env.env(cavers=("diver", "scout", "medic", "leader"))
    e.reset(seed=0)
    absent = e.observe("engineer")
    space = e.observation_space("engineer")
    assert space.contains(absent)
    assert all(not v.any() for v in absent.values())  # zeros everywhere, zero action mask
    seated = e.observe("diver")
    assert seated["action_mask"].any() and seated["scalars"][RANK] == 1


def test_agent_dicts_keep_pettingzoo_keys_and_answer_every_possible_agent() -> None:
    e = subterra_env.env(cavers=("diver", "scout", "medic", "leader"), max_cycles=1)
    e.reset(seed=0)
    for d in (e.rewards, e.terminations, e.truncations, e.infos):
        assert set(d) == set(e.agents)  # PettingZoo's rule
    assert e.rewards["engineer"] == 0.0 and e.terminations["engineer"] is False
    assert e.infos["engineer"] == e.infos["diver"]  # the game's info
    assert "engineer" not in e.rewards and e.rewards.get("engineer") is None
    with pytest.raises(KeyError):
        e.rewards["nobody"]
    for agent in e.agent_iter():  # play to the truncation after one round
        _, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else subterra_env.action_id("end turn"))
    assert e.truncations["engineer"] is True and e.terminations["engineer"] is False


def test_seat_names_are_the_same_every_game_with_the_caver_in_the_observation() -> None:
    e = subterra_env.env(agent_names="seat", num_cavers=5)
    assert e.possible_agents == [f"caver_{i}" for i in range(5)]
    ranks = set()
    for seed in range(6):
        e.reset(seed=seed)
        assert e.agents == e.possible_agents and e.agent_selection == "caver_0"
        who = [int(e.observe(a)["scalars"][RANK]) for a in e.agents]
        assert who == sorted(who) and all(1 <= r <= 8 for r in who)  # seats in rank order (R-SET-6)
        ranks.update(who)
    assert len(ranks) > 5  # different cavers drawn, same agent names


def test_api_test_with_seat_names() -> None:
    api_test(subterra_env.env(agent_names="seat", obs_radius=3), num_cycles=300)


def test_info_values_are_ints_and_result_codes_have_names() -> None:
    e = subterra_env.env()
    e.reset(seed=4)
    info = e.infos[e.agent_selection]
    assert tuple(info) == INFO_KEYS and all(type(v) is int for v in info.values())
    assert info["result"] == -1 and result_name(info["result"]) == "running"
    assert [result_name(c) for c in range(-1, 4)] == list(RESULTS)
    with pytest.raises(TypeError):
        result_name("gold")
    with pytest.raises(ValueError):
        result_name(4)


def test_every_interface_shares_the_info_keys() -> None:
    """AEC env, gymnasium VectorEnv (final_info), SB3 VecEnv (a finished game's info) and the single-agent
    adapter all report ``subterra_env.info.game_info``'s keys, with int values."""
    from subterra_env.single import SubterraSingleAgentEnv
    from subterra_env.vector import SubterraVectorEnv

    rng = np.random.default_rng(0)
    aec = subterra_env.env(obs_radius=2, max_cycles=2)
    aec.reset(seed=0)
    keys = {"aec": set(aec.infos[aec.agent_selection])}

    single = SubterraSingleAgentEnv(obs_radius=2, max_cycles=2)
    _, info = single.reset(seed=0)
    keys["single"] = set(info) - {"action_mask"}

    venv = SubterraVectorEnv(4, obs_radius=2, max_cycles=2)
    _, info = venv.reset(seed=0)
    while "final_info" not in info:
        _, _, _, _, info = venv.step(np.argmax(rng.random((4, 90)) * info["action_mask"], 1))
    keys["vector"] = {k for k in info["final_info"] if not k.startswith("_")}
    assert all(v.dtype.kind == "i" for k, v in info["final_info"].items() if not k.startswith("_"))

    try:
        from subterra_env.sb3 import SubterraVecEnv
    except ImportError:
        pass
    else:
        sb3 = SubterraVecEnv(4, seed=0, obs_radius=2, max_cycles=2)
        sb3.reset()
        done = np.zeros(4, bool)
        while not done.any():
            _, _, done, infos = sb3.step(np.argmax(rng.random((4, 90)) * sb3.action_masks(), 1))
        finished = infos[int(np.argmax(done))]
        keys["sb3"] = set(finished) - {"episode", "terminal_observation", "TimeLimit.truncated"}
        assert all(type(finished[k]) is int for k in INFO_KEYS)
    assert all(k == set(INFO_KEYS) for k in keys.values()), keys


# ----------------------------------------------------------------------------------------------------- TorchRL
@pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested:UserWarning")
@pytest.mark.parametrize("agent_names", ["caver", "seat"])
def test_torchrl_pettingzoo_wrapper_specs_and_rollout(agent_names: str) -> None:
    pytest.importorskip("torchrl", reason=NO_TORCHRL)
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    env = PettingZooWrapper(subterra_env.env(obs_radius=2, max_cycles=3, agent_names=agent_names), use_mask=True,
                            seed=0)
    check_env_specs(env)
    td = env.rollout(150, break_when_any_done=False)  # games end after 3 rounds: several resets, new cavers
    assert td["next", "done"].sum() >= 2
    group = env.possible_agents[0]
    assert td[group, "observation", "observation"].dtype == torch.int8
    # the acting caver's action was legal under its mask every step
    for g in env.possible_agents:
        acted = td[g, "mask"]
        if acted.any():
            mask = td[g, "action_mask"][acted]
            action = td[g, "action"][acted]
            assert mask.gather(-1, action.long().unsqueeze(-1)).all()


# ------------------------------------------------------------------------------------------------------- RLlib
def test_rllib_env_passes_rllibs_check_and_plays_games_with_any_cavers() -> None:
    pytest.importorskip("ray.rllib", reason=NO_RLLIB)
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from subterra_env.rllib import SubterraMultiAgentEnv

    env = SubterraMultiAgentEnv({"obs_radius": 2, "max_cycles": 3})
    check_multiagent_environments(env)  # samples an unmasked action: penalised, not raised
    assert env.illegal_actions in (0, 1)
    rng = np.random.default_rng(1)
    seen, games = set(), 0
    obs, _ = env.reset(seed=3)
    while games < 12:
        (agent, o), = obs.items()
        assert env.get_observation_space(agent).contains(o)
        obs, rew, term, trunc, info = env.step({agent: random_legal(o["action_mask"], rng)})
        assert set(rew) == set(env.agents)
        if term["__all__"] or trunc["__all__"]:
            assert set(obs) == set(env.agents)  # a last observation for every caver (bootstrapping)
            assert all(set(i) == set(INFO_KEYS) for i in info.values())
            seen.update(env.agents)
            games += 1
            obs, _ = env.reset()
    assert len(seen) > 4  # other cavers were drawn: no KeyError


def test_rllib_env_penalises_or_raises_illegal_and_refuses_floats() -> None:
    pytest.importorskip("ray.rllib", reason=NO_RLLIB)
    from subterra_env import IllegalActionError
    from subterra_env.rllib import SubterraMultiAgentEnv

    env = SubterraMultiAgentEnv({"cavers": ("diver", "scout", "medic", "leader"), "illegal_reward": -0.5})
    obs, _ = env.reset(seed=0)
    move_n = subterra_env.action_id("move N")  # nothing north of the start yet
    obs2, rew, term, _, info = env.step({"diver": move_n})
    assert rew["diver"] == -0.5 and info["diver"]["illegal_action"] == 1 and not term["__all__"]
    np.testing.assert_array_equal(obs2["diver"]["observation"], obs["diver"]["observation"])
    with pytest.raises(ValueError, match="float"):
        env.step({"diver": 0.0})
    with pytest.raises(ValueError, match="diver"):
        env.step({"scout": 0})
    strict = SubterraMultiAgentEnv({"cavers": ("diver", "scout", "medic", "leader"), "illegal_action": "raise"})
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="move N"):
        strict.step({"diver": move_n})


def test_rllib_pettingzoo_env_with_seat_names_over_many_games() -> None:
    """RLlib's generic wrapper takes its agents and spaces from the first reset: seat names keep them valid."""
    pytest.importorskip("ray.rllib", reason=NO_RLLIB)
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    w = PettingZooEnv(subterra_env.env(agent_names="seat", obs_radius=2, max_cycles=2))
    rng = np.random.default_rng(2)
    obs, _ = w.reset(seed=1)
    games = 0
    while games < 8:
        (agent, o), = obs.items()
        assert w.observation_spaces[agent].contains(o)
        obs, _, term, trunc, _ = w.step({agent: random_legal(o["action_mask"], rng)})
        if term["__all__"] or trunc["__all__"]:
            games += 1
            obs, _ = w.reset()


def test_rllib_module_masks_illegal_actions() -> None:
    pytest.importorskip("ray.rllib", reason=NO_RLLIB)
    import torch

    from subterra_env.rllib import SubterraMultiAgentEnv, SubterraRLModule

    env = SubterraMultiAgentEnv({"obs_radius": 2})
    agent = env.possible_agents[0]
    module = SubterraRLModule(observation_space=env.get_observation_space(agent),
                              action_space=env.get_action_space(agent), model_config={"hidden": 16,
                                                                                       "conv_channels": (4, 4)})
    obs, _ = env.reset(seed=0)
    o = next(iter(obs.values()))
    batch = {"obs": {k: torch.from_numpy(np.stack([v, v])) for k, v in o.items()}}
    out = module.forward_exploration(batch)
    probs = torch.softmax(out["action_dist_inputs"], -1)
    assert (probs[:, torch.from_numpy(o["action_mask"] == 0)] < 1e-6).all()
    assert module.compute_values(batch).shape == (2,)


@pytest.fixture(scope="module")
def rllib_smoke_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Two tiny PPO iterations on a local Ray through training/train_rllib.py, then a resume to a third (about
    30 s on 2 cores); trained once for the tests that check the run and play its checkpoints."""
    pytest.importorskip("ray.rllib", reason=NO_RLLIB)

    import ray

    from training import train_rllib

    settings = train_rllib.load_settings(ROOT / "configs/train/rllib/smoke.yaml", [])
    run = tmp_path_factory.mktemp("rllib") / "run"
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)  # one Ray for both runs
    try:
        first = train_rllib.train(settings, run, log=lambda *_: None)
        checkpoints = sorted(p.name for p in (run / "checkpoints").glob("iter_*"))
        logs: list[str] = []
        more = train_rllib.load_settings(run / "config.yaml", ["stop.iterations=3"])
        resumed = train_rllib.train(more, run, resume=True, log=logs.append)
    finally:
        ray.shutdown()
    return {"run": run, "settings": settings, "first": first, "checkpoints_after_first": checkpoints,
            "resumed": resumed, "logs": logs}


def test_rllib_ppo_smoke_trains_checkpoints_and_resumes(rllib_smoke_run: dict) -> None:
    """The smoke run: a checkpoint, a resume, and the checkpointed module playing legal moves."""
    import torch
    from ray.rllib.core.rl_module.rl_module import RLModule

    run, settings, line = rllib_smoke_run["run"], rllib_smoke_run["settings"], rllib_smoke_run["first"]
    assert line["iteration"] == 2 and line["env_steps"] >= 2 * settings["ppo"]["train_batch_size_per_learner"]
    assert line["env_steps_per_s"] > 0 and line["episodes"] > 0
    assert len(rllib_smoke_run["checkpoints_after_first"]) == 1  # keep: 1
    assert "resumed from" in rllib_smoke_run["logs"][0] and rllib_smoke_run["resumed"]["iteration"] == 3
    assert len((run / "progress.jsonl").read_text().splitlines()) == 3
    assert "(iteration 2; seed 2000006: new games)" in rllib_smoke_run["logs"][0]  # a seed of its own: new games
    assert (run / "final" / "rllib_checkpoint.json").exists()
    module = RLModule.from_checkpoint(str(run / "final/learner_group/learner/rl_module/shared"))
    e = subterra_env.env(obs_radius=settings["env"]["obs_radius"])
    e.reset(seed=0)
    for _ in range(30):
        obs = e.observe(e.agent_selection)
        batch = {"obs": {k: torch.from_numpy(v[None]) for k, v in obs.items()}}
        with torch.no_grad():
            action = int(module.forward_inference(batch)["action_dist_inputs"][0].argmax())
        e.step(action)  # raises IllegalActionError if the mask were not applied


def test_rllib_resumed_run_plays_new_games(tmp_path: Path) -> None:
    """Issue 40: after --resume, the first iteration reproduced iteration 1's statistics exactly (RLlib seeds the
    env runners from the config's seed when the Algorithm is built, and the restore does not move them on). One
    iteration, a resume to a second, games of 8 rounds (so that the statistics can tell games apart): with the
    same seed both iterations read (3 episodes, 0.333 escaped, -0.333 result); the resume's own seed plays others
    (about 25 s)."""
    pytest.importorskip("ray.rllib", reason=NO_RLLIB)
    import json

    import ray

    from training import train_rllib

    settings = train_rllib.load_settings(ROOT / "configs/train/rllib/smoke.yaml",
                                         ["stop.iterations=1", "env.max_cycles=8"])
    run = tmp_path / "run"
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        train_rllib.train(settings, run, log=lambda *_: None)
        more = train_rllib.load_settings(run / "config.yaml", ["stop.iterations=2"])
        train_rllib.train(more, run, resume=True, log=lambda *_: None)
    finally:
        ray.shutdown()
    lines = [json.loads(x) for x in (run / "progress.jsonl").read_text().splitlines()]
    stats = [(ln["episodes"], ln["escaped_mean"], ln["result_mean"]) for ln in lines]
    assert [ln["iteration"] for ln in lines] == [1, 2]
    assert stats[0] == (3, pytest.approx(1 / 3), pytest.approx(-1 / 3))  # seed 0's games
    assert stats[1] != stats[0]


def test_rllib_checkpoints_play_as_agents_and_in_evaluate(rllib_smoke_run: dict, tmp_path: Path, capsys) -> None:
    """``rllib:PATH`` teams in training/evaluate.py (CLI and API) and RLlibAgent on its own: every path form loads
    the shared module at the run's obs_radius, greedy and sampled play stay legal (a few seconds)."""
    import json

    from agents.rllib_agent import RLlibAgent
    from subterra_env.config import load
    from training.evaluate import evaluate_team, main

    run = rllib_smoke_run["run"]
    radius = rllib_smoke_run["settings"]["env"]["obs_radius"]
    (ckpt,) = sorted((run / "checkpoints").glob("iter_*"))
    module_dir = run / "final/learner_group/learner/rl_module/shared"
    for path in (run / "final", run, ckpt, module_dir):
        agent = RLlibAgent(path)
        assert agent.obs_radius == radius
    assert RLlibAgent(ckpt).run_config == run / "config.yaml" and agent.run_config == run / "config.yaml"
    sampled = RLlibAgent(run / "final", deterministic=False, seed=3)
    e = subterra_env.env(config=load(ROOT / "configs/tiny.yaml"), obs_radius=radius, max_cycles=3)
    e.reset(seed=0)
    for name in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        a = sampled.act(obs, obs["action_mask"])
        assert obs["action_mask"][a] and agent.act(obs, obs["action_mask"]) in np.flatnonzero(obs["action_mask"])
        e.step(a)

    out = tmp_path / "eval"
    rc = main(["--config", str(ROOT / "configs/tiny.yaml"), "--games", "4", "--max-cycles", "20",
               "--team", f"rllib:{run / 'final'}", "--team", f"rllib:{ckpt},random", "--team", "heuristic",
               "--out", str(out), "--no-progress", "--no-plots"])
    printed = capsys.readouterr().out
    assert rc == 0, printed
    rows = json.loads((out / "results.json").read_text())["results"]
    assert [r["team"] for r in rows] == ["rllib:run/final", f"rllib:run/{ckpt.name},random", "heuristic"]
    for r in rows:
        assert r["num_games"] == 4 and len(r["games"]["seed"]) == 4 and sum(r["counts"].values()) == 4
        assert r["illegal"] == 0 and r["illegal_actions"] == [] and r["decisions"] > 0
    assert "rllib:run/final" in printed
    r = evaluate_team(ROOT / "configs/tiny.yaml", [sampled, "random"], num_games=4, max_cycles=20)
    assert r.illegal == 0 and r.num_games == 4 and r.seats == ["rllib:run/final", "random"] * 2


def test_rllib_team_specs_name_bad_checkpoints_and_missing_ray(tmp_path: Path, monkeypatch, capsys) -> None:
    """Without Ray (the main venv) or with it: a missing path, a folder that is no checkpoint, a .zip, and Ray
    not importable are named before any game is played (exit status 2)."""
    import sys

    from training.eval_agents import AgentCache, EvalError, GamesHolder, parse_team
    from training.evaluate import main

    with pytest.raises(EvalError, match="RLlib checkpoint not found: 'nowhere/final'"):
        parse_team("rllib:nowhere/final,heuristic")
    (tmp_path / "empty").mkdir()
    with pytest.raises(EvalError, match="is not an RLlib checkpoint"):
        parse_team(f"rllib:{tmp_path / 'empty'}")
    (tmp_path / "a.zip").write_bytes(b"")
    with pytest.raises(EvalError, match="use policy:PATH"):
        parse_team(f"rllib:{tmp_path / 'a.zip'}")
    ckpt = tmp_path / "run" / "final"  # the files a checkpoint has, for the checks that do not load it
    module = ckpt / "learner_group/learner/rl_module/shared"
    module.mkdir(parents=True)
    for f in (ckpt / "rllib_checkpoint.json", module / "class_and_ctor_args.pkl", module / "module_state.pkl"):
        f.write_bytes(b"")
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as where it is not installed
    with pytest.raises(EvalError, match=r"pip install -e \.\[distributed\]"):
        parse_team(f"rllib:{tmp_path / 'run'}")
    with pytest.raises(EvalError, match=r"pip install -e \.\[distributed\]"):
        AgentCache().build(f"rllib:{ckpt}", GamesHolder(None), salt=0)
    for spec, needle in ((f"rllib:{ckpt}", "[distributed]"), ("rllib:nowhere/final", "nowhere/final")):
        with pytest.raises(SystemExit) as e:
            main(["--team", spec, "--games", "1", "--out", str(tmp_path / "x"), "--no-plots"])
        assert e.value.code == 2 and needle in capsys.readouterr().err


def test_train_rllib_refuses_bad_settings_before_starting_ray(tmp_path: Path, capsys) -> None:
    pytest.importorskip("ray.rllib", reason=NO_RLLIB)

    from training import train_rllib

    cfg = str(ROOT / "configs/train/rllib/smoke.yaml")
    for override, words in [("ppo.lrr=1", ["ppo.lrr", "allowed keys in ppo", "lr"]),
                            ("game.num_cavers=9", ["num_cavers"]), ("env.obs_radius=0", ["obs_radius"])]:
        assert train_rllib.main(["--config", cfg, "--set", override, "--run-dir", str(tmp_path / "x")]) == 2
        err = capsys.readouterr().err
        assert all(w in err for w in words), (override, err)
    assert not (tmp_path / "x").exists()
