"""The loop guard on every real session and every peer scenario: where it would step in.

Run: ``.venv/bin/python benchmarks/bench_loop_sessions.py`` (``--sessions-only`` skips the
scenario corpora; ``--all`` lists every session, not only those the guard touched). Prints
Markdown for docs/benchmarks.md: one row per real session the guard warned, blocked or halted
(call numbers count from 1, as hosts and `tether replay` do), the totals, and the peer scenario
figures. Uses the tests' own configuration (``loops.hard_stop=true``, peers' shell tool names),
so the numbers are the ones the corpus tests assert.

The peers' figures in the docs table (hermes-agent 0.19's ToolCallGuardrailController,
OpenHands SDK 1.58's StuckDetector) come from running the released peers on the same sessions
outside this repository; their code is not vendored here.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def main() -> int:
    """Print the per-session table and the scenario figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions-only", action="store_true", help="skip the peer scenarios")
    parser.add_argument("--all", action="store_true", help="list every session")
    args = parser.parse_args()

    import test_loop_corpus as corpus  # the tests' own corpus loading and configuration
    from tether.guard import Guard
    from tether.model import Action
    from tether.replay import load, replay

    protected = set(corpus.PROTECTED)
    print("| session | calls | first warn | first block | halt | warnings | kind |")
    print("|---|---|---|---|---|---|---|")
    totals = {"sessions": 0, "calls": 0, "warned": 0, "blocked": 0, "p_warned": 0, "p_blocked": 0}
    started = time.perf_counter()
    for path in corpus.ALL_SESSIONS:
        outcome = replay(load(path), Guard(corpus.HARD))
        steps = outcome.steps

        def first(action: Action, steps: list[Any] = steps) -> str:
            step = next((s for s in steps if s.action >= action), None)
            return "—" if step is None else str(step.index + 1)

        warnings = sum(1 for s in steps if s.action == Action.WARN)
        blocked = any(s.action >= Action.BLOCK for s in steps)
        kind = (
            "the 286× loop" if path.name == corpus.LOOP_FILE
            else "productive" if path.name in protected
            else "other"
        )  # fmt: skip
        totals["sessions"] += 1
        totals["calls"] += len(steps)
        totals["warned"] += bool(warnings)
        totals["blocked"] += blocked
        if path.name in protected:
            totals["p_warned"] += bool(warnings)
            totals["p_blocked"] += blocked
        if args.all or warnings or blocked:
            print(
                f"| {path.name[:60]} | {len(steps)} | {first(Action.WARN)} | "
                f"{first(Action.BLOCK)} | {first(Action.HALT)} | {warnings} | {kind} |"
            )
    elapsed = time.perf_counter() - started
    print()
    print(
        f"{totals['sessions']} sessions, {totals['calls']} calls in {elapsed:.1f} s; "
        f"warned {totals['warned']}, blocked {totals['blocked']}; of the {len(protected)} "
        f"productive sessions: warned {totals['p_warned']}, blocked {totals['p_blocked']}."
    )
    if args.sessions_only:
        return 0
    flagged = sum(1 for n in corpus.SHOULD_FLAG if corpus.OUTCOMES[n] >= Action.WARN)
    stopped = sum(1 for n in corpus.SHOULD_NOT if corpus.OUTCOMES[n] >= Action.BLOCK)
    warned = sum(1 for n in corpus.SHOULD_NOT if corpus.OUTCOMES[n] == Action.WARN)
    print(
        f"Peer scenarios: should_flag flagged {flagged}/{len(corpus.SHOULD_FLAG)}; "
        f"should_not_flag blocked {stopped}/{len(corpus.SHOULD_NOT)}, warned {warned}."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
