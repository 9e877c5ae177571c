"""In the Cave turns, scoring and the end: R-ITC-TURN-1..4, SCORE-1..4, END-1..4."""

from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.scenario import Position

N_ARM, E_ARM, S_ARM = 1, 2, 3


def test_turn1_clockwise_rounds():
    """R-ITC-TURN-1: seats play in order from the start player; a round is one turn each."""
    pos = Position(num_players=3)
    seen = []
    for _ in range(4):
        pos.act("end_turn")
        seen.append((pos["ROUND"], pos["ACTOR"]))
    assert seen == [(1, 1), (1, 2), (2, 0), (2, 1)]


def test_turn2_upkeep():
    """R-ITC-TURN-2: off the home base a team discards a consumable at the start of its turn (to the bank), from its
    own camp on its space when the backpack has none; on the home base, nothing."""
    pos = Position()
    pos.team(1, at=N_ARM, consumable=2)
    bank = int(pos.g[L.BANK + L.B_CONS])
    pos.act("end_turn")
    assert pos.bp(1, "consumable") == 1 and int(pos.g[L.BANK + L.B_CONS]) == bank + 1 and pos["EXHAUSTED"] == 0
    pos.team(0, consumable=1)
    pos.act("end_turn")
    assert pos.bp(0, "consumable") == 1  # on the home base
    camp = Position()
    camp.team(1, at=N_ARM, camp=N_ARM, camp_consumable=1)
    camp.act("end_turn")
    assert camp.seat("CAMPC", 1, L.E_CONS) == 0 and camp["EXHAUSTED"] == 0


def test_turn3_exhausted_must_crawl_or_pass():
    """R-ITC-TURN-3: a team that cannot pay upkeep may only Crawl, and must; with no connected neighbour its turn
    passes at once."""
    pos = Position()
    pos.team(1, at=N_ARM)
    pos.act("end_turn")
    assert pos["ACTOR"] == 1 and pos["EXHAUSTED"] == 1 and pos.legal() == ["crawl_S"]
    pos.act("crawl_S")
    assert pos.seat("POS", 1) == 0 and pos["ACTOR"] == 0
    stuck = Position()
    t = stuck.tile(5, 5, "plain", 0)  # a sealed space (constructed): nowhere to crawl
    stuck.team(1, at=t)
    stuck.act("end_turn")
    assert stuck["ACTOR"] == 0 and stuck["ROUND"] == 2


def test_turn4_action_points():
    """R-ITC-TURN-4: 5 AP a turn, unused AP lost; free actions cost nothing; the turn ends by itself when nothing
    but ending it is left."""
    pos = Position()
    p = pos.tile(0, -2, "plain", "NS")
    pos.team(0, consumable=3)
    pos.act("discard_consumable")
    assert pos["AP"] == 5
    pos.act("move_N", "end_turn")
    assert pos["ACTOR"] == 1 and pos["AP"] == 5
    pos.act("end_turn")
    assert pos["AP"] == 5 and pos.bp(0, "consumable") == 1  # upkeep paid, full AP again
    pos.team(0, consumable=0)
    pos.g[L.FREE_N] = 0
    pos.act("move_N", "move_S", "move_N", "move_S", "move_N")  # 5 AP spent, nothing free left: turn passes
    assert pos.seat("POS", 0) == p and pos["ACTOR"] == 1


def finish(pos, seats=2):
    """Trigger the end with no rounds left and end the last seat's turn: the game is scored."""
    pos.g[L.END_TRIG] = 1
    pos.g[L.END_LEFT] = 0
    pos.start_turn(seats - 1)
    pos.act("end_turn")
    assert pos["OVER"] == L.ENDED


def give(pos, s, trav=0, water=0, photo=0, sq=(0, 0, 0), depth=()):
    g = pos.g
    g[L.TRAV + s], g[L.WATER + s], g[L.PHOTO + s] = trav, water, photo
    for i, n in enumerate(sq):
        g[L.SQ + 3 * s + i] = n
    for lv in depth:
        g[L.DEPTH_TOK + s * L.LEVELS + lv] = 1


def scores(pos, n):
    return [int(v) for v in pos.g[L.SCORE:L.SCORE + n]], [int(v) for v in pos.g[L.WIN:L.WIN + n]]


def test_score1_token_values():
    """R-ITC-SCORE-1: depth tokens 25 m 3, 50 m 4, 75 m 5, 125 m 5; squeeze 1/2/3 worth 2/3/4; photo 2, water 3,
    traverse line 2 (the sole holder of each also gets the majority 8: SCORE-2)."""
    pos = Position()
    give(pos, 0, depth=(1, 2, 3, 5))
    give(pos, 1, trav=1, water=1, photo=1, sq=(1, 1, 1))
    finish(pos)
    assert scores(pos, 2) == ([17, 2 + 3 + 2 + 2 + 3 + 4 + 4 * 8], [0, 1])


def test_score2_score4_majorities():
    """R-ITC-SCORE-2, R-ITC-SCORE-4: sole most 8, sole second 4; two tied for most 4 each; three tied nothing; tie
    for second nothing. Score = VP + bonuses."""
    pos = Position(num_players=3)
    give(pos, 0, trav=3, water=2, photo=1)
    give(pos, 1, trav=2, water=2, photo=1)
    give(pos, 2, trav=2, water=1, photo=1, sq=(1, 0, 0))
    finish(pos, 3)
    # VP: 14, 12, 11; traverse 8 / -, water 4 + 4, photo three-way nothing, squeeze 8 to seat 2
    assert scores(pos, 3) == ([14 + 8 + 4, 12 + 4, 11 + 8], [1, 0, 0])
    pos2 = Position(num_players=3)
    give(pos2, 0, trav=3)
    give(pos2, 1, trav=1)
    finish(pos2, 3)
    assert scores(pos2, 3) == ([6 + 8, 2 + 4, 0], [1, 0, 0])


def test_score3_end3_off_home_is_eliminated():
    """R-ITC-SCORE-3, END-3: a team not on the home base at the end scores 0 and its tokens leave the majorities;
    it never wins."""
    pos = Position()
    give(pos, 0, trav=5, photo=3)
    give(pos, 1, trav=1)
    pos.team(0, at=N_ARM, consumable=5)
    finish(pos)
    assert scores(pos, 2) == ([0, 2 + 8], [0, 1])


def test_end3_ties_share_and_all_eliminated():
    """R-ITC-END-3: equal top scores share the win; if every team is eliminated nobody wins."""
    pos = Position()
    give(pos, 0, photo=1)
    give(pos, 1, photo=1)
    finish(pos)
    assert scores(pos, 2) == ([2 + 4, 2 + 4], [1, 1])
    gone = Position()
    gone.team(0, at=N_ARM, consumable=5)
    gone.team(1, at=E_ARM, consumable=5)
    finish(gone)
    assert scores(gone, 2) == ([0, 0], [0, 0])


def test_end1_last_tile_triggers():
    """R-ITC-END-1: placing the last tile of stack IV triggers the end."""
    pos = Position()
    pos.team(0, at=N_ARM, consumable=5)
    pos.g[L.STACK_POS] = pos["STACK_N"] - 1
    pos.act("reveal")
    assert pos["END_TRIG"] == 0
    pos.act(pos.legal()[0])
    assert pos["END_TRIG"] == 1 and pos["END_LEFT"] == 3


def test_end1_completely_explored_triggers():
    """R-ITC-END-1 [default]: with tiles left, a placement that closes the last unexplored exit triggers the end."""
    pos = Position()
    pos.tile(0, -2, "plain", "S")
    pos.tile(0, 2, "plain", "N")
    pos.team(0, at=E_ARM, consumable=5)
    pos.next_tiles(("wonder", "D"))
    pos.act("reveal", "place_E_r3")
    assert pos["END_TRIG"] == 1 and pos["STACK_POS"] < pos["STACK_N"]


def test_end2_final_rounds():
    """R-ITC-END-2: the trigger's round is completed (equal turns), then 3 more full rounds; then the end."""
    pos = Position()
    pos.team(0, consumable=8)  # a full backpack (8 slots)
    pos.team(1, consumable=8)
    pos.g[L.END_TRIG] = 1
    pos.g[L.END_LEFT] = 3
    seen = []
    while pos["OVER"] == L.RUNNING:
        pos.act("end_turn")
        seen.append((pos["ROUND"], pos["ACTOR"]))
    assert seen == [(1, 1), (2, 0), (2, 1), (3, 0), (3, 1), (4, 0), (4, 1), (4, -1)]
    assert pos["OVER"] == L.ENDED


def test_end4_truncation():
    """R-ITC-END-4: max_rounds truncates the game (not a result: no scores, no winner)."""
    pos = Position(max_rounds=2)
    for _ in range(4):
        pos.act("end_turn")
    assert pos["OVER"] == L.TRUNCATED and pos["ACTOR"] == -1 and scores(pos, 2) == ([0, 0], [0, 0])
