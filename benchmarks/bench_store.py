"""Measure the session stores: updates per second under 1 and 8 writer processes, and open cost.

Run from the repo root:

    .venv/bin/python benchmarks/bench_store.py            # starts its own redis-server
    .venv/bin/python benchmarks/bench_store.py --quick    # fewer updates and runs

Each writer is a separate process (as hooks are). An update is the guard's pattern: read the
session's state (a ~5 KB JSON dict with a 64-entry window), count a call, push a fingerprint,
write it back atomically. "shared" means every writer updates the same session (the worst
case: one agent's parallel tool calls); "own" gives each writer its own session (a fleet).
The open cost is the wall time of a fresh ``python`` process that opens the SQLite store and
does one update, against a bare ``python -c pass``. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORKER = r"""
import json, os, sys, time
backend, target, prefix, go, session, count = sys.argv[1:7]
if backend == "sqlite":
    from tether.store.sqlite import SQLiteStore
    store = SQLiteStore(target)
else:
    from tether.store.redis_store import RedisStore
    store = RedisStore(target, key_prefix=prefix)
runs = 0
def step(state):
    global runs
    runs += 1
    state = state or {"calls": 0, "warnings": 0, "blocks": 0, "streaks": {}, "window": []}
    n = state["calls"] = state["calls"] + 1
    state["window"] = (state["window"] + [["Bash", "%032x" % n, "%032x" % (n * 7), 0]])[-64:]
    state["updated"] = time.time()
    return state
store.load(session)  # connect before the clock starts
while not os.path.exists(go):
    time.sleep(0.0005)
start = time.time()
for _ in range(int(count)):
    store.update(session, step)
end = time.time()
store.close()
print(json.dumps({"start": start, "end": end, "runs": runs}))
"""

OPEN_SQLITE = (
    "from tether.store.sqlite import SQLiteStore; s = SQLiteStore({path!r}); "
    "s.update('bench', lambda st: {{'calls': (st or {{}}).get('calls', 0) + 1}}); s.close()"
)
OPEN_REDIS = (
    "from tether.store.redis_store import RedisStore; s = RedisStore({url!r}); "
    "s.update('bench', lambda st: {{'calls': (st or {{}}).get('calls', 0) + 1}}); s.close()"
)
HOOK_BASE = "import tether.model; from tether.config import load_config"
OPEN_CONFIGURED = (
    "from tether.config import load_config; from tether.store.open import open_store; "
    "s = open_store(load_config()); "
    "s.update('bench', lambda st: {{'calls': (st or {{}}).get('calls', 0) + 1}}); s.close()"
)

# Inside a fresh process, after the imports every hook does anyway: what the store adds.
INPROC = r"""
import json, sys, time
import tether.model
from tether.config import load_config
backend, target = sys.argv[1:3]
t0 = time.perf_counter()
if backend == "sqlite":
    from tether.store.sqlite import SQLiteStore as Store
    t1 = time.perf_counter()
    s = Store(target)
else:
    from tether.store.redis_store import RedisStore as Store
    t1 = time.perf_counter()
    s = Store(target, key_prefix="bench-open:")
t2 = time.perf_counter()
s.update("bench", lambda st: {"calls": (st or {}).get("calls", 0) + 1})
t3 = time.perf_counter()
s.close()  # SQLite: the last connection to close checkpoints the WAL (fsyncs) and removes it
t4 = time.perf_counter()
print(json.dumps([(b - a) * 1000 for a, b in [(t0, t1), (t1, t2), (t2, t3), (t3, t4)]]))
"""


def in_process(
    variants: list[tuple[str, str, str]], runs: int, env: dict[str, str]
) -> list[list[float]]:
    """Return median ms of (import, construct, first update, close) per variant, interleaved."""
    samples: list[list[list[float]]] = [[] for _ in variants]
    for run in range(runs):
        for i, (_, backend, target) in enumerate(variants):
            target = target.format(run=run)
            out = subprocess.run(
                [sys.executable, "-c", INPROC, backend, target],
                check=True,
                env=env,
                capture_output=True,
                text=True,
            ).stdout
            samples[i].append(json.loads(out))
    return [[statistics.median(col) for col in zip(*rows, strict=True)] for rows in samples]


def throughput(
    backend: str, target: str, prefix: str, writers: int, per_writer: int, shared: bool
) -> tuple[float, float]:
    """Return updates/s of ``writers`` processes × ``per_writer`` updates, and runs per update."""
    with tempfile.TemporaryDirectory() as tmp:
        go = Path(tmp) / "go"
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    WORKER,
                    backend,
                    target,
                    prefix,
                    str(go),
                    "shared" if shared else f"own-{i}",
                    str(per_writer),
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            for i in range(writers)
        ]
        time.sleep(0.5 + 0.1 * writers)  # let every interpreter start and connect
        go.touch()
        spans = []
        for proc in procs:
            out, _ = proc.communicate(timeout=600)
            if proc.returncode:
                raise SystemExit(f"a {backend} writer failed with status {proc.returncode}")
            spans.append(json.loads(out))
    elapsed = max(s["end"] for s in spans) - min(s["start"] for s in spans)
    done = writers * per_writer
    return done / elapsed, sum(s["runs"] for s in spans) / done


def process_times(codes: list[str], runs: int, env: dict[str, str]) -> list[tuple[float, float]]:
    """Return p50 and p95 wall ms of a fresh ``python -c code`` for each code.

    The variants take turns run by run, so a burst of load on the machine hits them all alike.
    """
    times: list[list[float]] = [[] for _ in codes]
    for _ in range(runs):
        for i, code in enumerate(codes):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, env=env)
            times[i].append((time.perf_counter() - start) * 1000)
    result = []
    for series in times:
        series.sort()
        result.append((statistics.median(series), series[min(runs - 1, int(0.95 * runs))]))
    return result


def start_redis(workdir: str) -> tuple[subprocess.Popen[bytes], str]:
    """Start a throwaway redis-server on a free loopback port."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server not found: apt-get install redis-server")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", workdir,
         "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    for _ in range(200):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as conn:
                conn.sendall(b"PING\r\n")
                if conn.recv(16).startswith(b"+PONG"):
                    return proc, f"redis://127.0.0.1:{port}/0"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("redis-server did not answer PING")


def main() -> None:
    """Run the measurements and print the results table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer updates and runs")
    parser.add_argument("--redis-url", help="use this server instead of starting one")
    opts = parser.parse_args()
    total = 800 if opts.quick else 4000
    runs = 10 if opts.quick else 30

    with tempfile.TemporaryDirectory() as tmp:
        proc = None
        url = opts.redis_url
        if url is None:
            proc, url = start_redis(tmp)
        try:
            rows = []
            for backend in ("sqlite", "redis"):
                for writers, shared in ((1, True), (8, True), (8, False)):
                    target = str(Path(tmp) / f"{backend}-{writers}-{shared}.db")
                    prefix = f"bench:{time.time_ns()}:"
                    rate, runs_per = throughput(
                        backend,
                        target if backend == "sqlite" else url,
                        prefix,
                        writers,
                        total // writers,
                        shared,
                    )
                    label = "one shared session" if shared else "one session each"
                    rows.append((backend, writers, label, rate, runs_per))

            env = {
                "PATH": os.environ.get("PATH", ""),
                "HOME": tmp,
                "XDG_STATE_HOME": str(Path(tmp) / "state"),
                "XDG_CONFIG_HOME": str(Path(tmp) / "config"),
                "XDG_CACHE_HOME": str(Path(tmp) / "cache"),
            }
            db = str(Path(tmp) / "open.db")
            subprocess.run([sys.executable, "-c", OPEN_SQLITE.format(path=db)], check=True, env=env)
            starts = [
                ("python -c pass (bare interpreter)", "pass"),
                ("import sqlite3, json", "import sqlite3, json"),
                ("import tether.store.sqlite", "import tether.store.sqlite"),
                ("SQLiteStore(path) + one update", OPEN_SQLITE.format(path=db)),
                ("open_store(load_config()) + one update", OPEN_CONFIGURED.format()),
                ("RedisStore(url) + one update", OPEN_REDIS.format(url=url)),
                ("import tether.model, tether.config (hook baseline)", HOOK_BASE),
                (
                    "the same + SQLiteStore(path) + one update",
                    f"{HOOK_BASE}; " + OPEN_SQLITE.format(path=db),
                ),
            ]
            measured = process_times([code for _, code in starts], runs, env)
            variants = [
                ("sqlite, existing file", "sqlite", db),
                ("sqlite, new file (creates schema)", "sqlite", str(Path(tmp) / "new-{run}.db")),
                ("redis (imports redis-py)", "redis", url),
            ]
            marginal = [
                (label, *ms)
                for (label, _, _), ms in zip(variants, in_process(variants, runs, env), strict=True)
            ]
            timings = [
                (label, p50, p95) for (label, _), (p50, p95) in zip(starts, measured, strict=True)
            ]
        finally:
            if proc is not None:
                proc.terminate()
                proc.wait()

    print(f"updates per second ({total} updates in all; ~5 KB state with a 64-entry window)\n")
    print("| backend | writer processes | sessions | updates/s | fn runs per update |")
    print("|---|---|---|---|---|")
    for backend, writers, label, rate, runs_per in rows:
        print(f"| {backend} | {writers} | {label} | {rate:,.0f} | {runs_per:.2f} |")
    print(f"\nfresh process, wall ms over {runs} runs\n")
    print("| process | p50 ms | p95 ms |")
    print("|---|---|---|")
    for label, p50, p95 in timings:
        print(f"| {label} | {p50:.1f} | {p95:.1f} |")
    print(f"\nadded to a fresh process after the hook's own imports, median ms of {runs} runs\n")
    print("| store | import module | construct | first update (connects) | close | total |")
    print("|---|---|---|---|---|---|")
    for label, *ms in marginal:
        cells = " | ".join(f"{m:.2f}" for m in ms)
        print(f"| {label} | {cells} | {sum(ms):.2f} |")


if __name__ == "__main__":
    main()
