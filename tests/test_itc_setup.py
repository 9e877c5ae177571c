"""In the Cave setup and settings: R-ITC-SET-1..10, TILE-3, the config object and presets."""

from pathlib import Path

import numpy as np
import pytest

from subterra_env.config import ConfigError
from subterra_env.in_the_cave import ItcConfig, load, preset
from subterra_env.games.in_the_cave.config import DEFAULT_TILES
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.game import ItcCore, stacks_left
from subterra_env.games.in_the_cave.scenario import Position

ROOT = Path(__file__).resolve().parents[1]


def test_set1_tile3_catalogue_counts():
    """R-ITC-SET-1, R-ITC-TILE-3: 4 stacks x 20 tiles; the box holds 20 plain, 12 water, 16 wonder, 16 squeeze (8/4/4),
    16 descent, by shape 3 X, 6 T, 5 L, 4 I, 2 D per stack."""
    cat = ItcConfig().catalogue()
    assert len(cat) == 20
    box = {k: 4 * sum(v.values()) for k, v in DEFAULT_TILES.items()}
    assert box == {"plain": 20, "water": 12, "wonder": 16, "squeeze1": 8, "squeeze2": 4, "squeeze3": 4,
                   "descent": 16}
    shapes = {s: sum(1 for _, sh in cat if sh == s) for s in "XTLID"}
    assert shapes == {"X": 3, "T": 6, "L": 5, "I": 4, "D": 2}


def test_set1_set6_bank_starts_at_component_counts():
    """R-ITC-SET-1/6: the bank holds 50 consumables, 40 ropes, 20 oxygen tokens."""
    pos = Position()
    assert [int(v) for v in pos.g[L.BANK:L.BANK + 3]] == [50, 40, 20]


def test_set2_player_range_and_config_errors():
    """R-ITC-SET-2: 2-5 teams; other values and unknown keys raise ConfigError naming them."""
    for n in (2, 3, 4, 5):
        assert ItcConfig(num_players=n).num_players == n
    for n in (1, 6):
        with pytest.raises(ConfigError, match="num_players"):
            ItcConfig(num_players=n)
    with pytest.raises(ConfigError, match="num_teams"):
        preset("default", num_teams=3)
    with pytest.raises(ConfigError, match="backpack_slots"):
        ItcConfig(backpack_slots=0)
    with pytest.raises(ConfigError, match="tiles"):
        ItcConfig(tiles={"lava": {"X": 1}})
    with pytest.raises(ConfigError, match="removed_per_stack"):
        ItcConfig(removed_per_stack=20)
    with pytest.raises(ConfigError, match="unknown preset"):
        preset("six")


@pytest.mark.parametrize("players,exits", [(2, 3), (3, 4), (4, 5), (5, 6)])
def test_set3_starting_board(players, exits):
    """R-ITC-SET-3: home base at (0,0), arms N/E/S(/W), all depth 0; 3/4/5/6 unexplored exits."""
    pos = Position(num_players=players)
    g = pos.g
    n = int(g[L.N_TILES])
    assert n == (4 if players == 2 else 5)
    assert (g[L.TX], g[L.TY], g[L.TKIND]) == (0, 0, L.K_HOME)
    assert all(g[L.TDEPTH + t] == 0 for t in range(n))
    occupied = {(int(g[L.TX + t]), int(g[L.TY + t])) for t in range(n)}
    count = 0
    for t in range(n):
        for d, (dx, dy) in enumerate(((0, -1), (1, 0), (0, 1), (-1, 0))):
            if (g[L.TOPEN + t] >> d) & 1 and (int(g[L.TX + t]) + dx, int(g[L.TY + t]) + dy) not in occupied:
                count += 1
    assert count == exits


@pytest.mark.parametrize("players,left", [(2, 12), (3, 14), (4, 16), (5, 18)])
def test_set4_stacks(players, left):
    """R-ITC-SET-4: each stack shuffled on its own, 8/6/4/2 removed unseen: 48/56/64/72 tiles in play."""
    core = ItcCore(ItcConfig(num_players=players))
    G = core.init([3, 4])
    assert stacks_left(G[0]) == [left] * 4
    assert int(G[0, L.STACK_N]) == 4 * left
    for g in G:
        for st in range(4):
            ids = g[L.STACK + st * left:L.STACK + (st + 1) * left]
            assert len(set(ids.tolist())) == left and ids.min() >= 0 and ids.max() < 20
    assert not np.array_equal(G[0, L.STACK:L.STACK + 48], G[1, L.STACK:L.STACK + 48])


def test_set5_boulder_supply_unlimited():
    """R-ITC-SET-5: boulder chokes never run out: 30 unplaceable draws in a row give 30 boulder chokes (a long
    corridor of dead ends is built so that every draw fails)."""
    pos = Position()
    g = pos.g
    n0 = int(g[L.N_TILES])
    for i in range(30):
        # a fresh space east of the last, open W and E; a tile north of the cell beyond, open S, blocks any D
        x = 2 + 2 * i
        t = pos.at(x - 1, 0)
        pos.tile(x, -1, "plain", "S")
        pos.team(0, at=t)
        g[L.AP] = 5
        pos.next_tiles(("wonder", "D"))
        pos.act("reveal")
        assert pos.legal() == ["boulder_E"]
        pos.act("boulder_E")
        pos.tile(x + 1, 0, "plain", "EW") if i < 29 else None
    kinds = g[L.TKIND:L.TKIND + int(g[L.N_TILES])]
    assert int((kinds == L.K_BOULDER).sum()) == 30 and int(g[L.DISCARDED]) == 30
    assert int(g[L.N_TILES]) == n0 + 30 + 30 + 29


def test_set6_limited_bank():
    """R-ITC-SET-6: with limited_bank the bank's count caps Pack; unlimited, the bank may go below zero."""
    pos = Position(limited_bank=True, bank_ropes=1)
    pos.act("pack", "take_rope")
    assert "take_rope" not in pos.legal() and "take_consumable" in pos.legal()
    free = Position(bank_ropes=1)
    free.act("pack", "take_rope", "take_rope")
    assert free.bp(0, "rope") == 2 and int(free.g[L.BANK + L.B_ROPE]) == -1


def test_set7_slots():
    """R-ITC-SET-7: 8 backpack slots (a packed camp covers 2), camp 4 slots; one camera and one raft per team."""
    pos = Position()
    pos.act("pack", "take_camera", "take_raft")
    assert "take_camera" not in pos.legal() and "take_raft" not in pos.legal()
    pos.act(*["take_consumable"] * 6)
    assert "take_consumable" not in pos.legal()  # 8 used
    pos.act("return_consumable", "return_consumable", "pack_done")
    pos.act("camp_repack")  # first home packing: free, covers 2 slots -> 8 used
    assert pos.seat("CAMP", 0) == L.CAMP_PACKED and pos["AP"] == 3
    pos.act("pack")
    assert "take_consumable" not in pos.legal()
    cpos = Position()
    cpos.act("pack", *["camp_take_consumable"] * 4)
    assert "camp_take_consumable" not in cpos.legal() and cpos.seat("CAMPC", 0) == 4


def test_set8_start_positions():
    """R-ITC-SET-8: pawns on the home base; camps unpacked, placed on the home base, empty."""
    g = Position(num_players=4).g
    assert [int(v) for v in g[L.POS:L.POS + 4]] == [0, 0, 0, 0]
    assert [int(v) for v in g[L.CAMP:L.CAMP + 4]] == [0, 0, 0, 0]
    assert int(g[L.CAMPC:L.CAMPC + 4 * L.NK].sum()) == 0


def test_set9_first_game_pack():
    """R-ITC-SET-9: preset first_game: 4 consumables, 1 rope, 1 oxygen, camera, raft per team."""
    core = ItcCore(preset("first_game", num_players=3))
    g = core.init([0])[0]
    for s in range(3):
        assert [int(v) for v in g[L.BP + s * L.NK:L.BP + (s + 1) * L.NK]] == [4, 1, 1, 0, 1, 1]
    assert [int(v) for v in g[L.BANK:L.BANK + 3]] == [50 - 12, 40 - 3, 20 - 3]
    assert int(g[L.ROUND]) == 1 and int(g[L.ACTOR]) == int(g[L.START])


def test_set9_free_packing_in_seat_order():
    """R-ITC-SET-9: each team packs in seat order at 0 AP (camp included: its first home packing is free), then
    the start player's first turn begins."""
    pos = Position(packing=True, seed=5)
    assert pos["PEND"] == L.P_SETUP and pos["ACTOR"] == 0 and pos["ROUND"] == 0
    pos.act("take_camera", "take_rope", "camp_take_consumable", "camp_repack", "pack_done")
    assert pos["ACTOR"] == 1 and pos.seat("CAMP", 0) == L.CAMP_PACKED
    assert pos.bp(0, "camera") == 1 and pos.seat("FIRST_PACK", 0) == 1
    pos.act("take_raft", "pack_done")
    assert pos["ROUND"] == 1 and pos["ACTOR"] == pos["START"] and pos["AP"] == 5


def test_set10_start_player_from_seed():
    """R-ITC-SET-10: the start player is drawn from the seed: the same for a seed, both seats over seeds."""
    core = ItcCore(preset("first_game"))
    starts = [int(core.init([s])[0, L.START]) for s in range(20)]
    assert starts == [int(core.init([s])[0, L.START]) for s in range(20)]
    assert set(starts) == {0, 1}


def test_presets_and_yaml():
    """Presets first_game and 2-5 players load from configs/in_the_cave/*.yaml."""
    for name, n in (("two", 2), ("three", 3), ("four", 4), ("five", 5)):
        assert load(ROOT / "configs" / "in_the_cave" / f"{name}.yaml").num_players == n
    assert load(ROOT / "configs" / "in_the_cave" / "first_game.yaml").initial_pack == "fixed"
