"""The public board of one game for the compiled heuristic: what a player can see, the danger of ending a round on
a tile, and the graph searches (crossings a caver can make, cheapest paths, fields of cost to a goal).

Conventions: ``g`` is one game's packed record and ``P`` the config record (``subterra_env.games.sub_terra.core``), ``bd`` this
decision's board record (``BOARD`` below: the few tables worth computing once per decision) and ``wt`` the weights
(``weights.py``). Only public information is read: placed tiles and markers, cavers, horrors, the turn, and the
counts of tiles and hazard cards left; never the stack or deck order, the random key, counter or scripted dice.
"""

from __future__ import annotations

import numpy as np

from subterra_env.games.sub_terra.core.board import free_cell, tile_at, tile_beyond, tiles_left
from subterra_env.games.sub_terra.core.catalogue import (
    BOMBS, C_CAVE_IN, C_FLOOD, C_GAS, C_HORROR, C_TREMOR, DX, DY, OPPOSITE, SC_ANNIHILATION, T_BOMB, T_CAVE_IN, T_EXIT,
    T_GAS, T_HORROR, T_LEDGE, T_ROUGH, T_SANCTUARY, T_SLIDE, T_SQUEEZE, T_WATER, X2,
)
from subterra_env.games.sub_terra.core.effects import (
    RANK_BODYGUARD, RANK_CLIMBER, RANK_DIVER, RANK_ENGINEER, RANK_GEOLOGIST, RANK_LEADER, RANK_SCOUT,
)
from subterra_env.games.sub_terra.core.hazards import cards_left
from subterra_env.games.sub_terra.core.state import MAX_TILES

from .jit import jit
from .weights import HAZ_SCALE, KO_EXTRA

INF = 1e9
FAR = 99  # a step count beyond any range
E_WALK, E_SWIM, E_SQUEEZE, E_BLAST = 0, 1, 2, 3  # what a caver does to cross an edge of a path
NT = MAX_TILES
N_TYPES = T_SANCTUARY + 1  # tile types the rules know (the base game's and the scenarios')

# One decision's tables. Crossings (adjacency) are per caver: cnt[u] entries (v, side, ap, health penalty, kind).
BOARD = np.dtype([
    ("front", np.uint8, (NT, 4)),  # open side facing an empty cell where a tile may go (R-CON-4, R-ANN-2)
    ("opened", np.uint8, (NT, 4)),
    ("is_horror", np.uint8, (NT,)),
    ("hdist", np.int64, (NT,)),  # monster moves from the nearest horror or leaper (FAR beyond 8)
    ("ldist", np.int64, (NT,)),  # scratch: steps from the nearest leaper (Extraction)
    ("mix", np.int64, (N_TYPES,)),  # tile types not placed yet (public: the box less the cave)
    ("odds", np.float64, (5,)),  # chance of each basic hazard on a card
    ("seat_of", np.int64, (9,)),  # seat by rank, -1 = not playing
    ("n", np.int64), ("seats", np.int64), ("guard", np.int64), ("tiles_left", np.int64), ("cards_left", np.int64),
    ("ko_extra", np.float64), ("haz_scale", np.float64),
    # the exit the acting caver heads for: the exit tile; in Annihilation, while the bombs can still all be placed
    # (R-ANN-9), only for a caver without a bomb card once every bomb tile is on the table (nothing left to find
    # or carry), -1 otherwise (it plans as if the exit were hidden: it explores for the bomb tiles)
    ("exit", np.int64),
    ("bombs_open", np.int64),  # Annihilation: placed bomb tiles without a token
], align=True)


@jit
def init_board(g, P, wt, bd):
    """Read game g's public board into bd."""
    n = np.int64(g.n_tiles)
    bd.n = n
    bd.seats = g.n_seats
    for t in range(n):
        for d in range(4):
            op = (np.int64(g.t_open[t]) >> d) & 1
            bd.opened[t, d] = op
            bd.front[t, d] = 1 if op == 1 and free_cell(g, P, g.t_x[t] + DX[d], g.t_y[t] + DY[d]) else 0
        bd.is_horror[t] = 0
    for i in range(3):
        if g.h_tile[i] >= 0:
            bd.is_horror[g.h_tile[i]] = 1
        if g.l_tile[i] >= 0:  # Extraction: a leaper is avoided like a horror (R-EXT-4; entering it: a slash)
            bd.is_horror[g.l_tile[i]] = 1
    for r in range(9):
        bd.seat_of[r] = -1
    for s in range(g.n_seats):
        bd.seat_of[g.c_rank[s]] = s
    bd.tiles_left = tiles_left(g, np.int64(P.stack_size))
    bd.cards_left = cards_left(g)
    bd.ko_extra = wt[KO_EXTRA]
    bd.haz_scale = wt[HAZ_SCALE]
    # the hazards' odds from the deck's public composition (a x2 card counted twice)
    total = max(P.pool_size, 1)
    for code in range(5):
        k = 0
        for i in range(P.pool_size):
            c = P.deck_pool[i]
            if c == code:
                k += 1
            elif c == code + X2:
                k += 2
        bd.odds[code] = k / total
    for tt in range(N_TYPES):
        bd.mix[tt] = 0
    for i in range(P.n_cave):
        bd.mix[P.tile_type[i]] += 1
    for t in range(1, n):
        bd.mix[P.tile_type[g.t_cat[t]]] -= 1
    for tt in range(N_TYPES):
        bd.mix[tt] = max(bd.mix[tt], 0)
    team_goal(g, P, bd)
    horror_steps(g, bd)
    bd.guard = -1
    s = bd.seat_of[RANK_BODYGUARD]
    if s >= 0 and g.c_hp[s] > 0 and not g.c_dead[s]:
        bd.guard = g.c_tile[s]


@jit
def team_goal(g, P, bd):
    """bd.exit and bd.bombs_open (see BOARD) for the acting caver: the base game heads for the exit once it is
    placed; Annihilation first finds the bomb tiles and delivers the bombs (R-ANN-6, R-ANN-9)."""
    bd.exit = g.exit_tile
    bd.bombs_open = 0
    if P.scenario != SC_ANNIHILATION:
        return
    tokens, held, on_table = 0, 0, 0
    for t in range(bd.n):
        tokens += g.t_bomb[t]
        if g.t_type[t] == T_BOMB:
            on_table += 1
            if not g.t_bomb[t]:
                bd.bombs_open += 1
    for s in range(g.n_seats):
        held += g.c_bombs[s]
    if tokens >= BOMBS or tokens + held < BOMBS:  # done, or lost: out
        return
    if on_table < BOMBS or g.c_bombs[max(g.actor, 0)] > 0:
        bd.exit = -1


@jit
def horror_steps(g, bd):
    """Steps from the nearest horror to every tile through connected edges, up to 8 (horrors ignore obstacles);
    in Extraction also the moves a leaper needs (two steps each, around the sanctuary: R-EXT-5, R-EXT-7)."""
    n = bd.n
    spread(g, bd, g.h_tile, bd.hdist, 8, -1)
    if g.l_tile[0] < 0:
        return
    spread(g, bd, g.l_tile, bd.ldist, 16, T_SANCTUARY)
    for t in range(n):
        if bd.ldist[t] < FAR:
            bd.hdist[t] = min(bd.hdist[t], (bd.ldist[t] + 1) // 2)


@jit
def spread(g, bd, sources, dist, most, avoid):
    """dist[t]: steps from the nearest of the (3) source tiles, up to ``most``, never into a tile of type avoid."""
    n = bd.n
    for t in range(n):
        dist[t] = FAR
    any_source = False
    for i in range(3):
        if sources[i] >= 0:
            dist[sources[i]] = 0
            any_source = True
    if not any_source:
        return
    for k in range(1, most + 1):
        grew = False
        for u in range(n):
            if dist[u] == k - 1:
                for d in range(4):
                    v = g.t_nbr[u, d]
                    if v >= 0 and dist[v] == FAR and g.t_type[v] != avoid:
                        dist[v] = k
                        grew = True
        if not grew:
            return


# ---------------------------------------------------------------------------------------------- geometry
@jit
def barred(g, t, d):
    """Leaving tile t through side d is barred (ledge arrow side, slide back side) without a rope."""
    if g.t_rope[t]:
        return False
    tt = g.t_type[t]
    if tt == T_LEDGE:
        return g.t_arrow[t] == d
    if tt == T_SLIDE:
        return g.t_arrow[t] == OPPOSITE[d]
    return False


@jit
def revealable(g, bd, t, d):
    return bd.front[t, d] == 1 and not barred(g, t, d)


@jit
def n_revealable(g, bd, t):
    """Sides of t a caver standing there may reveal through now."""
    k = 0
    for d in range(4):
        if revealable(g, bd, t, d):
            k += 1
    return k


@jit
def can_draw(g, bd, rank):
    return bd.tiles_left > 0 or (rank == RANK_GEOLOGIST and g.aside_tile >= 0)


@jit
def empty_around_cell(g, t, d):
    """Empty cells around the cell beyond side d of t (room for the cave to grow there)."""
    cx, cy = g.t_x[t] + DX[d], g.t_y[t] + DY[d]
    k = 0
    for j in range(4):
        if tile_at(g, cx + DX[j], cy + DY[j]) < 0:
            k += 1
    return k


# ---------------------------------------------------------------------------------------------- cavers
@jit
def conscious(g, s):
    return g.c_hp[s] > 0 and not g.c_dead[s] and not g.c_under[s]


@jit
def in_cave(g, s):
    """Not devoured, not on the exit (a Diver under water counts as in the cave)."""
    return not g.c_dead[s] and (g.c_under[s] or g.c_tile[s] != g.exit_tile or g.exit_tile < 0)


@jit
def acted(g, k):
    """Seat k has had its turn this round (so it stays where it is until the hazard phase)."""
    owner = np.int64(g.directing) if g.directing >= 0 else np.int64(g.actor)
    n = np.int64(g.n_seats)
    st = np.int64(g.start_seat)
    return (k - st) % n < (owner - st) % n


@jit
def guard_settled(g, bd):
    """The Bodyguard's position is final for this round (he has acted)."""
    s = bd.seat_of[RANK_BODYGUARD]
    return s >= 0 and acted(g, s)


@jit
def protection(g, P, bd, s, t):
    """What the Bodyguard s standing on t at the hazard phase saves the teammates already settled there."""
    total = 0.0
    for k in range(bd.seats):
        if k != s and g.c_tile[k] == t and acted(g, k) and g.c_hp[k] > 0 and not g.c_dead[k]:
            total += type_danger(g, P, bd, k, g.t_type[t], g.t_rubble[t], False) - type_danger(
                g, P, bd, k, g.t_type[t], g.t_rubble[t], True)
    return total


# ---------------------------------------------------------------------------------------------- danger
@jit
def ko_cost(g, bd, s):
    """A knock-out in health-point units: the health itself plus the turns lost until someone heals."""
    return max(np.int64(g.c_hp[s]), 1) + bd.ko_extra


@jit
def loss(g, bd, s, x):
    """Health-equivalent loss of caver s taking x damage: a knock-out costs more than its health."""
    if x < g.c_hp[s]:
        return float(x)
    return ko_cost(g, bd, s)


@jit
def type_danger(g, P, bd, s, ttype, rubble, guarded):
    """Expected loss of caver s ending the round on a tile of this type (hazard cards; knock-outs weighed)."""
    if ttype == T_EXIT:
        return 0.0
    rank = g.c_rank[s]
    d = 0.0
    if not guarded:
        d = bd.odds[C_TREMOR] * (1 / 3 if rank == RANK_LEADER else 0.5) * loss(g, bd, s, P.tremor_damage)
        h = bd.haz_scale
        if ttype == T_WATER and rank != RANK_DIVER:
            d += h * bd.odds[C_FLOOD] * loss(g, bd, s, P.flood_damage)
        elif ttype == T_GAS:
            d += h * bd.odds[C_GAS] * loss(g, bd, s, P.gas_damage)
        elif ttype == T_CAVE_IN and not rubble:
            x = P.engineer_cave_in_damage if rank == RANK_ENGINEER else P.cave_in_damage
            d += h * bd.odds[C_CAVE_IN] / 3 * loss(g, bd, s, x)
    if ttype == T_HORROR and rank != RANK_SCOUT and not g.c_hidden[s]:
        d += bd.odds[C_HORROR] * ko_cost(g, bd, s)  # a horror spawns on the closest victim's horror tile
    return d


@jit
def horror_danger(g, bd, s, t):
    if g.h_tile[0] < 0 and g.h_tile[1] < 0 and g.h_tile[2] < 0 and g.l_tile[0] < 0:
        return 0.0
    if g.c_rank[s] == RANK_SCOUT or g.c_hidden[s] or t == g.exit_tile:
        return 0.0
    if g.t_type[t] == T_SANCTUARY:  # Extraction: no monster picks a caver there (R-EXT-7)
        return 0.0
    hd = bd.hdist[t]
    if hd <= 1:
        p = 0.9
    elif hd == 2:
        p = bd.odds[C_HORROR] + 0.1
    elif hd == 3:
        p = 0.03
    else:
        return 0.0
    return p * ko_cost(g, bd, s)


@jit
def end_danger(g, P, bd, s, t):
    """Expected health-equivalent loss of caver s ending the round on tile t (hazards and horrors)."""
    if t == g.exit_tile and t >= 0:
        return 0.0
    rank = g.c_rank[s]
    guarded = bd.guard == t and rank != RANK_BODYGUARD and guard_settled(g, bd)
    d = type_danger(g, P, bd, s, g.t_type[t], g.t_rubble[t], guarded)
    if rank == RANK_BODYGUARD and g.c_hp[s] > 0:
        d -= protection(g, P, bd, s, t)
    if g.t_type[t] == T_HORROR and bd.is_horror[t]:
        if rank != RANK_SCOUT and not g.c_hidden[s]:
            d -= bd.odds[C_HORROR] * ko_cost(g, bd, s)
    d += horror_danger(g, bd, s, t)
    return d


@jit
def new_tile_danger(g, P, bd, s):
    """Expected danger of ending on a tile not drawn yet (the remaining tiles' public mix), entering it included
    (active gas, rough terrain)."""
    total = 0
    d = 0.0
    for tt in range(N_TYPES):
        k = bd.mix[tt]
        if k <= 0:
            continue
        total += k
        x = type_danger(g, P, bd, s, tt, False, False)
        if tt == T_GAS and g.gas_active:
            x += loss(g, bd, s, P.gas_enter_damage)
        if tt == T_ROUGH:
            x += 0.5 * loss(g, bd, s, 1)
        d += k * x
    if total == 0:
        total = 1
    return d / total


# ---------------------------------------------------------------------------------------------- crossings
@jit
def adjacency(g, P, bd, s, through_horrors, av, ad, aa, ap, ak, cnt):
    """Per tile u, the crossings caver s can make out of u (cnt[u] entries): to av[u, i] through side ad[u, i]
    for aa[u, i] AP of single actions (a rope, a Repel, a dig first where needed), ap[u, i] health points lost on
    average (entering active gas, rough terrain), of kind ak[u, i]. through_horrors: for plans beyond this turn a
    horror's tile costs extra instead of barring the way (horrors move on)."""
    rank = g.c_rank[s]
    climber = rank == RANK_CLIMBER
    # the Engineer's Demolish (exit placed): blast through to a placed neighbour that is not connected
    blaster = rank == RANK_ENGINEER and g.explosives > 0 and bd.exit >= 0
    for u in range(bd.n):
        c = 0
        for d in range(4):
            v = np.int64(g.t_nbr[u, d])
            cost = 0.0
            if v < 0:
                if not blaster or (bd.opened[u, d] == 1 and bd.front[u, d] == 1):
                    continue
                v = np.int64(tile_beyond(g, u, d))
                if v < 0:
                    continue
                cost += 2.5  # Demolish: 2 AP and a Cave-in event
            if barred(g, u, d):
                if g.ropes_left <= 0:
                    continue
                cost += 1.0 if climber else 4.0  # Place Rope: 2 AP and a skill check
            if bd.is_horror[v] and rank != RANK_SCOUT:
                if rank == RANK_BODYGUARD:
                    cost += 1.0  # Repel first
                elif through_horrors:
                    cost += 4.0
                else:
                    continue
            tt = g.t_type[v]
            if g.t_rubble[v] and not climber:
                cost += 1.0 if rank == RANK_GEOLOGIST else 2.0
            if g.t_flood[v] and rank != RANK_DIVER:
                kind, step = E_SWIM, 2.0
            elif tt == T_SQUEEZE and not climber:
                kind, step = E_SQUEEZE, 2.0
            else:
                kind, step = E_WALK, 1.0
            if g.t_nbr[u, d] < 0:
                kind = E_BLAST
            pen = 0.0
            if g.gas_active and tt == T_GAS and not (bd.guard == v and rank != RANK_BODYGUARD):
                pen += loss(g, bd, s, P.gas_enter_damage)
            if tt == T_ROUGH:
                pen += 0.5 * loss(g, bd, s, 1)
            av[u, c], ad[u, c], aa[u, c], ap[u, c], ak[u, c] = v, d, cost + step, pen, kind
            c += 1
        cnt[u] = c


HEAP = 5 * NT + 8  # entries a search can push: the sources, then at most one per crossing relaxed


@jit
def heap_less(hc, hu, a, b):
    return hc[a] < hc[b] or (hc[a] == hc[b] and hu[a] < hu[b])


@jit
def heap_push(hc, hu, size, c, u):
    """Push (c, u) on the binary heap hc/hu of this size; returns the new size."""
    i = size
    hc[i], hu[i] = c, u
    while i > 0:
        parent = (i - 1) >> 1
        if not heap_less(hc, hu, i, parent):
            break
        hc[i], hc[parent] = hc[parent], hc[i]
        hu[i], hu[parent] = hu[parent], hu[i]
        i = parent
    return size + 1


@jit
def heap_pop(hc, hu, size):
    """Pop the least (c, u), ties by u; returns (c, u, new size)."""
    c, u = hc[0], hu[0]
    size -= 1
    hc[0], hu[0] = hc[size], hu[size]
    i = 0
    while True:
        least = i
        left = 2 * i + 1
        if left < size and heap_less(hc, hu, left, least):
            least = left
        if left + 1 < size and heap_less(hc, hu, left + 1, least):
            least = left + 1
        if least == i:
            return c, u, size
        hc[i], hc[least] = hc[least], hc[i]
        hu[i], hu[least] = hu[least], hu[i]
        i = least


@jit
def shortest_paths(n, src, hp_w, av, ad, aa, ap, ak, cnt, cost, apc, pu, pd, pk, hc, hu):
    """Dijkstra from src over the crossings: cost = AP + hp_w * health penalties, apc = AP alone, and the step
    into each tile (pu, pd, pk: from tile, side, kind; pu = -1 for none). Tiles are settled in (cost, tile) order,
    as a heap of (cost, tile) pairs orders them; hc/hu: heap scratch of HEAP entries."""
    for t in range(n):
        cost[t] = INF
        apc[t] = INF
        pu[t] = -1
    cost[src] = 0.0
    apc[src] = 0.0
    size = heap_push(hc, hu, 0, 0.0, src)
    while size > 0:
        c, u, size = heap_pop(hc, hu, size)
        if c > cost[u]:
            continue  # a stale entry: u was reached cheaper since
        au = apc[u]
        for i in range(cnt[u]):
            v = av[u, i]
            nc = c + aa[u, i] + ap[u, i] * hp_w
            if nc < cost[v] - 1e-9:
                cost[v] = nc
                apc[v] = au + aa[u, i]
                pu[v], pd[v], pk[v] = u, ad[u, i], ak[u, i]
                size = heap_push(hc, hu, size, nc, v)


@jit
def reverse_crossings(n, hp_w, av, aa, ap, cnt, ru, rw, rcnt):
    """The crossings into each tile v: rcnt[v] entries (from tile ru[v, i], cost rw[v, i] = AP + hp_w * health),
    lower from-tiles first. A tile has at most 4 (one from each side)."""
    for v in range(n):
        rcnt[v] = 0
    for u in range(n):
        for i in range(cnt[u]):
            v = av[u, i]
            k = rcnt[v]
            ru[v, k] = u
            rw[v, k] = aa[u, i] + ap[u, i] * hp_w
            rcnt[v] = k + 1


@jit
def field_to(n, targets, ru, rw, rcnt, hc, hu, cost):
    """Cost from every tile to the cheapest target over the crossings (targets[t]: cost once there, INF = not a
    target): a Dijkstra backwards from the targets over ``reverse_crossings``; hc/hu: heap scratch."""
    size = 0
    for t in range(n):
        cost[t] = INF
    for t in range(n):
        if targets[t] < cost[t]:
            cost[t] = targets[t]
            size = heap_push(hc, hu, size, targets[t], t)
    while size > 0:
        c, v, size = heap_pop(hc, hu, size)
        if c > cost[v]:
            continue
        for i in range(rcnt[v]):
            u = ru[v, i]
            nc = c + rw[v, i]
            if nc < cost[u] - 1e-9:
                cost[u] = nc
                size = heap_push(hc, hu, size, nc, u)
