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
    clone = json.loads((out / "tiny-ippo-bc-0" / "eval-clone" / "results.json").read_text())["results"][0]
    assert clone["team"] == "policy:clone" and clone["num_games"] == 8
    assert cells[-1]["clone"]["escaped_mean"] == clone["escaped_mean"] and "clone" not in cells[0]
    assert f"| tiny | IPPO, BC (heuristic) clone | 1 | 0 | - | {clone['escaped_mean']:.2f} (seeds: " in table


def test_bc_only_cells_merged_with_an_earlier_table(tmp_path: Path) -> None:
    """``--bc-only --merge``: only the BC + PPO cell is trained; the earlier table's cells (the shipped tiny table's
    six runs from scratch) and its references join it, in one JSON and one table."""
    refused = subprocess.run([sys.executable, "-m", "training.baselines", "--bc-only"], cwd=ROOT, capture_output=True,
                             text=True, timeout=120)
    assert refused.returncode == 2 and "--bc-only: the BC + PPO cells need --bc TEACHER" in refused.stderr
    bogus = tmp_path / "bogus.json"
    bogus.write_text("[]")
    refused = subprocess.run([sys.executable, "-m", "training.baselines", "--merge", str(bogus)], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and f"--merge {bogus}: not a baselines.json" in refused.stderr
    out = tmp_path / "baselines"
    earlier = ROOT / "docs" / "baselines" / "tiny_table" / "baselines.json"
    cmd = [sys.executable, "-m", "training.baselines", "--presets", "tiny", "--critics", "ippo", "--seeds", "0",
           "--steps", "tiny=2048", "--eval-games", "8", "--reference", "--bc", "heuristic", "--bc-only",
           "--merge", str(earlier), "--out", str(out), "--set", "num_games=64", "--set", "eval_every=2048",
           "--set", "eval_games=8", "--set", "width=32", "--set", "torch_threads=1", "--set", "bc_decisions=1024",
           "--set", "bc_epochs=1"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert not (out / "tiny-ippo-0").exists() and (out / "tiny-ippo-bc-0" / "bc.json").is_file()
    data = json.loads((out / "baselines.json").read_text())
    assert [(c["critic"], c["bc_teacher"], c["seed"]) for c in data["cells"]] == [
        ("ippo", None, 0), ("ippo", None, 1), ("ippo", None, 2), ("ippo", "heuristic", 0),
        ("mappo", None, 0), ("mappo", None, 1), ("mappo", None, 2)]
    assert [r["team"] for r in data["references"]["tiny"]] == ["random", "heuristic"]
    assert data["merged"] == [str(earlier)]
    table = (out / "baselines.md").read_text()
    assert "| tiny | heuristic | - | - | - | 3.84 ± 0.03 | 86.8% |" in table
    assert "| tiny | IPPO from scratch | 3 | 6,807,552-7,675,904 | 9 min | 3.68 (seeds: 3.74, 3.58, 3.73) |" in table
    assert "| tiny | IPPO, BC (heuristic) + PPO | 1 | 2,048 |" in table
