"""Generated commands: whatever the classifier proves read-only, the oracle sees change nothing.

The generator (tether.verify.generator) mutates the catalogue's own examples: options in
every getopt spelling and position, ``--``, environment prefixes, wrappers, redirects, lists
and ``bash -c``. The profile here is bounded (150 examples, no shrinking database); the
long run is ``benchmarks/bench_oracle.py``, which reports examples/s and what it found.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings

from tether import classify_command
from tether.shell.programs import SHELLS, WRAPPERS
from tether.verify import Oracle, generator, sandbox_problem
from tether.verify.generator import bases, mutated, operand_files, options

pytestmark = pytest.mark.slow  # bounded: CI_EXAMPLES examples, each at most one sandbox run
CI_EXAMPLES = 150


@pytest.fixture(scope="module")
def oracle() -> Iterator[Oracle]:
    assert sandbox_problem() is None, f"the oracle tests need a sandbox: {sandbox_problem()}"
    with Oracle(timeout=5) as o:
        yield o


def test_the_generator_draws_from_the_catalogue() -> None:
    assert len(bases()) >= 150
    assert {"--output", "--in-place", "-o"} <= set(options())
    assert len(options()) >= 150


def test_operand_files_are_the_files_a_command_names_and_the_fixture_lacks() -> None:
    files = operand_files("sort -o out.txt --files0-from=list.txt file.txt x 5 main")
    assert sorted(files) == ["list.txt", "out.txt", "x"]


def test_the_generator_draws_every_wrapper_and_shell_of_the_table() -> None:
    """A wrapper or shell the table peels but the generator never draws is never checked."""
    drawn = {w.split()[0] for w in (*generator.WRAPPERS, *generator.XARGS)}
    assert set(WRAPPERS) - drawn == set()
    assert set(SHELLS) - {s.split()[0] for s in generator.SHELLS} == set()
    # Each spelling class of watch's optional argument is drawn (issue 10, item 1).
    assert {"watch -d permanent", "watch --differences=permanent"} <= set(generator.WRAPPERS)


# Derandomized: CI runs the same 150 examples every time, so a red run is a finding anyone can
# reproduce, not luck; the random, longer search is benchmarks/bench_oracle.py.
@settings(
    max_examples=CI_EXAMPLES,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(command=mutated())
def test_read_only_verdicts_change_nothing(oracle: Oracle, command: str) -> None:
    if not classify_command(command).read_only:
        return
    verdict = oracle.run(command, files=operand_files(command))
    assert verdict.changed is not True, (command, [c.to_json() for c in verdict.changes])
