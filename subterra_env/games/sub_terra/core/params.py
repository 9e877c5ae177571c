"""A config's numbers and constant tables as one record, the compiled rules' second argument.

One record type serves every config (tables at their largest sizes), so numba compiles each kernel once.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from subterra_env.config import EXTRACTION_REMOVED, INVESTIGATION_REMOVED, GameConfig
from .actions import (ACTION_ARG, ACTION_KIND, ITEM_KINDS_1AP, K_EXPLORE, K_GIVE, K_HEAL, K_PLACE_BOMB, K_TAKE, KIND_COST,
                      NUM_ACTIONS_ALL, num_actions)
from .catalogue import BIOSAMPLES, BOMBS, SC_EXTRACTION, SC_INVESTIGATION, build
from subterra_env.config import CAVER_NAMES

MAX_POOL = 128  # hazard cards in the deck before the deal (config.py checks it)
MAX_CAT = 80  # catalogue ids: 64 cave tiles, Annihilation's 2 unstable and 3 bomb tiles, the exit, the start

# Settings the rules read, by their GameConfig names (all stored as int64).
SETTINGS = ("num_cavers", "action_points", "explore_cost", "heal_cost", "skill_target", "leader_bonus",
            "run_steps", "sprint_steps", "horror_range", "horror_limit", "gas_enter_damage", "gas_damage",
            "flood_damage", "tremor_damage", "cave_in_damage", "engineer_cave_in_damage",
            "no_effect_actions_illegal", "exit_never_discarded", "scout_may_discard_exit", "hide_third_round_auto",
            "diver_surface_whole_turn", "exit_counts_in_cave", "place_bomb_cost", "transfer_cost", "leaper_limit",
            "sanctuary_blocks_horrors", "biosamples", "item_cost", "gas_mask_keeps", "explicit_reactions")
# Catalogue tables per catalogue id, and the action table.
TILE_TABLES = ("tile_type", "tile_mask", "tile_shape", "die_a", "die_b", "die_c")

PARAMS = np.dtype(
    [(name, np.int64) for name in SETTINGS]
    + [("exit_id", np.int64), ("start_id", np.int64), ("stack_size", np.int64), ("max_tiles", np.int64)]
    + [(name, np.int64, (MAX_CAT,)) for name in TILE_TABLES]
    + [("num_actions", np.int64), ("cost", np.int64, (NUM_ACTIONS_ALL,)), ("kind", np.int64, (NUM_ACTIONS_ALL,)),
       ("arg", np.int64, (NUM_ACTIONS_ALL,))]
    # setup (R-SET): the cavers, their health, the stack and the hazard deck
    + [("n_cave", np.int64), ("exit_in_last", np.int64), ("seat_random", np.int64), ("fixed_ranks", np.int64, (6,)),
       ("caver_health", np.int64, (8,)), ("deck_pool", np.int64, (MAX_POOL,)), ("pool_size", np.int64),
       ("deal_size", np.int64), ("rope_tokens", np.int64), ("scout_redraws", np.int64), ("explosives", np.int64)]
    # the scenario (catalogue.SC_*) and Annihilation's setup (R-ANN-3, R-ANN-5): the shuffled tiles before the
    # bombs (ids 0..n_plain-1), the fixed bomb seats (-1: drawn by the seed)
    + [("scenario", np.int64), ("n_plain", np.int64), ("bomb_seats", np.int64, (BOMBS,))]
    # Extraction's setup (R-EXT-1, R-EXT-9): tiles removed from the top of the shuffle, the fixed biosample seats
    + [("stack_removed", np.int64), ("biosample_seats", np.int64, (BIOSAMPLES,))]
    # not a setting: 1 only in a search's rollouts (effects.resync_dice); every real game has 0
    + [("crn_dice", np.int64)],
    align=True,
)


@lru_cache(maxsize=64)
def params_of(cfg: GameConfig) -> np.ndarray:
    """(1,) PARAMS record of a config (read-only; cached per config)."""
    cat = build(cfg)
    p = np.zeros(1, dtype=PARAMS)
    for name in SETTINGS:
        p[name] = int(getattr(cfg, name))
    p["exit_id"], p["start_id"], p["stack_size"], p["max_tiles"] = cat.exit_id, cat.start_id, cat.stack_size, \
        cat.max_tiles
    for name in TILE_TABLES:
        table = getattr(cat, name)
        p[name][0, :len(table)] = table
    cost = KIND_COST[ACTION_KIND].astype(np.int64)
    cost[ACTION_KIND == K_EXPLORE] = cfg.explore_cost
    cost[ACTION_KIND == K_HEAL] = cfg.heal_cost
    cost[ACTION_KIND == K_PLACE_BOMB] = cfg.place_bomb_cost
    cost[(ACTION_KIND == K_GIVE) | (ACTION_KIND == K_TAKE)] = cfg.transfer_cost
    cost[np.isin(ACTION_KIND, ITEM_KINDS_1AP)] = cfg.item_cost  # R-INV-5
    p["num_actions"] = num_actions(cfg.scenario)
    p["cost"], p["kind"], p["arg"] = cost, ACTION_KIND, ACTION_ARG
    p["n_cave"], p["exit_in_last"], p["seat_random"] = cat.n_cave, cfg.exit_in_last, cfg.seat_order == "random"
    if cfg.cavers is not None:  # a fixed line-up, by rank (0 = drawn at random)
        p["fixed_ranks"][0, :cfg.num_cavers] = sorted(CAVER_NAMES.index(n) + 1 for n in cfg.cavers)
    p["caver_health"] = cfg.caver_health
    p["deck_pool"][0, :len(cat.deck_pool)] = cat.deck_pool
    p["pool_size"], p["deal_size"] = len(cat.deck_pool), cat.deal_size
    p["rope_tokens"], p["scout_redraws"], p["explosives"] = cfg.rope_tokens, cfg.scout_redraws, cfg.explosives
    p["scenario"] = cat.scenario
    p["n_plain"] = cat.n_cave - BOMBS if cfg.scenario == "annihilation" else cat.n_cave
    p["bomb_seats"] = cfg.bomb_seats if cfg.bomb_seats is not None else (-1,) * BOMBS
    p["stack_removed"] = {SC_EXTRACTION: EXTRACTION_REMOVED, SC_INVESTIGATION: INVESTIGATION_REMOVED}.get(
        cat.scenario, 0)
    p["biosample_seats"] = cfg.biosample_seats if cfg.biosample_seats is not None else (-1,) * BIOSAMPLES
    p.flags.writeable = False
    return p
