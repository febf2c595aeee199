"""The execution oracle over the real corpus: does any command classified read-only write?

Run from the repository root, as root (the sandbox needs user namespaces and overlayfs):

    .venv/bin/python benchmarks/bench_oracle_corpus.py [--jobs N] [--limit N] [--out FILE]

Every distinct command of ../shared/corpus/real/commands.jsonl that the classifier proves
read-only runs in its own sandbox (tether.verify). Prints how many ran, how many could not
be verified and why (missing program, network, time limit), how many were *exercised*
(exit 0: a command that failed is not evidence), every command that changed anything with
the paths it changed, and the throughput. ``--out`` writes one JSON verdict
per line for later study; ``--limit`` takes an evenly spread sample.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tether import classify_command
from tether.verify import Oracle, Verdict, sandbox_problem

CORPUS = (
    Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "real" / "commands.jsonl"
)


def read_only_commands(limit: int | None = None) -> list[str]:
    """Return the corpus's distinct commands that are classified read-only, in corpus order."""
    seen: set[str] = set()
    out = []
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        command = json.loads(line)["command"]
        if command not in seen and classify_command(command).read_only:
            seen.add(command)
            out.append(command)
    if limit is not None and limit < len(out):
        step = len(out) / limit
        out = [out[int(i * step)] for i in range(limit)]
    return out


def bucket(v: Verdict) -> str:
    """Return the summary bucket of a verdict: only an exercised run (exit 0) is evidence."""
    if v.changed is True:
        return "changed"
    if v.changed is False and v.exercised:
        return "exercised, no change" + (" (a cache refreshed)" if v.effects else "")
    if v.changed is False:
        return f"ran, not exercised: exit {v.exit_code}"
    return "skipped: " + re.sub(r"'[^']*'|\(.*\)|[0-9.]+ s", "…", v.reason.split(": ", 1)[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    problem = sandbox_problem()
    if problem:
        print(f"cannot run: {problem}", file=sys.stderr)
        return 2
    commands = read_only_commands(args.limit)
    print(f"{len(commands)} distinct read-only commands", flush=True)
    started = time.monotonic()
    counts: collections.Counter[str] = collections.Counter()
    missing: collections.Counter[str] = collections.Counter()
    changed: list[Verdict] = []
    out = args.out.open("w") if args.out else None
    with Oracle(timeout=args.timeout) as oracle, ThreadPoolExecutor(args.jobs) as pool:
        for n, v in enumerate(pool.map(oracle.run, commands), start=1):
            counts[bucket(v)] += 1
            m = re.search(r"'([^']*)' is not installed", v.reason)
            if m:
                missing[m.group(1)] += 1
            if v.changed:
                changed.append(v)
            if out:
                out.write(json.dumps(v.to_json() | {"stdout": v.stdout[:200]}) + "\n")
            if n % 500 == 0:
                print(f"  {n} done, {len(changed)} changed", flush=True)
    elapsed = time.monotonic() - started
    print("\n| outcome | commands |\n|---|---:|")
    for name, k in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {k} |")
    exercised = sum(k for name, k in counts.items() if name.startswith("exercised"))
    print(f"\n{len(commands)} commands in {elapsed:.0f} s ({len(commands) / elapsed:.1f}/s)")
    print(f"exercised: {exercised}; changed: {len(changed)}")
    print("missing programs (top 15):", ", ".join(f"{p} {k}" for p, k in missing.most_common(15)))
    print(f"\n{len(changed)} changed something:")
    for v in changed:
        paths = ", ".join(f"{c.path} ({c.kind})" for c in v.changes[:4])
        print(f"  {v.command!r}: {paths}")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
