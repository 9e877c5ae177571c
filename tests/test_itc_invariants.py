"""The invariant checker reports each kind of broken record, in words (the compiled checks of core/audit.py
behind ``invariants.check``), and ``check_batch`` finds the same games as ``check`` one by one."""

from __future__ import annotations

import numpy as np
import pytest

from subterra_env.in_the_cave import preset
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.game import ItcCore
from subterra_env.games.in_the_cave.invariants import check, check_batch
from random_play import random_legal

CFG = preset("first_game", num_players=2, limited_bank=True)  # 8 backpack slots, 4 camp slots, 50/38/18 bank


def fresh() -> np.ndarray:
    """Seed 3 at its first decision: 4 board spaces, both teams packed (4 consumables, rope, oxygen, camera,
    raft) on the home base, camps on the home base; the bank holds 42 consumables, 36 ropes, 16 oxygen."""
    return ItcCore(CFG).init([3])[0].copy()


def mid_game() -> np.ndarray:
    """Seed 3 after 400 weighted random steps: 7 tiles; a rope between board space 2 (side E) and the descent
    tile 6 (25 m, side W); water tile 4 emptied (tile 5 still holds its token); seat 0 holds 1 traverse line."""
    core = ItcCore(CFG)
    G, rng = core.init([3]), np.random.default_rng(0)
    w = np.ones(81)
    w[0], w[13:34] = 0.05, 20.0
    for _ in range(400):
        core.step(G, [random_legal(core.masks(G)[0], rng, weights=w)])
    return G[0].copy()


def test_the_records_are_sound():
    g, m = fresh(), mid_game()
    assert check(g, CFG) == [] and check(m, CFG) == []
    assert int(m[L.N_TILES]) == 7 and int(m[L.TROPE + 2]) == 2 and int(m[L.TROPE + 6]) == 8
    assert int(m[L.TDEPTH + 6]) == 25 and list(m[L.TRAV:L.TRAV + 2]) == [1, 0]


def broken(base: str, *edits: tuple[int, int]) -> list[str]:
    g = fresh() if base == "fresh" else mid_game()
    for field, value in edits:
        g[field] = value
    return check(g, CFG)


@pytest.mark.parametrize("base, edits, wanted", [
    ("fresh", [(L.BANK, 43)], ["consumables: bank + held + lost = 51, expected 50"]),
    ("fresh", [(L.BANK + 1, -1), (L.LOST + 1, 37)], ["ropes: limited bank below 0"]),
    ("fresh", [(L.BP + L.E_CONS, 7), (L.BANK, 47)], ["seat 0: backpack uses 11 > 8 slots"]),
    ("fresh", [(L.CAMPC + L.NK + L.E_ROPE, 5), (L.BANK + 1, 31)], ["seat 1: camp holds 5 > 4"]),
    ("fresh", [(L.CAMPC + L.E_CAMERA, 1)], ["seat 0: camera count 2, lost 0"]),
    ("fresh", [(L.RAFT_LOST + 1, 1)], ["seat 1: raft count 1, lost 1"]),
    ("fresh", [(L.CAMP, L.CAMP_GONE), (L.CAMPC + L.E_CONS, 1), (L.BANK, 41)],
     ["seat 0: an abandoned camp holds tokens"]),
    ("fresh", [(L.POS + 1, 4)], ["seat 1: pawn on tile 4"]),
    ("fresh", [(L.STACK_POS, 2)], ["4 tiles on the table after 2 draws (placing: False)"]),
    ("mid", [(L.TX + 6, 100), (L.TY + 6, 100)],
     ["1 tiles not connected to the home base", "tile 6 (descent) at depth 25: no neighbour it was revealed from",
      "rope on tile 2 side 1 not on both tiles", "rope on tile 6 side 3 not on both tiles",
      "traverse lines 1 != ropes on roped edges 0"]),
    ("mid", [(L.TDEPTH + 1, 25)], ["board space 1 at depth 25"]),
    ("mid", [(L.TTOKEN + 3, 1)], ["tile 3 (board) holds a token"]),
    ("mid", [(L.TDEPTH + 6, 0)], ["rope between tiles 2 and 6 of the same depth",
                                  "rope between tiles 6 and 2 of the same depth"]),
    ("mid", [(L.TTOKEN + 4, 1)], ["water tokens held 1 != taken from tiles 0"]),
    ("mid", [(L.SQ + 2, 1)], ["squeeze 3 tokens held 1 != taken from tiles 0"]),
    ("mid", [(L.TRAV + 1, 1)], ["traverse lines 2 != ropes on roped edges 1"]),
])
def test_each_broken_invariant_is_reported(base, edits, wanted):
    errs = broken(base, *edits)
    for message in wanted:
        assert message in errs, errs


def test_wrong_final_scores_are_reported_with_the_recount():
    """Seat 0 on the home base with a photo token from a (fake) emptied wonder: 2 VP + 8 for the photo
    majority; the record says 0."""
    errs = broken("fresh", (L.OVER, L.ENDED), (L.PHOTO, 1))
    assert errs[-1].endswith("!= recount [10, 0]") and errs[-1].startswith("scores [")
    assert broken("fresh", (L.OVER, L.ENDED)) == []  # nothing held: 0 each, as recorded


def test_batch_check_finds_the_games_that_fail():
    g = fresh()
    G = np.stack([g, g, g])
    G[1, L.POS + 1] = 4
    assert check_batch(G, CFG, np.arange(3)) == {1: ["seat 1: pawn on tile 4"]}
    assert check_batch(G, CFG, np.array([0, 2])) == {}
