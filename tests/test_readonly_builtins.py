"""bash's printf, wait, command and set, read by specs on the one engine (bash 5.2 `help NAME`).

Before, each was read by hand: ``wait`` accepted the words ``-n`` and ``-f`` only (not
``-nf``), ``command`` only an exact first word among ``-v -V -pv -pV``, ``set`` scanned words
with a regex and a letter test. The writes (``printf -v``, ``wait -p``, ``set -k``, ``set -o
keyword``) are refused in every getopt spelling and behind the wrappers that keep a builtin a
builtin; an unknown option is refused; the lookups and option changes stay read-only.
Old main was right about every write here; it refused some reads (``wait -nf``, ``command -p
-v ls``, ``set +k``), which ``tether verify`` confirms change nothing.
"""

from __future__ import annotations

import pytest

from tether.rules import readonly
from tether.shell import parse_command

WRAPPERS = ("", "builtin ", "command ")


def read_only(command: str) -> bool:
    return readonly.assess(parse_command(command)).read_only


WRITES = [
    "printf -v x y",
    "printf -vx y",
    "printf -v x -- y",
    "wait -p x",
    "wait -px",
    "wait -np x",
    "wait -n -p x 12",
    "wait -fnp x",
    "set -k",
    "set -ek",
    "set -ke -o pipefail",
    "set -o keyword",
    "set -okeyword",
    "set -euo keyword",
    "set +o keyword",
    "set -- a b",
    "set -e -- a",
    "set a b",
]
# Options bash 5.2 does not have (each an error there), and forms that run their operand.
UNKNOWN = [
    "printf -x a",
    "printf --help",
    "wait -z",
    "wait --frob",
    "set -Z",
    "set -eZ",
    "command -vx git",
    "command -- -v git",
    "command -x ls",
]
READS = [
    "printf '%s\\n' a b",
    "printf -- '%s' x",
    'printf -- "$f"',  # after --, the format cannot be -v
    "wait",
    "wait -n",
    "wait -nf",
    "wait -f -n 12 %1",
    "wait -- 12",
    "set -euo pipefail",
    "set -e -u -o pipefail",
    "set +e",
    "set +k",
    "set -x +e",
    "command -v git",
    "command -V git",
    "command -pv git",
    "command -p -v git",
    "command -vp git",
    "command -pvV -- git reset --hard",
]


@pytest.mark.parametrize("command", WRITES)
def test_writes_are_refused_in_every_spelling_and_wrapper(command: str) -> None:
    for w in WRAPPERS:
        assert not read_only(f"{w}{command}"), f"{w}{command}"


@pytest.mark.parametrize("command", UNKNOWN)
def test_unknown_options_are_not_proven(command: str) -> None:
    assert not read_only(command)


@pytest.mark.parametrize("command", READS)
def test_reads_stay_read_only(command: str) -> None:
    assert read_only(command)
