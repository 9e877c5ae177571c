"""The batched rules engine: ``Core(cfg).init(seeds)``, ``legal_mask(state)``, ``step(state, actions)``.

One decision per game per step: the acting caver's action. The step resolves it, then anything that follows
without a decision: the end of the turn (exert check, R-ACT-2), the next caver's turn, and at the end of a
round the horror, hazard and end phases (R-RND-1). Games that have ended are left untouched.
"""

from __future__ import annotations

import numpy as np

from ..config import CAVER_NAMES, GameConfig
from . import rng
from .actions import (ACTION_ARG, ACTION_KIND, EXERT_BONUS, K_DIG, K_END, K_EXERT, K_EXPLORE, K_HEAL, K_HIDE,
                      K_MOVE, K_PICK, K_REDRAW, K_REVEAL, K_ROPE, K_ROTATE, K_RUN, K_SQUEEZE, K_STEP, K_STOP,
                      K_SURFACE, K_SWIM, KIND_COST, NUM_ACTIONS)
from .abilities import apply_ability, finish_direct, seat_of_rank
from .board import actor_tile, place
from .catalogue import C_OUT_OF_TIME, build
from .effects import check_one, damage_one, enter_tile, horror_contact, move_horrors, on_exit
from .hazards import end_phase, hazard_phase
from .state import P_NONE, P_RUN, P_SURFACE, RUNNING, State, alloc
from . import moves, placing

_SALT_CAVERS, _SALT_SEATS, _SALT_STACK, _SALT_EXIT, _SALT_DECK = 11, 12, 13, 14, 15


class Core:
    """Rules for one GameConfig over any batch size. Stateless apart from its constant tables."""

    def __init__(self, cfg: GameConfig | None = None):
        self.cfg = cfg or GameConfig()
        self.cat = build(self.cfg)
        self.num_actions = NUM_ACTIONS
        self.cost = KIND_COST[ACTION_KIND].astype(np.int8)
        self.cost[ACTION_KIND == K_EXPLORE] = self.cfg.explore_cost
        self.cost[ACTION_KIND == K_HEAL] = self.cfg.heal_cost

    # ------------------------------------------------------------------ setup (R-SET)
    def init(self, seeds: np.ndarray | list[int] | int) -> State:
        cfg, cat = self.cfg, self.cat
        seeds = np.atleast_1d(np.asarray(seeds, dtype=np.int64))
        b, s = len(seeds), cfg.num_cavers
        st = alloc(b, s, cat.max_tiles, cat.stack_size, cat.deal_size + 1)
        st.key[:] = rng.seed_keys(seeds)
        # Cavers (R-SET-1): a seeded draw of num_cavers ranks, or the fixed list.
        if cfg.cavers is None:
            pick = np.argsort(rng.permutation_keys(st.key, _SALT_CAVERS, 8), axis=1)[:, :s]
            ranks = np.sort(pick, axis=1) + 1
        else:
            ranks = np.tile(np.sort([CAVER_NAMES.index(n) + 1 for n in cfg.cavers]), (b, 1))
        if cfg.seat_order == "random":  # R-SET-6 setting
            order = np.argsort(rng.permutation_keys(st.key, _SALT_SEATS, s), axis=1)
            ranks = np.take_along_axis(ranks, order, axis=1)
        st.c_rank[:] = ranks
        st.c_max[:] = np.asarray(cfg.caver_health, dtype=np.int8)[ranks - 1]  # R-SET-2
        st.c_hp[:] = st.c_max
        # Stack (R-SET-4): shuffled cave tiles with the exit among the last exit_in_last.
        n = cat.n_cave
        shuffled = np.argsort(rng.permutation_keys(st.key, _SALT_STACK, n), axis=1).astype(np.int8)
        exit_at = n + 1 - cfg.exit_in_last + (rng.stream(rng.mix(st.key ^ np.uint64(_SALT_EXIT)), 0, 1)[:, 0]
                                              % np.uint64(cfg.exit_in_last)).astype(np.intp)
        pos = np.arange(n + 1)[None, :]
        src = np.where(pos < exit_at[:, None], pos, pos - 1)
        st.stack[:] = np.where(pos == exit_at[:, None], cat.exit_id,
                               np.take_along_axis(shuffled, np.clip(src, 0, n - 1), axis=1))
        # Hazard deck (R-SET-5): shuffle the pool, deal, Out of Time at the bottom.
        order = np.argsort(rng.permutation_keys(st.key, _SALT_DECK, len(cat.deck_pool)), axis=1)
        st.deck[:, :cat.deal_size] = cat.deck_pool[order[:, :cat.deal_size]]
        st.deck[:, cat.deal_size] = C_OUT_OF_TIME
        st.ropes_left[:] = cfg.rope_tokens
        st.scout_redraws[:] = cfg.scout_redraws
        st.explosives[:] = cfg.explosives
        geologist = (ranks == 3).any(1)  # R-CAV-3 Intuition: the top tile is set aside face up
        st.aside_tile[geologist] = st.stack[geologist, 0]
        st.stack_pos[geologist] = 1
        # Start tile at the centre (R-SET-3); every caver on it.
        g = np.arange(b)
        origin = np.full(b, cat.stack_size + 1, dtype=np.intp)
        place(cat, st, g, np.full(b, cat.start_id), origin, origin, np.zeros(b, dtype=np.intp))
        st.c_tile[:] = 0
        st.ctr[:] = 0
        self._begin_turn(st, g, st.start_seat[g].astype(np.intp))
        return st

    # ------------------------------------------------------------------ legal actions
    def legal_mask(self, st: State) -> np.ndarray:
        """(B, A) bool: legal actions of each game's acting caver; all False once a game has ended."""
        return moves.legal_mask(self, st)

    # ------------------------------------------------------------------ step
    def step(self, st: State, actions: np.ndarray) -> None:
        """Apply one (legal, unchecked) action per game in place; ended games are skipped."""
        actions = np.asarray(actions, dtype=np.intp)
        live = np.nonzero(st.result == RUNNING)[0]
        a = actions[live]
        kind = ACTION_KIND[a]
        arg = ACTION_ARG[a].astype(np.intp)
        st.steps[live] += 1
        st.ap[live] -= self.cost[a]
        turn_over = np.zeros(len(live), dtype=bool)
        was_directed = st.directing[live] >= 0
        for k in np.unique(kind):
            sel = kind == k
            g, d = live[sel], arg[sel]
            if k == K_END:
                turn_over |= sel
            elif k == K_EXERT:
                st.exerted[g] = True
                st.ap[g] += EXERT_BONUS
            elif k in (K_REVEAL, K_EXPLORE):
                placing.start_reveal(self, st, g, d, k == K_EXPLORE)
            elif k == K_ROTATE:
                placing.place_pending(self, st, g, d)
            elif k == K_REDRAW:
                placing.redraw(self, st, g)
            elif k == K_PICK:
                placing.pick(self, st, g, d)
            elif k in (K_MOVE, K_SWIM, K_SQUEEZE):
                self._move(st, g, d)
            elif k == K_RUN:
                st.pend[g], st.run_left[g], st.run_taken[g] = P_RUN, self.cfg.run_steps, 0
            elif k == K_STEP:
                self._move(st, g, d)
                st.run_left[g] -= 1
                st.run_taken[g] += 1
                more = moves.step_targets(self, st, g).any(1) & (st.run_left[g] > 0)
                st.pend[g] = np.where(more, P_RUN, P_NONE)
            elif k == K_STOP:
                st.pend[g] = P_NONE
            elif k == K_DIG:
                tile = actor_tile(st, g)
                here = d == 4
                target = np.where(here, tile, st.t_nbr[g, tile, np.minimum(d, 3)])
                st.t_rubble[g, target] = False
            elif k == K_ROPE:
                ok = check_one(self.cfg, st, g, st.actor[g].astype(np.intp))
                st.t_rope[g[ok], actor_tile(st, g[ok])] = True
                st.ropes_left[g[ok]] -= 1
            elif k == K_HIDE:
                seat = st.actor[g].astype(np.intp)
                ok = check_one(self.cfg, st, g, seat)
                if self.cfg.hide_third_round_auto:  # R-ACT-14 variant
                    ok |= st.c_hide_streak[g, seat] >= 2
                st.c_hidden[g, seat] |= ok
                st.c_hid_now[g, seat] = True
            elif k == K_HEAL:
                target = seat_of_rank(st, g, d)
                st.c_hp[g, target] = np.minimum(st.c_hp[g, target] + 1, st.c_max[g, target])
            else:
                apply_ability(self, st, int(k), g, d)
        horror_contact(st, live)
        self._check_end(st, live)
        if was_directed.any():  # "end turn" under Direct declines; the turn goes back to the Leader
            finish_direct(st, live[was_directed & (st.result[live] == RUNNING)])
            turn_over &= ~was_directed
        seat = st.actor[live].astype(np.intp)
        out = (st.c_hp[live, seat] == 0)  # R-ACT-4: unconscious mid-turn stops at once
        out |= st.c_under[live, seat]  # a Dive ends the turn
        if self.cfg.diver_surface_whole_turn:
            out |= kind == K_SURFACE
        spent = (st.ap[live] <= 0) & st.exerted[live] & (st.pend[live] == P_NONE)
        done = (turn_over | out | spent) & (st.result[live] == RUNNING) & (st.directing[live] < 0)
        self._end_turn(st, live[done])

    # ------------------------------------------------------------------ helpers
    def _move(self, st: State, g: np.ndarray, d: np.ndarray) -> None:
        dest = st.t_nbr[g, actor_tile(st, g), d].astype(np.intp)
        enter_tile(self.cfg, st, g, st.actor[g].astype(np.intp), dest)

    def _begin_turn(self, st: State, g: np.ndarray, seat: np.ndarray) -> None:
        st.actor[g] = seat
        st.ap[g] = self.cfg.action_points
        st.exerted[g] = False
        st.pend[g], st.pend_explore[g], st.run_left[g], st.run_taken[g] = P_NONE, False, 0, 0
        st.direct_used[g], st.directing[g] = False, -1
        st.pend[g] = np.where(st.c_under[g, seat], P_SURFACE, P_NONE)  # R-CAV-1: surface first

    def _end_turn(self, st: State, g: np.ndarray) -> None:
        """Exert check (R-ACT-2), then the next caver in seat order, or the end of the round."""
        if not len(g):
            return
        seat = st.actor[g].astype(np.intp)
        ex = st.exerted[g] & (st.c_hp[g, seat] > 0) & ~st.c_under[g, seat]  # under water: only Tremor, Out of Time
        if ex.any():
            failed = ~check_one(self.cfg, st, g[ex], seat[ex])
            damage_one(st, g[ex], seat[ex], 1, failed)
            self._check_end(st, g[ex])
        g = g[st.result[g] == RUNNING]
        s = st.num_seats
        start = st.start_seat[g].astype(np.intp)
        done_order = (st.actor[g] - start) % s
        rows = np.arange(len(g))[:, None]
        order = np.arange(s)[None, :]
        seats = (start[:, None] + order) % s
        able = self._can_act(st, g)[rows, seats] & (order > done_order[:, None])
        has_next = able.any(1)
        nxt = g[has_next]
        self._begin_turn(st, nxt, seats[has_next, np.argmax(able[has_next], axis=1)])
        self._end_round(st, g[~has_next])

    def _end_round(self, st: State, g: np.ndarray) -> None:
        if not len(g):
            return
        move_horrors(self.cfg, st, g)
        self._check_end(st, g)
        g = g[st.result[g] == RUNNING]
        hazard_phase(self.cfg, self.cat, st, g)
        self._check_end(st, g)
        g = g[st.result[g] == RUNNING]
        end_phase(st, g)
        s = st.num_seats
        start = st.start_seat[g].astype(np.intp)
        seats = (start[:, None] + np.arange(s)[None, :]) % s
        able = self._can_act(st, g)[np.arange(len(g))[:, None], seats]
        self._begin_turn(st, g, seats[np.arange(len(g)), np.argmax(able, axis=1)])

    def _can_act(self, st: State, g: np.ndarray) -> np.ndarray:
        """(n, S) cavers that take a turn: conscious and not devoured (R-RND-2)."""
        return ((st.c_hp[g] > 0) | st.c_under[g]) & ~st.c_dead[g]  # a knocked-out Diver still surfaces

    def _check_end(self, st: State, g: np.ndarray) -> None:
        """R-RND-3 and R-RND-4: end when no conscious caver is left in the cave off the exit."""
        if not len(g):
            return
        conscious = (st.c_hp[g] > 0) & ~st.c_dead[g]
        out = on_exit(st, g)
        if self.cfg.exit_counts_in_cave:  # option: the exit is still the cave while anyone is not out
            over = ~conscious.any(1) | (out | st.c_dead[g]).all(1)
        else:
            over = ~(conscious & ~out).any(1)
        e = g[over]
        left_behind = (~on_exit(st, e)).sum(1)
        st.result[e] = np.maximum(3 - left_behind, 0)
        st.actor[e] = -1
        st.pend[e] = P_NONE

