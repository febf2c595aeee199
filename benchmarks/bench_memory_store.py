"""Memory store growth: RSS while one Guard serves 20,000 sessions (as `tether serve` would).

Each session makes a few calls (a Grep, a Bash read, an Edit), so its state is the size a
real short session leaves behind. Prints RSS every 2,500 sessions for the bounded store (the
default cap) and, for comparison, with the cap lifted (the old unbounded behaviour).

    .venv/bin/python benchmarks/bench_memory_store.py [--sessions 20000]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys

CHILD = """
import json, sys
from tether.guard import Guard
from tether.model import ToolCall, ToolResult
from tether.store.memory import MemoryStore

sessions, cap = int(sys.argv[1]), int(sys.argv[2])
guard = Guard(store=MemoryStore(max_sessions=cap))

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20

rows = []
for s in range(sessions):
    sid = f"session-{s:06d}"
    calls = [
        ("Grep", {"pattern": f"name_{s}", "path": "src"}, "No matches found"),
        ("Bash", {"command": f"git log -n {s % 50} --oneline"}, "abc123 fix\\n" * 20),
        ("Edit", {"file_path": f"src/m{s}.py", "old_string": "a", "new_string": "b"}, "ok"),
        ("Bash", {"command": "ls -la"}, "total 0\\n" * 30),
    ]
    for i, (tool, args, out) in enumerate(calls):
        call = ToolCall(sid, tool, args, f"c{i}")
        guard.before_call(call)
        guard.after_call(ToolResult(call, out))
    if (s + 1) % 2500 == 0:
        rows.append([s + 1, round(rss_mb(), 1), len(guard.store.sessions())])
print(json.dumps(rows))
"""


def run(sessions: int, cap: int) -> list[list[float]]:
    """Return [sessions seen, RSS MB, sessions held] rows from a fresh process."""
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(sessions), str(cap)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows: list[list[float]] = json.loads(out)
    return rows


def main() -> int:
    """Run bounded and unbounded, print the table."""
    from tether.store.memory import DEFAULT_MAX_SESSIONS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20_000)
    args = parser.parse_args()
    bounded = run(args.sessions, DEFAULT_MAX_SESSIONS)
    unbounded = run(args.sessions, 10**9)
    print(f"Python {platform.python_version()}; memory store cap {DEFAULT_MAX_SESSIONS:,}\n")
    print("| sessions seen | RSS bounded (MB) | held | RSS unbounded (MB) | held |")
    print("|---:|---:|---:|---:|---:|")
    for b, u in zip(bounded, unbounded, strict=True):
        print(f"| {b[0]:,} | {b[1]} | {b[2]:,} | {u[1]} | {u[2]:,} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
