"""A game record replayed for the page: the board after every decision, with what happened at each step.

The record is checked and played through the env by ``records.replay_record`` (the same check as
``subterra replay``: an illegal action, a seat out of turn or a result that differs is a RecordError naming the
step); nothing here decides anything about the rules. An In the Cave record (format ``in-the-cave-record``) is
replayed by ``itc_view.replay_views`` (checked as ``subterra itc replay`` checks it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from subterra_env.games.sub_terra.core.actions import NUM_ACTIONS
from ..narrate import narrate
from ..records import parse_record, replay_record, seat_labels
from .view import board_view

MAX_REPLAY_STEPS = 5000  # a full game has about a thousand decisions; more is not a record of one game


def replay_views(doc: Any, where: str = "record") -> dict[str, Any]:
    """Every step of a record as the page draws it: ``steps[0]`` the start, ``steps[i]`` after decision i."""
    from ..in_the_cave.records import FORMAT as ITC_FORMAT

    if isinstance(doc, dict) and doc.get("format") == ITC_FORMAT:
        from .itc_view import replay_views as itc_replay_views

        return itc_replay_views(doc, where, MAX_REPLAY_STEPS)
    parse_record(doc, where)
    n = len(doc["actions"])
    if n > MAX_REPLAY_STEPS:
        from ..records import RecordError

        raise RecordError(f"{where}: {n} decisions, over the {MAX_REPLAY_STEPS} a replay in the page shows")
    rep = replay_record(doc, where)
    core, cfg = rep.env.core, rep.env.config
    labels = seat_labels(doc)
    humans = {i for i, s in enumerate(doc["seats"]) if s.get("player") == "human"}
    none = np.zeros(NUM_ACTIONS, dtype=bool)  # a replay offers no actions
    steps = []
    for i, st in enumerate(rep.states):
        events = []
        if i:
            a = int(doc["actions"][i - 1]["action"])
            events = [{"kind": e.kind, "text": e.text} for e in narrate(core, rep.states[i - 1], st, a)]
        steps.append({"board": board_view(core, st, none, labels, humans, rep.env.max_cycles), "events": events})
    res = doc["result"]
    return {"type": "replay", "game": "subterra", "title": f"replay · seed {doc['seed']} · {cfg.difficulty} · {cfg.num_cavers} cavers",
            "decisions": n, "result": res.get("name"), "finished": bool(res.get("finished")), "steps": steps}
