"""Partners in the native trainer (``training/partners.py``, ``training/ppo.py``'s ``partner``): which seats the
heuristic takes, that its decisions are the heuristic's own and are never trained on, and the run's log of the
mixed games apart from the self-play ones. Tiny budgets, one torch thread."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the train extra: pip install -e '.[train]'")

from agents.heuristic import HeuristicAgent
from training import ppo
from training.partners import Partners

ROOT = Path(__file__).resolve().parents[1]
TEST_CONFIG = str(ROOT / "configs" / "train" / "ppo_test.yaml")  # 64 games x 32 decisions = 2,048 a iteration

torch.set_num_threads(1)


def trainer(*sets: str) -> ppo.Trainer:
    torch.manual_seed(0)
    t = ppo.Trainer(ppo.load_args(TEST_CONFIG, ["partner=heuristic", *sets]))
    t.reset()
    return t


def test_a_mixed_game_has_one_to_three_partner_seats_and_share_zero_none() -> None:
    t = trainer()
    games, spec, cpu = t.shards[0].games, t.spec, torch.device("cpu")
    none = Partners("heuristic", 0.0, games, 0, spec, cpu)
    none.draw(np.arange(64))
    assert not none.seats.any()
    every = Partners("heuristic", 1.0, games, 0, spec, cpu)
    every.draw(np.arange(64))
    counts = every.seats.sum(axis=1)
    assert sorted(set(counts.tolist())) == [1, 2, 3]  # 4 cavers: never all four, never none
    again = Partners("heuristic", 1.0, games, 0, spec, cpu)
    again.draw(np.arange(64))
    assert np.array_equal(again.seats, every.seats)  # the same seed, the same seats


def test_a_partner_seat_plays_the_heuristics_action_and_is_not_the_policys_to_learn() -> None:
    t = trainer("partner_games=1.0")
    shard, ro = t.shards[0], t.store
    st = shard.games.state
    partner = shard.partners.seats[np.arange(64), st.actor.astype(np.intp)]
    expected = HeuristicAgent(shard.games, threads=1).decide(shard.games.core, st, np.flatnonzero(partner),
                                                             ro.mask[0, shard.rows][partner])
    actions = t._act(shard, 0)
    assert 0 < partner.sum() < 64
    assert np.array_equal(actions[partner], expected)
    assert np.array_equal(ro.actions[0][partner], expected)
    assert np.array_equal(ro.learn[0], ~partner)
    assert ro.mask[0][np.arange(64), actions].all()


def test_an_update_of_partner_decisions_only_leaves_a_mappo_actor_as_it_was() -> None:
    """Every decision of the rollout marked a partner's: the policy, entropy and KL terms have nothing to average
    over, so the actor (body and policy head) stays bit-identical while the centralised critic trains."""
    t = trainer("critic=mappo", "partner_games=1.0")
    t.collect()
    t.store.learn[:] = False
    before = {k: v.clone() for k, v in t.learner.model.state_dict().items()}
    stats = t.learner.update(t.store, lr=0.01)
    after = t.learner.model.state_dict()
    actor = [k for k in before if not k.startswith("critic.")]
    assert actor and all(torch.equal(before[k], after[k]) for k in actor)
    assert not all(torch.equal(before[k], after[k]) for k in before if k.startswith("critic."))
    assert stats["policy_loss"] == 0.0 and stats["entropy"] == 0.0


def test_a_run_with_partners_logs_mixed_and_self_play_games_apart(tmp_path: Path) -> None:
    torch.manual_seed(0)
    run = tmp_path / "run"
    assert ppo.main(["--config", TEST_CONFIG, "--run-dir", str(run), "--set", "partner=heuristic",
                     "--set", "total_steps=8192", "--set", "max_cycles=20"]) == 0
    last = [json.loads(line) for line in (run / "progress.jsonl").read_text().splitlines()][-1]
    assert last["escaped_mixed"] is not None and last["escaped_self_play"] is not None
    assert last["step"] == 8192


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A frozen team: one iteration of the test config (the 5 x 5 window)."""
    torch.manual_seed(0)
    run = tmp_path_factory.mktemp("partner") / "run"
    assert ppo.main(["--config", TEST_CONFIG, "--run-dir", str(run), "--set", "total_steps=2048"]) == 0
    return run / "final.pt"


def test_a_population_of_partners_plays_each_its_own_greedy_choice(checkpoint: Path) -> None:
    t = trainer(f"partner=heuristic,policy:{checkpoint}", "partner_games=1.0")
    shard, ro = t.shards[0], t.store
    p = shard.partners
    assert sorted(set(p.who.tolist())) == [0, 1]  # both entries hold some of the 64 games
    st = shard.games.state
    partner = p.seats[np.arange(64), st.actor.astype(np.intp)]
    by_heuristic, by_policy = partner & (p.who == 0), partner & (p.who == 1)
    assert by_heuristic.any() and by_policy.any()
    heuristic = HeuristicAgent(shard.games, threads=1).decide(shard.games.core, st, np.flatnonzero(by_heuristic),
                                                              ro.mask[0][by_heuristic])
    model = p.agents[1].model
    with torch.no_grad():
        logits = model.logits(torch.from_numpy(ro.grid[0][by_policy]), torch.from_numpy(ro.scalars[0][by_policy]))
    greedy = logits.masked_fill(~torch.from_numpy(ro.mask[0][by_policy]), -torch.inf).argmax(1).numpy()
    actions = t._act(shard, 0)
    assert np.array_equal(actions[by_heuristic], heuristic)
    assert np.array_equal(actions[by_policy], greedy)
    assert np.array_equal(ro.learn[0], ~partner)


@pytest.mark.parametrize("partner, named", [
    ("random", "partner='random'"),
    ("heuristic,search", "partner entry 'search'"),
    ("policy:no/such/final.pt", "no/such/final.pt"),
])
def test_a_partner_that_cannot_play_is_refused_naming_it(partner: str, named: str, tmp_path: Path,
                                                         capsys) -> None:
    run = tmp_path / "run"
    assert ppo.main(["--config", TEST_CONFIG, "--run-dir", str(run), "--set", f"partner={partner}"]) == 2
    assert named in capsys.readouterr().err
    assert not run.exists()  # before any work


def test_a_partner_of_a_wider_window_is_refused_naming_both_a_narrower_one_plays(checkpoint: Path,
                                                                                 tmp_path: Path, capsys) -> None:
    wide = tmp_path / "wide"
    torch.manual_seed(0)
    assert ppo.main(["--config", TEST_CONFIG, "--run-dir", str(wide), "--set", "total_steps=2048",
                     "--set", "obs_radius=3"]) == 0
    run = tmp_path / "run"
    assert ppo.main(["--config", TEST_CONFIG, "--run-dir", str(run),
                     "--set", f"partner=policy:{wide / 'final.pt'}"]) == 2
    err = capsys.readouterr().err
    assert "(34, 7, 7)" in err and "(34, 5, 5)" in err, err
    assert not run.exists()
    # the 5 x 5 partner in a 7 x 7 run plays the centre of each window (NativePolicyAgent's crop)
    t = trainer("obs_radius=3", f"partner=policy:{checkpoint}", "partner_games=1.0")
    actions = t._act(t.shards[0], 0)
    assert not t.store.learn[0].all()
    assert t.store.mask[0][np.arange(64), actions].all()


def test_past_copies_join_the_pool_every_partner_every_steps_and_the_oldest_goes(tmp_path: Path) -> None:
    """partner=past: a frozen copy of the policy every 2,048 env-steps (one iteration), the last two kept; last.pt
    holds them oldest first, each the network of its step's checkpoint."""
    torch.manual_seed(0)
    run = tmp_path / "run"
    assert ppo.main(["--config", TEST_CONFIG, "--run-dir", str(run), "--set", "partner=past", "--set",
                     "partner_every=2048", "--set", "partner_pool=2", "--set", "total_steps=8192"]) == 0
    last = torch.load(run / "last.pt", map_location="cpu", weights_only=False)
    assert [name for name, _ in last["past"]] == ["past@6144", "past@8192"]
    six = torch.load(run / "checkpoints" / "step_6144.pt", map_location="cpu", weights_only=False)
    assert [name for name, _ in six["past"]] == ["past@4096", "past@6144"]
    weights = dict(last["past"])["past@6144"]
    assert all(torch.equal(weights[k], v) for k, v in six["model"].items())
    newest = dict(last["past"])["past@8192"]  # taken after the last update, as last.pt's network
    assert newest.keys() == last["model"].keys() and all(torch.equal(newest[k], v) for k, v in last["model"].items())
    assert not torch.load(run / "final.pt", map_location="cpu", weights_only=False)["past"]  # only resume needs it


def test_no_past_partner_is_seated_before_the_first_copy_then_it_plays_its_greedy_choice() -> None:
    t = trainer("partner=past", "partner_every=2048", "partner_games=1.0")
    p, ro = t.shards[0].partners, t.store
    assert not p.seats.any() and not p.agents  # no copy yet: every game is self-play
    t.add_past("past@0")
    p.draw(np.arange(64))
    st = t.shards[0].games.state
    partner = p.seats[np.arange(64), st.actor.astype(np.intp)]
    assert partner.any() and p.entries == ["past@0"]
    with torch.no_grad():  # the copy is the policy as it is now: its greedy choice is the network's argmax
        logits = t.learner.model.logits(torch.from_numpy(ro.grid[0][partner]),
                                        torch.from_numpy(ro.scalars[0][partner]))
    greedy = logits.masked_fill(~torch.from_numpy(ro.mask[0][partner]), -torch.inf).argmax(1).numpy()
    actions = t._act(t.shards[0], 0)
    assert np.array_equal(actions[partner], greedy)
    assert np.array_equal(ro.learn[0], ~partner)


def test_a_resumed_run_keeps_its_past_pool(tmp_path: Path) -> None:
    torch.manual_seed(0)
    run = tmp_path / "run"
    sets = ["--set", "partner=heuristic,past", "--set", "partner_every=2048", "--set", "partner_pool=2"]
    assert ppo.main(["--config", TEST_CONFIG, "--run-dir", str(run), *sets, "--set", "total_steps=4096"]) == 0
    before = torch.load(run / "last.pt", map_location="cpu", weights_only=False)["past"]
    args, path, resumed = ppo.prepare_run(ppo.parse_cli(["--resume", str(run), "--set", "total_steps=6144"]))
    trainer = ppo.Trainer(args)
    ppo.Run(args, path, trainer, resumed)
    p = trainer.shards[0].partners
    assert p.entries == ["heuristic", "past@2048", "past@4096"]
    assert [name for name, _ in trainer.past_pool()] == [name for name, _ in before] == ["past@2048", "past@4096"]
    assert all(torch.equal(w, before[1][1][k]) for k, w in p.agents[2].model.state_dict().items())


@pytest.mark.parametrize("sets, named", [
    (["partner=past"], "partner_every=0"),
    (["partner=heuristic", "partner_every=2048"], "the past entry"),
    (["partner_every=2048"], "partner_every=2048 without partner"),
    (["partner=heuristic,heuristic"], "named twice"),
])
def test_past_settings_that_do_not_fit_are_refused_naming_them(sets: list[str], named: str, tmp_path: Path,
                                                               capsys) -> None:
    run = tmp_path / "run"
    argv = ["--config", TEST_CONFIG, "--run-dir", str(run)]
    for s in sets:
        argv += ["--set", s]
    assert ppo.main(argv) == 2
    assert named in capsys.readouterr().err
    assert not run.exists()
