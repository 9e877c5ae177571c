"""The browser table's action round trip on loopback: a person's click to the updated board, with bots at the table.

    python -m benchmarks.web_roundtrip                       # 10 tiny games, heuristic bots: ~10-30 s
    python -m benchmarks.web_roundtrip --games 3 --preset small --bots search --out /tmp/rt.json

Starts ``subterra serve`` as a child process on 127.0.0.1 and a free port (its own process: the client's work
never shares the server's interpreter), opens ``--games`` tables (``--preset``, seeds 0, 1, ...; seat 0 a person,
the others ``--bots`` at zero delay), and plays seat 0 by a script over the websocket: the first legal action
that is not 'end turn'. The round trip is the wall-clock time from sending ``act`` to receiving the state that
holds that decision (the server checks the move, steps the game, saves the record, narrates it and sends the
board, before the bots go on). Also timed: the page's first load (``/``, its script, style and options, in
order) on the warm server. Bounded: at most ``--games`` games and ``--max-seconds`` in all. Prints the median,
95th percentile (numpy's linear interpolation) and max in ms, and writes JSON (default
benchmarks/results/web_roundtrip.json). Wall clock on a shared machine: indicative.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def page_load(cs, base: str) -> float:
    t0 = time.perf_counter()
    for path in ("/", "/static/style.css", "/static/svg.js", "/static/board.js", "/static/itc_board.js",
                 "/static/zoom.js", "/static/social.js", "/static/lobby.js", "/static/app.js", "/api/options"):
        async with cs.get(base + path) as r:
            await r.read()
            assert r.status == 200, (path, r.status)
    return time.perf_counter() - t0


async def one_game(cs, base: str, preset: str, seed: int, bots: str, deadline: float) -> tuple[list[float], str]:
    body = {"preset": preset, "seed": seed, "seats": ["human"] + [bots] * 3, "delay": 0, "num_cavers": 4}
    async with cs.post(base + "/api/tables", json=body) as r:
        doc = await r.json()
        assert r.status == 201, doc
    times: list[float] = []
    async with cs.ws_connect(f"{base}/ws/{doc['table']}") as ws:
        await ws.send_json({"type": "join", "seat": 0, "token": doc["seats"][0]["token"]})
        m = await ws.receive_json(timeout=120)
        while time.perf_counter() < deadline:
            assert m["type"] == "state", m
            if m["over"]:
                return times, m["board"]["team"]["result"] or "unfinished"
            if m["board"]["team"]["actor"] != 0:
                m = await ws.receive_json(timeout=120)
                continue
            legal = m["board"]["legal"]
            action = next((a for a in legal if a["name"] != "end turn"), legal[0])["id"]
            t0 = time.perf_counter()
            await ws.send_json({"type": "act", "action": action, "step": m["decisions"]})
            while True:  # the state holding our decision (one may be on its way from before: skip it)
                r = await ws.receive_json(timeout=120)
                assert r["type"] == "state", r
                if r["decisions"] == m["decisions"] + 1:
                    times.append(time.perf_counter() - t0)
                    break
            m = r
    return times, "stopped (time)"


async def run(args: argparse.Namespace) -> dict:
    import aiohttp

    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with tempfile.TemporaryDirectory(prefix="subterra-bench-") as data:
        log = Path(data) / "server.log"
        with log.open("w") as err:  # started once, before anything is timed
            server = subprocess.Popen(  # noqa: ASYNC220
                [sys.executable, "-m", "subterra_game.web", "--port", str(port), "--data", data], cwd=ROOT, env=env,
                stdout=subprocess.DEVNULL, stderr=err)
        base = f"http://127.0.0.1:{port}"
        try:
            async with aiohttp.ClientSession() as cs:
                for _ in range(600):  # the server's start (loading the compiled rules from numba's cache)
                    if server.poll() is not None:
                        raise RuntimeError(f"subterra serve exited: {log.read_text()[-2000:]}")
                    try:
                        async with cs.get(base + "/api/options") as r:
                            if r.status == 200:
                                break
                    except aiohttp.ClientConnectionError:
                        await asyncio.sleep(0.1)
                await page_load(cs, base)  # warm
                loads = [await page_load(cs, base) for _ in range(5)]
                deadline = time.perf_counter() + args.max_seconds
                times: list[float] = []
                results = []
                for g in range(args.games):
                    if time.perf_counter() > deadline:
                        break
                    t, res = await one_game(cs, base, args.preset, g, args.bots, deadline)
                    times += t
                    results.append(res)
        finally:
            server.terminate()
            server.wait(10)
    ms = np.array(times) * 1000
    return {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
            "settings": vars(args), "games": len(results), "results": results, "round_trips": len(ms),
            "round_trip_ms": {"median": float(np.median(ms)), "p95": float(np.percentile(ms, 95)),
                              "max": float(ms.max())} if len(ms) else {},
            "page_load_ms": {"median": float(np.median(loads) * 1000), "max": float(max(loads) * 1000)},
            "round_trip_ms_all": [round(float(x), 3) for x in ms]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--preset", default="tiny")
    p.add_argument("--bots", default="heuristic", choices=("heuristic", "search", "random"))
    p.add_argument("--max-seconds", type=float, default=120.0)
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "web_roundtrip.json"))
    args = p.parse_args(argv)
    res = asyncio.run(run(args))
    rt = res["round_trip_ms"]
    print(f"{res['games']} games ({args.preset}, {args.bots} bots), {res['round_trips']} round trips: "
          f"median {rt.get('median', float('nan')):.1f} ms, p95 {rt.get('p95', float('nan')):.1f} ms, "
          f"max {rt.get('max', float('nan')):.1f} ms; first page load (warm) median "
          f"{res['page_load_ms']['median']:.1f} ms; results {res['results']}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
