"""Writes the execution oracle found behind read-only verdicts, each kept as a case.

Every case was classified read-only before its fix and changed something when the oracle ran
it (``benchmarks/bench_oracle.py`` found the generated ones, ``bench_oracle_corpus.py`` the
real ones). Each must now be refused, and must still write in the sandbox: a case that
stopped writing is no longer evidence and fails here instead of lingering.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tether import classify_command
from tether.verify import Oracle, sandbox_problem

# (command, where it was found, what it wrote)
FOUND = [
    (
        "git config user.name --bool-or-int",
        "generator",
        "git config stops at its first operand: sets user.name to '--bool-or-int' in .git/config",
    ),
    ("git config core.pager --int | sort", "generator", "the same, inside a pipeline"),
    (
        "xxd f.bin --hintro",
        "generator",
        "xxd stops at its first operand: writes the file '--hintro'",
    ),
    ("xxd f.bin --", "generator", "writes the file '--' (after an operand, '--' is the output)"),
    ("bash -c -- 'xxd f.bin --x=5'", "generator", "the same through bash -c --"),
    (
        "BASH_ENV=scripts/setup-env.sh bash -c ls",
        "generator",
        "bash sources $BASH_ENV before its payload: the assignment was dropped when peeling",
    ),
    ("bash -c 'BASH_ENV=scripts/setup-env.sh bash -c pwd'", "generator", "the same, nested"),
    ("ENV=scripts/setup-env.sh sh -i -c pwd", "generator", "an interactive sh sources $ENV"),
    ("npm ls", "generator", "~/.npm/_logs/*-debug-0.log and _update-notifier-last-checked"),
    ("npm view react version", "generator", "~/.npm/_logs (network or not)"),
    ("stdbuf -o L npm outdated", "generator", "~/.npm/_logs, through a wrapper"),
    ("npm root", "generator", "~/.npm/_logs"),
    ("npm prefix", "generator", "~/.npm/_logs"),
    (
        "git ls-remote --u='touch pwned; git-upload-pack' .",
        "review (issue 10)",
        "--u is a unique prefix of --upload-pack: runs the program, which created 'pwned'",
    ),
    ("echo x | tee -- -out", "review (issue 10)", "tee skipped '-' words: writes the file '-out'"),
    ("echo x | tee -", "review (issue 10)", "GNU tee 9.1 writes a file named '-' (not stdout)"),
    ("npm -V", "review (issue 10)", "-V is not npm's version flag: usage, and ~/.npm/_logs"),
    ("npx -V", "review (issue 10)", "the same through npx"),
]


# (command, a setting bash splits, what it wrote): read-only before the parser marked the words
# bash splits, because wrapper peeling took the split word for one operand or value.
SPLIT = [
    ("timeout $T ls", 'T="5 touch pwned"', "timeout 5 touch pwned ls: created pwned and ls"),
    ("timeout -s KILL $T ls", 'T="5 touch pwned"', "the same after a signal option"),
    ('timeout "$@" ls', "set -- 5 touch pwned", '"$@" is many words even quoted'),
    ("stdbuf -o L timeout $T ls", 'T="5 touch pwned"', "the same under another wrapper"),
    ("chrt -o $P ls", 'P="0 touch pwned"', "chrt's priority operand"),
    ("taskset $M ls", 'M="1 touch pwned"', "taskset's mask operand"),
    (
        "timeout 2 watch -t -n 1 ls $D",
        "D='; touch pwned'; export TERM=dumb",
        "watch runs its words joined with sh -c: the ';' in $D starts a command",
    ),
]


@pytest.fixture(scope="module")
def oracle() -> Iterator[Oracle]:
    assert sandbox_problem() is None, f"the oracle tests need a sandbox: {sandbox_problem()}"
    with Oracle(timeout=20) as o:
        yield o


@pytest.mark.parametrize(("command", "where", "wrote"), FOUND)
def test_found_write_is_not_read_only(command: str, where: str, wrote: str) -> None:
    assert not classify_command(command).read_only


@pytest.mark.parametrize(("command", "where", "wrote"), FOUND)
def test_found_write_still_writes(oracle: Oracle, command: str, where: str, wrote: str) -> None:
    verdict = oracle.run(command)
    assert verdict.changed is True, verdict


@pytest.mark.parametrize(("command", "setting", "wrote"), SPLIT)
def test_split_word_write_is_not_read_only(command: str, setting: str, wrote: str) -> None:
    assert not classify_command(command).read_only


@pytest.mark.parametrize(("command", "setting", "wrote"), SPLIT)
def test_split_word_write_still_writes(
    oracle: Oracle, command: str, setting: str, wrote: str
) -> None:
    verdict = oracle.run(f"{setting}; {command}")
    assert verdict.changed is True, verdict
    assert any(c.path.endswith("/pwned") for c in verdict.changes), verdict
