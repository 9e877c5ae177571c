"""Change a team's gain-head settings without refitting it: its threshold (cavers) or the games it departs in.

    python -m training.set_head runs/distil-small/final/team.zip --max-deck 12 --out agents/shipped/team.zip

The head (``agents.gain_head.GainHead``) keeps its weights; ``--threshold`` moves where greedy play leaves the
heuristic's choice, ``--max-deck`` confines the departures to games whose hazard deck held at most that many cards
(``--max-deck -1``: every game again). The residual network and everything else of the checkpoint stay as they are.
"""

from __future__ import annotations

import argparse
import math

from agents.gain_head import GainHead
from agents.policy_agent import load_maskable_ppo
from training.distil_probe import write_team


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("team", help="a checkpoint with a gain head (python -m training.distil_probe --team)")
    p.add_argument("--threshold", type=float, help="depart where the predicted gain exceeds this (cavers)")
    p.add_argument("--max-deck", type=int, help="depart only in games whose hazard deck held at most this many "
                                                "cards, the Out of Time card included (-1: every game)")
    p.add_argument("--out", required=True, help="where to write the team")
    args = p.parse_args(argv)
    head = load_maskable_ppo(args.team, "python -m training.distil_probe --team", torch_threads=1).policy.gain_head
    if head is None:
        p.error(f"{args.team} has no gain head: fit one with python -m training.distil_probe --team")
    config = head.config
    if args.max_deck is not None:
        config.pop("max_deck", None)
        if args.max_deck != -1:  # any other value is checked by GainHead
            config["max_deck"] = args.max_deck
    threshold = config["threshold"] if args.threshold is None else args.threshold
    if not math.isfinite(threshold):
        p.error(f"--threshold must be a finite number of cavers, got {threshold}")
    try:
        new = GainHead(**config)
    except ValueError as e:
        p.error(str(e))
    new.load_state_dict(head.state_dict())
    write_team(args.team, new, threshold, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
