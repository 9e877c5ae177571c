"""The warm-up commands (``python -m subterra_env.warmup``, ``python -m agents.warmup``) and the one-line notice a
process prints when it must compile a kernel rather than load it from numba's cache (subterra_env/games/sub_terra/core/jit.py).

The warm-ups run against the cache the tests use (warm after ``make``, so each process takes seconds); the cold
notice is tested on a tiny kernel in a fresh ``NUMBA_CACHE_DIR``, since a cold compile of the core takes minutes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from subterra_env.games.sub_terra.core import jit

ROOT = Path(__file__).resolve().parents[1]
NOTICE = "subterra_env: compiling"


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "SUBTERRA_QUIET"}
    done = subprocess.run([sys.executable, *args], cwd=ROOT, env={**environ, **env}, capture_output=True, text=True,
                          timeout=1800)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_warmups_exit_0_and_a_warm_start_prints_no_notice() -> None:
    first = _run(["-m", "agents.warmup"])  # compiles whatever the cache lacks (nothing after `make`)
    assert "done in" in first.stdout and "search agent" in first.stdout
    for module in ("subterra_env.warmup", "agents.warmup"):  # now every kernel is in the cache
        warm = _run(["-m", module])
        assert NOTICE not in warm.stderr, warm.stderr
        assert "rules core, 64 games" in warm.stdout and "everything loaded from the cache" in warm.stdout, warm.stdout
    assert "heuristic team, 64 games" in warm.stdout and "search agent" in warm.stdout


KERNEL = '''
from pathlib import Path
from subterra_env.games.sub_terra.core.jit import jit_beside_core

jit = jit_beside_core(Path(__file__).resolve().parent, what="the test kernel")


@jit
def add(a, b):
    return a + b
'''

PROBE = '''
import logging, sys
if sys.argv[1] == "configured":
    logging.basicConfig(stream=sys.stdout, format="LOG %(name)s %(levelname)s %(message)s")
if sys.argv[1] == "level":
    logging.getLogger("subterra_env.compile").setLevel(logging.ERROR)
import tiny_kernel  # from the folder on PYTHONPATH (_probe)
from subterra_env.games.sub_terra.core.jit import compile_stats
assert tiny_kernel.add(1, 2) == 3
assert tiny_kernel.add(1.5, 2.0) == 3.5  # a second signature: a second compile, no second notice
print("stats", compile_stats())
'''


def _probe(tmp_path: Path, cache: Path, mode: str = "default", **env: str) -> subprocess.CompletedProcess:
    folder = tmp_path / "kernel"
    folder.mkdir(exist_ok=True)
    (folder / "tiny_kernel.py").write_text(KERNEL)
    path = os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH", "")) if p)
    return _run(["-c", textwrap.dedent(PROBE), mode], NUMBA_CACHE_DIR=str(cache), PYTHONPATH=path, **env)


def test_notice_once_on_a_cold_cache_and_never_on_a_warm_one(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = _probe(tmp_path, cache)
    lines = [line for line in cold.stderr.splitlines() if NOTICE in line]
    assert lines == [jit.notice("the test kernel", str(cache))], cold.stderr
    assert "compiling the test kernel for this machine" in lines[0] and str(cache) in lines[0]
    assert "'the test kernel': (2," in cold.stdout  # both signatures compiled, counted
    warm = _probe(tmp_path, cache)
    assert NOTICE not in warm.stderr, warm.stderr
    assert "stats {}" in warm.stdout  # both loaded from the cache


@pytest.mark.parametrize("mode, env", [("default", {"SUBTERRA_QUIET": "1"}), ("level", {})])
def test_notice_can_be_silenced(tmp_path: Path, mode: str, env: dict[str, str]) -> None:
    done = _probe(tmp_path, tmp_path / "cache", mode, **env)
    assert NOTICE not in done.stderr + done.stdout
    assert "'the test kernel': (2," in done.stdout  # it did compile


def test_notice_goes_through_the_applications_logging(tmp_path: Path) -> None:
    done = _probe(tmp_path, tmp_path / "cache", "configured")
    assert NOTICE not in done.stderr
    assert f"LOG subterra_env.compile WARNING {NOTICE} the test kernel" in done.stdout


def test_notice_names_the_cache() -> None:
    home = str(Path.home())
    assert jit.notice(jit.CORE, home + "/.cache/subterra_env/numba-x").endswith(
        "(a minute or two, once; later starts load it from the cache in ~/.cache/subterra_env/numba-x) ...")
    assert "__pycache__" in jit.notice(jit.CORE, "")


@pytest.mark.parametrize("value, quiet", [("", False), ("0", False), ("no", False), ("1", True), ("yes", True)])
def test_quiet_values(monkeypatch: pytest.MonkeyPatch, value: str, quiet: bool) -> None:
    monkeypatch.setenv("SUBTERRA_QUIET", value)
    assert jit.quiet() is quiet
