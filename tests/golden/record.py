"""Record golden trajectories from today's rules core: the reference a new (compiled) core must match bit for bit.

    PYTHONPATH=. python tests/golden/record.py [--games 500] [--out tests/golden/trajectories.npz]

Plays seeded games, one at a time (B=1), through ``subterra_env.games.sub_terra.core.rules.Core`` over mixed settings groups (the
soak benchmark's lanes plus a shortened cave and a set of non-default numbers), with a seeded uniform random legal
policy whose choice depends only on (game seed, decision number). For every game the fixture stores its settings
group, its seed, every action id in order, the hash of the initial state and of the state after every step
(:func:`state_hashes`), and the legal mask (``Core.legal_mask``) at the start and after every step, bit-packed.
The settings groups are stored in the fixture as data, so a replay builds the same configs whatever happens to the
soak's list later. Invariants are checked after every recorded step.

``tests/test_golden.py`` replays the fixture (batched per group) and compares every hash. See README.md here:
regenerate only for a documented, intended change of behaviour.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from subterra_env.config import GameConfig, from_dict, to_dict
from subterra_env.games.sub_terra.core.state import (HASH_FIELDS, INVESTIGATION_FIELDS, REACTION_FIELDS, SCENARIO_FIELDS, State,
                                     scenario_hash_fields)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DEFAULT_OUT = HERE / "trajectories.npz"
FORMAT = 1  # bump when the fixture's layout or the hash definition changes
HASH_SPEC = ("blake2b(digest_size=8) per game over every State field in dataclass order, with the grid (derived "
             "from the tiles since the compiled core) after t_blast: the ASCII header "
             "'{name}:{dtype.str}:{per-game shape, dims joined by x};' then the field's bytes for that game in C "
             "order; digest read as a little-endian uint64. A scenario's fields (state.SCENARIO_FIELDS) follow the "
             "same way only when one of them differs from its empty value (never in the base game), then "
             "state.INVESTIGATION_FIELDS in an Investigation game, then state.REACTION_FIELDS only while its Gas Mask "
             "decision is pending (see state.scenario_hash_fields)")


def hashed_fields() -> list[str]:
    """The State fields in hash order (``subterra_env.games.sub_terra.core.state.HASH_FIELDS``): the numpy core's dataclass order,
    where ``grid`` (an (G, G) int8 field then, a property computed from the tiles now) came after ``t_blast``."""
    return list(HASH_FIELDS)

# Groups added to the soak's lanes: a shortened cave (few tiles, the exit among the last 2) and non-default numbers
# for the settings a compiled core could be tempted to hard-code.
SHORT_TILES: dict[str, dict[str, int]] = {
    "normal": {"4": 2, "T": 2, "L": 2, "I": 2, "D": 1},
    "water": {"4": 1, "I": 2},
    "gas": {"T": 1, "L": 1},
    "cave-in": {"T": 2, "L": 1},
    "horror": {"L": 1, "D": 2},
    "squeeze": {"I": 1},
    "ledge": {"I": 1},
    "slide": {"I": 1},
    "rough": {"4": 1},
}
EXTRA_GROUPS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("short-cave", {"num_cavers": 5, "seat_order": "random", "tiles": SHORT_TILES,
                    "cave_in_numbers": ((1, 2), (3, 4), (5, 6)), "exit_in_last": 2}),
    ("numbers", {"difficulty": "easier", "easier_extra_cards": 2, "health": 2, "bodyguard_health": 3,
                 "action_points": 3, "skill_target": 5, "leader_bonus": 2, "run_steps": 2, "rope_tokens": 2,
                 "sprint_steps": 1, "scout_redraws": 1, "explosives": 1, "horror_limit": 2, "horror_range": 4,
                 "flood_damage": 2, "gas_damage": 1, "tremor_damage": 2, "engineer_cave_in_damage": 0,
                 "exit_in_last": 10}),
)
MAX_GAME_STEPS = 5000


# ---------------------------------------------------------------------------------------------- the hash
def _field_header(name: str, arr: np.ndarray) -> bytes:
    return f"{name}:{arr.dtype.str}:{'x'.join(str(n) for n in arr.shape[1:])};".encode()


def state_hashes(st: State) -> np.ndarray:
    """(B,) uint64: the 64-bit hash of each game's slice of the State (see HASH_SPEC).

    Vectorised over the batch: one byte row per game, one blake2b per row. A game's hash does not depend on the
    batch it sits in: ``state_hashes(st)[i] == state_hashes(st.take([i]))[0]``.
    """
    b = st.batch_size
    tiers = (hashed_fields(), SCENARIO_FIELDS, INVESTIGATION_FIELDS, REACTION_FIELDS)
    parts = [_byte_rows(st, names) for names in tiers]
    ends = np.cumsum([0] + [len(t) for t in tiers[1:]])  # scenario fields hashed after each tier's
    set_ = [len(scenario_hash_fields(st, i)) for i in range(b)]
    return np.array([int.from_bytes(hashlib.blake2b(np.concatenate(
        [p[i] for p in parts][:1 + int(np.searchsorted(ends, on))]).data, digest_size=8).digest(), "little")
                     for i, on in enumerate(set_)], dtype=np.uint64)


def _byte_rows(st: State, names) -> np.ndarray:
    """(B, n) uint8: each game's header-and-bytes of the named fields."""
    b = st.batch_size
    parts = []
    for name in names:
        arr = getattr(st, name)
        head = np.frombuffer(_field_header(name, arr), dtype=np.uint8)
        parts.append(np.broadcast_to(head, (b, len(head))))
        parts.append(np.ascontiguousarray(arr).reshape(b, -1).view(np.uint8))
    return np.concatenate(parts, axis=1)


def state_hash_reference(st: State) -> int:
    """The same hash for a B=1 state, written plainly (one hashlib update per field): the spec for other cores."""
    assert st.batch_size == 1
    h = hashlib.blake2b(digest_size=8)
    for name in hashed_fields() + list(scenario_hash_fields(st, 0)):  # a scenario's only in a scenario game
        arr = getattr(st, name)
        h.update(_field_header(name, arr))
        h.update(np.ascontiguousarray(arr[0]).tobytes())
    return int.from_bytes(h.digest(), "little")


def pack_masks(masks: list[np.ndarray] | np.ndarray) -> np.ndarray:
    """(n, A) bool legal masks as (n, ceil(A / 8)) uint8 (np.packbits, big bit order)."""
    from subterra_env.games.sub_terra.core.actions import NUM_ACTIONS

    arr = np.asarray(masks, dtype=bool).reshape(-1, NUM_ACTIONS)
    return np.packbits(arr, axis=1)


# ---------------------------------------------------------------------------------------------- groups and policy
def load_soak() -> ModuleType:
    """benchmarks/soak.py, whose action stream plays the recorded games (the repository root on the import path:
    pytest's ``pythonpath``, or ``PYTHONPATH=.`` for this script)."""
    from benchmarks import soak

    return soak


def jsonable(x: Any) -> Any:
    """Settings as plain JSON data (tuples become lists, mapping keys strings)."""
    if isinstance(x, dict) or hasattr(x, "items"):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return [jsonable(v) for v in x]
    return x


def current_groups() -> list[dict[str, Any]]:
    """The settings groups to record: the soak's lanes (soakN, by import) and EXTRA_GROUPS, as JSON data."""
    soak = load_soak()
    groups = [(f"soak{i}", s) for i, s in enumerate(soak.SETTINGS)] + list(EXTRA_GROUPS)
    return [{"name": name, "settings": jsonable(s)} for name, s in groups]


def group_config(group: dict[str, Any]) -> GameConfig:
    """The GameConfig of a recorded group (from its stored settings; unknown keys are errors)."""
    return from_dict(group["settings"])


def resolved(cfg: GameConfig) -> dict[str, Any]:
    """Every setting of a config, defaults included, as JSON data: a replay checks that no default moved."""
    return jsonable(to_dict(cfg))


def game_seed(group_index: int, k: int) -> int:
    return 100_000 * (group_index + 1) + k


def games_per_group(total: int, n_groups: int) -> list[int]:
    return [total // n_groups + (i < total % n_groups) for i in range(n_groups)]


# ---------------------------------------------------------------------------------------------- fixture I/O
def load_fixture(path: str | Path = DEFAULT_OUT) -> dict[str, Any]:
    """The fixture's arrays plus 'meta' (a dict, its 'groups' among them); no pickles."""
    with np.load(path, allow_pickle=False) as z:
        out = {k: z[k] for k in z.files}
    out["meta"] = json.loads(str(out["meta"]))
    return out


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# ---------------------------------------------------------------------------------------------- recording
def record_game(core, seed: int, soak: ModuleType, check: bool) -> dict[str, Any]:
    """Play one game alone: its initial hash and legal mask, actions, hash and mask after each step, result."""
    from subterra_env.games.sub_terra.core.invariants import check_invariants, snapshot
    from subterra_env.games.sub_terra.core.state import RUNNING

    seeds = np.array([seed], dtype=np.int64)
    st = core.init(seeds)
    keys = soak.action_keys(seeds)
    mask = core.legal_mask(st)
    if check:
        check_invariants(core.cfg, None, st, mask)
    init_hash, init_mask = int(state_hashes(st)[0]), mask[0].copy()
    actions: list[int] = []
    hashes: list[int] = []
    masks: list[np.ndarray] = []
    while st.result[0] == RUNNING:
        if len(actions) >= MAX_GAME_STEPS:
            raise RuntimeError(f"seed {seed}: no end within {MAX_GAME_STEPS} decisions")
        a = soak.choose_actions(keys, st.steps, mask)
        assert mask[0, a[0]], f"seed {seed}: chose an illegal action"
        before = snapshot(st) if check else None
        core.step(st, a)
        mask = core.legal_mask(st)
        if check:
            check_invariants(core.cfg, before, st, mask)
        actions.append(int(a[0]))
        hashes.append(int(state_hashes(st)[0]))
        masks.append(mask[0].copy())
    return {"init_hash": init_hash, "init_mask": init_mask, "actions": actions, "hashes": hashes,
            "masks": masks, "result": int(st.result[0])}


def record(games: int, check: bool = True, progress: bool = True) -> dict[str, np.ndarray]:
    """Play and hash `games` games spread evenly over the groups; the fixture's arrays (meta as JSON)."""
    from subterra_env.games.sub_terra.core.actions import NUM_ACTIONS
    from subterra_env.games.sub_terra.core.rules import Core

    assert NUM_ACTIONS <= 256, "actions are stored as uint8"
    soak = load_soak()
    groups = current_groups()
    for g in groups:
        g["resolved"] = resolved(group_config(g))
    g_idx, seeds, lens, results, init_hashes, init_masks, actions, hashes, masks = ([] for _ in range(9))
    t0 = time.perf_counter()
    for gi, (group, n) in enumerate(zip(groups, games_per_group(games, len(groups)))):
        core = Core(group_config(group))
        for k in range(n):
            seed = game_seed(gi, k)
            game = record_game(core, seed, soak, check)
            g_idx.append(gi)
            seeds.append(seed)
            lens.append(len(game["actions"]))
            results.append(game["result"])
            init_hashes.append(game["init_hash"])
            init_masks.append(game["init_mask"])
            actions += game["actions"]
            hashes += game["hashes"]
            masks += game["masks"]
        if progress:
            print(f"[{time.perf_counter() - t0:6.1f}s] {group['name']:<11} {n} games, "
                  f"{sum(lens[-n:]) if n else 0} steps  {group['settings'] or 'defaults'}", flush=True)
    offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    meta = {
        "format": FORMAT,
        "hash": HASH_SPEC,
        "policy": "benchmarks/soak.py choose_actions(action_keys(seed), decision number, legal mask)",
        "seeds": "100000 * (group index + 1) + game number within the group",
        "games": len(seeds),
        "steps": int(offsets[-1]),
        "masks": "init_mask / masks: Core.legal_mask at setup / after each step, np.packbits(axis=1)",
        "groups": groups,
        "state_fields": hashed_fields(),
        "numpy": np.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "git_revision": _git("rev-parse", "HEAD"),
        # the rules core reads only subterra_env/games/sub_terra/core and the config
        "core_uncommitted_changes": _git("status", "--porcelain", "--", "subterra_env/games/sub_terra/core",
                                         "subterra_env/config.py") != "",
        "recorded_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": f"python tests/golden/record.py --games {games}" + ("" if check else " --no-check"),
    }
    return {
        "meta": np.array(json.dumps(meta)),
        "group": np.array(g_idx, dtype=np.int16),
        "seed": np.array(seeds, dtype=np.int64),
        "offsets": offsets,  # game i's steps are actions[offsets[i]:offsets[i + 1]]
        "result": np.array(results, dtype=np.int8),
        "init_hash": np.array(init_hashes, dtype=np.uint64),
        "actions": np.array(actions, dtype=np.uint8),
        "hashes": np.array(hashes, dtype=np.uint64),
        "init_mask": pack_masks(init_masks),
        "masks": pack_masks(masks),  # legal mask after each step, np.packbits along the action axis
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=500, help="games in all, spread evenly over the groups (500)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"fixture path (default {DEFAULT_OUT})")
    p.add_argument("--no-check", action="store_true", help="skip the invariant checks while recording")
    args = p.parse_args(argv)
    if args.games < 1:
        p.error("--games must be >= 1")
    t0 = time.perf_counter()
    data = record(args.games, check=not args.no_check)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **data)
    meta = json.loads(str(data["meta"]))
    print(f"wrote {args.out}: {meta['games']} games, {meta['steps']:,} steps, "
          f"{args.out.stat().st_size / 1e6:.2f} MB in {time.perf_counter() - t0:.1f} s "
          f"(git {meta['git_revision'][:10]}, numpy {meta['numpy']}, python {meta['python']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
