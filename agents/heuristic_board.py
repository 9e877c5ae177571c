"""The public board of one game as plain Python lists, with the graph searches the heuristic needs.

Everything here is public: placed tiles and their markers, cavers, horrors, the turn state, the counts of tiles
and hazard cards left. The stack and deck orders are never read (only their lengths, via ``stack_pos`` and
``deck_pos``), nor the random key, counter or scripted dice.
"""

from __future__ import annotations

import heapq

import numpy as np

from subterra_env.core.catalogue import (
    C_CAVE_IN,
    C_FLOOD,
    C_GAS,
    C_HORROR,
    C_TREMOR,
    DX,
    DY,
    OPPOSITE,
    T_CAVE_IN,
    T_EXIT,
    T_GAS,
    T_HORROR,
    T_LEDGE,
    T_ROUGH,
    T_SLIDE,
    T_SQUEEZE,
    T_WATER,
    X2,
)
from subterra_env.core.effects import (
    RANK_BODYGUARD,
    RANK_CLIMBER,
    RANK_DIVER,
    RANK_ENGINEER,
    RANK_GEOLOGIST,
    RANK_LEADER,
    RANK_SCOUT,
)

INF = 1e9
# Edge kinds of a path step (what the caver does to cross it).
E_WALK, E_SWIM, E_SQUEEZE, E_BLAST = 0, 1, 2, 3
FAR = 99


_ODDS: dict = {}


def card_odds(cat) -> dict[int, float]:
    """Chance of each basic hazard on the next card, from the deck's public composition (x2 counted twice)."""
    key = cat.deck_pool.tobytes()
    if key not in _ODDS:
        pool = cat.deck_pool
        total = max(len(pool), 1)
        _ODDS[key] = {code: float(((pool == code).sum() + 2 * (pool == code + X2).sum()) / total)
                      for code in (C_TREMOR, C_FLOOD, C_CAVE_IN, C_GAS, C_HORROR)}
    return _ODDS[key]


class Board:
    """Game g of a State, read once per decision into lists (fast to index from Python)."""

    def __init__(self, core, st, g: int):
        cfg = core.cfg
        self.cfg, self.cat = cfg, core.cat
        n = int(st.n_tiles[g])
        self.n = n
        self.nbr = st.t_nbr[g, :n].tolist()
        self.ttype = st.t_type[g, :n].tolist()
        self.flood = st.t_flood[g, :n].tolist()
        self.rubble = st.t_rubble[g, :n].tolist()
        self.rope = st.t_rope[g, :n].tolist()
        self.arrow = st.t_arrow[g, :n].tolist()
        self.tcat = st.t_cat[g, :n].tolist()
        tx, ty = st.t_x[g, :n], st.t_y[g, :n]
        self.x, self.y = tx.tolist(), ty.tolist()
        self.grid = st.grid_of(g)
        opened = (st.t_open[g, :n, None].astype(np.int16) >> np.arange(4)[None, :]) & 1
        empty = self.grid[ty[:, None] + DY[None, :], tx[:, None] + DX[None, :]] < 0
        self.front = (opened.astype(bool) & empty).tolist()  # (n, 4): open side facing an empty cell
        self.opened = opened.astype(bool).tolist()
        self.exit = int(st.exit_tile[g])
        self.horrors = [h for h in st.h_tile[g].tolist() if h >= 0]
        self.horror_set = set(self.horrors)
        # cavers by seat
        self.rank = st.c_rank[g].tolist()
        self.tile = st.c_tile[g].tolist()
        self.hp = st.c_hp[g].tolist()
        self.maxhp = st.c_max[g].tolist()
        self.dead = st.c_dead[g].tolist()
        self.hidden = st.c_hidden[g].tolist()
        self.under = st.c_under[g].tolist()
        self.seats = len(self.rank)
        self.seat_of = {r: s for s, r in enumerate(self.rank)}
        # turn
        self.actor = int(st.actor[g])
        self.ap = int(st.ap[g])
        self.exerted = bool(st.exerted[g])
        self.pend = int(st.pend[g])
        self.pend_dir = int(st.pend_dir[g])
        self.pend_tile = int(st.pend_tile[g])
        self.run_left = int(st.run_left[g])
        self.directing = int(st.directing[g])
        self.direct_used = bool(st.direct_used[g])
        self.aside = int(st.aside_tile[g])
        self.redraws = int(st.scout_redraws[g])
        self.explosives = int(st.explosives[g])
        self.ropes_left = int(st.ropes_left[g])
        self.gas_active = bool(st.gas_active[g])
        self.out_of_time = bool(st.out_of_time[g])
        self.start_seat = int(st.start_seat[g])
        self.tiles_left = int(st.stack.shape[1] - st.stack_pos[g])  # public: the pile's height
        self.cards_left = int((st.deck[g] >= 0).sum() - st.deck_pos[g])  # public count, Out of Time included
        self._hdist = None
        self._guard = None
        self._adj: dict = {}
        self._radj: dict = {}
        self._mix = None
        self.ko_extra = 3.0  # see ko_cost (the agent sets its planner's value)
        self.haz_scale = 1.0
        self.odds = card_odds(self.cat)

    # ------------------------------------------------------------------ basic geometry
    def barred(self, t: int, d: int) -> bool:
        """Leaving tile t through side d is barred (ledge arrow side, slide back side) without a rope."""
        if self.rope[t]:
            return False
        tt = self.ttype[t]
        if tt == T_LEDGE:
            return self.arrow[t] == d
        if tt == T_SLIDE:
            return self.arrow[t] == OPPOSITE[d]
        return False

    def revealable(self, t: int) -> list[int]:
        """Sides of t a caver standing there may reveal through now."""
        return [d for d in range(4) if self.front[t][d] and not self.barred(t, d)]

    def can_draw(self, rank: int) -> bool:
        return self.tiles_left > 0 or (rank == RANK_GEOLOGIST and self.aside >= 0)

    def cell_tile(self, t: int, d: int) -> int:
        return int(self.grid[self.y[t] + DY[d], self.x[t] + DX[d]])

    def empty_around_cell(self, t: int, d: int) -> int:
        """Empty cells around the cell beyond side d of t (room for the cave to grow there)."""
        cx, cy = self.x[t] + DX[d], self.y[t] + DY[d]
        return sum(1 for k in range(4) if self.grid[cy + DY[k], cx + DX[k]] < 0)

    # ------------------------------------------------------------------ cavers
    def conscious(self, s: int) -> bool:
        return self.hp[s] > 0 and not self.dead[s] and not self.under[s]

    def in_cave(self, s: int) -> bool:
        """Not devoured, not on the exit (a Diver under water counts as in the cave)."""
        return not self.dead[s] and (self.under[s] or self.tile[s] != self.exit or self.exit < 0)

    def acted(self, k: int) -> bool:
        """Seat k has had its turn this round (so it stays where it is until the hazard phase)."""
        owner = self.directing if self.directing >= 0 else self.actor
        n = self.seats
        return (k - self.start_seat) % n < (owner - self.start_seat) % n

    def guard_settled(self) -> bool:
        """The Bodyguard's position is final for this round (he has acted)."""
        g = self.seat_of.get(RANK_BODYGUARD, -1)
        return g >= 0 and self.acted(g)

    def protection(self, s: int, t: int) -> float:
        """What the Bodyguard s standing on t at the hazard phase saves the teammates already settled there."""
        total = 0.0
        for k in range(self.seats):
            if k != s and self.tile[k] == t and self.acted(k) and self.hp[k] > 0 and not self.dead[k]:
                total += self.type_danger(k, self.ttype[t], self.rubble[t]) - self.type_danger(
                    k, self.ttype[t], self.rubble[t], guarded=True)
        return total

    def guard_tile(self) -> int:
        """Tile of a conscious Bodyguard (his Protector covers the others there), -1 = none."""
        if self._guard is None:
            s = self.seat_of.get(RANK_BODYGUARD, -1)
            self._guard = self.tile[s] if s >= 0 and self.hp[s] > 0 and not self.dead[s] else -1
        return self._guard

    # ------------------------------------------------------------------ horrors
    def horror_dist(self) -> list[int]:
        """Steps from the nearest horror to every tile through connected edges (horrors ignore obstacles)."""
        if self._hdist is None:
            self._hdist = self._steps(list(self.horrors), limit=8)
        return self._hdist

    # ------------------------------------------------------------------ movement
    def adjacency(self, s: int, through_horrors: bool = False) -> list[list[tuple[int, int, float, float, int]]]:
        """Per tile u, the crossings (v, d, ap, penalty, kind) caver s can make out of u; cached per caver.

        ap: the AP of the single actions that cross (a rope, a Repel, a dig first where needed); penalty:
        health the crossing costs on average (entering active gas, rough terrain), in health points.
        through_horrors: for plans beyond this turn, a horror's tile costs extra instead of barring the way
        (horrors move on)."""
        key = (s, through_horrors)
        cache = self._adj.get(key)
        if cache is not None:
            return cache
        rank = self.rank[s]
        out = []
        climber = rank == RANK_CLIMBER
        # the Engineer's Demolish (exit placed): blast through to a placed neighbour that is not connected
        blaster = rank == RANK_ENGINEER and self.explosives > 0 and self.exit >= 0
        for u in range(self.n):
            row = []
            nb = self.nbr[u]
            for d in range(4):
                v = nb[d]
                cost = 0.0
                if v < 0:
                    if not blaster or self.opened[u][d] and self.front[u][d]:
                        continue
                    v = self.cell_tile(u, d)
                    if v < 0:
                        continue
                    cost += 2.5  # Demolish: 2 AP and a Cave-in event
                if self.barred(u, d):
                    if self.ropes_left <= 0:
                        continue
                    cost += 1.0 if climber else 4.0  # Place Rope: 2 AP and a skill check
                if v in self.horror_set and rank != RANK_SCOUT:
                    if rank == RANK_BODYGUARD:
                        cost += 1.0  # Repel first
                    elif through_horrors:
                        cost += 4.0
                    else:
                        continue
                tt = self.ttype[v]
                if self.rubble[v] and not climber:
                    cost += 1.0 if rank == RANK_GEOLOGIST else 2.0
                if self.flood[v] and rank != RANK_DIVER:
                    kind, c = E_SWIM, 2.0
                elif tt == T_SQUEEZE and not climber:
                    kind, c = E_SQUEEZE, 2.0
                else:
                    kind, c = E_WALK, 1.0
                if nb[d] < 0:
                    kind = E_BLAST
                pen = 0.0
                if self.gas_active and tt == T_GAS and not (self.guard_tile() == v and rank != RANK_BODYGUARD):
                    pen += self.loss(s, self.cfg.gas_enter_damage)
                if tt == T_ROUGH:
                    pen += 0.5 * self.loss(s, 1)
                row.append((v, d, cost + c, pen, kind))
            out.append(row)
        self._adj[key] = out
        return out

    def paths(self, s: int, src: int, hp_w: float = 2.0):
        """Dijkstra from src for caver s: (cost, ap, prev) per tile; cost = AP + hp_w * health penalties."""
        adj = self.adjacency(s)
        n = self.n
        cost = [INF] * n
        apc = [INF] * n
        prev = [None] * n
        cost[src] = 0.0
        apc[src] = 0.0
        heap = [(0.0, src)]
        while heap:
            c, u = heapq.heappop(heap)
            if c > cost[u]:
                continue
            au = apc[u]
            for v, d, a, pen, kind in adj[u]:
                nc = c + a + pen * hp_w
                if nc < cost[v] - 1e-9:
                    cost[v] = nc
                    apc[v] = au + a
                    prev[v] = (u, d, kind)
                    heapq.heappush(heap, (nc, v))
        return cost, apc, prev

    def field_to(self, s: int, targets: dict[int, float], hp_w: float = 2.0) -> list[float]:
        """Cost for caver s from every tile to the cheapest target (targets: tile -> cost once there)."""
        adj = self.adjacency(s, through_horrors=True)
        radj = self._radj.get((s, hp_w))
        if radj is None:
            radj = [[] for _ in range(self.n)]
            for u in range(self.n):
                for v, d, a, pen, kind in adj[u]:
                    radj[v].append((u, a + pen * hp_w))
            self._radj[(s, hp_w)] = radj
        cost = [INF] * self.n
        heap = []
        for t, c in targets.items():
            if c < cost[t]:
                cost[t] = c
                heap.append((c, t))
        heapq.heapify(heap)
        while heap:
            c, v = heapq.heappop(heap)
            if c > cost[v]:
                continue
            for u, w in radj[v]:
                nc = c + w
                if nc < cost[u] - 1e-9:
                    cost[u] = nc
                    heapq.heappush(heap, (nc, u))
        return cost

    def steps_from(self, src: int) -> list[int]:
        """Plain step counts from src through connected edges (as horrors count them)."""
        return self._steps([src])

    def _steps(self, sources: list[int], limit: int = FAR) -> list[int]:
        """Breadth-first step counts from the nearest source through connected edges, up to ``limit`` steps
        (FAR beyond it or where unreachable)."""
        dist = [FAR] * self.n
        for u in sources:
            dist[u] = 0
        frontier, k = sources, 0
        while frontier and k < limit:
            k += 1
            nxt = []
            for u in frontier:
                for v in self.nbr[u]:
                    if v >= 0 and dist[v] == FAR:
                        dist[v] = k
                        nxt.append(v)
            frontier = nxt
        return dist

    @staticmethod
    def path_to(prev, src: int, dst: int) -> list[tuple[int, int, int]]:
        """Steps (from_tile, dir, kind) from src to dst."""
        steps = []
        t = dst
        while t != src:
            p = prev[t]
            if p is None:
                return []
            steps.append(p)
            t = p[0]
        steps.reverse()
        return steps

    # ------------------------------------------------------------------ danger
    def loss(self, s: int, x: int) -> float:
        """Health-equivalent loss of caver s taking x damage: a knock-out costs more than its health."""
        hp = self.hp[s]
        return float(x) if x < hp else self.ko_cost(s)

    def type_danger(self, s: int, ttype: int, rubble: bool = False, guarded: bool = False) -> float:
        """Expected loss of caver s ending the round on a tile of this type (hazard cards; knock-outs weighed)."""
        if ttype == T_EXIT:
            return 0.0
        rank = self.rank[s]
        odds = self.odds
        cfg = self.cfg
        d = 0.0
        if not guarded:
            d = odds[C_TREMOR] * (1 / 3 if rank == RANK_LEADER else 0.5) * self.loss(s, cfg.tremor_damage)
            h = self.haz_scale
            if ttype == T_WATER and rank != RANK_DIVER:
                d += h * odds[C_FLOOD] * self.loss(s, cfg.flood_damage)
            elif ttype == T_GAS:
                d += h * odds[C_GAS] * self.loss(s, cfg.gas_damage)
            elif ttype == T_CAVE_IN and not rubble:
                x = cfg.engineer_cave_in_damage if rank == RANK_ENGINEER else cfg.cave_in_damage
                d += h * odds[C_CAVE_IN] / 3 * self.loss(s, x)
        if ttype == T_HORROR and rank != RANK_SCOUT and not self.hidden[s]:
            d += odds[C_HORROR] * self.ko_cost(s)  # a horror spawns on the closest victim's horror tile
        return d

    def ko_cost(self, s: int) -> float:
        """A knock-out in health-point units: the health itself plus the turns lost until someone heals."""
        return max(self.hp[s], 1) + self.ko_extra

    def horror_danger(self, s: int, t: int) -> float:
        if not self.horrors or self.rank[s] == RANK_SCOUT or self.hidden[s] or t == self.exit:
            return 0.0
        hd = self.horror_dist()[t]
        if hd <= 1:
            p = 0.9
        elif hd == 2:
            p = self.odds[C_HORROR] + 0.1
        elif hd == 3:
            p = 0.03
        else:
            return 0.0
        return p * self.ko_cost(s)

    def end_danger(self, s: int, t: int) -> float:
        """Expected health-equivalent loss of caver s ending the round on tile t (hazards and horrors)."""
        if t == self.exit and t >= 0:
            return 0.0
        guarded = self.guard_tile() == t and self.rank[s] != RANK_BODYGUARD and self.guard_settled()
        d = self.type_danger(s, self.ttype[t], self.rubble[t], guarded)
        if self.rank[s] == RANK_BODYGUARD and self.hp[s] > 0:
            d -= self.protection(s, t)
        if self.ttype[t] == T_HORROR and t in self.horror_set:
            d -= self.odds[C_HORROR] * self.ko_cost(s) if self.rank[s] != RANK_SCOUT and not self.hidden[s] else 0
        d += self.horror_danger(s, t)
        return d

    def new_tile_danger(self, s: int) -> float:
        """Expected danger of ending on a tile not drawn yet (the remaining tiles' public mix), entering it
        included (active gas, rough terrain)."""
        mix = self.remaining_mix()
        total = sum(mix.values()) or 1
        d = 0.0
        for tt, k in mix.items():
            x = self.type_danger(s, tt)
            if tt == T_GAS and self.gas_active:
                x += self.loss(s, self.cfg.gas_enter_damage)
            if tt == T_ROUGH:
                x += 0.5 * self.loss(s, 1)
            d += k * x
        return d / total

    def remaining_mix(self) -> dict[int, int]:
        """Tile types not placed yet (the box's contents less the cave: public knowledge), by count."""
        if self._mix is None:
            types = self.cat.tile_type
            counts = np.bincount(types[:self.cat.n_cave], minlength=11)
            placed = np.bincount(types[np.asarray(self.tcat)[1:]], minlength=11) if self.n > 1 else 0
            left = np.maximum(counts - placed, 0)
            self._mix = {int(t): int(k) for t, k in enumerate(left) if k > 0}
        return self._mix
