"""The heuristic decisions fixture (``heuristic_decisions.npz``): load it, replay it, measure agreement with it.

The fixture holds seeded games played by the hand-written Python ``agents.heuristic.HeuristicAgent`` in every seat
(recorded by ``record_heuristic.py`` here; see README.md). A replay rebuilds each settings group's games from their
stored config and seeds, batched through ``subterra_env.games.sub_terra.core.rules.Core``, and plays the RECORDED actions, so every
decision point of the Python heuristic is met again in exactly the same state, whatever the tested agent says.
At each one, a decision function under test is asked for its action and compared with the recorded one::

    from heuristic_fixture import agreement, decide_with       # or loaded by path, as tests/ does
    rates = agreement(decide_with(lambda holder: MyAgent(holder)))
    rates["all"]["rate"]                                       # share of the recorded decisions it matches

``decide(core, state, masks, games) -> (len(games),) int64`` gets the group's Core, the whole batch's State (batch
axis first; read it, never change it), the legal masks of the games that act now (rows in order of ``games``) and
``games``, their indices into the batch. The replay checks itself: every recorded action must be legal in its mask,
every game must end (or be truncated at ``max_cycles`` rounds) exactly when its recorded actions run out, with the
recorded result and escaped count; otherwise :class:`FixtureReplayError` names the group, seed and step.

Fixture layout (``np.load``, no pickles):

* ``meta``: JSON text: ``format``, ``groups`` (each ``name``, ``settings`` (preset name + overrides, as recorded),
  ``config`` (``subterra_env.config.to_dict`` of the full config, as JSON: the replay builds from this one),
  ``games``, ``decisions``, ``escaped_mean``), ``max_cycles``, the seed rule, and where and when it was recorded;
* per game ``g`` (n games): ``group`` int16 (index into meta's groups), ``seed`` int64, ``escaped`` int8 (cavers on
  the exit at the end), ``result`` int8 (``subterra_env.games.sub_terra.core.state``: 0 defeat .. 3 gold, -1 still running when
  truncated), ``truncated`` bool (the game passed ``max_cycles`` rounds: stopped, as training/evaluate.py does),
  ``rounds`` int16;
* ragged actions: ``actions`` int8, game g's decisions in order at ``actions[offsets[g]:offsets[g + 1]]``
  (``offsets`` int64, n + 1 entries);
* ``fallback`` int64: positions in ``actions`` where the Python heuristic's planner raised or proposed an illegal
  action, so that its safe legal fallback (``agents.heuristic._fallback``) was played: those decisions are part of
  "today's behaviour" too, but a port that plans them properly will differ there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from subterra_env.config import SCENARIO_SETTINGS, GameConfig, from_dict, to_dict
from subterra_env.games.sub_terra.core.actions import ACTION_NAMES, NUM_ACTIONS
from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import P_PICK, P_PLACE, P_RUN, P_SURFACE, RUNNING, State
from subterra_env.rewards import escaped

HERE = Path(__file__).resolve().parent
DEFAULT = HERE / "heuristic_decisions.npz"
FORMAT = 1  # bump when the layout changes
MAX_CYCLES = 200  # rounds before a game is truncated (training/evaluate.py's default)

Decide = Callable[[Core, State, np.ndarray, np.ndarray], np.ndarray]
Fixture = Mapping[str, Any]

# decision kinds, for the per-kind agreement: a pending choice of the rules core, else a turn / a directed action
KINDS = ("turn", "directed", "place", "run", "pick", "surface")
_PEND_KIND = {P_PLACE: "place", P_RUN: "run", P_PICK: "pick", P_SURFACE: "surface"}


class FixtureReplayError(AssertionError):
    """The fixture does not replay on today's rules core: a recorded action is illegal, or a game ends at another
    step or with another result than recorded. The rules changed (or the fixture is corrupt): this is not a
    disagreement of the tested agent."""


# ---------------------------------------------------------------------------------------------- loading
def jsonable(x: Any) -> Any:
    """Settings as plain JSON data (tuples become lists, mapping keys strings)."""
    if isinstance(x, Mapping):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return [jsonable(v) for v in x]
    return x


def config_json(cfg: GameConfig) -> dict[str, Any]:
    """Every setting of a config (``to_dict``) as JSON data; ``config_from_json`` inverts it. The scenario
    settings are left out for the base game (the fixture was recorded before they existed; they are unread there)."""
    data = to_dict(cfg)
    if cfg.scenario == "base":
        defaults = to_dict(GameConfig())
        data = {k: v for k, v in data.items() if k not in SCENARIO_SETTINGS or v != defaults[k]}
    return jsonable(data)


def config_from_json(data: Mapping[str, Any]) -> GameConfig:
    return from_dict(data)


def load(path: str | Path | Fixture = DEFAULT) -> dict[str, Any]:
    """The fixture's arrays plus ``meta`` (a dict); a loaded fixture passes through."""
    if isinstance(path, Mapping):
        return dict(path)
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: python tests/golden/record_heuristic.py")
    with np.load(path, allow_pickle=False) as z:
        out = {k: z[k] for k in z.files}
    out["meta"] = json.loads(str(out["meta"]))
    if out["meta"].get("format") != FORMAT:
        raise ValueError(f"{path}: fixture format {out['meta'].get('format')}, this loader reads {FORMAT}")
    return out


def group_names(fx: Fixture) -> list[str]:
    return [g["name"] for g in fx["meta"]["groups"]]


def group_config(fx: Fixture, group: int | str) -> GameConfig:
    """The GameConfig of a recorded group (index or name), from its stored full config."""
    gi = group if isinstance(group, int) else group_names(fx).index(group)
    return config_from_json(fx["meta"]["groups"][gi]["config"])


def game_actions(fx: Fixture, game: int) -> np.ndarray:
    """The recorded action ids of fixture game ``game``, in order."""
    off = fx["offsets"]
    return fx["actions"][off[game]:off[game + 1]].astype(np.int64)


def _group_indices(fx: Fixture, groups: Iterable[str | int] | None) -> list[int]:
    names = group_names(fx)
    if groups is None:
        return list(range(len(names)))
    if isinstance(groups, (str, int)):
        groups = [groups]
    out = []
    for g in groups:
        if isinstance(g, int):
            if not 0 <= g < len(names):
                raise ValueError(f"group index {g} out of range 0..{len(names) - 1}")
            out.append(g)
        elif g in names:
            out.append(names.index(g))
        else:
            raise ValueError(f"unknown group {g!r}; groups: {names}")
    return out


# ---------------------------------------------------------------------------------------------- deciding
class _Holder:
    """What a game-bound agent binds to (``agents.base.game_view``): a Core and the live State."""

    def __init__(self) -> None:
        self.core: Core | None = None
        self.state: State | None = None


def decide_with(agent_factory: Callable[[Any], Any]) -> Decide:
    """A decide function from a game-bound agent: ``agent_factory(holder) -> agent`` (e.g. ``HeuristicAgent``),
    where ``holder`` has ``.core`` and ``.state`` (set to the replay's before every call; a new agent is built
    whenever the Core changes, i.e. once per group), and the agent answers ``act_batch(None, masks, games=games)``."""
    holder = _Holder()
    bound: dict[str, Any] = {"core": None, "agent": None}

    def decide(core: Core, state: State, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        holder.core, holder.state = core, state
        if bound["core"] is not core:
            bound["core"], bound["agent"] = core, agent_factory(holder)
        return np.asarray(bound["agent"].act_batch(None, masks, games=games), dtype=np.int64).reshape(-1)

    return decide


def _kinds(st: State, games: np.ndarray) -> np.ndarray:
    """Decision kind index (into KINDS) of each game's pending decision."""
    pend = st.pend[games]
    out = np.where(st.directing[games] >= 0, KINDS.index("directed"), KINDS.index("turn"))
    for p, name in _PEND_KIND.items():
        out = np.where(pend == p, KINDS.index(name), out)
    return out


def _name(a: int) -> str:
    return f"{a} {ACTION_NAMES[a]!r}" if 0 <= a < NUM_ACTIONS else f"{a} (out of range)"


# ---------------------------------------------------------------------------------------------- replay
def replay_group(fx: Fixture, group: int | str, decide: Decide | None = None, max_games: int | None = None,
                 examples: int = 5) -> dict[str, Any]:
    """Replay one group's games (its first ``max_games``, all when None) as one batch, playing the recorded
    actions; with ``decide``, count its agreement with them. Returns {"agree", "total", "rate", "illegal" (decide's
    actions outside the mask), "games", "by_kind" ({kind: [agree, total]}), "examples" (the first disagreements)}.
    Raises FixtureReplayError when the recording does not replay."""
    gi = _group_indices(fx, [group])[0]
    name = group_names(fx)[gi]
    idx = np.flatnonzero(fx["group"] == gi)
    if max_games is not None:
        idx = idx[:max_games]
    core = Core(group_config(fx, gi))
    max_cycles = int(fx["meta"].get("max_cycles", MAX_CYCLES))
    seeds = fx["seed"][idx]
    off = fx["offsets"]
    start, lens = off[idx], off[idx + 1] - off[idx]
    actions_all = fx["actions"]
    n = len(idx)
    st = core.init(seeds) if n else None
    agree = total = illegal = 0
    by_kind = {k: [0, 0] for k in KINDS}
    shown: list[dict[str, Any]] = []

    def where(g: int, t: int) -> str:
        return f"group {name!r}, game {int(idx[g])} (seed {int(seeds[g])}), step {t}"

    def check_end(games: np.ndarray, t: int) -> None:
        esc = escaped(st)
        for g in games:
            res, want = int(st.result[g]), int(fx["result"][idx[g]])
            if fx["truncated"][idx[g]]:
                if res != RUNNING or int(st.round[g]) <= max_cycles:
                    raise FixtureReplayError(f"{where(g, t)}: recorded as truncated after round {max_cycles}, but "
                                             f"the replay is at round {int(st.round[g])} with result {res}")
            elif res != want:
                raise FixtureReplayError(f"{where(g, t)}: the recorded actions ran out with result {res} "
                                         f"(recorded {want}; -1 = still running)")
            if int(esc[g]) != int(fx["escaped"][idx[g]]):
                raise FixtureReplayError(f"{where(g, t)}: {int(esc[g])} cavers escaped at the end, recorded "
                                         f"{int(fx['escaped'][idx[g]])}")

    done = np.zeros(n, dtype=bool)
    t = 0
    while n:
        live = lens > t
        ending = np.flatnonzero(~live & ~done)
        if len(ending):
            check_end(ending, t)
            done |= ~live
        if not live.any():
            break
        games = np.flatnonzero(live)
        over = games[st.result[games] != RUNNING]
        if len(over):
            g = int(over[0])
            raise FixtureReplayError(f"{where(g, t)}: the game ended (result {int(st.result[g])}) but "
                                     f"{int(lens[g]) - t} recorded action(s) remain")
        mask = core.legal_mask(st)
        rec = actions_all[start[games] + t].astype(np.int64)
        ok = mask[games, rec]
        if not ok.all():
            j = int(np.flatnonzero(~ok)[0])
            g = int(games[j])
            legal = [_name(int(a)) for a in np.flatnonzero(mask[g])]
            raise FixtureReplayError(f"{where(g, t)}: recorded action {_name(int(rec[j]))} is not legal on replay "
                                     f"(round {int(st.round[g])}, seat {int(st.actor[g])}); legal: {legal}")
        if decide is not None:
            kinds = _kinds(st, games)
            got = np.asarray(decide(core, st, mask[games], games))
            if got.shape != games.shape:
                raise ValueError(f"decide returned shape {got.shape} for {len(games)} games")
            got = got.astype(np.int64)
            hit = got == rec
            agree += int(hit.sum())
            total += len(games)
            inr = (got >= 0) & (got < NUM_ACTIONS)
            legal_got = inr.copy()
            legal_got[inr] = mask[games[inr], got[inr]]
            illegal += int((~legal_got).sum())
            for k in range(len(KINDS)):
                sel = kinds == k
                by_kind[KINDS[k]][0] += int(hit[sel].sum())
                by_kind[KINDS[k]][1] += int(sel.sum())
            for j in np.flatnonzero(~hit)[:max(0, examples - len(shown))]:
                g = int(games[j])
                shown.append({"game": int(idx[g]), "seed": int(seeds[g]), "step": t, "round": int(st.round[g]),
                              "seat": int(st.actor[g]), "kind": KINDS[int(kinds[j])],
                              "recorded": _name(int(rec[j])), "got": _name(int(got[j]))})
        acts = np.zeros(n, dtype=np.int64)
        acts[games] = rec
        if (st.result[~live] == RUNNING).any():  # truncated games stay as they were
            sub = st.take(games)
            core.step(sub, acts[games])
            st.put(games, sub)
        else:
            core.step(st, acts)
        t += 1
    return {"agree": agree, "total": total, "rate": agree / total if total else float("nan"), "illegal": illegal,
            "games": n, "by_kind": {k: v for k, v in by_kind.items() if v[1]}, "examples": shown}


def agreement(decide: Decide | None, path: str | Path | Fixture = DEFAULT, groups: Iterable[str] | None = None,
              max_games: int | None = None) -> dict[str, dict[str, Any]]:
    """Replay the fixture (``groups``: names, all when None; the first ``max_games`` games of each, all when None)
    and count how often ``decide(core, state, masks, games)`` picks the recorded action.

    Returns {group name: {"agree", "total", "rate", ...}} (see :func:`replay_group` for the extra keys) plus
    "all" (summed over the groups). ``decide=None`` only checks that the recording replays (totals are 0).
    Raises FixtureReplayError when it does not."""
    fx = load(path)
    out: dict[str, dict[str, Any]] = {}
    for gi in _group_indices(fx, groups):
        out[group_names(fx)[gi]] = replay_group(fx, gi, decide, max_games)
    agree = sum(r["agree"] for r in out.values())
    total = sum(r["total"] for r in out.values())
    by_kind: dict[str, list[int]] = {}
    for r in out.values():
        for k, (a, n) in r["by_kind"].items():
            by_kind.setdefault(k, [0, 0])
            by_kind[k][0] += a
            by_kind[k][1] += n
    out["all"] = {"agree": agree, "total": total, "rate": agree / total if total else float("nan"),
                  "illegal": sum(r["illegal"] for r in out.values()), "games": sum(r["games"] for r in out.values()),
                  "by_kind": by_kind, "examples": [e for r in out.values() for e in r["examples"]][:10]}
    return out


def verify(path: str | Path | Fixture = DEFAULT, groups: Iterable[str] | None = None,
           max_games: int | None = None) -> int:
    """Check that the recording replays on today's core (``agreement(None, ...)``); the games checked."""
    return agreement(None, path, groups, max_games)["all"]["games"]


def recorded_strength(path: str | Path | Fixture = DEFAULT) -> dict[str, float]:
    """{group name: mean cavers escaped per game} of the recorded Python heuristic (truncated games included, as
    they ended)."""
    fx = load(path)
    return {name: float(fx["escaped"][fx["group"] == gi].mean()) for gi, name in enumerate(group_names(fx))}


def format_agreement(rates: Mapping[str, Mapping[str, Any]]) -> str:
    """A plain-text table of :func:`agreement`'s result."""
    lines = [f"{'group':<12} {'agree':>9} {'total':>9} {'rate':>8} {'illegal':>7}"]
    for name, r in rates.items():
        lines.append(f"{name:<12} {r['agree']:>9} {r['total']:>9} {r['rate']:>8.2%} {r.get('illegal', 0):>7}")
    return "\n".join(lines)


# The weights the Python heuristic played with when the fixture was recorded. Those retuned since (2026-11-27,
# docs/training.md "The heuristic's weights") are set back here, so the compiled team must make the recorded
# decisions: ``HeuristicAgent(holder, **RECORDED_WEIGHTS)``.
RECORDED_WEIGHTS = {"time_w": 1.0, "heal_at_1": 1.0, "hide": 1.0}


def main() -> None:
    """Measure the compiled heuristic team (agents.HeuristicAgent, on the recording's weights) against the whole
    fixture."""
    import time

    from agents import HeuristicAgent

    start = time.perf_counter()
    rates = agreement(decide_with(lambda holder: HeuristicAgent(holder, **RECORDED_WEIGHTS)))
    print(format_agreement(rates))
    print(f"{rates['all']['games']} games replayed in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
