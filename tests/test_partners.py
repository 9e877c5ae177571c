"""training/evaluate.py partner matrix: each bot alone and with each partner kind on k seats, paired seeds."""

from __future__ import annotations

import itertools
import json
from math import comb
from pathlib import Path

import numpy as np
import pytest

from agents.random_agent import RandomAgent
from training.eval_agents import as_entry
from training.evaluate import (EvalError, EvalResult, PartnerMatrix, check_partner_seats, evaluate_team,
                               main, matrix_labels, partner_matrix, row_labels, seat_patterns, split_games)

ROOT = Path(__file__).resolve().parents[1]

TINY = ROOT / "configs" / "tiny.yaml"  # 4 seats
GAMES, SEED = 12, 5


def per_game(r: EvalResult):
    return r.game_seeds, r.game_results, r.game_escaped, r.game_rounds, r.game_status


@pytest.fixture(scope="module")
def pm() -> PartnerMatrix:
    pytest.importorskip("agents.heuristic", reason="agents.heuristic not available")
    return partner_matrix(TINY, ["random", "heuristic"], num_games=GAMES, seed=SEED)


def test_seat_patterns_cover_every_subset_and_games_split_evenly():
    for n in (4, 5, 6):
        for k in range(1, n):
            pats = seat_patterns(n, k)
            assert len(pats) == comb(n, k) == len(set(pats))
            assert set(pats) == set(itertools.combinations(range(n), k)) and pats == sorted(pats)
    assert seat_patterns(4, 1) == [(0,), (1,), (2,), (3,)]
    assert split_games(12, 4) == [3, 3, 3, 3]
    assert split_games(100, 6) == [17, 17, 17, 17, 16, 16]
    assert split_games(7, 7) == [1] * 7 and sum(split_games(1001, 20)) == 1001


def test_equal_specs_in_a_team_are_one_agent():
    a = evaluate_team(TINY, "random", num_games=10, seed=2, batch=4)
    b = evaluate_team(TINY, "random,random,random,random", num_games=10, seed=2, batch=10)
    for x, y in zip(per_game(a), per_game(b)):
        np.testing.assert_array_equal(x, y)
    assert b.seats == ["random"] * 4 and b.team == "random,random,random,random"


def test_matrix_layout_and_alone_rows(pm):
    assert pm.bots == pm.partners == ["random", "heuristic"] and pm.partner_seats == [1, 2, 3]
    assert pm.columns() == ["alone", "random ×1", "random ×2", "random ×3",
                            "heuristic ×1", "heuristic ×2", "heuristic ×3"]
    assert pm.matrix().shape == (2, 7) and pm.num_seats == 4 and "exit_in_last=3" in pm.settings
    for bot in pm.bots:
        alone = pm.cell(bot).result
        same = evaluate_team(TINY, bot, num_games=GAMES, seed=SEED)
        for x, y in zip(per_game(alone), per_game(same)):
            np.testing.assert_array_equal(x, y)
    assert pm.matrix("illegal").sum() == 0 and pm.matrix("truncated").sum() == 0
    # measured on these 12 games: random 0.17, heuristic 3.92 alone; random partners pull heuristic down
    assert pm.cell("random").result.escaped_mean < 1 < 2 < pm.cell("heuristic").result.escaped_mean
    assert pm.cell("heuristic", "random", 3).result.escaped_mean < pm.cell("heuristic").result.escaped_mean


def test_a_bot_with_itself_as_partner_is_the_bot_alone(pm):
    for bot in pm.bots:
        alone = pm.cell(bot).result
        for k in (1, 2, 3):
            cell = pm.cell(bot, bot, k).result
            for x, y in zip(per_game(alone), per_game(cell)):
                np.testing.assert_array_equal(x, y)
            assert cell.escaped_mean == alone.escaped_mean and cell.counts == alone.counts


def test_cells_spread_the_same_seeds_over_every_seat_choice(pm):
    for i, bot in enumerate(pm.bots):
        for j, partner in enumerate(pm.partners):
            for k in (1, 2, 3):
                cell = pm.cell(bot, partner, k)
                assert cell is pm.rows[i][1 + 3 * j + k - 1] and cell.column == f"{partner} ×{k}"
                r = cell.result
                assert r.game_seeds.tolist() == list(range(SEED, SEED + GAMES)) and r.num_games == GAMES
                assert [tuple(p["seats"]) for p in cell.patterns] == list(itertools.combinations(range(4), k))
                split = split_games(GAMES, comb(4, k))
                assert [p["games"] for p in cell.patterns] == split
                assert [p["seed"] for p in cell.patterns] == [SEED + sum(split[:i]) for i in range(len(split))]
                for p in cell.patterns:
                    assert p["team"].split(",") == [partner if s in p["seats"] else bot for s in range(4)]
                # pooled over games, not a mean of pattern means (patterns differ in size for k = 2)
                weighted = sum(p["escaped_mean"] * p["games"] for p in cell.patterns) / GAMES
                assert r.escaped_mean == pytest.approx(weighted)
                assert r.escaped_ci95 == pytest.approx(1.96 * r.game_escaped.std(ddof=1) / np.sqrt(GAMES))
                assert sum(r.counts.values()) == GAMES and sum(r.rates.values()) == pytest.approx(1)
    # a pattern's games are those of its team spec played on its seeds
    cell = pm.cell("heuristic", "random", 2)
    p = cell.patterns[4]  # seats (1, 3): 'heuristic,random,heuristic,random' on seeds 13, 14
    assert p["seats"] == [1, 3] and p["games"] == 2 and p["seed"] == SEED + 8
    r = evaluate_team(TINY, "heuristic,random,heuristic,random", num_games=2, seed=p["seed"])
    assert cell.result.game_escaped[8:10].tolist() == r.game_escaped.tolist()


def test_json_round_trip(pm):
    d = pm.to_dict()
    back = PartnerMatrix.from_dict(json.loads(json.dumps(d)))
    assert back.to_dict() == d
    np.testing.assert_array_equal(back.matrix(), pm.matrix())
    np.testing.assert_array_equal(back.matrix("gold"), pm.matrix("gold"))
    a, b = pm.cell("heuristic", "random", 1).result, back.cell("heuristic", "random", 1).result
    for x, y in zip(per_game(a), per_game(b)):
        np.testing.assert_array_equal(x, y)
        assert x.dtype == y.dtype
    assert d["columns"][0] == "alone" and len(d["escaped"]) == 2 and len(d["escaped"][0]) == 7
    assert d["escaped"][1][0] == pm.cell("heuristic").result.escaped_mean
    assert d["rows"][0][0]["partner"] is None and d["rows"][0][0]["k"] == 0


def test_partners_and_seats_can_differ_from_the_bots(pm):
    small = partner_matrix(TINY, ["heuristic"], partners=["random"], partner_seats=[2], num_games=GAMES, seed=SEED)
    assert small.columns() == ["alone", "random ×2"] and small.matrix().shape == (1, 2)
    # the same cell as in the full matrix: cells do not depend on what else is in it
    np.testing.assert_array_equal(small.cell("heuristic", "random", 2).result.game_escaped,
                                  pm.cell("heuristic", "random", 2).result.game_escaped)
    built = partner_matrix(TINY, [RandomAgent(0), RandomAgent(1)], partner_seats=[3], num_games=4, seed=0)
    assert built.bots == ["0:RandomAgent", "1:RandomAgent"] and built.matrix("illegal").sum() == 0


def test_labels_and_entries():
    assert matrix_labels(["policy:runs/a/final.zip", "policy:runs/b/final.zip", "random", "random"]) == \
        ["policy:a/final", "policy:b/final", "random", "random"]
    assert matrix_labels(["policy:x/team.zip", "heuristic"]) == ["policy:team", "heuristic"]
    assert as_entry("random") == "random" and as_entry("heuristic") == "heuristic"
    assert as_entry("search:depth=2") == "search:depth=2"  # a 'kind:ARG' spec is never taken for a path
    assert as_entry("bogus") == "bogus" and as_entry("runs/x.zip") == "policy:runs/x.zip"
    assert check_partner_seats(None, 4) == [1, 2, 3] and check_partner_seats([3, 1], 5) == [1, 3]


def test_row_labels_tell_two_runs_final_checkpoints_apart(tmp_path: Path) -> None:
    """evaluate's rows name each team once, so that compare.py can pick two runs' final.pt out of one file."""
    for run in ("a", "b", "c"):
        (tmp_path / run).mkdir()
        (tmp_path / run / ("team.pt" if run == "c" else "final.pt")).write_bytes(b"")
    teams = [f"policy:{tmp_path}/a/final.pt", f"policy:{tmp_path}/b/final.pt,heuristic", "heuristic",
             f"policy:{tmp_path}/c/team.pt"]
    assert row_labels(teams) == ["policy:a/final", "policy:b/final,heuristic", "heuristic", "policy:team"]


def test_bad_partner_input_is_named(tmp_path, capsys):
    cases = [(dict(partner_seats=[4]), "k=4: the game has 4 seats"),
             (dict(partner_seats=[0]), "k=0"),
             (dict(partner_seats=[1, 1]), "repeated"),
             (dict(bots=["random", "bogus"]), "'bogus'"),
             (dict(bots=["random,heuristic"]), "comma list"),
             (dict(bots=["random", "random"]), "twice"),
             (dict(partners=["policy:nowhere/missing.zip"]), "missing.zip"),
             (dict(num_games=5, partner_seats=[2]), "6 for k=2")]
    for kw, needle in cases:
        args = dict(bots=["random"], num_games=6, partner_seats=[1])
        args.update(kw)
        with pytest.raises(EvalError, match=needle):
            partner_matrix(TINY, **args)
    out = str(tmp_path / "x")
    for argv, needle in ((["--partner-matrix", "random", "--partner-seats", "4"], "4 seats"),
                         (["--partner-matrix", "random", "bogus"], "'bogus'"),
                         (["--partner-matrix", "random", "--partners", "policy:nowhere/missing.zip"], "missing.zip"),
                         (["--partners", "random"], "--partners needs --partner-matrix"),
                         (["--partner-matrix", "random", "--games", "3"], "6 for k=2")):
        with pytest.raises(SystemExit) as e:
            main(["--config", str(TINY), "--out", out, "--no-progress"] + argv)
        assert e.value.code == 2 and needle in capsys.readouterr().err, argv
    assert not Path(out).exists()


def test_cli_writes_partner_json_markdown_and_png(tmp_path, capsys):
    pytest.importorskip("agents.heuristic", reason="agents.heuristic not available")
    try:
        import matplotlib  # noqa: F401  (the train extra)
        plots = True
    except ImportError:
        plots = False
    out = tmp_path / "eval"
    rc = main(["--config", str(TINY), "--team", "random", "--partner-matrix", "random", "heuristic",
               "--partner-seats", "1", "3", "--games", "8", "--out", str(out), "--no-progress"]
              + ([] if plots else ["--no-plots"]))
    assert rc == 0
    printed = capsys.readouterr().out
    assert "# Partner matrix" in printed and "escaped (95% CI)" in printed  # both reports, beside each other
    assert json.loads((out / "results.json").read_text())["results"][0]["team"] == "random"
    data = json.loads((out / "partners.json").read_text())
    m = data["partners"][0]
    assert m["settings"] == "tiny" and m["num_games"] == 8 and m["partner_seats"] == [1, 3]
    assert m["columns"] == ["alone", "random ×1", "random ×3", "heuristic ×1", "heuristic ×3"]
    assert m["specs"] == {"random": "random", "heuristic": "heuristic"}
    back = PartnerMatrix.from_dict(m)
    alone = evaluate_team(TINY, "heuristic", num_games=8)
    assert back.cell("heuristic").result.game_escaped.tolist() == alone.game_escaped.tolist()
    assert m["escaped"][1][0] == alone.escaped_mean
    md = (out / "partners.md").read_text()
    assert "| bot | alone | random ×1 | random ×3 | heuristic ×1 | heuristic ×3 |" in md
    assert f"| heuristic | {alone.escaped_mean:.2f} ± {alone.escaped_ci95:.2f} |" in md
    assert "partner Y in k seats and X in the rest" in md and "Command:" in md
    if not plots:
        pytest.skip("matplotlib not installed (pip install -e .[train]): partners.png not checked")
    from PIL import Image

    with Image.open(out / "partners.png") as im:
        assert im.format == "PNG" and im.size[0] > 600 and im.size[1] > 300
