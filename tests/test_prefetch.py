"""The batch loops' prefetch (core/prefetch.py): a hint, compiled inside other kernels, that stops at the batch's
end and changes no record."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from subterra_env.games.sub_terra.core.prefetch import prefetch_game
from subterra_env.games.sub_terra.core.rules import Core


@numba.njit
def _first_results(states) -> np.ndarray:
    """Each record's result (-1: running), read after asking for the records ahead of it as the batch loops do."""
    out = np.empty(states.shape[0], dtype=np.int64)
    for b in range(states.shape[0]):
        prefetch_game(states, b)
        out[b] = states[b].result
    return out


@pytest.mark.parametrize("batch", [1, 2, 3, 64])
def test_prefetch_at_every_batch_size_changes_no_record(batch: int) -> None:
    st = Core().init(np.arange(batch))
    before = st.packed.tobytes()
    assert _first_results(st.packed).tolist() == [-1] * batch
    assert st.packed.tobytes() == before


def test_prefetch_in_views_of_a_batch_changes_no_record() -> None:
    st = Core().init(np.arange(16))
    before = st.packed.tobytes()
    assert _first_results(st.packed[5:10]).tolist() == [-1] * 5  # part-way into the batch
    assert _first_results(st.packed[::3]).tolist() == [-1] * 6  # a step between its records
    assert st.packed.tobytes() == before
