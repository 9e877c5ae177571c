"""The packed per-game record of In the Cave: one int32 vector per game, a (B, N) array per batch.

Every field is a fixed offset into the vector (module constants, frozen into the compiled code), so one compiled
kernel serves every config and a batch is a plain 2-D array (batch axis first) that copies, slices and pickles
as numpy. Sizes are the largest any config needs. Per-tile fields are arrays of ``T_MAX`` entries indexed by tile
(placement order; tile 0 is the home base, 1.. the other starting-board spaces); per-seat fields of ``MAX_SEATS``
(or ``MAX_SEATS * NK`` for equipment, ``MAX_SEATS * LEVELS`` for depth-reached tokens).

Directions and rotations are Sub Terra's (``subterra_env.games.sub_terra.core.catalogue``): N=0, E=1, S=2, W=3, y grows south.
"""

from __future__ import annotations

MAX_SEATS = 5
T_MAX = 128  # starting board (<= 5) + every tile of the largest catalogue (4 x 30) + slack
STACK_MAX = 120  # 4 stacks x at most 30 tiles
CELL_SLOTS = 256  # cell -> tile hash table (load <= 0.5)
NK = 6  # equipment kinds (below)
LEVELS = 64  # depth-reached token levels (depth / 25), capped

# tile kinds (R-ITC-TILE-2)
K_HOME, K_BOARD, K_PLAIN, K_WATER, K_WONDER, K_SQUEEZE, K_DESCENT, K_BOULDER = range(8)
KIND_NAMES = ("home", "board", "plain", "water", "wonder", "squeeze", "descent", "boulder")
# equipment kinds (R-ITC-SET-1/7): an oxygen token is 2-tank (full) or 1-tank side up
E_CONS, E_ROPE, E_OX2, E_OX1, E_CAMERA, E_RAFT = range(6)
EQUIP_NAMES = ("consumable", "rope", "oxygen2", "oxygen1", "camera", "raft")
# bank kinds: consumables, ropes, oxygen tokens (cameras and rafts are each team's own)
B_CONS, B_ROPE, B_OX = range(3)
# camp position (CAMP field): >= 0 a tile, or
CAMP_PACKED, CAMP_GONE = -1, -2
# pending decisions
P_NONE, P_PLACE, P_BOULDER, P_PACK, P_SETUP = range(5)
PEND_NAMES = ("none", "place", "boulder", "pack", "setup")
# game over flags
RUNNING, ENDED, TRUNCATED = 0, 1, 2

_next = 0


def _field(n: int = 1) -> int:
    global _next
    start = _next
    _next += n
    return start


# --- scalars
N_TILES = _field()
ROUND = _field()  # 1-based; 0 during initial packing
START = _field()  # start player seat (R-ITC-SET-10)
ACTOR = _field()  # seat deciding now, -1 after the end
AP = _field()
PEND = _field()
PEND_CAT = _field()  # drawn catalogue id waiting for placement, -1 = none
PEND_MASK = _field()  # P_PLACE: legal (exit d, rotation r) as bit 4d+r; P_BOULDER: legal exits as bit d
STACK_POS = _field()  # next draw
STACK_N = _field()  # tiles in play (all four stacks)
STACK_END = _field(4)  # one past the last draw of stack I..IV
END_TRIG = _field()  # R-ITC-END-1 triggered
END_LEFT = _field()  # full rounds still to play after the current one (R-ITC-END-2)
OVER = _field()  # RUNNING / ENDED / TRUNCATED
FREE_N = _field()  # free (0 AP) actions taken this turn (capped by max_free_actions)
EXHAUSTED = _field()  # the actor could not pay upkeep (R-ITC-TURN-3)
DISCARDED = _field()  # tiles discarded face up (R-ITC-ACT-2)
STEPS = _field()  # decisions taken
BANK = _field(3)  # equipment in the bank (B_*); negative is allowed with an unlimited bank
LOST = _field(3)  # equipment out of the game (placed ropes, abandoned camps)
# --- tiles
TX = _field(T_MAX)
TY = _field(T_MAX)
TKIND = _field(T_MAX)
TOPEN = _field(T_MAX)  # open sides after rotation (bit d); 0 for a boulder choke
TDEPTH = _field(T_MAX)  # metres (R-ITC-ACT-3)
TTOKEN = _field(T_MAX)  # 1 while the water / photo / squeeze token lies there
TSQ = _field(T_MAX)  # squeeze difficulty 1..3, 0 otherwise
TBSIDE = _field(T_MAX)  # a boulder choke's one passage side (toward the space it was revealed from), -1
TROPE = _field(T_MAX)  # roped sides (bit d), set on both tiles of the edge (R-ITC-ACT-5)
TCAT = _field(T_MAX)  # catalogue id, -1 for board spaces and boulder chokes
CELLS = _field(CELL_SLOTS)  # tile index per hash slot, -1 = free
STACK = _field(STACK_MAX)  # catalogue ids in draw order (hidden)
# --- teams, by seat
POS = _field(MAX_SEATS)
BP = _field(MAX_SEATS * NK)  # backpack counts per equipment kind
CAMP = _field(MAX_SEATS)  # camp tile, CAMP_PACKED or CAMP_GONE
CAMPC = _field(MAX_SEATS * NK)  # camp contents per kind
FIRST_PACK = _field(MAX_SEATS)  # the free first home-base packing of the camp is used (R-ITC-ACT-13)
CAM_LOST = _field(MAX_SEATS)
RAFT_LOST = _field(MAX_SEATS)
TRAV = _field(MAX_SEATS)  # traverse line tokens
WATER = _field(MAX_SEATS)
PHOTO = _field(MAX_SEATS)
SQ = _field(MAX_SEATS * 3)  # squeeze tokens by difficulty 1..3
DEPTH_TOK = _field(MAX_SEATS * LEVELS)  # 1 = holds the depth-reached token of level (depth / 25)
SCORE = _field(MAX_SEATS)  # final score (R-ITC-SCORE-4), set at the end
WIN = _field(MAX_SEATS)  # 1 = a winner (R-ITC-END-3), set at the end
RECORD_SIZE = _next

# --- params (the config as an int32 vector, built by ItcConfig.params())
_next = 0
PR_SEATS = _field()
PR_BACKPACK = _field()
PR_CAMP_SLOTS = _field()
PR_AP = _field()
PR_LIMITED = _field()
PR_BANK0 = _field(3)
PR_MAX_ROUNDS = _field()
PR_MAX_FREE = _field()
PR_REMOVE = _field(4)
PR_FIXED_PACK = _field()  # 1 = skip the initial packing, every team packs PR_FIXED (preset first_game)
PR_FIXED = _field(NK)
PR_END_ROUNDS = _field()
PR_DEPTH_STEP = _field()
PR_NCAT = _field()  # tiles per stack (the same catalogue in each, R-ITC-TILE-3)
PR_CAT_KIND = _field(30)
PR_CAT_MASK = _field(30)  # open sides in the base orientation
PR_CAT_SQ = _field(30)
PARAMS_SIZE = _next
