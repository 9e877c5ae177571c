"""How often a team's acting caver stands where the horror rules will reach it (issue 41's small-cave question).

    python -m training.horror_exposure --config configs/small.yaml --team heuristic \\
        --team policy:runs/small/final.pt --games 1000 --decisions 80 --json runs/exposure.json

Plays ``--games`` seeded games (seeds from ``--seed``; finished games restart) for ``--decisions`` decisions each
with every ``--team`` (one entry of ``training/evaluate.py``'s: ``heuristic``, ``random``, ``policy:PATH``, ...) in
every seat, and reads every decision's observation with the ``egohunt`` network's search
(``agents.native_policy.HuntEgoBody.hunt``, weights not involved): the share of decisions whose acting caver has a
horror within 1 step, is a horror's closest victim within 1 step (the horror phase knocks it out unless it moves or
hides, R-HOR-3/5), stands on an empty horror tile (a horror card's spawn may come onto it, R-HOR-4), or is the
victim of the next spawn within 1 step; and the same shares for the caver that has just handed over to another (the
end of its turn, or a question to another caver), seen after its decision by the next actor: where it stays until
its next turn, and where the horror phase finds it (hand-overs that end a game are left out: the game restarts).
``training/evaluate.py --losses`` says how the knock-outs came; this says how often a team stood in their way.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import torch

from subterra_env.config import GameConfig, load
from subterra_env.spaces import grid_shape, num_scalars
from subterra_env.vector import BatchedGames

MEASURES = ("horror within 1 step", "hunted within 1 step", "on an empty horror tile", "next spawn within 1 step")
HANDED = tuple(f"{m} at hand-over" for m in MEASURES)


def make_agent(spec: str, games: BatchedGames, seed: int) -> Any:
    """The agent of a ``--team`` entry, built as ``training/evaluate.py`` builds one (``agents.teams``: random,
    heuristic, search, policy:PATH, ...); ``agents.teams.TeamError`` naming an entry it does not know."""
    from agents.teams import AgentCache, parse_team

    return AgentCache(seed=seed).build(parse_team([spec])[0], games, 0)


def exposure(config: GameConfig, spec: str, games: int, decisions: int, seed: int) -> dict[str, Any]:
    """One team's row: its decisions and the share of them in each of ``MEASURES``; its hand-overs and the share of
    them in each (``HANDED``)."""
    from agents.native_policy import HuntEgoBody

    batch = BatchedGames(games, config, obs_radius=7, seed=seed)
    agent = make_agent(spec, batch, seed)
    search = HuntEgoBody(grid_shape(7, config.scenario), num_scalars(config.scenario), 8)
    counts, handed = np.zeros((2, len(MEASURES)), dtype=np.int64), np.zeros(2, dtype=np.int64)
    seats = batch.state.c_rank.shape[1]
    obs, rows, seat = batch.reset(), np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    for decision in range(decisions + 1):  # one look more: where the last hand-overs left their cavers
        with torch.no_grad():  # every caver's four numbers: (8 - steps) / 8, seats relative to the actor
            found = search.hunt(torch.as_tensor(obs["observation"]), torch.as_tensor(obs["scalars"]))
        steps = (8 - found.view(-1, 4, 6) * 8).round().numpy()
        inside = np.stack([steps[:, 0] <= 1, steps[:, 1] <= 1, steps[:, 2] == 0, steps[:, 3] <= 1], 1)  # (B, 4, 6)
        counts[1] += inside[rows, :, seat].sum(0)  # the caver that handed over, seen by the next actor
        handed[1] += len(rows)
        if decision == decisions:
            break
        counts[0] += inside[:, :, 0].sum(0)
        handed[0] += len(inside)
        actor = batch.state.actor.copy()
        done = batch.step_batch(agent.act_batch(obs, batch.action_masks())).done
        moved = batch.state.actor != actor
        moved[done] = False  # an ended game restarts: where its cavers stood is not observed
        rows = np.flatnonzero(moved)
        seat = (actor[rows] - batch.state.actor[rows]) % seats
        obs = batch.observations()
    shares = counts / np.maximum(handed, 1)[:, None]
    return {"team": spec, "decisions": int(handed[0]), **{m: round(float(x), 4) for m, x in zip(MEASURES, shares[0])},
            "hand-overs": int(handed[1]), **{m: round(float(x), 4) for m, x in zip(HANDED, shares[1])}}


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default="configs/small.yaml", help="a game config (configs/*.yaml)")
    p.add_argument("--team", action="append", required=True, help="heuristic, random, policy:PATH, ... (repeat)")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--decisions", type=int, default=80, help="decisions per game slot (finished games restart)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=Path, help="write the rows here")
    a = p.parse_args(argv)
    if a.games < 1 or a.decisions < 1:
        p.error(f"--games {a.games} and --decisions {a.decisions} must be at least 1")
    from agents.teams import TeamError, parse_team

    for spec in a.team:
        try:
            parse_team([spec])
        except TeamError as e:
            p.error(f"--team {spec}: {e}")
    config = load(a.config)
    torch.set_num_threads(1)
    rows = [exposure(config, spec, a.games, a.decisions, a.seed) for spec in a.team]
    for count, measures in (("decisions", MEASURES), ("hand-overs", HANDED)):
        print(f"{'team':44s} {count:>10s}  " + "  ".join(MEASURES))
        for r in rows:
            print(f"{r['team'][:44]:44s} {r[count]:10,d}  " + "  ".join(f"{r[m]:>{len(n)}.1%}"
                                                                      for m, n in zip(measures, MEASURES)))
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(rows, indent=1))
    return rows


if __name__ == "__main__":
    main()
