"""``training/best_of_seeds.py`` (`make run`): one config trained on several seeds at once, one process a seed, the
team of the seed with the best own evaluation kept; bad settings refused before any work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

pytest.importorskip("torch", reason="the train extra: pip install -e '.[train]'")

from training import best_of_seeds

ROOT = Path(__file__).resolve().parents[1]
TEST_CONFIG = str(ROOT / "configs" / "train" / "ppo_test.yaml")  # 2 iterations of 2,048 decisions, 16 eval games


def test_two_seeds_train_at_once_and_the_best_own_evaluation_is_the_team(tmp_path: Path, capsys) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "stale.txt").write_text("an earlier run's file")
    code = best_of_seeds.main(["--config", TEST_CONFIG, "--run-dir", str(run), "--seeds", "3", "5",
                               "--torch-threads", "1", "--set", "width=16", "--no-progress", "--overwrite"])
    assert code == 0, capsys.readouterr()
    assert not (run / "stale.txt").exists()  # --overwrite replaced the directory
    record = json.loads((run / "seeds.json").read_text())
    assert [s["seed"] for s in record["seeds"]] == [3, 5] and record["settings"] == ["width=16"]
    for s in record["seeds"]:
        settings = yaml.safe_load((run / f"seed-{s['seed']}" / "config.yaml").read_text())
        assert (settings["seed"], settings["width"], settings["torch_threads"]) == (s["seed"], 16, 1)
        assert (s["env_steps"], s["eval_games"], s["eval_seed"]) == (4096, 16, 1_000_000)
        assert s["best"] >= s["final"]
    chosen = best_of_seeds.choose(record["seeds"])
    assert record["chosen"] == chosen["seed"]
    for name in ("best.pt", "best.onnx"):
        assert (run / name).read_bytes() == (run / f"seed-{chosen['seed']}" / name).read_bytes()
    assert f"the team: seed {chosen['seed']}'s best.pt" in capsys.readouterr().out


def test_the_highest_best_evaluation_wins_and_a_tie_goes_to_the_lower_seed() -> None:
    seeds = [{"seed": 4, "best": 3.5}, {"seed": 1, "best": 3.75}, {"seed": 0, "best": 3.5}, {"seed": 2, "best": 3.75}]
    assert best_of_seeds.choose(seeds)["seed"] == 1
    assert best_of_seeds.choose([{"seed": 7, "best": 3.25}, {"seed": 6, "best": 3.25}])["seed"] == 6


@pytest.mark.parametrize("argv, named", [
    (["--set", "seed=3"], "seed is set per run by this script"),
    (["--set", "torch_threads=2"], "torch_threads is set per run"),
    (["--seeds", "1", "1"], "--seeds 1 1: a seed twice"),
    (["--set", "widht=16"], "widht"),
    (["--set", "lr=-1"], "lr"),
    (["--torch-threads", "-1"], "--torch-threads -1"),
])
def test_bad_settings_are_refused_naming_them_before_any_run(argv: list[str], named: str, tmp_path: Path,
                                                              capsys) -> None:
    run = tmp_path / "run"
    assert best_of_seeds.main(["--config", TEST_CONFIG, "--run-dir", str(run), "--no-progress", *argv]) == 2
    assert named in capsys.readouterr().err
    assert not run.exists()


def test_an_existing_run_directory_needs_overwrite(tmp_path: Path, capsys) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "seeds.json").write_text("{}")
    assert best_of_seeds.main(["--config", TEST_CONFIG, "--run-dir", str(tmp_path / "run"), "--no-progress"]) == 2
    assert "exists and is not empty: --overwrite" in capsys.readouterr().err
    assert (tmp_path / "run" / "seeds.json").read_text() == "{}"


def test_read_jsonl_skips_blank_lines_and_leaves_out_a_record_still_being_written(tmp_path: Path) -> None:
    from training.run_files import append_jsonl, read_jsonl

    path = tmp_path / "eval.jsonl"
    append_jsonl(path, {"step": 1, "escaped_mean": 0.5})
    append_jsonl(path, {"step": 2, "escaped_mean": 0.75})
    assert best_of_seeds.last_record(path) == {"step": 2, "escaped_mean": 0.75}
    with path.open("a") as f:
        f.write('\n{"step": 3, "escaped_me')  # a blank line, then another process's append cut short
    assert read_jsonl(path) == [{"step": 1, "escaped_mean": 0.5}, {"step": 2, "escaped_mean": 0.75}]
    assert best_of_seeds.last_record(tmp_path / "none.jsonl") is None
