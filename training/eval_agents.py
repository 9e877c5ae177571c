"""Team specs for training/evaluate.py. The specs, the agents they name and their seats live in ``agents.teams``
(the dataset builder of the ``subterra`` command uses them too); this module re-exports them under the names
evaluation has always used (``EvalError`` is ``agents.teams.TeamError``) and adds ``as_entry``, the reading of a
bare checkpoint path in cross-play and partner-matrix lists."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agents.teams import (DEFAULT_OBS_RADIUS, RLLIB_EXTRA, AgentCache, GamesHolder,  # noqa: F401
                          SeatGroup, SeededRandomAgent, TeamError, check_rllib_entry, check_team_size, entry_label,
                          needs_observation, observations, parse_team, seat_groups, team_label)

EvalError = TeamError  # bad evaluation input (team spec, checkpoint, config); the message names the culprit


def as_entry(e: Any) -> Any:
    """A cross-play or partner-matrix entry: agents, 'kind:ARG' specs and every name parse_team accepts
    ('random', 'heuristic', and any name added there later) as they are; a bare path (an existing file or
    directory, or a name with a '/' or ending in '.zip') is 'rllib:PATH' for a directory (an RLlib checkpoint),
    else 'policy:PATH'; anything else is kept, for parse_team to name as unknown."""
    if not isinstance(e, str) or re.match(r"[A-Za-z_]\w*:", e):
        return e
    try:
        parse_team([e])
        return e
    except EvalError:
        pass
    if Path(e).exists() or "/" in e or e.endswith(".zip"):
        return f"rllib:{e}" if Path(e).is_dir() else f"policy:{e}"
    return e
