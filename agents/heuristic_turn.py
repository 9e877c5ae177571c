"""Turn decisions of the heuristic: the entry points for each kind of pending decision, the overrides that come
before any plan, and the Leader's Direct. Whole-turn plans are valued in ``heuristic_plans``.

Overrides, in order: a caver on the exit ends his turn (the Leader first directs a teammate onward); the
Bodyguard repels an adjacent horror (R-CAV-7); a knocked-out teammate on this tile is revived (the Medic
bandages, R-CAV-6); the Medic bandages a hurt teammate here; a caver on 1 health heals himself while the exit is
hidden (a knock-out costs his turns and a teammate's AP).
"""

from __future__ import annotations

from subterra_env.core.actions import A_BANDAGE, A_DIRECT, A_END, A_HEAL, A_REPEL, A_STEP, A_STOP, A_SURFACE
from subterra_env.core.catalogue import T_WATER
from subterra_env.core.effects import RANK_BODYGUARD, RANK_MEDIC

from .heuristic_board import INF, Board
from .heuristic_paths import step_info
from .heuristic_plans import Plans

HEAL_VALUE = {1: 3.0, 2: 1.4, 3: 0.7, 4: 0.5}  # worth of one more health point at this health, in AP


class TurnPlanner:
    """Decides the acting caver's action for one Board. The keyword arguments are the weights (AP units)."""

    def __init__(self, tile: float = 1.0, hp_ap: float = 2.0, pos: float = 0.7, escape: float = 6.0,
                 time_w: float = 1.0, rescue_range: float = 4.0, revive: float = 8.0, exert_margin: float = 0.0,
                 exert_hp: int = 2, exit_exert_hp: int = 3, urgent_cards: int = 2, pace: float = 2.5,
                 ko_extra: float = 3.0, heal_at_1: bool = True, heal1: float = 3.0,
                 haz_scale: float = 0.6, care: float = 0.5):
        self.tile = tile  # a tile drawn while the exit is hidden
        self.hp_ap = hp_ap  # a health point lost (a heal costs 2 AP)
        self.pos = pos  # per AP the next turn needs to reach the frontier from where this one ends
        self.escape = escape  # bonus for ending on the exit
        self.time_w = time_w  # per AP of the way to the exit (or to a knocked-out teammate) still to go
        self.rescue_range = rescue_range  # exit hidden: revive teammates up to this many AP away
        self.revive = revive  # bonus for reaching a knocked-out teammate with the AP to heal him
        self.exert_margin = exert_margin  # what an Exert for a tile must gain beyond its expected cost
        self.exert_hp = exert_hp  # exert for a tile only with at least this much health
        self.exit_exert_hp = exit_exert_hp  # exit placed: exert on the way with at least this much health
        self.urgent_cards = urgent_cards  # ... or with 2 health once this few hazard cards are left
        self.pace = pace  # AP a caver covers per turn on the way out (runs, exerts), for time estimates
        self.ko_extra = ko_extra  # a knock-out costs its health plus this, in health points
        self.haz_scale = haz_scale  # weight of the hazard cards' tile damage (flood, gas, cave-in) at the stop
        self.care = care  # share of a bandage's worth credited for ending next to the Medic
        self.heal_at_1 = heal_at_1  # a caver on 1 health heals himself before anything else (exit hidden)
        self.heal_value = {**HEAL_VALUE, 1: heal1}

    # ------------------------------------------------------------------ entry points
    def turn(self, b: Board, mask) -> int:
        s = b.actor
        if b.exit >= 0 and b.tile[s] == b.exit:
            a = self.direct(b, mask, -INF) if b.directing < 0 else -1
            return a if a >= 0 else A_END
        for a in (self._repel(b, mask), self._revive_here(b, mask), self._patch_up(b, mask)):
            if a >= 0:
                return a
        return Plans(self, b, s).decide(mask)

    def run_step(self, b: Board, mask) -> int:
        """Inside a run or sprint: the next step toward the best plan's tile, or stop."""
        s = b.actor
        plans = Plans(self, b, s, free=b.run_left)
        _, _, v, _ = plans.best(b.ap)
        if v != b.tile[s]:
            steps = plans.path(v)
            if steps and mask[A_STEP + steps[0][1]] and step_info(b, s, steps[0])[1]:
                return A_STEP + steps[0][1]
        if mask[A_STOP]:
            return A_STOP
        t0 = b.tile[s]  # a run must take a first step: the safest one
        opts = [d for d in range(4) if mask[A_STEP + d]]
        return A_STEP + min(opts, key=lambda d: b.end_danger(s, b.nbr[t0][d]))

    def surface(self, b: Board, mask) -> int:
        """The Diver comes up on the water tile closest to where he is going (R-CAV-1)."""
        s = b.actor
        water = [t for t in range(b.n) if b.ttype[t] == T_WATER][:8]
        if b.exit >= 0:
            goal = b.field_to(s, {b.exit: 0.0})
        else:
            goal = b.field_to(s, {t: 0.0 for t in range(b.n) if b.revealable(t)} or {0: 0.0})
        best, best_a = INF, -1
        for k, t in enumerate(water):
            if mask[A_SURFACE + k]:
                c = goal[t] + self.hp_ap * b.end_danger(s, t)
                if c < best:
                    best, best_a = c, A_SURFACE + k
        return best_a

    def directed(self, b: Board, mask) -> int:
        """Acting under the Leader's Direct (R-CAV-8): the best 1-AP action, or decline."""
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
        s = b.actor
        for k in range(b.seats):
            if k != s and b.tile[k] == b.tile[s] and not b.dead[k] and b.hp[k] == 0 and self.worth_reviving(b, k):
                r = b.rank[k]
                for a in (A_BANDAGE + r - 1, A_HEAL + r - 1):
                    if mask[a]:
                        return a
        return -1

    def worth_reviving(self, b: Board, k: int, reach: float = 0.0) -> bool:
        """Exit placed: only while a rescuer reach AP away can revive teammate k and he can still walk out
        before Out of Time (about pace AP per turn)."""
        if b.exit < 0:
            return True
        if b.out_of_time:
            return False
        back = b.field_to(k, {b.exit: 0.0}, 0.0)[b.tile[k]]
        return back < INF and (reach + b.cfg.heal_cost + back) / self.pace <= b.cards_left - 0.5

    def _patch_up(self, b: Board, mask) -> int:
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
        if b.hp[s] == 1 and b.maxhp[s] > 1 and self.heal_at_1:
            heal = A_HEAL + b.rank[s] - 1
            if mask[heal] and not (b.guard_tile() == t0 and b.rank[s] != RANK_BODYGUARD):
                return heal
        return -1

    def direct(self, b: Board, mask, own_value: float) -> int:
        """The Leader's Direct when a teammate's free 1-AP action is worth more than his own AP: a reveal at
        the frontier (exit hidden), a step onto the exit or toward it (exit placed)."""
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
