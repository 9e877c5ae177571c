"""What ``subterra itc`` shows: the board (the env's text map with a status panel), the numbered legal actions,
one-line narration of each decision, the help, the final scores. Plain text (it reads in any terminal, a pipe or a
test); everything here reads one game's record (``core/layout.py``) and shows public information only.
"""

from __future__ import annotations

import shutil
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from subterra_env.games.sub_terra.core.catalogue import ROT_MASK
from subterra_env.games.in_the_cave.core import actions as A
from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.games.in_the_cave.core.game import backpack, camp_contents, stacks_left, tokens
from subterra_env.games.in_the_cave.core.observe import public_bank
from subterra_env.games.in_the_cave.observe import vp
from subterra_env.in_the_cave.render import LEGEND, text_map, where

SIDES = "NESW"
CLEAR = "\x1b[2J\x1b[H"
KIT_NAMES = {"consumable": "consumable", "rope": "rope", "oxygen2": "oxygen (2 tanks)", "oxygen1": "oxygen (1 tank)",
             "camera": "camera", "raft": "raft"}

HELP = """\
IN THE CAVE: grow one shared cave with the other teams, collect exploration tokens, be home when it ends.
A turn: 5 AP (action points). Reveal (1 AP) draws a tile at an unexplored exit of your space; you then place it
(pick the exit and rotation: "opens" lists its open sides). Move costs the entry: 1 (squeeze: 1 + difficulty;
water: 1 with the raft); dive into water: 2 AP + 1 oxygen (takes its token). A step between depths needs ropes
(1 AP and 1 rope per 25 m) unless that edge is already roped. Photograph (1 AP, camera) a wonder; explore water
(1 AP + oxygen); the first team to move through a squeeze takes its token. Crawl (all 5 AP, the whole turn): into
any connected space, no equipment, no token. Away from home each turn starts by eating 1 consumable (none left:
exhausted, crawl only). Pack (2 AP, at home) to exchange with the bank; a camp holds 4 more tokens (place 2 AP,
repack 1 AP). Score: tokens' VP plus majorities (8/4 per category); a team not home at the end scores 0. The end:
3 full rounds after the last tile of stack IV is placed (or once no unexplored exit is left).
Each option shows its AP, found by trying it on a copy of the game.
Keys: a number picks that option; a name or its start picks an action (mo = move, if only one move is legal);
? or help: this help; q: quit (you may save the game so far).
The action table (id, action, AP, rule IDs of RULES_ITC.md):"""


def kit(counts: Sequence[int]) -> str:
    """Equipment counts by kind in words: ``5 consumable, 1 rope, camera, raft`` (``empty``)."""
    out = []
    for name, n in zip(L.EQUIP_NAMES, counts):
        if n:
            out.append(KIT_NAMES[name] if name in ("camera", "raft") else f"{int(n)} {KIT_NAMES[name]}")
    return ", ".join(out) or "empty"


def token_text(g: np.ndarray, s: int) -> str:
    tk = tokens(g, s)
    parts = [f"{k} {tk[k]}" for k in ("traverse", "water", "photo") if tk[k]]
    if sum(tk["squeeze"]):
        parts.append(f"squeeze {sum(tk['squeeze'])}")
    if tk["depth"]:
        parts.append("depth " + "/".join(str(25 * lv) for lv in tk["depth"]))
    return ", ".join(parts) or "none"


def camp_text(g: np.ndarray, s: int) -> str:
    c = int(g[L.CAMP + s])
    if c == L.CAMP_GONE:
        return "abandoned"
    state = "packed in the backpack" if c == L.CAMP_PACKED else f"placed at {where(g, c)}"
    return f"{state} ({kit(camp_contents(g, s))})"


def drawn_tile(g: np.ndarray, P: np.ndarray) -> str:
    """The tile waiting to be placed, in words (public: every team sees it)."""
    cat = int(g[L.PEND_CAT])
    if cat < 0:
        return ""
    kind = L.KIND_NAMES[int(P[L.PR_CAT_KIND + cat])]
    sq = int(P[L.PR_CAT_SQ + cat])
    return f"{kind}{f' {sq}' if sq else ''}"


def ap_costs(core: Any, g: np.ndarray, legal: Sequence[int]) -> dict[int, int]:
    """AP each legal action spends, found by stepping copies of the game through the compiled rules (one batch
    call; only the AP is read back). -1: the action ends the turn (the last AP, a crawl, end turn)."""
    if not len(legal) or g[L.ROUND] == 0:
        return {}
    G = np.repeat(g[None], len(legal), axis=0)
    core.step(G, np.asarray(legal, dtype=np.int64))
    out = {}
    for i, a in enumerate(legal):
        same = G[i, L.ACTOR] == g[L.ACTOR] and G[i, L.ROUND] == g[L.ROUND] and G[i, L.OVER] == L.RUNNING
        out[int(a)] = int(g[L.AP] - G[i, L.AP]) if same else -1
    return out


def option_note(g: np.ndarray, P: np.ndarray, a: int, cost: int | None = None) -> str:
    """A few words after an option's name: the open sides a placement gives the drawn tile; the AP it costs."""
    if A.A_PLACE <= a < A.A_PLACE + 16 and g[L.PEND_CAT] >= 0:
        r = (a - A.A_PLACE) % 4
        opened = int(ROT_MASK[int(P[L.PR_CAT_MASK + int(g[L.PEND_CAT])]), r])
        return "opens " + "".join(SIDES[d] for d in range(4) if (opened >> d) & 1)
    if cost is None or a == A.A_END:
        return ""
    if A.A_CRAWL <= a < A.A_CRAWL + 4:
        return "the whole turn"
    if cost < 0:
        return "ends the turn"
    return f"{cost} AP" if cost else ""


def head_lines(g: np.ndarray, P: np.ndarray, labels: Sequence[str]) -> list[str]:
    """The turn (or the initial packing), the tiles left in each stack, the bank when it is limited."""
    over, actor = int(g[L.OVER]), int(g[L.ACTOR])
    rnd = int(g[L.ROUND])
    lines = []
    if over == L.RUNNING:
        if rnd == 0:
            lines.append(f"initial packing · team {actor} ({labels[actor]}) packs: take up to "
                         f"{int(P[L.PR_BACKPACK])} tokens (free), then pack_done")
        else:
            lines.append(f"round {rnd} · team {actor} ({labels[actor]}) to act · {int(g[L.AP])} AP left"
                         + (" · EXHAUSTED: crawl only" if g[L.EXHAUSTED] else ""))
    left = stacks_left(g)
    tiles = f"tiles left I {left[0]} · II {left[1]} · III {left[2]} · IV {left[3]} · discarded {int(g[L.DISCARDED])}"
    if g[L.END_TRIG] and over == L.RUNNING:
        tiles += f" · END TRIGGERED: {int(g[L.END_LEFT])} full round(s) after this one"
    lines.append(tiles)
    if P[L.PR_LIMITED]:
        # public_bank: during the hidden initial packing the count before anyone packed (R-ITC-SET-9)
        lines.append("bank: " + ", ".join(f"{int(public_bank(g, i))} {n}" for i, n in
                                          enumerate(("consumables", "ropes", "oxygen"))))
    return lines


def pending_line(g: np.ndarray, P: np.ndarray) -> str:
    """The decision waiting (the drawn tile to place, a boulder choke, packing at home), or ``""``."""
    pend, actor = int(g[L.PEND]), int(g[L.ACTOR])
    if pend == L.P_PLACE:
        return f"drawn tile: {drawn_tile(g, P)} (team {actor} places it at an unexplored exit of its space)"
    if pend == L.P_BOULDER:
        return "the drawn tile fits no exit and is discarded: a boulder choke is placed instead"
    if pend == L.P_PACK:
        return f"team {actor} is packing at home (take / return, then pack_done)"
    return ""


def kit_hidden(g: np.ndarray, s: int, viewer: int | None) -> bool:
    """During the hidden initial packing (R-ITC-SET-9) team s's kit is not shown to the person at seat ``viewer``
    (None: shown to everyone)."""
    return bool(g[L.ROUND] == 0 and g[L.OVER] == L.RUNNING and viewer is not None and s != viewer)


def status_lines(g: np.ndarray, P: np.ndarray, labels: Sequence[str], viewer: int | None) -> list[str]:
    """The turn, the tiles left and one line per team. ``viewer``: the seat of the person looking (during the
    hidden initial packing the other teams' kit is not shown to them); None shows everything."""
    over, actor = int(g[L.OVER]), int(g[L.ACTOR])
    lines = head_lines(g, P, labels)
    for s in range(len(labels)):
        mark = ">" if s == actor and over == L.RUNNING else " "
        lines.append(f"{mark} team {s} ({labels[s]}) at {where(g, int(g[L.POS + s]))} · VP {vp(g, s)} · tokens: "
                     f"{token_text(g, s)}")
        if kit_hidden(g, s, viewer):
            lines.append("      backpack and camp: hidden while the teams pack")
        else:
            lines.append(f"      backpack: {kit(backpack(g, s))} · camp: {camp_text(g, s)}")
    pend = pending_line(g, P)
    if pend:
        lines.append(pend)
    return lines


KIND_ANSI = {"H": "1;33", "+": "37", ".": "33", "~": "1;34", "*": "1;35", "s": "36", "S": "1;36", "v": "32",
             "#": "2;37"}
TEAM_ANSI = ("1;97;41", "1;30;46", "1;30;43", "1;30;42", "1;97;45")  # the image's team colours, as ANSI


def colour_map(lines: Sequence[str]) -> list[str]:
    """The text map with ANSI colours (a real terminal): pawn digits on their team's colour, kinds by colour,
    tokens bright, ``?`` yellow. Spaces sit on even lines at columns 4k (pawn), 4k+1 (kind), 4k+2 (detail)."""
    out = []
    for r, line in enumerate(lines):
        if r % 2:
            out.append(line)
            continue
        chars = []
        for c, ch in enumerate(line):
            code = None
            if c % 4 == 0 and ch.isdigit():
                code = TEAM_ANSI[int(ch) % len(TEAM_ANSI)]
            elif c % 4 == 1:
                code = "1;93" if ch == "?" else KIND_ANSI.get(ch)
            elif c % 4 == 2 and ch != " ":
                code = "1;97"
            chars.append(f"\x1b[{code}m{ch}\x1b[0m" if code else ch)
        out.append("".join(chars))
    return out


def board(g: np.ndarray, P: np.ndarray, labels: Sequence[str], title: str, viewer: int | None = None,
          legend: bool = True, colour: bool = False) -> str:
    """The whole board: a title line, the map (``colour``: with ANSI colours), the legend, the status panel."""
    rule = "─" * max(10, 72 - len(title) - 6)
    lines = text_map(g, len(labels))
    parts = [f"──── {title} {rule}", *(colour_map(lines) if colour else lines)]
    if legend:
        parts += LEGEND
    parts += status_lines(g, P, labels, viewer)
    return "\n".join(parts)


def menu(g: np.ndarray, P: np.ndarray, legal: Sequence[int], width: int = 100,
         costs: dict[int, int] | None = None) -> str:
    """The legal actions numbered from 1, in columns, with their AP (``costs``: ``ap_costs``)."""
    items = []
    costs = costs or {}
    for i, a in enumerate(legal):
        note = option_note(g, P, int(a), costs.get(int(a)))
        items.append(f"{i + 1:>2} {A.ACTION_NAMES[a]}" + (f" ({note})" if note else ""))
    w = max(len(s) for s in items) + 3
    per = max(1, width // w)
    rows = [items[i:i + per] for i in range(0, len(items), per)]
    return "\n".join("".join(s.ljust(w) for s in row).rstrip() for row in rows)


def pick(raw: str, legal: Sequence[int]) -> int | str:
    """The action a person's input names: a number (an option, 1..n) or an action name or its unambiguous start
    (case and ``-``/space for ``_`` do not matter). Returns the action id, or the message saying what is wrong."""
    n = len(legal)
    text = raw.strip()
    if not text:
        return f"type the number of an option (1-{n}) or an action name; ? for help"
    if text.lstrip("+-").isdigit():
        k = int(text)
        if 1 <= k <= n:
            return int(legal[k - 1])
        return f"{k} is not an option: choose a number from 1 to {n}"
    key = text.lower().replace(" ", "_").replace("-", "_")
    names = {A.ACTION_NAMES[a].lower(): int(a) for a in legal}
    if key in names:
        return names[key]
    hits = [A.ACTION_NAMES[a] for nm, a in names.items() if nm.startswith(key)]
    every = [nm.lower() for nm in A.ACTION_NAMES]
    if key in every:
        hint = f" (did you mean {' or '.join(hits)}?)" if hits else ""
        return f"{A.ACTION_NAMES[every.index(key)]} is not legal now{hint}; the legal actions are the numbered ones"
    if len(hits) == 1:
        return A.ACTION_NAMES.index(hits[0])
    if hits:
        return f"{text!r} is ambiguous: it could be {', '.join(hits)} (type more of the name, or the number)"
    if any(nm.startswith(key) for nm in every):
        return f"{text!r} names no legal action now; the legal actions are the numbered ones"
    return f"{text!r} is not an action: type a number from 1 to {n} or the start of an action name (? for help)"


def narrate(g_before: np.ndarray, g_after: np.ndarray, P: np.ndarray, seat: int, label: str, a: int) -> str:
    """One line for a decision: ``team 1 (heuristic): reveal -> drew a water tile``."""
    line = f"  team {seat} ({label}): {A.ACTION_NAMES[a]}"
    if a == A.A_REVEAL:
        if g_after[L.PEND] == L.P_PLACE:
            line += f" -> drew a {drawn_tile(g_after, P)} tile"
        elif g_after[L.PEND] == L.P_BOULDER:
            line += " -> the drawn tile fits nowhere: discarded, a boulder choke goes in"
    elif A.A_PLACE <= a < A.A_BOULDER + 4:
        t = int(g_after[L.N_TILES]) - 1
        line += f" -> placed at {where(g_after, t)}"
    elif g_after[L.POS + seat] != g_before[L.POS + seat]:
        line += f" -> {where(g_after, int(g_after[L.POS + seat]))}"
    got = vp(g_after, seat) - vp(g_before, seat)
    if got:
        line += f" (+{got} VP)"
    return line


def turn_line(g: np.ndarray, labels: Sequence[str]) -> str:
    """``-- round 3: team 1 (heuristic), 5 AP`` at the start of a turn (upkeep already paid)."""
    s = int(g[L.ACTOR])
    tail = "exhausted: crawl only" if g[L.EXHAUSTED] else f"{int(g[L.AP])} AP"
    return f"-- round {int(g[L.ROUND])}: team {s} ({labels[s]}), {tail}"


def final_lines(g: np.ndarray, labels: Sequence[str]) -> list[str]:
    """The result: every team's final score (eliminated teams marked), the winner(s)."""
    over = int(g[L.OVER])
    if over == L.RUNNING:
        return [f"the game is not over (stopped in round {int(g[L.ROUND])}): no final scores"]
    if over == L.TRUNCATED:
        return [f"the game was stopped at the round limit (round {int(g[L.ROUND])}): no winner"]
    lines = ["final scores:"]
    for s, lab in enumerate(labels):
        out = "" if g[L.POS + s] == 0 else "  (eliminated: not home at the end)"
        lines.append(f"  team {s} ({lab}): {int(g[L.SCORE + s])}" + out + ("  WINNER" if g[L.WIN + s] else ""))
    wins = [s for s in range(len(labels)) if g[L.WIN + s]]
    if not wins:
        lines.append("no winner (every team was eliminated)")
    else:
        names = " and ".join(f"team {s} ({labels[s]})" for s in wins)
        lines.append(f"{'winners (shared)' if len(wins) > 1 else 'winner'}: {names}")
    return lines


def help_text() -> str:
    return HELP + "\n" + "\n".join(ln for ln in A.__doc__.splitlines() if ln.startswith("|"))


class Terminal:
    """Reads a person's input and writes the screen; ``clear``: redraw from the top (a real terminal);
    ``colour``: colour the map."""

    def __init__(self, read: Callable[[str], str] = input, write: Callable[[str], Any] = print,
                 clear: bool = False, delay: float = 0.0, colour: bool = False):
        self.read, self.write, self.clear, self.delay = read, write, clear, max(0.0, delay)
        self.colour = colour  # ANSI colours on the map
        self.log: deque[str] = deque(maxlen=200)
        size = shutil.get_terminal_size((100, 40))
        self.width, self.height = min(size.columns, 120), size.lines

    def say(self, line: str) -> None:
        self.log.append(line)
        if not self.clear:
            self.write(line)

    def show(self, text: str) -> None:
        if self.clear:  # the latest narration that fits under the board, above the prompt
            room = max(3, self.height - text.count("\n") - 4)
            recent = list(self.log)[-room:]
            self.write(CLEAR + text + ("\nwhat happened:\n" + "\n".join(recent) if recent else ""))
        else:
            self.write(text)
