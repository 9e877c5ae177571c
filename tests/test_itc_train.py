"""training/train_itc_ppo.py: the single-agent env against the heuristic keeps gymnasium's API and the rules
(the mask is what a step accepts), and a tiny MaskablePPO run trains, evaluates and writes its result."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

@pytest.fixture(scope="module")
def train():
    from training import train_itc_ppo

    return train_itc_ppo


def test_env_api_and_masks(train):
    env = train.ItcVsHeuristic(seed=1)
    obs, _ = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    for _ in range(30):  # legal random decisions keep the observation in its space
        obs, reward, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert env.observation_space.contains(obs) and not (term or trunc) and reward == 0.0
    seats = []
    for _ in range(2):
        env.reset()
        seats.append(env.seat)
        assert int(env.G[0, train.L.ACTOR]) == env.seat  # the heuristic has played up to the learner's decision
    assert seats[0] != seats[1]
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(ValueError, match=f"action {illegal} is not legal"):
        env.step(illegal)


def test_tiny_run_writes_a_result(train, tmp_path):
    result = train.main(["--timesteps", "64", "--n-steps", "32", "--eval-games", "1", "--out", str(tmp_path)])
    saved = json.loads((tmp_path / "result.json").read_text())
    assert saved == json.loads(json.dumps(result))
    assert (tmp_path / "model.zip").exists()
    assert saved["timesteps"] == 64 and saved["vs_heuristic"]["games"] == 1
    assert 0.0 <= saved["vs_heuristic"]["win_rate"] <= 1.0


def test_heuristic_demonstrations_are_its_legal_decisions_with_the_final_score_difference(train):
    from training.itc_selfplay import collect_demos

    demos = collect_demos(1, seed=5, observe=train.observe)
    core = train.ItcCore(train.ItcConfig(num_players=2))
    G = core.init([5])
    for i, a in enumerate(demos.actions):  # replaying the recorded actions replays the game, every one legal
        assert demos.masks[i, a] and (demos.masks[i] == core.masks(G)[0].astype(bool)).all()
        assert (demos.obs["observation"][i] == train.observe(G[0], core.P, int(G[0, train.L.ACTOR]))).all()
        core.step(G, [int(a)])
    g = G[0]
    assert g[train.L.OVER] != train.L.RUNNING and (demos.game == 0).all()
    if g[train.L.OVER] == train.L.ENDED:
        diff = float(g[train.L.SCORE] - g[train.L.SCORE + 1]) / 100.0
        assert demos.has_return.all()
        assert diff != 0 and np.allclose(np.abs(demos.returns), abs(diff))  # each team's own side of it
        assert np.allclose(demos.returns[0], diff)  # seat 0 decides first


def test_bc_warm_start_then_self_play_writes_its_curve(train, tmp_path):
    result = train.main(["--timesteps", "128", "--n-steps", "32", "--bc-games", "2", "--bc-epochs", "1",
                         "--opponent", "self", "--sync-every", "2", "--eval-every", "64", "--curve-games", "1",
                         "--eval-games", "1", "--out", str(tmp_path)])
    assert result["opponent"] == "self" and result["opponent_refreshes"] == 2  # 4 rollouts of 32, every 2nd
    assert [b["stage"] for b in result["bc"]] == ["BC"]
    assert result["bc"][0]["decisions"] > 100 and 0.0 <= result["bc"][0]["held_out_acc"] <= 1.0
    rows = [json.loads(x) for x in (tmp_path / "curve.jsonl").read_text().splitlines()]
    assert [r["timesteps"] for r in rows] == [0, 64, 128]  # after BC, then every 64 learner decisions
    assert [r["stage"] for r in rows] == ["BC", "PPO 64", "PPO 128"]
    assert (tmp_path / "curve.png").stat().st_size > 10_000


def test_opponent_sync_copies_the_learner(train):
    import torch
    from sb3_contrib import MaskablePPO
    from training.itc_selfplay import PolicyOpponent

    model = MaskablePPO("MlpPolicy", train.ItcVsOpponent(seed=0), n_steps=32, batch_size=32, device="cpu")
    opp = PolicyOpponent(model.policy, train.observe)
    with torch.no_grad():
        for prm in model.policy.parameters():
            prm.add_(1.0)
    first = next(model.policy.parameters())
    assert not torch.equal(next(opp.policy.parameters()), first)  # a frozen copy
    opp.sync(model.policy)
    assert torch.equal(next(opp.policy.parameters()), first) and opp.syncs == 1


def test_nothing_to_train_is_refused(train):
    with pytest.raises(SystemExit):
        train.main(["--timesteps", "0"])


def test_dagger_rounds_add_the_learners_states(train, tmp_path):
    result = train.main(["--timesteps", "0", "--bc-games", "2", "--bc-epochs", "1", "--dagger-rounds", "1",
                         "--dagger-games", "1", "--eval-games", "1", "--out", str(tmp_path)])
    bc, dagger = result["bc"]
    assert (bc["stage"], dagger["stage"]) == ("BC", "DAgger 1") and dagger["decisions"] > bc["decisions"]
    again = train.main(["--timesteps", "0", "--demos", str(tmp_path / "demos.npz"), "--bc-epochs", "1",
                        "--eval-games", "1", "--out", str(tmp_path / "again")])
    assert again["bc"][0]["decisions"] == bc["decisions"]  # the saved BC games, not new ones
