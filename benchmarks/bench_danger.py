"""Danger catalogue speed, in-process: the real corpus and the pathological inputs.

Run from the repository root (the real corpus is read from ../shared/corpus):

    .venv/bin/python benchmarks/bench_danger.py [REPEAT] [--cpu]   (default 3 runs per command)

``--cpu`` times each call by this process's CPU time (``time.process_time_ns``) instead of
the wall clock: on a shared machine it leaves out the time other processes held the core, so
two checkouts can be compared while others work (``PYTHONPATH=OTHER/src`` runs another one).

Prints the Markdown tables of docs/benchmarks.md, section "Danger and approval". The danger
catalogue runs after the parser on every shell command, so it is timed on its own (parsed
model in, verdict out) and together with the parse, and the foundation's pathological inputs
are rerun with danger detection on (budgets from issue #2: a 1 MB command <= 100 ms, `$(`
nested 300 deep <= 10 ms and 100,000 deep without error, 10,000 pipes <= 200 ms).
"""

from __future__ import annotations

import json
import platform
import shlex
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from tether.approval import review
from tether.rules.danger import assess
from tether.shell import parse_command
from tether.shell.model import CommandModel

CORPUS = (
    Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "real" / "commands.jsonl"
)


def _commands() -> list[str]:
    if not CORPUS.is_file():
        raise SystemExit(f"corpus missing: expected {CORPUS} (../shared/corpus beside the repo)")
    with CORPUS.open(encoding="utf-8") as fh:
        return [json.loads(line)["command"] for line in fh]


def _nested_shell(depth: int) -> str:
    command = "rm -rf /"
    for _ in range(depth):
        command = "bash -c " + shlex.quote(command)
    return command


def _percentiles(samples_ns: list[int]) -> dict[str, float]:
    ordered = sorted(samples_ns)

    def pick(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1000

    return {
        "p50": pick(0.50),
        "p99": pick(0.99),
        "max": ordered[-1] / 1000,
        "mean": statistics.fmean(ordered) / 1000,
    }


_CLOCK = time.process_time_ns if "--cpu" in sys.argv else time.perf_counter_ns


def _time_each(fn: Callable[[], object], repeat: int) -> int:
    best = None
    for _ in range(repeat):
        t0 = _CLOCK()
        fn()
        elapsed = _CLOCK() - t0
        best = elapsed if best is None else min(best, elapsed)
    return best or 0


def _best_ms(fn: Callable[[], object], repeat: int = 5) -> float:
    return _time_each(fn, repeat) / 1e6


def main() -> int:
    """Run every measurement and print the results tables."""
    numbers = [a for a in sys.argv[1:] if a.isdigit()]
    repeat = int(numbers[0]) if numbers else 3
    commands = _commands()
    models: list[CommandModel] = [parse_command(c) for c in commands]
    for m in models[:500]:
        assess(m)
    danger_only = [_time_each(lambda m=m: assess(m), repeat) for m in models]  # type: ignore[misc]
    both = [_time_each(lambda c=c: assess(parse_command(c)), repeat) for c in commands]  # type: ignore[misc]
    levels = Counter(assess(m).level.label for m in models)
    codes: Counter[str] = Counter()
    for m in models:
        codes.update(assess(m).codes)
    d, b = _percentiles(danger_only), _percentiles(both)

    print(f"Python {platform.python_version()}, {platform.machine()}, {platform.system()}")
    print()
    print("| measurement | p50 | p99 | mean | max |")
    print("|---|---|---|---|---|")
    print(
        f"| danger catalogue only (parsed model in), {len(commands):,} real commands "
        f"| {d['p50']:.1f} µs | {d['p99']:.0f} µs | {d['mean']:.1f} µs | {d['max'] / 1000:.1f} ms |"
    )
    print(
        f"| parse + danger catalogue | {b['p50']:.1f} µs | {b['p99']:.0f} µs "
        f"| {b['mean']:.1f} µs | {b['max'] / 1000:.1f} ms |"
    )
    print()
    total = len(commands)
    print(
        f"Real corpus verdicts: none {levels['none']:,}, ask {levels['ask']:,} "
        f"({levels['ask'] / total:.2%}), hardline {levels['hardline']:,}; codes: "
        + ", ".join(f"{k} {v}" for k, v in sorted(codes.items()))
    )
    print()

    cases = [
        ("1 MB command (over the parser cap)", "echo " + "x" * 1_000_000, 100.0),
        ("128 KiB of `rm -rf /tmp/x; `", "rm -rf /tmp/x; " * 8_700, 100.0),
        ("`$(` nested 300 deep", "echo " + "$(" * 300 + "x" + ")" * 300, 10.0),
        ("`$(` nested 100,000 deep", "echo " + "$(" * 100_000 + "x" + ")" * 100_000, 1000.0),
        ("10,000 pipes `ls |`", "ls | " * 10_000 + "ls", 200.0),
        ("10,000 pipes `sh |` (every stage a shell)", "sh | " * 10_000 + "sh", 200.0),
        ("5,000 × `curl x | sh`", " | ".join(["curl x", "sh"] * 5_000), 200.0),
        ("3,000 × `x=rm; $x -rf /`", "; ".join(["x=rm; $x -rf /"] * 3_000), 200.0),
        ("`bash -c` nested 4 deep (the parser's bound)", _nested_shell(4), 10.0),
        ("`bash -c` nested 6 deep", _nested_shell(6), 10.0),
        ("16 KB python heredoc", "python3 - <<'EOF'\n" + "import os\n" * 1_600 + "EOF\n", 10.0),
    ]
    print("| input | parse | danger only | verdict | budget (parse + danger) | |")
    print("|---|---|---|---|---|---|")
    for label, text, budget in cases:
        parse_ms = _best_ms(lambda t=text: parse_command(t))  # type: ignore[misc]
        model = parse_command(text)
        danger_ms = _best_ms(lambda m=model: assess(m))  # type: ignore[misc]
        v = assess(model)
        verdict = v.level.label + (f" {','.join(v.codes)}" if v.codes else "")
        if model.unprovable:
            verdict += " (unprovable: approvals block it)"
        ok = parse_ms + danger_ms <= budget
        print(
            f"| {label} | {parse_ms:.2f} ms | {danger_ms:.2f} ms | {verdict} "
            f"| ≤ {budget:g} ms | {'ok' if ok else 'OVER'} |"
        )
    print()
    short = [c for c in commands if len(c) <= 4096][:5000]
    for c in short[:200]:
        review(c)
    t0 = time.perf_counter()
    for c in short:
        review(c)
    per = (time.perf_counter() - t0) / len(short) * 1e6
    print(
        f"`review()` (parse, catalogues, policy), {len(short):,} real commands: {per:.0f} µs mean"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
