"""find's read-only check reads the expression with the one find reading (shell/tools.py).

Before, ``rules/readonly/search.py`` walked find's arguments itself (its own leading-option
scan, which took ``-Dtree`` for ``-D tree``, and its own table of which primaries take a
value) beside ``find_parts``/``find_primaries``, which the danger catalogue reads. Now a
primary's value is whatever the one reading says it is: a write primary named as another's
value is a value (find deletes nothing: ``tether verify`` saw no change, see
tests/data/readonly_divergences.jsonl), a write primary anywhere find reads one is refused,
behind every wrapper.
"""

from __future__ import annotations

import pytest

from tether.rules import readonly
from tether.shell import parse_command
from tether.shell.model import Word
from tether.shell.tools import find_parts, find_primaries

# Wrappers a read stays read-only behind; a write is refused behind these and sudo too.
WRAPPERS = ("", "env ", "timeout 5 ", "nice -n 5 ", "env LC_ALL=C timeout -s KILL 9 ")
WRITE_WRAPPERS = (*WRAPPERS, "sudo ", "sudo -u root env ")
LEADING = ("", "-L ", "-H ", "-P ", "-D tree ", "-O3 ", "-D stat -O2 ")


def read_only(command: str) -> bool:
    return readonly.assess(parse_command(command)).read_only


READS = [
    "find . -name '*.py'",
    "find src -type f -newermt 2024-01-01 -print",
    "find . \\( -name a -o -name b \\) -print0",
    "find . -name -delete",  # the pattern '-delete'
    "find . -printf -delete",  # the format '-delete'
    "find . -path -fprint -prune -o -print",  # -fprint as the -path pattern
    "find . -fstype -exec",  # -exec as the file system type
    "find . -name x -exec grep -l y {} +",
    "find . -name x -execdir head -5 {} ';'",
]
WRITES = [
    "find . -delete",
    "find . -name x -delete",
    "find . -name '*.o' -o -delete",
    "find . -fprint out",
    "find . -fprintf out %p",
    "find . -fls out",
    "find . -ok rm {} ';'",
    "find . -exec rm {} +",
    "find . -exec cat {} + -delete",  # the reader's '+' ends it; -delete is a primary
    "find . -exec cat {} ';' -fprint out",
    "find . -execdir sh -c 'rm $1' _ {} ';'",
]
# Refused because find refuses them too (each exits 1: unknown predicate, missing argument).
REFUSED = [
    "find -Dtree . -print",  # old main read -Dtree as -D tree; find: unknown predicate
    "find -HL . -print",
    "find . -newerzz x",
    "find . -name",
    "find . -exec grep x {}",  # not terminated
    "find . -frobnicate",
    "find --help",
    # the reader -exec runs is judged by its own spec (old main: read-only by its name alone)
    "find . -exec ls --frob {} +",
    "find . -name x -exec head --frob {} ';'",
]


@pytest.mark.parametrize("command", READS)
def test_reads_stay_read_only_behind_every_wrapper_and_leading_option(command: str) -> None:
    rest = command.removeprefix("find ")
    for w in WRAPPERS:
        for lead in LEADING:
            assert read_only(f"{w}find {lead}{rest}"), f"{w}find {lead}{rest}"


@pytest.mark.parametrize("command", WRITES)
def test_writes_are_refused_behind_every_wrapper_and_leading_option(command: str) -> None:
    rest = command.removeprefix("find ")
    for w in WRITE_WRAPPERS:
        for lead in LEADING:
            assert not read_only(f"{w}find {lead}{rest}"), f"{w}find {lead}{rest}"


@pytest.mark.parametrize("command", REFUSED)
def test_what_find_refuses_is_not_proven(command: str) -> None:
    assert not read_only(command)


@pytest.mark.parametrize("command", READS + WRITES)
def test_the_verdict_follows_the_one_reading(command: str) -> None:
    # A command is read-only exactly when no primary the one reading finds writes or runs
    # a program other than a reader (the same reading the danger catalogue uses).
    words = tuple(Word(w.strip("'").replace("\\", "")) for w in command.split()[1:])
    _starts, expression = find_parts(words)
    primaries = [p for p, _ in find_primaries(expression)]
    acts = {"-delete", "-fprint", "-fprintf", "-fls", "-ok", "-okdir"}
    writes = bool(acts & set(primaries)) or " rm " in command or " sh -c " in command
    assert read_only(command) is not writes, (command, primaries)
