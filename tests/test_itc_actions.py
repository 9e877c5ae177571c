"""In the Cave actions on constructed positions: R-ITC-ACT-1..15, TILE-1/2.

Board (2 players): tile 0 home base (0,0) open N/E/S; 1 N arm (0,-1); 2 E arm (1,0); 3 S arm (0,1). y grows south.
"""

import pytest

from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.actions import IllegalActionError
from subterra_env.games.in_the_cave.scenario import Position

N_ARM, E_ARM = 1, 2


def test_act1_reveal_and_place_rotations():
    """R-ITC-ACT-1: reveal costs 1 AP; a straight fits north of the N arm in one orientation; the tile is
    placed open N and S at depth 0."""
    pos = Position()
    pos.team(0, at=N_ARM)
    pos.next_tiles(("plain", "I"))
    pos.act("reveal")
    assert pos["AP"] == 4 and pos["PEND"] == L.P_PLACE and pos.legal() == ["place_N_r0"]
    pos.act("place_N_r0")
    t = pos.at(0, -2)
    assert pos.tile_field(t, "TKIND") == L.K_PLAIN and pos.tile_field(t, "TOPEN") == 0b0101
    assert pos.tile_field(t, "TDEPTH") == 0 and pos["AP"] == 4 and pos["PEND"] == L.P_NONE


def test_act1_every_neighbour_must_match():
    """R-ITC-ACT-1: with a rock side east of the new cell, a T (N,E,S base) fits only turned 2 (S,W,N); a corner
    offers both orientations open toward the revealer; boulder chokes match anything."""
    pos = Position()
    pos.team(0, at=N_ARM)
    pos.tile(1, -2, "plain", "NS")  # its W side is rock
    pos.next_tiles(("plain", "T"), ("plain", "L"))
    pos.act("reveal")
    assert pos.legal() == ["place_N_r2"]
    free = Position()
    free.team(0, at=N_ARM)
    free.next_tiles(("plain", "L"))
    free.act("reveal")
    assert free.legal() == ["place_N_r1", "place_N_r2"]
    bould = Position()
    bould.team(0, at=N_ARM)
    bould.boulder(1, -2, "S")
    bould.next_tiles(("plain", "X"))
    bould.act("reveal")
    assert bould.legal() == ["place_N_r0"]


def test_act1_reveal_needs_exit_and_tiles():
    """R-ITC-ACT-1: no reveal from the home base or without an unexplored exit or with the stacks empty."""
    pos = Position()
    assert "reveal" not in pos.legal()  # home base
    pos.g[L.TOPEN + 0] |= 8  # even with an opening facing an empty cell
    assert "reveal" not in pos.legal()
    pos.team(0, at=N_ARM)
    assert "reveal" in pos.legal()
    pos.g[L.STACK_POS] = pos["STACK_N"]
    assert "reveal" not in pos.legal()


def test_act2_boulder_choke_when_nothing_fits():
    """R-ITC-ACT-2, ACT-3, TILE-1: a dead end that fits no exit is discarded face up; the revealer places a boulder
    choke, at its space's depth, passable only toward the space it was revealed from."""
    pos = Position()
    pos.team(0, at=N_ARM)
    pos.tile(1, -2, "plain", "W")  # faces the new cell: a dead end open S cannot match it
    pos.next_tiles(("wonder", "D"))
    pos.act("reveal")
    assert pos["PEND"] == L.P_BOULDER and pos.legal() == ["boulder_N"] and pos["DISCARDED"] == 1
    pos.act("boulder_N")
    b = pos.at(0, -2)
    assert pos.tile_field(b, "TKIND") == L.K_BOULDER and pos.tile_field(b, "TBSIDE") == 2
    assert pos.tile_field(b, "TDEPTH") == 0 and pos.tile_field(b, "TTOKEN") == 0
    pos.act("move_N")  # R-ITC-ACT-4: a boulder choke costs 1
    assert pos.seat("POS", 0) == b and pos["AP"] == 3
    assert "move_E" not in pos.legal() and "reveal" not in pos.legal()  # no passage east; never revealed from


def test_act3_tokens_and_depth():
    """R-ITC-ACT-3: a descent is 25 m below its revealer, with no token; a squeeze gets its token d, water and
    wonder theirs; other tiles take the revealer's depth."""
    pos = Position()
    pos.tile(0, -2, "plain", "NS", depth=50)
    pos.tile(0, -3, "plain", "NS", depth=50)
    pos.next_tiles(("descent", "X"))
    pos.team(0, at=pos.at(0, -3))
    pos.act("reveal", "place_N_r0")
    d = pos.at(0, -4)
    assert pos.tile_field(d, "TDEPTH") == 75 and pos.tile_field(d, "TTOKEN") == 0
    pos.team(0, at=E_ARM)
    pos.next_tiles(("squeeze3", "D"))
    pos.act("reveal", "place_E_r3")
    s = pos.at(2, 0)
    assert (pos.tile_field(s, "TKIND"), pos.tile_field(s, "TSQ"), pos.tile_field(s, "TTOKEN")) == (L.K_SQUEEZE, 3, 1)
    assert pos.tile_field(s, "TDEPTH") == 0


def test_act4_move_costs_and_water():
    """R-ITC-ACT-4, R-ITC-ACT-7, R-ITC-ACT-15: plain 1 AP; water needs a raft (1 AP, token stays) or a dive
    (2 AP + oxygen, token taken; a 2-tank token turns to its 1-tank side)."""
    pos = Position()
    w = pos.tile(0, -2, "water", "NS")
    pos.team(0, at=N_ARM)
    assert "move_N" not in pos.legal() and "dive_N" not in pos.legal()
    pos.team(0, raft=1)
    pos.act("move_N")
    assert pos["AP"] == 4 and pos.tile_field(w, "TTOKEN") == 1 and pos.seat("WATER", 0) == 0
    pos.team(0, at=N_ARM, raft=0, oxygen2=1)
    pos.act("dive_N")
    assert pos["AP"] == 2 and pos.tile_field(w, "TTOKEN") == 0 and pos.seat("WATER", 0) == 1
    assert pos.bp(0, "oxygen2") == 0 and pos.bp(0, "oxygen1") == 1
    pos.act("move_S")
    assert pos["AP"] == 1


def test_act4_act10_squeeze():
    """R-ITC-ACT-4, R-ITC-ACT-10: entering a squeeze of difficulty 2 costs 3 AP; the first team to Move in takes
    its token, the next pays the same and gets none."""
    pos = Position()
    s = pos.tile(0, -2, "squeeze", "NS", squeeze=2)
    pos.team(0, at=N_ARM)
    pos.team(1, at=N_ARM, consumable=1)  # pays its upkeep (R-ITC-TURN-2)
    pos.act("move_N")
    assert pos["AP"] == 2 and pos.seat("SQ", 0, 1) == 1 and pos.tile_field(s, "TTOKEN") == 0
    pos.act("end_turn")
    assert pos["ACTOR"] == 1
    pos.act("move_N")
    assert pos["AP"] == 2 and pos.seat("SQ", 1, 1) == 0


def test_act5_act6_ropes_and_depth_tokens():
    """R-ITC-ACT-5, R-ITC-ACT-6: 25 m down: 1 rope + 1 AP entry, one traverse line token, the 25 m depth token; the edge
    stays roped: the next team pays only the entry, gets neither token. 50 m needs 2 ropes (3 AP)."""
    pos = Position()
    d = pos.tile(0, -2, "descent", "NS", depth=25, walled=True)
    pos.team(0, at=N_ARM, rope=1)
    pos.team(1, at=N_ARM, rope=1, consumable=1)
    pos.act("move_N")
    assert pos["AP"] == 3 and pos.bp(0, "rope") == 0 and pos.seat("TRAV", 0) == 1
    assert pos.seat("DEPTH_TOK", 0, 1) == 1 and pos.tile_field(d, "TROPE") == 4
    assert pos.tile_field(N_ARM, "TROPE") == 1
    pos.act("end_turn", "move_N")
    assert pos["AP"] == 4 and pos.bp(1, "rope") == 1 and pos.seat("TRAV", 1) == 0
    assert pos.seat("DEPTH_TOK", 1, 1) == 0
    deep2 = Position(num_players=4)  # 4 players: the N arm also opens east (R-ITC-SET-3)
    t = deep2.tile(1, -1, "plain", "W", depth=50)
    deep2.team(0, at=N_ARM, rope=1)
    assert "move_E" not in deep2.legal()
    deep2.team(0, rope=2)
    deep2.act("move_E")
    assert deep2["AP"] == 2 and deep2.seat("POS", 0) == t and deep2.seat("TRAV", 0) == 2
    assert deep2.seat("DEPTH_TOK", 0, 2) == 1 and deep2.seat("DEPTH_TOK", 0, 1) == 0


def test_act5_rope_with_water_costs_its_own():
    """R-ITC-ACT-5 [default]: roping down into water costs the ropes plus the dive (2 AP)."""
    pos = Position()
    pos.tile(0, -2, "water", "NS", depth=25)
    pos.team(0, at=N_ARM, rope=1, oxygen2=1)
    pos.act("dive_N")
    assert pos["AP"] == 2 and pos.seat("WATER", 0) == 1 and pos.seat("TRAV", 0) == 1


def test_act6_no_depth_token_for_depth_zero_or_held():
    """R-ITC-ACT-6: climbing back to depth 0 over a new rope gives no depth token; a held depth is not taken twice."""
    pos = Position()
    d = pos.tile(0, -2, "descent", "NS", depth=25, walled=True)
    pos.team(0, at=d, rope=1)
    pos.act("move_S")
    assert pos.seat("POS", 0) == N_ARM and pos.seat("TRAV", 0) == 1
    assert sum(pos.seat("DEPTH_TOK", 0, k) for k in range(L.LEVELS)) == 0


def test_act8_explore_water():
    """R-ITC-ACT-8: on water still holding its token (entered by raft), 1 AP + 1 oxygen takes it; a 1-tank
    token is spent first and returns to the bank (ACT-15)."""
    pos = Position()
    w = pos.tile(0, -2, "water", "NS")
    pos.team(0, at=w, oxygen1=1, oxygen2=1)
    bank = int(pos.g[L.BANK + L.B_OX])
    pos.act("explore_water")
    assert pos["AP"] == 4 and pos.seat("WATER", 0) == 1 and pos.tile_field(w, "TTOKEN") == 0
    assert (pos.bp(0, "oxygen1"), pos.bp(0, "oxygen2")) == (0, 1) and int(pos.g[L.BANK + L.B_OX]) == bank + 1
    assert "explore_water" not in pos.legal()


def test_act9_photograph():
    """R-ITC-ACT-9: on a wonder with its token and the camera packed: 1 AP, the photo token; the camera stays."""
    pos = Position()
    w = pos.tile(0, -2, "wonder", "NS")
    pos.team(0, at=w)
    assert "photograph" not in pos.legal()
    pos.team(0, camera=1)
    pos.act("photograph")
    assert pos["AP"] == 4 and pos.seat("PHOTO", 0) == 1 and pos.bp(0, "camera") == 1
    assert "photograph" not in pos.legal()


def test_act11_crawl():
    """R-ITC-ACT-11: only with all 5 AP: enter a space 50 m down with no rope, no tokens; the turn ends."""
    pos = Position()
    s = pos.tile(0, -2, "squeeze", "NS", depth=50, squeeze=1)
    pos.team(0, at=N_ARM, consumable=3)
    assert "move_N" not in pos.legal()
    pos.act("crawl_N")
    assert pos.seat("POS", 0) == s and pos["ACTOR"] == 1
    assert pos.seat("SQ", 0, 0) == 0 and pos.tile_field(s, "TTOKEN") == 1 and pos.seat("TRAV", 0) == 0
    pos2 = Position()
    pos2.tile(0, -2, "plain", "NS")
    pos2.team(0, at=N_ARM, consumable=1)
    pos2.act("discard_consumable")  # free actions leave the 5 AP
    assert "crawl_N" in pos2.legal()
    pos2.act("move_N")
    assert "crawl_S" not in pos2.legal()


def test_act12_pack():
    """R-ITC-ACT-12: 2 AP on the home base, then free exchanges with the bank; the camera comes only from home."""
    pos = Position()
    pos.act("pack", "take_consumable", "take_oxygen2", "take_camera", "return_consumable", "pack_done")
    assert pos["AP"] == 3 and pos.bp(0, "oxygen2") == 1 and pos.bp(0, "camera") == 1 and pos.bp(0, "consumable") == 0
    assert int(pos.g[L.BANK + L.B_CONS]) == 50 and int(pos.g[L.BANK + L.B_OX]) == 19
    pos.act("pack")
    pos.act("return_camera", "camp_take_camera", "pack_done")  # camera into the camp placed at home
    pos.act("end_turn", "end_turn")
    pos.act("pack")
    assert "take_camera" not in pos.legal()  # it is in the camp, not at home
    away = Position()
    away.team(0, at=N_ARM)
    assert "pack" not in away.legal()


def test_act13_camp_place_exchange_repack_abandon():
    """R-ITC-ACT-13: repack at home first time free; place (2 AP) anywhere; exchange for free on its space;
    repack (1 AP) needs 2 free slots; abandon only at home, packed: the camp and contents leave the game."""
    pos = Position()
    pos.team(0, consumable=2, rope=1)
    pos.act("camp_repack")
    assert pos["AP"] == 5 and pos.seat("CAMP", 0) == L.CAMP_PACKED
    pos.act("move_N", "camp_place")
    assert pos.seat("CAMP", 0) == N_ARM and pos["AP"] == 2
    pos.act("to_camp_rope", "to_camp_consumable")
    assert pos["AP"] == 2 and pos.seat("CAMPC", 0, L.E_ROPE) == 1 and pos.bp(0, "rope") == 0
    pos.act("camp_repack")
    assert pos["AP"] == 1 and pos.seat("CAMP", 0) == L.CAMP_PACKED
    assert "to_camp_consumable" not in pos.legal() and "from_camp_rope" not in pos.legal()
    assert "camp_abandon" not in pos.legal()  # not on the home base
    pos.act("move_S", "camp_abandon")
    assert pos.seat("CAMP", 0) == L.CAMP_GONE and int(pos.g[L.LOST + L.B_ROPE]) == 1
    assert int(pos.g[L.LOST + L.B_CONS]) == 1
    full = Position()
    full.team(0, at=N_ARM, camp=N_ARM, consumable=7)
    assert "camp_repack" not in full.legal()
    full.act("discard_consumable")
    assert "camp_repack" in full.legal()


def test_act13_only_owner_uses_camp():
    """R-ITC-ACT-13 [default]: another team on the space cannot use the camp."""
    pos = Position()
    pos.team(1, at=0, camp=N_ARM, camp_rope=1)
    pos.team(0, at=N_ARM, camp=0)
    assert not any(a.startswith("from_camp") for a in pos.legal())


def test_act14_discard():
    """R-ITC-ACT-14: discards are free and return to the bank; a discarded camera is lost for the game."""
    pos = Position()
    pos.team(0, rope=1, camera=1)
    bank = int(pos.g[L.BANK + L.B_ROPE])
    pos.act("discard_rope", "discard_camera")
    assert pos["AP"] == 5 and int(pos.g[L.BANK + L.B_ROPE]) == bank + 1 and pos.seat("CAM_LOST", 0) == 1
    pos.act("pack")
    assert "take_camera" not in pos.legal()


def test_tile1_connections():
    """R-ITC-TILE-1: spaces connect only where both sides are open (or through a boulder choke's one passage)."""
    pos = Position()
    pos.tile(0, -2, "plain", "E")  # rock toward the N arm's open N side
    pos.team(0, at=N_ARM)
    assert "move_N" not in pos.legal() and "reveal" not in pos.legal()


def test_tile2_kinds_in_the_stacks():
    """R-ITC-TILE-2: the stacks hold plain, water, wonder, squeeze 1-3 and descent tiles; board spaces and the
    home base are their own kinds."""
    pos = Position()
    cats = pos.g[L.STACK:L.STACK + pos["STACK_N"]]
    kinds = {int(pos.core.P[L.PR_CAT_KIND + c]) for c in cats}
    assert kinds == {L.K_PLAIN, L.K_WATER, L.K_WONDER, L.K_SQUEEZE, L.K_DESCENT}
    assert [pos.tile_field(t, "TKIND") for t in range(4)] == [L.K_HOME, L.K_BOARD, L.K_BOARD, L.K_BOARD]


def test_illegal_action_leaves_the_game_unchanged():
    """An illegal action raises, names the legal ones, and changes nothing."""
    pos = Position()
    before = pos.G.copy()
    with pytest.raises(IllegalActionError, match="legal:.*pack"):
        pos.act("reveal")
    assert (pos.G == before).all()
