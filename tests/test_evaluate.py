"""training/evaluate.py: seeded, batch-invariant evaluation; illegal actions counted; reports and charts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.random_agent import RandomAgent
from subterra_env.config import GameConfig
from training.evaluate import EvalError, cross_play, evaluate_team, main, parse_team

ROOT = Path(__file__).resolve().parents[1]

# A six-tile cave with the exit among the last two: random play sometimes escapes (bronze and better).
SHORT = GameConfig(tiles={"normal": {"4": 4, "T": 2}}, cave_in_numbers=(), exit_in_last=2)
SHORT_YAML = "tiles:\n  normal: {'4': 4, T: 2}\ncave_in_numbers: []\nexit_in_last: 2\n"


def per_game(r):
    return r.game_seeds, r.game_results, r.game_escaped, r.game_rounds, r.game_status


def test_random_team_is_batch_invariant():
    a = evaluate_team(SHORT, "random", num_games=50, seed=3, batch=7)
    b = evaluate_team(SHORT, "random", num_games=50, seed=3, batch=50)
    for x, y in zip(per_game(a), per_game(b)):
        np.testing.assert_array_equal(x, y)
    assert a.counts == b.counts and a.escaped_mean == b.escaped_mean and a.decisions == b.decisions
    assert a.game_seeds.tolist() == list(range(3, 53))
    assert sum(a.counts.values()) == 50 and abs(sum(a.rates.values()) - 1) < 1e-9
    assert a.illegal == 0 and a.truncated == 0
    assert a.counts["defeat"] < 50 and a.escaped_mean > 0  # the short cave is winnable by chance
    assert a.escaped_ci95 == pytest.approx(1.96 * a.game_escaped.std(ddof=1) / np.sqrt(50))
    # another seed range gives other games
    c = evaluate_team(SHORT, "random", num_games=50, seed=4, batch=50)
    assert not np.array_equal(c.game_escaped, a.game_escaped)


def test_random_team_never_escapes_the_full_game():
    r = evaluate_team(GameConfig(), "random", num_games=60, seed=0, batch=30)
    assert r.counts == {"gold": 0, "silver": 0, "bronze": 0, "defeat": 60}  # measured: 0 of 200 escape
    assert r.escaped_mean == 0.0 and r.escaped_ci95 == 0.0
    assert r.truncated == 0 and r.illegal == 0
    assert 5 < r.rounds_mean < 30 and r.decisions > 60 * 20
    d = r.to_dict()
    assert d["games"]["seed"][:3] == [0, 1, 2] and d["games"]["result"][0] == "defeat"
    json.dumps(d)


class IllegalAgent:
    """Answers the first illegal action of each row (or an out-of-range id)."""

    needs_observation = False

    def __init__(self, out_of_range: bool = False):
        self.out_of_range = out_of_range

    def act(self, observation, action_mask):
        raise NotImplementedError

    def act_batch(self, observations, action_masks, games=None):
        if self.out_of_range:
            return np.full(len(action_masks), 999)
        return np.argmin(action_masks, axis=1)


def test_illegal_actions_are_counted_not_fixed():
    r = evaluate_team(SHORT, [RandomAgent(0), IllegalAgent()], num_games=12, seed=0, batch=5)
    assert r.illegal == 12 and len(r.illegal_actions) == 12  # seat 1 acts in every game, once, then it stops
    assert (r.game_status == 2).all() and r.counts["defeat"] == 12
    first = r.illegal_actions[0]
    assert first["seat"] == 1 and first["agent"] == "IllegalAgent" and first["action"] not in first["legal"]
    assert sorted(a["seed"] for a in r.illegal_actions) == list(range(12))
    r = evaluate_team(SHORT, [IllegalAgent(out_of_range=True)], num_games=3)
    assert r.illegal == 3 and r.illegal_actions[0]["action"] == 999


class ObservingAgent:
    """Reads observations (radius 3) and plays the first legal action."""

    obs_radius = 3

    def __init__(self):
        self.seen = 0

    def act(self, observation, action_mask):
        raise NotImplementedError

    def act_batch(self, observations, action_masks, games=None):
        grid = observations["observation"]
        assert grid.shape[0] == len(action_masks) == len(games) and grid.shape[-2:] == (7, 7)
        if "scalars" in observations:
            assert observations["scalars"].shape[0] == len(action_masks)
        self.seen += len(action_masks)
        return np.argmax(action_masks, axis=1)


def test_agents_that_read_observations_get_them_at_their_radius():
    agent = ObservingAgent()
    r = evaluate_team(SHORT, ["random", agent], num_games=6, seed=0, batch=4, max_cycles=5)
    assert agent.seen > 0 and r.illegal == 0
    assert r.team == "random,ObservingAgent" and r.seats == ["random", "ObservingAgent"] * 2


def test_truncation_counts_as_defeat():
    r = evaluate_team(SHORT, "random", num_games=10, seed=0, max_cycles=2)
    assert r.truncated == int((r.game_status == 1).sum()) > 0
    assert (r.game_results[r.game_status == 1] == 0).all()
    assert (r.game_rounds[r.game_status == 1] == 3).all()


def test_team_specs_parse_and_bad_input_is_named(tmp_path, capsys):
    assert parse_team("random,heuristic") == ["random", "heuristic"]
    ckpt = tmp_path / "a.zip"
    ckpt.write_bytes(b"")
    assert parse_team(f"policy:{ckpt},heuristic,heuristic,heuristic")[0] == f"policy:{ckpt}"
    with pytest.raises(EvalError, match="missing.zip"):
        parse_team("policy:nowhere/missing.zip,heuristic")
    with pytest.raises(EvalError, match="'bogus'"):
        parse_team("random,bogus")
    with pytest.raises(EvalError, match="5 entries but the game has 4 seats"):
        evaluate_team(SHORT, "random,random,random,random,random", num_games=1)
    with pytest.raises(EvalError, match="config file not found: 'no/such.yaml'"):
        evaluate_team("no/such.yaml", "random", num_games=1)
    for argv, needle in ((["--team", "policy:nowhere/missing.zip"], "missing.zip"),
                         (["--team", "randomm"], "randomm"),
                         (["--config", "no/such.yaml"], "no/such.yaml")):
        with pytest.raises(SystemExit) as e:
            main(argv + ["--out", str(tmp_path / "x")])
        assert e.value.code == 2 and needle in capsys.readouterr().err


def test_cli_writes_json_markdown_and_png(tmp_path, capsys):
    cfg = tmp_path / "short.yaml"
    cfg.write_text(SHORT_YAML)
    out = tmp_path / "eval"
    try:
        import matplotlib  # noqa: F401  (the train extra)
        plots = True
    except ImportError:
        plots = False
    rc = main(["--config", str(cfg), "--team", "random", "--team", "random,random", "--games", "20",
               "--batch", "8", "--out", str(out), "--no-progress", "--cross-play", "random", "random",
               "--cross-games", "6"] + ([] if plots else ["--no-plots"]))
    assert rc == 0
    printed = capsys.readouterr().out
    assert "escaped (95% CI)" in printed and "random,random" in printed and "Cross-play" in printed
    data = json.loads((out / "results.json").read_text())
    rows = data["results"]
    assert [r["team"] for r in rows] == ["random", "random,random"]
    assert rows[0]["settings"] == "short" and rows[0]["num_games"] == 20 and len(rows[0]["games"]["seed"]) == 20
    assert data["meta"]["configs"]["short"]["exit_in_last"] == 2
    same = evaluate_team(SHORT, "random", num_games=20)
    assert rows[0]["games"]["escaped"] == same.game_escaped.tolist()
    md = (out / "results.md").read_text()
    assert "| setting | team | games | gold |" in md and "| short | random,random | 20 |" in md
    cp = json.loads((out / "crossplay.json").read_text())["crossplay"][0]
    assert np.array(cp["escaped"]).shape == (2, 2) and cp["labels"] == ["0:random", "1:random"]
    assert "row \\ column" in (out / "crossplay.md").read_text()
    if not plots:
        pytest.skip("matplotlib not installed (pip install -e .[train]): PNG charts not checked")
    from PIL import Image

    for name in ("medals.png", "crossplay.png"):
        path = out / name
        assert path.stat().st_size > 0
        with Image.open(path) as im:
            assert im.format == "PNG" and im.size[0] > 300 and im.size[1] > 200


def test_cross_play_matrix_with_built_agents():
    cp = cross_play(SHORT, [RandomAgent(0), RandomAgent(1)], num_games=8, seed=0)
    assert cp.matrix().shape == (2, 2) and cp.labels == ["0:RandomAgent", "1:RandomAgent"]
    assert cp.results[0][1].team == "RandomAgent,RandomAgent" and cp.results[1][1].team == "RandomAgent"
    assert cp.matrix("illegal").sum() == 0
    json.dumps(cp.to_dict())


def test_heuristic_team_is_batch_invariant():
    pytest.importorskip("agents.heuristic", reason="agents.heuristic not written yet")
    a = evaluate_team(SHORT, "heuristic", num_games=12, seed=0, batch=5)
    b = evaluate_team(SHORT, "heuristic", num_games=12, seed=0, batch=12)
    for x, y in zip(per_game(a), per_game(b)):
        np.testing.assert_array_equal(x, y)
    assert a.illegal == 0
    mixed = evaluate_team(SHORT, "heuristic,random", num_games=12, seed=0, batch=5)
    assert mixed.illegal == 0 and mixed.seats == ["heuristic", "random"] * 2


class FakePolicy:
    """Stands in for agents.policy_agent.PolicyAgent: records loads, checks the observation radius."""

    loads: list[str] = []
    obs_radius = 2

    def __init__(self, path, deterministic=True, seed=0):
        FakePolicy.loads.append(str(path))

    def act(self, observation, action_mask):
        raise NotImplementedError

    def act_batch(self, observations, action_masks, games=None):
        assert observations["observation"].shape[-2:] == (5, 5)
        return np.argmax(action_masks, axis=1)


def test_policy_entries_load_once_and_see_their_radius(tmp_path, monkeypatch, capsys):
    import types

    monkeypatch.setitem(sys.modules, "agents.policy_agent",
                        types.SimpleNamespace(PolicyAgent=FakePolicy, load_policy=FakePolicy))
    FakePolicy.loads = []
    a, b = tmp_path / "a.zip", tmp_path / "b.zip"
    a.write_bytes(b"")
    b.write_bytes(b"")
    r = evaluate_team(SHORT, f"policy:{a},random", num_games=5, seed=0, max_cycles=4)
    assert r.team == "policy:a,random" and r.seats == ["policy:a", "random"] * 2 and r.illegal == 0
    cfg = tmp_path / "short.yaml"
    cfg.write_text(SHORT_YAML)
    rc = main(["--config", str(cfg), "--cross-play", str(a), f"policy:{b}", "--games", "4", "--max-cycles", "3",
               "--out", str(tmp_path / "cp"), "--no-progress", "--no-plots"])
    assert rc == 0 and "| policy:a |" in capsys.readouterr().out
    assert FakePolicy.loads == [str(a), str(a), str(b)]  # once for the team above, once per path in cross-play
    cp = json.loads((tmp_path / "cp" / "crossplay.json").read_text())["crossplay"][0]
    assert cp["labels"] == ["policy:a", "policy:b"] and cp["cells"][0][1]["team"] == "policy:a,policy:b"
    assert not (tmp_path / "cp" / "results.json").exists()  # cross-play only: no team rows


def test_losses_tally_knockouts_by_cause_from_the_event_log(tmp_path):
    # 20 small-cave games of the heuristic team, seeds 0..19: their event logs hold 15 knock-outs (7 horror,
    # 6 cave-in, 1 rough terrain, 1 gas) and 24 cavers devoured, 4 of them unconscious; batch 7 splits them unevenly
    base = evaluate_team(ROOT / "configs" / "small.yaml", "heuristic", 20, seed=0, batch=20)
    got = evaluate_team(ROOT / "configs" / "small.yaml", "heuristic", 20, seed=0, batch=7, losses=True)
    assert base.losses is None and got.game_escaped.tolist() == base.game_escaped.tolist()  # the same games
    lo = got.losses
    assert {k: round(v * 20) for k, v in lo["knockouts_by_cause"].items() if v} == \
        {"R-HOR-5": 7, "R-HZ-4": 6, "R-TILE-9": 1, "R-HZ-3": 1}
    assert round(lo["knockouts"] * 20) == 15 and list(lo["knockouts_by_cause"])[:3] == ["R-HOR-5", "R-HZ-4", "R-TILE-9"]
    assert round(lo["devoured"] * 20) == 24 and round(lo["devoured_unconscious"] * 20) == 4
    assert all(lo["knockouts_exit_hidden_by_cause"][c] <= lo["knockouts_by_cause"][c] for c in lo["knockouts_by_cause"])
    # the 7 horror knock-outs: 3 horrors moving onto their closest victim in the horror phase, 3 onto a caver they
    # were not hunting, 1 spawned by a horror card onto a caver
    assert {k: round(v * 20) for k, v in lo["horror_knockouts_by_way"].items()} == \
        {"phase, hunted": 3, "phase, bystander": 3, "card, spawned": 1}
    out = tmp_path / "eval"
    assert main(["--config", str(ROOT / "configs" / "small.yaml"), "--team", "heuristic", "--games", "20",
                 "--batch", "7", "--losses", "--no-plots", "--no-progress", "--out", str(out)]) == 0
    md = (out / "losses.md").read_text()
    assert "| small | heuristic | 0.75 | 1.20 (0.20) | 0.35 (0.05) / 0.65 |" in md
    assert "| small | heuristic | 0.15 | 0.15 | 0.05 |" in md  # phase hunted, phase bystander, card spawned
    assert json.loads((out / "results.json").read_text())["results"][0]["losses"] == lo


def test_loss_tally_counts_events_literally():
    from subterra_env.events import Event
    from subterra_env import ACTION_NAMES
    from training.eval_losses import LossTally, losses_markdown

    t = LossTally(2)
    hp = np.array([0, 2, 3, 1])
    t.add([Event("damage", 1, 4, 2, "R-HZ-3", 0), Event("damage", 2, 4, 1, "R-HZ-1", 2),
           Event("devoured", 0, 5, 0, "R-HZ-7", 0), Event("devoured", 3, 6, 0, "R-HZ-7", 0)], True, hp)
    t.add([Event("damage", 3, 9, 3, "R-HZ-4", 0)], False, hp)
    # a horror card (card 4: "horror"), then a horror hunting seat 2 moving onto seat 1's tile 7; seat 0 walking into
    # a horror's tile 8 in its turn
    t.add([Event("card", -1, -1, 4, "", 0), Event("horror_move", 2, 7, 6, "R-HOR-3", 0),
           Event("damage", 1, 7, 2, "R-HOR-5", 0)], False, hp)
    t.add([Event("move", 0, 8, 3, "R-ACT-16", 0), Event("damage", 0, 8, 1, "R-HOR-5", 0)], False, hp,
          ACTION_NAMES.index("move E"), False)
    # seat 3 stepping into a horror's tile 2 as the one legal first step of a Run
    t.add([Event("move", 3, 2, 3, "R-ACT-16", 0), Event("damage", 3, 2, 1, "R-HOR-5", 0)], False, hp,
          ACTION_NAMES.index("run step N"), True)
    # seat 2 healed (R-ACT-9) while lying in a horror's tile 5 falls again
    t.add([Event("heal", 2, 5, 1, "R-ACT-9", 1), Event("damage", 2, 5, 1, "R-HOR-5", 0)], False, hp)
    assert t.summary() == {"games": 2, "knockouts": 3.0,
                           "knockouts_by_cause": {"R-HOR-5": 2.0, "R-HZ-3": 0.5, "R-HZ-4": 0.5, "R-HZ-1": 0.0},
                           "knockouts_exit_hidden_by_cause": {"R-HOR-5": 0.0, "R-HZ-3": 0.5, "R-HZ-4": 0.0,
                                                              "R-HZ-1": 0.0},
                           "health_lost_by_cause": {"R-HOR-5": 2.5, "R-HZ-3": 1.0, "R-HZ-4": 1.5, "R-HZ-1": 0.5},
                           "horror_knockouts_by_way": {"turn, entered": 1.0, "card, bystander": 0.5,
                                                       "turn, healed": 0.5},
                           "horror_entries_by_action": {"move": 0.5, "run step, only legal": 0.5},
                           "devoured": 1.0, "devoured_unconscious": 0.5}
    md = losses_markdown([{"settings": "small", "team": "t", "losses": t.summary()}])
    assert "| settings | team | move | run step, only legal |" in md and "| small | t | 0.500 | 0.500 |" in md


def test_help_names_every_team_entry():
    """Issue 40: --help omitted search, search:WORLDS and ceiling, which parse_team accepts."""
    from training.evaluate import build_parser

    text = build_parser().format_help()
    for entry in ("random", "heuristic", "search", "search:WORLDS", "ceiling", "policy:PATH", "rllib:PATH",
                  "torchrl:PATH"):
        assert f"``{entry}``" in text, entry  # its paragraph in the epilog
    team_help = " ".join(text[text.index("\n  --team SPEC"):text.index("\n  --games GAMES")].split())
    assert "random | heuristic | search | search:WORLDS | ceiling | policy:PATH | rllib:PATH | torchrl:PATH" in team_help
