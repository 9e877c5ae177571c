"""training/distil.py: the search's action gains as labels, and the residual policy fitted to them."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.heuristic import HeuristicAgent
from agents.policy_agent import PolicyAgent
from agents.search import SearchAgent
from subterra_env.config import load
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RUNNING
from training import bc, distil

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "agents" / "shipped" / "team.zip"


@pytest.mark.parametrize("setting", [{}, {"horizon": 0, "more_worlds": 4}], ids=["horizon", "two-stage"])
def test_search_leaves_each_actions_gain_over_the_heuristics_choice(setting: dict) -> None:
    core = Core(load(ROOT / "configs" / "tiny.yaml"))
    st = core.init(np.arange(1, 9))
    holder = SimpleNamespace(core=core, state=st)
    search, heuristic = SearchAgent(holder, seed=3, worlds=6, z=0.0, **setting), HeuristicAgent(holder)
    departed = searched = 0
    for _ in range(12):
        live = np.flatnonzero(st.result == RUNNING)
        masks = core.legal_mask(st)[live]
        chosen = search.act_batch(None, masks, games=live)
        advised = heuristic.act_batch(None, masks, games=live)
        g = search.last_gains
        assert g.shape == masks.shape
        assert np.isnan(g[~masks]).all()  # illegal actions are never valued
        for i in np.flatnonzero(masks.sum(axis=1) > 1):
            searched += 1
            assert np.isfinite(g[i, masks[i]]).all()
            assert g[i, advised[i]] == 0.0  # gains are over the heuristic's choice, in the same worlds
            if chosen[i] != advised[i]:  # z = 0: a departure takes the best action, which gains something
                departed += 1
                assert g[i, chosen[i]] == np.nanmax(g[i]) and g[i, chosen[i]] > 0
        acts = np.zeros(len(st.result), dtype=np.int64)
        acts[live] = chosen
        core.step(st, acts)
    assert searched >= 40 and departed >= 1


def test_choices_leave_the_advice_only_beyond_the_threshold() -> None:
    deltas = np.array([[0.0, 2.0, 3.5, -1.0], [0.0, 2.0, 3.5, -1.0], [5.0, 0.0, 1.0, 9.0]])
    masks = np.array([[True, True, True, True], [True, True, False, True], [True, True, True, False]])
    advice = np.array([[1, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]], dtype=np.float64)
    # advice_scale 3: row 0 takes action 2 (3.5 > 3), row 1 keeps the advice (2 < 3; action 2 is illegal),
    # row 2 takes action 0 (action 3's 9 is illegal)
    assert distil.choices(deltas, masks, advice, 3.0).tolist() == [2, 0, 0]
    assert distil.choices(deltas, masks, advice, 6.0).tolist() == [0, 0, 1]


@pytest.mark.skipif(not SHIPPED.is_file(), reason="the shipped team is not in this checkout")
def test_label_then_fit_writes_policies_that_play(tmp_path: Path, capsys) -> None:
    labels = tmp_path / "labels.npz"
    assert distil.main(["label", "--set", "game.preset=configs/tiny.yaml", "--decisions", "96", "--num-envs", "8",
                        "--worlds", "2", "--seed", "4", "--out", str(labels)]) == 0
    demos = bc.load_demos(labels)
    assert len(demos) == 96 and demos.gains.shape == (96, 90)
    advised = demos.obs["advice"].argmax(axis=1)
    rows = np.flatnonzero(~np.isnan(demos.gains).all(axis=1))
    assert len(rows) > 0 and (demos.gains[rows, advised[rows]] == 0).all()
    out = tmp_path / "fit"
    assert distil.main(["fit", str(labels), "--out", str(out), "--epochs", "1", "--holdout", "0.3",
                        "--scale", "30", "--thresholds", "0.05", "0.1", "--torch-threads", "1"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["fit.json", "team-0.05.zip", "team-0.1.zip"]
    agent = PolicyAgent(out / "team-0.1.zip")
    assert float(agent.model.policy.advice_scale) == 3.0  # 30 logits a caver x 0.1 caver
    assert "wrote team-0.05.zip, team-0.1.zip and fit.json" in capsys.readouterr().out


def test_fit_refuses_labels_without_gains(tmp_path: Path) -> None:
    demos = bc.Demonstrations({"observation": np.zeros((4, 2), np.int8)}, np.ones((4, 3), bool),
                              np.zeros(4, np.int64), np.zeros(4, np.float32), np.zeros(4, bool), np.arange(4))
    demos.save(tmp_path / "plain.npz")
    with pytest.raises(SystemExit, match="carry no gains"):
        distil.main(["fit", str(tmp_path / "plain.npz"), "--out", str(tmp_path / "fit")])


@pytest.mark.parametrize("args,message", [(["--epochs", "0"], "--epochs must be at least 1"),
                                          (["--scale", "-1"], "--scale must be above 0"),
                                          (["--holdout", "1.5"], "--holdout must be in")])
def test_fit_names_an_out_of_range_setting(tmp_path: Path, capsys, args: list[str], message: str) -> None:
    with pytest.raises(SystemExit):
        distil.main(["fit", "labels.npz", "--out", str(tmp_path), *args])
    assert message in capsys.readouterr().err


def test_label_refuses_a_config_without_advice(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit):
        distil.main(["label", "--config", str(ROOT / "configs" / "train" / "tiny_test.yaml"), "--out",
                     str(tmp_path / "x.npz")])
    assert "no advice observation" in capsys.readouterr().err
