"""The terminal's help: the rules in short (with the scenario's changes), the hazard cards, the action table,
and one action explained (``? N``).

Static text and tables built from ``narrate.ACTION_HELP`` and ``HAZARD_TEXT``, apart from ``tui``'s screen and
input loop that show them; ``tui`` re-exports ``help_pages`` and ``explain``.
"""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from subterra_env.games.sub_terra.core.rules import Core
from subterra_env.games.sub_terra.core.state import State

from .narrate import ACTION_HELP, HAZARD_TEXT, action_cost, action_detail

RULES_SUMMARY = """\
[bold]Goal[/]: find the exit tile and get every caver onto it before the cave kills you. The result counts the
cavers NOT on the exit at the end: 0 gold, 1 silver, 2 bronze, 3 or more defeat (R-RND-4).
[bold]A round[/] (R-RND-1): each caver takes a turn (2 AP, Exert once for a 3rd at the risk of 1 health), then
horrors move one step toward their closest victim (R-HOR-3), then a [bold]hazard card[/] is drawn (tremor,
flood, cave-in, gas, horror; x2 cards twice). The last card is [bold red]Out of Time[/]: from then on every caver
off the exit risks being devoured each round (R-HZ-7).
[bold]Health[/]: 3 each (the Bodyguard 5); at 0 a caver is knocked out and takes no turns until healed. Sharing
a tile with a horror knocks you out (R-HOR-5); the exit tile is safe from everything (R-TILE-1).
[bold]Tiles[/]: reveal/explore an open side to draw the next tile and choose how to turn it; water floods,
gas hurts, cave-in tiles fill with rubble (dig it), squeezes need Squeeze, ledges and slides need a rope to
cross back, rough terrain needs a skill check (a d6 of 4+, the Leader 3+) (R-TILE).
[bold]Keys[/]: a number picks an action; an action name works too ("move E"); [bold]?[/] this help;
[bold]? N[/] explains option N; [bold]q[/] (or Ctrl-C) stops the game and offers to save it."""


# What a scenario changes (RULES_VAR.md), shown under the rules in short when the table plays one.
SCENARIO_SUMMARY = {
    "annihilation": """\
[bold]Annihilation[/] (R-ANN): the exit starts beside the start tile, and no tile may go in the cells around it.
Three cavers hold a [bold]bomb card[/]; three [bold]bomb tiles[/] (BMB) are in the stack, the last among its bottom
six. [bold]Place bomb[/] (1 AP) on a bomb tile; [bold]give/take card[/] (1 AP) passes a card on your tile (taking only
from an unconscious caver). A devoured caver's card is lost. Unless every bomb tile has its bomb at the end: DEFEAT.""",
    "extraction": """\
[bold]Extraction[/] (R-EXT): [bold]leapers[/] (L) join the horrors: Leaper cards spawn them, they take two steps
whenever horrors move and [bold]slash[/] (2 damage, then leave) instead of knocking out. Leapers never enter the
[bold]sanctuary[/] (SAN), and cavers on it are no monster's victim. With biosamples: three cavers hold one (-1 on
their checks); pass them with give/take card; unless all three are held on the exit at the end: DEFEAT.""",
    "investigation": """\
[bold]Investigation[/] (R-INV): three [bold]item tiles[/] (ITM, token I) are in the stack: the first caver to enter one
draws an [bold]item[/] from a hidden deck of 14. Use an item as an action (1 AP, or 0 for Signal Booster, Spare
Battery, Adrenaline; the card is spent); Body Armor and the Gas Mask fire by themselves, the Lucky Charm (+1 on
checks) and the Wetsuit (walk into floods) help while held; give/take card passes an item. [bold]Doom[/] cards make
the next hazard card an x2. Medals as usual.""",
}


def help_pages(core: Core) -> list[Group]:
    """The help: the rules in short with the hazard cards, then the action table (from ``ACTION_HELP``)."""
    tab = Table(title="the actions (ids, name, AP, legal when, rule)", box=None, header_style="bold",
                padding=(0, 1))
    tab.add_column("ids", justify="right", no_wrap=True, style="dim")
    tab.add_column("action", no_wrap=True, style="bold")
    tab.add_column("AP", justify="center", no_wrap=True, style="cyan")
    tab.add_column("legal when (rule)")
    rows: list[tuple[int, int, tuple[str, str, str]]] = []
    for a in sorted(ACTION_HELP):
        if rows and rows[-1][2] == ACTION_HELP[a]:
            rows[-1] = (rows[-1][0], a, rows[-1][2])
        else:
            rows.append((a, a, ACTION_HELP[a]))
    for lo, hi, (name, _, when) in rows:
        tab.add_row(f"{lo}" if lo == hi else f"{lo}-{hi}", name, action_cost(core, lo), when.replace("`", ""))
    hz = Table.grid(padding=(0, 2))
    hz.add_column(style="bold yellow", no_wrap=True)
    hz.add_column()
    for k, v in HAZARD_TEXT.items():
        hz.add_row(k, v)
    scenario = SCENARIO_SUMMARY.get(core.cfg.scenario)
    extra = [Text(""), Text.from_markup(scenario)] if scenario else []
    return [Group(Text("SUB TERRA: the rules in short", style="bold"), Text(""), Text.from_markup(RULES_SUMMARY),
                  *extra, Text(""), Text("hazard cards", style="bold"), hz),
            Group(tab)]


def explain(core: Core, action: int, st: State | None = None) -> Text:
    """One action: its name, AP cost, what it does here (with ``st``) and when it is legal (the rule)."""
    from subterra_env.games.sub_terra.core.actions import ACTION_NAMES

    _, _, when = ACTION_HELP[action]
    t = Text()
    t.append(ACTION_NAMES[action], style="bold")
    t.append(f" ({action_cost(core, action)})", style="cyan")
    detail = action_detail(core, st, action) if st is not None else ""
    if detail:
        t.append(f": {detail}")
    t.append(f". Legal when: {when.replace('`', '')}", style="dim")
    return t
