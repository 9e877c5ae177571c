"""The shipped team per decision: torch (``PolicyAgent``, team.zip) against ONNX (``OnnxPolicyAgent``, team.onnx).

    python -m benchmarks.onnx_latency                  # one seeded small-cave game's decisions: seconds
    python -m benchmarks.onnx_latency --preset tiny --seed 1

The states are every decision of a heuristic-team game (``--preset``, ``--seed``, at most 60 rounds), played live:
at each one both agents, bound to the game as a table's bot is (the shipped team is an advised policy: it reads
the heuristic's advice from its bound game, so it cannot decide from a record's samples alone), decide from an
observation at their own radius through ``act`` (the call a table's bot makes), one thread each, and only that
call is timed (the first 5 are left out: warm-up); then the heuristic's action is played. Prints the median and
95th percentile in ms and whether the two chose the same action everywhere (exit code 1 if not). Wall clock on a
shared machine: indicative.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from agents.onnx_policy import OnnxPolicyAgent
from agents.policy_agent import PolicyAgent
from subterra_env.config import preset
from subterra_env.games.sub_terra.core.observe import observe
from subterra_game.seats import Seat, SeatPlan
from subterra_game.session import Session

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--preset", default="small")
    p.add_argument("--seed", type=int, default=3)
    args = p.parse_args(argv)
    s = Session(preset(args.preset), args.seed, SeatPlan(others=Seat("heuristic")), max_cycles=60)
    shipped = ROOT / "agents" / "shipped"
    agents = {"torch": PolicyAgent(shipped / "team.zip").bind(s.env),
              "onnx": OnnxPolicyAgent(shipped / "team.onnx").bind(s.env)}
    times: dict[str, list[float]] = {name: [] for name in agents}
    chosen: dict[str, list[int]] = {name: [] for name in agents}
    while not s.over:
        seat = int(s.env.state_.actor[0])
        mask = s.env.legal_mask
        for name, agent in agents.items():
            grid, scalars = observe(s.env.core.cat, s.env.state_, np.array([seat]), agent.obs_radius)
            obs = {"observation": grid[0], "scalars": scalars[0]}
            t0 = time.perf_counter()
            chosen[name].append(agent.act(obs, mask))
            times[name].append(time.perf_counter() - t0)
        s.apply(s.bots[seat].act(s.env, seat), "heuristic")
    for name in agents:
        ms = np.array(times[name][5:]) * 1000
        print(f"{name}: {len(ms)} decisions, median {np.median(ms):.2f} ms, p95 {np.percentile(ms, 95):.2f} ms")
    same = chosen["torch"] == chosen["onnx"]
    print(f"same action at every decision: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
