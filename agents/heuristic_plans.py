"""Whole-turn plans of the acting caver, valued in AP units; the best one is started (and replanned at the next
decision, so a run's steps and the rest of the turn follow the same valuation).

* Exit hidden ("draw" mode): "walk to tile v (c AP), then draw there with the r AP left" is worth one per tile,
  less the danger of where the turn ends: v itself if it only reveals, a tile not drawn yet if the last draw is
  an explore (the remaining tiles' public mix), and ``pos`` per AP the next turn needs to reach the frontier.
  "Walk to v and stop" competes with it, and so do heal, hide and clearing the way (rope, dig, Repel).
* A goal tile ("goto" mode): the exit once it is placed, or a knocked-out teammate this caver is the closest
  one to reach. "Walk to v" is worth ``time_w`` per AP it leaves to go, less the danger of stopping on v; reaching
  the goal with the AP it needs earns a bonus. The Diver may dive and surface near the goal (R-CAV-1), the
  Engineer blasts through walls once the exit is placed (R-CAV-4, see Board.adjacency).
* Exert (R-ACT-2) when one more AP reaches the exit (nothing can hurt a caver there, so the failed check is
  free), draws one more tile while healthy, or gets on faster once the exit is placed; the Leader directs a
  teammate (R-CAV-8) when that teammate's free action is worth more than the Leader's last AP.
"""

from __future__ import annotations

from subterra_env.core.actions import A_BANDAGE, A_DIVE, A_END, A_EXERT, A_EXPLORE, A_HEAL, A_HIDE, A_REVEAL
from subterra_env.core.catalogue import T_WATER
from subterra_env.core.effects import RANK_CLIMBER, RANK_DIVER, RANK_GEOLOGIST, RANK_LEADER, RANK_MEDIC, RANK_SCOUT

from .heuristic_board import E_BLAST, INF, Board
from .heuristic_paths import first_action, reach_plan
from .heuristic_tiles import side_score


class Plans:
    """The plans of caver s (the acting caver) on Board b for the weights of TurnPlanner p.

    free: steps left in a run or sprint already paid for (inside a run)."""

    def __init__(self, p, b: Board, s: int, free: int = 0):
        self.p, self.b, self.s = p, b, s
        self.t0 = b.tile[s]
        self.free = free
        self.cost, self.apc, self.prev = b.paths(s, self.t0, p.hp_ap)
        self.target, self.bonus, self.need = -1, 0.0, 0.0
        victim = self._victim()
        if victim >= 0:
            self.target, self.bonus, self.need = victim, p.revive, float(b.cfg.heal_cost)
        elif b.exit >= 0 and b.field_to(s, {b.exit: 0.0}, p.hp_ap)[self.t0] < INF:
            self.target, self.bonus = b.exit, p.escape
        self.goto = self.target >= 0
        self.can_draw = b.can_draw(b.rank[s]) and not self.goto
        self.surface_to = INF  # the Diver: AP from the best water tile to surface on to the goal
        if self.goto:
            goals = {self.target: 0.0}
            self.goal = b.field_to(s, goals, p.hp_ap)
            if b.rank[s] == RANK_DIVER:
                water = [t for t in range(b.n) if b.ttype[t] == T_WATER][:8]
                if water:
                    self.surface_to = min(self.goal[w] for w in water) + 1.0
                    if self.surface_to < INF:  # a dive from any water tile: 2 AP, the turn, 1 AP to surface
                        goals.update({w: self.surface_to + 2.5 for w in water})
                        self.goal = b.field_to(s, goals, p.hp_ap)
        else:
            fronts = {t: 0.0 for t in range(b.n) if b.revealable(t)} if self.can_draw else {}
            self.goal = b.field_to(s, fronts, p.hp_ap) if fronts else [0.0] * b.n
        self.new_danger = b.new_tile_danger(s) if self.can_draw else 0.0
        self.medic = b.rank[s] == RANK_MEDIC and b.directing < 0
        m = b.seat_of.get(RANK_MEDIC, -1)
        self.medic_seat = m if m >= 0 and m != s and b.conscious(m) and b.in_cave(m) else -1
        self._bandages = 0
        self._paths: dict[int, list] = {}
        self._ap: dict[int, float] = {}

    def _victim(self) -> int:
        """Tile of a knocked-out teammate to revive: this caver is the one who reaches him cheapest, within
        rescue_range AP while the exit is hidden, and with time to bring him out once it is placed."""
        b, p, s = self.b, self.p, self.s
        best, target = INF, -1
        for k in range(b.seats):
            if k == s or b.dead[k] or b.under[k] or b.hp[k] > 0 or b.tile[k] < 0 or b.tile[k] == b.exit:
                continue
            u = b.tile[k]
            mine = self.cost[u]
            if mine >= INF or (b.exit < 0 and mine > p.rescue_range) or not p.worth_reviving(b, k, self.apc[u]):
                continue
            closer = False
            for j in range(b.seats):
                if j != s and j != k and b.conscious(j) and b.in_cave(j) and b.tile[j] >= 0:
                    theirs = b.paths(j, b.tile[j], p.hp_ap)[0][u]
                    if theirs < mine or (theirs == mine and j < s):
                        closer = True
                        break
            if not closer and mine < best:
                best, target = mine, u
        return target

    def _care(self, v: int) -> float:
        """A hurt caver ending his turn on the Medic's tile gets bandaged (1 AP for him) when the Medic acts."""
        b, p, s = self.b, self.p, self.s
        m = self.medic_seat
        if m < 0 or b.tile[m] != v or b.hp[s] >= b.maxhp[s] or b.hp[s] <= 0:
            return 0.0
        return p.care * p.heal_value.get(b.hp[s], 0.3)

    def _bandage_gain(self, v: int, ap: int) -> float:
        """Worth of the Medic's bandages on tile v with ap AP: the lowest health first (sets _bandages)."""
        b, p = self.b, self.p
        hps = sorted(b.hp[k] for k in range(b.seats) if k != self.s and b.tile[k] == v and not b.dead[k]
                     and 0 < b.hp[k] < b.maxhp[k])
        gain, used = 0.0, 0
        while hps and used < ap:
            h = hps.pop(0)
            gain += p.heal_value.get(h, 0.3)
            used += 1
            if h + 1 < 3:
                hps.append(h + 1)
                hps.sort()
        self._bandages = used
        return gain

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
                self._ap[v] = reach_plan(self.b, self.s, steps, self.free)[0][-1]
        return self._ap[v]

    # ------------------------------------------------------------------ valuing plans
    def best(self, budget: int):
        """(value, kind, tile, detail) of the best plan with this many AP."""
        b, p, s = self.b, self.p, self.s
        W = p.hp_ap
        hp = b.hp[s]
        best = (-INF, "end", self.t0, None)
        for v in range(b.n):
            if self.apc[v] > budget + 2 or self.cost[v] >= INF:
                continue
            c = self.ap_to(v)
            if c > budget + 1e-9:
                continue
            r = budget - c
            pen = self.cost[v] - self.apc[v]  # health the way costs (active gas, rough terrain), in AP
            dv = b.end_danger(s, v)
            if self.goto:
                val = -p.time_w * self.goal[v] - W * dv - pen
                if v == self.target and r >= self.need:
                    val += self.bonus
                best = max(best, (val, "end", v, None), key=_value)
            else:
                care = self._care(v)
                best = max(best, (care - W * dv - p.pos * self.goal[v] - pen, "end", v, None), key=_value)
                nf = len(b.revealable(v)) if self.can_draw else 0
                if nf and r >= 1:
                    k = min(r, nf)
                    n = k + 0.85 * max(0.0, r - nf)
                    stay = p.tile * k + care - W * dv - p.pos * (0.0 if nf > r else 1.0)  # reveal only, stay on v
                    go = p.tile * n - W * self.new_danger - p.pos * 0.3  # the last draw an explore
                    best = max(best, (max(stay, go) - pen, "draw", v, stay >= go), key=_value)
            if r >= b.cfg.heal_cost and hp < b.maxhp[s] and b.directing < 0 and (hp <= 1 or not self.goto):
                val = p.heal_value.get(hp, 0.3) - W * dv - pen - (p.time_w if self.goto else p.pos) * self.goal[v]
                if r - b.cfg.heal_cost >= 1 and self.can_draw and b.revealable(v):
                    val += p.tile * (r - b.cfg.heal_cost)
                best = max(best, (val, "heal", v, None), key=_value)
            if self.medic and r >= 1:  # the Medic's Bandage (R-CAV-6): 1 AP per health for a teammate on v
                gain = self._bandage_gain(v, int(r))
                if gain > 0:
                    left = r - self._bandages
                    val = gain - W * dv - pen - (p.time_w if self.goto else p.pos) * self.goal[v]
                    if left >= 1 and self.can_draw and b.revealable(v):
                        val += p.tile * min(left, len(b.revealable(v)))
                    best = max(best, (val, "bandage", v, None), key=_value)
            hd = b.horror_danger(s, v)
            if hd > 0 and r >= 2 and b.directing < 0:  # Hide (R-ACT-14): not a victim if the check passes
                ok = 2 / 3 if b.rank[s] == RANK_LEADER else 0.5
                best = max(best, (-W * (dv - hd * ok) - pen - p.pos * self.goal[v], "hide", v, None), key=_value)
        if (self.surface_to < INF and b.ttype[self.t0] == T_WATER and budget >= 2 and b.directing < 0
                and not b.under[s]):
            best = max(best, (-p.time_w * (self.surface_to + 0.5), "dive", self.t0, None), key=_value)
        prep = self._prep(budget)
        if prep is not None:
            best = max(best, prep, key=_value)
        return best

    def _prep(self, budget: int):
        """Clear the way toward the goal from here when the crossing cannot be finished this turn: a rope on a
        ledge or slide (R-ACT-13, the Climber's gear), a dig or excavation of rubble, a Repel, a blast."""
        b, p, s = self.b, self.p, self.s
        t0 = self.t0
        if b.directing >= 0:
            return None
        rank = b.rank[s]
        best = None
        for v, d, a, pen, kind in b.adjacency(s)[t0]:
            if self.goal[v] >= INF:
                continue
            if kind == E_BLAST:
                ap, saved = 2, 2.5
            elif b.barred(t0, d):
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
            val = -(p.time_w if self.goto else p.pos) * left - p.hp_ap * b.end_danger(s, t0)
            if best is None or val > best[0]:
                best = (val, "prep", v, (d, kind))
        return best

    # ------------------------------------------------------------------ acting
    def decide(self, mask) -> int:
        b, p, s = self.b, self.p, self.s
        directed = b.directing >= 0
        val, kind, v, detail = self.best(b.ap)
        if not directed and not b.exerted and mask[A_EXERT] and self._should_exert(val):
            return A_EXERT
        if b.rank[s] == RANK_LEADER and not directed and b.ap >= 1 and not b.direct_used:
            a = p.direct(b, mask, val - self.best(b.ap - 1)[0])
            if a >= 0:
                return a
        return self._act(kind, v, detail, mask)

    def _should_exert(self, val: float) -> bool:
        b, p, s = self.b, self.p, self.s
        val2, kind2, v2, _ = self.best(b.ap + 1)
        if self.goto:
            if v2 == b.exit and kind2 == "end" and val2 > val:
                return True  # the check comes at the end of the turn, on the exit: no damage
            urgent = b.exit >= 0 and (b.out_of_time or b.cards_left <= p.urgent_cards)
            return b.hp[s] >= (2 if urgent else p.exit_exert_hp) and val2 > val + 0.5
        if kind2 != "draw" or b.hp[s] < p.exert_hp:
            return False
        fail = 1 / 3 if b.rank[s] == RANK_LEADER else 0.5
        return val2 - p.hp_ap * fail > val + p.exert_margin

    def _act(self, kind: str, v: int, detail, mask) -> int:
        b, s = self.b, self.s
        if kind == "prep":
            return first_action(b, s, [(self.t0, detail[0], detail[1])], [(0, 0), (0, 0)], 1, mask)
        if v != self.t0:
            steps = self.path(v)
            best, how = reach_plan(b, s, steps, self.free)
            e = max(i for i in range(len(steps) + 1) if best[i] <= b.ap + 1e-9)
            return first_action(b, s, steps, how, max(e, 1), mask)
        if kind == "draw":
            sides = b.revealable(v)
            d = max(sides, key=lambda k: side_score(b, v, k))
            explore = not detail and (b.ap > len(sides) or b.ap == 1)
            a = (A_EXPLORE if explore else A_REVEAL) + d
            if mask[a]:
                return a
            return A_REVEAL + d if mask[A_REVEAL + d] else -1
        if kind == "bandage":
            hurt = [k for k in range(b.seats) if k != s and b.tile[k] == v and not b.dead[k]
                    and 0 < b.hp[k] < b.maxhp[k]]
            k = min(hurt, key=lambda k: (b.hp[k], k))
            return A_BANDAGE + b.rank[k] - 1
        return {"heal": A_HEAL + b.rank[s] - 1, "dive": A_DIVE, "hide": A_HIDE}.get(kind, A_END)


def _value(plan) -> float:
    return plan[0]
