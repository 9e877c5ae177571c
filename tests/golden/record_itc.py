"""Record In the Cave golden trajectories: the reference today's compiled rules must keep reproducing bit for bit.

    python tests/golden/record_itc.py [--out tests/golden/itc_trajectories.npz]

Plays 100 seeded games, one at a time (B=1), through ``subterra_env.games.in_the_cave.core.game.ItcCore`` over settings
groups (2-5 teams with default settings, played by a seeded uniform random legal policy and by the heuristic in
every seat, plus two groups of non-default settings), checking the invariants after every step. For every game
the fixture stores its group, seed, every action id, the hash of the game record after setup and after every step
(:func:`record_hashes`), the legal mask after setup and after every step (bit-packed), and the result and final
scores. ``tests/test_itc_golden.py`` replays the stored actions (batched per group) and compares everything; it
never records. Regenerate only for an intended, documented change of the rules (tests/golden/README.md).
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
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DEFAULT_OUT = HERE / "itc_trajectories.npz"
FORMAT = 1  # bump when the fixture's layout or the hash definition changes
HASH_SPEC = ("blake2b(digest_size=8) of the ASCII header 'itc-record:{dtype.str}:{RECORD_SIZE};' then the game's "
             "int32 record row (layout.RECORD_SIZE values) in native little-endian bytes; digest read as a "
             "little-endian uint64")
MAX_GAME_STEPS = 20_000

# (name, policy, settings, games): the groups recorded, 100 games in all. The heuristic groups reach the end of
# the game (scoring, majorities, eliminations); random play reaches truncation and the odd corners of the rules.
_NUMBERS = {"backpack_slots": 6, "camp_slots": 3, "action_points": 4, "limited_bank": True, "bank_consumables": 20,
            "bank_ropes": 8, "bank_oxygen": 4, "removed_per_stack": 10,
            "fixed_pack": {"consumable": 2, "rope": 1, "oxygen": 1, "camera": 1, "raft": 1},  # fits 6 slots
            "final_rounds": 2, "max_rounds": 40, "max_free_actions": 8}
GROUPS: tuple[tuple[str, str, dict[str, Any], int], ...] = tuple(
    (f"{policy}{n}", policy, {"num_players": n}, games)
    for n in (2, 3, 4, 5) for policy, games in (("random", 12), ("heuristic", 10))
) + (
    ("first-game-limited", "heuristic", {"num_players": 3, "initial_pack": "fixed", "limited_bank": True}, 6),
    ("numbers", "random", {"num_players": 4, **_NUMBERS}, 6),
)


def record_hashes(G: np.ndarray) -> np.ndarray:
    """(B,) uint64: the hash of each game's record row (HASH_SPEC); the same alone as inside any batch."""
    from subterra_env.games.in_the_cave.core import layout as L

    G = np.ascontiguousarray(G, dtype=np.int32)
    head = f"itc-record:{G.dtype.str}:{L.RECORD_SIZE};".encode()
    out = np.zeros(G.shape[0], dtype=np.uint64)
    for i, row in enumerate(G):
        h = hashlib.blake2b(head, digest_size=8)
        h.update(row.tobytes())
        out[i] = int.from_bytes(h.digest(), "little")
    return out


def pack_masks(masks: np.ndarray) -> np.ndarray:
    """(n, 81) legal masks as (n, 11) uint8 (np.packbits, big bit order)."""
    return np.packbits(np.asarray(masks, dtype=bool), axis=1)


def group_config(group: dict[str, Any]):
    from subterra_env.games.in_the_cave.config import preset

    return preset("default", **group["settings"])


def resolved(cfg) -> dict[str, Any]:
    """Every setting, defaults included, as JSON data: a replay checks that no default moved underneath."""
    from subterra_env.games.in_the_cave.config import to_dict

    return json.loads(json.dumps(to_dict(cfg), default=dict))


def game_seed(group_index: int, k: int) -> int:
    return 100_000 * (group_index + 1) + k


def load_fixture(path: str | Path = DEFAULT_OUT) -> dict[str, Any]:
    """The fixture's arrays plus 'meta' (a dict); no pickles."""
    with np.load(path, allow_pickle=False) as z:
        out = {k: z[k] for k in z.files}
    out["meta"] = json.loads(str(out["meta"]))
    return out


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def record_game(core, seed: int, policy: str) -> dict[str, Any]:
    """One game alone: hashes and masks after setup and after every step, its actions, result and scores."""
    from agents.in_the_cave.heuristic import heuristic_action
    from subterra_env.games.in_the_cave.core import layout as L
    from subterra_env.games.in_the_cave.invariants import check

    rng = np.random.default_rng([seed, 7])  # the random policy's stream: the game seed alone decides it
    G = core.init([seed])
    masks, hashes, actions = [core.masks(G)[0]], [record_hashes(G)[0]], []
    while G[0, L.OVER] == L.RUNNING:
        if len(actions) >= MAX_GAME_STEPS:
            raise RuntimeError(f"seed {seed}: no end within {MAX_GAME_STEPS} decisions")
        mask = masks[-1]
        a = heuristic_action(G[0], core.P, mask) if policy == "heuristic" else int(rng.choice(np.flatnonzero(mask)))
        if core.step(G, [a])[0] != 0:
            raise RuntimeError(f"seed {seed}, step {len(actions) + 1}: action {a} refused")
        errs = check(G[0], core.config)
        if errs:
            raise RuntimeError(f"seed {seed}, step {len(actions) + 1}: invariants broken: {errs}")
        actions.append(a)
        hashes.append(record_hashes(G)[0])
        masks.append(core.masks(G)[0])
    n = core.seats
    return {"actions": actions, "hashes": hashes, "masks": masks, "result": int(G[0, L.OVER]),
            "scores": [int(v) for v in G[0, L.SCORE:L.SCORE + n]] + [0] * (5 - n)}


def record(progress: bool = True) -> dict[str, np.ndarray]:
    from subterra_env.games.in_the_cave.core.actions import NUM_ACTIONS
    from subterra_env.games.in_the_cave.core.game import ItcCore

    assert NUM_ACTIONS <= 256, "actions are stored as uint8"
    groups = [{"name": name, "policy": policy, "settings": settings} for name, policy, settings, _ in GROUPS]
    cols: dict[str, list] = {k: [] for k in ("group", "seed", "lens", "result", "scores", "actions", "hashes",
                                             "masks")}
    t0 = time.perf_counter()
    for gi, (group, (_, _, _, games)) in enumerate(zip(groups, GROUPS)):
        cfg = group_config(group)
        group["resolved"] = resolved(cfg)
        core = ItcCore(cfg)
        for k in range(games):
            seed = game_seed(gi, k)
            game = record_game(core, seed, group["policy"])
            cols["group"].append(gi)
            cols["seed"].append(seed)
            cols["lens"].append(len(game["actions"]))
            cols["result"].append(game["result"])
            cols["scores"].append(game["scores"])
            cols["actions"] += game["actions"]
            cols["hashes"] += game["hashes"]  # setup's hash first, then one per step: lens + 1 per game
            cols["masks"] += game["masks"]
        if progress:
            print(f"[{time.perf_counter() - t0:6.1f}s] {group['name']:<19} {games} games, "
                  f"{sum(cols['lens'][-games:])} steps", flush=True)
    lens = np.array(cols["lens"], dtype=np.int64)
    meta = {
        "format": FORMAT, "hash": HASH_SPEC,
        "policy": "random: np.random.default_rng([seed, 7]).choice(legal ids) per decision; heuristic: "
                  "agents.in_the_cave.heuristic.heuristic_action in every seat",
        "seeds": "100000 * (group index + 1) + game number within the group",
        "layout": "game i: actions[offsets[i]:offsets[i+1]]; hashes and masks[offsets[i] + i:offsets[i+1] + i + 1] "
                  "(setup, then after each step)",
        "games": len(lens), "steps": int(lens.sum()), "groups": groups,
        "numpy": np.__version__, "python": platform.python_version(), "platform": platform.platform(),
        "git_revision": _git("rev-parse", "HEAD"),
        "rules_uncommitted_changes": _git("status", "--porcelain", "--", "subterra_env/games/in_the_cave") != "",
        "recorded_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": "python tests/golden/record_itc.py",
    }
    return {
        "meta": np.array(json.dumps(meta)),
        "group": np.array(cols["group"], dtype=np.int16),
        "seed": np.array(cols["seed"], dtype=np.int64),
        "offsets": np.concatenate([[0], np.cumsum(lens)]).astype(np.int64),
        "result": np.array(cols["result"], dtype=np.int8),
        "scores": np.array(cols["scores"], dtype=np.int32),
        "actions": np.array(cols["actions"], dtype=np.uint8),
        "hashes": np.array(cols["hashes"], dtype=np.uint64),
        "masks": pack_masks(np.array(cols["masks"])),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"fixture path (default {DEFAULT_OUT})")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    data = record()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **data)
    meta = json.loads(str(data["meta"]))
    print(f"wrote {args.out}: {meta['games']} games, {meta['steps']:,} steps, "
          f"{args.out.stat().st_size / 1e6:.2f} MB in {time.perf_counter() - t0:.1f} s (git {meta['git_revision'][:10]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
