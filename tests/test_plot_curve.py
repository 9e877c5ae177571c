"""training/plot_curve.py draws a run's learning curve from the files train_ppo.py writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _fake_run(run: Path) -> None:
    (run / "tb").mkdir(parents=True)
    (run / "config.yaml").write_text("seed: 0\n")
    (run / "eval.jsonl").write_text("".join(json.dumps({"step": s, "escaped": e, "success": m}) + "\n"
                                            for s, e, m in ((1000, 0.5, 0.1), (2000, 0.75, 0.25))))
    (run / "tb" / "progress.csv").write_text("time/total_timesteps,rollout/ep_escaped_mean,rollout/medal_rate,"
                                             "rollout/ep_rew_mean\n512,0.25,0.0,0.1\n1024,0.5,0.125,0.3\n")
    (run / "bc.json").write_text(json.dumps({"teacher_escaped": 1.5, "teacher_success": 0.5}))


def test_plot_curve_reads_a_run_and_writes_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from training.plot_curve import read_run

    run = tmp_path / "run"
    _fake_run(run)
    curves = read_run(run)
    assert [e["escaped"] for e in curves["evals"]] == [0.5, 0.75]
    assert curves["train"] == [(512.0, 0.25, 0.0, 0.1), (1024.0, 0.5, 0.125, 0.3)]
    out = tmp_path / "curve.png"
    done = subprocess.run([sys.executable, "-m", "training.plot_curve", str(run), "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == f"wrote {out}"
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_curve_refuses_a_directory_that_is_not_a_run(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "training.plot_curve", str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2 and "not a train_ppo.py, ppo.py or train_rllib.py run directory" in done.stderr


def test_plot_curve_reads_an_rllib_run(tmp_path: Path) -> None:
    from training.plot_curve import read_run

    run = tmp_path / "rllib"
    run.mkdir()
    (run / "config.yaml").write_text("seed: 0\n")
    (run / "progress.jsonl").write_text("".join(json.dumps(
        {"iteration": i, "env_steps": 4000 * i, "episode_return_mean": r, "escaped_mean": e, "medal_rate": m}) + "\n"
        for i, r, e, m in ((1, 0.06, 0.16, 0.0), (2, 0.5, 0.6, 0.1))))
    assert read_run(run)["train"] == [(4000.0, 0.16, 0.0, 0.06), (8000.0, 0.6, 0.1, 0.5)]


def test_plot_curve_against_wall_clock_for_a_native_run(tmp_path: Path) -> None:
    """--x seconds: a training/ppo.py run's iterations and evaluations drawn at the seconds they happened (a BC
    stage's bc.json has the teacher's cavers out only); a run of another trainer is refused, naming it."""
    pytest.importorskip("matplotlib")
    from training.plot_curve import read_run

    run = tmp_path / "native"
    run.mkdir()
    (run / "config.yaml").write_text("seed: 0\n")
    (run / "progress.jsonl").write_text("".join(json.dumps(
        {"step": s, "seconds": t, "env_steps_per_s": 100.0, "return_mean": r, "escaped_mean": e, "medal_rate": m})
        + "\n" for s, t, r, e, m in ((8192, 40.5, 0.1, 0.9, 0.05), (16384, 61.0, 0.2, 1.1, 0.25))))
    (run / "eval.jsonl").write_text(json.dumps({"step": 0, "seconds": 30.0, "escaped_mean": 1.45,
                                                "share_defeat": 0.665}) + "\n")
    (run / "bc.json").write_text(json.dumps({"teacher_escaped": 3.0}))
    curves = read_run(run, "seconds")
    assert curves["train"] == [(40.5, 0.9, 0.05, 0.1), (61.0, 1.1, 0.25, 0.2)]
    assert [(e["step"], e["escaped"]) for e in curves["evals"]] == [(30.0, 1.45)]
    out = tmp_path / "wall.png"
    done = subprocess.run([sys.executable, "-m", "training.plot_curve", str(run), "--x", "seconds", "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == f"wrote {out}" and out.read_bytes()[:4] == b"\x89PNG"
    sb3 = tmp_path / "sb3"
    _fake_run(sb3)
    refused = subprocess.run([sys.executable, "-m", "training.plot_curve", str(sb3), "--x", "seconds"], cwd=ROOT,
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "--x seconds needs a training/ppo.py run" in refused.stderr
