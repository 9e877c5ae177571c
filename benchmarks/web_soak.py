"""Many tables at once on one `subterra serve`, each with bots and one scripted person, for a bounded time.

    python -m benchmarks.web_soak                         # 50 tables for 300 s (the issue's target)
    python -m benchmarks.web_soak --tables 10 --seconds 30   # a short look

Starts ``subterra serve`` as a child process on 127.0.0.1 and a free port, then runs ``--tables`` scripted people
at once, each in a loop: open a table (``--preset``, seat 0 a person, three ``--bots`` at zero delay), play seat 0
(the first legal action that is not 'end turn') to the end, start the next; until ``--seconds`` have passed, then
each finishes its game (at most 60 s more). Counts games finished, round trips, errors (an error message, a refused
table, a dropped socket), and checks every finished game's record replays (``replay_record``: result and final
state hash): a game that does not is "lost". Samples the server's resident memory (VmRSS) every 5 s. Prints a
summary and writes JSON (default benchmarks/results/web_soak.json). Loopback only; bounded in count and time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.web_roundtrip import free_port
from subterra_game.records import RecordError, load_record, replay_record

ROOT = Path(__file__).resolve().parents[1]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def person(cs, base: str, args: argparse.Namespace, stop: float, out: dict) -> None:
    """One scripted person: game after game until ``stop``."""
    seed = 0
    while time.monotonic() < stop:
        seed += 1
        body = {"preset": args.preset, "seed": seed, "seats": ["human"] + [args.bots] * 3, "delay": 0}
        async with cs.post(base + "/api/tables", json=body) as r:
            doc = await r.json()
            if r.status != 201:
                out["errors"].append(f"new table: {doc}")
                continue
        try:
            async with cs.ws_connect(f"{base}/ws/{doc['table']}") as ws:
                await ws.send_json({"type": "join", "seat": 0, "token": doc["seats"][0]["token"]})
                m = await ws.receive_json(timeout=120)
                while not m.get("over"):
                    if m.get("type") == "error":
                        out["errors"].append(m["message"])
                        break
                    if m["board"]["team"]["actor"] != 0:
                        m = await ws.receive_json(timeout=120)
                        continue
                    legal = m["board"]["legal"]
                    action = next((a for a in legal if a["name"] != "end turn"), legal[0])["id"]
                    t0 = time.perf_counter()
                    await ws.send_json({"type": "act", "action": action, "step": m["decisions"]})
                    while True:
                        r = await ws.receive_json(timeout=120)
                        if r.get("type") == "error" or r["decisions"] == m["decisions"] + 1:
                            break
                    if r.get("type") == "error":
                        out["errors"].append(r["message"])
                        break
                    out["round_trips"].append(time.perf_counter() - t0)
                    m = r
                else:
                    out["games"].append(doc["table"])
        except (TypeError, KeyError, asyncio.TimeoutError, ConnectionError) as e:
            out["errors"].append(f"table {doc['table']}: {type(e).__name__}: {e}")


async def run(args: argparse.Namespace) -> dict:
    import aiohttp

    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out: dict = {"games": [], "round_trips": [], "errors": [], "rss_mb": []}
    with tempfile.TemporaryDirectory(prefix="subterra-soak-") as data:
        with (Path(data) / "server.log").open("w") as err:
            server = subprocess.Popen(  # noqa: ASYNC220
                [sys.executable, "-m", "subterra_game.web", "--port", str(port), "--data", data], cwd=ROOT, env=env,
                stdout=subprocess.DEVNULL, stderr=err)
        base = f"http://127.0.0.1:{port}"
        try:
            async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as cs:
                for _ in range(600):
                    try:
                        async with cs.get(base + "/api/options") as r:
                            if r.status == 200:
                                break
                    except aiohttp.ClientConnectionError:
                        await asyncio.sleep(0.1)
                t_start = time.monotonic()
                stop = t_start + args.seconds

                async def sample() -> None:
                    while time.monotonic() < stop + 60:
                        out["rss_mb"].append((round(time.monotonic() - t_start, 1), round(rss_mb(server.pid), 1)))
                        await asyncio.sleep(5)

                sampler = asyncio.create_task(sample())
                people = [person(cs, base, args, stop, out) for _ in range(args.tables)]
                await asyncio.wait_for(asyncio.gather(*people), args.seconds + 60)
                sampler.cancel()
                out["rss_mb"].append((round(time.monotonic() - t_start, 1), round(rss_mb(server.pid), 1)))
        finally:
            server.terminate()
            server.wait(10)
        lost = []
        for table_id in out["games"]:
            try:
                doc = load_record(Path(data) / "records" / f"{table_id}.json")
                replay_record(doc, verify=True)
                if not doc["result"]["finished"]:
                    lost.append(f"{table_id}: saved unfinished")
            except RecordError as e:
                lost.append(str(e))
    ms = np.array(out["round_trips"]) * 1000
    return {"settings": vars(args), "games": len(out["games"]), "lost": lost, "errors": out["errors"][:20],
            "error_count": len(out["errors"]), "round_trips": len(ms),
            "round_trip_ms": {"median": float(np.median(ms)), "p95": float(np.percentile(ms, 95))} if len(ms) else {},
            "rss_mb": out["rss_mb"]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=50)
    p.add_argument("--seconds", type=float, default=300)
    p.add_argument("--preset", default="tiny")
    p.add_argument("--bots", default="heuristic", choices=("heuristic", "random"))
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "web_soak.json"))
    args = p.parse_args(argv)
    res = asyncio.run(run(args))
    rss = [m for _, m in res["rss_mb"]]
    rt = res["round_trip_ms"]
    print(f"{args.tables} tables for {args.seconds:g} s: {res['games']} games finished, {len(res['lost'])} lost, "
          f"{res['error_count']} errors; {res['round_trips']} round trips, median {rt.get('median', 0):.1f} ms, "
          f"p95 {rt.get('p95', 0):.1f} ms; server memory {rss[0]:.0f} MB at the start, {max(rss):.0f} MB at most, "
          f"{rss[-1]:.0f} MB at the end")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1))
    return 0 if not res["lost"] and not res["error_count"] else 1


if __name__ == "__main__":
    sys.exit(main())
