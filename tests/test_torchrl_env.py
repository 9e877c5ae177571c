"""The native TorchRL env (issue 20): specs, the vector env's trajectories step for step, masks, autoreset,
seeding at any batch size, refused actions, both reset paths, and the training example at a tiny budget."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torchrl", reason="TorchRL not installed (pip install -e '.[torchrl]')")
import torch  # noqa: E402
from tensordict import TensorDict  # noqa: E402
from torchrl.envs import StepCounter, TransformedEnv  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

import subterra_env  # noqa: E402
from subterra_env.info import INFO_KEYS, batch_info, game_info  # noqa: E402
from subterra_env.torchrl_env import SubterraTorchRLEnv  # noqa: E402
from subterra_env.vector import SubterraVectorEnv  # noqa: E402
from random_play import random_legal_rows  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TINY = subterra_env.preset("tiny")
SMALL_WINDOW = {"obs_radius": 2, "max_cycles": 6}  # short games: several resets and truncations within a test


class SeededPolicy:
    """Uniform legal play from a numpy stream, as a TorchRL policy (sets ``action``)."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def __call__(self, td: TensorDict) -> TensorDict:
        td["action"] = torch.from_numpy(random_legal_rows(td["action_mask"].numpy(), self.rng))
        return td


def test_check_env_specs_and_spec_contents() -> None:
    env = SubterraTorchRLEnv(4, TINY, seed=0, **SMALL_WINDOW)
    check_env_specs(env)
    check_env_specs(env, break_when_any_done="both")
    assert env.batch_size == torch.Size([4])
    assert env.observation_spec["observation"].shape == (4, 34, 5, 5)
    assert env.observation_spec["observation"].dtype == torch.int8
    assert env.observation_spec["action_mask"].dtype == torch.bool
    assert env.action_spec.shape == (4,) and env.action_spec.n == subterra_env.NUM_ACTIONS
    assert set(INFO_KEYS) <= set(env.observation_spec.keys())
    assert set(env.done_keys) == {"done", "terminated", "truncated"}


def test_rollout_equals_the_vector_env_step_for_step() -> None:
    """Same seed, same actions: the root observations, masks, rewards, done flags, the final observations of
    finished games and their infos are the gymnasium VectorEnv's, through several autoresets and truncations."""
    n, steps = 5, 250
    env = SubterraTorchRLEnv(n, TINY, seed=7, **SMALL_WINDOW)
    td = env.rollout(steps, SeededPolicy(3), break_when_any_done=False)
    vec = SubterraVectorEnv(n, TINY, **SMALL_WINDOW)
    obs, info = vec.reset(seed=7)
    rng = np.random.default_rng(3)
    ended = truncations = 0
    for t in range(steps):
        step = td[:, t]
        np.testing.assert_array_equal(step["observation"].numpy(), obs["observation"])
        np.testing.assert_array_equal(step["scalars"].numpy(), obs["scalars"])
        np.testing.assert_array_equal(step["action_mask"].numpy(), info["action_mask"])
        action = random_legal_rows(info["action_mask"], rng)
        np.testing.assert_array_equal(step["action"].numpy(), action)
        obs, reward, term, trunc, info = vec.step(action)
        nxt = step["next"]
        np.testing.assert_array_equal(nxt["reward"].squeeze(-1).numpy(), reward)
        np.testing.assert_array_equal(nxt["terminated"].squeeze(-1).numpy(), term)
        np.testing.assert_array_equal(nxt["truncated"].squeeze(-1).numpy(), trunc)
        np.testing.assert_array_equal(nxt["done"].squeeze(-1).numpy(), term | trunc)
        for slot in range(n):
            if term[slot] or trunc[slot]:
                final = info["final_obs"][slot]
                np.testing.assert_array_equal(nxt["observation"][slot].numpy(), final["observation"])
                np.testing.assert_array_equal(nxt["scalars"][slot].numpy(), final["scalars"])
                assert not nxt["action_mask"][slot].any()  # a finished game has no legal action
                assert {k: int(nxt[k][slot]) for k in INFO_KEYS} == \
                       {k: int(info["final_info"][k][slot]) for k in INFO_KEYS}
            else:
                np.testing.assert_array_equal(nxt["observation"][slot].numpy(), obs["observation"][slot])
        ended += int(term.sum())
        truncations += int(trunc.sum())
    assert ended >= 3 and truncations >= 3  # both kinds of ending were compared


def test_an_action_spec_set_by_the_user_gets_the_masks_from_then_on() -> None:
    """The env sets each step's mask on its action spec directly once ``update_mask`` checked that spec object; a
    spec the user sets in its place is checked and masked in turn (the old one is left as it was)."""
    from torchrl.data import Categorical

    env = SubterraTorchRLEnv(3, TINY, seed=2)
    td = env.reset()
    old = env.action_spec
    env.action_spec = Categorical(env.games.num_actions, shape=(3,), dtype=torch.int64)
    assert env.action_spec.mask is None
    kept = old.mask.clone()
    for _ in range(3):
        td["action"] = env.action_spec.rand() if env.action_spec.mask is not None else \
            td["action_mask"].to(torch.int64).argmax(1)
        _, td = env.step_and_maybe_reset(td)
        assert env.action_spec is not old and torch.equal(env.action_spec.mask, td["action_mask"])
    assert torch.equal(old.mask, kept)


def test_mask_is_the_cores_legal_mask_and_info_is_game_info() -> None:
    env = SubterraTorchRLEnv(6, TINY, seed=1)
    td = env.reset()
    policy = SeededPolicy(0)
    for _ in range(40):
        st = env.games.state
        np.testing.assert_array_equal(td["action_mask"].numpy(), env.games.core.legal_mask(st))
        assert env.action_spec.mask is not None and torch.equal(env.action_spec.mask, td["action_mask"])
        for g in range(6):
            assert {k: int(td[k][g]) for k in INFO_KEYS} == game_info(st, g)
        _, td = env.step_and_maybe_reset(policy(td))
    info = batch_info(env.games.state)
    assert all(v.dtype == np.int64 and v.shape == (6,) for v in info.values())


def test_a_slots_games_do_not_depend_on_the_batch_size() -> None:
    """Slot i plays the games of the stream (seed, i) at any B: slots 0-1 of B = 2 and of B = 5 agree, step for
    step, when each slot's actions come from a stream of its own."""
    trajectories = {}
    for n in (2, 5):
        env = SubterraTorchRLEnv(n, TINY, seed=11, **SMALL_WINDOW)
        td = env.reset()
        rngs = [np.random.default_rng([5, i]) for i in range(n)]
        seen = []
        for _ in range(80):
            mask = td["action_mask"].numpy()
            td["action"] = torch.tensor([random_legal_rows(mask[i:i + 1], rngs[i])[0] for i in range(n)])
            out, td = env.step_and_maybe_reset(td)
            seen.append(out[:2].clone())
        trajectories[n] = torch.stack(seen, 1)
    assert (trajectories[2] == trajectories[5]).all()


def test_same_seed_same_rollout_other_seed_other_games() -> None:
    def run(seed: int) -> TensorDict:
        return SubterraTorchRLEnv(3, TINY, seed=seed).rollout(30, SeededPolicy(0), break_when_any_done=False)

    a, b = run(4), run(4)
    assert (a == b).all()
    assert not torch.equal(run(5)["observation"], a["observation"])


@pytest.mark.parametrize("make_action, needle", [
    (lambda legal: (~legal).to(torch.int64).argmax(1), "is not legal now"),  # an illegal id in every slot
    (lambda legal: torch.tensor([0, 1, 90]), "out of range"),
    (lambda legal: torch.tensor([0.0, 1.0, 2.0]), "float"),
    (lambda legal: torch.tensor([[0, 1], [2, 3], [4, 5]]), "shape"),
])
def test_bad_actions_raise_naming_the_problem_and_change_nothing(make_action, needle: str) -> None:
    env = SubterraTorchRLEnv(3, TINY, seed=2)
    td = env.reset()
    legal = td["action_mask"].clone()
    before = env.games.state.copy()
    td["action"] = make_action(legal)
    with pytest.raises(ValueError, match=needle):
        env.step(td)
    assert env.games.state.equals(before)
    td["action"] = torch.from_numpy(random_legal_rows(legal.numpy(), np.random.default_rng(0)))
    env.step(td)  # the env still plays on


def test_transformed_env_resets_through_torchrls_own_path_identically() -> None:
    """Under a transform, TorchRL resets finished slots with ``reset(td["_reset"])`` and a masked merge (not this
    env's ``maybe_reset``): the data must be the same."""
    plain = SubterraTorchRLEnv(4, TINY, seed=3, **SMALL_WINDOW).rollout(200, SeededPolicy(1),
                                                                          break_when_any_done=False)
    wrapped = TransformedEnv(SubterraTorchRLEnv(4, TINY, seed=3, **SMALL_WINDOW), StepCounter())
    td = wrapped.rollout(200, SeededPolicy(1), break_when_any_done=False)
    assert plain["next", "done"].sum() >= 4
    assert (td.exclude("step_count", ("next", "step_count")) == plain).all()


def test_output_arrays_are_recycled_only_once_nothing_holds_them() -> None:
    """A loop that keeps no step (a collector copying each step away) gets the same few arrays back; a step the
    caller keeps is never written again, whatever the pool hands out after it (its values stay the rollout's)."""
    reference = SubterraTorchRLEnv(4, TINY, seed=3, **SMALL_WINDOW).rollout(150, SeededPolicy(1),
                                                                              break_when_any_done=False)
    assert reference["next", "done"].sum() >= 8  # the copy of the final observations runs, not only the fast path
    for keep_every in (0, 7):
        env = SubterraTorchRLEnv(4, TINY, seed=3, **SMALL_WINDOW)
        td, policy = env.reset(), SeededPolicy(1)
        kept, pointers = {}, set()
        for t in range(150):
            out, td = env.step_and_maybe_reset(policy(td))
            pointers.add(out["next", "observation"].data_ptr())
            if keep_every and t % keep_every == 0:
                kept[t] = out  # held: its root and next observations must never be written again
            del out
        if keep_every:
            assert len(kept) == 22 and all((kept[t] == reference[:, t]).all() for t in kept)
        else:
            assert len(pointers) == 3  # three arrays in turn: the step's own, the finals' copy, the previous one


def test_reset_of_chosen_slots_starts_their_next_games_only() -> None:
    env = SubterraTorchRLEnv(3, TINY, seed=6)
    td = env.reset()
    policy = SeededPolicy(2)
    for _ in range(5):
        _, td = env.step_and_maybe_reset(policy(td))
    steps_before = env.games.state.steps.copy()
    reset = torch.tensor([[False], [True], [False]])
    out = env.reset(td.clone().set("_reset", reset))  # TorchRL keeps the rows not reset from the input
    st = env.games.state
    assert st.steps[1] == 0 and (st.steps[[0, 2]] == steps_before[[0, 2]]).all()
    np.testing.assert_array_equal(out["action_mask"].numpy(), env.games.core.legal_mask(st))
    np.testing.assert_array_equal(out["observation"][[0, 2]].numpy(), td["observation"][[0, 2]].numpy())
    before = env.games.state.copy()
    same = env.reset(out.clone().set("_reset", torch.zeros(3, 1, dtype=torch.bool)))  # nothing asked: no change
    assert env.games.state.equals(before) and (same == out).all()


def test_masked_categorical_samples_legal_actions() -> None:
    from torchrl.modules import MaskedCategorical

    env = SubterraTorchRLEnv(8, TINY, seed=0)
    td = env.reset()
    for _ in range(20):
        dist = MaskedCategorical(logits=torch.zeros(8, subterra_env.NUM_ACTIONS), mask=td["action_mask"])
        td["action"] = dist.sample()
        _, td = env.step_and_maybe_reset(td)  # an illegal action would raise


def test_training_example_runs_at_a_tiny_budget_and_writes_its_files(tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "training.train_torchrl", "--config",
                           str(ROOT / "configs" / "tiny.yaml"), "--run-dir", str(out), "--envs", "8",
                           "--steps-per-batch", "32", "--iterations", "2", "--eval-games", "4"],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for name in ("policy.pt", "curve.png", "curve.json", "eval/results.json"):
        assert (out / name).is_file(), name
    curve = json.loads((out / "curve.json").read_text())
    assert len(curve["iterations"]) == 2 and curve["iterations"][-1]["frames"] == 2 * 8 * 32
    rows = {r["team"]: r for r in json.loads((out / "eval" / "results.json").read_text())["results"]}
    assert set(rows) == {"random", "torchrl:run/policy"}  # evaluate.py played the checkpoint: torchrl:PATH
    assert rows["torchrl:run/policy"]["num_games"] == 4 and rows["torchrl:run/policy"]["illegal"] == 0


def test_torchrl_team_entry_names_a_missing_or_foreign_checkpoint(tmp_path: Path) -> None:
    from training.eval_agents import AgentCache, EvalError, GamesHolder, parse_team

    with pytest.raises(EvalError, match="TorchRL policy not found"):
        parse_team("torchrl:" + str(tmp_path / "missing.pt"))
    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(3)}, foreign)
    with pytest.raises(EvalError, match="not a policy written by training/train_torchrl.py"):
        AgentCache().build(f"torchrl:{foreign}", GamesHolder(subterra_env.Core(TINY)), 0)


def test_the_lean_step_and_maybe_reset_gives_envbases_tensordicts() -> None:
    """``step_and_maybe_reset`` skips EnvBase's generic processing; EnvBase's own path on a twin env (same seed,
    same actions) gives the same keys and values at the root and in ``next``, through autoresets, with a policy's
    extra keys (one nested) carried to the next root as ``step_mdp`` carries them."""
    from torchrl.envs import EnvBase

    lean, generic = (SubterraTorchRLEnv(4, TINY, seed=5, **SMALL_WINDOW) for _ in range(2))
    roots = [lean.reset(), generic.reset()]
    policy = SeededPolicy(2)
    ended = 0
    for t in range(120):
        policy(roots[0])
        for td in roots:
            td["action"] = roots[0]["action"].clone()
            td["logits"] = torch.full((4, 3), float(t))
            td["collector", "step"] = torch.full((4,), t)
        out_lean, root_lean = lean.step_and_maybe_reset(roots[0])
        out_generic, root_generic = EnvBase.step_and_maybe_reset(generic, roots[1])
        for a, b in ((out_lean, out_generic), (root_lean, root_generic)):
            assert set(a.keys(True, True)) == set(b.keys(True, True))
            for key in b.keys(True, True):
                assert torch.equal(a[key], b[key]), key
        np.testing.assert_array_equal(lean.action_spec.mask.numpy(), generic.action_spec.mask.numpy())
        ended += int(out_lean["next", "done"].sum())
        roots = [root_lean, root_generic]
    assert ended == 5 and set(root_lean.keys()) >= {"logits", "collector", "action", "observation"}


def test_what_the_lean_step_cannot_take_goes_envbases_way() -> None:
    env = SubterraTorchRLEnv(2, TINY, seed=0, **SMALL_WINDOW)
    td = env.reset()
    assert env._lean_step(td)
    assert not env._lean_step(td.clone().set("_step", torch.tensor([True, False])))  # a partial step
    assert not env._lean_step(td.clone().set("next", td.clone()))  # preset next values
    assert not env._lean_step(TensorDict(dict(td.items()), batch_size=[2]))  # no device: EnvBase moves it
    env.run_type_checks = True
    assert not env._lean_step(td)
