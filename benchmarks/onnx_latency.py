"""The shipped team per decision: torch (``PolicyAgent``, team.zip) against ONNX (``OnnxPolicyAgent``, team.onnx).

    python benchmarks/onnx_latency.py                  # one seeded small-cave game's decisions: seconds
    python benchmarks/onnx_latency.py --preset tiny --seed 1

The states are every decision of a heuristic-team game (``--preset``, ``--seed``, at most 60 rounds), replayed from
its record through ``records.to_samples`` at the policy's radius; each agent decides each of them through ``act``
(the call a table's bot makes), one thread each, and only that call is timed (the first 5 are left out: warm-up).
Prints the median and 95th percentile in ms and whether the two chose the same action everywhere. Wall clock on a
shared machine: indicative.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents.onnx_policy import OnnxPolicyAgent
from agents.policy_agent import PolicyAgent
from subterra_env.config import preset
from subterra_game.play import Seat, SeatPlan, Session
from subterra_game.records import to_samples


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--preset", default="small")
    p.add_argument("--seed", type=int, default=3)
    args = p.parse_args(argv)
    s = Session(preset(args.preset), args.seed, SeatPlan(others=Seat("heuristic")), max_cycles=60)
    while not s.over:
        seat = int(s.env.state_.actor[0])
        s.apply(s.bots[seat].act(s.env, seat), "heuristic")
    s.record.finish(s.env.state_, truncated=s.truncated)
    shipped = ROOT / "agents" / "shipped"
    chosen = {}
    for name, agent in (("torch", PolicyAgent(shipped / "team.zip")), ("onnx", OnnxPolicyAgent(shipped / "team.onnx"))):
        x = to_samples(s.record.to_json(), obs_radius=agent.obs_radius)
        times, acts = [], []
        for i in range(len(x["action"])):
            obs = {"observation": x["observation"][i], "scalars": x["scalars"][i]}
            t0 = time.perf_counter()
            acts.append(agent.act(obs, x["action_mask"][i]))
            times.append(time.perf_counter() - t0)
        ms = np.array(times[5:]) * 1000
        chosen[name] = acts
        print(f"{name}: {len(ms)} decisions, median {np.median(ms):.2f} ms, p95 {np.percentile(ms, 95):.2f} ms")
    print(f"same action at every decision: {chosen['torch'] == chosen['onnx']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
