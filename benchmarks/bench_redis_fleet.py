"""Redis for fleets: decisions per second and latency with 1 and 32 agents, own or one session.

Each agent is a separate process running a ``Guard`` on a ``RedisStore`` (its own throwaway
``redis-server`` on a free port), making tool calls (reads, greps, edits, searches: no shell
commands, so no parser time) with ``before_call`` + ``after_call``: two decisions per call.
"own": every agent has its session (a fleet); "shared": all 32 write one session (one agent's
parallel tool calls, the worst case). After each run the stored call counts are checked against
the calls made (lost updates). The last column is the agents' own CPU time per decision (guard,
store client, JSON): what each decision costs a fleet's machines whatever the load.

    .venv/bin/python benchmarks/bench_redis_fleet.py [--calls 150] [--agents 1 32]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

WORKER = r"""
import json, os, sys, time
url, prefix, session, calls, go = sys.argv[1:6]
calls = int(calls)
from tether.guard import Guard
from tether.model import ToolCall, ToolResult
from tether.store.redis_store import RedisStore
store = RedisStore(url, key_prefix=prefix)
guard = Guard(store=store)
store.load(session)  # connect before the clock starts
pid = os.getpid()
open(go + f".ready.{pid}", "w").close()
while not os.path.exists(go):
    time.sleep(0.01)
lat = []
start = time.time()
cpu = time.process_time()
for n in range(calls):
    k = n % 5
    tool, args, out = (
        ("Read", {"file_path": f"src/m{n % 40}.py"}, f"x = {n}") if k < 2 else
        ("Grep", {"pattern": f"p{n % 30}", "path": "src"}, "src/a.py:1: p") if k < 4 else
        ("WebSearch", {"query": f"q{n % 25}"}, f"result {n % 3}")
    )
    call = ToolCall(session, tool, args, f"c{pid}-{n}")
    t0 = time.perf_counter()
    guard.before_call(call)
    t1 = time.perf_counter()
    guard.after_call(ToolResult(call, out))
    t2 = time.perf_counter()
    lat += [t1 - t0, t2 - t1]
end = time.time()
cpu = time.process_time() - cpu
store.close()
print(json.dumps({"start": start, "end": end, "lat": lat, "cpu": cpu}))
"""


def run(url: str, agents: int, calls: int, shared: bool, tag: str) -> dict[str, float]:
    """Run ``agents`` processes; return decisions/s, p50/p99 ms and lost updates."""
    from tether.store.redis_store import RedisStore

    prefix = f"bench:{tag}:"
    with tempfile.TemporaryDirectory() as tmp:
        go = os.path.join(tmp, "go")
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    WORKER,
                    url,
                    prefix,
                    "one" if shared else f"a{i}",
                    str(calls),
                    go,
                ],
                stdout=subprocess.PIPE,
            )
            for i in range(agents)
        ]
        deadline = time.time() + 120
        while len([f for f in os.listdir(tmp) if ".ready." in f]) < agents:
            if time.time() > deadline:
                raise SystemExit("workers did not start")
            time.sleep(0.05)  # every worker imported and connected
        time.sleep(0.2)
        Path(go).touch()
        outs = [json.loads(p.communicate()[0]) for p in procs]
    start = min(o["start"] for o in outs)
    end = max(o["end"] for o in outs)
    lat = sorted(x for o in outs for x in o["lat"])
    store = RedisStore(url, key_prefix=prefix)
    sessions = ["one"] if shared else [f"a{i}" for i in range(agents)]
    stored = sum(int((store.load(s) or {}).get("calls", 0)) for s in sessions)
    store.close()
    return {
        "decisions_s": len(lat) / (end - start),
        "p50": statistics.median(lat) * 1000,
        "p99": lat[int(len(lat) * 0.99) - 1] * 1000,
        "lost": agents * calls - stored,
        "cpu": sum(o["cpu"] for o in outs) / len(lat) * 1e6,
    }


def main() -> int:
    """Print the table."""
    from bench_store import start_redis

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=150, help="calls per agent")
    parser.add_argument("--agents", type=int, nargs="+", default=[1, 32])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server, url = start_redis(tmp)
        try:
            print(
                "| agents | sessions | decisions/s | p50 ms | p99 ms | lost updates "
                "| agent CPU µs per decision |"
            )
            print("|---:|---|---:|---:|---:|---:|---:|")
            for n in args.agents:
                for shared in (False, True) if n > 1 else (False,):
                    r = run(url, n, args.calls, shared, f"{n}{'s' if shared else 'o'}")
                    print(
                        f"| {n} | {'one shared' if shared else 'own'} | {r['decisions_s']:,.0f} | "
                        f"{r['p50']:.1f} | {r['p99']:.1f} | {int(r['lost'])} | {r['cpu']:.0f} |"
                    )
        finally:
            server.terminate()
            server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
