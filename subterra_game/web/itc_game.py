"""In the Cave at a browser table: ``in_the_cave.session.Table``, the one the terminal plays too (seats, heuristic
and random bots, stepping through the AEC env, narration, the record of ``in_the_cave.records`` that ``subterra itc
replay`` reads) behind the face of ``games`` that the tables and the page share. Nothing about the rules is decided
here: the env checks every action.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.actions import ACTION_NAMES, NUM_ACTIONS, IllegalActionError
from ..in_the_cave import records as R
from ..in_the_cave import screen as S
from ..in_the_cave.session import ItcPlayError, table_config
from ..in_the_cave.session import Table as ItcTable
from ..narrate import Event
from .itc_view import board_view
from .protocol import ClientError, ItcTableRequest


def _events(lines: list[str | None]) -> list[Event]:
    """The terminal's narration lines as the page's events (turn lines, tiles, the rest)."""
    out = []
    for line in lines:
        if not line:
            continue
        text = line.strip()
        kind = "turn" if text.startswith("--") else "tile" if ": reveal" in text or ": place_" in text \
            or ": boulder_" in text else "action"
        out.append(Event(kind, text))
    return out


class ItcGame:
    """An In the Cave game at a table. Views differ by viewer: during the initial packing (R-ITC-SET-9) a person
    sees only their own team's kit, and only the team to act gets its actions."""

    kind = "itc"
    private = True

    def __init__(self, table: ItcTable):
        self.table = table
        self.seed, self.labels = table.seed, table.labels
        self.notice = [Event("info", f"In the Cave: seed {table.seed}, {len(table.labels)} teams: "
                             + ", ".join(f"team {i} {lab}" for i, lab in enumerate(table.labels)))]
        self.notice += _events([table.new_turn()])  # a preset without the initial packing starts with a turn

    @classmethod
    def create(cls, req: ItcTableRequest, seed: int) -> ItcGame:
        try:
            players = req.num_players or (len(req.seats) if req.preset in ("default", "first_game") else None)
            cfg, name = table_config(req.preset, players, req.max_rounds, files=False)
            seats = [(kind, name or None) for kind, _, name in (s.partition(":") for s in req.seats)]
            if len(seats) != cfg.num_players:
                raise ClientError("bad_table", f"{len(seats)} seats but {cfg.num_players} teams play: one seat each")
            return cls(ItcTable(cfg, seed, seats, name))
        except ItcPlayError as e:
            raise ClientError("bad_table", str(e)) from None

    @classmethod
    def resume(cls, path: Path, name: str, on_step: Callable[[list[Event]], Any],
               title_name: str | None = None) -> ItcGame:
        """A game saved before: its record played again from the seed and checked (``Table.replay``, as
        ``subterra itc --resume``; a finished game too, to be looked at)."""
        doc = R.load(path)
        seats = [(s["player"], s.get("name") if s["player"] == "human" else None) for s in doc["seats"]]
        table = ItcTable(R.config_of(doc, name), doc["seed"], seats, str(doc.get("config_name", "default")))
        table.doc["created"] = doc.get("created", table.doc["created"])
        table.replay(doc, name, on_step=lambda line: on_step(_events([line])))
        game = cls(table)
        game.notice = []
        return game

    # --- the game now
    @property
    def g(self) -> np.ndarray:
        return self.table.g

    def actor(self) -> int:
        return -1 if self.over else int(self.g[L.ACTOR])

    def human(self, seat: int) -> bool:
        return seat >= 0 and self.table.kinds[seat] == "human"

    @property
    def over(self) -> bool:
        return self.table.over

    @property
    def truncated(self) -> bool:
        return int(self.g[L.OVER]) == L.TRUNCATED

    @property
    def decisions(self) -> int:
        return len(self.table.doc["actions"])

    def title(self) -> str:
        return self.table.title()

    def seats(self) -> list[dict[str, Any]]:
        return [{"seat": i, "team": f"team {i}", "player": lab, "human": self.human(i)}
                for i, lab in enumerate(self.labels)]

    # --- a decision
    def check_turn(self, seat: int) -> None:
        actor = self.actor()
        if seat != actor:
            raise ClientError("not_your_turn", f"it is team {actor}'s turn ({self.labels[actor]}), not seat "
                              f"{seat}'s")

    def apply(self, action: int, seat: int, think_s: float | None = None) -> list[Event]:
        """One decision of ``seat``, checked by the env: one it refuses (``IllegalActionError``) is a ClientError
        saying why, the game and the record as they were."""
        t = self.table
        try:
            line = t.apply(action, think_s if self.human(seat) else None)
        except IllegalActionError:
            raise self.refused(seat, action) from None
        lines = [t.told(line), t.new_turn()]
        if t.over:
            return _events(lines) + [Event("result", x.strip()) for x in S.final_lines(self.g, self.labels)]
        return _events(lines)

    def refused(self, seat: int, action: int) -> ClientError:
        """The client's error for an action the env refused: out of range or not legal now, with the legal ones."""
        if not 0 <= action < NUM_ACTIONS:
            return ClientError("bad_action", f"'action' {action} is out of range 0..{NUM_ACTIONS - 1} (In the Cave)")
        legal = ", ".join(ACTION_NAMES[a] for a in np.flatnonzero(self.table.env._mask))
        return ClientError("illegal_action", f"{ACTION_NAMES[action]!r} (action {action}) is not legal now for team "
                           f"{seat}; legal: {legal}")

    def bot_action(self, seat: int) -> int:
        return self.table.bot_action(seat)

    def intents(self) -> dict[int, str]:
        return {}  # In the Cave's bots do not explain themselves yet

    def quick(self, action: int) -> bool:
        return int(self.table.env._mask.sum()) <= 1 or ACTION_NAMES[action] == "end_turn"

    def hint(self, seat: int) -> dict[str, Any]:
        raise ClientError("no_hint", "hints are for Sub Terra tables (In the Cave's bots do not explain yet)")

    def hand_over(self, seat: int) -> str:
        raise ClientError("no_handover", "an In the Cave seat cannot be handed to a bot yet")

    # --- what the page and the files get
    def view(self, viewer: int | None = None) -> dict[str, Any]:
        return board_view(self.table, viewer)

    def secret(self) -> bool:
        """During the initial packing at a table with people, the record would tell the other teams' choices."""
        return bool(self.g[L.ROUND] == 0 and not self.over and "human" in self.table.kinds)

    def save(self, path: Path) -> Path:
        return self.table.save(path)

    def result_name(self) -> str:
        over = int(self.g[L.OVER])
        if over == L.TRUNCATED:
            return "truncated at the round limit"
        wins = [s for s in range(len(self.labels)) if self.g[L.WIN + s]]
        if not wins:
            return "no winner"
        return ("winners " if len(wins) > 1 else "winner ") + " and ".join(f"team {s} ({self.labels[s]})" for s in wins)

    def state_hash(self) -> str:
        return R.game_hash(self.g)
