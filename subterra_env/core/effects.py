"""Dice, damage, entering effects and horrors (R-ACT-3, R-TILE, R-HOR) on games `g` of a batch, in place."""

from __future__ import annotations

import numpy as np

from ..config import GameConfig
from . import rng
from .board import FAR, distances_from
from .catalogue import T_GAS, T_HORROR, T_ROUGH
from .state import State

RANK_DIVER, RANK_SCOUT, RANK_GEOLOGIST, RANK_ENGINEER, RANK_CLIMBER, RANK_MEDIC, RANK_BODYGUARD, RANK_LEADER = range(1, 9)


def roll_d6(st: State, g: np.ndarray, n: int) -> np.ndarray:
    """(len(g), n) die rolls from each game's own stream; g must not repeat a game."""
    ctr = st.ctr[g]
    faces = (rng.stream(st.key[g], ctr, n) % np.uint64(6)).astype(np.int8) + 1
    st.ctr[g] += np.uint64(n)
    at = ctr.astype(np.int64)[:, None] + np.arange(n)[None, :]
    scripted = at < st.forced.shape[1]
    if scripted.any():  # scenario dice replace the stream's first draws
        f = st.forced[g[:, None], np.minimum(at, st.forced.shape[1] - 1)]
        faces = np.where(scripted & (f > 0), f, faces)
    return faces


def skill_pass(cfg: GameConfig, st: State, g: np.ndarray, seats: np.ndarray, rolls: np.ndarray) -> np.ndarray:
    """Skill check outcome for the given seats with the given rolls (R-ACT-3; Leader +1, R-CAV-8)."""
    rank = st.c_rank[g, seats]
    bonus = np.where((rank == RANK_LEADER) & (st.c_hp[g, seats] > 0), cfg.leader_bonus, 0)
    return rolls + bonus >= cfg.skill_target


def check_one(cfg: GameConfig, st: State, g: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """One skill check per game for one seat each."""
    return skill_pass(cfg, st, g, seats, roll_d6(st, g, 1)[:, 0])


def on_exit(st: State, g: np.ndarray) -> np.ndarray:
    """(n, S) caver stands on the exit tile."""
    return (st.c_tile[g] == st.exit_tile[g][:, None]) & (st.exit_tile[g][:, None] >= 0)


def protected(st: State, g: np.ndarray) -> np.ndarray:
    """(n, S) cavers sharing a tile with a conscious Bodyguard, the Bodyguard himself excepted (R-CAV-7)."""
    guard = (st.c_rank[g] == RANK_BODYGUARD) & (st.c_hp[g] > 0) & ~st.c_dead[g]  # R-CAV-9: only while conscious
    if not guard.any():
        return np.zeros(guard.shape, dtype=bool)
    guard_tile = np.where(guard, st.c_tile[g], -9).max(1)  # at most one Bodyguard per game
    return (st.c_tile[g] == guard_tile[:, None]) & (st.c_rank[g] != RANK_BODYGUARD)


def damage(st: State, g: np.ndarray, hurt: np.ndarray, amount: int | np.ndarray, shielded: bool = False) -> None:
    """Cavers where hurt (n, S) lose health; nobody on the exit tile loses health (R-TILE-1).

    shielded: the damage is Flood, Gas, Cave-in or Tremor, which the Bodyguard's Protector stops (R-CAV-7).
    """
    hurt = hurt & ~on_exit(st, g) & ~st.c_dead[g]
    if shielded:
        hurt &= ~protected(st, g)
    hp = st.c_hp[g].astype(np.int16) - np.where(hurt, amount, 0)
    st.c_hp[g] = np.maximum(hp, 0)


def damage_one(st: State, g: np.ndarray, seats: np.ndarray, amount: int, where: np.ndarray,
               shielded: bool = False) -> None:
    hurt = np.zeros(st.c_hp[g].shape, dtype=bool)
    hurt[np.arange(len(g)), seats] = where
    damage(st, g, hurt, amount, shielded)


def enter_tile(cfg: GameConfig, st: State, g: np.ndarray, seats: np.ndarray, dest: np.ndarray) -> None:
    """Move cavers onto tiles and apply entering effects: gas (R-HZ-3), rough terrain (R-TILE-9).

    Horrors on the tile are handled by horror_contact, which the step runs after every action (R-HOR-5).
    """
    st.c_tile[g, seats] = dest
    ttype = st.t_type[g, dest]
    gassed = (ttype == T_GAS) & st.gas_active[g]
    if gassed.any():
        damage_one(st, g, seats, cfg.gas_enter_damage, gassed, shielded=True)
    rough = ttype == T_ROUGH
    if rough.any():
        r = np.nonzero(rough)[0]
        failed = ~check_one(cfg, st, g[r], seats[r])
        damage_one(st, g[r], seats[r], 1, failed)


def horror_contact(st: State, g: np.ndarray) -> None:
    """Every caver sharing a tile with a horror falls unconscious, except the Scout and on the exit (R-HOR-5)."""
    ht = st.h_tile[g]
    if not (ht >= 0).any():
        return
    shared = ((st.c_tile[g][:, :, None] == ht[:, None, :]) & (ht[:, None, :] >= 0)).any(2)
    shared &= (st.c_rank[g] != RANK_SCOUT) & (st.c_hp[g] > 0)
    if shared.any():
        damage(st, g, shared, 127)


def victims(st: State, g: np.ndarray) -> np.ndarray:
    """(n, S) cavers a horror may choose (R-HOR-2)."""
    return ((st.c_hp[g] > 0) & ~st.c_dead[g] & ~st.c_hidden[g] & ~on_exit(st, g)
            & (st.c_rank[g] != RANK_SCOUT) & (st.c_tile[g] >= 0))


def move_horrors(cfg: GameConfig, st: State, g: np.ndarray) -> None:
    """Each horror, oldest first, steps toward its closest victim or leaves the cave (R-HOR-3)."""
    g = g[(st.h_tile[g] >= 0).any(1)]  # the distance sweeps are the costly part: only games with horrors
    if not len(g):
        return
    dist = distances_from(st, g, st.c_tile[g].astype(np.intp), cfg.horror_range)  # (n, S, T)
    rows = np.arange(len(g))
    for h in range(st.h_tile.shape[1]):
        ht = st.h_tile[g, h].astype(np.intp)
        active = ht >= 0
        if not active.any():
            continue
        d_to = dist[rows, :, np.maximum(ht, 0)]  # (n, S) steps from the horror to each caver
        d_to = np.where(victims(st, g), d_to, FAR).astype(np.int16)
        # Closest victim; ties go to the lowest rank (R-HOR-2).
        victim = np.argmin(d_to * 16 + st.c_rank[g], axis=1)
        vd = d_to[rows, victim]
        leave = active & (vd > cfg.horror_range)
        st.h_tile[g[leave], h] = -1
        go = np.nonzero(active & ~leave & (vd > 0))[0]
        if len(go):
            field = dist[go, victim[go]]  # (m, T) distances to the victim
            nb = st.t_nbr[g[go], ht[go]].astype(np.intp)  # (m, 4)
            nd = np.where(nb >= 0, field[np.arange(len(go))[:, None], np.maximum(nb, 0)], FAR)
            # First direction in N, E, S, W order on a shortest path [default tie-break].
            d = np.argmax(nd == (vd[go] - 1)[:, None], axis=1)
            st.h_tile[g[go], h] = nb[np.arange(len(go)), d]
            horror_contact(st, g[go])
    compact_horrors(st, g)


def compact_horrors(st: State, g: np.ndarray) -> None:
    """Keep horror slots oldest first with empty slots last (a stable sort on emptiness)."""
    ht = st.h_tile[g]
    order = np.argsort(ht < 0, axis=1, kind="stable")
    st.h_tile[g] = np.take_along_axis(ht, order, axis=1)


def spawn_horror(cfg: GameConfig, st: State, g: np.ndarray) -> None:
    """Spawn one horror on the horror tile closest to its closest victim, within range (R-HOR-4)."""
    count = (st.h_tile[g] >= 0).sum(1)
    g = g[count < cfg.horror_limit]
    if not len(g):
        return
    t = int(st.n_tiles[g].max())
    dist = distances_from(st, g, st.c_tile[g].astype(np.intp), cfg.horror_range)
    dist = np.where(victims(st, g)[:, :, None], dist, FAR).min(1)  # (n, T) steps to the closest victim
    occupied = np.zeros((len(g), t + 1), dtype=bool)
    ht = st.h_tile[g].astype(np.intp)
    occupied[np.arange(len(g))[:, None], np.where(ht >= 0, ht, t)] = True
    ok = (st.t_type[g, :t] == T_HORROR) & ~occupied[:, :t]
    cand = np.where(ok, dist, FAR)
    tile = np.argmin(cand, axis=1)  # ties: the tile placed first [default]
    spawn = cand[np.arange(len(g)), tile] <= cfg.horror_range
    g, tile = g[spawn], tile[spawn]
    slot = (st.h_tile[g] >= 0).sum(1)
    st.h_tile[g, slot] = tile
    horror_contact(st, g)
