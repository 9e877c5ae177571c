"""Where a team's cavers are lost: health lost and knock-outs by cause, and cavers devoured, from the rules core's
event log (``subterra_env.events``), for ``python -m training.evaluate --losses``.

A knock-out is a ``damage`` event that leaves the caver at 0 health; its cause is the event's rule ID (R-HOR-5 a
horror, R-HZ-1 tremor, R-HZ-2 flood, R-HZ-3 gas, R-HZ-4 cave-in, R-ACT-2 a failed exert check, R-TILE-9 rough
terrain, R-EXT-6 a leaper's slash: ``../shared/RULES.md``). Knock-outs are also counted apart while the exit is
still hidden (before it), since what costs cavers while exploring differs from what costs them on the way out.
``devoured`` counts R-HZ-7's Out of Time checks failed, ``devoured_unconscious`` those of cavers already knocked
out. Every figure is per game, over the games tallied.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Sequence

import numpy as np

from subterra_env.events import Event


class LossTally:
    """Counts over the steps of ``games`` games; ``add`` one game's step at a time, ``summary`` at the end."""

    def __init__(self, games: int) -> None:
        self.health: Counter[str] = Counter()
        self.knockouts: Counter[str] = Counter()
        self.knockouts_exit_hidden: Counter[str] = Counter()
        self.devoured = 0
        self.devoured_unconscious = 0
        self.games = games

    def add(self, events: Iterable[Event], exit_hidden: bool, health_before: np.ndarray) -> None:
        """One step of one game: its events, whether the exit was hidden before the step, and each seat's health
        before it."""
        for e in events:
            if e.kind == "damage":
                self.health[e.rule] += e.value
                if e.die == 0:
                    self.knockouts[e.rule] += 1
                    self.knockouts_exit_hidden[e.rule] += exit_hidden
            elif e.kind == "devoured":
                self.devoured += 1
                self.devoured_unconscious += int(health_before[e.seat] == 0)

    def summary(self) -> dict[str, Any]:
        """Per-game means (causes by rule ID, most knock-outs first)."""
        n = max(self.games, 1)
        order = sorted(set(self.health) | set(self.knockouts), key=lambda r: (-self.knockouts[r], -self.health[r], r))
        return {"games": self.games,
                "knockouts": sum(self.knockouts.values()) / n,
                "knockouts_by_cause": {r: self.knockouts[r] / n for r in order},
                "knockouts_exit_hidden_by_cause": {r: self.knockouts_exit_hidden[r] / n for r in order},
                "health_lost_by_cause": {r: self.health[r] / n for r in order},
                "devoured": self.devoured / n, "devoured_unconscious": self.devoured_unconscious / n}


def losses_markdown(rows: Sequence[dict[str, Any]]) -> str:
    """A table per result row (with ``losses``): knock-outs (of them while the exit was hidden) and health lost per
    game by cause, and the devoured."""
    rows = [r for r in rows if r.get("losses")]
    if not rows:
        return ""
    causes: list[str] = []
    for r in rows:
        causes += [c for c in r["losses"]["knockouts_by_cause"] if c not in causes]
    head = "| settings | team | knock-outs | devoured (unconscious) | " + " | ".join(causes) + " |"
    lines = ["Losses per game: knock-outs by cause (of them before the exit was placed) / health lost "
             "(causes by rule ID, RULES.md)", "", head, "|---|---|---:|---:|" + "---:|" * len(causes)]
    for r in rows:
        lo = r["losses"]
        cells = [f"{lo['knockouts_by_cause'].get(c, 0):.2f} ({lo['knockouts_exit_hidden_by_cause'].get(c, 0):.2f})"
                 f" / {lo['health_lost_by_cause'].get(c, 0):.2f}" for c in causes]
        lines.append(f"| {r['settings']} | {r['team']} | {lo['knockouts']:.2f} | {lo['devoured']:.2f} "
                     f"({lo['devoured_unconscious']:.2f}) | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
