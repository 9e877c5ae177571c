"""training/tune.py at a tiny budget: two Optuna trials of the native trainer, the study saved and resumable, the
table and the best settings written as a loadable training/ppo.py config."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("optuna")
pytest.importorskip("torch")

from training import ppo, tune

ROOT = Path(__file__).resolve().parents[1]


def test_a_study_of_two_trials_then_one_more(tmp_path: Path) -> None:
    out = tmp_path / "study"
    common = ["--trials", "2", "--seconds", "0.5", "--eval-games", "4", "--out", str(out),
              "--set", "torch_threads=1", "--set", "rollout=4"]
    assert tune.main(common) == 0
    rows = [line for line in (out / "trials.md").read_text().splitlines() if line.startswith("| ") and
            line[2].isdigit()]
    assert len(rows) == 2
    best = ppo.load_args(out / "best.yaml")
    assert best.game == "tiny" and best.rollout == 4 and best.torch_threads == 1
    assert 1e-4 <= best.lr <= 5e-3 and best.width in (64, 128, 256) and best.num_games in (256, 512, 1024, 2048)
    assert tune.main([*common[:1], "1", *common[2:]]) == 0  # the same --out resumes the study: one trial more
    rows = [line for line in (out / "trials.md").read_text().splitlines() if line.startswith("| ") and
            line[2].isdigit()]
    assert len(rows) == 3
    assert sorted(p.name for p in (out / "trials").iterdir()) == ["trial_000", "trial_001", "trial_002"]


def test_a_bad_fixed_setting_is_named_before_any_trial(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        tune.main(["--set", "lrr=1", "--out", str(tmp_path / "x")])
    assert stop.value.code == 2
    assert "lrr" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_the_space_is_changed_by_name_and_bad_ranges_are_named(tmp_path: Path, capsys) -> None:
    space = tune.space_of(["num_games=1024,8192", "lr=0.0002:0.002", "clip=0:0.2"])
    assert space["num_games"] == ("choice", (1024, 8192))
    assert space["lr"] == ("log", (0.0002, 0.002)) and space["clip"] == ("uniform", (0.0, 0.2))
    assert space["width"] == tune.SPACE["width"]
    for item, words in [("gamma=0.9:0.99", "'gamma' is not drawn"), ("width=64,wide", "expected width=A,B,C"),
                        ("lr=0.01", "expected lr=LOW:HIGH"), ("lr=0:0.01", "LOW must be below HIGH and above 0"),
                        ("minibatches=0,2", "every choice must be at least 1")]:
        with pytest.raises(SystemExit) as stop:
            tune.main(["--space", item, "--out", str(tmp_path / "x")])
        assert stop.value.code == 2
        assert f"--space {item!r}: {words}" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_an_annealed_trial_over_a_narrowed_space(tmp_path: Path) -> None:
    out = tmp_path / "study"
    assert tune.main(["--trials", "1", "--seconds", "0.5", "--eval-games", "4", "--out", str(out), "--anneal",
                      "--space", "num_games=64", "--space", "width=32", "--set", "torch_threads=1",
                      "--set", "rollout=4"]) == 0
    config = ppo.load_args(out / "trials" / "trial_000" / "config.yaml")
    assert config.anneal_lr is True and config.num_games == 64 and config.width == 32
    assert "(the learning rate annealed over them)" in (out / "trials.md").read_text()
    assert ppo.load_args(out / "best.yaml").num_games == 64
