"""Real latency each host adds per tool call with Tether's hooks: the real CLIs, a fake model.

Each pinned host version (tests/e2e, installed by ``.ci/run``) runs the same session of ``--calls``
distinct harmless shell calls against the e2e suite's fake model, two ways: with no hooks and
with Tether's command hooks (``tether install HOST``; the HTTP install for Claude Code is
retired, see ``bench_stalled_sidecar.py``). A session's wall
time divided by its calls gives the time per call; the difference to no hooks is what Tether
adds (a PreToolUse and a PostToolUse per call, plus the turn's UserPromptSubmit spread over the
calls). Rounds alternate the variants so they see the same machine load; the table shows
medians.

    .venv/bin/python benchmarks/bench_hosts.py [--calls 12] [--rounds 3] [--host codex]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "e2e"))

from harness import Host, binary
from honours import host_versions


def session(host: str, version: str, variant: str, calls: int) -> float:
    """Return the wall seconds of one session of ``calls`` shell calls under ``variant``."""
    root = Path(tempfile.mkdtemp(prefix="tether-bench-hosts-"))
    try:
        h = Host(host, version, root)
        commands = [f"echo bench-{n}" for n in range(calls)]
        if variant == "command":
            h.tether("install", host)  # outside the timed part
        start = time.perf_counter()
        run = h.run(commands, install=None)
        took = time.perf_counter() - start
        if run.script.calls != calls:
            raise SystemExit(f"{host} {version} {variant}: {run.script.calls} of {calls} calls ran")
        return took
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--host", action="append", help="only this host (repeatable)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for host, version in host_versions():
        if args.host and host not in args.host:
            continue
        if not binary(host, version).is_file():
            raise SystemExit(f"{binary(host, version)} is missing: run .ci/run first")
        variants = ["none", "command"]
        times: dict[str, list[float]] = {v: [] for v in variants}
        for _ in range(args.rounds):
            for variant in variants:
                times[variant].append(session(host, version, variant, args.calls))
        base = statistics.median(times["none"]) / args.calls * 1000
        for variant in variants[1:]:
            per = statistics.median(times[variant]) / args.calls * 1000
            rows.append(
                {
                    "host": f"{host} {version}",
                    "hooks": variant,
                    "ms_per_call_without": round(base, 1),
                    "ms_per_call_with": round(per, 1),
                    "added_ms_per_call": round(per - base, 1),
                }
            )
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"{args.calls} calls per session, median of {args.rounds} rounds\n"
    )
    print("| host | hooks | ms per call without | with | added per call |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['host']} | {r['hooks']} | {r['ms_per_call_without']} | "
            f"{r['ms_per_call_with']} | **{r['added_ms_per_call']}** |"
        )


if __name__ == "__main__":
    main()
