"""SQLite per call against a one-row read-modify-write, from 1k to 100k calls in one session.

The floor: ``BEGIN IMMEDIATE``, read one small JSON row, change it, write it back, ``COMMIT``
(WAL, ``synchronous=NORMAL``, as the store runs), timed in the same process and file.

The store per call: a Guard on a ``SQLiteStore`` runs a long realistic session (reads, greps,
edits, searches, MCP calls and repeats; no shell commands, so no parser time), and each
``store.update`` is timed without the guard's own function inside it (what the store costs:
reading, decoding, encoding, writing, committing). Reported at the calls around 1k, 10k and
100k, so a cost that grows with the session shows.

    .venv/bin/python benchmarks/bench_store_calls.py [--calls 100000] [--cpu]

``--cpu`` times with this process's CPU clock instead of the wall clock (steady on a loaded
machine; SQLite in WAL with ``synchronous=NORMAL`` does not wait for the disk on a commit).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CHECKPOINTS = (1_000, 10_000, 100_000)
CLOCK: list[Any] = [time.perf_counter]  # --cpu: time.process_time
WINDOW = 500  # updates measured around each checkpoint


def floor(path: Path, rounds: int = 3000) -> float:
    """Return the median µs of a one-row JSON read-modify-write in its own transaction."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("CREATE TABLE IF NOT EXISTS floor (id TEXT PRIMARY KEY, state TEXT, updated REAL)")
    conn.execute("INSERT OR REPLACE INTO floor VALUES ('s', ?, 0)", (json.dumps({"calls": 0}),))
    times = []
    clock = CLOCK[0]
    for _ in range(rounds):
        t0 = clock()
        conn.execute("BEGIN IMMEDIATE")
        state = json.loads(conn.execute("SELECT state FROM floor WHERE id = 's'").fetchone()[0])
        state["calls"] += 1
        conn.execute(
            "UPDATE floor SET state = ?, updated = ? WHERE id = 's'",
            (json.dumps(state), time.time()),
        )
        conn.execute("COMMIT")
        times.append(clock() - t0)
    conn.close()
    return statistics.median(times) * 1e6


def session(n: int) -> tuple[str, dict[str, Any], str]:
    """Return call ``n`` of a long session: mostly new calls, some repeats, edits, searches."""
    k = n % 97
    if k < 40:
        return "Read", {"file_path": f"src/pkg_{n % 311}/mod_{n % 53}.py"}, f"     1→x = {n % 7}\n"
    if k < 60:
        return "Grep", {"pattern": f"def f{n % 131}", "path": "src"}, f"src/a.py:{n % 11}: def"
    if k < 75:
        old, new = f"v = {n % 5}", f"v = {(n + 1) % 5}"
        edit = {"file_path": f"src/m{n % 17}.py", "old_string": old, "new_string": new}
        return "Edit", edit, "The file has been updated."
    if k < 90:
        return "WebSearch", {"query": f"python error {n % 211}"}, f"1. result {n % 13}"
    return "mcp__issues__issue_ready", {}, "No ready issues available"


def run(calls: int, path: Path) -> dict[int, list[float]]:
    """Return µs per store update (the guard's function excluded) around each checkpoint."""
    from tether.guard import Guard
    from tether.model import ToolCall, ToolResult
    from tether.store.sqlite import SQLiteStore

    store = SQLiteStore(path)
    inner = [0.0]
    clock = CLOCK[0]
    original = store.update

    def update(session_id: str, fn: Any) -> Any:
        def timed(state: Any) -> Any:
            t0 = clock()
            try:
                return fn(state)
            finally:
                inner[0] = clock() - t0

        t0 = clock()
        out = original(session_id, timed)
        samples.append((clock() - t0 - inner[0]) * 1e6)
        return out

    store.update = update  # type: ignore[method-assign]
    guard = Guard(store=store)
    found: dict[int, list[float]] = {}
    samples: list[float] = []
    t = 1_700_000_000.0
    for n in range(calls):
        tool, args, output = session(n)
        call = ToolCall("long", tool, args, f"toolu_{n:08d}", None, t)
        guard.before_call(call)
        guard.after_call(ToolResult(call, output, None, False, t + 1))
        t += 3
        for mark in CHECKPOINTS:
            if mark - WINDOW // 2 <= n < mark + WINDOW // 2 and n < calls:
                found.setdefault(mark, [])
        if n + 1 in {m + WINDOW // 2 for m in CHECKPOINTS}:
            found[n + 1 - WINDOW // 2] = samples[-2 * WINDOW :]
    store.close()
    return found


def main() -> int:
    """Print the floor and the per-update store cost at each checkpoint."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--cpu", action="store_true", help="time with the CPU clock")
    args = parser.parse_args()
    if args.cpu:
        CLOCK[0] = time.process_time
    with tempfile.TemporaryDirectory() as tmp:
        base = floor(Path(tmp) / "floor.db")
        found = run(args.calls, Path(tmp) / "state.db")
    print(f"one-row read-modify-write (floor): median {base:.0f} µs\n")
    print("| calls in the session | store per update, median µs | p90 µs | × floor |")
    print("|---:|---:|---:|---:|")
    for mark, times in sorted(found.items()):
        if not times:
            continue
        med = statistics.median(times)
        p90 = sorted(times)[int(len(times) * 0.9)]
        print(f"| {mark:,} | {med:.0f} | {p90:.0f} | {med / base:.2f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
