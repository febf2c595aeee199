"""The invariant of issue 23, checked by the traced oracle on disguised catalogue examples.

For every argv a traced run executes, Tether's verdict on the original command must be at
least as strict as its verdict on that argv alone (``tether.verify.disguise.check``). The
profile here is bounded and seeded (``SAMPLE`` examples, the same every run, so a red run is
a finding anyone can reproduce); the long random run is ``benchmarks/disguise_classes.py``.

Today's main judges the text, not what bash evaluates (the evaluator of issue 23 is being
built), so whole disguise classes violate the invariant. ``KNOWN`` lists them, each with
the reason; an example is excused when it composes a listed class, or is a listed form
(``KNOWN_FORMS``). Any other violation fails: the list only shrinks.
"""

from __future__ import annotations

import pickle
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings

from tether.rules.base import Danger, Tier
from tether.verify import Oracle, sandbox_problem
from tether.verify.disguise import (
    ARGV_CLASSES,
    CLASSES,
    TEXT_CLASSES,
    WORD_CLASSES,
    Disguised,
    check,
    dangerous_level,
    disguised,
    examples,
    programs,
)
from tether.verify.trace import Process, Trace

pytestmark = pytest.mark.slow  # bounded: SAMPLE traced sandbox runs, 5 s time limit each
SAMPLE = 60
SEED = 23

# Disguise classes whose violations are known (empty since the evaluator landed: every class
# of the seeded profile keeps the invariant; benchmarks/disguise_classes.py measures the long run).
KNOWN: dict[str, str] = {}
# Single forms that violate on today's main, and why (every catalogue example
# run as written keeps the invariant: benchmarks/disguise_classes.py --plain, 702 of 702).
KNOWN_FORMS = {
    ". <(printf '%s\\n' '$(echo rm) -rf /')": "the sourced payload holds a substitution: judged "
    "ask (DG304) where bash runs rm -rf / (hardline); '$(echo rm) -rf /' alone is hardline",
}


@pytest.fixture(scope="module")
def oracle() -> Iterator[Oracle]:
    assert sandbox_problem() is None, f"the oracle tests need a sandbox: {sandbox_problem()}"
    assert shutil.which("strace"), "the traced oracle needs strace (.ci/run installs it)"
    with Oracle(timeout=5, stubs=programs()) as o:
        yield o


def test_every_hardline_and_ask_example_is_a_base() -> None:
    from tether.rules import danger

    expected = sum(len(r.match) for r in danger.RULES if r.tier in (Tier.HARDLINE, Tier.ASK))
    assert len(examples()) == expected >= 700
    assert {e.tier for e in examples()} == {Tier.HARDLINE, Tier.ASK}


def test_the_generator_draws_every_class() -> None:
    """Every class is drawn within a few seeded rounds of 600 (which draws a round makes
    depends on the hypothesis state earlier tests of the process left: up to 5 rounds)."""
    drawn: set[str] = set()

    for round_seed in range(SEED, SEED + 5):

        @settings(
            max_examples=600,
            database=None,
            phases=[Phase.generate],
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
        @seed(round_seed)
        @given(disguised())
        def collect(d: Disguised) -> None:
            drawn.update(d.classes)

        collect()
        if set(CLASSES) - drawn == {"plain"}:
            break
    assert set(CLASSES) - drawn == {"plain"}  # "plain" is the bases run as written (--plain)
    assert set(KNOWN) <= set(WORD_CLASSES) | set(ARGV_CLASSES)  # no stale or text class


def test_the_checker_finds_a_violation_and_a_canonical_path() -> None:
    """The check can fail: an argv stricter than the original is a violation."""
    run = Trace((Process(3, ("rm", "-rf", "/proc/self/root/"), "/home/tether/work", ()),), ())
    finding = check("true", run, Danger.HARDLINE)
    assert finding.exercised and finding.verdict is Danger.NONE
    assert ("rm -rf /", Danger.HARDLINE) in finding.violations
    cd = Trace((Process(3, ("rm", "-rf", "."), "/", ()),), ())
    assert ("rm -rf /", Danger.HARDLINE) in check("true", cd, Danger.ASK).violations
    assert check("rm -rf /", run, Danger.HARDLINE).violations == ()


def _sample() -> list[Disguised]:
    """The seeded sample, drawn in a fresh interpreter: which examples a seeded draw makes in
    this process depends on what earlier tests of the process left behind (measured: another
    sample after tests/test_danger.py), and the figures below are for this one."""
    bench = str(Path(__file__).resolve().parents[1] / "benchmarks")
    code = (
        f"import pickle, sys; sys.path.insert(0, {bench!r}); "
        "from disguise_classes import draw_distinct; "
        f"sys.stdout.buffer.write(pickle.dumps(draw_distinct({SAMPLE}, {SEED})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    return list(pickle.loads(done.stdout))


def test_disguised_examples_keep_the_invariant_outside_the_known_classes(oracle: Oracle) -> None:
    sample = _sample()
    exercised = 0
    unexcused = []
    for d in sample:
        verdict = oracle.run(d.command, trace=True, halt=True)
        assert verdict.trace is not None, verdict
        finding = check(d.command, verdict.trace, dangerous_level(d.base.tier))
        exercised += finding.exercised
        excused = set(d.classes) & set(KNOWN) or d.command in KNOWN_FORMS
        if finding.exercised and finding.violations and not excused:
            unexcused.append((d.command, d.classes, finding.verdict.label, finding.violations))
    assert unexcused == []
    # Most runs reach the dangerous program (stubs stand in for the ones not installed).
    assert exercised >= 0.8 * len(sample), exercised


def test_text_classes_are_not_excused() -> None:
    assert not set(TEXT_CLASSES) & set(KNOWN)


def test_the_known_forms_are_still_forms_the_generator_draws() -> None:
    """A listed form that the generator could not draw would excuse nothing."""
    from tether.verify.disguise import _text_class

    assert _text_class("process-source", "$(echo rm) -rf /") in KNOWN_FORMS
