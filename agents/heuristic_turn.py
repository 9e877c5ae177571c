"""Turn decisions of the heuristic: draw tiles fast while the exit is hidden, then everyone to the exit.

Each decision is replanned from the public board. The acting caver values whole-turn plans in AP units and
starts the best one:

* exit hidden: "walk to tile v (AP c), then draw the remaining AP there" is worth one per tile drawn, less the
  danger of where the turn ends (the tile itself if it only reveals, a tile not drawn yet if it explores last)
  and the AP the next turn needs to reach the frontier; "walk to v and stop" and "heal" compete with it;
* exit placed: "walk to v" is worth the AP it saves toward the exit less its danger; reaching the exit is a
  bonus (nothing can hurt a caver there, so an Exert that gets there is free);
* exert when the best plan with one more AP beats the best without by more than the expected cost of the
  skill check; the Leader directs a teammate when that teammate's free action beats his own AP;
* overrides: the Bodyguard repels adjacent horrors; knocked-out teammates are revived by the closest caver
  (once the exit is placed, only while there is time to bring them); a caver on 1 health heals himself.
"""

from __future__ import annotations

from subterra_env.core.actions import (A_BANDAGE, A_DIVE, A_DIRECT, A_END, A_EXERT, A_EXPLORE, A_HEAL, A_HIDE, A_MOVE,
                                       A_REPEL, A_REVEAL, A_STEP, A_STOP, A_SURFACE)
from subterra_env.core.catalogue import DX, DY, T_WATER
from subterra_env.core.effects import RANK_BODYGUARD, RANK_CLIMBER, RANK_DIVER, RANK_GEOLOGIST, RANK_LEADER, RANK_MEDIC, RANK_SCOUT

from .heuristic_board import INF, Board
from .heuristic_paths import first_action, reach_plan, step_info
from .heuristic_tiles import side_score

HEAL_VALUE = {1: 3.0, 2: 1.4, 3: 0.7, 4: 0.5}  # worth of one more health point at this health, in AP


class TurnPlanner:
    """Decides the acting caver's action for one Board; the keyword arguments are the tunable weights."""

    def __init__(self, tile: float = 1.0, hp_ap: float = 2.0, pos: float = 0.7, escape: float = 6.0,
                 time_w: float = 1.0, rescue_range: float = 12.0, revive: float = 8.0, exert_margin: float = 0.0,
                 rally_tiles: int = 0, exert_hp: int = 2, urgent_cards: int = 2, exit_exert_hp: int = 3,
                 regroup_far: int = 5, regroup_near: int = 3, ball: float = 0.0, ball_free: int = 3,
                 pace: float = 2.5, ko_extra: float = 3.0, buddy: float = 0.0, buddy_r: int = 2,
                 heal2: float = 1.4):
        self.tile = tile  # value of a tile drawn (exit hidden)
        self.hp_ap = hp_ap  # AP per health point lost
        self.pos = pos  # value per AP of distance to the next goal left at the end of the turn
        self.escape = escape  # bonus for ending on the exit
        self.time_w = time_w  # value per AP of progress toward the exit
        self.rescue_range = rescue_range
        self.rally_tiles = rally_tiles  # late phase (a pathfinder draws, the others keep close) from this many tiles
        self.exit_exert_hp = exit_exert_hp  # exit placed: exert toward it with at least this much health
        self.exert_hp = exert_hp
        self.ko_extra = ko_extra  # a knock-out costs its health plus this (turns lost, the rescue), in health
        self.buddy, self.buddy_r = buddy, buddy_r  # pairs: value per step beyond buddy_r from the buddy
        self.heal_value = {**HEAL_VALUE, 2: heal2}
        self.pace = pace  # AP a caver covers per turn on the way out (runs and exerts), for time estimates
        self.ball, self.ball_free = ball, ball_free  # compact cave: value per cell beyond ball_free from the start
        self.regroup_far, self.regroup_near = regroup_far, regroup_near  # late: walk back beyond far steps  # exert for a tile only with at least this much health
        self.urgent_cards = urgent_cards  # exit placed and this few hazard cards left: exert to get there
        self.revive = revive  # value of reviving a knocked-out teammate
        self.exert_margin = exert_margin  # what an Exert must gain beyond its expected cost

    # ------------------------------------------------------------------ entry points
    def turn(self, b: Board, mask) -> int:
        s = b.actor
        t0 = b.tile[s]
        directed = b.directing >= 0
        if b.exit >= 0 and t0 == b.exit:
            a = self._direct(b, mask, -INF) if not directed else -1
            return a if a >= 0 else A_END
        for a in (self._repel(b, mask), self._revive_here(b, mask), self._patch_up(b, mask)):
            if a >= 0:
                return a
        plan = Plans(self, b, s, b.ap)
        return plan.decide(mask)

    def run_step(self, b: Board, mask) -> int:
        """Inside a run or sprint: the next step of the best plan, or stop."""
        s = b.actor
        plan = Plans(self, b, s, b.ap, free=b.run_left)
        val, kind, v, _ = plan.best(b.ap)
        if v != b.tile[s]:
            steps = plan.path(v)
            if steps:
                d = steps[0][1]
                if mask[A_STEP + d] and plan.info_first_plain(steps):
                    return A_STEP + d
        if mask[A_STOP]:
            return A_STOP
        t0 = b.tile[s]
        opts = [d for d in range(4) if mask[A_STEP + d]]
        return A_STEP + min(opts, key=lambda d: b.end_danger(s, b.nbr[t0][d]))

    def surface(self, b: Board, mask) -> int:
        """The Diver comes up on the water tile closest to where he is going."""
        s = b.actor
        water = [t for t in range(b.n) if b.ttype[t] == T_WATER][:8]
        if b.exit >= 0:
            goal = b.field_to(s, {b.exit: 0.0})
        else:
            goal = b.field_to(s, {t: 0.0 for t in range(b.n) if b.revealable(t)} or {0: 0.0})
        best, best_a = INF, -1
        for k, t in enumerate(water):
            a = A_SURFACE + k
            if mask[a]:
                c = goal[t] + self.hp_ap * b.end_danger(s, t)
                if c < best:
                    best, best_a = c, a
        return best_a

    def directed(self, b: Board, mask) -> int:
        """Acting under the Leader's Direct: one free 1-AP action, or decline."""
        a = self.turn(b, mask)
        return a if a >= 0 and mask[a] else A_END

    # ------------------------------------------------------------------ overrides
    def _repel(self, b: Board, mask) -> int:
        if b.rank[b.actor] != RANK_BODYGUARD:
            return -1
        for d in range(4):
            if mask[A_REPEL + d]:
                return A_REPEL + d
        return -1

    def _revive_here(self, b: Board, mask) -> int:
        """Heal (the Medic: bandage) a knocked-out teammate on this tile."""
        s = b.actor
        t0 = b.tile[s]
        for k in range(b.seats):
            if k != s and b.tile[k] == t0 and not b.dead[k] and b.hp[k] == 0 and self._worth_reviving(b, k):
                r = b.rank[k]
                for a in (A_BANDAGE + r - 1, A_HEAL + r - 1):
                    if mask[a]:
                        return a
        return -1

    def _worth_reviving(self, b: Board, k: int, reach: float = 0.0) -> bool:
        """Exit placed: only while the rescuer (reach AP away) can revive him and he can still walk out before
        Out of Time (about pace AP per turn, runs and exerts included)."""
        if b.exit < 0:
            return True
        if b.out_of_time:
            return False
        back = b.field_to(k, {b.exit: 0.0}, 0.0)[b.tile[k]]
        return back < INF and (reach + b.cfg.heal_cost + back) / self.pace <= b.cards_left - 0.5

    def _patch_up(self, b: Board, mask) -> int:
        """The Medic bandages a hurt teammate here; a caver on 1 health heals himself (exit hidden)."""
        s = b.actor
        t0 = b.tile[s]
        if b.rank[s] == RANK_MEDIC:
            hurt = [k for k in range(b.seats) if k != s and b.tile[k] == t0 and not b.dead[k]
                    and b.hp[k] < b.maxhp[k] and mask[A_BANDAGE + b.rank[k] - 1]]
            if hurt:
                k = min(hurt, key=lambda k: b.hp[k])
                if b.exit < 0 or b.hp[k] <= 1:
                    return A_BANDAGE + b.rank[k] - 1
        if b.exit >= 0 or b.directing >= 0:
            return -1
        if b.hp[s] == 1 and b.maxhp[s] > 1:
            heal = A_HEAL + b.rank[s] - 1
            if mask[heal] and not (b.guard_tile() == t0 and b.rank[s] != RANK_BODYGUARD):
                return heal
        return -1

    def _direct(self, b: Board, mask, own_value: float) -> int:
        """The Leader's Direct, when a teammate's free 1-AP action is worth more than his own AP."""
        best, best_a = own_value, -1
        for k in range(b.seats):
            r = b.rank[k]
            a = A_DIRECT + r - 1
            if not mask[a] or not b.conscious(k) or not b.in_cave(k):
                continue
            t = b.tile[k]
            val = 0.0
            if b.exit < 0:
                if b.can_draw(r) and b.revealable(t):
                    val = self.tile
            else:
                for d, v in enumerate(b.nbr[t]):
                    if v == b.exit and step_info(b, k, (t, d, 0))[1]:
                        val = self.escape
                if val == 0.0:
                    val = 0.8 * self.time_w
            if val > best:
                best, best_a = val, a
        return best_a


class Plans:
    """Whole-turn plans of caver s with a budget of AP, valued in AP units (see the module docstring)."""

    def __init__(self, p: TurnPlanner, b: Board, s: int, ap: int, free: int = 0):
        self.p, self.b, self.s = p, b, s
        self.t0 = b.tile[s]
        self.free = free
        self.cost, self.apc, self.prev = b.paths(s, self.t0, p.hp_ap)
        self.target, self.bonus, self.need = -1, 0.0, 0.0
        victim = self._victim()
        if victim >= 0:  # walk to a knocked-out teammate and revive him
            self.target, self.bonus, self.need = victim, p.revive, float(b.cfg.heal_cost)
        elif b.exit >= 0 and b.field_to(s, {b.exit: 0.0}, p.hp_ap)[self.t0] < INF:
            self.target, self.bonus = b.exit, p.escape
        rank = b.rank[s]
        self.rally = None  # late in the stack: steps from the nearest member of the main group, by tile
        goals = {self.target: 0.0} if self.target >= 0 else None
        if goals is None and b.main:
            main = b.main
            if s not in main:
                near = [min(x) for x in zip(*(b.steps_from(b.tile[k]) for k in main))]
                goals = {t: 0.0 for t in range(b.n) if near[t] <= p.regroup_near}
        self.exit_phase = goals is not None  # a walk to a tile (the "goto" plans)
        self.surface_to = INF  # the Diver: AP from surfacing (best water tile) to the target
        self.can_draw = b.can_draw(rank) and not self.exit_phase
        self.radius = 99
        if self.exit_phase:
            self.goal = b.field_to(s, goals, p.hp_ap)
            if rank == RANK_DIVER and self.target >= 0:  # the Diver's Dive: surface on any water tile
                water = [t for t in range(b.n) if b.ttype[t] == T_WATER][:8]
                if water:
                    self.surface_to = min(self.goal[w] for w in water) + 1.0
                    if self.surface_to < INF:
                        more = {**goals, **{w: self.surface_to + 2.5 for w in water}}
                        self.goal = b.field_to(s, more, p.hp_ap)
        else:
            self.mate = self._mate_steps()
            fronts = {t: self._ball(t) + self._apart(t) for t in range(b.n) if b.revealable(t)} \
                if self.can_draw else {}
            self.goal = b.field_to(s, fronts, p.hp_ap) if fronts else [0.0] * b.n
        self.new_danger = b.new_tile_danger(s) if self.can_draw else 0.0
        self._paths: dict[int, list] = {}
        self._ap: dict[int, float] = {}

    def _victim(self) -> int:
        """Tile of a knocked-out teammate this caver should revive: he is the closest conscious caver to him
        (in steps), within rescue_range AP, and (exit placed) there is time to bring him out."""
        b, p, s = self.b, self.p, self.s
        best, target = INF, -1
        for k in range(b.seats):
            if k == s or b.dead[k] or b.under[k] or b.hp[k] > 0 or b.tile[k] < 0 or b.tile[k] == b.exit:
                continue
            u = b.tile[k]
            if self.cost[u] >= INF or (b.exit < 0 and self.cost[u] > p.rescue_range):
                continue
            if not p._worth_reviving(b, k, self.apc[u]):
                continue
            mine = self.cost[u]
            closer = False
            for j in range(b.seats):
                if j != s and j != k and b.conscious(j) and b.in_cave(j) and b.tile[j] >= 0:
                    theirs = b.paths(j, b.tile[j], p.hp_ap)[0][u]
                    if theirs < mine or (theirs == mine and j < s):
                        closer = True
                        break
            if not closer and self.cost[u] < best:
                best, target = self.cost[u], u
        return target

    def _mate_steps(self):
        """Steps from this caver's buddy (cavers explore in pairs by seat: 0-1, 2-3, 4-5; an odd last caver joins
        the pair before): a knocked-out caver is revived at once, the Bodyguard and Medic help their buddy."""
        b, p, s = self.b, self.p, self.s
        if not p.buddy:
            return None
        n = b.seats
        group = [s - s % 2, s - s % 2 + 1]
        if n % 2 and s >= n - 3:
            group = [n - 3, n - 2, n - 1]
        mates = [k for k in group if k != s and k < n and b.conscious(k) and b.in_cave(k) and b.tile[k] >= 0]
        if not mates:
            return None
        dists = [b.steps_from(b.tile[k]) for k in mates]
        return [min(d[t] for d in dists) for t in range(b.n)]

    def _apart(self, t: int) -> float:
        if not self.mate:
            return 0.0
        return self.p.buddy * max(0, self.mate[t] - self.p.buddy_r)

    def _ball(self, t: int) -> float:
        """Grow the cave as a ball around the start tile (short paths to wherever the exit turns up): a
        penalty for frontier cells far from the start, beyond ball_free cells."""
        p, b = self.p, self.b
        if not p.ball:
            return 0.0
        ox, oy = b.x[0], b.y[0]
        far = min((abs(b.x[t] + DX[d] - ox) + abs(b.y[t] + DY[d] - oy) for d in b.revealable(t)), default=0)
        return p.ball * max(0, far - p.ball_free)

    def path(self, v: int) -> list:
        if v not in self._paths:
            self._paths[v] = self.b.path_to(self.prev, self.t0, v)
        return self._paths[v]

    def ap_to(self, v: int) -> float:
        """AP to stand on v (runs and sprints included; steps of a run in progress are free)."""
        if v not in self._ap:
            steps = self.path(v)
            if v == self.t0:
                self._ap[v] = 0.0
            elif not steps:
                self._ap[v] = INF
            else:
                best, _ = reach_plan(self.b, self.s, steps, self.free)
                self._ap[v] = best[-1]
        return self._ap[v]

    def info_first_plain(self, steps) -> bool:
        return step_info(self.b, self.s, steps[0])[1]

    # ------------------------------------------------------------------ valuing plans
    def best(self, budget: int):
        """(value, kind, tile, detail) of the best plan with this many AP."""
        b, p, s = self.b, self.p, self.s
        W = p.hp_ap
        best = (-INF, "end", self.t0, None)
        hp = b.hp[s]
        for v in range(b.n):
            if self.apc[v] > budget + 2 or self.cost[v] >= INF:
                continue
            c = self.ap_to(v)
            if c > budget + 1e-9:
                continue
            r = budget - c
            pen = self.cost[v] - self.apc[v]
            dv = b.end_danger(s, v)
            team = self._ball(v) + self._apart(v) if self.can_draw and not self.exit_phase else 0.0
            if self.exit_phase:
                val = -p.time_w * self.goal[v] - W * dv - pen
                if v == self.target and r >= self.need and self.target >= 0:
                    val += self.bonus
                if val > best[0]:
                    best = (val, "end", v, None)
            else:
                val = -W * dv - p.pos * self.goal[v] - pen - team
                if val > best[0]:
                    best = (val, "end", v, None)
                nf = len(b.revealable(v)) if self.can_draw else 0
                if self.rally and self.rally[v] > self.radius:
                    nf = 0  # late: no drawing away from the pathfinder
                if nf and r >= 1:
                    k = min(r, nf)
                    n = k + 0.85 * max(0.0, r - nf)
                    stay = p.tile * k - W * dv - p.pos * (0.0 if nf > r else 1.0)  # reveal only, stay on v
                    go = p.tile * n - W * self.new_danger - p.pos * 0.3  # the last draw an explore
                    val = max(stay, go) - pen - team
                    if val > best[0]:
                        best = (val, "draw", v, stay >= go)
            if r >= b.cfg.heal_cost and hp < b.maxhp[s] and b.directing < 0 and (hp <= 1 or not self.exit_phase):
                left = r - b.cfg.heal_cost
                val = p.heal_value.get(hp, 0.3) - W * dv - pen - (p.time_w * self.goal[v] if self.exit_phase
                                                                   else p.pos * self.goal[v])
                if left >= 1 and not self.exit_phase and self.can_draw and b.revealable(v):
                    val += p.tile * left
                if val > best[0]:
                    best = (val, "heal", v, None)
            hd = b.horror_danger(s, v)
            if hd > 0 and r >= 2 and b.directing < 0:
                ok = 2 / 3 if b.rank[s] == RANK_LEADER else 0.5
                val = -W * (dv - hd * ok * b.frail(s)) - pen - p.pos * self.goal[v]
                if val > best[0]:
                    best = (val, "hide", v, None)
        if (self.surface_to < INF and b.ttype[self.t0] == T_WATER and budget >= 2 and b.directing < 0
                and not b.under[s]):
            val = -p.time_w * (self.surface_to + 0.5)
            if val > best[0]:
                best = (val, "dive", self.t0, None)
        prep = self._prep(budget)
        if prep is not None and prep[0] > best[0]:
            best = prep
        return best

    def _prep(self, budget: int):
        """Clear the way toward the goal from here when a crossing cannot be finished this turn: a rope on a
        ledge or slide, a dig or excavation of rubble, a Repel (the cost of the crossing drops for later)."""
        b, p, s = self.b, self.p, self.s
        t0 = self.t0
        if b.directing >= 0:
            return None
        rank = b.rank[s]
        best = None
        for v, d, a, pen, kind in b.adjacency(s)[t0]:
            if self.goal[v] >= INF:
                continue
            if b.barred(t0, d):
                ap, saved = (1, 1.0) if rank == RANK_CLIMBER else (2, 4.0 * (2 / 3 if rank == RANK_LEADER else 0.5))
            elif v in b.horror_set and rank != RANK_SCOUT:
                ap, saved = 1, 1.0
            elif b.rubble[v] and rank != RANK_CLIMBER:
                ap, saved = (1, 1.0) if rank == RANK_GEOLOGIST else (2, 2.0)
            else:
                continue
            if ap > budget:
                continue
            left = self.goal[v] + a + pen * p.hp_ap - saved
            w = p.time_w if self.exit_phase else p.pos
            val = -w * left - p.hp_ap * b.end_danger(s, t0)
            if best is None or val > best[0]:
                best = (val, "prep", v, d)
        return best

    # ------------------------------------------------------------------ acting
    def decide(self, mask) -> int:
        b, p, s = self.b, self.p, self.s
        directed = b.directing >= 0
        val, kind, v, detail = self.best(b.ap)
        if not directed and not b.exerted and mask[A_EXERT]:
            if self._should_exert(val, kind, v):
                return A_EXERT
        if b.rank[s] == RANK_LEADER and not directed and b.ap >= 1 and not b.direct_used:
            rest = self.best(b.ap - 1)[0]
            a = p._direct(b, mask, val - rest)
            if a >= 0:
                return a
        return self._act(kind, v, detail, mask)

    def _should_exert(self, val: float, kind: str, v: int) -> bool:
        """Exert (R-ACT-2) for a third AP: free when it gets this caver onto the exit (nothing hurts there), worth
        it for one more tile drawn while healthy, or when Out of Time is near and the exit is far."""
        b, p, s = self.b, self.p, self.s
        val2, kind2, v2, _ = self.best(b.ap + 1)
        if self.exit_phase:
            if v2 == b.exit and kind2 == "end" and val2 > val:
                return True
            urgent = b.exit >= 0 and (b.out_of_time or b.cards_left <= p.urgent_cards)
            return b.hp[s] >= (2 if urgent else p.exit_exert_hp) and val2 > val + 0.5
        if kind2 != "draw" or b.hp[s] < p.exert_hp:
            return False
        fail = 1 / 3 if b.rank[s] == RANK_LEADER else 0.5
        cost = p.hp_ap * fail * b.frail(s)
        return val2 - cost > val + p.exert_margin

    def _act(self, kind: str, v: int, detail, mask) -> int:
        b, s = self.b, self.s
        if kind == "prep":
            steps = [(self.t0, detail, 0)]
            return first_action(b, s, steps, [(0, 0), (0, 0)], 1, mask)
        if v != self.t0:
            steps = self.path(v)
            best, how = reach_plan(b, s, steps, self.free)
            e = max(i for i in range(len(steps) + 1) if best[i] <= b.ap + 1e-9)
            return first_action(b, s, steps, how, max(e, 1), mask)
        if kind == "draw":
            sides = b.revealable(v)
            d = max(sides, key=lambda k: side_score(b, v, k))
            r = b.ap
            explore = not detail and (r > len(sides) or r == 1)
            a = (A_EXPLORE if explore else A_REVEAL) + d
            if mask[a]:
                return a
            return A_REVEAL + d if mask[A_REVEAL + d] else -1
        if kind == "heal":
            return A_HEAL + b.rank[s] - 1
        if kind == "dive":
            return A_DIVE
        if kind == "hide":
            return A_HIDE
        return A_END


def main_group(b: Board, radius: int) -> list[int]:
    """Late in the stack: the largest group of conscious cavers in the cave chained within radius steps of one
    another (ties: the group with the lowest seat). Cavers outside it stop drawing and walk to it, so that the
    exit, one of the last tiles, is placed near most of the team."""
    if True:
        team = [k for k in range(b.seats) if b.conscious(k) and b.in_cave(k) and b.tile[k] >= 0]
        dist = {k: b.steps_from(b.tile[k]) for k in team}
        groups, seen = [], set()
        for k in team:
            if k in seen:
                continue
            group, todo = [], [k]
            seen.add(k)
            while todo:
                j = todo.pop()
                group.append(j)
                for m in team:
                    if m not in seen and dist[j][b.tile[m]] <= radius:
                        seen.add(m)
                        todo.append(m)
            groups.append(sorted(group))
        return max(groups, key=lambda gr: (len(gr), -gr[0])) if groups else []
