"""Session state size and the SQLite cost of one update, packed (now) against stored in full.

A 300-call session (each call distinct, so the signature table is full) is built through a
Guard, then one SQLite update of that state is timed many times both ways.

    .venv/bin/python benchmarks/bench_state_size.py [--repeat 200]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import tempfile
import time
from pathlib import Path

from tether.guard import Guard
from tether.loops.state import coerce
from tether.model import ToolCall, ToolResult
from tether.store.sqlite import SQLiteStore


def main() -> int:
    """Print the sizes and the per-update times."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "state.db")
        guard = Guard(store=store)
        for i in range(300):
            call = ToolCall(
                "s", "Bash", {"command": f"grep -rn 'p_{i}' src/ | head"}, f"toolu_01AB{i:020d}"
            )
            guard.before_call(call)
            guard.after_call(ToolResult(call, f"out {i}"))
        packed = store.load("s")
        assert packed is not None
        full = coerce(copy.deepcopy(packed))
        print("| stored as | JSON bytes | SQLite update p50 ms | p90 ms |")
        print("|---|---:|---:|---:|")
        for label, state in (("in full (before)", full), ("packed (now)", packed)):
            times = []
            for n in range(args.repeat):
                value = copy.deepcopy(state)
                value["calls"] = n
                t0 = time.perf_counter()
                store.update("bench", lambda _, v=value: v)
                times.append(time.perf_counter() - t0)
            size = len(json.dumps(state, separators=(",", ":")))
            p50 = statistics.median(times) * 1000
            p90 = sorted(times)[int(len(times) * 0.9)] * 1000
            print(f"| {label} | {size:,} | {p50:.2f} | {p90:.2f} |")
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
