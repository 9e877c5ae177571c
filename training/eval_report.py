"""Reports for training/evaluate.py: the text table, Markdown, the medal bar chart, the cross-play heatmap and
the partner matrix (Markdown and heatmap).

Everything here reads plain dicts (``EvalResult.to_dict()`` / ``CrossPlay.to_dict()`` / ``PartnerMatrix.to_dict()``),
so a report can also be redrawn from a saved ``results.json``, ``crossplay.json`` or ``partners.json``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

MEDALS = ("gold", "silver", "bronze", "defeat")
MEDAL_COLOURS = {"gold": "#d4af37", "silver": "#a8a9ad", "bronze": "#b0703c", "defeat": "#5a5a66"}
COLUMNS = ("setting", "team", "games", "gold", "silver", "bronze", "defeat", "escaped (95% CI)", "rounds",
           "truncated", "illegal", "decisions/s")


def table_rows(results: Sequence[dict[str, Any]]) -> list[list[str]]:
    rows = []
    for r in results:
        rows.append([r["settings"], r["team"], str(r["num_games"])]
                    + [f"{100 * r['rates'][m]:.1f}%" for m in MEDALS]
                    + [f"{r['escaped_mean']:.2f} ± {r['escaped_ci95']:.2f}", f"{r['rounds_mean']:.1f}",
                       str(r["truncated"]), str(r["illegal"]), f"{r['decisions_per_second']:,.0f}"])
    return rows


def text_table(results: Sequence[dict[str, Any]]) -> str:
    """A fixed-width table: one row per (setting, team); text columns left-aligned, numbers right-aligned."""
    rows = table_rows(results)
    widths = [max([len(c)] + [len(row[i]) for row in rows]) for i, c in enumerate(COLUMNS)]

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    return "\n".join([fmt(COLUMNS), "  ".join("-" * w for w in widths)] + [fmt(r) for r in rows])


def markdown_table(results: Sequence[dict[str, Any]]) -> str:
    rows = table_rows(results)
    align = ["---", "---"] + ["---:"] * (len(COLUMNS) - 2)
    lines = ["| " + " | ".join(COLUMNS) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def markdown_report(results: Sequence[dict[str, Any]], meta: dict[str, Any]) -> str:
    """results.md: the table, then how it was made and any illegal actions."""
    out = ["# Evaluation", "", markdown_table(results), "",
           f"Each row plays the games with seeds {meta['seed']}, {meta['seed'] + 1}, ... (the same for every row); "
           f"truncated after {meta['max_cycles']} rounds (counted as defeat). Escaped: mean cavers out per game, "
           "95% interval 1.96 sd / sqrt(n). Illegal: actions outside the legal mask (must be 0); such a game "
           "stops and counts as defeat."]
    for r in results:
        if r["illegal"]:
            out.append("")
            out.append(f"**{r['illegal']} illegal action(s)** for {r['team']} on {r['settings']}; first: "
                       f"{r['illegal_actions'][0]}")
    if meta.get("command"):
        out += ["", "Command:", "", f"    {meta['command']}"]
    return "\n".join(out) + "\n"


def crossplay_markdown(crossplays: Sequence[dict[str, Any]]) -> str:
    out = ["# Cross-play", "",
           "Mean cavers escaped (95% CI) when the row policy holds seats 0, 2, 4 and the column policy seats "
           "1, 3, 5; the diagonal is self-play.", ""]
    for cp in crossplays:
        labels = cp["labels"]
        out += [f"## {cp['settings']} ({cp['num_games']} games per cell)", "",
                "| row \\ column | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]
        for i, label in enumerate(labels):
            cells = [f"{cp['escaped'][i][j]:.2f} ± {cp['escaped_ci95'][i][j]:.2f}" for j in range(len(labels))]
            out.append(f"| {label} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def partners_markdown(matrices: Sequence[dict[str, Any]], meta: dict[str, Any] | None = None) -> str:
    """partners.md: per setting, mean escaped (95% CI) then medal rates, one row per bot: 'alone' then 'Y ×k'."""
    out = ["# Partner matrix", "",
           "How to read it: the cell in row X, column Y ×k has partner Y in k seats and X in the rest, the games "
           "spread evenly over every choice of those k seats; 'alone' has X in every seat. Every cell plays the "
           "same seeds, so cells compare pairwise; where Y is also a row, that row's Y ×k cell is Y alone, so down "
           "a column you see whether a bot lifts or drags down a team of Y.", ""]
    for m in matrices:
        cols, rows = m["columns"], m["bots"]
        head = ["| bot | " + " | ".join(cols) + " |", "|---|" + "---:|" * len(cols)]
        out += [f"## {m['settings']} ({m['num_seats']} seats, {m['num_games']} games per cell, seeds {m['seed']} .. "
                f"{m['seed'] + m['num_games'] - 1})", "", "Mean cavers escaped per game ± 95% CI:", ""] + head
        for i, bot in enumerate(rows):
            cells = [f"{m['escaped'][i][j]:.2f} ± {m['escaped_ci95'][i][j]:.2f}" for j in range(len(cols))]
            out.append(f"| {_md(bot)} | " + " | ".join(cells) + " |")
        out += ["", "Medals, gold / silver / bronze (% of games):", ""] + head
        for i, bot in enumerate(rows):
            cells = [" / ".join(f"{100 * m[f'{medal}_rate'][i][j]:.0f}" for medal in MEDALS[:3])
                     for j in range(len(cols))]
            out.append(f"| {_md(bot)} | " + " | ".join(cells) + " |")
        bad = [(rows[i], cols[j], n) for i, row in enumerate(m["illegal"]) for j, n in enumerate(row) if n]
        for bot, col, n in bad:
            out += ["", f"**{n} illegal action(s)** in {bot} / {col} (see partners.json)"]
        out.append("")
    if meta:
        out += [f"Truncated after {meta['max_cycles']} rounds (counted as defeat). 95% interval: 1.96 sd / sqrt(n) "
                "over the cell's games.", ""]
        if meta.get("command"):
            out += ["Command:", "", f"    {meta['command']}", ""]
    return "\n".join(out)


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def _save(fig: Any, path: str | Path) -> Path:
    """Lay out, write the PNG and close the figure."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_medals(results: Sequence[dict[str, Any]], path: str | Path) -> Path:
    """medals.png: one panel per setting, one stacked bar per team (medal rates), mean escaped above each bar."""
    plt = _pyplot()
    settings = list(dict.fromkeys(r["settings"] for r in results))
    teams = list(dict.fromkeys(r["team"] for r in results))
    width = max(8.0, 1.4 * len(teams) * len(settings) + 1.2 * len(settings) + 2.0)
    fig, axes = plt.subplots(1, len(settings), figsize=(width, 5.4), sharey=True, squeeze=False)
    for ax, setting in zip(axes[0], settings):
        rows = [r for r in results if r["settings"] == setting]
        x = range(len(rows))
        bottom = [0.0] * len(rows)
        for m in MEDALS:
            vals = [100 * r["rates"][m] for r in rows]
            ax.bar(x, vals, bottom=bottom, color=MEDAL_COLOURS[m], label=m, edgecolor="white", linewidth=0.5)
            bottom = [b + v for b, v in zip(bottom, vals)]
        for i, r in enumerate(rows):
            ax.text(i, 101.5, f"esc {r['escaped_mean']:.2f}\n±{r['escaped_ci95']:.2f}", ha="center", va="bottom",
                    fontsize=8)
        ax.set_xticks(list(x))
        ax.set_xticklabels([_wrap(r["team"]) for r in rows], fontsize=8, rotation=20 if len(rows) > 3 else 0,
                           ha="right" if len(rows) > 3 else "center")
        ax.set_title(f"{setting} ({rows[0]['num_games']} games)", fontsize=10)
        ax.set_ylim(0, 118)
        ax.set_yticks(range(0, 101, 20))
    axes[0][0].set_ylabel("games (%)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles[::-1], labels[::-1], loc="center right", fontsize=9, title="result")
    fig.suptitle("Sub Terra: medal rates per team\n(above each bar: mean cavers escaped ± 95% CI)", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1 - 1.1 / width, 1))
    path = Path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_crossplay(crossplays: Sequence[dict[str, Any]], path: str | Path) -> Path:
    """crossplay.png: one heatmap of mean escaped per setting, values written in the cells."""
    plt = _pyplot()
    n = len(crossplays)
    k = max(len(cp["labels"]) for cp in crossplays)
    fig, axes = plt.subplots(1, n, figsize=(max(4.5, 1.1 * k + 2.5) * n, max(4.0, 0.9 * k + 2.2)), squeeze=False)
    for ax, cp in zip(axes[0], crossplays):
        labels = [_wrap(label, 14) for label in cp["labels"]]
        im = ax.imshow(cp["escaped"], cmap="viridis", vmin=0, vmax=max(cp["num_seats"], 1))
        for i in range(len(labels)):
            for j in range(len(labels)):
                v = cp["escaped"][i][j]
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=9,
                        color="white" if v < 0.6 * cp["num_seats"] else "black")
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, fontsize=8, rotation=30, ha="right")
        ax.set_yticks(range(len(labels)))
        ax.set_yticklabels(labels, fontsize=8)
        ax.set_xlabel("odd seats (1, 3, 5)")
        ax.set_ylabel("even seats (0, 2, 4)")
        ax.set_title(f"{cp['settings']}: mean escaped", fontsize=10)
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    fig.suptitle("Cross-play (diagonal = self-play)", fontsize=11)
    return _save(fig, path)


def _wrap(text: str, width: int = 18) -> str:
    """Break long team labels at commas so tick labels stay readable."""
    if len(text) <= width:
        return text
    parts, line, lines = text.split(","), "", []
    for p in parts:
        if line and len(line) + len(p) + 1 > width:
            lines.append(line + ",")
            line = p
        else:
            line = f"{line},{p}" if line else p
    lines.append(line)
    return "\n".join(lines)


def plot_partners(matrices: Sequence[dict[str, Any]], path: str | Path) -> Path:
    """partners.png: per setting a heatmap of mean escaped, rows = bots, columns 'alone' then grouped by partner
    (k = seats it holds), the mean and its 95% CI written in each cell."""
    plt = _pyplot()
    ncols = max(len(m["columns"]) for m in matrices)
    nrows = [len(m["bots"]) for m in matrices]
    width = max(7.0, 1.05 * ncols + 3.4)
    heights = [0.62 * r + 2.3 for r in nrows]
    fig, axes = plt.subplots(len(matrices), 1, figsize=(width, sum(heights) + 0.6), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ax, m in zip(axes[:, 0], matrices):
        esc, ci, ks = m["escaped"], m["escaped_ci95"], m["partner_seats"]
        vmax = max(m["num_seats"], 1)
        im = ax.imshow(esc, cmap="viridis", vmin=0, vmax=vmax, aspect="auto")
        for i in range(len(esc)):
            for j in range(len(esc[i])):
                ax.text(j, i, f"{esc[i][j]:.2f}\n±{ci[i][j]:.2f}", ha="center", va="center", fontsize=8,
                        color="white" if esc[i][j] < 0.6 * vmax else "black")
        ax.set_xticks(range(len(m["columns"])))
        ax.set_xticklabels(["alone"] + [f"×{k}" for _ in m["partners"] for k in ks], fontsize=9)
        ax.set_yticks(range(len(m["bots"])))
        ax.set_yticklabels([_wrap(b, 22) for b in m["bots"]], fontsize=9)
        top = ax.get_xaxis_transform()  # x in data, y in axes units
        for g, partner in enumerate(m["partners"]):
            lo = 1 + g * len(ks)
            ax.axvline(lo - 0.5, color="white", linewidth=3)
            ax.text(lo + (len(ks) - 1) / 2, 1.02, _wrap(partner, 7 * len(ks) + 4), transform=top, ha="center",
                    va="bottom", fontsize=9, fontweight="bold")
        ax.text(0, 1.02, "bot\nalone", transform=top, ha="center", va="bottom", fontsize=9, fontweight="bold")
        ax.set_xlabel(f"×k: the partner named above holds k of the {m['num_seats']} seats, the row bot the rest "
                      "(every choice of the k seats, equally often)", fontsize=9)
        ax.set_ylabel("bot", fontsize=9)
        ax.set_title(f"{m['settings']}: mean cavers escaped ± 95% CI ({m['num_games']} games per cell)",
                     fontsize=10, pad=30)
        cb = fig.colorbar(im, ax=ax, fraction=0.035, pad=0.02)
        cb.set_label("mean escaped", fontsize=8)
    fig.suptitle("Partner matrix: each bot alone and with each partner", fontsize=11)
    return _save(fig, path)
