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
