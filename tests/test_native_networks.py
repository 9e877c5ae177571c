"""The native trainer's actor bodies (``agents/native_policy.py``, issue 41): ``egowide``'s summary of the window
beyond its 5 x 5 centre, ``egothreat``'s nearest horrors and ``egohunt``'s search for whom the horrors hunt on
hand-made windows (literal values) and against a search along the rules' own connections, the first-layer input
the PPO update caches giving the network's output bit for bit, the wider window they need, and their checkpoints
through ONNX."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the train extra: pip install -e '.[train]'")

from agents.native_policy import ActorCritic, NativePolicyAgent, NetSpec, save_checkpoint
from subterra_env.config import preset
from subterra_env.games.sub_terra.core.observation_layout import GRID_CHANNELS, SCALARS
from subterra_env.spaces import grid_shape, num_scalars
from subterra_env.vector import BatchedGames

torch.set_num_threads(1)


def wide_spec(radius: int = 7, critic: str = "ippo", network: str = "egowide") -> NetSpec:
    return NetSpec(grid_shape(radius), num_scalars(), 90, network, 16, critic, 99 if critic == "mappo" else 0)


def hand_made_window() -> torch.Tensor:
    """One 15 x 15 window (radius 7; the observer at row 7, column 7): the observer with health 3, the caver two
    seats on with health 1 three rows south and two columns west, the exit in the north-east corner, two horrors
    in the north-west region and a gas tile in the south-east one."""
    grid = torch.zeros(1, *grid_shape(7), dtype=torch.int8)
    ch = GRID_CHANNELS.index
    grid[0, ch("caver 0 health+1"), 7, 7] = 4
    grid[0, ch("caver 2 health+1"), 10, 5] = 2
    grid[0, ch("type exit"), 0, 14] = 1
    grid[0, ch("horrors"), 1, 1] = 2
    grid[0, ch("type gas"), 13, 13] = 1
    return grid


def test_egowide_summary_of_a_hand_made_window() -> None:
    body = ActorCritic(wide_spec()).body
    got = body.summary(hand_made_window())[0].tolist()
    assert len(got) == 6 * 3 + 3 + 7 * 9
    health, rows, cols, exit_place, regions = got[0:6], got[6:12], got[12:18], got[18:21], got[21:]
    assert health == pytest.approx([math.log(5), 0, math.log(3), 0, 0, 0])
    assert rows == pytest.approx([0, 0, 3 / 7, 0, 0, 0])
    assert cols == pytest.approx([0, 0, -2 / 7, 0, 0, 0])
    assert exit_place == pytest.approx([1.0, -1.0, 1.0])  # in sight, a radius north, a radius east
    # the region maxima: plane by plane (REGION_PLANES), regions row by row from the north-west
    by_plane = {name: regions[9 * i:9 * i + 9] for i, name in enumerate(body.REGION_PLANES)}
    assert by_plane["horrors"] == pytest.approx([math.log(3)] + [0] * 8)
    assert by_plane["type gas"] == pytest.approx([0] * 8 + [math.log(2)])
    assert sum(by_plane["tile"]) == 0 and sum(by_plane["type rough"]) == 0


def test_egothreat_places_the_nearest_horrors_and_horror_tiles() -> None:
    """Four horrors (one cell holding two) and one horror tile: the three nearest horror cells by Manhattan distance
    (ties: the first in row-major order), the one tile and an empty second slot; the rest as egowide's summary."""
    grid = hand_made_window()  # its horrors: 2 at (1, 1), 12 steps away
    ch = GRID_CHANNELS.index
    grid[0, ch("horrors"), 7, 10] = 1  # 3 steps east
    grid[0, ch("horrors"), 4, 7] = 1  # 3 steps north: as near as the one east, first in row-major order
    grid[0, ch("horrors"), 14, 14] = 1  # 14 steps: the fourth, left out
    grid[0, ch("type horror"), 9, 6] = 1  # 3 steps south-west
    threat = ActorCritic(wide_spec(network="egothreat")).body
    got = threat.summary(grid)[0].tolist()
    assert len(got) == 6 * 3 + 3 + 7 * 9 + 3 * 3 + 3 * 2
    assert got[:84] == pytest.approx(ActorCritic(wide_spec()).body.summary(grid)[0].tolist())
    horrors, tiles = got[84:93], got[93:99]
    assert horrors == pytest.approx([1, 1, 1, -3 / 7, 0, -6 / 7, 0, 3 / 7, -6 / 7])  # seen, rows, columns
    assert tiles == pytest.approx([1, 0, 2 / 7, 0, -1 / 7, 0])


def corridor_window() -> tuple[torch.Tensor, torch.Tensor]:
    """A corridor of tiles open east and west on row 7 from column 7 to 13 (radius 7: the observer at column 7):
    the observer (rank 3, the Geologist) at its west end, the Scout (rank 2) at column 11, the Diver (rank 1) at its
    east end; a horror at column 10 (3 steps from both ends), an empty horror tile at column 8, and a second horror
    a cell north of the observer with no connected side (a wall between them)."""
    grid = torch.zeros(1, *grid_shape(7), dtype=torch.int8)
    scalars = torch.zeros(1, num_scalars(), dtype=torch.int8)
    ch = GRID_CHANNELS.index
    for col in range(7, 14):
        grid[0, ch("tile"), 7, col] = grid[0, ch("open E"), 7, col] = grid[0, ch("open W"), 7, col] = 1
    grid[0, ch("tile"), 6, 7] = grid[0, ch("open N"), 6, 7] = 1  # open only to the north: not connected
    grid[0, ch("horrors"), 6, 7] = grid[0, ch("horrors"), 7, 10] = 1
    grid[0, ch("type horror"), 7, 8] = 1
    for seat, (col, rank) in enumerate([(7, 3), (11, 2), (13, 1)]):
        grid[0, ch(f"caver {seat} health+1"), 7, col] = 4
        scalars[0, SCALARS.index(f"caver {seat} rank")] = rank
    return grid, scalars


def test_egohunt_finds_whom_the_horrors_hunt_along_connected_sides() -> None:
    """Steps through connected sides (the walled horror a cell away is out of reach), the closest victim with ties
    to the lower rank (the horror 3 steps from the observer and the Diver hunts the Diver), the Scout never a
    victim though 1 step away, the spawn for the victim nearest the empty horror tile; (8 - steps) / 8 a caver."""
    grid, scalars = corridor_window()
    body = ActorCritic(wide_spec(network="egohunt")).body
    got = body.hunt(grid, scalars)[0].view(4, 6).tolist()
    assert got[0] == [5 / 8, 7 / 8, 5 / 8, 0, 0, 0]  # the nearest horror
    assert got[1] == [0, 0, 5 / 8, 0, 0, 0]  # hunted: the Diver, 3 steps
    assert got[2] == [7 / 8, 5 / 8, 3 / 8, 0, 0, 0]  # the nearest empty horror tile
    assert got[3] == [7 / 8, 0, 0, 0, 0, 0]  # the next spawn comes for the observer, 1 step away
    hidden = scalars.clone()
    hidden[0, SCALARS.index("caver 2 hidden")] = 1  # the Diver hides: the horror hunts the observer
    got = body.hunt(grid, hidden)[0].view(4, 6).tolist()
    assert got[1] == [5 / 8, 0, 0, 0, 0, 0]
    grid[0, GRID_CHANNELS.index("open S"), 6, 7] = grid[0, GRID_CHANNELS.index("open N"), 7, 7] = 1  # now connected
    got = body.hunt(grid, scalars)[0].view(4, 6).tolist()
    assert got[0][0] == got[1][0] == 7 / 8  # the horror north of the observer hunts it, 1 step


def test_egohunt_inputs_are_egowides_and_the_hunt_after_them() -> None:
    grid, scalars = corridor_window()
    hunt = ActorCritic(wide_spec(network="egohunt")).body
    wide = ActorCritic(wide_spec()).body
    inputs = hunt.inputs(grid, scalars)
    assert inputs.shape == (1, wide.inputs(grid, scalars).shape[1] + 24) == (1, hunt.net[0].in_features)
    assert torch.equal(inputs[:, :-24], wide.inputs(grid, scalars))


def test_the_centre_of_the_window_is_egos_five_by_five() -> None:
    body = ActorCritic(wide_spec()).body
    grid = hand_made_window()
    near = body.inputs(grid, torch.zeros(1, num_scalars(), dtype=torch.int8))[0, :34 * 25].reshape(34, 5, 5)
    assert near[GRID_CHANNELS.index("caver 0 health+1"), 2, 2].item() == pytest.approx(math.log(5))
    assert near.count_nonzero().item() == 1  # the other marks lie beyond the 5 x 5 centre


@pytest.mark.parametrize("network, radius, critic", [("ego", 2, "ippo"), ("egowide", 7, "ippo"),
                                                      ("egowide", 4, "mappo"), ("egothreat", 7, "ippo"),
                                                      ("egohunt", 7, "ippo")])
def test_the_cached_first_layer_input_gives_the_forward_pass_bit_for_bit(network: str, radius: int,
                                                                          critic: str) -> None:
    """The PPO update reads ``body.inputs`` as acting computed it and computes the critic's ``state_inputs`` once a
    rollout; ``from_inputs`` must be ``forward`` exactly, so that a seeded run is the same run as before the caches."""
    torch.manual_seed(0)
    spec = NetSpec(grid_shape(radius), num_scalars(), 90, network, 16, critic, 99 if critic == "mappo" else 0)
    model = ActorCritic(spec)
    grid = torch.randint(0, 6, (64, *spec.grid_shape), dtype=torch.int8)
    scalars = torch.randint(0, 6, (64, spec.num_scalars), dtype=torch.int8)
    state = torch.randint(0, 6, (64, 99), dtype=torch.int8) if critic == "mappo" else None
    want = model(grid, scalars, state)
    got = model.from_inputs(model.body.inputs(grid, scalars), model.state_inputs(state))
    assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])


@pytest.mark.parametrize("network", ["egowide", "egothreat"])
def test_the_wide_bodies_need_a_window_wider_than_their_centre(network: str) -> None:
    with pytest.raises(ValueError, match=f"network={network} with obs_radius=2: .* obs_radius must be above 2"):
        NetSpec(grid_shape(2), num_scalars(), 90, network, 16)


def test_egowide_checkpoints_keep_their_weights_names() -> None:
    """The nearest-cell ordering is rebuilt, not saved: egowide checkpoints written before egothreat still load."""
    names = sorted(ActorCritic(wide_spec()).state_dict())
    assert [n for n in names if n.startswith("body.") and not n.startswith("body.net.")] == ["body.offsets",
                                                                                             "body.planes"]


@pytest.mark.parametrize("network", ["egowide", "egothreat", "egohunt"])
def test_a_wide_checkpoint_plays_the_same_through_onnx(tmp_path: Path, network: str) -> None:
    pytest.importorskip("onnxruntime", reason="the onnx extra")
    from agents.onnx_policy import OnnxPolicyAgent, export_onnx

    torch.manual_seed(3)
    model = ActorCritic(wide_spec(5, network=network))
    for p in model.parameters():  # bigger weights than the initialisation's: logits that differ between actions
        p.data.mul_(4)
    path = save_checkpoint(tmp_path / "wide.pt", model, {"preset": "small"}, {})
    agent = NativePolicyAgent(path)
    onnx = OnnxPolicyAgent(export_onnx(path, tmp_path / "wide.onnx"))
    assert agent.obs_radius == onnx.obs_radius == 5
    games = BatchedGames(16, preset("small"), obs_radius=5, seed=5)
    obs, rng, decisions = games.reset(), np.random.default_rng(0), 0
    for _ in range(30):
        mask = games.action_masks()
        np.testing.assert_allclose(onnx.logits(obs), agent.logits(obs), rtol=1e-4, atol=1e-4)
        actions = agent.act_batch(obs, mask)
        assert mask[np.arange(16), actions].all()
        np.testing.assert_array_equal(onnx.act_batch(obs, mask), actions)
        decisions += len(actions)
        games.step_batch(np.where(mask, rng.gumbel(size=mask.shape), -np.inf).argmax(axis=1))
        obs = games.observations()
    assert decisions == 16 * 30
    # the env's default window (radius 7) is cropped to the checkpoint's before the summary
    g5, g7 = (BatchedGames(8, preset("small"), obs_radius=r, seed=4) for r in (5, 7))
    np.testing.assert_array_equal(agent.logits(g7.reset()), agent.logits(g5.reset()))


def rules_hunt(st, b: int, far: int = 8) -> tuple[list[int], list[int]]:
    """(steps to the nearest horror, steps from the nearest horror hunting it) for each caver of game ``b``, seats
    relative to the acting caver, from the rules' own graph of the state: a breadth-first search along ``t_nbr``
    (R-CON-2) and R-HOR-2's victims and tie rule; ``far`` for none within 7 steps."""
    n, actor = st.c_rank.shape[1], int(st.actor[b])  # the seats: the state arrays' S axis
    dist = np.full((n, int(st.n_tiles[b])), far)
    for s in range(n):
        if st.c_tile[b, s] < 0:
            continue
        dist[s, st.c_tile[b, s]], frontier = 0, [int(st.c_tile[b, s])]
        for step in range(1, far):
            frontier = [int(nb) for t in frontier for nb in st.t_nbr[b, t] if nb >= 0 and dist[s, nb] == far]
            for t in frontier:
                dist[s, t] = step
    victim = [st.c_tile[b, s] >= 0 and st.c_hp[b, s] > 0 and not st.c_dead[b, s] and not st.c_hidden[b, s]
              and st.t_type[b, st.c_tile[b, s]] != 1 and st.c_rank[b, s] != 2 for s in range(n)]  # T_EXIT, Scout
    nearest, hunted = [far] * 6, [far] * 6
    for h in st.h_tile[b]:
        if h < 0:
            continue
        for s in range(n):
            k = (s - actor) % n
            nearest[k] = min(nearest[k], int(dist[s, h]))
        key, s = min((dist[s, h] * 16 + st.c_rank[b, s], s) for s in range(n) if victim[s]) if any(victim) else (0, -1)
        if s >= 0 and key // 16 < far:
            hunted[(s - actor) % n] = min(hunted[(s - actor) % n], int(key // 16))
    return nearest, hunted


def test_egohunt_agrees_with_the_rules_graph_when_the_window_holds_the_cave() -> None:
    """On random small games seen through the widest window (41 x 41: the int64 words), where every tile lies in the
    window, the search's nearest horror and hunted victim match a search along the rules' own connections."""
    games = BatchedGames(64, preset("small"), obs_radius=20, seed=11)
    body = ActorCritic(wide_spec(20, network="egohunt")).body
    rng, compared, hunted_seen = np.random.default_rng(1), 0, 0
    games.reset()
    for _ in range(60):
        mask = games.action_masks()
        games.step_batch(np.where(mask, rng.gumbel(size=mask.shape), -np.inf).argmax(axis=1))
        obs, st = games.observations(), games.state
        got = body.hunt(torch.as_tensor(obs["observation"]), torch.as_tensor(obs["scalars"])).view(-1, 4, 6)
        steps = (8 - got * 8).round().long()
        for b in range(64):
            tiles = slice(0, int(st.n_tiles[b]))
            actor_tile = st.c_tile[b, st.actor[b]]
            if st.actor[b] < 0 or actor_tile < 0 or (st.h_tile[b] < 0).all():
                continue
            if (abs(st.t_x[b, tiles] - st.t_x[b, actor_tile]) > 20).any() or \
                    (abs(st.t_y[b, tiles] - st.t_y[b, actor_tile]) > 20).any():
                continue
            nearest, hunted = rules_hunt(st, b)
            assert steps[b, 0].tolist() == nearest and steps[b, 1].tolist() == hunted, b
            compared += 1
            hunted_seen += sum(h < 8 for h in hunted)
    assert (compared, hunted_seen) == (345, 332)  # game states compared; cavers a horror hunts in them
