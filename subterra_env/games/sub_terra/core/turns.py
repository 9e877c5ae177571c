"""One decision of one game: the action, then everything that follows without a decision (R-ACT, R-RND).

``step_game`` applies the acting caver's action (``apply_action`` dispatches on its kind), then the end of the
turn (the exert check, R-ACT-2), the next caver's turn, and at the end of a round the horror, hazard and end
phases (R-RND-1).

Investigation's ``explicit_reactions`` (R-INV-18, ``reactions.py``) can pause that chain where gas is about to
hurt a Gas Mask holder: in the action (entering a gas tile) or in the hazard phase (a Gas card). The step then
returns with the holder acting; the answer's step applies the gas damage and runs the rest of the chain from
there (``finish_step`` or ``hazard_end`` + ``finish_round``), so the game goes on exactly as without a pause.
"""

from __future__ import annotations

from .abilities import (clear_rubble, demolish, direct, dive, finish_direct, fix_rope, mend, repel, seat_of_rank,
                        start_run, surface)
from .actions import (EXERT_BONUS, K_BANDAGE, K_DEMOLISH, K_DIG, K_DIRECT, K_DIVE, K_END, K_EXCAVATE, K_EXERT,
                      K_EXPLORE, K_GEAR, K_HEAL, K_HIDE, K_MOVE, K_PICK, K_REDRAW, K_REPEL, K_REVEAL, K_ROPE,
                      K_ROTATE, K_RUN, K_SPRINT, K_SQUEEZE, K_STEP, K_STOP, K_SURFACE, K_SWIM, K_PLACE_BOMB, K_GIVE,
                      K_TAKE, K_SHOVEL, K_GAS_MASK)
from .board import actor_tile
from .catalogue import BIOSAMPLES, SC_ANNIHILATION, SC_EXTRACTION, SC_INVESTIGATION, T_BOMB
from .effects import HAZARD_SLOT, check_one, damage, enter_tile, gas_damage, on_exit, resync_dice
from .monsters import monster_contact, move_monsters
from .hazards import end_phase, hazard_end, hazard_phase
from .events import (E_BOMB, E_CLEAR, E_HEAL, E_HIDDEN, E_RESULT, E_ROPE, E_TRANSFER, E_TURN, R_ANN_RESULT,
                     R_CLIMBER, R_DIG, R_EXERT, R_GEOLOGIST, R_HEAL, R_HIDE, R_MEDIC, R_NONE, R_PLACE_BOMB, R_RESULT,
                     R_ROPE, R_TRANSFER, R_EXT_RESULT, clear_log, log)
from .item_actions import item_action, rinv10_flare_next, rinv6_transfer
from .jit import jit
from .moves import walk_any
from .placing import pick, place_pending, redraw, start_reveal
from .reactions import REACT_HAZARD, REACT_ENTER, rinv18_answer, rinv18_close
from .seating import seat_after, seats_from
from .state import P_NONE, P_RUN, P_SURFACE, RUNNING


@jit
def move_actor(g, P, d):
    """Move, Swim, Squeeze, a run step (R-ACT-6, R-ACT-10, R-ACT-11): onto the tile connected through side d."""
    enter_tile(g, P, g.actor, g.t_nbr[actor_tile(g), d])


@jit
def hide(g, P):
    """R-ACT-14: hidden until the end of the round if the check passes (variant: automatic on the third round
    running)."""
    seat = g.actor
    ok = check_one(g, P, seat, R_HIDE)
    if P.hide_third_round_auto and g.c_hide_streak[seat] >= 2:
        ok = True
    if ok:
        log(g, E_HIDDEN, seat, g.c_tile[seat], 1, R_HIDE, 0)
        g.c_hidden[seat] = 1
    g.c_hid_now[seat] = 1


@jit
def apply_action(g, P, kind, arg):
    """The effect of one action kind; returns True for End turn."""
    if kind == K_END:
        return True
    if kind == K_EXERT:  # R-ACT-2
        g.exerted = 1
        g.ap += EXERT_BONUS
    elif kind == K_REVEAL or kind == K_EXPLORE:  # R-ACT-5, R-ACT-7
        start_reveal(g, P, arg, kind == K_EXPLORE)
    elif kind == K_ROTATE:  # R-CON-3
        place_pending(g, P, arg)
    elif kind == K_REDRAW:  # R-CAV-2
        redraw(g, P)
    elif kind == K_PICK:  # R-CAV-3
        pick(g, P, arg)
    elif kind == K_MOVE or kind == K_SWIM or kind == K_SQUEEZE:
        move_actor(g, P, arg)
    elif kind == K_RUN:  # R-ACT-8
        start_run(g, P.run_steps)
    elif kind == K_SPRINT:  # R-CAV-6
        start_run(g, P.sprint_steps)
    elif kind == K_STEP:
        move_actor(g, P, arg)
        g.run_left -= 1
        g.run_taken += 1
        g.pend = P_RUN if g.run_left > 0 and walk_any(g, P) else P_NONE
    elif kind == K_STOP:
        g.pend = P_NONE
    elif kind == K_DIG or kind == K_EXCAVATE:  # R-ACT-12, R-CAV-3
        log(g, E_CLEAR, g.actor, clear_rubble(g, arg), 0, R_DIG if kind == K_DIG else R_GEOLOGIST, 0)
    elif kind == K_ROPE:  # R-ACT-13: a check, then the rope
        if check_one(g, P, g.actor, R_ROPE):
            log(g, E_ROPE, g.actor, fix_rope(g), 0, R_ROPE, 0)
    elif kind == K_GEAR:  # R-CAV-5: no check
        log(g, E_ROPE, g.actor, fix_rope(g), 0, R_CLIMBER, 0)
    elif kind == K_HIDE:
        hide(g, P)
    elif kind == K_HEAL or kind == K_BANDAGE:  # R-ACT-9, R-CAV-6
        s = seat_of_rank(g, arg)
        gained = mend(g, arg)
        log(g, E_HEAL, s, g.c_tile[s], gained, R_HEAL if kind == K_HEAL else R_MEDIC, g.c_hp[s])
    elif kind == K_REPEL:  # R-CAV-7
        repel(g, arg)
    elif kind == K_DIRECT:  # R-CAV-8
        direct(g, arg)
    elif kind == K_DEMOLISH:  # R-CAV-4
        demolish(g, P, arg)
    elif kind == K_DIVE:  # R-CAV-1
        dive(g)
    elif kind == K_SURFACE:  # R-CAV-1
        surface(g, arg)
    elif kind == K_PLACE_BOMB or kind == K_GIVE or kind == K_TAKE:
        bomb_action(g, P, kind, arg)
    elif kind >= K_SHOVEL:  # Investigation (R-INV-5..16)
        item_action(g, P, kind, arg)
    return False


@jit
def bomb_action(g, P, kind, arg):
    """Annihilation: Place Bomb (R-ANN-6) puts a token on the bomb tile for a card; Transfer (R-ANN-7) moves one
    bomb card to the caver of rank arg, or takes one from that (unconscious) caver. Extraction's Transfer moves a
    biosample the same way (R-EXT-9)."""
    me = g.actor
    if kind == K_PLACE_BOMB:
        tile = actor_tile(g)
        g.c_bombs[me] -= 1
        g.t_bomb[tile] = 1
        log(g, E_BOMB, me, tile, bombs_placed(g), R_PLACE_BOMB, 0)  # value: tokens placed so far
        return
    other = seat_of_rank(g, arg)
    giver, taker = (me, other) if kind == K_GIVE else (other, me)
    if P.scenario == SC_INVESTIGATION:  # R-INV-6: an item
        rinv6_transfer(g, giver, taker)
        return
    cards = g.c_samples if P.scenario == SC_EXTRACTION else g.c_bombs
    cards[giver] -= 1
    cards[taker] += 1
    log(g, E_TRANSFER, giver, g.c_tile[me], taker, R_TRANSFER, 0)  # value: the receiving seat


@jit
def bombs_placed(g):
    """Bomb tokens on the table (R-ANN-6)."""
    n = 0
    for t in range(g.n_tiles):
        if g.t_bomb[t]:
            n += 1
    return n


@jit
def bomb_tile_bare(g, P):
    """R-ANN-9: a bomb tile (placed, in the stack, drawn or set aside) without a bomb token. Tokens lie only on
    placed bomb tiles, one each (R-ANN-6); a dealt game keeps its 3 bomb tiles (R-ANN-4), so this is "fewer than 3
    tokens" there, and a scenario map counts the bomb tiles it has."""
    for t in range(g.n_tiles):
        if g.t_type[t] == T_BOMB and not g.t_bomb[t]:
            return True
    for i in range(g.stack_pos, P.stack_size):
        if P.tile_type[g.stack[i]] == T_BOMB:
            return True
    for t in (g.pend_tile, g.aside_tile):
        if t >= 0 and P.tile_type[t] == T_BOMB:
            return True
    return False


@jit
def samples_out(g):
    """Biosamples held by cavers on the exit (R-EXT-9)."""
    n = 0
    for s in range(g.n_seats):
        if on_exit(g, s):
            n += g.c_samples[s]
    return n


@jit
def step_game(g, P, action):
    """Apply one legal action of a running game, then what follows until the next decision or the end."""
    kind, arg = P.kind[action], P.arg[action]
    clear_log(g)
    g.steps += 1
    g.ap -= P.cost[action]
    if kind == K_GAS_MASK:  # R-INV-18 (explicit_reactions): an answer, and perhaps the paused resolution goes on
        gas_mask_answer(g, P, arg == 1)
        return
    was_directed = g.directing >= 0
    turn_over = apply_action(g, P, kind, arg)
    if g.r_seat >= 0:  # R-INV-18: the mover decides on its Gas Mask before the step goes on
        return
    finish_step(g, P, turn_over, kind == K_SURFACE, was_directed)


@jit
def finish_step(g, P, turn_over, surfaced, was_directed):
    """What follows an action: a Flare's next side, monsters meeting cavers, the end checks, the end of a directed
    action, and the end of the turn (End turn, knocked out, AP spent) with all that follows it."""
    if P.scenario == SC_INVESTIGATION:  # R-INV-10: a Flare goes on to its next side
        rinv10_flare_next(g, P)
    monster_contact(g)
    check_end(g, P)
    if g.result != RUNNING:
        return
    if was_directed:  # "end turn" under Direct declines; the turn goes back to the Leader
        finish_direct(g)
        turn_over = False
    seat = g.actor
    out = g.c_hp[seat] == 0 or g.c_under[seat]  # R-ACT-4: unconscious mid-turn stops at once; a Dive ends it
    if P.diver_surface_whole_turn and surfaced:
        out = True
    spent = g.ap <= 0 and g.exerted and g.pend == P_NONE
    if (turn_over or out or spent) and g.directing < 0:
        end_turn(g, P)


@jit
def gas_mask_answer(g, P, use):
    """R-INV-18 with explicit_reactions: the holder uses its Gas Mask or declines it; then the gas hurts (a used
    mask reacts as without the setting) and the paused resolution goes on: the rest of the action's step (an
    entered gas tile) or of the hazard phase and the round (a Gas card)."""
    resume = rinv18_answer(g, use)
    gas_damage(g, P, g.r_hurt, g.r_lose, 0)
    rinv18_close(g)
    if resume == REACT_ENTER:
        # The action that entered the tile is done (a run's step already counted): it cannot have been End turn
        # or Surface, and it left any Direct (or Signal Booster) under way as it was.
        finish_step(g, P, False, False, g.directing >= 0)
    elif resume == REACT_HAZARD:
        hazard_end(g, P)
        finish_round(g, P)


@jit
def can_act(g, s):
    """The caver takes a turn: conscious and not devoured (R-RND-2); a knocked-out Diver still surfaces."""
    return (g.c_hp[s] > 0 or g.c_under[s]) and not g.c_dead[s]


@jit
def first_able_seat(g, position):
    """The first seat that can act at this position in turn order or later (position 0 = the starting caver),
    -1 if none (R-RND-2)."""
    n = g.n_seats
    for k in range(position, n):
        s = seat_after(g.start_seat, k, n)
        if can_act(g, s):
            return s
    return -1


@jit
def begin_turn(g, P, seat):
    g.actor = seat
    g.ap = P.action_points
    g.exerted = 0
    g.pend_explore = 0
    g.run_left = 0
    g.run_taken = 0
    g.direct_used = 0
    g.directing = -1
    g.pend = P_SURFACE if g.c_under[seat] else P_NONE  # R-CAV-1: surface first
    resync_dice(g, P, seat, 0)
    log(g, E_TURN, seat, g.c_tile[seat], g.ap, R_NONE, 0)


@jit
def end_turn(g, P):
    """Exert check (R-ACT-2), then the next caver in seat order, or the end of the round."""
    seat = g.actor
    if g.exerted and g.c_hp[seat] > 0 and not g.c_under[seat]:  # under water: only Tremor and Out of Time
        resync_dice(g, P, seat, 1)
        if not check_one(g, P, seat, R_EXERT):
            damage(g, 1 << seat, 1, False, -1, R_EXERT)
        check_end(g, P)
        if g.result != RUNNING:
            return
    nxt = first_able_seat(g, seats_from(g.start_seat, g.actor, g.n_seats) + 1)
    if nxt >= 0:
        begin_turn(g, P, nxt)
    else:
        end_round(g, P)


@jit
def end_round(g, P):
    """The horror phase, the hazard phase and the end phase (R-RND-1), then the first turn of the next round."""
    resync_dice(g, P, HAZARD_SLOT, 0)
    move_monsters(g, P)
    check_end(g, P)
    if g.result != RUNNING:
        return
    hazard_phase(g, P)
    if g.r_seat >= 0:  # R-INV-18: the Gas Mask's holder decides first; the answer's step finishes the round
        return
    finish_round(g, P)


@jit
def finish_round(g, P):
    """The round after its hazard phase: the end checks, the end phase, the first turn of the next round."""
    check_end(g, P)
    if g.result != RUNNING:
        return
    end_phase(g)
    first = first_able_seat(g, 0)
    begin_turn(g, P, first if first >= 0 else g.start_seat)


@jit
def check_end(g, P):
    """R-RND-3 and R-RND-4: the game ends when no conscious caver is left in the cave off the exit; the medal
    counts the cavers on the exit."""
    any_conscious, anyone_in_cave, all_out_or_dead, left_behind = False, False, True, 0
    for s in range(g.n_seats):
        conscious = g.c_hp[s] > 0 and not g.c_dead[s]
        out = on_exit(g, s)
        any_conscious = any_conscious or conscious
        anyone_in_cave = anyone_in_cave or (conscious and not out)
        all_out_or_dead = all_out_or_dead and (out or g.c_dead[s])
        if not out:
            left_behind += 1
    if P.exit_counts_in_cave:  # option: the exit is still the cave while anyone is not out
        over = not any_conscious or all_out_or_dead
    else:
        over = not anyone_in_cave
    if over:
        g.result = max(3 - left_behind, 0)
        why = R_RESULT
        if P.scenario == SC_ANNIHILATION and bomb_tile_bare(g, P):  # R-ANN-9: a bomb tile without a token
            g.result = 0
            why = R_ANN_RESULT
        if P.scenario == SC_EXTRACTION and P.biosamples and samples_out(g) < BIOSAMPLES:  # R-EXT-9
            g.result = 0
            why = R_EXT_RESULT
        log(g, E_RESULT, -1, -1, g.result, why, g.n_seats - left_behind)  # die column: cavers out
        g.actor = -1
        g.pend = P_NONE
