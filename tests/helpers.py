"""Small helpers for the rules tests: build scenarios, play named actions, read health and positions."""

from __future__ import annotations

import numpy as np

from subterra_env.config import CAVER_NAMES, GameConfig
from subterra_env.games.sub_terra.core.actions import ACTION_NAMES, action_id
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RESULT_NAMES, RUNNING
from subterra_env import scenario


class Game:
    """One scenario game: ``g = Game(text, **config)``; ``g.play("move E", "end turn")``."""

    def __init__(self, text: str, **cfg):
        self.core = Core(GameConfig(**cfg))
        self.st = scenario.build(text, core=self.core)
        rows = scenario.parse_sections(text)[0]
        self.start_xy = next(((x, y) for y, row in enumerate(rows) for x, tok in enumerate(row.split())
                              if tok.startswith("start")), None)
        if self.start_xy is None:
            self.start_xy = next((x, y) for y, row in enumerate(rows) for x, tok in enumerate(row.split())
                                 if tok != ".")

    # --- actions
    def legal(self) -> set[str]:
        return legal(self.core, self.st)

    def play(self, *names: str) -> None:
        play(self.core, self.st, *names)

    # --- reading the state
    def seat(self, name: str) -> int:
        return seat_of(self.st, name)

    def hp(self, name: str | None = None):
        if name is None:
            return {CAVER_NAMES[r - 1]: int(h) for r, h in zip(self.st.c_rank[0], self.st.c_hp[0])}
        return int(self.st.c_hp[0, self.seat(name)])

    def tile(self, x: int, y: int) -> int:
        """Tile index at map cell x,y (-1 = empty)."""
        st = self.st
        gx = int(st.t_x[0, 0]) + x - self.start_xy[0]
        gy = int(st.t_y[0, 0]) + y - self.start_xy[1]
        return int(st.grid[0, gy, gx])

    def pos(self, name: str) -> tuple[int, int] | None:
        """Map cell x,y of a caver (None = devoured)."""
        t = int(self.st.c_tile[0, self.seat(name)])
        return None if t < 0 else self.xy(t)

    def xy(self, t: int) -> tuple[int, int]:
        st = self.st
        return (int(st.t_x[0, t] - st.t_x[0, 0]) + self.start_xy[0],
                int(st.t_y[0, t] - st.t_y[0, 0]) + self.start_xy[1])

    def horrors(self) -> list[tuple[int, int]]:
        return [self.xy(int(t)) for t in self.st.h_tile[0] if t >= 0]

    def leapers(self) -> list[tuple[int, int]]:
        """Map cells of Extraction's leapers, oldest first (R-EXT-4)."""
        return [self.xy(int(t)) for t in self.st.l_tile[0] if t >= 0]

    def actor(self) -> str | None:
        a = int(self.st.actor[0])
        return None if a < 0 else CAVER_NAMES[self.st.c_rank[0, a] - 1]

    def result(self) -> str | None:
        r = int(self.st.result[0])
        return None if r == RUNNING else RESULT_NAMES[r]

    @property
    def ap(self) -> int:
        return int(self.st.ap[0])


def legal(core: Core, st, game: int = 0) -> set[str]:
    return {ACTION_NAMES[i] for i in np.nonzero(core.legal_mask(st)[game])[0]}


def play(core: Core, st, *names: str) -> None:
    """Take the named actions in game 0 of st, asserting each is legal first."""
    for name in names:
        a = action_id(name)
        mask = core.legal_mask(st)
        assert mask[0, a], f"{name!r} is not legal; legal: {sorted(legal(core, st))}"
        actions = np.zeros(st.batch_size, dtype=np.intp)
        actions[0] = a
        core.step(st, actions)


def seat_of(st, name: str, game: int = 0) -> int:
    rank = CAVER_NAMES.index(name) + 1
    seats = np.nonzero(st.c_rank[game] == rank)[0]
    assert len(seats) == 1, f"{name} is not at the table"
    return int(seats[0])


def scene(*rows: str, **keys) -> str:
    """Scenario text from map rows and keys: ``scene("start:E normal:W", cavers="diver@0,0", stack="exit")``.

    Underscores in key names become hyphens (``out_of_time="on"``)."""
    lines = ["map:"] + [f"  {r}" for r in rows]
    lines += [f"{k.replace('_', '-')}: {v}" for k, v in keys.items()]
    return "\n".join(lines) + "\n"
