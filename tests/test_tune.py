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
