"""Result fingerprint cost by size: JSON (GitHub-API-like) and plain text, 4 KB to 1 MB.

JSON up to 256 KB is parsed, stripped of volatile keys and re-dumped with sorted keys; larger
results are masked at the head and tail and hashed raw. Prints a Markdown table of the median
wall and CPU time per call. Target from issue #14: <= 5 ms at 256 KB of JSON, no cliff.

    .venv/bin/python benchmarks/bench_fingerprint.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

from tether.loops.fingerprint import result_fingerprint

SIZES_KB = (4, 16, 64, 128, 200, 250, 256, 300, 512, 1024)


def issues_json(size: int) -> str:
    """Return a GitHub-issues-like JSON list of about ``size`` characters."""
    item = {
        "id": 0,
        "node_id": "I_kwDOABCDEF",
        "title": "Fix the parser when the input ends in a pipe",
        "state": "open",
        "created_at": "2026-11-30T10:00:00Z",
        "updated_at": "2026-12-01T08:00:00Z",
        "user": {"login": "someone", "id": 1, "site_admin": False},
        "labels": [{"name": "bug", "color": "d73a4a"}],
        "body": "steps to reproduce " * 8,
    }
    one = len(json.dumps(item)) + 2
    items = [dict(item, id=i) for i in range(max(1, size // one))]
    text = json.dumps(items)
    while len(text) > size and len(items) > 1:
        items.pop()
        text = json.dumps(items)
    return text


def plain_text(size: int) -> str:
    """Return test-runner-like output of about ``size`` characters."""
    line = "tests/test_module.py::test_case_%06d PASSED [ 42%%]\n"
    lines = [line % i for i in range(size // len(line % 0) + 1)]
    return "".join(lines)[:size]


def measure(text: str, repeat: int) -> tuple[float, float]:
    """Return the median (wall ms, CPU ms) of ``repeat`` fingerprints of ``text``."""
    wall: list[float] = []
    cpu: list[float] = []
    result_fingerprint(text)
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        result_fingerprint(text)
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return statistics.median(wall) * 1000, statistics.median(cpu) * 1000


def main() -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    print(f"Python {platform.python_version()}, median of {args.repeat}\n")
    print("| size | JSON wall ms | JSON CPU ms | text wall ms | text CPU ms |")
    print("|---:|---:|---:|---:|---:|")
    for kb in SIZES_KB:
        jw, jc = measure(issues_json(kb * 1024), args.repeat)
        tw, tc = measure(plain_text(kb * 1024), args.repeat)
        print(f"| {kb} KB | {jw:.2f} | {jc:.2f} | {tw:.2f} | {tc:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
