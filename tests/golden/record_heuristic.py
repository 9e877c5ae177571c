"""Record the Python heuristic team's decisions: the reference a compiled port of it is measured against.

    PYTHONPATH=<checkout> python tests/golden/record_heuristic.py [--scale 1.0] [--out tests/golden/heuristic_decisions.npz]

Plays seeded games with ``agents.heuristic.HeuristicAgent`` (as importable: set PYTHONPATH to the checkout whose
heuristic is the reference) in every seat, over settings groups: the learnable presets tiny, small, medium and
full with 4 cavers, the full game with 5 and 6 cavers, and fixed line-ups (``cavers``) that between them hold
every caver at least twice. Each group's games run as one batch through ``subterra_env.games.sub_terra.core.rules.Core``, with one
HeuristicAgent bound to the batch answering ``act_batch(None, masks, games=idx)`` for the running games, as
training/evaluate.py does; a game still running after ``max_cycles`` (200) rounds is stopped (truncated). Game
seeds: ``100000 * (group index + 1) + k``.

Stored (``heuristic_fixture.py`` reads and replays it; layout in its docstring): per group its settings and full
config as JSON, per game its seed, action ids in order (int8, packed with offsets), escaped count, result,
truncation and rounds, and the positions where the heuristic fell back to its safe action. A per-group summary is
printed and written to ``heuristic_decisions.md``. After recording, the first ``--check-games`` games of every
group are replayed with a fresh HeuristicAgent in a smaller batch: the decisions must agree 100%.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "heuristic_decisions.npz"
MAX_CYCLES = 200

# (name, settings: a preset name plus overrides, games). Line-ups are seated by rank (seat_order "rank").
GROUPS: tuple[tuple[str, dict[str, Any], int], ...] = (
    ("tiny", {"preset": "tiny"}, 400),
    ("small", {"preset": "small"}, 400),
    ("medium", {"preset": "medium"}, 400),
    ("full", {"preset": "full"}, 500),
    ("full-5", {"preset": "full", "num_cavers": 5}, 300),
    ("full-6", {"preset": "full", "num_cavers": 6}, 300),
    ("lineup-a", {"preset": "full", "cavers": ["diver", "scout", "geologist", "engineer"]}, 150),
    ("lineup-b", {"preset": "full", "cavers": ["climber", "medic", "bodyguard", "leader"]}, 150),
    ("lineup-c", {"preset": "full", "num_cavers": 5,
                  "cavers": ["diver", "scout", "engineer", "medic", "bodyguard"]}, 150),
    ("lineup-d", {"preset": "full", "num_cavers": 6,
                  "cavers": ["diver", "scout", "geologist", "climber", "medic", "leader"]}, 150),
)


def load_fixture_module() -> ModuleType:
    """heuristic_fixture.py beside this file, by path (tests/ is not a package), as tests/ loads it."""
    name = "golden_heuristic_fixture"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "heuristic_fixture.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def group_config(settings: dict[str, Any]):
    from subterra_env.config import preset

    s = dict(settings)
    return preset(s.pop("preset"), **s)


def game_seed(group_index: int, k: int) -> int:
    return 100_000 * (group_index + 1) + k


def _git(cwd: Path, *args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


class _Holder:
    def __init__(self, core) -> None:
        self.core = core
        self.state = None


def _watch_fallbacks(agent: Any) -> set[int]:
    """Note the games whose decision fell back to ``_fallback`` (the planner raised, or proposed an illegal
    action, or the Board could not be built): wraps the agent's ``_decide`` / ``_choose`` without changing them."""
    hit: set[int] = set()
    orig_decide, orig_choose = agent._decide, agent._choose
    flag = {"called": False, "bad": False}

    def choose(b, mask):
        flag["called"] = True
        try:
            a = orig_choose(b, mask)
        except Exception:
            flag["bad"] = True
            raise
        if not (0 <= a < len(mask) and mask[a]):
            flag["bad"] = True
        return a

    def decide(g, mask):
        flag["called"] = flag["bad"] = False
        a = orig_decide(g, mask)
        if flag["bad"] or not flag["called"]:
            hit.add(int(g))
        return a

    agent._choose, agent._decide = choose, decide
    return hit


def play_group(cfg, seeds: np.ndarray, max_cycles: int) -> dict[str, Any]:
    """Play the games of one group as one batch; per game its actions (in order) and end, and the fallbacks."""
    from agents.heuristic import HeuristicAgent
    from subterra_env.games.sub_terra.core.rules import Core
    from subterra_env.games.sub_terra.core.state import RUNNING
    from subterra_env.rewards import escaped

    core = Core(cfg)
    holder = _Holder(core)
    st = holder.state = core.init(seeds)
    agent = HeuristicAgent(holder)
    fell = _watch_fallbacks(agent)
    n = len(seeds)
    stopped = np.zeros(n, dtype=bool)
    step_games, step_actions, step_fallback = [], [], []
    while True:
        live = (st.result == RUNNING) & ~stopped
        if not live.any():
            break
        mask = core.legal_mask(st)
        idx = np.flatnonzero(live)
        fell.clear()
        a = np.asarray(agent.act_batch(None, mask[idx], games=idx), dtype=np.int64)
        if not mask[idx, a].all():
            raise RuntimeError("the heuristic played an illegal action")
        step_games.append(idx)
        step_actions.append(a)
        step_fallback.append(np.isin(idx, list(fell)) if fell else np.zeros(len(idx), dtype=bool))
        actions = np.zeros(n, dtype=np.int64)
        actions[idx] = a
        if stopped.any():  # step only the running games that are not stopped
            keep = np.flatnonzero((st.result == RUNNING) & ~stopped)
            sub = st.take(keep)
            core.step(sub, actions[keep])
            st.put(keep, sub)
        else:
            core.step(st, actions)
        stopped |= (st.result == RUNNING) & ~stopped & (st.round > max_cycles)
    games = np.concatenate(step_games)
    order = np.argsort(games, kind="stable")  # per game, in step order
    lens = np.bincount(games, minlength=n)
    return {"actions": np.concatenate(step_actions)[order], "fallback": np.concatenate(step_fallback)[order],
            "lens": lens, "escaped": escaped(st), "result": st.result.copy(), "truncated": stopped.copy(),
            "rounds": st.round.copy()}


def record(scale: float = 1.0, names: list[str] | None = None, progress: bool = True) -> dict[str, Any]:
    import agents
    from subterra_env.games.sub_terra.core.actions import NUM_ACTIONS

    hf = load_fixture_module()
    assert NUM_ACTIONS <= 127, "actions are stored as int8"
    chosen = [g for g in GROUPS if names is None or g[0] in names]
    if names is not None and len(chosen) != len(set(names)):
        raise SystemExit(f"unknown group(s) in {names}; groups: {[g[0] for g in GROUPS]}")
    groups, g_idx, seeds, lens, esc, res, trunc, rounds, actions, fallback = ([] for _ in range(10))
    t0 = time.perf_counter()
    for gi, (name, settings, count) in enumerate(chosen):
        cfg = group_config(settings)
        conf = hf.config_json(cfg)
        back = hf.config_from_json(json.loads(json.dumps(conf)))
        assert back == cfg, f"group {name}: the config does not round-trip through JSON"
        n = max(1, round(count * scale))
        s = np.array([game_seed(gi, k) for k in range(n)], dtype=np.int64)
        t1 = time.perf_counter()
        out = play_group(cfg, s, MAX_CYCLES)
        secs = time.perf_counter() - t1
        base = sum(len(a) for a in actions)
        fallback.append(base + np.flatnonzero(out["fallback"]))
        actions.append(out["actions"].astype(np.int8))
        g_idx += [gi] * n
        seeds.append(s)
        lens.append(out["lens"])
        esc.append(out["escaped"])
        res.append(out["result"])
        trunc.append(out["truncated"])
        rounds.append(out["rounds"])
        dec = int(out["lens"].sum())
        counts = {r: int((out["result"] == i).sum()) for i, r in enumerate(("defeat", "bronze", "silver", "gold"))}
        groups.append({"name": name, "settings": settings, "config": conf, "games": n, "decisions": dec,
                       "escaped_mean": float(out["escaped"].mean()), "results": counts,
                       "truncated": int(out["truncated"].sum()), "fallbacks": int(out["fallback"].sum()),
                       "rounds_mean": float(out["rounds"].mean()), "seconds": round(secs, 1)})
        if progress:
            print(f"[{time.perf_counter() - t0:6.1f}s] {name:<9} {n:>4} games {dec:>7} decisions "
                  f"({dec / max(secs, 1e-9):,.0f}/s)  escaped {out['escaped'].mean():.2f}  "
                  f"truncated {int(out['truncated'].sum())}  fallbacks {int(out['fallback'].sum())}", flush=True)
    lens_all = np.concatenate(lens)
    offsets = np.concatenate([[0], np.cumsum(lens_all)]).astype(np.int64)
    src = Path(agents.__file__).resolve().parents[1]
    meta = {
        "format": hf.FORMAT,
        "policy": "agents.heuristic.HeuristicAgent in every seat (one agent bound to each group's batch, "
                  "act_batch(None, masks, games=running games)); strict=False: planning errors fall back",
        "seeds": "100000 * (group index + 1) + game number within the group",
        "max_cycles": MAX_CYCLES,
        "groups": groups,
        "games": int(len(lens_all)),
        "decisions": int(offsets[-1]),
        "heuristic_source": str(src),
        "git_revision": _git(src, "rev-parse", "HEAD"),
        "uncommitted_changes": _git(src, "status", "--porcelain", "--", "agents", "subterra_env") != "",
        "numpy": np.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "recorded_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "record_seconds": round(time.perf_counter() - t0, 1),
        "command": "python tests/golden/record_heuristic.py" + (f" --scale {scale}" if scale != 1.0 else "")
                   + (f" --groups {' '.join(names)}" if names else ""),
    }
    return {
        "meta": np.array(json.dumps(meta)),
        "group": np.array(g_idx, dtype=np.int16),
        "seed": np.concatenate(seeds).astype(np.int64),
        "offsets": offsets,
        "actions": np.concatenate(actions).astype(np.int8),
        "escaped": np.concatenate(esc).astype(np.int8),
        "result": np.concatenate(res).astype(np.int8),
        "truncated": np.concatenate(trunc).astype(bool),
        "rounds": np.concatenate(rounds).astype(np.int16),
        "fallback": np.concatenate(fallback).astype(np.int64),
    }


def summary_markdown(meta: dict[str, Any], size: int, check: dict[str, Any] | None) -> str:
    rows = ["| group | settings | games | decisions | decisions/game | mean escaped | gold / silver / bronze / "
            "defeat | truncated | fallbacks | seconds |", "|---|---|---:|---:|---:|---:|---|---:|---:|---:|"]
    for g in meta["groups"]:
        s = ", ".join(f"{k}={'+'.join(v) if isinstance(v, list) else v}" for k, v in g["settings"].items())
        r = g["results"]
        rows.append(f"| {g['name']} | {s} | {g['games']} | {g['decisions']:,} | {g['decisions'] / g['games']:.0f} | "
                    f"{g['escaped_mean']:.2f} | {r['gold']} / {r['silver']} / {r['bronze']} / {r['defeat']} | "
                    f"{g['truncated']} | {g['fallbacks']} | {g['seconds']} |")
    games, dec = meta["games"], meta["decisions"]
    esc = sum(g["escaped_mean"] * g["games"] for g in meta["groups"]) / games
    rows.append(f"| **all** | | {games} | {dec:,} | {dec / games:.0f} | {esc:.2f} | | "
                f"{sum(g['truncated'] for g in meta['groups'])} | {sum(g['fallbacks'] for g in meta['groups'])} | "
                f"{meta['record_seconds']} |")
    text = [
        "# Heuristic decisions fixture",
        "",
        "`heuristic_decisions.npz`: seeded games played by the Python `agents.heuristic.HeuristicAgent` in every "
        "seat, recorded by `record_heuristic.py` (layout and replay: `heuristic_fixture.py`). Mean escaped: cavers "
        f"on the exit at the end. Truncated: still running after {meta['max_cycles']} rounds (stopped). Fallbacks: "
        "decisions where the heuristic's planner failed and its safe legal fallback was played.",
        "",
        *rows,
        "",
        f"- heuristic: `{meta['heuristic_source']}` at git {meta['git_revision'][:12]}"
        + (" (with uncommitted changes)" if meta["uncommitted_changes"] else " (clean)"),
        f"- recorded {meta['recorded_utc']} in {meta['record_seconds']} s ({dec / meta['record_seconds']:,.0f} "
        f"decisions/s, numpy {meta['numpy']}, python {meta['python']}); fixture {size / 1e6:.2f} MB",
        f"- seeds: {meta['seeds']}",
        f"- command: `{meta['command']}`",
    ]
    if check is not None:
        text.append(f"- self-check: the first {check['per_group']} games of every group replayed with a fresh "
                    f"HeuristicAgent: {check['agree']}/{check['total']} decisions agree")
    return "\n".join(text) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=float, default=1.0, help="multiply every group's game count (1.0)")
    p.add_argument("--groups", nargs="*", default=None, help="record only these groups (default: all)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"fixture path (default {DEFAULT_OUT})")
    p.add_argument("--check-games", type=int, default=5, help="games per group replayed as a self-check (5; 0: off)")
    args = p.parse_args(argv)
    if args.scale <= 0:
        p.error("--scale must be > 0")
    import agents

    print(f"heuristic from {Path(agents.__file__).resolve().parent}", flush=True)
    data = record(args.scale, args.groups)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **data)
    meta = json.loads(str(data["meta"]))
    size = args.out.stat().st_size
    check = None
    if args.check_games > 0:
        from agents.heuristic import HeuristicAgent

        hf = load_fixture_module()
        t = time.perf_counter()
        rates = hf.agreement(hf.decide_with(HeuristicAgent), args.out, max_games=args.check_games)
        check = {"per_group": args.check_games, "agree": rates["all"]["agree"], "total": rates["all"]["total"]}
        print(f"self-check ({time.perf_counter() - t:.1f} s): {check['agree']}/{check['total']} decisions agree",
              flush=True)
    md = summary_markdown(meta, size, check)
    args.out.with_suffix(".md").write_text(md)
    print(md)
    print(f"wrote {args.out} ({size / 1e6:.2f} MB) and {args.out.with_suffix('.md')}")
    if check is not None and check["agree"] != check["total"]:
        print("self-check FAILED: the heuristic's decisions depend on the batch", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
