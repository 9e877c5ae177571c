"""One In the Cave game at a table, below both the terminal (``play``) and the browser (``subterra_game.web``):
the AEC env, who plays each team's seat, their bots, the narration of each decision and the record being written
(``records``). Nothing here reads a keyboard or a socket.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from subterra_env.config import ConfigError
from subterra_env.games.in_the_cave.config import PRESETS, ItcConfig, load, preset
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.actions import ACTION_NAMES
from subterra_env.in_the_cave.env_aec import raw_env

from ..records import default_record_name
from . import records as R
from . import screen as S


class ItcPlayError(ValueError):
    """Bad command-line input; the message says what and how to fix it."""


def parse_seats(text: str | None, players: int | None, watch: bool) -> list[tuple[str, str | None]]:
    """(kind, person's name) per seat; default: seat 0 human, the others heuristic (all heuristic with --watch)."""
    if text is None:
        n = players or 2
        return [("heuristic", None)] * n if watch else [("human", None)] + [("heuristic", None)] * (n - 1)
    seats = []
    for i, e in enumerate(x.strip().lower() for x in text.split(",")):
        kind, _, name = e.partition(":")
        if kind not in R.PLAYERS or (name and kind != "human"):
            raise ItcPlayError(f"--seats entry {i} {e!r}: expected human, human:NAME, heuristic or random")
        seats.append((kind, name or None))
    if players is not None and len(seats) != players:
        raise ItcPlayError(f"--seats lists {len(seats)} seats but {players} teams play: give one per team")
    if watch and any(k == "human" for k, _ in seats):
        raise ItcPlayError("--watch plays bots only: drop the human seats")
    return seats


def table_config(config: str | None, players: int | None, max_rounds: int | None, files: bool = True
                 ) -> tuple[ItcConfig, str]:
    """Settings from --config (a preset name or, with ``files``, a YAML file) and the flags that override it; the
    browser tables (``subterra_game.web``) pass ``files=False``: a client never names a file on the server."""
    try:
        if config and files and Path(config).is_file():
            cfg, name = load(config), Path(config).stem
        elif config in PRESETS:
            cfg, name = preset(config), str(config)
        elif config:
            raise ItcPlayError(f"--config {config!r}: {'no such file, and ' if files else ''}not a preset "
                               f"({', '.join(PRESETS)})")
        else:
            cfg, name = ItcConfig(), "default"
        over: dict[str, Any] = {}
        if players is not None:
            over["num_players"] = players
        if max_rounds is not None:
            over["max_rounds"] = max_rounds
        return (cfg.replace(**over) if over else cfg), name
    except ConfigError as e:
        raise ItcPlayError(str(e)) from None


class Table:
    """One game: the AEC env, who plays each seat, their bots, the record being written."""

    def __init__(self, cfg: ItcConfig, seed: int, seats: list[tuple[str, str | None]], name: str = "default"):
        self.env = raw_env(cfg)
        if len(seats) != self.env.seats:
            raise ItcPlayError(f"--seats lists {len(seats)} seats but the config seats {self.env.seats} teams")
        self.env.reset(seed=seed)
        self.seed, self.name, self.kinds = seed, name, [k for k, _ in seats]
        self.packing = False  # the last decision was part of the initial packing
        self.turn: tuple[int, int] | None = None  # (round, seat) of the last turn told (``new_turn``)
        people = [i for i, k in enumerate(self.kinds) if k == "human"]
        self.labels = [(nm or ("you" if len(people) == 1 else f"person {people.index(i) + 1}")) if k == "human" else k
                       for i, (k, nm) in enumerate(seats)]
        from agents.in_the_cave import HeuristicTeam, RandomTeam

        heuristic = HeuristicTeam(self.env)
        self.bots = {i: heuristic if k == "heuristic" else RandomTeam(seed * 10 + i)
                     for i, k in enumerate(self.kinds) if k != "human"}
        self.doc = R.new_record(cfg, seed, [
            {"seat": i, "team": f"team_{i}", "player": k, **({"name": self.labels[i]} if k == "human" else {})}
            for i, k in enumerate(self.kinds)], name)

    @property
    def g(self) -> np.ndarray:
        return self.env.game

    @property
    def over(self) -> bool:
        return int(self.g[L.OVER]) != L.RUNNING

    def seat(self) -> int:
        return self.env.possible_agents.index(self.env.agent_selection)

    def legal(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.env.observe(self.env.agent_selection)["action_mask"])]

    def bot_action(self, seat: int) -> int:
        obs = self.env.observe(self.env.agent_selection)
        return int(self.bots[seat].act(obs, obs["action_mask"]))

    def apply(self, action: int, think_s: float | None = None) -> str:
        """One decision of the acting team through the env; the record follows (``think_s``: a person's time to
        decide, kept in the record as Sub Terra's records do); returns its narration."""
        seat, before, snap = self.seat(), self.g.copy(), self.env.get_state()
        self.packing = before[L.ROUND] == 0  # the initial packing (R-ITC-SET-9)
        n = len(self.doc["actions"])
        try:
            self.env.step(int(action))
            self.doc["actions"].append({"step": n, "seat": seat, "action": int(action),
                                        "name": ACTION_NAMES[int(action)], "player": self.kinds[seat],
                                        **({"think_s": round(float(think_s), 3)} if think_s is not None else {})})
        except BaseException:  # Ctrl-C half way: the game and the record stay as they were
            self.env.set_state(snap)
            del self.doc["actions"][n:]
            raise
        return S.narrate(before, self.g, self.env.core.P, seat, self.labels[seat], int(action))

    def told(self, line: str, entry: dict[str, Any] | None = None, packing: bool | None = None) -> str | None:
        """What everyone at the table is told of a decision (``entry``, default the last; ``packing``: it was part
        of the initial packing, default ``self.packing``). While the teams pack (R-ITC-SET-9: hidden until all
        have packed) at a table with people, another team's choices are not told, only that it is done (a lone
        person's own choices are); None: nothing is told."""
        last = entry if entry is not None else self.doc["actions"][-1]
        people = self.kinds.count("human")
        own = people == 1 and self.kinds[last["seat"]] == "human"
        if (self.packing if packing is None else packing) and people and not own:
            if ACTION_NAMES[int(last["action"])] == "pack_done":
                return (f"  team {last['seat']} ({self.labels[last['seat']]}): done packing (hidden until every team "
                        "has packed)")
            return None
        return line

    def new_turn(self) -> str | None:
        """The turn line (``-- round 3: team 1 (heuristic), 5 AP``) once, when a turn has begun since the last
        call (not during the initial packing, not after the end)."""
        now = (int(self.g[L.ROUND]), self.seat())
        if self.over or not now[0] or now == self.turn:
            return None
        self.turn = now
        return S.turn_line(self.g, self.labels)

    def replay(self, doc: dict[str, Any], where: str = "record", on_step: Callable[[str | None], Any] | None = None
               ) -> None:
        """Play a saved game's decisions again from this table's start (resuming it), checked as a replay
        (``records.replay``: a seat out of turn or an illegal action is a RecordError naming the step);
        ``on_step`` gets what ``told`` says of each decision. The record keeps who took them then."""
        before = [self.g.copy()]

        def tell(i: int, env: raw_env) -> None:
            a = doc["actions"][i]
            line = S.narrate(before[0], self.g, env.core.P, a["seat"], self.labels[a["seat"]], a["action"])
            on_step(self.told(line, a, packing=bool(before[0][L.ROUND] == 0)))
            before[0] = self.g.copy()

        R.replay(doc, where, verify=False, env=self.env, on_step=tell if on_step else None)
        self.doc["actions"] = [dict(a) for a in doc["actions"]]  # who took them then, whoever plays on

    def title(self) -> str:
        return f"In the Cave · seed {self.seed} · {self.name} · {self.env.seats} teams"

    def save(self, path: str | Path) -> Path:
        return R.save(R.finish(self.doc, self.env), path)


def record_name(seed: int, finished: bool = True) -> str:
    """A default file name for a record (``itc-<date>-seed7[-unfinished].json``)."""
    return default_record_name(seed, finished, prefix="itc")
