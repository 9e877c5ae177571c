"""Property tests: for any valid settings, seeds and legal play, every step keeps the rules' invariants
(subterra_env.games.sub_terra.core.invariants), and the checker really does catch a corrupted state.

Hypothesis runs derandomized without an example database, so CI sees the same examples on every run.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from subterra_env.config import CAVER_NAMES, DIFFICULTIES, GameConfig
from subterra_env.games.sub_terra.core.catalogue import E, OPPOSITE, T_EXIT
from subterra_env.games.sub_terra.core.invariants import InvariantError, check_invariants, snapshot
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import RUNNING, State

STEPS = 200
DETERMINISTIC = settings(deadline=None, derandomize=True, database=None, print_blob=False,
                         suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@hs.composite
def game_configs(draw: hs.DrawFn) -> GameConfig:
    """Any valid GameConfig over the settings that change what is legal or how a game unfolds."""
    n = draw(hs.integers(4, 6))
    fixed = draw(hs.booleans())
    cavers = tuple(draw(hs.lists(hs.sampled_from(CAVER_NAMES), min_size=n, max_size=n, unique=True))) \
        if fixed else None
    flags = {name: draw(hs.booleans()) for name in (
        "no_effect_actions_illegal", "hide_third_round_auto", "exit_counts_in_cave", "exit_never_discarded",
        "scout_may_discard_exit", "diver_surface_whole_turn")}
    return GameConfig(num_cavers=n, cavers=cavers, difficulty=draw(hs.sampled_from(DIFFICULTIES)),
                      seat_order=draw(hs.sampled_from(("rank", "random"))),
                      explore_cost=draw(hs.integers(1, 2)), heal_cost=draw(hs.integers(1, 2)), **flags)


seed_lists = hs.lists(hs.integers(0, 2**40), min_size=1, max_size=4, unique=True)


def play_checked(core: Core, st: State, choose: Callable[[np.ndarray], np.ndarray], steps: int = STEPS) -> None:
    """Play up to `steps` decisions with `choose(mask) -> actions`, checking the invariants after each."""
    mask = core.legal_mask(st)
    check_invariants(core.cfg, None, st, mask)
    for _ in range(steps):
        if (st.result != RUNNING).all():
            return
        before = snapshot(st)
        core.step(st, choose(mask))
        mask = core.legal_mask(st)
        check_invariants(core.cfg, before, st, mask)


@settings(DETERMINISTIC, max_examples=40)
@given(cfg=game_configs(), seeds=seed_lists, action_seed=hs.integers(0, 2**32 - 1))
def test_random_legal_play_keeps_invariants(cfg: GameConfig, seeds: list[int], action_seed: int) -> None:
    core = Core(cfg)
    rng = np.random.default_rng(action_seed)
    play_checked(core, core.init(seeds), lambda mask: np.argmax(rng.random(mask.shape) * mask, axis=1))


@settings(DETERMINISTIC, max_examples=20)
@given(cfg=game_configs(), seed=hs.integers(0, 2**40), data=hs.data())
def test_drawn_action_sequences_keep_invariants(cfg: GameConfig, seed: int, data: hs.DataObject) -> None:
    """Hypothesis picks every action among the legal ones, so a failure shrinks to a short, simple sequence."""
    core = Core(cfg)

    def choose(mask: np.ndarray) -> np.ndarray:
        legal = np.flatnonzero(mask[0])
        return legal[[data.draw(hs.integers(0, len(legal) - 1), label="legal action index")]]

    play_checked(core, core.init([seed]), choose)


# ------------------------------------------------------------------------------ the checker can fail
@pytest.fixture(scope="module")
def mid_game() -> tuple[Core, State, int]:
    """Eight games after 40 random steps, and one of them still running with at least two tiles."""
    core = Core(GameConfig())
    st = core.init(np.arange(8))
    rng = np.random.default_rng(0)
    for _ in range(40):
        mask = core.legal_mask(st)
        core.step(st, np.argmax(rng.random(mask.shape) * mask, axis=1))
    game = int(np.flatnonzero((st.result == RUNNING) & (st.n_tiles >= 2))[0])
    return core, st, game


def _health_above_max(st: State, before: State, g: int) -> State:
    st.c_hp[g, 0] = st.c_max[g, 0] + 1
    return st


def _horrors_over_limit(st: State, before: State, g: int) -> State:
    st.h_tile[g] = 0  # three horrors on the start tile, checked against a limit of 2 (see HORROR_LIMIT)
    return st


def _asymmetric_neighbour(st: State, before: State, g: int) -> State:
    t, d = (int(i[0]) for i in np.nonzero(st.t_nbr[g] >= 0))
    st.t_nbr[g, st.t_nbr[g, t, d], OPPOSITE[d]] = -1  # t still links to u, u no longer back
    return st


def _self_link(st: State, before: State, g: int) -> State:
    st.t_nbr[g, 0, E] = 0
    return st


def _horror_off_the_map(st: State, before: State, g: int) -> State:
    st.h_tile[g, 0] = st.n_tiles[g] + 3
    return st


def _caver_off_the_map(st: State, before: State, g: int) -> State:
    st.c_tile[g, 1] = st.n_tiles[g]
    return st


def _ap_above_max(st: State, before: State, g: int) -> State:
    st.ap[g] = 4  # 2 AP + 1 for Exert at most
    return st


def _discard_from_nowhere(st: State, before: State, g: int) -> State:
    st.scout_redraws[g] -= 1  # a Scout discard that drew nothing: one tile more than the stack ever held
    return st


def _two_tiles_on_one_cell(st: State, before: State, g: int) -> State:
    k = int(st.n_tiles[g]) - 1  # the newest tile, unlinked, moved onto the start tile's cell
    st.t_nbr[g][st.t_nbr[g] == k] = -1
    st.t_nbr[g, k] = -1
    st.t_x[g, k], st.t_y[g, k] = st.t_x[g, 0], st.t_y[g, 0]
    return st


def _cell_index_cleared(st: State, before: State, g: int) -> State:
    st.packed["cells"][g] = -1  # the compiled rules' cell-to-tile index forgets every tile
    return st


def _second_exit(st: State, before: State, g: int) -> State:
    st.t_type[g, :2] = T_EXIT
    return st


def _cards_come_back(st: State, before: State, g: int) -> State:
    before.deck_pos[g] = st.deck_pos[g] + 1
    return st


def _result_without_end(st: State, before: State, g: int) -> State:
    st.result[g] = 3  # gold while nobody is on the exit
    return st


def _game_revived(st: State, before: State, g: int) -> State:
    before.result[g] = 0
    return st


CORRUPTIONS: list[tuple[Callable[[State, State, int], State], str]] = [
    (_health_above_max, "health"),
    (_horrors_over_limit, "horror limit"),
    (_asymmetric_neighbour, "connections"),
    (_self_link, "connections"),
    (_two_tiles_on_one_cell, "board"),
    (_cell_index_cleared, "cell index"),
    (_horror_off_the_map, "horrors on tiles"),
    (_caver_off_the_map, "caver positions"),
    (_ap_above_max, "ap"),
    (_discard_from_nowhere, "tile conservation"),
    (_second_exit, "one exit"),
    (_cards_come_back, "hazard cards never increase"),
    (_result_without_end, "results"),
    (_game_revived, "results final"),
]


def test_uncorrupted_mid_game_passes(mid_game: tuple[Core, State, int]) -> None:
    core, st, _ = mid_game
    check_invariants(core.cfg, snapshot(st), st, core.legal_mask(st))


@pytest.mark.parametrize("corrupt, invariant", CORRUPTIONS, ids=[c.__name__.strip("_") for c, _ in CORRUPTIONS])
def test_checker_catches_corruption(mid_game: tuple[Core, State, int], corrupt: Callable, invariant: str) -> None:
    core, clean, g = mid_game
    before, after = snapshot(clean), clean.copy()
    after = corrupt(after, before, g)
    # The packed state holds 3 horror slots, so too many horrors means more than a lower limit.
    cfg = core.cfg.replace(horror_limit=2) if corrupt is _horrors_over_limit else core.cfg
    with pytest.raises(InvariantError, match=f"invariant '{invariant}' violated in game {g} ") as err:
        check_invariants(cfg, before, after, core.legal_mask(after))
    assert err.value.invariant == invariant and list(err.value.games) == [g]
    assert isinstance(err.value, AssertionError)


def test_empty_mask_of_a_running_game_is_caught(mid_game: tuple[Core, State, int]) -> None:
    core, st, g = mid_game
    mask = core.legal_mask(st)
    mask[g] = False
    with pytest.raises(InvariantError, match=f"invariant 'masks' violated in game {g} "):
        check_invariants(core.cfg, None, st, mask)
