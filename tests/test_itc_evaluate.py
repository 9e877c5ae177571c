"""In the Cave evaluation (``agents.in_the_cave.evaluate``, ``kinds``): the agent spec parser and its errors, a tiny
seeded round-robin with literal outcomes, determinism, the default pair's games, more than 2 players, and a
MaskablePPO checkpoint as the ``policy:`` kind (legal greedy moves, the observation-size check)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.in_the_cave.evaluate import main, markdown, pairs, play, play_game, round_robin, seating
from agents.in_the_cave.kinds import PolicyPlayer, RandomPlayer, SpecError, heuristic_player, parse_kind, parse_kinds
from subterra_env.in_the_cave import preset
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.actions import NUM_ACTIONS
from subterra_env.games.in_the_cave.core.game import ItcCore
from subterra_env.games.in_the_cave.observe import flat, flat_size


def _without_time(report: dict) -> dict:
    return {**report, "pairs": [{k: v for k, v in p.items() if k != "seconds"} for p in report["pairs"]]}


def test_spec_parser_kinds_labels_and_errors(tmp_path):
    r, h = parse_kind("random"), parse_kind(" heuristic ")
    assert (r.label, r.seeded, h.label, h.seeded) == ("random", True, "heuristic", False)
    assert isinstance(r.make(1), RandomPlayer) and h.make(1) is heuristic_player
    assert parse_kind("me=heuristic").label == "me" and parse_kind("me=heuristic").spec == "me=heuristic"
    assert [k.label for k in parse_kinds(["random", "heuristic", "random", "a=random", "a=heuristic"])] == [
        "random", "heuristic", "random#2", "a", "a#2"]
    with pytest.raises(SpecError, match=r"unknown agent kind 'greedy' in 'greedy': expected random, heuristic or "
                                        r"policy:PATH"):
        parse_kind("greedy")
    with pytest.raises(SpecError, match="unknown agent kind 'polcy'"):
        parse_kind("polcy:x.zip")
    with pytest.raises(SpecError, match="'policy' needs a checkpoint path"):
        parse_kind("policy")
    with pytest.raises(SpecError, match="'random' takes no argument"):
        parse_kind("random:3")
    with pytest.raises(SpecError, match="'heuristic' takes no argument"):
        parse_kind("heuristic:fast")
    missing = tmp_path / "nowhere" / "model.zip"
    with pytest.raises(FileNotFoundError, match=f"no policy checkpoint at {missing}"):
        parse_kind(f"policy:{missing}")
    (tmp_path / "junk.zip").write_text("not a zip")
    with pytest.raises(ValueError, match="is not a loadable MaskablePPO checkpoint"):
        parse_kind(f"policy:{tmp_path / 'junk.zip'}")


def test_cli_errors_name_the_problem(capsys):
    for argv, message in ((["--agents", "greedy", "random"], "unknown agent kind 'greedy'"),
                          (["--agents", "policy:/no/such/model.zip", "random"], "no policy checkpoint at"),
                          (["--agents", "random"], "one kind plays only itself"),
                          (["--games", "0"], "--games must be >= 1")):
        with pytest.raises(SystemExit):
            main(argv)
        assert message in capsys.readouterr().err


def test_tiny_round_robin_literal_outcomes_and_determinism():
    """4 seeded games a pair: the heuristic wins all 8 of its games against either random team (literal mean
    scores: the two pairs seat it differently), two random teams never finish (4 truncated, no winner)."""
    kinds = parse_kinds(["random", "heuristic", "random"])
    report = round_robin(kinds, 4, seed=0)
    assert [(p["first"], p["second"]) for p in report["pairs"]] == [
        ("random", "heuristic"), ("random", "random#2"), ("heuristic", "random#2")]
    rh, rr, hr = report["pairs"]
    assert (rh["first_wins"], rh["second_wins"], rh["truncated"]) == (0.0, 4.0, 0)
    assert (rh["first_mean_score"], rh["second_mean_score"], rh["first_eliminated"], rh["second_eliminated"]) == (
        0.0, 63.5, 4, 0)
    assert (hr["first_wins"], hr["first_mean_score"], hr["second_eliminated"]) == (4.0, 65.75, 4)
    assert hr["first_ci95"] == [0.5101, 1.0] and hr["second_ci95"] == [0.0, 0.4899]
    assert (rr["truncated"], rr["finished"], rr["first_wins"] + rr["second_wins"]) == (4, 0, 0.0)
    assert rr["first_win_rate_of_finished"] is None and rr["first_mean_score"] is None
    table = report["table"]
    assert table["heuristic"]["random"]["win_rate"] == table["heuristic"]["random#2"]["win_rate"] == 1.0
    assert table["random"]["heuristic"]["win_rate"] == 0.0 and "random" not in table["random"]
    assert _without_time(round_robin(parse_kinds(["random", "heuristic", "random"]), 4, seed=0)) == _without_time(
        report)  # deterministic: the same games again
    other = round_robin(parse_kinds(["random", "heuristic"]), 4, seed=10)
    assert other["pairs"][0]["second_mean_score"] != rh["second_mean_score"]  # the seed moves the games
    text = markdown(report)
    assert "| `heuristic` | 1.000 [0.510, 1.000] | - | 1.000 [0.510, 1.000] |" in text
    assert "| `random` | `random#2` | 0 / 4 |" in text


def test_default_pair_plays_the_historic_games():
    """``--agents heuristic random`` (the default) plays game i as ``play(core, i, i % 2)`` always did: the
    heuristic in seat i % 2, the random team seeded i + 1,000,003."""
    report = round_robin(parse_kinds(["heuristic", "random"]), 3, seed=0)
    core = ItcCore(preset("default", num_players=2, max_rounds=100))
    wins, scores = 0.0, []
    for i in range(3):
        g = play(core, i, i % 2)
        h = i % 2
        wins += 1.0 if g[L.WIN + h] and not g[L.WIN + 1 - h] else 0.5 if g[L.WIN + h] else 0.0
        scores.append(int(g[L.SCORE + h]))
    p = report["pairs"][0]
    assert (p["first_wins"], p["first_mean_score"]) == (wins, float(np.mean(scores)))
    assert (wins, scores) == (3.0, [72, 71, 68])


def test_more_players_one_seat_against_the_field():
    """3 players: each ordered pair plays (the first kind in seat i % 3, the second in the other two)."""
    kinds = parse_kinds(["random", "heuristic"])
    assert [(a.label, b.label) for a, b in pairs(kinds, 3)] == [("random", "heuristic"), ("heuristic", "random")]
    assert [(a.label, b.label) for a, b in pairs(kinds, 2, mirror=True)] == [
        ("random", "random"), ("random", "heuristic"), ("heuristic", "heuristic")]
    seat, agents = seating(kinds[0], kinds[1], 4, 4, 3)
    assert seat == 1 and agents[0] is agents[2] is heuristic_player and isinstance(agents[1], RandomPlayer)
    report = round_robin(kinds, 3, players=3, seed=0, max_rounds=60)
    rh, hr = report["pairs"]
    assert rh["fair_share"] == pytest.approx(1 / 3) and rh["players"] == 3
    assert (rh["first_wins"], rh["second_wins"], hr["first_wins"], hr["second_wins"]) == (0.0, 3.0, 3.0, 0.0)
    assert (rh["first_eliminated"], rh["second_eliminated"], hr["first_eliminated"], hr["second_eliminated"]) == (
        3, 0, 0, 5)  # the field's eliminations count seats: 5 of the 6 random teams
    assert (rh["second_mean_score"], hr["first_mean_score"]) == pytest.approx((55.3333, 66.6667), abs=1e-4)
    assert set(report["table"]["random"]) == {"heuristic"} and set(report["table"]["heuristic"]) == {"random"}


def test_cli_writes_json_and_markdown(tmp_path, capsys):
    out, md = tmp_path / "rr.json", tmp_path / "rr.md"
    report = main(["--agents", "heuristic", "random", "--games", "2", "--seed", "1", "--json", str(out),
                   "--markdown", str(md), "--no-progress"])
    assert json.loads(out.read_text()) == json.loads(json.dumps(report))
    assert md.read_text() == capsys.readouterr().out
    assert report["settings"] == {"games": 2, "players": 2, "seed": 1, "mirror": False, "max_rounds": 100}
    assert report["pairs"][0]["first_wins"] == 2.0


def _checkpoint(path, size: int = flat_size(), actions: int = NUM_ACTIONS):
    """An untrained MaskablePPO of these spaces, saved (building it needs only an env's spaces)."""
    pytest.importorskip("sb3_contrib")
    import gymnasium
    from sb3_contrib import MaskablePPO

    class Env(gymnasium.Env):
        def __init__(self):
            self.observation_space = gymnasium.spaces.Box(-1000.0, 1000.0, (size,), dtype=np.float32)
            self.action_space = gymnasium.spaces.Discrete(actions)

        def reset(self, *, seed=None, options=None):
            return np.zeros(size, np.float32), {}

        def step(self, action):
            return np.zeros(size, np.float32), 0.0, True, False, {}

    model = MaskablePPO("MlpPolicy", Env(), seed=0, device="cpu", policy_kwargs={"net_arch": [16]})
    model.save(path)
    return model


def test_policy_kind_plays_legal_greedy_moves(tmp_path):
    model = _checkpoint(tmp_path / "tiny.zip")
    kind = parse_kind(f"tiny=policy:{tmp_path / 'tiny.zip'}")
    player = kind.make(0)
    assert isinstance(player, PolicyPlayer) and player.radius == 5 and kind.make(1) is player
    core = ItcCore(preset("default", num_players=2, max_rounds=20))
    G = core.init([7])
    checked = 0
    while G[0, L.OVER] == L.RUNNING and checked < 150:  # the policy plays seat 0, the heuristic seat 1
        mask = core.masks(G)[0]
        s = int(G[0, L.ACTOR])
        a = player(G[0], core.P, s, mask) if s == 0 else heuristic_player(G[0], core.P, s, mask)
        assert mask[a]
        if s == 0:  # greedy and masked: what SB3's deterministic masked predict gives
            want, _ = model.predict(flat(G[0], core.P, 0), deterministic=True, action_masks=mask.astype(bool))
            assert a == int(want)
            checked += 1
        core.step(G, [a])
    assert checked >= 20
    g = play_game(core, 3, [player, RandomPlayer(0)])  # play_game raises on an illegal action
    assert g[L.OVER] != L.RUNNING
    report = round_robin([kind, parse_kind("random")], 2, seed=0, max_rounds=20)
    assert report["pairs"][0]["first"] == "tiny" and report["pairs"][0]["games"] == 2


def test_policy_kind_rejects_another_observation_or_action_space(tmp_path):
    _checkpoint(tmp_path / "small.zip", size=100)
    with pytest.raises(ValueError, match=r"small.zip: observation size does not match: .*\(100,\).* \(3227 at the "
                                         r"learners' radius 5\)"):
        parse_kind(f"policy:{tmp_path / 'small.zip'}")
    _checkpoint(tmp_path / "r7.zip", size=flat_size(7))  # another radius is read from the size
    assert parse_kind(f"policy:{tmp_path / 'r7.zip'}").make(0).radius == 7
    _checkpoint(tmp_path / "acts.zip", actions=5)
    with pytest.raises(ValueError, match=r"acts.zip: its action space Discrete\(5\) is not In the Cave's "
                                         rf"Discrete\({NUM_ACTIONS}\)"):
        parse_kind(f"policy:{tmp_path / 'acts.zip'}")
