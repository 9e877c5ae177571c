"""training/baselines.py end to end at a tiny budget: both critics trained, evaluated beside random on the same
seeded games, the table, the JSON and the curves written (the figures themselves come from `make baselines`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytest.importorskip("torch")
pytest.importorskip("matplotlib")
ROOT = Path(__file__).resolve().parents[1]


def test_baselines_at_a_tiny_budget(tmp_path: Path) -> None:
    out = tmp_path / "baselines"
    cmd = [sys.executable, "-m", "training.baselines", "--presets", "tiny", "--seeds", "0", "--steps", "tiny=4096",
           "--eval-games", "8", "--reference", "random", "--out", str(out), "--set", "num_games=64", "--set",
           "eval_every=2048", "--set", "eval_games=8", "--set", "width=32", "--set", "torch_threads=1"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads((out / "baselines.json").read_text())
    cells = data["cells"]
    assert [(c["preset"], c["critic"], c["seed"]) for c in cells] == [("tiny", "ippo", 0), ("tiny", "mappo", 0)]
    for cell in cells:
        assert cell["env_steps"] == 4096  # two iterations of 64 games x 32 decisions
        assert cell["games"] == 8
        assert [step for step, _ in cell["curve"]] == [2048, 4096]
        assert 0.0 <= cell["escaped_mean"] <= 4.0
    assert [r["team"] for r in data["references"]["tiny"]] == ["random"]
    table = (out / "baselines.md").read_text()
    assert "| tiny | random |" in table
    assert "| tiny | IPPO from scratch | 1 | 4,096 |" in table
    assert "| tiny | MAPPO from scratch | 1 | 4,096 |" in table
    assert (out / "curves_tiny.png").read_bytes()[:4] == b"\x89PNG"


def test_bad_steps_are_named() -> None:
    done = subprocess.run([sys.executable, "-m", "training.baselines", "--steps", "huge=5"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--steps 'huge=5'" in done.stderr


def test_bc_cells_beside_the_scratch_ones(tmp_path: Path) -> None:
    """``--bc heuristic``: each cell trained twice, from scratch and from a clone of the heuristic, told apart in the
    run directories, the JSON and the table; the BC cell's curve starts at step 0 (the cloned policy)."""
    bad = subprocess.run([sys.executable, "-m", "training.baselines", "--bc", "bogus"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and "--bc" in bad.stderr and "bc_teacher='bogus'" in bad.stderr, bad.stderr[-2000:]
    alone = subprocess.run([sys.executable, "-m", "training.baselines", "--bc-set", "anchor_kl=1"], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert alone.returncode == 2 and "--bc-set anchor_kl=1" in alone.stderr and "--bc TEACHER" in alone.stderr
    out = tmp_path / "baselines"
    cmd = [sys.executable, "-m", "training.baselines", "--presets", "tiny", "--critics", "ippo", "--seeds", "0",
           "--steps", "tiny=2048", "--eval-games", "8", "--reference", "--bc", "heuristic", "--out", str(out),
           "--set", "num_games=64", "--set", "eval_every=2048", "--set", "eval_games=8", "--set", "width=32",
           "--set", "torch_threads=1", "--set", "bc_decisions=1024", "--set", "bc_epochs=1",
           "--bc-set", "anchor_kl=1"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads((out / "baselines.json").read_text())
    assert data["bc"] == "heuristic" and data["bc_set"] == ["anchor_kl=1"]
    cells = data["cells"]
    assert [(c["critic"], c["bc_teacher"]) for c in cells] == [("ippo", None), ("ippo", "heuristic")]
    assert [[step for step, _ in c["curve"]] for c in cells] == [[2048], [0, 2048]]
    assert all(c["env_steps"] == 2048 for c in cells)
    assert (out / "tiny-ippo-bc-0" / "bc.json").is_file() and not (out / "tiny-ippo-0" / "bc.json").exists()
    anchors = [yaml.safe_load((out / name / "config.yaml").read_text())["anchor_kl"]
               for name in ("tiny-ippo-0", "tiny-ippo-bc-0")]
    assert anchors == [0.0, 1.0]  # --bc-set: the BC + PPO cell alone
    table = (out / "baselines.md").read_text()
    assert "| tiny | IPPO from scratch | 1 | 2,048 |" in table
    assert "| tiny | IPPO, BC (heuristic) + PPO | 1 | 2,048 |" in table
