"""The long run of the oracle generator: mutated catalogue examples, read-only ⇒ no change.

Run from the repository root, as root (the sandbox needs user namespaces and overlayfs):

    .venv/bin/python benchmarks/bench_oracle.py [--examples N] [--jobs N] [--seed N]

Draws N commands from tether.verify.generator (default 2,000), classifies each, runs every
one classified read-only in the sandbox, and prints examples/s, how many were read-only,
what could not be verified and why, how many were exercised (exit 0; a command that fails
is not evidence: only exercised runs count as "no change"), and every read-only command that
changed something (an unsound verdict). The files a command names that the fixture lacks are
created first (``generator.operand_files``), so that more runs reach their write. The CI
profile is tests/test_verify_generator.py (150 examples).
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from tether import classify_command
from tether.verify import Oracle, Verdict, sandbox_problem
from tether.verify.generator import draw, mutated, operand_files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=5.0)
    args = parser.parse_args()
    problem = sandbox_problem()
    if problem:
        print(f"cannot run: {problem}", file=sys.stderr)
        return 2
    started = time.monotonic()
    commands = list(dict.fromkeys(draw(mutated(), args.examples, args.seed)))
    read_only = [c for c in commands if classify_command(c).read_only]
    outcomes: collections.Counter[str] = collections.Counter()
    example: dict[str, str] = {}
    unsound: list[Verdict] = []
    with Oracle(timeout=args.timeout) as oracle, ThreadPoolExecutor(args.jobs) as pool:

        def one(command: str) -> Verdict:
            return oracle.run(command, files=operand_files(command))

        for v in pool.map(one, read_only):
            if v.changed is None:
                why = v.reason.split("(")[0].split(": ")[-1].strip()
                outcomes[why] += 1
                example.setdefault(why, v.command)
            elif v.changed:
                outcomes["changed"] += 1
            else:
                outcomes["exercised, no change" if v.exercised else "no change, not exercised"] += 1
            if v.changed:
                unsound.append(v)
    elapsed = time.monotonic() - started
    print(f"{len(commands)} distinct examples, {len(read_only)} classified read-only")
    print(f"{elapsed:.0f} s: {len(commands) / elapsed:.1f} examples/s, "
          f"{len(read_only) / elapsed:.1f} sandbox runs/s")  # fmt: skip
    for name, k in outcomes.most_common():
        print(f"  {k:6}  {name}" + (f"   e.g. {example[name]!r}" if name in example else ""))
    print(f"{len(unsound)} unsound read-only verdicts:")
    for v in unsound:
        print(f"  {v.command!r}: " + ", ".join(f"{c.path} ({c.kind})" for c in v.changes[:3]))
    return 1 if unsound else 0


if __name__ == "__main__":
    sys.exit(main())
