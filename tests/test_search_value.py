"""The search's horizon value estimate (agents/search/value.py, training/fit_value.py): finished games valued at
their cavers out, calibrated on games it never saw, blind to hidden information, and the search's horizon setting
checked."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.heuristic import HeuristicAgent
from agents.search import DEFAULT_HORIZON, SearchAgent
from agents.search.value import NF, ValueNet, network_inputs
from subterra_env.config import load
from subterra_env.games.sub_terra.core.kernels import cavers_out_batch
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RUNNING
from test_search import _core, alter_hidden, holder, mid_game

ROOT = Path(__file__).resolve().parents[1]


def test_finished_games_are_valued_at_their_cavers_out() -> None:
    core = _core("tiny")
    st = core.init(np.arange(40))
    HeuristicAgent(holder(core, st)).play(core, st, max_round=200)
    assert (st.result != RUNNING).all()
    out = np.empty(40, np.int64)
    cavers_out_batch(st.packed, out)
    values = ValueNet().values(st)
    assert values.tolist() == out.astype(float).tolist()
    assert sorted(set(out.tolist())) == [2, 3, 4]  # the test sees different outcomes


@pytest.mark.parametrize("name,rounds,tolerance", [("full", (2, 8, 16), 0.12), ("tiny", (2, 3), 0.08)])
def test_the_estimate_is_calibrated_on_games_it_never_saw(name: str, rounds: tuple, tolerance: float) -> None:
    """Seeds far from training/fit_value.py's (2,100,000+): the mean estimate at the first decision of a round
    (from round 2, where the search's rollouts stop and the fit's snapshots begin) matches the heuristic team's mean
    cavers out from there, and the estimate ranks the games (a correlation)."""
    core = _core(name)
    st = core.init(np.arange(9_000_000, 9_000_600))
    agent = HeuristicAgent(holder(core, st))
    net = ValueNet()
    estimates = []
    for r in rounds:
        agent.play(core, st, max_round=r - 1)  # stops at the first decision of round r
        estimates.append((net.values(st), st.result == RUNNING))
    agent.play(core, st, max_round=200)
    final = np.empty(st.batch_size, np.int64)
    cavers_out_batch(st.packed, final)
    for r, (v, running) in zip(rounds, estimates):
        gap = v[running].mean() - final[running].mean()
        corr = np.corrcoef(v[running], final[running])[0, 1]
        print(f"{name} round {r}: {running.sum()} games, estimate {v[running].mean():.3f}, "
              f"outcome {final[running].mean():.3f}, correlation {corr:.2f}")
        assert running.sum() >= 100
        assert abs(gap) < tolerance, (r, gap)
        assert corr > (0.15 if r == 2 else 0.3), (r, corr)  # round 2: the games have hardly begun


def test_the_estimate_reads_only_public_information() -> None:
    core = _core("full")
    rng = np.random.default_rng(5)
    net = ValueNet()
    states = mid_game("full", (1, 2), 18)
    moved = 0
    for st in states:
        h = alter_hidden(core, st, rng)
        moved += not np.array_equal(h.stack, st.stack) or not np.array_equal(h.deck, st.deck)
        assert np.array_equal(network_inputs(h), network_inputs(st))
        assert net.values(h).tolist() == net.values(st).tolist()
    assert len(states) >= 10 and moved >= len(states) // 2  # the hidden orders did change


def test_the_horizon_setting() -> None:
    core = _core("tiny")
    st = core.init(np.array([0]))
    assert SearchAgent(holder(core, st)).horizon == DEFAULT_HORIZON == 4
    assert SearchAgent(holder(core, st), horizon=0).horizon == 0
    assert SearchAgent(holder(core, st), clairvoyant=True).horizon == 0  # the ceiling plays the true future out
    plain = SearchAgent(holder(core, st))
    assert (plain.worlds, plain.more_worlds, plain.z) == (32, 0, 1.0)
    to_end = SearchAgent(holder(core, st), horizon=0)
    assert (to_end.worlds, to_end.more_worlds, to_end.z) == (4, 12, 1.5)
    for bad in (-1, 1.5, True, "4"):
        with pytest.raises(ValueError, match="horizon"):
            SearchAgent(holder(core, st), horizon=bad)
    scenario = Core(load(ROOT / "configs" / "annihilation.yaml"))
    sst = scenario.init(np.array([0]))
    assert SearchAgent(holder(scenario, sst)).horizon == 0  # the estimate knows only the base game
    with pytest.raises(ValueError, match="only the base game"):
        SearchAgent(holder(scenario, sst), horizon=2)


def test_fit_value_writes_a_network_and_its_calibration(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from training.fit_value import main

    out = tmp_path / "net.npz"
    assert main(["--games", "40", "--settings", "tiny", "--epochs", "1", "--hidden", "8", "--out", str(out)]) == 0
    net = ValueNet(out)
    assert [w.shape for pair in net.layers for w in pair] == [(2 * NF, 8), (8,), (8, 8), (8,), (8, 1), (1,)]
    with np.load(out) as data:
        report = json.loads(str(data["report"]))
    assert report["games"] == 40 and list(report["calibration"]) == ["tiny"]
    assert report["heuristic_weights"]["time_w"] == 0.7
    with pytest.raises(SystemExit):
        main(["--games", "5", "--out", str(out)])


def test_a_file_that_is_not_a_value_network_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    np.savez(bad, w0=np.zeros((3, 2)), b0=np.zeros(2))
    with pytest.raises(ValueError, match="not a value network"):
        ValueNet(bad)
