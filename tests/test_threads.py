"""torch's CPU thread count stays what the trainer set, whatever the engine's. numba's OpenMP pool, when a process
first launches a parallel kernel, sets the thread count of the OpenMP runtime torch reads (torch's own libgomp, the
first in the process's global scope); each parallel section now restores it. Without that, a run given
``torch_threads=1`` trained on every core once the engine (``engine_threads=2``) or a heuristic teacher had run a
parallel kernel, and two runs side by side crowded each other 4-7x (issue 41's BC stage). Each check runs in a
fresh process: only the first parallel launch of a process sets the count."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
ROOT = Path(__file__).resolve().parents[1]
HEAD = """
import torch
from training import bc, ppo
torch.set_num_threads(1)
"""


def threads_after(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", HEAD + code], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.split()


def test_an_engine_on_two_threads_leaves_torch_on_one() -> None:
    assert threads_after("""
trainer = ppo.Trainer(ppo.load_args("configs/train/ppo_test.yaml",
                                    ["torch_threads=1", "engine_threads=2", "num_games=128"]))
trainer.reset()  # the games' first parallel kernels (128 games: above PARALLEL_MIN_BATCH)
print(torch.get_num_threads())
trainer.iterate(1e-4)
print(torch.get_num_threads())
""") == ["1", "1"]


def test_the_teacher_plays_on_the_games_threads_and_leaves_torch_alone() -> None:
    assert threads_after("""
args = ppo.load_args("configs/train/ppo_test.yaml", ["engine_threads=1", "bc_teacher=heuristic", "bc_games=128"])
venv = ppo.teacher_games(args, ppo.Trainer(args))
teacher = bc.make_teacher("heuristic", venv)
print(teacher.threads)  # the games' own thread count
teacher.threads = None  # every core: the process's first parallel kernels
print(len(bc.collect(venv, teacher, 512, 0.99)), torch.get_num_threads())
""") == ["1", "512", "1"]
