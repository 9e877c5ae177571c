"""The info every interface reports about a game: one definition for the AEC env, the vector envs and the
single-agent adapter, so their keys agree."""

from __future__ import annotations

from typing import Any

from .core.state import RESULT_NAMES, State


def game_info(st: State, g: int) -> dict[str, Any]:
    """``result`` (None while running, else defeat/bronze/silver/gold), ``escaped`` (cavers on the exit),
    ``round``, ``hazard_cards_left`` and ``tiles_left`` (public counts) of game g."""
    result = int(st.result[g])
    return {
        "result": RESULT_NAMES[result] if result >= 0 else None,
        "escaped": int(((st.c_tile[g] == st.exit_tile[g]) & (st.exit_tile[g] >= 0)).sum()),
        "round": int(st.round[g]),
        "hazard_cards_left": int((st.deck[g] >= 0).sum() - st.deck_pos[g]),
        "tiles_left": int(st.stack.shape[1] - st.stack_pos[g]),
    }
