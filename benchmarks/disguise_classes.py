"""The long run of the disguise generator: the catalogue's dangerous examples in every
disguise class, run by the traced oracle, checked against the invariant.

Run from the repository root, as root (the sandbox needs overlayfs and namespaces; strace):

    .venv/bin/python benchmarks/disguise_classes.py [--examples N] [--jobs N] [--seed N]
        [--out FILE]

Draws N disguised examples (tether.verify.disguise, default 1,500), runs each under
``strace -f`` in the sandbox (halting each process at its first destructive syscall), and
checks: for every argv the run executed, Tether's verdict on the original command is at
least as strict as on that argv alone. Prints examples run, examples/s, how many were
exercised (the run reached an argv as dangerous as the example), and violations by class
(an example counts under each class it composes); ``--out`` writes every violating example
as one JSON line (command, classes, base rule, today's verdict, the violating argv). The CI
profile is tests/test_verify_disguise.py. ``--plain`` runs each of the catalogue's examples
once as it is written (the bases whose own run violates the invariant).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tether.rules.base import Danger
from tether.verify import Oracle, sandbox_problem
from tether.verify.disguise import (
    Disguised,
    Finding,
    check,
    dangerous_level,
    disguised,
    programs,
)
from tether.verify.disguise import examples as all_examples
from tether.verify.generator import draw


def draw_distinct(n: int, seed_value: int) -> list[Disguised]:
    """Return up to ``n`` disguised examples, one per distinct command."""
    return list({d.command: d for d in draw(disguised(), n, seed_value)}.values())


def run_all(
    examples: list[Disguised], jobs: int, timeout: float
) -> list[tuple[Disguised, Finding]]:
    """Run every example traced and return its finding."""
    with Oracle(timeout=timeout, stubs=programs()) as oracle:

        def one(d: Disguised) -> tuple[Disguised, Finding]:
            verdict = oracle.run(d.command, trace=True, halt=True)
            if verdict.trace is None:  # the sandbox could not be built: not run, say so
                print(f"  not run: {verdict.reason}: {d.command!r}", file=sys.stderr)
                return d, Finding(False, Danger.NONE, ())
            return d, check(d.command, verdict.trace, dangerous_level(d.base.tier))

        with ThreadPoolExecutor(jobs) as pool:
            return list(pool.map(one, examples))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=1500)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument(
        "--plain", action="store_true", help="run every example once, undisguised, instead"
    )
    args = parser.parse_args()
    problem = sandbox_problem()
    if problem:
        print(f"cannot run: {problem}", file=sys.stderr)
        return 2
    started = time.monotonic()
    examples = (
        [Disguised(e.text, ("plain",), e) for e in all_examples()]
        if args.plain
        else draw_distinct(args.examples, args.seed)
    )
    results = run_all(examples, args.jobs, args.timeout)
    elapsed = time.monotonic() - started
    exercised = [(d, f) for d, f in results if f.exercised]
    violating = [(d, f) for d, f in exercised if f.violations]
    by_class: collections.Counter[str] = collections.Counter()
    run_by_class: collections.Counter[str] = collections.Counter()
    for d, f in exercised:
        for c in set(d.classes):
            run_by_class[c] += 1
            if f.violations:
                by_class[c] += 1
    print(f"{len(results)} examples run in {elapsed:.0f} s ({len(results) / elapsed:.2f}/s)")
    print(f"{len(exercised)} exercised, {len(violating)} violating the invariant\n")
    print("| class | exercised | violating |\n|---|---:|---:|")
    for c, k in sorted(run_by_class.items(), key=lambda kv: -by_class[kv[0]]):
        print(f"| {c} | {k} | {by_class[c]} |")
    if args.out:
        with args.out.open("w") as fh:
            for d, f in violating:
                row = {
                    "command": d.command,
                    "classes": list(d.classes),
                    "base": d.base.text,
                    "code": d.base.code,
                    "verdict": f.verdict.label,
                    "executed": [[a, lv.label] for a, lv in f.violations],
                }
                fh.write(json.dumps(row) + "\n")
    return 1 if violating else 0


if __name__ == "__main__":
    sys.exit(main())
