"""Loop-signature cost for real shell commands, and how many of them the option model merges.

Run: ``.venv/bin/python benchmarks/bench_signature.py [--limit 3000]``. Takes the most frequent
distinct commands agents really sent (``../shared/corpus/real/commands.jsonl``) and prints
Markdown: the time per ``call_signature`` (the canonical form of the command through the
parser and the option model, then the hash), the time per ``Guard.before_call`` +
``after_call`` for the same commands (memory store, classification included), and how many
distinct signatures the commands give (fewer than commands: spellings of one call merged).
Each figure is the CPU time of one call (``time.process_time``: other processes on a busy
machine do not count), the least of ``--rounds`` runs per command; compare runs on one machine.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ROOT.parent / "shared" / "corpus" / "real" / "commands.jsonl"


def pct(values: list[float], p: float) -> float:
    """Return the p-th percentile (0-100) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))]


def load(limit: int) -> list[str]:
    """Return the ``limit`` most frequent real commands (the file is sorted by frequency)."""
    out: list[str] = []
    with COMMANDS.open(encoding="utf-8") as fh:
        for line in fh:
            out.append(json.loads(line)["command"])
            if len(out) >= limit:
                break
    return out


def bench_signature(commands: list[str], rounds: int) -> tuple[list[float], int]:
    """Return µs per signature of each command (least of ``rounds``) and distinct sigs."""
    from tether.loops.fingerprint import call_signature

    sigs = {call_signature("Bash", {"command": c}, "command") for c in commands}  # warm-up
    clock = time.process_time
    best = [float("inf")] * len(commands)
    gc.disable()
    for _ in range(rounds):
        for i, command in enumerate(commands):
            args = {"command": command}
            t0 = clock()
            call_signature("Bash", args, "command")
            best[i] = min(best[i], (clock() - t0) * 1e6)
    gc.enable()
    return best, len(sigs)


def bench_guard(commands: list[str], rounds: int) -> list[float]:
    """Return µs per before_call + after_call of each command (memory store, least of rounds)."""
    from tether.guard import Guard
    from tether.model import ToolCall, ToolResult

    guard = Guard()
    for i, command in enumerate(commands[:50]):  # warm-up: parser, catalogues, masks
        call = ToolCall("warm", "Bash", {"command": command}, f"w{i}")
        guard.before_call(call)
        guard.after_call(ToolResult(call, "ok", exit_code=0))
    clock = time.process_time
    best = [float("inf")] * len(commands)
    gc.disable()
    for r in range(rounds):
        for i, command in enumerate(commands):
            call = ToolCall(f"bench{r}", "Bash", {"command": command}, f"c{i}")
            result = ToolResult(call, "ok", exit_code=0)
            t0 = clock()
            guard.before_call(call)
            guard.after_call(result)
            best[i] = min(best[i], (clock() - t0) * 1e6)
    gc.enable()
    return best


def main() -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=3000, help="commands to take (default 3000)")
    parser.add_argument("--rounds", type=int, default=3, help="runs per command (default 3)")
    args = parser.parse_args()
    commands = load(args.limit)
    sig_us, distinct = bench_signature(commands, args.rounds)
    guard_us = bench_guard(commands, args.rounds)
    print(f"Python {platform.python_version()}, {len(commands)} real commands, CPU time\n")
    print("| what | mean µs | p50 µs | p95 µs |")
    print("|---|---:|---:|---:|")
    for name, us in (("call_signature", sig_us), ("before_call + after_call", guard_us)):
        print(f"| {name} | {statistics.mean(us):.0f} | {pct(us, 50):.0f} | {pct(us, 95):.0f} |")
    print(f"\n{distinct} distinct signatures for {len(commands)} distinct commands")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
