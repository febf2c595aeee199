"""The sed and awk readers against the real tools: generated scripts, what each writes and runs.

``tests/embedded_differential.py`` generates scripts (labels ending at blanks, ``;``, ``}``
and ``#``, ``w``/``e`` hidden after them, s///w and s///e with odd delimiters, a/i/c text
holding ``; w FILE``, blocks, comments) and runs each in a throwaway directory; the reader's
``writes`` and literal ``runs`` must foresee every file the tool made (0 missed), and for GNU
sed, which the reader models, make no file it did not (0 extra) when sed accepts the script.
Awk programs (print/printf redirections after newlines that continue a statement, inside and
outside parentheses, pipes, getline from commands, system(), decoys in strings, regexes and
comments) are compared the same way against gawk, mawk and BusyBox awk. Bounded and seeded
here (120 of each); benchmarks/bench_embedded_differential.py runs 2,000 of each.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from tests.embedded_differential import (
    awk_compare,
    awk_programs,
    awk_tools,
    sed_compare,
    sed_scripts,
    sed_tools,
)

from tether.shell.embedded.awk import read_awk
from tether.shell.embedded.sed import read_sed

SEEN: dict[str, int] = {"scripts": 0, "made": 0}


@settings(max_examples=120, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))  # fmt: skip
@given(sed_scripts())
def test_the_sed_reader_foresees_what_real_sed_writes_and_runs(script: str) -> None:
    SEEN["scripts"] += 1
    for name, argv in sed_tools().items():
        found = sed_compare(argv, script)
        SEEN["made"] += bool(found.tool.made)
        assert not found.missed, f"{name} made {sorted(found.missed)} unforeseen: {script!r}"
        if name == "gnu sed":
            assert not found.extra, f"{name} did not make {sorted(found.extra)}: {script!r}"


def test_the_generated_scripts_write_and_run() -> None:
    """The comparison above is not empty: most scripts make a file (an unused generator
    would pass it trivially)."""
    if SEEN["scripts"] == 0:  # run alone: draw the same seeded scripts here
        test_the_sed_reader_foresees_what_real_sed_writes_and_runs()
    assert SEEN["scripts"] >= 100, SEEN
    assert SEEN["made"] >= SEEN["scripts"] // 2, SEEN


@pytest.mark.parametrize(
    ("script", "writes", "runs"),
    [
        (":a w out", ["out"], []),
        (":a;e touch x", [], ["touch x"]),
        ("b a;w out\n:a", ["out"], []),
        ("1{:a};w out", ["out"], []),
        (":a#c;w out", ["out"], []),  # BusyBox: the label is `a#c`, then `w out`
        ("s/a/b/ g p w out", ["out"], []),
        ("a foo; w out", [], []),
        ("e echo one\\\ntwo", [], ["echo one\ntwo"]),
        ("/x/Mecho hi", [], ["cho hi"]),
        ("s|x|touch y|e", [], ["touch y"]),
        ("x 1w out", ["out"], []),  # GNU refuses; BusyBox writes out
    ],
)
def test_known_forms(script: str, writes: list[str], runs: list[str]) -> None:
    found = read_sed(script)
    assert list(found.writes) == writes
    assert [r.command for r in found.runs] == runs


@settings(max_examples=120, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))  # fmt: skip
@given(awk_programs())
def test_the_awk_reader_foresees_what_real_awks_write_and_run(program: str) -> None:
    for name, argv in awk_tools().items():
        found = awk_compare(argv, program)
        assert not found.missed, f"{name} made {sorted(found.missed)} unforeseen: {program!r}"
        assert not found.extra, f"{name} did not make {sorted(found.extra)}: {program!r}"


@pytest.mark.parametrize(
    ("program", "writes", "runs"),
    [
        ('BEGIN{print (1,\n2) > "w"}', ["w"], []),
        ('BEGIN{print 1,\n2 > "w"}', ["w"], []),
        ("BEGIN { print (1 > 2) }", [], []),
        ('BEGIN { print 1 > 2 ? "a" : "b" }', [None], []),
        ('{ if ($1 > 5) print $2 > "w" }', ["w"], []),
        ('BEGIN { while (("ls" | getline x) > 0) n++ }', [], ["ls"]),
        ('BEGIN { print /x; print y > "out";/ }', [], []),
        ('BEGIN { # print > "out"\nprint }', [], []),
        ('BEGIN { printf("%s", 1) > "w" }', ["w"], []),
        ('BEGIN { f = "system"; @f("rm -rf /") }', [], ["rm -rf /"]),
        ('BEGIN { f = "toupper"; print @f("a") }', [], []),
        ('{ print | "sort" }', [], ["sort"]),
    ],
)
def test_known_awk_forms(program: str, writes: list[str | None], runs: list[str]) -> None:
    found = read_awk(program)
    assert list(found.writes) == writes
    assert [r.command for r in found.runs] == runs
