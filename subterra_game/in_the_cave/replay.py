"""``subterra itc replay FILE``: a saved In the Cave record is played again from its seed through the AEC env
and must reach its recorded final scores (``records.replay``); then it is stepped through in the terminal
(Enter next, b back, a number jumps, q quit; ``--auto``), or written as pictures (``--png DIR``, ``--gif FILE``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from subterra_env.games.in_the_cave.core import layout as L
from subterra_env.in_the_cave.env_aec import raw_env

from ..records import RecordError, add_replay_options
from . import records as R
from . import screen as S
from .screen import Terminal


def write_frames(doc: dict[str, Any], frames: list[np.ndarray], P: np.ndarray, labels: list[str],
                 png: str | None, gif: str | None, delay: float, cell: int) -> list[str]:
    """The replay's pictures (``render_rgb`` over the final cave's box, so all one size, each captioned with its
    step) as PNG files and/or an animated GIF (Sub Terra's writers); returns what was written, in words."""
    from subterra_env.in_the_cave.render import cave_box, render_rgb

    from ..records import save_gif, save_pngs

    box, n, seats = cave_box(frames[-1]), len(frames) - 1, len(labels)

    def caption(i: int) -> str:
        if i == 0:
            return f"start (seed {doc['seed']}), {n} decisions"
        a = doc["actions"][i - 1]
        return f"step {i}/{n}:" + S.narrate(frames[i - 1], frames[i], P, a["seat"], labels[a["seat"]], a["action"])[1:]

    images = [render_rgb(g, seats, cell, labels=labels, box=box, caption=caption(i)) for i, g in enumerate(frames)]
    done = []
    if png:
        paths = save_pngs(images, png)
        done.append(f"wrote {len(paths)} frames: {paths[0]} .. {paths[-1]}")
    if gif:
        done.append(f"wrote {save_gif(images, gif, delay=delay)} ({len(images)} frames, {delay:g} s each)")
    return done


def replay_game(path: str, term: Terminal, auto: bool, png: str | None = None, gif: str | None = None,
                cell: int = 40) -> int:
    """Check the record (it must replay to its final scores), then write its pictures (``png``, ``gif``) or step
    through it."""
    try:
        doc = R.load(path)
        frames = [None]

        def keep(i: int, env: raw_env) -> None:
            frames.append(env.game.copy())

        env = R.replay(doc, path, on_step=keep)
    except RecordError as e:
        term.write(f"error: {e}")
        return 2
    P, n = env.core.P, len(doc["actions"])
    first = raw_env(env.config)
    first.reset(seed=doc["seed"])
    frames[0] = first.game.copy()
    labels = [s.get("name") or s["player"] for s in doc["seats"]]
    res = doc["result"]
    term.say(f"{path}: {n} decisions replayed to the recorded final scores {res['scores']} "
               f"({res.get('result')}{'' if res['finished'] else ', unfinished'})")
    if png or gif:
        for line in write_frames(doc, frames, P, labels, png, gif, max(0.02, term.delay), cell):
            term.write(line)
        return 0
    title = f"replay {Path(path).stem} · seed {doc['seed']} · {env.seats} teams"
    i = 0
    try:
        while True:
            g = frames[i]
            if i and (frames[i - 1][L.ROUND], frames[i - 1][L.ACTOR]) != (g[L.ROUND], g[L.ACTOR]) and g[L.ROUND] \
                    and g[L.OVER] == L.RUNNING and i < n:
                term.say(S.turn_line(g, labels))
            if i:
                a = doc["actions"][i - 1]
                term.say(f"step {i}/{n}:" + S.narrate(frames[i - 1], g, P, a["seat"], labels[a["seat"]],
                                                      a["action"])[1:])
            if not auto or term.clear or i == n or (i and frames[i - 1][L.ROUND] != g[L.ROUND]):
                term.show(S.board(g, P, labels, f"{title} · step {i}/{n}", legend=i == 0, colour=term.colour))
            if i == n:
                break
            if auto:
                time.sleep(term.delay)
                i += 1
                continue
            ans = term.read(f"step {i}/{n} (Enter next, b back, a number jumps, q quit): ").strip().lower()
            if ans in ("q", "quit"):
                break
            i = max(0, i - 1) if ans in ("b", "back") else min(n, int(ans)) if ans.isdigit() else i + 1
    except (EOFError, KeyboardInterrupt):
        pass
    for line in S.final_lines(frames[-1], labels):
        term.write(line)
    return 0


def replay_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="subterra itc replay", description="Replay a saved In the Cave record: it is "
                                "re-played from its seed and must reach its recorded final scores; then step "
                                "through it.")
    p.add_argument("file")
    add_replay_options(p, delay=0.2, cell=40, unit="space")
    return p
