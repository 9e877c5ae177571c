"""What the page draws for In the Cave, as plain JSON: the shared cave, every team's pawn, camp and public
inventory, the turn, and the legal actions with the cells they point at.

Read from one game's record (``subterra_env.games.in_the_cave.core.layout``), public information only, as the terminal
(``in_the_cave.screen``) and the picture (``render``) show it: never the stacks' order, and during the hidden
initial packing (R-ITC-SET-9) no other team's kit. The words are the terminal's (``in_the_cave.screen``: kit,
tokens, camp, the turn and tiles lines, AP costs, the final scores); coordinates are grid cells with home at
(0, 0), x east, y south.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from subterra_env.games.sub_terra.core.catalogue import ROT_MASK
from subterra_env.games.in_the_cave.core import actions as A
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.game import backpack, stacks_left
from subterra_env.games.in_the_cave.invariants import neighbours
from subterra_env.games.in_the_cave.observe import vp
from subterra_env.in_the_cave.render import DXY, EXIT_COLOUR, KIND_CHARS, KIND_COLOURS, ROPE_COLOUR, TEAM_COLOURS
from subterra_env.in_the_cave.render import unexplored_cells, where
from ..in_the_cave import screen as S

RESULTS = {L.RUNNING: None, L.ENDED: "ended", L.TRUNCATED: "truncated"}


def palette() -> dict[str, Any]:
    """The picture's colours (``render``) and the terminal map's kind symbols, for the page."""
    return {"kinds": {L.KIND_NAMES[k]: list(c) for k, c in KIND_COLOURS.items()},
            "chars": {L.KIND_NAMES[k]: c for k, c in KIND_CHARS.items()},
            "teams": [list(c) for c in TEAM_COLOURS], "exit": list(EXIT_COLOUR), "rope": list(ROPE_COLOUR)}


def tiles(g: np.ndarray) -> list[dict[str, Any]]:
    """Every placed tile: kind, open sides (a boulder choke: its one passage), depth, token, squeeze difficulty,
    roped sides, and drops (sides to a connected space at another depth, not roped yet: they need ropes)."""
    cells = {(int(g[L.TX + t]), int(g[L.TY + t])): t for t in range(int(g[L.N_TILES]))}
    out = []
    for (x, y), t in cells.items():
        kind = int(g[L.TKIND + t])
        opened = 1 << int(g[L.TBSIDE + t]) if kind == L.K_BOULDER else int(g[L.TOPEN + t])
        rope = int(g[L.TROPE + t])
        drop = 0
        for d, nb in neighbours(g, cells, t):
            if g[L.TDEPTH + nb] != g[L.TDEPTH + t] and not (rope >> d) & 1:
                drop |= 1 << d
        out.append({"i": t, "x": x, "y": y, "kind": L.KIND_NAMES[kind], "open": opened,
                    "depth": int(g[L.TDEPTH + t]), "token": bool(g[L.TTOKEN + t]), "sq": int(g[L.TSQ + t]),
                    "rope": rope, "drop": drop, "where": where(g, t)})
    return sorted(out, key=lambda e: e["i"])


def teams(g: np.ndarray, labels: Sequence[str], kinds: Sequence[str], viewer: int | None, hide: bool = True
          ) -> list[dict[str, Any]]:
    """Each team: pawn, VP, tokens, backpack and camp, the final score at the end. At a table with people
    (``hide``) the initial packing is hidden (R-ITC-SET-9): a person sees only their own team's kit, a watcher
    none (as ``subterra itc`` shows it; a bots-only game hides nothing)."""
    people = hide and "human" in kinds
    over = int(g[L.OVER])
    out = []
    for s, lab in enumerate(labels):
        pos, camp = int(g[L.POS + s]), int(g[L.CAMP + s])
        hidden = people and S.kit_hidden(g, s, -1 if viewer is None else viewer)
        e: dict[str, Any] = {
            "seat": s, "player": lab, "human": kinds[s] == "human", "x": int(g[L.TX + pos]), "y": int(g[L.TY + pos]),
            "where": where(g, pos), "vp": vp(g, s), "tokens": S.token_text(g, s),
            "backpack": None if hidden else S.kit(backpack(g, s)), "camp": None if hidden else S.camp_text(g, s),
            "slots": int(sum(backpack(g, s))) if not hidden else None}
        if camp > 0:  # a camp placed away from home: a tent on its space
            e["camp_x"], e["camp_y"] = int(g[L.TX + camp]), int(g[L.TY + camp])
        if over == L.ENDED:
            e.update(score=int(g[L.SCORE + s]), winner=bool(g[L.WIN + s]), eliminated=pos != 0)
        out.append(e)
    return out


def turn(g: np.ndarray, P: np.ndarray, labels: Sequence[str]) -> dict[str, Any]:
    """Whose turn, the AP, the decision waiting, the stacks; the terminal's lines for them; the result."""
    over = int(g[L.OVER])
    pend = S.pending_line(g, P)
    return {"round": int(g[L.ROUND]), "actor": int(g[L.ACTOR]) if over == L.RUNNING else -1, "ap": int(g[L.AP]),
            "packing": bool(g[L.ROUND] == 0 and over == L.RUNNING), "exhausted": bool(g[L.EXHAUSTED]),
            "pending": L.PEND_NAMES[int(g[L.PEND])], "drawn": S.drawn_tile(g, P) or None,
            "tiles_left": stacks_left(g), "discarded": int(g[L.DISCARDED]), "end_triggered": bool(g[L.END_TRIG]),
            "lines": S.head_lines(g, P, labels) + ([pend] if pend else []),
            "result": RESULTS[over], "final": S.final_lines(g, labels) if over != L.RUNNING else []}


def action_target(g: np.ndarray, P: np.ndarray, a: int) -> dict[str, int]:
    """The cell an action points at (moves, dives, crawls, placing the drawn tile or a boulder choke at an exit of
    the acting team's space), with the open sides a placement gives the drawn tile; {} for the rest."""
    if A.A_MOVE <= a < A.A_CRAWL + 4:
        d = (a - A.A_MOVE) % 4
    elif A.A_PLACE <= a < A.A_BOULDER + 4:
        d = (a - A.A_PLACE) // 4 if a < A.A_BOULDER else a - A.A_BOULDER
    else:
        return {}
    pos = int(g[L.POS + int(g[L.ACTOR])])
    out = {"x": int(g[L.TX + pos]) + DXY[d][0], "y": int(g[L.TY + pos]) + DXY[d][1]}
    if a < A.A_BOULDER and a >= A.A_PLACE and g[L.PEND_CAT] >= 0:
        r = (a - A.A_PLACE) % 4
        out["rot"], out["open"] = r, int(ROT_MASK[int(P[L.PR_CAT_MASK + int(g[L.PEND_CAT])]), r])
    return out


_DIRS = {"N": "north", "E": "east", "S": "south", "W": "west"}
_KIT = {"consumable": "consumable", "rope": "rope", "oxygen1": "oxygen (1)", "oxygen2": "oxygen (2)",
        "oxygen": "oxygen", "camera": "camera", "raft": "raft"}
_LABELS = {"end_turn": "end turn", "reveal": "reveal a tile", "explore_water": "explore the water",
           "photograph": "photograph", "camp_place": "set up camp", "camp_repack": "repack at the camp",
           "camp_abandon": "abandon the camp", "pack": "pack", "pack_done": "done packing"}
_VERBS = (("camp_take_", "camp: take {}"), ("camp_return_", "camp: put back {}"), ("to_camp_", "{} to the camp"),
          ("from_camp_", "{} from the camp"), ("take_", "take {}"), ("return_", "put back {}"),
          ("discard_", "discard {}"))


def action_label(name: str) -> str:
    """An In the Cave action id (``camp_take_consumable``, ``place_N_r1``) in words for a button; the page keys
    stay on the id."""
    if name in _LABELS:
        return _LABELS[name]
    head, _, rest = name.partition("_")
    if head in ("move", "dive", "crawl", "boulder") and rest in _DIRS:
        return f"{head} {_DIRS[rest]}"
    if head == "place":
        d, _, r = rest.partition("_")
        return f"place it {_DIRS.get(d, d)}, turned {int(r[1:]) * 90}\u00b0"
    for prefix, words in _VERBS:
        if name.startswith(prefix):
            kit = name[len(prefix):]
            return words.format(_KIT.get(kit, kit.replace("_", " ")))
    return name.replace("_", " ")


def legal_actions(core: Any, g: np.ndarray, mask: np.ndarray) -> list[dict[str, Any]]:
    """Every legal action: its name, what it costs or opens (``in_the_cave.screen.option_note``: AP found by stepping
    copies of the game), and its cell on the board where it has one."""
    legal = [int(a) for a in np.flatnonzero(mask)]
    costs = S.ap_costs(core, g, legal)
    return [{"id": a, "name": A.ACTION_NAMES[a], "label": action_label(A.ACTION_NAMES[a]),
             "note": S.option_note(g, core.P, a, costs.get(a)),
             **action_target(g, core.P, a)} for a in legal]


def board(g: np.ndarray, core: Any, labels: Sequence[str], kinds: Sequence[str], viewer: int | None,
          mask: np.ndarray | None = None, hide: bool = True) -> dict[str, Any]:
    """Everything the page draws for one moment; ``mask``: the legal actions (offered to ``viewer`` only when that
    team is to act); ``hide``: hide the initial packing from other people (``teams``)."""
    P = core.P
    t = turn(g, P, labels)
    acting = mask is not None and viewer is not None and viewer == t["actor"]
    drawn = None
    if g[L.PEND] == L.P_PLACE and g[L.PEND_CAT] >= 0:
        drawn = {"kind": L.KIND_NAMES[int(P[L.PR_CAT_KIND + int(g[L.PEND_CAT])])],
                 "sq": int(P[L.PR_CAT_SQ + int(g[L.PEND_CAT])])}
    return {"tiles": tiles(g), "frontier": [{"x": x, "y": y} for x, y in sorted(unexplored_cells(g))],
            "teams": teams(g, labels, kinds, viewer, hide), "turn": t, "drawn": drawn,
            "legal": legal_actions(core, g, mask) if acting else []}


def board_view(table: Any, viewer: int | None) -> dict[str, Any]:
    """The board of an ``in_the_cave.session.Table`` as the person at seat ``viewer`` sees it (None: watching)."""
    return board(table.g, table.env.core, table.labels, table.kinds, viewer, table.env._mask)


def replay_views(doc: dict[str, Any], where_: str = "record", max_steps: int = 5000) -> dict[str, Any]:
    """Every step of an In the Cave record as the page draws it (checked first, as ``subterra itc replay``:
    ``in_the_cave.records.replay`` raises RecordError naming the step that does not replay)."""
    from subterra_env.in_the_cave.env_aec import raw_env

    from ..in_the_cave import records as R
    from ..records import RecordError

    R.parse(doc, where_)
    n = len(doc["actions"])
    if n > max_steps:
        raise RecordError(f"{where_}: {n} decisions, over the {max_steps} a replay in the page shows")
    first = raw_env(R.config_of(doc, where_))
    first.reset(seed=doc["seed"])
    frames = [first.game.copy()]
    env = R.replay(doc, where_, on_step=lambda i, e: frames.append(e.game.copy()))
    labels = [s.get("name") or s["player"] for s in doc["seats"]]
    kinds = [s["player"] for s in doc["seats"]]
    steps = []
    for i, g in enumerate(frames):
        events = []
        if i:
            a = doc["actions"][i - 1]
            line = S.narrate(frames[i - 1], g, env.core.P, a["seat"], labels[a["seat"]], a["action"])
            events = [{"kind": "action", "text": line.strip()}]
        steps.append({"board": board(g, env.core, labels, kinds, None, hide=False), "events": events})
    res = doc["result"]
    return {"type": "replay", "game": "itc", "title": f"replay · In the Cave · seed {doc['seed']} · "
            f"{len(labels)} teams", "decisions": n, "result": res.get("result"), "finished": bool(res.get("finished")),
            "steps": steps}
