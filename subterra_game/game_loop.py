"""A Sub Terra session played to its end at the terminal (``tui.TerminalUI`` or anything with its methods):
people choose, bots act, Ctrl-C pauses (continue, save, quit), a closed input saves the game so far.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from subterra_env.config import CAVER_NAMES
from .narrate import Event
from .records import default_record_name
from .session import Session


def play_session(session: Session, ui: Any, save: str | None = None, interactive: bool = True) -> int:
    """Play to the end (or until the person stops); returns the exit code (0 played out, 130 stopped)."""
    env = session.env
    ui.add_events(Event("info", line) for line in session.notice)  # stays in "what happened"
    while not session.over:
        try:
            seat = int(env.state_.actor[0])
            spec = session.seats[seat]
            if spec.human:
                legal = [int(a) for a in np.flatnonzero(env.legal_mask)]
                caver = CAVER_NAMES[env.state_.c_rank[0, seat] - 1].upper()
                who = session.labels[seat]
                title = f"{who}: your move as the {caver} (seat {seat}) · {int(env.state_.ap[0])} AP left"
                if env.state_.r_seat[0] >= 0:  # a pause of the gas, not a turn (explicit_reactions, R-INV-18)
                    title = (f"{who}: the {caver} (seat {seat}) holds the GAS MASK · the gas would take "
                             f"{int(env.state_.r_lose[0])} health: use the mask?")
                elif env.state_.directing[0] >= 0:
                    title += " · directed by the leader: one 1-AP action (end turn declines)"
                t0 = time.monotonic()
                action = ui.choose(session, legal, title)
                ui.add_events(session.apply(action, spec.player, time.monotonic() - t0))
            else:
                action = session.bot_act(seat)
                ui.add_events(session.apply(action, spec.player))
                ui.bot_moved(session)
        except KeyboardInterrupt:
            code = paused(session, ui)
            if code is not None:
                return code
        except EOFError:
            path = session.save(default_record_name(session.seed, finished=False))
            ui.say(f"\ninput closed: the game so far is saved to {path} "
                   f"(go on with: subterra play --resume {path})", style="bold yellow")
            return 130
    ui.final(session)
    if save:
        path = session.save(save)
        ui.say(f"game record saved to {path}", style="bold green")
    elif interactive:
        try:
            default = default_record_name(session.seed)
            ans = ui.ask(f"save the game record? file name [{default}], n = no: ", default)
            if ans.lower() not in ("n", "no"):
                path = session.save(ans if ans.endswith(".json") else ans + ".json")
                ui.say(f"game record saved to {path}", style="bold green")
                ui.say(f"replay it: subterra replay {path}   or as a GIF: subterra replay {path} --gif game.gif",
                       style="dim")
        except (KeyboardInterrupt, EOFError):
            ui.say("\nnot saved")
    return 0


def paused(session: Session, ui: Any) -> int | None:
    """Ctrl-C or q: continue, save and quit, or quit. None means go on playing."""
    while True:
        try:
            ans = ui.ask("\ngame paused: [c] continue, [s] save and quit, [q] quit without saving: ", "c").lower()
        except (KeyboardInterrupt, EOFError):
            path = session.save(default_record_name(session.seed, finished=False))
            ui.say(f"\nstopped; the game so far is saved to {path}", style="bold yellow")
            return 130
        if ans in ("c", "continue"):
            return None
        if ans in ("q", "quit"):
            ui.say("quit without saving")
            return 130
        if ans in ("s", "save"):
            default = default_record_name(session.seed, finished=session.over)
            try:
                name = ui.ask(f"file name [{default}]: ", default)
            except (KeyboardInterrupt, EOFError):
                name = default
            path = session.save(name)
            ui.say(f"saved to {path}; go on later with: subterra play --resume {path}", style="bold green")
            return 130
        ui.say(f"{ans!r}: type c, s or q")
