"""Behaviour cloning warm start for the PPO policy, and seeded games through a vector env.

    demos = collect(venv, make_teacher("heuristic", venv), decisions=20_000, gamma=0.995)
    demos = load_demos("minari:subterra/tiny/heuristic-v0", gamma=0.995)   # or a Minari dataset's decisions
    train_set, held_out = split(demos, holdout=0.1, seed=0)
    history = train_bc(model.policy, train_set, held_out, epochs=4, batch_size=512, lr=1e-3)
    history = train_bc(NativePolicy(actor_critic), train_set, held_out, ...)  # training/ppo.py's network

The teacher (an ``agents`` agent bound to every slot of the vector env) plays whole games; every decision it takes
becomes one (observation, mask, action) sample, plus the discounted team return that followed (to pretrain the
value head, so PPO's first advantages are not noise). The policy learns by masked cross-entropy: illegal actions
get no probability (sb3-contrib masks the logits), so the loss is over the legal actions only. Held-out samples
are whole games the policy never trained on. One implementation serves both trainers: ``train_bc`` and
``evaluate_bc`` call the few methods of an SB3 policy, which ``NativePolicy`` gives ``training/ppo.py``'s network.

``play_games`` plays N seeded games (one per slot, the slot's first game) with any batch policy; the training
script's evaluation and the BC teacher's score use it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
from tqdm.auto import tqdm

Obs = dict[str, np.ndarray]
# advice: agents.advice, when the vector env adds it; state: the native trainer's mappo global state (training/ppo.py)
OBS_KEYS = ("observation", "scalars", "advice", "state")
MEDAL_POINTS = {"defeat": 0, "bronze": 1, "silver": 2, "gold": 3}
RESULTS = ("running", "defeat", "bronze", "silver", "gold")  # subterra_env.info: RESULTS[code + 1]


def result_name(result: int | str | None) -> str:
    """The result of a finished game's info as a name; a game truncated while running counts as a defeat."""
    if result is None:
        return "defeat"
    name = result if isinstance(result, str) else RESULTS[int(result) + 1]
    return "defeat" if name == "running" else name


class FirstLegalAgent:
    """A deterministic teacher for tests: always the lowest legal action id (learnable from the mask alone)."""

    def act(self, observation: Any, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask)[0])

    def act_batch(self, observations: Any, action_masks: np.ndarray, games: np.ndarray | None = None) -> np.ndarray:
        return np.asarray(action_masks, dtype=bool).argmax(axis=1)


TEACHERS = "heuristic, search, search:WORLDS (a positive integer), random or first_legal"


def check_teacher_name(name: str) -> None:
    """ValueError unless ``make_teacher`` knows ``name`` (checked before any work, without building the teacher)."""
    if name in ("heuristic", "search", "random", "first_legal"):
        return
    worlds = name[len("search:"):] if name.startswith("search:") else ""
    if not (worlds.isdigit() and int(worlds) >= 1):
        raise ValueError(f"unknown teacher {name!r}: choose {TEACHERS}")


def make_teacher(name: str, venv: Any, seed: int = 0) -> Any:
    """The teacher agent by name: ``heuristic`` or ``search`` / ``search:WORLDS`` (bound to every slot of ``venv``,
    on the games' own engine threads), ``random``, ``first_legal``."""
    check_teacher_name(name)
    # A teacher on every core beside a trainer given one would crowd it (and numba's OpenMP launches used to leave
    # torch on their thread count too).
    threads = getattr(getattr(getattr(venv, "games", None), "core", None), "threads", None)
    if name == "heuristic":
        from agents.heuristic import HeuristicAgent

        return HeuristicAgent(venv, threads=threads)
    if name == "search" or name.startswith("search:"):  # search:N: N worlds a decision
        from agents.search import SearchAgent

        worlds = int(name.split(":", 1)[1]) if ":" in name else None  # None: the search's default
        return SearchAgent(venv, seed=seed, worlds=worlds, threads=threads)
    if name == "random":
        from agents.random_agent import RandomAgent

        return RandomAgent(seed)
    return FirstLegalAgent()  # the last name check_teacher_name lets through


@dataclass
class Demonstrations:
    """Decisions of a teacher, one row each."""

    obs: Obs  # key -> (N, ...) int8
    masks: np.ndarray  # (N, A) bool
    actions: np.ndarray  # (N,) int64
    returns: np.ndarray  # (N,) float32 discounted team return from this decision on (0 where unknown)
    has_return: np.ndarray  # (N,) bool: the game finished during collection, so the return is known
    game: np.ndarray  # (N,) int64 id of the game the decision belongs to
    finished: list[dict] = field(default_factory=list)  # infos of the games that ended during collection
    gains: np.ndarray | None = None  # (N, A) float32: a search teacher's gain of each action over the heuristic's

    def __len__(self) -> int:
        return len(self.actions)

    def take(self, idx: np.ndarray) -> "Demonstrations":
        return Demonstrations({k: v[idx] for k, v in self.obs.items()}, self.masks[idx], self.actions[idx],
                              self.returns[idx], self.has_return[idx], self.game[idx], self.finished,
                              None if self.gains is None else self.gains[idx])

    def save(self, path: str | Path) -> None:
        """Write to a compressed .npz (``load_demos`` reads it back), so costly teachers (search) label once."""
        np.savez_compressed(path, **{f"obs_{k}": v for k, v in self.obs.items()}, masks=self.masks,
                            actions=self.actions, returns=self.returns, has_return=self.has_return, game=self.game,
                            finished=np.array(json.dumps(self.finished)),
                            **({} if self.gains is None else {"gains": self.gains}))

    @staticmethod
    def concat(parts: "list[Demonstrations]") -> "Demonstrations":
        """Several collections as one; game ids stay distinct (offset per part)."""
        offsets = np.cumsum([0] + [int(p.game.max()) + 1 if len(p) else 0 for p in parts[:-1]])
        keys = set.intersection(*(set(p.obs) for p in parts))
        return Demonstrations({k: np.concatenate([p.obs[k] for p in parts]) for k in sorted(keys)},
                              np.concatenate([p.masks for p in parts]), np.concatenate([p.actions for p in parts]),
                              np.concatenate([p.returns for p in parts]),
                              np.concatenate([p.has_return for p in parts]),
                              np.concatenate([p.game + o for p, o in zip(parts, offsets)]),
                              [f for p in parts for f in p.finished],
                              None if any(p.gains is None for p in parts) else np.concatenate([p.gains for p in parts]))

    @property
    def chance(self) -> float:
        """Accuracy of a uniform legal choice: the mean of 1 / (number of legal actions)."""
        return float(np.mean(1.0 / self.masks.sum(1)))


# A decision's numbers beside its observation and mask: action (8), reward (4), done (1), return (4), known (1),
# game id (8); a search teacher's gains add 4 bytes an action.
_DECISION_BYTES = 26


def memory_available() -> int | None:
    """Bytes the system can still give without swapping (Linux's MemAvailable), or None where it does not say."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def check_memory(obs: Obs, masks: np.ndarray, decisions: int, setting: str = "decisions", copies: int = 2,
                 gains: bool = False) -> int:
    """The bytes ``collect`` fills for ``decisions`` decisions given one step's ``obs`` and ``masks`` (batch axis
    first), times ``copies``: ``split`` copies every decision into a training or a held-out side while the
    collection is still held. Raises MemoryError naming ``setting`` where the system has less available, so a run
    stops before its first decision instead of being killed minutes later; returns the bytes."""
    n = len(masks)
    per = (sum(obs[k].nbytes for k in OBS_KEYS if k in obs) + masks.nbytes) / n + _DECISION_BYTES
    per += 4 * masks.shape[1] if gains else 0
    need = int(per * decisions * copies)
    free = memory_available()
    if free is not None and need > free:
        raise MemoryError(f"{setting}={decisions:,} needs about {need / 2**30:.1f} GiB to collect and split "
                          f"({per / 1024:.1f} KiB a decision, {copies} copies), more than the "
                          f"{free / 2**30:.1f} GiB this machine has available: lower {setting}, or run fewer "
                          "cloning stages at once")
    return need


def collect(venv: Any, teacher: Any, decisions: int, gamma: float = 0.99, progress: bool = False,
            player: Callable[[Obs, np.ndarray], np.ndarray] | None = None,
            setting: str = "decisions") -> Demonstrations:
    """Play ``teacher`` on every slot of ``venv`` (an SB3 VecEnv with ``action_masks()``) for at least
    ``decisions`` decisions; returns them in (step, slot) order. A teacher with ``last_gains`` (the search) also
    leaves each decision's action gains (``Demonstrations.gains``). ``progress``: a progress bar. Before the first
    decision ``check_memory`` refuses a collection this machine cannot hold with its split (MemoryError naming
    ``setting``, the caller's name for ``decisions``).

    ``player(obs, masks) -> actions``: who moves the games instead of the teacher (DAgger: the learner), while the
    teacher's action in each state is still what is recorded; the returns and ``finished`` are then the player's.
    The teacher must decide from the game itself (the heuristic, the search), not from its own past moves."""
    n = venv.num_envs
    steps = -(-decisions // n)
    obs = venv.reset()
    check_memory(obs, venv.action_masks(), steps * n, setting, gains=hasattr(teacher, "last_gains"))
    keys = [k for k in OBS_KEYS if k in obs]
    store = {k: np.empty((steps, *obs[k].shape), dtype=obs[k].dtype) for k in keys}
    masks = np.empty((steps, *venv.action_masks().shape), dtype=bool)
    actions = np.empty((steps, n), dtype=np.int64)
    rewards = np.empty((steps, n), dtype=np.float32)
    dones = np.empty((steps, n), dtype=bool)
    finished: list[dict] = []
    gains = np.full(masks.shape, np.nan, dtype=np.float32) if hasattr(teacher, "last_gains") else None
    bar = tqdm(total=steps * n, unit="decision", disable=not progress)
    for t in range(steps):
        for k in keys:
            store[k][t] = obs[k]
        masks[t] = venv.action_masks()
        actions[t] = teacher.act_batch(None, masks[t])
        if gains is not None:
            gains[t] = teacher.last_gains
        bar.update(n)
        moves = actions[t] if player is None else player(obs, masks[t])
        obs, rewards[t], dones[t], infos = venv.step(moves)
        finished += [info for info in infos if "result" in info]
    bar.close()
    # Discounted returns backward in time, per slot; a game still running at the end has no known return.
    returns = np.zeros((steps, n), dtype=np.float32)
    known = np.zeros((steps, n), dtype=bool)
    game = np.zeros((steps, n), dtype=np.int64)
    running, is_known = np.zeros(n, dtype=np.float32), np.zeros(n, dtype=bool)
    for t in reversed(range(steps)):
        running = rewards[t] + gamma * running * ~dones[t]
        is_known = is_known | dones[t]
        returns[t], known[t] = running, is_known
    game_counter = np.cumsum(np.vstack([np.zeros((1, n), dtype=np.int64), dones[:-1]]), axis=0)
    game[:] = game_counter * n + np.arange(n)  # unique per (slot, k-th game of the slot)
    return Demonstrations({k: v.reshape(steps * n, *v.shape[2:]) for k, v in store.items()},
                          masks.reshape(steps * n, -1), actions.reshape(-1), returns.reshape(-1),
                          known.reshape(-1), game.reshape(-1),
                          [{"result": result_name(f["result"]), "escaped": f.get("escaped", 0)} for f in finished],
                          None if gains is None else gains.reshape(steps * n, -1))


DATASET_PREFIX = "minari:"  # a demonstrations entry naming a Minari dataset: "minari:subterra/tiny/heuristic-v0"


def is_dataset(entry: str | Path) -> bool:
    """Whether a demonstrations entry names a Minari dataset ("minari:ID") rather than an .npz file."""
    return str(entry).startswith(DATASET_PREFIX)


def from_dataset(dataset_id: str, gamma: float = 0.99, only_human: bool = False) -> Demonstrations:
    """Every decision of a Minari dataset (``subterra dataset build`` / ``from-records``, docs/datasets.md) as
    demonstrations: the acting caver's observation, mask and action, and the discounted team return that followed
    (every episode is a whole game, so every return is known). ``only_human``: people's decisions only
    (``infos["human"]``). Needs the ``datasets`` extra."""
    from subterra_game.datasets.store import load

    obs: dict[str, list[np.ndarray]] = {"observation": [], "scalars": []}
    masks, actions, returns, game, finished = [], [], [], [], []
    for episode in load(dataset_id).iterate_episodes():
        keep = np.asarray(episode.infos["human"][:-1], bool) if only_human else np.ones(len(episode), bool)
        rewards = np.asarray(episode.rewards, np.float32)
        ret = np.zeros(len(rewards), np.float32)
        running = np.float32(0.0)
        for t in reversed(range(len(rewards))):
            running = rewards[t] + gamma * running
            ret[t] = running
        for k in obs:
            obs[k].append(episode.observations[k][:-1][keep])
        masks.append(episode.infos["action_mask"][:-1][keep])
        actions.append(np.asarray(episode.actions, np.int64)[keep])
        returns.append(ret[keep])
        game.append(np.full(int(keep.sum()), episode.id, np.int64))
        finished.append({"result": result_name(int(episode.infos["result"][-1])),
                         "escaped": int(episode.infos["escaped"][-1])})
    if not actions or not sum(len(a) for a in actions):
        raise ValueError(f"dataset {dataset_id!r} holds no {'human ' if only_human else ''}decisions")
    n = sum(len(a) for a in actions)
    return Demonstrations({k: np.concatenate(v) for k, v in obs.items()}, np.concatenate(masks).astype(bool),
                          np.concatenate(actions), np.concatenate(returns), np.ones(n, bool), np.concatenate(game),
                          finished)


def load_demos(path: str | Path, gamma: float = 0.99) -> Demonstrations:
    """Demonstrations written by ``Demonstrations.save``, or a Minari dataset named "minari:ID" (``from_dataset``
    with discount ``gamma``); a clear error for a missing or foreign file."""
    if is_dataset(path):
        return from_dataset(str(path)[len(DATASET_PREFIX):], gamma)
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no demonstrations at {path}: expected an .npz written by Demonstrations.save "
                                "(training/train_ppo.py writes RUN/demos.npz with bc.save_demos: true)")
    with np.load(path) as z:
        missing = {"masks", "actions", "returns", "has_return", "game", "finished"} - set(z.files)
        if missing:
            raise ValueError(f"{path} is not a demonstrations file: missing {sorted(missing)}")
        return Demonstrations({k[4:]: z[k] for k in z.files if k.startswith("obs_")}, z["masks"], z["actions"],
                              z["returns"], z["has_return"], z["game"], json.loads(str(z["finished"])),
                              z["gains"] if "gains" in z.files else None)


def split(demos: Demonstrations, holdout: float, seed: int = 0) -> tuple[Demonstrations, Demonstrations]:
    """(train, held-out): whole games go to one side, about ``holdout`` of the games to the held-out side."""
    games = np.unique(demos.game)
    rng = np.random.default_rng(seed)
    held = rng.random(len(games)) < holdout
    if holdout > 0 and not held.any():
        held[rng.integers(len(games))] = True
    is_held = np.isin(demos.game, games[held])
    return demos.take(np.flatnonzero(~is_held)), demos.take(np.flatnonzero(is_held))


def dataset_spaces(dataset_id: str) -> tuple[dict[str, tuple[int, ...]], int]:
    """(the observation shapes by key, the number of actions) of a Minari dataset, from its metadata alone (no
    episode is read), so a trainer can refuse a dataset of another window before any work."""
    from subterra_game.datasets.store import load

    dataset = load(dataset_id)
    return ({k: tuple(space.shape) for k, space in dataset.observation_space.spaces.items()},
            int(dataset.action_space.n))


@dataclass
class MaskedLogits:
    """The masked policy of a batch, shaped as sb3-contrib's distribution where BC reads it (``distribution.logits``,
    ``log_prob``): illegal actions get log-probability -inf."""

    logits: torch.Tensor  # (B, A) log-probabilities over the legal actions
    mask: torch.Tensor  # (B, A) bool

    @property
    def distribution(self) -> MaskedLogits:
        return self

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        return self.logits.gather(1, actions[:, None]).squeeze(1)

    def entropy(self) -> torch.Tensor:
        # the -inf of illegal actions zeroed before the product: 0 x -inf would be NaN
        return -(self.logits.exp() * self.logits.masked_fill(~self.mask, 0.0)).sum(1)


class NativePolicy:
    """The methods of an SB3 policy that ``train_bc`` and ``evaluate_bc`` call, over the native trainer's network
    (``agents.native_policy.ActorCritic``), so both trainers share one behaviour cloning. Observations are the
    demonstrations' int8 arrays: ``observation``, ``scalars`` and, for a mappo critic, ``state`` (the flat global
    state); without ``state`` a mappo network's value is None (clone the actor alone: ``value_coef=0``)."""

    def __init__(self, model: torch.nn.Module):
        self.model = model
        self.device = next(model.parameters()).device

    def parameters(self):
        return self.model.parameters()

    def set_training_mode(self, mode: bool) -> None:
        self.model.train(mode)

    def obs_to_tensor(self, obs: Obs) -> tuple[dict[str, torch.Tensor], bool]:
        return {k: torch.as_tensor(v, device=self.device) for k, v in obs.items()}, True

    def _policy(self, logits: torch.Tensor, action_masks: np.ndarray) -> MaskedLogits:
        from agents.native_policy import masked_log_probs

        mask = torch.as_tensor(action_masks, device=self.device)
        return MaskedLogits(masked_log_probs(logits, mask), mask)

    def get_distribution(self, obs: dict[str, torch.Tensor], action_masks: np.ndarray) -> MaskedLogits:
        return self._policy(self.model.logits(obs["observation"], obs["scalars"]), action_masks)

    def evaluate_actions(self, obs: dict[str, torch.Tensor], actions: torch.Tensor, action_masks: np.ndarray
                         ) -> tuple[torch.Tensor | None, torch.Tensor, torch.Tensor]:
        if self.model.spec.critic == "mappo" and "state" not in obs:
            logits, values = self.model.logits(obs["observation"], obs["scalars"]), None
        else:
            logits, values = self.model(obs["observation"], obs["scalars"], obs.get("state"))
        policy = self._policy(logits, action_masks)
        return values, policy.log_prob(actions), policy.entropy()


def greedy_player(policy: NativePolicy) -> Callable[[Obs, np.ndarray], np.ndarray]:
    """``player`` for ``collect``: the native network's most likely legal action (the evaluation's greedy play)."""

    @torch.no_grad()
    def act(obs: Obs, masks: np.ndarray) -> np.ndarray:
        policy.set_training_mode(False)
        tensors, _ = policy.obs_to_tensor({k: obs[k] for k in ("observation", "scalars")})
        return policy.get_distribution(tensors, masks).logits.argmax(1).cpu().numpy()

    return act


def _batch(policy: Any, demos: Demonstrations, idx: np.ndarray) -> tuple[Any, torch.Tensor, np.ndarray]:
    if set(demos.obs) == {"observation"} and not hasattr(policy.observation_space, "spaces"):
        obs, _ = policy.obs_to_tensor(demos.obs["observation"][idx])  # a Box-observation policy (In the Cave)
    else:
        obs, _ = policy.obs_to_tensor({k: v[idx] for k, v in demos.obs.items()})
    return obs, torch.as_tensor(demos.actions[idx], device=policy.device), demos.masks[idx]


@torch.no_grad()
def evaluate_bc(policy: Any, demos: Demonstrations, batch_size: int = 1024) -> dict[str, float]:
    """Masked cross-entropy, greedy accuracy and chance accuracy of ``policy`` on ``demos``; ``acc_choice`` is
    the accuracy over decisions with two or more legal actions (the ones that are choices)."""
    policy.set_training_mode(False)
    ce_sum, hits = 0.0, np.zeros(len(demos), dtype=bool)
    for start in range(0, len(demos), batch_size):
        idx = np.arange(start, min(start + batch_size, len(demos)))
        obs, actions, masks = _batch(policy, demos, idx)
        dist = policy.get_distribution(obs, action_masks=masks)
        ce_sum += float(-dist.log_prob(actions).sum())
        hits[idx] = dist.distribution.logits.argmax(1).cpu().numpy() == demos.actions[idx]
    choice = demos.masks.sum(1) > 1
    return {"ce": ce_sum / max(len(demos), 1), "acc": float(hits.mean()) if len(demos) else float("nan"),
            "acc_choice": float(hits[choice].mean()) if choice.any() else float("nan"), "chance": demos.chance}


def train_bc(policy: Any, train: Demonstrations, held_out: Demonstrations | None, epochs: int, batch_size: int,
             lr: float, value_coef: float = 0.5, seed: int = 0,
             log: Callable[[int, dict[str, float]], None] | None = None) -> list[dict[str, float]]:
    """Masked cross-entropy on the teacher's actions (extractor + policy head; the value head too when
    ``value_coef`` > 0, on the known returns). Returns one dict of metrics per epoch (epoch 0 = before training);
    ``log(epoch, metrics)`` is called with each."""
    optimizer = torch.optim.Adam(policy.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    history = []

    def report(epoch: int, loss: float | None) -> None:
        metrics = {"loss": loss, **{f"train_{k}": v for k, v in evaluate_bc(policy, train).items()}}
        if held_out is not None and len(held_out):
            metrics.update({f"held_out_{k}": v for k, v in evaluate_bc(policy, held_out).items()})
        history.append(metrics)
        if log is not None:
            log(epoch, metrics)

    report(0, None)
    returns = torch.as_tensor(train.returns, device=policy.device)
    known = torch.as_tensor(train.has_return, device=policy.device)
    for epoch in range(1, epochs + 1):
        policy.set_training_mode(True)
        order, losses = rng.permutation(len(train)), []
        for start in range(0, len(train), batch_size):
            idx = order[start:start + batch_size]
            obs, actions, masks = _batch(policy, train, idx)
            values, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
            loss = -log_prob.mean()
            k = known[idx]
            if value_coef > 0 and bool(k.any()):
                loss = loss + value_coef * ((values.flatten()[k] - returns[idx][k]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            losses.append(loss.item())
        report(epoch, float(np.mean(losses)))
    policy.set_training_mode(False)
    return history


def play_games(venv: Any, act: Callable[[Obs, np.ndarray], np.ndarray], max_steps: int = 1_000_000) -> list[dict]:
    """Play the first game of every slot of ``venv`` (a freshly seeded SB3 VecEnv) with ``act(obs, masks)``;
    returns each slot's final info (``result``: defeat / bronze / silver / gold, ``escaped``, ``round``,
    ``length``: decisions, ``return``: summed team reward), in slot order."""
    n = venv.num_envs
    obs = venv.reset()
    done_info: list[dict | None] = [None] * n
    length, ret = np.zeros(n, dtype=np.int64), np.zeros(n)
    for _ in range(max_steps):
        actions = act(obs, venv.action_masks())
        obs, rewards, dones, infos = venv.step(actions)
        live = np.array([d is None for d in done_info])
        length += live
        ret += rewards * live
        for i in np.flatnonzero(dones & live):
            info = infos[i]
            done_info[i] = {"result": result_name(info.get("result")), "escaped": int(info.get("escaped", 0)),
                            "round": int(info.get("round", 0)), "length": int(length[i]), "return": float(ret[i])}
        if all(d is not None for d in done_info):
            return done_info  # type: ignore[return-value]
    raise RuntimeError(f"games did not finish in {max_steps} steps")


def summarize(games: list[dict]) -> dict[str, float]:
    """Mean cavers escaped, medal score (0..1: defeat 0, bronze 1/3, silver 2/3, gold 1), success (medal) rate
    and the rate of each result, over ``play_games`` results."""
    results = [result_name(g["result"]) for g in games]  # a truncated game scores as a defeat
    out = {"escaped": float(np.mean([g["escaped"] for g in games])),
           "medal_score": float(np.mean([MEDAL_POINTS[r] for r in results])) / 3,
           "success": float(np.mean([r != "defeat" for r in results])),
           "length": float(np.mean([g["length"] for g in games])),
           "return": float(np.mean([g["return"] for g in games]))}
    for name in MEDAL_POINTS:
        out[f"rate_{name}"] = float(np.mean([r == name for r in results]))
    return out
