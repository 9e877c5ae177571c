"""The info every interface reports about a game: one definition for the AEC env, the vector envs, the single-agent
adapter and the RLlib env, so their keys and value types agree.

Every value is a plain int, never None or a string: frameworks turn each info value into a tensor (TorchRL's
PettingZooWrapper calls ``torch.as_tensor`` on every one, which refuses None and strings). ``result`` is a code:

| code | ``RESULTS[code + 1]`` | meaning |
|---:|---|---|
| -1 | running | the game has not ended (also a game truncated after ``max_cycles`` rounds) |
| 0 | defeat | |
| 1, 2, 3 | bronze, silver, gold | the medal (R-RND-3) |

``result_name(info["result"])`` gives the name.
"""

from __future__ import annotations

import operator

import numpy as np

from .games.sub_terra.core.kernels import counts_batch
from .games.sub_terra.core.state import RESULT_NAMES, RUNNING, State, take_rows

RESULTS: tuple[str, ...] = ("running",) + RESULT_NAMES  # RESULTS[code + 1] names a result code
INFO_KEYS: tuple[str, ...] = ("result", "escaped", "round", "hazard_cards_left", "tiles_left")


def result_name(code: int) -> str:
    """``"running"``, ``"defeat"``, ``"bronze"``, ``"silver"`` or ``"gold"`` for a ``result`` code (-1..3)."""
    code = operator.index(code)  # TypeError for floats and strings
    if not RUNNING <= code < len(RESULT_NAMES):
        raise ValueError(f"result code {code}: expected -1 (running) .. 3 (gold)")
    return RESULTS[code + 1]


def game_info(st: State, g: int) -> dict[str, int]:
    """``result`` (a code: -1 running, 0 defeat, 1 bronze, 2 silver, 3 gold), ``escaped`` (cavers on the exit),
    ``round``, ``hazard_cards_left`` and ``tiles_left`` (public counts) of game g; all ints (``INFO_KEYS``)."""
    out = np.empty((len(INFO_KEYS), 1), np.int64)
    # counts_batch over the one game: the same kernel as batch_info (game_counts stays a callee of the compiled
    # entries, so the machine code shipped for them covers it: core/portable.py)
    counts_batch(st.packed[g:g + 1], st.stack.shape[1], out)
    return dict(zip(INFO_KEYS, out[:, 0].tolist()))


def batch_info(st: State, rows: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """``game_info`` of every game of a batch at once, as (B,) int64 arrays (``INFO_KEYS``): for interfaces that
    report the info of every slot each step (the TorchRL env) without a Python loop over games. ``rows``: only
    these games, (len(rows),) arrays."""
    packed = st.packed if rows is None else take_rows(st.packed, rows)
    out = np.empty((len(INFO_KEYS), len(packed)), np.int64)
    counts_batch(packed, st.stack.shape[1], out)  # the core's game_counts, once per game
    return dict(zip(INFO_KEYS, out))
