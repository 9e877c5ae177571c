"""A simple heuristic team for In the Cave: packs sensibly (the camera while photographs pay, range once it leads),
explores, takes tokens while its lead is small, goes home in time.

It reads the public game record (never the stacks' order, only their counts) through ``heuristic_action(g, P,
mask)``; ``HeuristicTeam(env)`` binds it to an AEC env for the ``act(observation, mask)`` protocol. Priorities,
in order: place a drawn tile (the placement with the most new unexplored exits; the fewest once it leads, so the
game ends rather than being truncated); take the token of its space
(photograph, explore water); go home when its consumables or the remaining rounds only just cover the way back
(crawling when exhausted or short of ropes); refill at home; reveal; walk to the nearest space with an
unexplored exit (or, while its lead is under TOKEN_LEAD, a token it can take); end the turn.
"""

from __future__ import annotations

import heapq

import numpy as np

from subterra_env.games.sub_terra.core.catalogue import ROT_MASK
from subterra_env.games.in_the_cave.core import actions as A
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.packing import bp_used, can_draw_bank
from subterra_env.games.in_the_cave.invariants import neighbours
from subterra_env.games.in_the_cave.observe import vp

DXY = ((0, -1), (1, 0), (0, 1), (-1, 0))
# what it packs, in order: raft, 6 consumables, 1 rope (8 slots); the camera stays home: range (a turn's walk
# more a trip) matters more than photographs against a team that hardly scores
PACK_PLAN = ((A.A_TAKE + 3, 0), (A.A_TAKE + 4, 1), (A.A_TAKE + 0, 6), (A.A_TAKE + 1, 1))
# while the lead is small (TOKEN_LEAD) it photographs: the camera goes in place of the sixth consumable
PHOTO_PLAN = ((A.A_TAKE + 3, 1), (A.A_TAKE + 4, 1), (A.A_TAKE + 0, 5), (A.A_TAKE + 1, 1))
SPEED_TENTHS = 10  # AP a space, in tenths, when planning trips
RESERVE_TILES = 8  # the nearest exit is kept for the last tile once this few tiles are left
FINAL_SLACK = 2
TURN_AP = 4  # AP a trip plans to use of each further turn's 5 (a step dearer than the AP left wastes the rest)
CLOSE_LEAD = 999  # VP from which a leading team places tiles to close the cave (the game then ends, not truncates)
TOKEN_LEAD = 8  # VP of lead below which the team detours for tokens (squeezes, water, photographs)
FINISH_AP = 10  # a leading team closes the last exit only this near home (AP), so it is home for the last rounds


def _cells(g: np.ndarray) -> dict[tuple[int, int], int]:
    n = int(g[L.N_TILES])
    return {(int(g[L.TX + t]), int(g[L.TY + t])): t for t in range(n)}


def _entry_cost(g: np.ndarray | list[int], t: int, nb: int, d: int, raft: bool, oxygen: bool, ropes: int) -> int:
    """AP to move from t into its neighbour nb through side d with this kit (R-ITC-ACT-4/5), -1 = impossible."""
    kind = int(g[L.TKIND + nb])
    cost = 1
    if kind == L.K_WATER:
        if not (raft or oxygen):
            return -1
        cost = 1 if raft else 2
    elif kind == L.K_SQUEEZE:
        cost = 1 + int(g[L.TSQ + nb])
    rise = abs(int(g[L.TDEPTH + nb]) - int(g[L.TDEPTH + t])) // 25
    if rise and not (g[L.TROPE + t] >> d) & 1:
        if rise > ropes:
            return -1
        cost += rise
    return cost


def _bfs(g: np.ndarray | list[int], cells: dict, start: int, raft: bool = True, oxygen: bool = True,
         ropes: int = 99, unit: bool = False) -> tuple[dict[int, int], dict[int, int]]:
    """Cheapest AP from ``start`` to every tile the team can walk to with its kit (water needs its raft or
    oxygen; an unroped depth change needs the ropes), and the first side to leave ``start`` by; ``unit``: spaces
    instead of AP, every connection allowed (crawling)."""
    dist, first = {start: 0}, {start: -1}
    heap = [(0, start)]
    while heap:
        c, t = heapq.heappop(heap)
        if c > dist[t]:
            continue
        for d, nb in neighbours(g, cells, t):
            step = 1 if unit else _entry_cost(g, t, nb, d, raft, oxygen, ropes)
            if step < 0 or (nb in dist and dist[nb] <= c + step):
                continue
            dist[nb] = c + step
            first[nb] = d if t == start else first[t]
            heapq.heappush(heap, (c + step, nb))
    return dist, first


def _step_toward(mask: np.ndarray, side: int, ap_full: bool) -> int | None:
    """The action that moves through ``side``: a move, a dive, or (all AP left) a crawl."""
    for base in (A.A_MOVE, A.A_DIVE):
        if mask[base + side]:
            return base + side
    if ap_full and mask[A.A_CRAWL + side]:
        return A.A_CRAWL + side
    return None


# a camp trip (the nearest goal is beyond one backpack of consumables): the camp carries 4 more, the backpack
# raft, 4 consumables and a rope (8 slots with the packed camp): the camera stays home, range matters more then
CAMP_PLAN = ((A.A_TAKE + 3, 0), (A.A_TAKE + 4, 1), (A.A_TAKE + 0, 4), (A.A_TAKE + 1, 1))
CAMP_LOAD = 4
CAMP_TRIP_CONS = 4 + CAMP_LOAD  # consumables on a camp trip
PACK_CONS = 6  # consumables on a trip without the camp (PACK_PLAN)


def _crawl_home(g: np.ndarray, r: list, cells: dict, pos: int, mask: np.ndarray, end: int) -> int:
    """Exhausted (R-ITC-TURN-3): a crawl moves one space a turn whatever it costs to walk, so it takes the path
    home with the fewest spaces, not the cheapest in AP."""
    hops, _ = _bfs(r, cells, 0, ropes=99, unit=True)
    best, best_h = end, hops.get(pos, 99)
    for d, nb in neighbours(r, cells, pos):
        if mask[A.A_CRAWL + d] and hops.get(nb, 99) < best_h:
            best, best_h = A.A_CRAWL + d, hops[nb]
    return best


def _pack_helps(g: np.ndarray, P: np.ndarray, s: int, plan: tuple) -> bool:
    """Packing (2 AP) would take a kind the backpack lacks for ``plan``: the bank (or home) can give it and a slot
    is free or can be freed (a kind above the plan to return). A fixed starting kit and a limited bank (the
    first_game preset) can leave nothing to take: the team then sets out with what it has rather than pack every
    turn at home."""
    kinds = [(int(A.TAKE_KINDS[a - A.A_TAKE]), want) for a, want in plan]
    room = bp_used(g, s) < P[L.PR_BACKPACK] or any(g[L.BP + s * L.NK + k] > want for k, want in kinds)
    return room and any(g[L.BP + s * L.NK + k] < want and can_draw_bank(g, P, s, k) for k, want in kinds)


def _trip_plan(need_points: bool) -> tuple:
    return PHOTO_PLAN if need_points else PACK_PLAN


def _pack(g: np.ndarray, s: int, mask: np.ndarray, camp_trip: bool, need_points: bool) -> int:
    """Exchanges toward the plan; on a camp trip also load the camp (placed on the home base) and return extra."""
    plan = CAMP_PLAN if camp_trip else _trip_plan(need_points)
    if camp_trip and g[L.CAMPC + s * L.NK + L.E_CONS] < CAMP_LOAD and mask[A.A_CAMP_TAKE]:
        return A.A_CAMP_TAKE
    for a, want in plan:
        k = int(A.TAKE_KINDS[a - A.A_TAKE])
        if g[L.BP + s * L.NK + k] > want and mask[A.A_RETURN + k]:
            return A.A_RETURN + k
    for a, want in plan:
        k = int(A.TAKE_KINDS[a - A.A_TAKE])
        if g[L.BP + s * L.NK + k] < want and mask[a]:
            return a
    return A.A_PACK_DONE


def _unexplored(g: np.ndarray, cells: dict) -> int:
    """Unexplored exits in the whole cave (open sides onto empty cells; boulder chokes and the home base never
    count, R-ITC-ACT-1)."""
    n = 0
    for (x, y), t in cells.items():
        if g[L.TKIND + t] in (L.K_HOME, L.K_BOULDER):
            continue
        opened = int(g[L.TOPEN + t])
        n += sum(1 for e in range(4) if (opened >> e) & 1 and (x + DXY[e][0], y + DXY[e][1]) not in cells)
    return n


def _open_exits(g: np.ndarray, cells: dict, t: int, x: int, y: int) -> bool:
    """Tile t at (x, y) has an unexplored exit to reveal from (never the home base or a boulder choke)."""
    return g[L.TKIND + t] not in (L.K_HOME, L.K_BOULDER) and any(
        (g[L.TOPEN + t] >> d) & 1 and (x + dx, y + dy) not in cells for d, (dx, dy) in enumerate(DXY))


def _facing(g: np.ndarray, cells: dict, x: int, y: int) -> int:
    """Placed tiles' open sides facing the empty cell (x, y): the exits a tile placed there uses up."""
    n = 0
    for e, (dx, dy) in enumerate(DXY):
        nb = cells.get((x + dx, y + dy), -1)
        if nb >= 0 and g[L.TKIND + nb] not in (L.K_HOME, L.K_BOULDER) and (int(g[L.TOPEN + nb]) >> ((e + 2) % 4)) & 1:
            n += 1
    return n


def _best_placement(g: np.ndarray, P: np.ndarray, mask: np.ndarray, cells: dict, close: bool = False,
                    may_finish: bool = True) -> int:
    """The legal placement whose tile opens most sides onto empty cells (more to explore); ties: lowest id.
    ``close`` (the team leads): the one that opens fewest, so the cave is soon completely explored and the game
    ends (R-ITC-END-1) before round ``max_rounds`` truncates it; it leaves one exit open unless ``may_finish``
    (the team is near enough home for the last rounds)."""
    s = int(g[L.ACTOR])
    t = int(g[L.POS + s])
    base = int(P[L.PR_CAT_MASK + int(g[L.PEND_CAT])])
    left = _unexplored(g, cells) if close else 0
    best, best_key = -1, None
    for a in range(A.A_PLACE, A.A_PLACE + 16):
        if not mask[a]:
            continue
        d, r = divmod(a - A.A_PLACE, 4)
        x, y = int(g[L.TX + t]) + DXY[d][0], int(g[L.TY + t]) + DXY[d][1]
        opened = int(ROT_MASK[base, r])
        n = sum(1 for e in range(4) if (opened >> e) & 1 and (x + DXY[e][0], y + DXY[e][1]) not in cells)
        if close:
            after = left - _facing(g, cells, x, y) + n
            key = (after == 0 and not may_finish, n)  # lower is better
        else:  # ties: the cell nearest home, so the cave stays compact and its exits within a trip's reach
            key = (-n, abs(x) + abs(y))
        if best_key is None or key < best_key:
            best, best_key = a, key
    return best


def _place(g: np.ndarray, P: np.ndarray, mask: np.ndarray) -> int:
    """Placing a drawn tile: open the cave while behind, close it while ahead (see ``_best_placement``)."""
    s = int(g[L.ACTOR])
    seats = int(P[L.PR_SEATS])
    mine = vp(g, s)
    close = mine >= CLOSE_LEAD and mine > max(vp(g, o) for o in range(seats) if o != s)
    cells = _cells(g)
    may_finish = True
    if close:
        r = g.tolist()
        home, _ = _bfs(r, cells, 0)
        pos = int(g[L.POS + s])
        may_finish = home.get(pos, 99) <= FINISH_AP
    return _best_placement(g, P, mask, cells, close, may_finish)


def _wants(g: np.ndarray, s: int, plan: tuple) -> bool:
    """The backpack differs from the plan."""
    return any(g[L.BP + s * L.NK + int(A.TAKE_KINDS[a - A.A_TAKE])] != want for a, want in plan)


def heuristic_action(g: np.ndarray, P: np.ndarray, mask: np.ndarray, why: dict | None = None) -> int:
    """The heuristic's choice for the actor of game record ``g`` (params ``P``), among ``mask``'s legal actions;
    ``why`` (a dict), when given, receives the goal and plan behind it (for debugging)."""
    mask = np.asarray(mask, dtype=bool)
    legal = np.flatnonzero(mask)
    end = A.A_END if mask[A.A_END] else int(legal[0])
    pend = int(g[L.PEND])
    if pend == L.P_PLACE:
        return _place(g, P, mask)
    if pend == L.P_BOULDER:
        return int(legal[0])
    for a in (A.A_PHOTO, A.A_EXPLORE):
        if mask[a]:
            return a
    return _Trip(g, P, pend).choose(mask, end, why)


class _Trip:
    """The actor's situation, worked out once per decision: where it can walk and at what cost, its supplies, the
    rounds and tiles left, the exits kept for the end; ``choose`` picks the action from it."""

    def __init__(self, g: np.ndarray, P: np.ndarray, pend: int) -> None:
        self.g, self.P, self.pend = g, P, pend
        s = self.s = int(g[L.ACTOR])
        pos = self.pos = int(g[L.POS + s])
        cells = self.cells = _cells(g)
        bp = self.bp = g[L.BP + s * L.NK:L.BP + (s + 1) * L.NK]
        kit = {"raft": bp[L.E_RAFT] > 0, "oxygen": bp[L.E_OX2] + bp[L.E_OX1] > 0, "ropes": int(bp[L.E_ROPE])}
        if pend != L.P_NONE:  # packing: plan for the full kit
            kit = {"raft": True, "oxygen": False, "ropes": 1}
        r = self.r = g.tolist()  # the searches read plain ints: a list index is about 10x faster than a numpy read
        self.dist, self.first = _bfs(r, cells, pos, **kit)
        self.home_dist, _ = _bfs(r, cells, 0, **kit)
        if 0 not in self.dist:  # cut off from home with this kit: any way back (crawling where it must)
            self.dist, self.first = _bfs(r, cells, pos)
        ap = self.ap = int(P[L.PR_AP])
        self.ap_full = int(g[L.AP]) == ap
        camp = self.camp = int(g[L.CAMP + s])
        self.camp_cons = int(g[L.CAMPC + s * L.NK + L.E_CONS]) if camp == L.CAMP_PACKED else 0
        self.cons = int(bp[L.E_CONS]) + self.camp_cons  # the packed camp's consumables come out on the way
        self.rounds_left = int(g[L.END_LEFT]) + 1 if g[L.END_TRIG] else 99
        self.tiles_left = int(g[L.STACK_N]) - int(g[L.STACK_POS])
        self.cam = bp[L.E_CAMERA] > 0  # packed only while photographs pay (PHOTO_PLAN)
        # an emptied camp placed away from home is fetched (repacked) so the next camp trip can load it
        self.stranded_camp = camp if camp > 0 and not self.camp_load().any() else -1
        self.oxy = bp[L.E_OX2] + bp[L.E_OX1] > 0
        self.ap_now = int(g[L.AP])
        if pos == 0 and (pend != L.P_NONE or self.ap_now < 3):  # packing, or a turn ending at home: sets out full
            self.ap_now = ap
        # the next tile drawn is the last (R-ITC-END-1): it is revealed only within the final rounds' walk of home,
        # or the team would be out when the game ends (R-ITC-SCORE-3)
        self.last_tile = self.tiles_left == 1 and not g[L.END_TRIG]
        self.final_turns = int(P[L.PR_END_ROUNDS])
        self.final_ap = (ap - 1) * self.final_turns + FINAL_SLACK  # an exit this near home (AP) can draw the last tile
        self._plan_the_end()
        # tokens are detours: sought only while the lead is small (exits end the game, and a lead is what wins it)
        self.need_points = vp(g, s) < max(vp(g, o) for o in range(int(P[L.PR_SEATS])) if o != s) + TOKEN_LEAD

    def _plan_the_end(self) -> None:
        """The exit kept for the last tile, and whether the next exits lie beyond every trip."""
        g, cells, home_dist = self.g, self.cells, self.home_dist
        # spaces with an unexplored exit, nearest home first. The nearest, when within final_ap of home, is kept for
        # the last tile while others are left: exits near home are otherwise used up early, and the game could only
        # end with the team far out (eliminated) or not at all (truncated)
        frontier = sorted((home_dist[t], t) for (x, y), t in cells.items()
                          if t in home_dist and _open_exits(g, cells, t, x, y))
        self.reserved = frontier[0][1] if (1 < self.tiles_left <= RESERVE_TILES and len(frontier) > 1
                                           and frontier[0][0] <= self.final_ap) else -1
        others = [d for d, t in frontier if t != self.reserved]
        # beyond every trip: the nearest unexplored exit is farther than even a camp trip's consumables reach (the
        # cave grows away from home, and the random team hardly explores). Left alone the game runs to truncation,
        # so the team goes anyway: it walks while its consumables last, then crawls home exhausted (R-ITC-TURN-3)
        # the last tile: when no exit is within final_ap of home, the game can end only by revealing it farther out
        # (or run to truncation, as good as a loss): the team goes and reveals it at the start of a turn, the most
        # AP for the way home
        self.far_finish = self.last_tile and bool(others) and others[0] > self.final_ap
        self.beyond = self.far_finish or (self.tiles_left > 1 and not g[L.END_TRIG] and bool(others)
                                          and 2 * others[0] + 1 > self.ap - 1 + TURN_AP * CAMP_TRIP_CONS - 2)

    def camp_load(self) -> np.ndarray:
        """What the actor's camp holds, by kind."""
        s = self.s
        return self.g[L.CAMPC + s * L.NK:L.CAMPC + (s + 1) * L.NK]

    def turns(self, cost: int) -> int:
        """Turns to spend ``cost`` AP walking, with SPEED tenths of slack."""
        return -(-cost * SPEED_TENTHS // (10 * self.ap))

    def reach(self, budget: int) -> int:
        """AP a trip may still spend with ``budget`` consumables: this turn's AP and TURN_AP a further turn (each
        paid for by one consumable's upkeep); one AP of this turn is slack for a step dearer than the AP left."""
        return self.ap_now - 1 + TURN_AP * budget

    def finish_reach(self, budget: int) -> int:
        """AP it can walk home in once the end is triggered: this turn's and the final rounds' (while upkeep
        lasts), one AP a turn of slack."""
        return self.ap_now - 1 + (self.ap - 1) * min(budget, self.final_turns)

    def goal(self, budget: int, fetch_camp: bool = False) -> int:
        """The nearest space worth going to whose trip there, its action and back fits ``reach(budget)`` and the
        rounds left (the same test all the way: walking spends AP off both sides, so no flip-flop): an unexplored
        exit (tiles left), a token it can take, or (``fetch_camp``) its own emptied camp left away from home."""
        g, cells, dist, home_dist, pos = self.g, self.cells, self.dist, self.home_dist, self.pos
        stranded_camp, need_points, tiles_left = self.stranded_camp, self.need_points, self.tiles_left
        best, best_d = -1, 99
        fits = self.reach(budget) if not self.beyond else 10 ** 6
        for (x, y), t in cells.items():
            if t not in dist or t == pos or dist[t] >= best_d:
                continue
            trip = dist[t] + 1 + home_dist.get(t, 99)
            # an emptied camp is fetched however far (crawling back if it must) on a way out from home (pos on a
            # cheapest path from home to it: no flip-flop): without it no camp trip reaches the far exits, and the
            # game would run to truncation
            far_ok = fetch_camp and t == stranded_camp and dist[t] + home_dist.get(pos, 99) <= home_dist.get(t, 0)
            if (trip > fits and not far_ok) or self.turns(trip) + 1 >= self.rounds_left:
                continue
            kind = int(g[L.TKIND + t])
            token = need_points and g[L.TTOKEN + t] and (
                (kind == L.K_WONDER and self.cam) or (kind == L.K_WATER and self.oxy) or kind == L.K_SQUEEZE)
            exits = tiles_left > 0 and t != self.reserved and _open_exits(g, cells, t, x, y) and (
                not self.last_tile or self.far_finish or home_dist.get(t, 99) <= self.final_ap)
            if token or exits or (fetch_camp and t == stranded_camp):
                best, best_d = t, dist[t]
        return best

    def choose(self, mask: np.ndarray, end: int, why: dict | None) -> int:
        """The action: pack, handle the camp, go home, refill at home, reveal, or walk to the goal."""
        g, s, pos, camp, cons, home_dist = self.g, self.s, self.pos, self.camp, self.cons, self.home_dist
        # a camp trip when nothing is in reach of one backpack but would be with the camp's load, and for the last
        # tile far out (the camp's load is what leaves the final rounds' upkeep in hand there)
        # (without goal()'s turn of slack: the farthest exits are reachable only so, and left unexplored the game
        # would run to truncation)
        camp_trip = (pos == 0 and camp == 0 and not g[L.END_TRIG]
                     and (self.far_finish or self.goal(PACK_CONS - self.need_points) < 0)
                     and self.goal(CAMP_TRIP_CONS) >= 0)
        if self.pend in (L.P_SETUP, L.P_PACK):
            return _pack(g, s, mask, camp_trip and self.pend == L.P_PACK, self.need_points)
        if camp == L.CAMP_PACKED and int(self.bp[L.E_CONS]) <= 1 and pos != 0 and self.camp_cons > 0:
            return A.A_CAMP_PLACE if mask[A.A_CAMP_PLACE] else end  # unload the camp here
        if camp == pos and pos != 0 and mask[A.A_FROM_CAMP + L.E_CONS]:
            return A.A_FROM_CAMP + L.E_CONS
        if camp == pos and pos != 0 and not self.camp_load().any() and mask[A.A_CAMP_REPACK]:
            return A.A_CAMP_REPACK  # the emptied camp comes back home for the next trip
        need_home = self.turns(home_dist.get(pos, 99))
        # a goal passed the test there + back <= reach(cons), so on arrival back <= reach(cons) holds; this fires
        # only when a turn wasted more than its slack
        going_home = pos != 0 and ((home_dist.get(pos, 99) > self.reach(cons) + 1 and not self.beyond)
                                   or self.rounds_left <= need_home + 1
                                   or bool(g[L.EXHAUSTED])
                                   # the last tile far out: revealed only with the final rounds' upkeep in hand, or
                                   # the team is eliminated on its way home; it refills at home first
                                   or (self.far_finish and cons < self.final_turns))
        if g[L.EXHAUSTED] and pos != 0:
            return _crawl_home(g, self.r, self.cells, pos, mask, end)
        if going_home:
            a = _step_toward(mask, self.first[0], self.ap_full) if 0 in self.first else None
            return a if a is not None else end
        if pos == 0:
            a = self._at_home(mask, end, camp_trip)
            if a is not None:
                return a
        return self._go_out(mask, end, need_home, why)

    def _at_home(self, mask: np.ndarray, end: int, camp_trip: bool) -> int | None:
        """At home: end the game's last turns, set the camp down, pack for the trip; None to go on out."""
        g, s, camp, cons, need_points = self.g, self.s, self.camp, self.cons, self.need_points
        if g[L.END_TRIG] and self.rounds_left <= 2:
            return end
        if camp == L.CAMP_PACKED and (self.goal(cons) < 0 or cons < PACK_CONS - need_points) and mask[A.A_CAMP_PLACE]:
            return A.A_CAMP_PLACE  # back from a trip: the camp goes down at home, to be refilled
        if camp_trip:
            if (g[L.CAMPC + s * L.NK + L.E_CONS] < CAMP_LOAD or _wants(g, s, CAMP_PLAN)) and mask[A.A_PACK]:
                return A.A_PACK
            if mask[A.A_CAMP_REPACK]:
                return A.A_CAMP_REPACK
        elif camp != L.CAMP_PACKED and _wants(g, s, _trip_plan(need_points)) and mask[A.A_PACK] and \
                _pack_helps(g, self.P, s, _trip_plan(need_points)):
            return A.A_PACK
        if int(g[L.AP]) < 3:  # a turn that starts at home costs no upkeep: set out with full AP
            return end
        return None

    def _go_out(self, mask: np.ndarray, end: int, need_home: int, why: dict | None) -> int:
        """Out in the cave with supplies to spare: reveal here, or walk toward the goal (home when there is none)."""
        pos, cons, home_dist = self.pos, self.cons, self.home_dist
        if mask[A.A_REVEAL] and pos != self.reserved and (
                not self.last_tile or home_dist.get(pos, 99) + 1 <= self.finish_reach(cons)
                or (self.far_finish and self.ap_full)):
            return A.A_REVEAL
        if self.far_finish and mask[A.A_REVEAL] and mask[A.A_END]:
            return A.A_END  # waits here for a full turn's AP to reveal the last tile with
        best = self.goal(cons)
        if best < 0:  # nothing else in reach: fetch an emptied camp left away from home, for the next camp trip
            best = self.goal(cons, fetch_camp=True)
        if why is not None:
            why.update(goal=best, cons=cons, dist=self.dist.get(best), home=home_dist.get(best), need_home=need_home)
        if best >= 0:  # a step it cannot afford now waits for the next turn's AP (crawling if it never can)
            a = _step_toward(mask, self.first[best], self.ap_full)
            return a if a is not None else end
        if pos != 0 and pos in home_dist and 0 in self.first:  # nothing in reach: head home
            a = _step_toward(mask, self.first[0], self.ap_full)
            if a is not None:
                return a
        return end


class HeuristicTeam:
    """The heuristic bound to an AEC env of ``subterra_env.in_the_cave`` (it reads the env's public game)."""

    def __init__(self, env):
        self.env = env.unwrapped

    def act(self, observation: dict | None, action_mask: np.ndarray) -> int:
        return heuristic_action(self.env.game, self.env.core.P, action_mask)
