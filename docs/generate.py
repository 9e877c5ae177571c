"""Write the action and observation tables of docs/actions_observation.md from the code.

    python docs/generate.py           # rewrite the tables between the marker comments
    python docs/generate.py --check   # exit 1 if the file differs from what the code gives (tests/test_docs.py)

Names and ids come from ``subterra_env.games.sub_terra.core.actions.ACTION_NAMES`` (AP costs from ``KIND_COST``, ``EXERT_BONUS``
and the ``GameConfig`` defaults) and ``subterra_env.games.sub_terra.core.observe.GRID_CHANNELS`` / ``SCALARS``; the explanations
are the dicts below, keyed by the row's label as the code names it. A renamed, added or moved action or feature
changes a label, so the table no longer matches (or a KeyError names the row without an explanation).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: use this checkout's package
    sys.path.insert(0, str(ROOT))

from subterra_env.config import GameConfig  # noqa: E402
from subterra_env.games.sub_terra.core import actions as A  # noqa: E402
from subterra_env.games.sub_terra.core.observe import (ANNIHILATION_CHANNELS, ANNIHILATION_SCALARS, EXTRACTION_CHANNELS,  # noqa: E402
                                       EXTRACTION_SCALARS, GRID_CHANNELS, INVESTIGATION_CHANNELS,
                                       INVESTIGATION_SCALARS, SCALARS)

DOC = ROOT / "docs" / "actions_observation.md"

# What an action row needs besides its ids, name and AP: when it is legal (and the rule).
ACTION_WHEN: dict[str, str] = {
    "end turn": "not while placing a tile or inside a run",
    "exert": "once per turn; skill check at the end of the turn, -1 health on failure (R-ACT-2)",
    "reveal N/E/S/W": "an open side facing an empty cell, not across a ledge without rope, stack not empty (R-ACT-5)",
    "explore N/E/S/W": "as reveal; then moves onto the new tile, squeeze or not (R-ACT-7)",
    "move N/E/S/W": "connected tile, not flooded, not a squeeze, no rubble, not across a ledge/slide (R-ACT-6)",
    "run": "a first step is possible; then up to 3 `run step` decisions (R-ACT-8)",
    "run step N/E/S/W": "inside a run, as move",
    "stop": "inside a run, after at least one step",
    "swim N/E/S/W": "connected flooded tile (R-ACT-10)",
    "squeeze N/E/S/W": "connected squeeze tile without rubble (R-ACT-11)",
    "dig here": "rubble on your tile (R-ACT-12)",
    "dig N/E/S/W": "rubble on the connected tile",
    "place rope": "on a ledge or slide without rope, rope tokens left; skill check (R-ACT-13)",
    "hide": "not hidden this round; skill check (R-ACT-14)",
    "heal caver 1..8": "the caver of that rank (yourself included) is on your tile and hurt (R-ACT-9)",
    "rotate 0/90/180/270": "placing a revealed tile: rotations that open toward you and keep the cave open (R-CON-4)",
    "gear": "Climber on a ledge or slide without rope, tokens left; no skill check (R-CAV-5)",
    "bandage caver 1..8": "Medic; another caver on his tile, hurt (R-CAV-6)",
    "sprint": "Medic; then up to 2 `run step` decisions (R-CAV-6)",
    "repel N/E/S/W": "Bodyguard; a horror on the connected tile (R-CAV-7)",
    "excavate here": "Geologist; rubble on his tile (R-CAV-3)",
    "excavate N/E/S/W": "Geologist; rubble on the connected tile",
    "direct caver 1..8": "Leader, once per turn; another conscious caver, not under water (R-CAV-8)",
    "redraw tile": "Scout placing a tile: discard it and place the next; 3 per game, never the exit (R-CAV-2)",
    "place drawn/set-aside tile": "Geologist revealing: which of the two tiles to place (R-CAV-3)",
    "demolish N/E/S/W": "Engineer; a side that is not connected, explosives left; then a Cave-in event (R-CAV-4)",
    "dive": "Diver on a water tile: leaves the cave, his turn ends (R-CAV-1)",
    "surface 1..8": "Diver under water at the start of his turn: onto the k-th water tile placed (R-CAV-1)",
    # Annihilation (ids after the base game's 90)
    "place bomb": "holding a bomb card, on a bomb tile without a token (R-ANN-6)",
    # Investigation (ids after Annihilation's and Extraction's 107); the card is spent on use (R-INV-5)
    "shovel here": "holding the Shovel, rubble on your tile (R-INV-7)",
    "shovel N/E/S/W": "holding the Shovel, rubble on the connected tile (R-INV-7)",
    "signal booster caver 1..8": "holding it, not under Direct; another conscious caver anywhere, not under water: "
                                 "it may take one 1-AP action free, or decline with end turn (R-INV-8)",
    "spare battery": "holding it, not under Direct; Out of Time drawn or next; no Out of Time check for you this "
                     "round (R-INV-9)",
    "flare": "holding it; a side where Reveal is legal: a tile revealed beyond each such side (R-INV-10)",
    "adrenaline": "holding it, not under Direct: +1 AP this turn (R-INV-11)",
    "painkillers": "holding them, hurt: regain 2 health (R-INV-12)",
    "grappling hook": "holding it, on a ledge or slide without rope, tokens left; no skill check (R-INV-13)",
    "grenade N/E/S/W": "holding it, a monster on the connected tile: every monster there leaves (R-INV-14)",
    "explosive N/E/S/W": "holding it; a side as Demolish may take, then a Cave-in event (R-INV-15)",
    "flare side N/E/S/W": "during a Flare: the next side to reveal (R-INV-10)",
    "scrawled map redraw": "holding the Map, placing a tile (not the exit, not a bomb), tiles left: discard it, "
                           "place the next (R-INV-16)",
    "transfer item <item>": "after give/take with several items to choose from: the one that moves, held by the "
                            "giver (14 ids in `catalogue.ITEM_NAMES` order; R-INV-6)",
    "use/decline gas mask": "setting `explicit_reactions`: gas is about to hurt the Gas Mask's holder (a Gas card, "
                            "entering a gas tile); the holder, asked off-turn, answers and nothing else is legal; "
                            "the resolution then goes on (R-INV-5, R-INV-18)",
    "give card to caver 1..8": "holding a card (Annihilation: a bomb card; Extraction: a biosample); that caver "
                               "(conscious or not) on your tile (R-ANN-7, R-EXT-9)",
    "take card from caver 1..8": "that caver is unconscious on your tile and holds a card (R-ANN-7, R-EXT-9)",
}

GRID_MEANING: dict[str, str] = {
    "tile": "a tile is here",
    "open N/E/S/W": "open side (explosives included)",
    "type start/exit/normal/water/gas/cave-in/horror/squeeze/ledge/slide/rough": "tile type, one-hot",
    "flooded/rubble/rope": "markers on the tile",
    "arrow N/E/S/W": "ledge/slide arrow",
    "cave-in die a/b": "the tile's cave-in die numbers (0 = none)",
    "horrors": "number of horrors on the tile",
    "revealable cell": "an empty cell that can be revealed (beyond an open side)",
    "explosives sides (bits N=1 E=2 S=4 W=8)": "explosives tokens on the tile's sides, as bits",
    "caver 0..5 health+1": "caver k seats after the observer (k = 0 is the observer) stands here: health + 1",
    # Annihilation
    "bomb tile/token": "a bomb tile (in the base planes a normal tile); a bomb token on it (R-ANN-6)",
    "no-placement zone": "an empty cell around the exit where no tile may be placed (R-ANN-2)",
    "cave-in die c": "an unstable cave-in tile's third number (R-ANN-3)",
    # Extraction
    "leapers/sanctuary": "number of leapers on the tile (R-EXT-4); the sanctuary tile (in the base planes a normal "
                         "tile; R-EXT-7)",
    "oldest monster here: place in the move order": "on a tile with monsters, the place of the oldest of them in "
                                                    "the order monsters move (1 = first; oldest first, R-EXT-4)",
    # Investigation
    "item tile/token": "an item tile (in the base planes a normal tile; R-INV-1); its item token, not yet taken "
                       "(R-INV-4)",
}

SCALAR_MEANING: dict[str, str] = {
    "AP left": "action points left this turn",
    "exerted": "the acting caver has exerted this turn",
    "pending decision": "0 none, 1 place tile, 2 run/sprint, 3 Geologist's pick, 4 surface",
    "run steps left/taken": "inside a run or sprint",
    "pending tile type+1/shape+1": "the drawn tile waiting to be placed (0 = none)",
    "pending direction+1": "the side it is revealed toward (0 = none)",
    "hazard cards left": "cards left in the hazard deck (its order never reaches an observation)",
    "tiles left": "tiles left in the stack (its order never reaches an observation)",
    "out of time": "the Out of Time card has been drawn: skill checks each hazard phase (R-HZ-7)",
    "gas active": "gas deals entering damage until the next hazard phase (R-HZ-3)",
    "round": "the round, capped at 127",
    "horrors in cave": "horrors on the board",
    "ropes left": "rope tokens left",
    "last hazard card+1": "the card of the latest hazard phase (0 = none yet)",
    "exit placed": "the exit tile is on the board",
    "starting caver offset": "seats from the observer to the starting caver marker",
    "caver 0..5 rank": "rank of caver k (0 = no such seat): who is who",
    "caver 0..5 hidden": "caver k hidden this round",
    "caver 0..5 devoured": "caver k devoured",
    "Leader has directed this turn": "the Leader has used Direct this turn",
    "acting under Direct": "the observer acts under the Leader's Direct",
    "caver 0..5 under water": "caver k under water (the Diver)",
    "set-aside tile type+1/shape+1": "the Geologist's set-aside tile (public; 0 = none)",
    "Scout redraws left": "the Scout's redraws left this game",
    "explosives left": "the Engineer's explosives tokens left",
    "Scout redrew this placement": "the Scout has redrawn the tile being placed",
    # Annihilation
    "caver 0..5 bomb cards": "bomb cards caver k holds (public)",
    "bomb tiles not placed": "bomb tiles still in the stack or set aside (where in the stack is hidden)",
    "bomb tokens placed": "bomb tokens on the table; the game is a defeat if any bomb tile (placed, in the stack or "
                          "set aside) lacks a token at the end (R-ANN-9): with a dealt game's 3 bomb tiles, fewer "
                          "than 3 tokens",
    # Extraction
    "caver 0..5 biosamples": "biosamples caver k holds (public; R-EXT-9)",
    "leapers in cave": "leapers on the table (at most 3, R-EXT-4)",
    "biosamples on the exit": "biosamples held by cavers on the exit; fewer than 3 at the end is a defeat when "
                              "biosamples are on (R-EXT-9)",
    # Investigation
    "doom pending": "1 while a Doom card waits: the next hazard card resolves as its x2 version (R-INV-3)",
    "item deck size": "items left in the item deck (its order is hidden; R-INV-2)",
    "flare under way": "1 while a Flare reveals its tiles: `flare side` decisions (R-INV-10)",
    "transfer giver offset+1": "during a Transfer's item choice: the giver, as a seat offset + 1 (R-INV-6)",
    "transfer receiver offset+1": "during a Transfer's item choice: the receiver, as a seat offset + 1 (R-INV-6)",
    "gas mask decision: asked offset+1": "setting `explicit_reactions`: the Gas Mask holder asked now, as a seat "
                                         "offset + 1 (1 = the observer; 0 = no decision pending; R-INV-18)",
    "gas mask decision: health at stake": "the health the gas would take from the holder without its mask (0 = no "
                                          "decision pending; R-INV-18)",
}


def _label(names: list[str]) -> str:
    """One label for names that differ in one word: "move N/E/S/W", "heal caver 1..8"; else names joined."""
    if len(names) == 1:
        return names[0]
    words = [n.split(" ") for n in names]
    diff = {i for w in words[1:] for i in range(len(w)) if len(w) == len(words[0]) and w[i] != words[0][i]}
    if len(diff) != 1 or any(len(w) != len(words[0]) for w in words):
        return " / ".join(names)
    (i,) = diff
    varying = [w[i] for w in words]
    nums = [int(v) for v in varying] if all(v.isdigit() for v in varying) else None
    if nums and len(nums) > 2 and nums == list(range(nums[0], nums[0] + len(nums))):
        part = f"{nums[0]}..{nums[-1]}"
    else:
        part = "/".join(varying)
    return " ".join(words[0][:i] + [part] + words[0][i + 1:])


def _groups(names: tuple[str, ...]) -> list[tuple[int, int, str]]:
    """(first index, last index, label) for runs of consecutive names that differ in the same one word."""
    out: list[tuple[int, int, str]] = []
    start, pos = 0, None
    for i in range(1, len(names) + 1):
        if i < len(names):
            a, b = names[i - 1].split(" "), names[i].split(" ")
            d = [j for j in range(len(a)) if len(a) == len(b) and a[j] != b[j]]
            if len(a) == len(b) and len(d) == 1 and pos in (None, d[0]):
                pos = d[0]
                continue
        out.append((start, i - 1, _label(list(names[start:i]))))
        start, pos = i, None
    return out


def _ids(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}-{last}"


def _ap(kind: int, cfg: GameConfig) -> str:
    if kind == A.K_EXERT:
        return f"+{A.EXERT_BONUS}"
    if kind == A.K_EXPLORE:
        return f"{cfg.explore_cost} (`explore_cost`)"
    if kind == A.K_HEAL:
        return f"{cfg.heal_cost} (`heal_cost`)"
    if kind in A.ITEM_KINDS_1AP:
        return f"{cfg.item_cost} (`item_cost`)"
    return str(int(A.KIND_COST[kind]))


def action_table(first: int = 0, end: int | None = None) -> str:
    """Rows of actions of one kind (and "here" or not), as they lie in ACTION_NAMES: the base game's ids, or those
    of ``first..end-1`` (a scenario's)."""
    cfg = GameConfig()
    end = A.NUM_ACTIONS if end is None else end
    rows, start = [], first
    here = (A.K_DIG, A.K_EXCAVATE, A.K_SHOVEL)  # "dig here" / "excavate here" / "shovel here": rows of their own
    key = [(int(k), int(k) in here and int(a) == A.HERE) for k, a in zip(A.ACTION_KIND, A.ACTION_ARG)]
    for i in range(first + 1, end + 1):
        if i < end and key[i] == key[start]:
            continue
        label = _label(list(A.ACTION_NAMES[start:i])) if key[start][0] != A.K_ITEM_PICK else "transfer item <item>"
        rows.append(f"| {_ids(start, i - 1)} | {label} | {_ap(key[start][0], cfg)} | {ACTION_WHEN[label]} |")
        start = i
    return "\n".join(["| ids | name | AP | legal when (rule) |", "|---|---|---|---|"] + rows)


def feature_table(names: tuple[str, ...], meaning: dict[str, str], head: str, offset: int = 0) -> str:
    rows = [f"| {_ids(a + offset, b + offset)} | {label} | {meaning[label]} |" for a, b, label in _groups(names)]
    return "\n".join([f"| {head} | name | content |", "|---|---|---|"] + rows)


def tables() -> dict[str, str]:
    """The generated blocks by marker name."""
    return {
        "actions": action_table(),
        "grid": feature_table(GRID_CHANNELS, GRID_MEANING, "channels"),
        "scalars": feature_table(SCALARS, SCALAR_MEANING, "index"),
        "annihilation": "\n\n".join([
            action_table(A.NUM_ACTIONS, A.num_actions("annihilation")),
            feature_table(ANNIHILATION_CHANNELS, GRID_MEANING, "channels", len(GRID_CHANNELS)),
            feature_table(ANNIHILATION_SCALARS, SCALAR_MEANING, "index", len(SCALARS))]),
        "extraction": "\n\n".join([
            feature_table(EXTRACTION_CHANNELS, GRID_MEANING, "channels", len(GRID_CHANNELS)),
            feature_table(EXTRACTION_SCALARS, SCALAR_MEANING, "index", len(SCALARS))]),
        "investigation": "\n\n".join([
            action_table(A.num_actions("annihilation"), A.num_actions("investigation")),
            feature_table(INVESTIGATION_CHANNELS, GRID_MEANING, "channels", len(GRID_CHANNELS)),
            investigation_scalars()]),
    }


def investigation_scalars() -> str:
    """Investigation's scalars: the 84 "caver k holds X" and 14 "X out of the game" rows in one row each."""
    n, k = len(SCALARS), len(A.ITEM_NAMES)
    names = INVESTIGATION_SCALARS
    rows = [f"| {n + i} | {names[i]} | {SCALAR_MEANING[names[i]]} |" for i in range(5)]
    rows.append(f"| {n + 5}-{n + 4 + 6 * k} | caver k holds <item> | 1 if caver k holds the item: index "
                f"{n + 5} + 14 k + i, i in `catalogue.ITEM_NAMES` order (public; R-INV-5) |")
    rows.append(f"| {n + 5 + 6 * k}-{n + 4 + 7 * k} | <item> out of the game | 1 once the item is used or lost "
                f"(public; R-INV-5, R-INV-6) |")
    first = n + 5 + 7 * k
    rows.append(f"| {first}-{first + 5} | caver 0..5 spare battery active | 1 if caver k makes no Out of Time check "
                f"this round (R-INV-9) |")
    rows += [f"| {n + i} | {names[i]} | {SCALAR_MEANING[names[i]]} |" for i in range(first + 6 - n, len(names))]
    assert first + 8 == n + len(names)
    return "\n".join(["| index | name | content |", "|---|---|---|"] + rows)


def render(text: str) -> str:
    """``text`` with every ``<!-- generated: NAME -->`` .. ``<!-- end generated: NAME -->`` block rewritten."""
    for name, table in tables().items():
        pattern = re.compile(rf"(<!-- generated: {name} [^>]*-->\n)(?:.*?\n)?(<!-- end generated: {name} -->)", re.S)
        text, n = pattern.subn(lambda m: m.group(1) + table + "\n" + m.group(2), text)
        if n != 1:
            raise ValueError(f"{DOC}: expected one '<!-- generated: {name} ...-->' block, found {n}")
    return text


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    old = DOC.read_text()
    new = render(old)
    if "--check" in argv:
        if new != old:
            print(f"{DOC.relative_to(ROOT)} is out of date: run python docs/generate.py", file=sys.stderr)
            return 1
        return 0
    if new != old:
        DOC.write_text(new)
        print(f"wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
