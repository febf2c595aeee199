"""The isolated classification worker: round trip of a persistent worker vs a fresh process.

Run from the repository root:

    .venv/bin/python benchmarks/bench_worker.py [ROUNDS]   (default 200 persistent, 20 fresh)

Prints the table of docs/benchmarks.md, section "Danger and approval". A 4 KB command (a real
shell script: a loop, pipes, a heredoc) is classified (1) in-process, (2) by the persistent
worker `IsolatedClassifier` (request and verdict over its pipes, schema check included), and
(3) by a fresh `python -m tether.approval.worker` per command (spawn, import, classify, exit),
which is what a worker without supervision would cost. Also timed: the worker's cold start and
the time to recover after a crash (kill, replace, next verdict).
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tether.approval.evaluate import evaluate
from tether.approval.isolation import IsolatedClassifier, default_argv, scrubbed_env
from tether.approval.policy import Policy
from tether.errors import WorkerError

SCRIPT_LINE = 'for f in src/*.py; do grep -n "TODO" "$f" | sed "s/^/$f:/" >> todo.txt; done\n'


def four_kb_script() -> str:
    """Return a realistic shell script just over the default 4,096-character threshold."""
    body = SCRIPT_LINE * 48 + "cat <<'EOF' > notes.md\n" + "- item\n" * 60 + "EOF\n"
    return body + "git status --short\n"


def four_kb_word() -> str:
    """Return a 4 KB command that is cheap to classify, to show the pipe's own cost."""
    return "echo " + "x" * 4100


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p50 = statistics.median(ordered)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"{p50 * 1000:.2f} ms | {p95 * 1000:.2f} ms"


def main() -> int:
    """Run the measurements and print the results table."""
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    policy = Policy()
    rows = []
    worker = IsolatedClassifier()
    t0 = time.perf_counter()
    worker.evaluate(four_kb_word(), policy)
    cold = time.perf_counter() - t0
    for label, command in (("one 4 KB word", four_kb_word()), ("4 KB script", four_kb_script())):
        local = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            evaluate(command)
            local.append(time.perf_counter() - t0)
        persistent = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            worker.evaluate(command, policy)
            persistent.append(time.perf_counter() - t0)
        rows.append((f"{label} ({len(command):,} chars), in-process", local))
        rows.append((f"{label}, persistent worker (pipe + schema check)", persistent))

    command = four_kb_word()
    recover = []
    for _ in range(5):
        pid = worker.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        t0 = time.perf_counter()
        # The crash is the point: it is reported (WorkerError) and the worker replaced.
        with contextlib.suppress(WorkerError):
            worker.evaluate(command, policy)
        worker.evaluate(command, policy)
        recover.append(time.perf_counter() - t0)
    worker.close()

    fresh = []
    request = json.dumps({"id": 1, "mode": "evaluate", "command": command}).encode() + b"\n"
    cwd = str(Path(__file__).resolve().parents[1] / "src")
    for _ in range(max(5, rounds // 10)):
        t0 = time.perf_counter()
        subprocess.run(
            default_argv(),
            input=request,
            capture_output=True,
            env=scrubbed_env(),
            cwd=cwd,
            check=True,
        )
        fresh.append(time.perf_counter() - t0)
    rows.append(("one 4 KB word, fresh `python -m tether.approval.worker` per command", fresh))
    rows.append(("recovery after SIGKILL (fail closed, replace, next verdict)", recover))

    print(f"Python {platform.python_version()}, {platform.machine()}, {platform.system()}")
    print()
    print("| classification | p50 | p95 |")
    print("|---|---|---|")
    for label, samples in rows:
        print(f"| {label} | {_ms(samples)} |")
    print(f"| worker cold start (spawn, imports, first verdict) | {cold * 1000:.0f} ms | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
