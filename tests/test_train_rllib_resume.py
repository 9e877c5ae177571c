"""training/train_rllib.py without Ray: a resumed run builds RLlib with a new seed (new games, issue 40), and --help
prints the whole description. RLlib itself lives in .venv-rllib (make test-rllib runs tests/test_frameworks.py's
smoke run there, which checks the same on a real run); here Ray and ``subterra_env.rllib`` are stand-ins that
record what train() asks of them."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from training import train_rllib

ROOT = Path(__file__).resolve().parents[1]


class FakeAlgo:
    """An Algorithm that 'plays' games decided by the seed it was built with, as RLlib's env runners do."""

    def __init__(self, seed: int, calls: list):
        self.seed, self.calls, self.iterations = seed, calls, 0

    def restore_from_path(self, path: str) -> None:
        self.calls.append(("restore", Path(path).name))

    def train(self) -> dict[str, Any]:
        self.iterations += 1
        games = (self.seed, self.iterations)  # the games of this iteration: from the seed, as in RLlib
        return {"training_iteration": self.iterations,
                "env_runners": {"num_env_steps_sampled": 100, "num_episodes": 7,
                                "episode_return_mean": hash(games) % 1000 / 1000}}

    def save_to_path(self, path: str) -> None:
        Path(path).mkdir(parents=True, exist_ok=True)

    def stop(self) -> None:
        pass


@pytest.fixture
def fake_rllib(monkeypatch: pytest.MonkeyPatch) -> list:
    """Ray and subterra_env.rllib replaced; returns the list of calls (('build', seed), ('restore', dir))."""
    calls: list = []

    def ppo_config(env_config: dict, **kw: Any) -> Any:
        seed = kw["seed"]
        return types.SimpleNamespace(build_algo=lambda: calls.append(("build", seed)) or FakeAlgo(seed, calls))

    fake = types.SimpleNamespace(ppo_config=ppo_config, SubterraMultiAgentEnv=lambda cfg: None)
    monkeypatch.setitem(sys.modules, "subterra_env.rllib", fake)
    monkeypatch.setitem(sys.modules, "ray", types.SimpleNamespace(is_initialized=lambda: True))  # joined, not ours
    return calls


def test_a_resumed_run_plays_new_games(fake_rllib: list, tmp_path: Path) -> None:
    settings = train_rllib.load_settings(ROOT / "configs/train/rllib/smoke.yaml", [])
    run = tmp_path / "run"
    train_rllib.train(settings, run, log=lambda *_: None)
    logs: list[str] = []
    more = train_rllib.load_settings(run / "config.yaml", ["stop.iterations=4"])
    train_rllib.train(more, run, resume=True, log=logs.append)
    # seed 0 for iterations 1-2; the resume after iteration 2 builds with its own seed, then restores
    assert fake_rllib == [("build", 0), ("build", 2_000_006), ("restore", "final")]
    assert "resumed from" in logs[0] and "(iteration 2; seed 2000006: new games)" in logs[0]
    lines = [json.loads(x) for x in (run / "progress.jsonl").read_text().splitlines()]
    assert [ln["iteration"] for ln in lines] == [1, 2, 3, 4]
    returns = [ln["episode_return_mean"] for ln in lines]
    assert returns[2] != returns[0] and returns[3] != returns[1]  # not the first segment's games again


def test_the_same_resume_is_reproducible(fake_rllib: list, tmp_path: Path) -> None:
    assert train_rllib.run_seed(5, 0) == 5 and train_rllib.run_seed(5, 2) == train_rllib.run_seed(5, 2) == 2_000_011
    assert len({train_rllib.run_seed(0, i) for i in range(100)}) == 100


def test_help_prints_the_whole_description(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        train_rllib.main(["--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert ("RLlib PPO (new API stack) for the Sub Terra team: one shared policy for every caver, action masking, "
            "on one machine or a Ray cluster. Needs the ``distributed`` extra:") in text
