"""A bounded sample of the real corpus through the execution oracle: no read-only verdict writes.

The whole run (every distinct read-only command, ~15,000) is
``benchmarks/bench_oracle_corpus.py``; here an evenly spread sample of them runs in CI.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tether.verify import Oracle, sandbox_problem

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_oracle_corpus import read_only_commands

pytestmark = pytest.mark.slow  # bounded: SAMPLE sandbox runs of at most 10 s each
SAMPLE = 120


def test_a_sample_of_the_real_corpus_changes_nothing() -> None:
    assert sandbox_problem() is None, f"the oracle tests need a sandbox: {sandbox_problem()}"
    commands = read_only_commands(limit=SAMPLE)
    assert len(commands) == SAMPLE
    with Oracle(timeout=10) as oracle:
        verdicts = [oracle.run(c) for c in commands]
    changed = [(v.command, [c.path for c in v.changes[:3]]) for v in verdicts if v.changed]
    assert changed == []
    ran = [v for v in verdicts if v.changed is False]
    assert len(ran) >= 0.9 * SAMPLE, [v.reason for v in verdicts if v.changed is None]
