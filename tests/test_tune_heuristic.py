"""training/tune_heuristic.py: a coordinate search over the compiled heuristic's weights, on a tiny budget."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from training import tune_heuristic
from training.tune_heuristic import candidates, play

from agents.heuristic import DEFAULT_WEIGHTS
from subterra_env.config import load
from subterra_env.games.sub_terra.core.rules import Core

ROOT = Path(__file__).resolve().parents[1]


def test_candidates_scale_or_step() -> None:
    assert candidates("tile", 1.0, [0.5, 1.5]) == [0.5, 1.5]
    assert candidates("exert_hp", 2.0, [0.5, 1.5]) == [1.0, 3.0]
    assert candidates("heal_at_1", 1.0, [0.5, 1.5]) == [0.0]  # a switch: 0 or 1


def test_weights_change_play_and_defaults_match_the_agent() -> None:
    core = Core(load(ROOT / "configs" / "tiny.yaml"))
    seeds = np.arange(30)
    base = play(core, seeds, dict(DEFAULT_WEIGHTS))
    again = play(core, seeds, dict(DEFAULT_WEIGHTS))
    assert base.tolist() == again.tolist()  # deterministic
    crippled = play(core, seeds, {**DEFAULT_WEIGHTS, "tile": 0.0})  # drawing tiles worth nothing
    assert crippled.mean() < base.mean() - 1.0


def test_cli_writes_tuned_json(tmp_path: Path) -> None:
    out = tmp_path / "tune"
    assert tune_heuristic.main(["--config", str(ROOT / "configs" / "tiny.yaml"), "--games", "20", "--only", "care",
                                "--out", str(out)]) == 0
    data = json.loads((out / "tuned.json").read_text())
    assert data["games"] == 20 and len(data["trials"]) == 2
    assert {t["weight"] for t in data["trials"]} == {"care"}
    assert set(data["weights"]) == set(DEFAULT_WEIGHTS)
