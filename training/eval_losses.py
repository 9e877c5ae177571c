"""Where a team's cavers are lost: health lost and knock-outs by cause, and cavers devoured, from the rules core's
event log (``subterra_env.events``), for ``python -m training.evaluate --losses``.

A knock-out is a ``damage`` event that leaves the caver at 0 health; its cause is the event's rule ID (R-HOR-5 a
horror, R-HZ-1 tremor, R-HZ-2 flood, R-HZ-3 gas, R-HZ-4 cave-in, R-ACT-2 a failed exert check, R-TILE-9 rough
terrain, R-EXT-6 a leaper's slash: ``../shared/RULES.md``). Knock-outs are also counted apart while the exit is
still hidden (before it), since what costs cavers while exploring differs from what costs them on the way out.
``devoured`` counts R-HZ-7's Out of Time checks failed, ``devoured_unconscious`` those of cavers already knocked
out. A horror's knock-outs (R-HOR-5) are split by how they came (``horror_knockouts_by_way``): in a caver's turn
(``turn, entered``: it walked into the horror's tile; ``turn, healed``: it was healed while lying in one), in the
horror phase or after a horror hazard card (``phase``, ``card``: R-HOR-3, R-HZ-5), and there by the horror moving
onto the tile ``hunted`` (the caver was its closest victim) or as a ``bystander`` (it hunted another caver), or
``spawned`` on it (R-HOR-4); ``other`` where none of those events came before it. The walks into a horror's tile
are split by the action that made them (``horror_entries_by_action``: ``move``, ``run step``, ``swim`` ..., and
``, only legal`` where it was the one legal action, as the first step of a Run begun beside a horror can be). Every
figure is per game, over the games tallied.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Sequence

import numpy as np

from subterra_env.events import Event
from subterra_env.games.sub_terra.core.actions import ACTION_NAMES
from subterra_env.games.sub_terra.core.catalogue import CARD_NAMES

HORROR_CARDS = frozenset(i for i, name in enumerate(CARD_NAMES) if name in ("horror", "horror x2"))


def horror_way(events: Sequence[Event], i: int) -> str:
    """How the horror knock-out ``events[i]`` (an R-HOR-5 damage) came about, from the step's earlier events: the
    latest one that brought the caver and a horror onto its tile, and whether a horror card was drawn before it."""
    e = events[i]
    how = "other"
    for prev in reversed(events[:i]):
        if prev.kind == "horror_move" and prev.tile == e.tile:
            how = "hunted" if prev.seat == e.seat else "bystander"
        elif prev.kind == "horror_spawn" and prev.tile == e.tile:
            how = "spawned"
        elif prev.kind in ("move", "surface") and prev.seat == e.seat and prev.tile == e.tile:
            how = "entered"
        elif prev.kind == "heal" and prev.seat == e.seat and prev.tile == e.tile:
            how = "healed"  # an unconscious caver healed back to health in a horror's tile falls again at once
        else:
            continue
        break
    if how in ("entered", "healed"):
        return f"turn, {how}"
    card = any(p.kind == "card" and p.value in HORROR_CARDS for p in events[:i])
    return f"{'card' if card else 'phase'}, {how}"


def action_kind(action: int) -> str:
    """An action's name without its direction (``run step E`` -> ``run step``)."""
    words = ACTION_NAMES[action].split()
    return " ".join(words[:-1] if len(words) > 1 and words[-1] in ("N", "E", "S", "W") else words)


class LossTally:
    """Counts over the steps of ``games`` games; ``add`` one game's step at a time, ``summary`` at the end."""

    def __init__(self, games: int) -> None:
        self.health: Counter[str] = Counter()
        self.knockouts: Counter[str] = Counter()
        self.knockouts_exit_hidden: Counter[str] = Counter()
        self.horror_ways: Counter[str] = Counter()
        self.horror_entries: Counter[str] = Counter()
        self.devoured = 0
        self.devoured_unconscious = 0
        self.games = games

    def add(self, events: Iterable[Event], exit_hidden: bool, health_before: np.ndarray, action: int = -1,
            only_legal: bool = False) -> None:
        """One step of one game: its events, whether the exit was hidden before the step, each seat's health before
        it, and the action stepped (-1: not known) and whether it was the only legal one."""
        events = list(events)
        for i, e in enumerate(events):
            if e.kind == "damage":
                self.health[e.rule] += e.value
                if e.die == 0:
                    self.knockouts[e.rule] += 1
                    self.knockouts_exit_hidden[e.rule] += exit_hidden
                    if e.rule == "R-HOR-5":
                        way = horror_way(events, i)
                        self.horror_ways[way] += 1
                        if way == "turn, entered" and action >= 0:
                            self.horror_entries[action_kind(action) + (", only legal" if only_legal else "")] += 1
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
                "horror_knockouts_by_way": {w: c / n for w, c in self.horror_ways.most_common()},
                "horror_entries_by_action": {w: c / n for w, c in self.horror_entries.most_common()},
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
    ways: list[str] = []
    for r in rows:
        ways += [w for w in r["losses"].get("horror_knockouts_by_way", {}) if w not in ways]
    if ways:
        lines += ["", "Horror knock-outs (R-HOR-5) per game by how they came (when: turn, phase, card; how: entered, "
                  "healed, hunted, bystander, spawned)", "", "| settings | team | " + " | ".join(ways) + " |",
                  "|---|---|" + "---:|" * len(ways)]
        for r in rows:
            by_way = r["losses"].get("horror_knockouts_by_way", {})
            lines.append(f"| {r['settings']} | {r['team']} | " + " | ".join(f"{by_way.get(w, 0):.2f}" for w in ways)
                         + " |")
    lines += _entries_markdown(rows)
    return "\n".join(lines) + "\n"


def _entries_markdown(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The walks into a horror's tile by the action that made them, a table (none: no lines)."""
    kinds: list[str] = []
    for r in rows:
        kinds += [k for k in r["losses"].get("horror_entries_by_action", {}) if k not in kinds]
    if not kinds:
        return []
    lines = ["", "Walks into a horror's tile (turn, entered) per game by the action (only legal: the one legal "
             "action then)", "", "| settings | team | " + " | ".join(kinds) + " |", "|---|---|" + "---:|" * len(kinds)]
    for r in rows:
        by_kind = r["losses"].get("horror_entries_by_action", {})
        lines.append(f"| {r['settings']} | {r['team']} | " + " | ".join(f"{by_kind.get(k, 0):.3f}" for k in kinds)
                     + " |")
    return lines
