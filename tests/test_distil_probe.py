"""agents/gain_head.py and training/distil_probe.py: the small model of the search's gains, its inputs, its fit and
its scoring on other games."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from agents.gain_head import DECK_LEFT, ROUND, GainHead  # noqa: E402
from subterra_env.games.sub_terra.core.actions import A_END, A_EXERT, A_MOVE, NUM_ACTIONS  # noqa: E402
from training import bc, distil_probe, set_head  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "agents" / "shipped" / "team.zip"


def synthetic(n: int, seed: int) -> bc.Demonstrations:
    """Decisions where the heuristic ends the turn and Exert or Move N are the alternatives. Exert truly gains 0.25
    caver when the first scalar ('AP left') is 5, and loses 0.2 when it is 0; Move N gains 0.05 when the cell north
    of the caver holds a tile, and loses 0.3 otherwise. Labels carry noise of sd 0.3 on top."""
    rng = np.random.default_rng(seed)
    grid = np.zeros((n, 34, 15, 15), dtype=np.int8)
    north = rng.random(n) < 0.5
    grid[north, 0, 6, 7] = 1  # the tile channel of the cell north of the centre (row 6, column 7)
    scalars = np.zeros((n, 49), dtype=np.int8)
    scalars[:, 0] = rng.choice([0, 5], n)
    advice = np.zeros((n, NUM_ACTIONS), dtype=np.int8)
    advice[:, A_END] = 1
    masks = np.zeros((n, NUM_ACTIONS), dtype=bool)
    masks[:, [A_END, A_EXERT, A_MOVE]] = True
    gains = np.full((n, NUM_ACTIONS), np.nan, dtype=np.float32)
    gains[:, A_END] = 0
    gains[:, A_EXERT] = np.where(scalars[:, 0] == 5, 0.25, -0.2) + rng.normal(0, 0.3, n)
    gains[:, A_MOVE] = np.where(north, 0.05, -0.3) + rng.normal(0, 0.3, n)
    return bc.Demonstrations({"observation": grid, "scalars": scalars, "advice": advice}, masks,
                             np.full(n, A_END), np.zeros(n, np.float32), np.zeros(n, bool), np.arange(n) // 20,
                             [], gains)


def test_the_two_paths_of_the_head_agree_and_read_the_cell_an_action_points_at() -> None:
    demos = synthetic(40, seed=1)
    head = GainHead(members=2, hidden=8)
    grid, scalars, advised = distil_probe._tensors(demos, np.arange(40))
    common, neighbours = head.decision_inputs(grid, scalars, advised)
    every = head(grid, scalars, advised)  # (decisions, actions): what the policy uses
    rows, actions = (torch.as_tensor(v) for v in np.nonzero(distil_probe.alternatives(demos)))
    assert len(rows) == 80 and set(actions.tolist()) == {A_EXERT, A_MOVE}  # the advised action is never a row
    pairs = torch.stack(head.member_gains(common, neighbours, rows, actions)).mean(dim=0)  # what training uses
    torch.testing.assert_close(pairs, every[rows, actions])
    north = torch.as_tensor(demos.obs["observation"][:, 0, 6, 7] == 1)
    move = head._pointed(neighbours, torch.arange(40), torch.full((40,), A_MOVE))
    torch.testing.assert_close(move[:, 0], north.float() / 5)  # Move N reads the tile north of the caver (/ 5)
    assert (head._pointed(neighbours, torch.arange(40), torch.full((40,), A_EXERT)) == 0).all()  # Exert: nowhere
    bonus = head.bonus(grid, scalars, torch.as_tensor(demos.obs["advice"]))
    assert (bonus[:, A_END] == 0).all()  # the advised action keeps its logit
    torch.testing.assert_close(bonus[:, A_EXERT], 1e5 * every[:, A_EXERT])  # threshold 0, scale 1e5


def test_departures_score_the_chosen_alternatives_by_their_labels() -> None:
    rows = np.array([0, 0, 1, 1, 2, 3])
    predicted = np.array([0.5, 0.1, -0.2, 0.3, 0.05, -0.4])
    labels = np.array([1.0, 9.0, 9.0, -2.0, 4.0, 7.0])
    # best alternatives: decision 0 -> 0.5 (label 1), 1 -> 0.3 (-2), 2 -> 0.05 (4), 3 -> -0.4 (7)
    half = distil_probe.departures(rows, predicted, labels, decisions=4, rate=0.5)
    assert half["per_departure"] == pytest.approx(-0.5) and half["gain"] == pytest.approx(-0.25)
    assert half["least_predicted"] == pytest.approx(0.3)
    quarter = distil_probe.departures(rows, predicted, labels, decisions=4, rate=0.25)
    assert quarter["per_departure"] == pytest.approx(1.0) and quarter["gain"] == pytest.approx(0.25)


def test_the_teams_threshold_rule_is_scored_on_each_test_file(tmp_path: Path) -> None:
    rows = np.array([0, 0, 1, 1, 2, 3])
    predicted = np.array([0.5, 0.1, -0.2, 0.3, 0.05, -0.4])
    labels = np.array([1.0, 9.0, 9.0, -2.0, 4.0, 7.0])
    # Above 0.04: decisions 0 (label 1), 1 (-2) and 2 (4); decision 3's best alternative predicts a loss.
    rule = distil_probe.at_threshold(rows, predicted, labels, decisions=4, threshold=0.04)
    assert rule["departing"] == pytest.approx(0.75) and rule["per_departure"] == pytest.approx(1.0)
    assert rule["gain"] == pytest.approx(0.75)
    assert distil_probe.at_threshold(rows, predicted, labels, decisions=4, threshold=0.6)["departing"] == 0.0
    paths = [tmp_path / f"labels-{i}.npz" for i in range(3)]
    for i, path in enumerate(paths):
        synthetic(200, seed=10 + i).save(path)
    distil_probe.main(["--train", str(paths[0]), "--test", str(paths[1]), str(paths[2]), "--fractions", "1",
                       "--rates", "0.1", "--hidden", "8", "--members", "1", "--epochs", "1", "--threshold", "-9",
                       "--out", str(tmp_path / "probe")])
    import json

    files = json.loads((tmp_path / "probe" / "probe.json").read_text())["per_test_file"]
    assert list(files) == [str(paths[1]), str(paths[2])]
    assert all(r["threshold"] == -9 and r["departing"] == 1.0 for r in files.values())  # below every prediction
    assert "on each test file" in (tmp_path / "probe" / "probe.md").read_text()


def test_the_head_finds_real_gains_on_other_games() -> None:
    train, test = synthetic(6000, seed=2), synthetic(3000, seed=3)
    (result,), head = distil_probe.curve(train, test, [1.0], [0.2], hidden=32, members=2, epochs=6)
    # The best fifth of the test decisions would be Exert at 5 AP (+0.25; half of the decisions), the next best
    # Move N towards a tile (+0.05), a random alternative loses 0.1: the head finds the gains on games it never saw.
    assert result["rates"][0]["per_departure"] > 0.15
    assert result["corr"] > 0.3
    gains = distil_probe.predict(head, test)
    at5 = test.obs["scalars"][:, 0] == 5
    assert gains[at5, A_EXERT].mean() > gains[~at5, A_EXERT].mean() + 0.1  # truly 0.45; shrunk, ranked right


def test_errors_name_the_problem(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path, other = tmp_path / "labels.npz", tmp_path / "other.npz"
    synthetic(40, seed=1).save(path)
    synthetic(40, seed=2).save(other)
    with pytest.raises(SystemExit):
        distil_probe.main(["--train", str(path), "--test", str(path)])
    assert "must come from other games" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        distil_probe.main(["--train", str(path), "--test", str(other), "--rates", "1.5"])
    assert "--rates must lie in (0, 1]" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        distil_probe.main(["--train", str(path), "--test", str(other), "--threshold", "nan"])
    assert "--threshold must be a finite number" in capsys.readouterr().err


def test_the_team_leaves_the_advice_exactly_where_its_head_predicts_a_gain(tmp_path: Path) -> None:
    from agents.policy_agent import PolicyAgent

    head = distil_probe.fit_head(synthetic(3000, seed=2), hidden=16, members=2, epochs=3)
    test = synthetic(300, seed=5)
    gains = np.where(distil_probe.alternatives(test) & test.masks, distil_probe.predict(head, test), -np.inf)
    threshold = float(np.quantile(gains.max(axis=1), 0.7))
    rule = np.where(gains.max(axis=1) > threshold, gains.argmax(axis=1), A_END)
    assert 0.2 < np.mean(rule != A_END) < 0.4  # the head's best 30% depart
    out = tmp_path / "team.zip"
    distil_probe.write_team(str(ROOT / "agents" / "shipped" / "team.zip"), head, threshold, str(out))
    policy = PolicyAgent(out).policy  # the checkpoint loads with its head
    assert float(policy.gain_head.threshold) == pytest.approx(threshold) and policy.gain_head.config["members"] == 2
    with torch.no_grad():
        obs, _ = policy.obs_to_tensor(test.obs)
        greedy = policy.get_distribution(obs, action_masks=test.masks).get_actions(deterministic=True).numpy()
    np.testing.assert_array_equal(greedy, rule)
    onnxruntime = pytest.importorskip("onnxruntime")
    from agents.onnx_policy import export_onnx

    session = onnxruntime.InferenceSession(str(export_onnx(out, tmp_path / "team.onnx")))
    logits = session.run(None, {k: test.obs[k].astype(np.float32) for k in ("observation", "scalars", "advice")})[0]
    np.testing.assert_array_equal(np.where(test.masks, logits, -np.inf).argmax(axis=1), rule)  # without torch too


def test_the_head_departs_only_in_games_whose_deck_held_at_most_max_deck_cards() -> None:
    demos = synthetic(40, seed=1)
    grid, scalars, _ = distil_probe._tensors(demos, np.arange(40))
    advice = torch.as_tensor(demos.obs["advice"])
    scalars = scalars.clone()
    scalars[:, DECK_LEFT] = torch.as_tensor([6] * 10 + [0] * 10 + [20] * 10 + [0] * 10)  # hazard cards left
    scalars[:, ROUND] = torch.as_tensor([4] * 10 + [10] * 10 + [4] * 10 + [11] * 10)  # deck 9, 9, 23, 10
    free = GainHead(members=2, hidden=8)
    gated = GainHead(members=2, hidden=8, max_deck=9)
    gated.load_state_dict(free.state_dict())
    inside = torch.as_tensor([True] * 20 + [False] * 20)
    assert gated.in_domain(scalars).tolist() == inside.float().tolist()
    free_bonus, gated_bonus = free.bonus(grid, scalars, advice), gated.bonus(grid, scalars, advice)
    torch.testing.assert_close(gated_bonus[inside], free_bonus[inside])
    assert (free_bonus[~inside][:, A_EXERT] != 0).all() and (gated_bonus[~inside] == 0).all()
    assert GainHead(**gated.config).max_deck == 9 and "max_deck" not in free.config  # kept in the kwargs
    for bad in (-1, 128, 9.5, "9"):
        with pytest.raises(ValueError, match="max_deck must be None or a card count 0..127"):
            GainHead(max_deck=bad)


@pytest.mark.skipif(not SHIPPED.is_file(), reason="the shipped team is not in this checkout")
def test_set_head_changes_the_heads_settings_and_keeps_its_weights(tmp_path: Path, capsys) -> None:
    from agents.policy_agent import load_maskable_ppo

    out = tmp_path / "team.zip"
    assert set_head.main([str(SHIPPED), "--max-deck", "-1", "--threshold", "0.01", "--out", str(out)]) == 0
    before = load_maskable_ppo(SHIPPED, "x").policy
    after = load_maskable_ppo(out, "x").policy
    assert after.gain_head.max_deck is None and float(after.gain_head.threshold) == pytest.approx(0.01)
    weights = {k: v for k, v in after.state_dict().items() if k != "gain_head.threshold"}
    assert all(torch.equal(v, before.state_dict()[k]) for k, v in weights.items())
    for args, message in ((["--max-deck", "200"], "max_deck must be None or a card count 0..127"),
                          (["--max-deck", "-2"], "max_deck must be None or a card count 0..127"),
                          (["--threshold", "inf"], "--threshold must be a finite number")):
        with pytest.raises(SystemExit):
            set_head.main([str(SHIPPED), *args, "--out", str(out)])
        assert message in capsys.readouterr().err


@pytest.mark.skipif(not SHIPPED.is_file(), reason="the shipped team is not in this checkout")
@pytest.mark.parametrize("cave", ["small", "medium", "full"])
def test_the_shipped_team_departs_on_the_small_caves_and_leaves_the_full_game_to_the_residual(cave: str) -> None:
    from agents.advice_vec_env import AdviceVecEnv
    from agents.policy_agent import load_maskable_ppo
    from subterra_env.config import preset
    from subterra_env.sb3 import SubterraVecEnv

    model = load_maskable_ppo(SHIPPED, "training/set_head.py")
    policy, head = model.policy, model.policy.gain_head
    assert head.config["members"] == 5 and head.max_deck == 12  # the medium cave's deck; the full game's is 23
    assert float(head.threshold) == pytest.approx(0.00401, abs=1e-5)
    venv = AdviceVecEnv(SubterraVecEnv(16, preset(cave), seed=4, obs_radius=7, max_cycles=60))
    obs, departed, decisions = venv.reset(), 0, 0
    for _ in range(60):
        masks = venv.action_masks()
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[np.arange(16), actions].all()
        with torch.no_grad():  # the residual policy alone: the network and the advice, no head
            tensors, _ = policy.obs_to_tensor(obs)
            plain = policy.action_net(policy._latents(tensors)[0]) + policy.advice_scale * tensors["advice"]
        departed += int((actions != np.where(masks, plain.numpy(), -np.inf).argmax(axis=1)).sum())
        decisions += 16
        obs, *_ = venv.step(actions)
    if cave != "full":
        assert 0 < departed < 0.15 * decisions  # about 5% of decisions on labelled small-cave games
    else:
        assert departed == 0  # a 23-card deck: the head adds nothing
