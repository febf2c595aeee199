"""Loop-guard throughput over the 75 real sessions, side by side with hermes-agent 0.19.

One process, all 5,613 calls of ``../shared/corpus/real/trajectories``, a fresh session per file:

- **hermes**: hermes-agent 0.19.0's ``ToolCallGuardrailController`` (``before_call`` and
  ``after_call`` for every call, hard stops on). Its code is not part of this repository: point
  ``--hermes`` at the unpacked wheel's top folder (``pip download --no-deps hermes-agent==0.19.0``
  then unzip it), the folder that holds ``agent/`` and ``utils.py``.
- **Tether, whole guard**: ``Guard.before_call`` + ``Guard.after_call`` (memory store, hard stops
  on, the corpus tests' configuration), shell review (parse, classification, approval policy)
  included.
- **Tether, loop guard**: the same run less the time spent in the shell review (timed around
  ``tether.approval.review`` and the file-path review), i.e. what the loop guard itself costs:
  signatures, result fingerprints, the state update and the detectors.

    .venv/bin/python benchmarks/bench_loop_throughput.py --hermes /tmp/hermes/src [--rounds 5]

Each figure is the best of ``--rounds`` (the machine is shared; the best round is the one least
disturbed). ``--cpu`` times with this process's CPU clock instead of the wall clock: on a loaded
machine (other processes taking the cores) the CPU time stays what the work costs. Prints a
Markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SESSIONS = ROOT.parent / "shared" / "corpus" / "real" / "trajectories"
sys.path.insert(0, str(ROOT / "tests"))

Call = tuple[str, dict[str, Any], Any, "int | None"]
CLOCK: list[Callable[[], float]] = [time.perf_counter]  # --cpu: time.process_time


def load_sessions() -> list[list[Call]]:
    """Return every session's calls: (tool, args, result, exit code)."""
    from tether.replay.formats import split_result

    sessions = []
    for path in sorted(SESSIONS.glob("*.jsonl")):
        calls: list[Call] = []
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if "meta" in row or not isinstance(row.get("tool"), str):
                continue
            output, code = split_result(row.get("result"))
            exit_code = row.get("exit_code", code)
            calls.append(
                (
                    row["tool"],
                    dict(row.get("args") or {}),
                    output,
                    exit_code if isinstance(exit_code, int) else None,
                )
            )
        sessions.append(calls)
    return sessions


def run_hermes(sessions: list[list[Call]], hermes: Path) -> float:
    """Return the seconds hermes's controller takes over every call."""
    sys.path.insert(0, str(hermes))
    from agent.tool_guardrails import ToolCallGuardrailConfig, ToolCallGuardrailController

    config = ToolCallGuardrailConfig(hard_stop_enabled=True)
    clock = CLOCK[0]
    started = clock()
    for calls in sessions:
        ctrl = ToolCallGuardrailController(config)
        for tool, args, output, code in calls:
            ctrl.before_call(tool, args)
            text = output if isinstance(output, str) else json.dumps(output)
            ctrl.after_call(tool, args, text, failed=bool(code))
    return clock() - started


def run_tether(sessions: list[list[Call]]) -> tuple[float, float]:
    """Return (seconds for the whole guard, seconds of it spent in the shell review)."""
    import test_loop_corpus as corpus
    import tether.approval
    from tether.guard import Guard
    from tether.model import ToolCall, ToolResult

    spent = [0.0]
    clock = CLOCK[0]

    def timed(fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t0 = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[0] += clock() - t0

        return wrapper

    from tether.loops import fingerprint

    # Every round starts cold: no signature a previous round of the same calls left cached.
    fingerprint._canonical.cache_clear()
    review = tether.approval.review
    tether.approval.review = timed(review)  # type: ignore[assignment]
    try:
        guard = Guard(corpus.HARD)
        guard._review_files = timed(guard._review_files)  # type: ignore[method-assign]
        started = clock()
        for n, calls in enumerate(sessions):
            sid = f"s{n}"
            for i, (tool, args, output, code) in enumerate(calls):
                call = ToolCall(sid, tool, args, f"c{i}")
                if guard.before_call(call).allowed:
                    guard.after_call(ToolResult(call, output, code, bool(code)))
        return clock() - started, spent[0]
    finally:
        tether.approval.review = review  # type: ignore[assignment]


def main() -> int:
    """Print the side-by-side table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hermes", type=Path, help="unpacked hermes-agent 0.19.0 wheel")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cpu", action="store_true", help="time with the CPU clock")
    args = parser.parse_args()
    if args.cpu:
        CLOCK[0] = time.process_time
    sessions = load_sessions()
    n = sum(len(s) for s in sessions)
    run_tether(sessions)  # warm: imports, parser, caches of compiled regexes
    whole, own = [], []
    for _ in range(args.rounds):
        total, review = run_tether(sessions)
        whole.append(total)
        own.append(total - review)
    rows = [
        ("Tether, whole guard (review included)", min(whole)),
        ("Tether, loop guard (review excluded)", min(own)),
    ]
    if args.hermes:
        run_hermes(sessions, args.hermes)
        rows.append(
            (
                "hermes-agent 0.19.0 ToolCallGuardrailController",
                min(run_hermes(sessions, args.hermes) for _ in range(args.rounds)),
            )
        )
    print(f"{len(sessions)} sessions, {n:,} calls; best of {args.rounds} rounds\n")
    print("| | seconds | calls/s | µs per call |")
    print("|---|---:|---:|---:|")
    for label, seconds in rows:
        print(f"| {label} | {seconds:.3f} | {n / seconds:,.0f} | {seconds / n * 1e6:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
