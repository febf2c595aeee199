"""Which word bash's ``kill`` reads as a process: checked with bash itself, never with ``-1``.

DG404 fires when ``-1`` (every process) is among the pids. Each form below is run by the real
bash with the ``-1`` replaced by ``-999999``, a process group that does not exist: bash names
it in "(-999999) - No such process" exactly when it read that word as a pid. The rule must
fire on the ``-1`` form exactly then (a bare ``kill -1``, which bash refuses, is flagged for
its intent and kept out of this table).
"""

from __future__ import annotations

import subprocess

import pytest

from tether.rules.danger import assess
from tether.shell import parse_command

FORMS = [
    "kill -9 {pid}",
    "kill -KILL {pid}",
    "kill -SIGKILL {pid}",
    "kill -s KILL {pid}",
    "kill -sKILL {pid}",
    "kill -s 9 {pid}",
    "kill -n 9 {pid}",
    "kill -- {pid}",
    "kill -9 -- {pid}",
    "kill -TERM 999998 {pid}",
    "kill -HUP {pid}",
    "kill -l {pid}",
    "kill -l 9 {pid}",
    "kill -L {pid}",
    "builtin kill -9 {pid}",
    "command kill -9 {pid}",
]
MISSING = "-999999"


def _bash_reads_as_pid(form: str) -> bool:
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", form.format(pid=MISSING)],
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )
    return f"({MISSING})" in done.stderr


@pytest.mark.parametrize("form", FORMS)
def test_dg404_fires_exactly_when_bash_reads_minus_one_as_a_pid(form: str) -> None:
    read = _bash_reads_as_pid(form)
    command = form.format(pid="-1")
    flagged = "DG404" in assess(parse_command(command)).codes
    assert flagged == read, f"{command!r}: bash reads it as a pid: {read}; DG404: {flagged}"


def test_the_table_has_both_outcomes() -> None:
    outcomes = {_bash_reads_as_pid(f) for f in FORMS}
    assert outcomes == {True, False}
