"""Fit the gain head (``agents.gain_head``) to the search's gains: a learning curve judged on other games, and the
team it makes.

    python -m training.distil_probe --train runs/distil-small/labels-11.npz runs/distil-small/labels-12.npz \\
        --test runs/distil-small/labels-13.npz --fractions 0.25 0.5 1 --out runs/distil-small/probe \\
        --team runs/distil-small/team.zip --rate 0.05

``distil.py fit`` trains the shipped residual network on the search's per-action gains; on 115,200 full-game
decisions its departures from the heuristic lost on held-out games. This script fits a far smaller, action-centric
model instead (the gain head: what each action points at, not the whole window), an ensemble of ``--members``
fits, with a growing share of the training files, and judges each on **independent** label files (other games,
other seeds). There, for each share q (``--rates``), the policy "in the q of the decisions where the head's best
alternative has the largest predicted gain, take it; elsewhere the heuristic's choice" is scored by the mean label
over its departures: an unbiased estimate of their true gain over the heuristic (the test labels' noise is
independent of the choice). A gain that rises with the training share says more labels would pay.

``--team`` writes the residual policy of ``--init`` (the shipped team) with the last (largest) fit as its gain
head, departing where the head predicts more than the ``--rate`` share's least predicted gain on the test files.
``--threshold`` sets the threshold instead; either way the rule is also scored on each test file alone (a head fitted
on several caves must pay on each). Its strength is then measured in real games with ``training/evaluate.py`` and
``training/compare.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from agents.gain_head import GainHead
from training import bc
from training.distil import searched

REPO = Path(__file__).resolve().parents[1]

CHUNK = 1024  # decisions per forward pass when predicting


def _tensors(demos: bc.Demonstrations, idx: np.ndarray):
    import torch

    return (torch.as_tensor(demos.obs["observation"][idx]), torch.as_tensor(demos.obs["scalars"][idx]),
            torch.as_tensor(demos.obs["advice"][idx].argmax(axis=1)))


def alternatives(demos: bc.Demonstrations) -> np.ndarray:
    """(D, A) bool: the actions the search valued other than the heuristic's choice (the head's training rows)."""
    known = ~np.isnan(demos.gains)
    known[np.arange(len(demos)), demos.obs["advice"].argmax(axis=1)] = False
    return known


def fit_head(demos: bc.Demonstrations, hidden: int = 64, members: int = 5, epochs: int = 8, clip: float = 0.3,
             seed: int = 0, batch: int = 512) -> GainHead:
    """Each member fitted on its own seed, over the (decision, alternative) pairs: squared error on gains clipped
    to +-clip cavers (the mean gain decides; the gains are skewed, mean -0.10 and median -0.04 on the small cave)."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)  # the members' first weights: a fit depends on its seed alone
    head = GainHead(channels=demos.obs["observation"].shape[1], scalars=demos.obs["scalars"].shape[1],
                    num_actions=demos.masks.shape[1], hidden=hidden, members=members)
    with torch.no_grad():
        parts = [head.decision_inputs(*_tensors(demos, np.arange(s, min(s + CHUNK, len(demos)))))
                 for s in range(0, len(demos), CHUNK)]
    common, neighbours = torch.cat([c for c, _ in parts]), torch.cat([n for _, n in parts])
    rows, actions = (torch.as_tensor(v) for v in np.nonzero(alternatives(demos)))
    target = torch.as_tensor(np.clip(demos.gains[rows.numpy(), actions.numpy()], -clip, clip))
    for i, member in enumerate(head.members):
        torch.manual_seed(seed + i)
        opt = torch.optim.Adam(member.parameters(), lr=1e-3, weight_decay=1e-4)
        rng = np.random.default_rng(seed + i)
        for _ in range(epochs):
            order = torch.as_tensor(rng.permutation(len(rows)))
            for start in range(0, len(order), batch):
                b = order[start:start + batch]
                pointed = head._pointed(neighbours, rows[b], actions[b])
                loss = ((member(common[rows[b]], pointed, actions[b]) - target[b]) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
    head.eval()
    return head


def predict(head: GainHead, demos: bc.Demonstrations) -> np.ndarray:
    """(D, A) predicted gains (the members' mean)."""
    import torch

    with torch.no_grad():
        return np.concatenate([head(*_tensors(demos, np.arange(s, min(s + CHUNK, len(demos))))).numpy()
                               for s in range(0, len(demos), CHUNK)])


def _best_alternatives(rows: np.ndarray, predicted: np.ndarray, labels: np.ndarray,
                       decisions: int) -> tuple[np.ndarray, np.ndarray]:
    """Per decision, the predicted gain of its best alternative and that alternative's test label (one entry per
    (decision ``rows``, alternative); ties are vanishingly rare: the last wins)."""
    best = np.full(decisions, -np.inf)
    np.maximum.at(best, rows, predicted)
    top = predicted >= best[rows]
    label = np.zeros(decisions)
    label[rows[top]] = labels[top]
    return best, label


def _score(departed: np.ndarray, label: np.ndarray) -> dict:
    """The labels' mean over the departures (per departure, an unbiased estimate of their true gain: the test
    labels' noise is independent of the choice) and per decision, with 95% intervals."""
    k, gain = int(departed.sum()), np.where(departed, label, 0.0)
    return {"gain": float(gain.mean()), "gain_ci95": float(1.96 * gain.std(ddof=1) / np.sqrt(len(label))),
            "per_departure": float(label[departed].mean()) if k else 0.0,
            "per_departure_ci95": float(1.96 * label[departed].std(ddof=1) / np.sqrt(k)) if k > 1 else 0.0}


def departures(rows: np.ndarray, predicted: np.ndarray, labels: np.ndarray, decisions: int, rate: float) -> dict:
    """Score the policy 'in the ``rate`` share of decisions where the model's best alternative has the largest
    predicted gain, take that alternative; elsewhere the heuristic's choice' by the test labels. A share rather
    than a threshold keeps fits comparable whatever the offset of their predictions; ``least_predicted`` is the
    threshold it amounts to."""
    best, label = _best_alternatives(rows, predicted, labels, decisions)
    departed = np.zeros(decisions, dtype=bool)
    departed[np.argsort(-best, kind="stable")[:max(1, int(round(rate * decisions)))]] = True
    return {"rate": rate, "least_predicted": float(best[departed].min()), **_score(departed, label)}


def at_threshold(rows: np.ndarray, predicted: np.ndarray, labels: np.ndarray, decisions: int,
                 threshold: float) -> dict:
    """Score the team's own rule: depart wherever the best alternative's predicted gain exceeds ``threshold``."""
    best, label = _best_alternatives(rows, predicted, labels, decisions)
    departed = best > threshold
    return {"threshold": threshold, "departing": float(departed.mean()), **_score(departed, label)}


def _pairs(head: GainHead, test: bc.Demonstrations) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows, actions = np.nonzero(alternatives(test))
    return rows, predict(head, test)[rows, actions], test.gains[rows, actions]


def judge(head: GainHead, test: bc.Demonstrations, rates: list[float], clip: float = 0.3) -> dict:
    rows, pred, labels = _pairs(head, test)
    return {"corr": float(np.corrcoef(pred, np.clip(labels, -clip, clip))[0, 1]),
            "rates": [departures(rows, pred, labels, len(test), r) for r in rates]}


def curve(train: bc.Demonstrations, test: bc.Demonstrations, fractions: list[float], rates: list[float],
          **fit: float) -> tuple[list[dict], GainHead]:
    """One fit per fraction of the training decisions (whole games, nested: each share holds the smaller ones),
    each judged on ``test``; returns the results and the last (largest) fit."""
    games = np.random.default_rng(int(fit.get("seed", 0))).permutation(np.unique(train.game))
    out = []
    for f in fractions:
        part = train.take(np.flatnonzero(np.isin(train.game, games[:max(1, round(f * len(games)))])))
        head = fit_head(part, **fit)  # type: ignore[arg-type]
        out.append({"fraction": f, "train_decisions": len(part), **judge(head, test, rates)})
        print(json.dumps(out[-1]), flush=True)
    return out, head


def write(results: list[dict], out: Path, argv: list[str], extra: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "probe.json").write_text(json.dumps({"argv": argv, "curve": results, **extra}, indent=1))
    lines = ["Gain over the heuristic per departure (cavers, 95% CI), departing in the given share of the test "
             "decisions where the head predicts most:", "",
             "| training decisions | corr | " + " | ".join(f"departing in {t['rate']:.0%}" for t in results[0]["rates"])
             + " |", "|---:|---:|" + "---:|" * len(results[0]["rates"])]
    for r in results:
        lines.append(f"| {r['train_decisions']:,} | {r['corr']:.3f} | " + " | ".join(
            f"{t['per_departure']:+.4f} ± {t['per_departure_ci95']:.4f}" for t in r["rates"]) + " |")
    if extra.get("per_test_file"):
        lines += ["", f"The team's rule (depart where the head predicts more than "
                      f"{next(iter(extra['per_test_file'].values()))['threshold']:+.4f} caver), on each test file:", "",
                  "| test file | departing in | gain per departure | gain per decision |", "|---|---:|---:|---:|"]
        for f, r in extra["per_test_file"].items():
            lines.append(f"| {f} | {r['departing']:.2%} | {r['per_departure']:+.4f} ± {r['per_departure_ci95']:.4f} "
                         f"| {r['gain']:+.5f} ± {r['gain_ci95']:.5f} |")
    (out / "probe.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    x = [r["train_decisions"] for r in results]
    for i, t in enumerate(results[0]["rates"]):
        ax.errorbar(x, [r["rates"][i]["per_departure"] for r in results],
                    yerr=[r["rates"][i]["per_departure_ci95"] for r in results], marker="o", capsize=3,
                    label=f"departing in {t['rate']:.0%} of decisions")
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("training decisions (search labels)")
    ax.set_ylabel("gain per departure on test games\n(cavers, 95% CI)")
    ax.set_title("The gain head: does more data help?")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "probe.png", dpi=120)
    plt.close(fig)


def write_team(init: str, head: GainHead, threshold: float, out: str) -> None:
    """The residual policy of ``init`` with ``head`` as its gain head (departing above ``threshold``); a head that
    ``init`` carries is replaced."""
    from agents.policy_agent import load_maskable_ppo

    model = load_maskable_ppo(init, "training/train_ppo.py", torch_threads=1)
    head.threshold.fill_(threshold)
    kwargs = {**model.policy_kwargs, "gain_head": head.config}
    policy = model.policy_class(model.observation_space, model.action_space, model.lr_schedule, **kwargs)
    own = {k: v for k, v in model.policy.state_dict().items() if not k.startswith("gain_head.")}  # init's head goes
    missing, unexpected = policy.load_state_dict(own, strict=False)
    if unexpected or any(not k.startswith("gain_head.") for k in missing):
        raise SystemExit(f"{init}: its weights do not fit an advised policy ({unexpected or missing})")
    policy.gain_head.load_state_dict(head.state_dict())
    model.policy, model.policy_kwargs = policy, kwargs
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    print(f"the team with its gain head (threshold {threshold:+.4f} cavers) -> {out}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--train", nargs="+", required=True, help="label files (distil.py label) to learn from")
    p.add_argument("--test", nargs="+", required=True, help="label files of other games, to judge on")
    p.add_argument("--fractions", type=float, nargs="+", default=[0.25, 0.5, 1.0],
                   help="shares of the training games, one fit each")
    p.add_argument("--rates", type=float, nargs="+", default=[0.01, 0.05, 0.2],
                   help="shares of the test decisions to depart in (where the head predicts the most gain)")
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--members", type=int, default=5, help="fits averaged (each its own seed)")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--clip", type=float, default=0.3, help="training gains clipped to +-this many cavers")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs/distil/probe", help="folder for probe.json, probe.md, probe.png")
    p.add_argument("--team", metavar="ZIP", help="also write the team: --init with the largest fit as gain head")
    p.add_argument("--init", default=str(REPO / "agents" / "shipped" / "team.zip"), help="the team's residual policy")
    p.add_argument("--rate", type=float, default=0.05, help="the team departs in this share of the test decisions")
    p.add_argument("--threshold", type=float, help="the team's threshold in cavers (instead of --rate's)")
    a = p.parse_args(argv)
    for name in ("fractions", "rates"):
        if not all(0 < f <= 1 for f in getattr(a, name)):
            p.error(f"--{name} must lie in (0, 1], got {getattr(a, name)}")
    if not 0 < a.rate <= 1:
        p.error(f"--rate must lie in (0, 1], got {a.rate}")
    if a.threshold is not None and not np.isfinite(a.threshold):
        p.error(f"--threshold must be a finite number of cavers, got {a.threshold}")
    if a.hidden < 1 or a.members < 1 or a.epochs < 1 or not a.clip > 0:
        p.error(f"--hidden, --members and --epochs must be at least 1 and --clip above 0, got {a.hidden}, "
                f"{a.members}, {a.epochs}, {a.clip}")
    if set(a.train) & set(a.test):
        p.error("a file is in both --train and --test: the test labels must come from other games")
    train = searched(bc.Demonstrations.concat([bc.load_demos(f) for f in a.train]))
    parts = {f: searched(bc.load_demos(f)) for f in a.test}  # each test file is also scored alone, below
    test = bc.Demonstrations.concat(list(parts.values()))
    own = np.nan_to_num(test.gains[np.arange(len(test)), test.actions])
    print(f"{len(train)} training and {len(test)} test decisions; the search departs in "
          f"{np.mean(test.actions != test.obs['advice'].argmax(axis=1)):.1%} of the test decisions, labelled gain "
          f"of its own choices {own.mean():+.4f} a decision (biased upwards: it chose on the same noise)")
    fit = {"hidden": a.hidden, "members": a.members, "epochs": a.epochs, "clip": a.clip, "seed": a.seed}
    results, head = curve(train, test, sorted(a.fractions), a.rates, **fit)
    extra: dict = {"test_search_gain": float(own.mean())}
    threshold = a.threshold if a.threshold is not None else judge(head, test, [a.rate])["rates"][0]["least_predicted"]
    # The team's rule on each test file alone: a head fitted on several caves must depart where it pays in each.
    extra["per_test_file"] = {f: at_threshold(*_pairs(head, part), len(part), threshold) for f, part in parts.items()}
    if a.team:
        extra["team"] = {"path": a.team, "init": a.init, "threshold": threshold}
        write_team(a.init, head, threshold, a.team)
    write(results, Path(a.out), argv, extra)
    return 0


if __name__ == "__main__":
    sys.exit(main())
