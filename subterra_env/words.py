"""A Sub Terra game's public state in words: the phrases that every interface shows alike.

The text board (``render``), the PNG frames (``frames``), the terminal game (``subterra_game.tui``), the browser page
(``subterra_game.web``) and the narration (``subterra_game.narrate``) all take a caver's condition, the decision
under way and the abilities' state from here, so they never disagree. Public information only: the stack's and the
hazard deck's order never appear.
"""

from __future__ import annotations

from typing import Any

from .config import CAVER_NAMES, SHAPES, GameConfig
from .games.sub_terra.core.catalogue import BOMBS, CORE_TILE_TYPES, DIR_NAMES, ITEM_NAMES, NUM_ITEMS, build
from .games.sub_terra.core.state import P_FLARE, P_ITEM, P_PICK, P_PLACE, P_RUN, P_SURFACE, State


def caver_flags(st: State, b: int, s: int) -> list[str]:
    """Seat s's condition in words, the one source for every view (the text board, frames, the terminal game):
    ["devoured"], else "unconscious" (no health) and then "under water", "hidden", "on exit" as they apply; [] for
    a conscious caver with none of them."""
    if st.c_dead[b, s]:
        return ["devoured"]
    flags = [] if st.c_hp[b, s] > 0 else ["unconscious"]
    if st.c_under[b, s]:
        flags.append("under water")
    if st.c_hidden[b, s]:
        flags.append("hidden")
    if st.exit_tile[b] >= 0 and st.c_tile[b, s] == st.exit_tile[b]:
        flags.append("on exit")
    return flags


def caver_status(st: State, b: int, s: int) -> str:
    """Seat s's condition as one phrase: "devoured", "unconscious, ..." or "conscious, ..." (the text board)."""
    flags = caver_flags(st, b, s)
    return ", ".join(flags if flags[:1] in (["devoured"], ["unconscious"]) else ["conscious", *flags])


def leapers_text(st: State, b: int) -> str:
    """' | leapers N' while Extraction's leapers are in the cave (R-EXT-4), else ''."""
    n = int((st.l_tile[b] >= 0).sum())
    return f" | leapers {n}" if n else ""


def catalogue_tile_name(cat: Any, cid: int) -> str | None:
    """``gas (L)`` for catalogue id cid (None without a catalogue that holds it)."""
    if cat is None or not 0 <= cid < len(cat.tile_type):
        return None
    return f"{CORE_TILE_TYPES[cat.tile_type[cid]]} ({SHAPES[cat.tile_shape[cid]]})"


def pending_text(st: State, b: int = 0, cat: Any = None) -> str:
    """What the acting caver of game b is in the middle of, in words ('' when nothing): the one source for the text
    board, frames and the game app. ``cat``: the game's tile catalogue (``Core.cat``) to name tiles by; without it
    a tile is named by its catalogue id."""
    if int(st.r_seat[b]) >= 0:  # explicit_reactions: a pause of the gas, over whatever the turn was doing (R-INV-18)
        return f"Gas Mask: the gas would take {int(st.r_lose[b])} health: use the mask or not"
    pend = int(st.pend[b])
    if pend == P_PLACE:
        cid = int(st.pend_tile[b])
        rots = [str(r) for r in range(4) if int(st.pend_rots[b]) & (1 << r)]
        d = int(st.pend_dir[b])
        side = DIR_NAMES[d] if 0 <= d < 4 else "?"
        return (f"placing a tile: {catalogue_tile_name(cat, cid) or f'catalogue id {cid}'} to the {side}, "
                f"rotations {','.join(rots) or '-'}")
    if pend == P_RUN:
        return f"running ({int(st.run_left[b])} steps left, {int(st.run_taken[b])} taken)"
    if pend == P_PICK:
        drawn, aside = (catalogue_tile_name(cat, int(t)) or f"catalogue id {int(t)}"
                        for t in (st.pend_tile[b], st.aside_tile[b]))
        return f"Geologist: choose a tile, drawn {drawn} or set aside {aside}"
    if pend == P_SURFACE:
        return "Diver surfaces: choose a water tile"
    if pend == P_FLARE:
        return "Flare: choose the next side to reveal"
    if pend == P_ITEM:
        return "Transfer: choose the item to move"
    return ""


def pending_or_none(st: State, b: int, cfg: GameConfig | None) -> str:
    """pending_text with the tiles named by ``cfg``'s catalogue (the default config's if None; ids when the
    catalogue does not match the state), "none" when nothing is pending."""
    cat = build(cfg or GameConfig())
    return pending_text(st, b, cat if cat.max_tiles == st.t_cat.shape[1] else None) or "none"


def ability_status(st: State, b: int = 0, cat: Any = None) -> list[str]:
    """The public state of the cavers' abilities, one phrase each: the Geologist's set-aside tile (named with the
    catalogue ``cat``; left out without one), the Scout's redraws, the Engineer's explosives, the Leader's Direct.
    The text board and the terminal game both show these."""
    out = []
    if st.aside_tile[b] >= 0 and cat is not None:
        aside = int(st.aside_tile[b])
        out.append(f"set aside: {CORE_TILE_TYPES[cat.tile_type[aside]]} ({SHAPES[cat.tile_shape[aside]]})")
    ranks = {int(r) for r in st.c_rank[b]}
    if 2 in ranks:
        out.append(f"scout redraws {int(st.scout_redraws[b])}")
    if 4 in ranks:
        out.append(f"explosives {int(st.explosives[b])}")
    if 8 in ranks:
        out.append(f"leader directed {'yes' if st.direct_used[b] else 'no'}")
    if st.directing[b] >= 0:
        out.append(f"acting under Direct of seat {int(st.directing[b])}")
    if st.c_bombs[b].any() or st.t_bomb[b].any():  # Annihilation (R-ANN-5, R-ANN-6)
        held = ", ".join(f"{CAVER_NAMES[st.c_rank[b, s] - 1]} {int(n)}" for s, n in enumerate(st.c_bombs[b]) if n)
        out.append(f"bombs placed {int(st.t_bomb[b].sum())}/{BOMBS}; bomb cards: {held or 'none'}")
    if st.c_samples[b].any():  # Extraction (R-EXT-9)
        held = ", ".join(f"{CAVER_NAMES[st.c_rank[b, s] - 1]} {int(n)}" for s, n in enumerate(st.c_samples[b]) if n)
        out.append(f"biosamples: {held}")
    if st.i_deck[b].max() >= 0:  # Investigation (R-INV-2..9)
        out.append(items_status(st, b))
    return out


def items_status(st: State, b: int = 0) -> str:
    """Investigation's public items: who holds what, the item deck's size, the items out, doom pending."""
    held = "; ".join(f"{CAVER_NAMES[st.c_rank[b, s] - 1]}: "
                     + ", ".join(ITEM_NAMES[i] for i in range(NUM_ITEMS) if (int(st.c_items[b, s]) >> i) & 1)
                     for s in range(st.num_seats) if st.c_items[b, s])
    gone = sum((int(st.i_out[b]) >> i) & 1 for i in range(NUM_ITEMS))
    text = f"items: {held or 'none held'} | item deck {NUM_ITEMS - int(st.i_pos[b])}, {gone} out"
    if st.battery[b]:
        text += " | spare battery on: " + ", ".join(CAVER_NAMES[st.c_rank[b, s] - 1] for s in range(st.num_seats)
                                                      if (int(st.battery[b]) >> s) & 1)
    return text + (" | DOOM pending" if st.doom[b] else "")


__all__ = ["ability_status", "catalogue_tile_name", "caver_flags", "caver_status", "items_status", "leapers_text",
           "pending_or_none", "pending_text"]
