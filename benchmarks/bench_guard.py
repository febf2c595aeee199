"""Loop-guard speed: per-call overhead, result fingerprinting, and replay of the real corpus.

Run: ``.venv/bin/python benchmarks/bench_guard.py`` (add ``--quick`` for a smoke run). Prints a
Markdown table for docs/benchmarks.md. Timings are wall-clock on whatever machine runs this;
the machine's load shows in the numbers, so compare runs on the same machine.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "real" / "trajectories"


def pct(values: list[float], p: float) -> float:
    """Return the p-th percentile (0-100) of ``values``."""
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def bench_overhead(n: int) -> dict[str, float]:
    """before_call + after_call per call, memory store, non-shell tools (no classification)."""
    from tether.guard import Guard
    from tether.model import ToolCall, ToolResult

    guard = Guard()
    # A mix of distinct reads, edits and a read repeated with the same result. Outputs are
    # short: hashing a result costs time linear in its size, measured on its own below.
    calls = []
    for i in range(n):
        if i % 10 == 9:
            calls.append(("Read", {"file_path": "src/app.py"}, "def main(): pass"))
        elif i % 10 == 5:
            edit = {"file_path": f"src/m{i}.py", "old_string": "a", "new_string": "b"}
            calls.append(("Edit", edit, "The file has been updated."))
        else:
            calls.append(("Grep", {"pattern": f"name_{i}", "path": "src"}, "No matches found"))
    times: list[float] = []
    clock = time.perf_counter
    gc.disable()
    for i, (tool, args, out) in enumerate(calls):
        call = ToolCall("bench", tool, args, f"c{i}")
        result = ToolResult(call, out)
        t0 = clock()
        guard.before_call(call)
        guard.after_call(result)
        times.append(clock() - t0)
    gc.enable()
    us = [t * 1e6 for t in times[100:]]  # skip warm-up
    return {
        "p50": pct(us, 50),
        "p95": pct(us, 95),
        "p99": pct(us, 99),
        "mean": statistics.fmean(us),
    }


def bench_fingerprint(rounds: int) -> dict[str, float]:
    """result_fingerprint of ~1 MB of real tool output (and of a typical 4 KB result)."""
    from tether.loops.fingerprint import result_fingerprint

    texts = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        for line in path.read_text().splitlines()[1:]:
            r = json.loads(line).get("result")
            if isinstance(r, str):
                texts.append(r)
    big = "\n".join(texts)[:1_000_000]
    small = big[:4096]
    out: dict[str, float] = {}
    for name, text in (("1MB", big), ("4KB", small)):
        result_fingerprint(text)  # warm-up, not timed
        ms = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            result_fingerprint(text)
            ms.append((time.perf_counter() - t0) * 1000)
        out[name + "_p50_ms"] = pct(ms, 50)
        out[name + "_max_ms"] = max(ms)
    return out


def bench_replay(hard_stop: bool) -> dict[str, float]:
    """Replay all real sessions through the whole guard (classification included)."""
    from tether.config import DEFAULT_CONFIG
    from tether.guard import Guard
    from tether.replay import load, replay

    cfg = DEFAULT_CONFIG.with_values({"loops.hard_stop": hard_stop})
    files = sorted(CORPUS.glob("*.jsonl"))
    # Warm up the parser and the catalogues once, outside the timing.
    replay(load(files[0]), Guard(cfg))
    calls = 0
    t0 = time.perf_counter()
    outcomes = []
    for path in files:
        outcome = replay(load(path), Guard(cfg))
        calls += len(outcome.steps)
        outcomes.append(outcome)
    seconds = time.perf_counter() - t0
    blocked = sum(1 for o in outcomes if o.summary()["first_block"] is not None)
    warned = sum(o.summary()["warn"] for o in outcomes)
    return {
        "files": len(files),
        "calls": calls,
        "seconds": seconds,
        "us_per_call": seconds / calls * 1e6,
        "files_blocked": blocked,
        "warnings": warned,
    }


def main() -> int:
    """Run every benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    args = parser.parse_args()
    n, rounds = (3_000, 5) if args.quick else (30_000, 30)
    if not CORPUS.is_dir():
        sys.exit(f"corpus missing: {CORPUS}")
    o = bench_overhead(n)
    f = bench_fingerprint(rounds)
    r = bench_replay(True)
    print(f"Python {platform.python_version()} on {platform.machine()}, {platform.system()}\n")
    print("| measurement | result | target |")
    print("|---|---|---|")
    print(
        f"| guard overhead per call, before+after, memory store, no classification ({n} calls) "
        f"| p50 {o['p50']:.1f} µs, p95 {o['p95']:.1f} µs, p99 {o['p99']:.1f} µs | p50 ≤ 20 µs |"
    )
    print(
        f"| fingerprint of a 1 MB real result ({rounds} rounds) | p50 {f['1MB_p50_ms']:.2f} ms, "
        f"max {f['1MB_max_ms']:.2f} ms | ≤ 5 ms |"
    )
    print(f"| fingerprint of a 4 KB real result | p50 {f['4KB_p50_ms']:.3f} ms | |")
    print(
        f"| replay of all {r['files']} real sessions, hard_stop on, classification included "
        f"| {r['calls']} calls in {r['seconds']:.2f} s = {r['us_per_call']:.0f} µs per call; "
        f"{r['files_blocked']} file(s) blocked, {r['warnings']} warnings | |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
