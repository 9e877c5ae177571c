"""Who sits at a Sub Terra table: a seat's kind (a person, a bot kind, a policy file), the seats as given on the
command line or by a browser table (``SeatPlan``) and as kept in a record; ``PlayError`` for bad input. Below
the session (``session``), the terminal (``play``) and the browser tables (``web``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from subterra_env.config import CAVER_NAMES


class PlayError(ValueError):
    """Bad command-line input (seats, settings, files); the message says what and how to fix it."""


# ---------------------------------------------------------------------------------------------- seats
BOT_KINDS = "search, heuristic, random, policy:PATH or auto"


@dataclass(frozen=True)
class Seat:
    """Who plays a seat: ``kind`` human / search / heuristic / random / policy / auto; ``path`` of a policy; a
    person's name; ``worlds`` of a search bot (None: ``--search-worlds`` or the agent's default)."""

    kind: str
    path: str | None = None
    name: str | None = None
    worlds: int | None = None

    @property
    def player(self) -> str:
        """As stored in a record: ``human``, ``search``, ``heuristic``, ``random`` or ``policy:PATH``."""
        return f"policy:{self.path}" if self.kind == "policy" else self.kind

    @property
    def human(self) -> bool:
        return self.kind == "human"

    @property
    def label(self) -> str:
        """A bot's short name on screen: ``search``, ``heuristic``, ``random``, ``policy team``."""
        return f"policy {Path(self.path or '').stem}" if self.kind == "policy" else self.kind


def parse_kind(text: str, where: str = "seat") -> Seat:
    t = text.strip()
    if t in ("human", "you") or t.startswith("human:"):
        return Seat("human", name=t.partition(":")[2] or None)
    if t in ("search", "heuristic", "random", "auto", "bot"):
        return Seat("auto" if t == "bot" else t)
    if t.startswith("policy:"):
        path = t[len("policy:"):]
        if not path:
            raise PlayError(f"{where} {text!r}: policy needs a path, e.g. policy:agents/shipped/team.zip")
        if not Path(path).is_file():
            raise PlayError(f"{where} {text!r}: no policy checkpoint at {path!r} (a MaskablePPO .zip)")
        return Seat("policy", path=path)
    raise PlayError(f"{where} {text!r}: expected human, human:NAME, {BOT_KINDS}")


def seat_from_record(entry: dict[str, Any]) -> Seat:
    """A record's seat entry as a Seat (records before the search bots have no ``worlds``)."""
    player = str(entry["player"])
    if player == "human" and entry.get("name"):
        return Seat("human", name=str(entry["name"]))
    seat = parse_kind(player, "the record's seat")
    worlds = entry.get("worlds")
    return replace(seat, worlds=int(worlds)) if seat.kind == "search" and isinstance(worlds, int) else seat


@dataclass
class SeatPlan:
    """Seats as given on the command line, before the game's cavers are known."""

    by_seat: list[Seat] | None = None  # one per seat, in seat order
    by_caver: dict[str, Seat] = field(default_factory=dict)  # caver name or seat number -> seat
    others: Seat = field(default_factory=lambda: Seat("auto"))  # every seat not named

    def resolve(self, ranks: Sequence[int]) -> list[Seat]:
        names = [CAVER_NAMES[r - 1] for r in ranks]
        if self.by_seat is not None:
            if len(self.by_seat) != len(ranks):
                raise PlayError(f"--seats lists {len(self.by_seat)} seats but {len(ranks)} cavers play "
                                f"({', '.join(names)}): give one per seat, in this order")
            return list(self.by_seat)
        seats = [self.others] * len(ranks)
        for key, seat in self.by_caver.items():
            if key.isdigit():
                i = int(key)
                if not 0 <= i < len(ranks):
                    raise PlayError(f"seat {i} does not exist: seats are 0..{len(ranks) - 1} ({', '.join(names)})")
            elif key in names:
                i = names.index(key)
            elif key in CAVER_NAMES:
                raise PlayError(f"{key} is not at the table in this game (the seed drew {', '.join(names)}): pick "
                                f"one of these, or choose the cavers with --cavers {key},...")
            else:
                raise PlayError(f"{key!r} is not a caver: cavers are {', '.join(CAVER_NAMES)} (or a seat number)")
            seats[i] = seat
        return seats


def bot_seat(bots: str) -> Seat:
    """The seat of ``--bots``: a bot kind, never a person; a clear error naming anything else."""
    t = bots.strip()
    if not (t in ("search", "heuristic", "random", "auto", "bot") or t.startswith("policy:")):
        raise PlayError(f"--bots {bots!r} is not a bot: --bots must be a bot kind: {BOT_KINDS} (auto, the default, "
                        "seats the strongest that answers in time)")
    return parse_kind(t, "--bots")


def seat_plan(seats: str | None, humans: Sequence[str], bots: str, watch: bool) -> SeatPlan:
    plan = SeatPlan(others=bot_seat(bots))
    entries = [e.strip() for e in seats.split(",")] if seats else []
    if entries and all("=" in e for e in entries):
        for e in entries:
            key, _, kind = e.partition("=")
            plan.by_caver[key.strip().lower()] = parse_kind(kind, f"--seats {key}")
    elif entries:
        if any("=" in e for e in entries):
            raise PlayError("--seats: either one kind per seat (human,heuristic,...) or CAVER=KIND pairs, not both")
        plan.by_seat = [parse_kind(e, f"--seats entry {i}") for i, e in enumerate(entries)]
    for h in humans:
        for name in h.split(","):
            name = name.strip().lower()
            if name:
                who, _, person = name.partition(":")
                plan.by_caver[who] = Seat("human", name=person or None)
    if not entries and not humans and not watch:
        plan.by_caver["0"] = Seat("human", name="you")
    if watch and (humans or any(s.human for s in (plan.by_seat or []))):
        raise PlayError("--watch plays bots only: drop --human / human seats")
    return plan
