"""Generated sed scripts and awk programs, and what the real tools do with them.

Shared by ``tests/test_embedded_differential.py`` (bounded, seeded) and
``benchmarks/bench_embedded_differential.py`` (the long run). Each script is run by the real
tool in a throwaway directory holding one input file (``in``: one line, ``hi``); what it writes
is every file that appears there (sed creates its ``w`` files when it compiles the script), what
it runs is every file that appears through a ``touch rN`` command. The reader's answer is turned
into the same set: the files it says are written, and what the commands it says run create when
run the same way. A file the tool made that the reader did not foresee is a *missed* effect (the
reader is unsound); a file the reader foresaw that the tool accepting the script did not make is
an *extra* one (recall).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from hypothesis import strategies as st

from tether.shell.embedded.sed import read_sed

_ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": "/nonexistent"}


class Outcome(NamedTuple):
    made: frozenset[str]  # files the tool created
    accepted: bool  # exit status 0


class Compared(NamedTuple):
    missed: frozenset[str]
    extra: frozenset[str]
    tool: Outcome


def run_in_scratch(argv: list[str], timeout: float = 5) -> Outcome:
    """Run ``argv`` in a fresh directory holding ``in``; return the files it created."""
    with tempfile.TemporaryDirectory(prefix="tether-diff-") as where:
        Path(where, "in").write_text("hi\n")
        try:
            done = subprocess.run(
                argv,
                cwd=where,
                env=_ENV,
                capture_output=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
                check=False,
            )
            ok = done.returncode == 0
        except subprocess.TimeoutExpired:
            ok = False
        made = frozenset(p.name for p in Path(where).iterdir()) - {"in"}
    return Outcome(made, ok)


def _commands_make(commands: list[str]) -> frozenset[str]:
    """The files the literal commands a reader found create when a shell runs them."""
    made: set[str] = set()
    for command in commands:
        made |= run_in_scratch(["/bin/sh", "-c", command]).made
    return frozenset(made)


def expected(writes: list[str], commands: list[str]) -> frozenset[str]:
    return frozenset(writes) | _commands_make(commands)


def compare(tool: Outcome, foreseen: frozenset[str]) -> Compared:
    extra = foreseen - tool.made if tool.accepted else frozenset()
    return Compared(tool.made - foreseen, extra, tool)


# --- sed ------------------------------------------------------------------------------------------

SEDS: dict[str, list[str]] = {"gnu sed": ["sed"], "busybox sed": ["busybox", "sed"]}


def sed_tools() -> dict[str, list[str]]:
    return {n: argv for n, argv in SEDS.items() if shutil.which(argv[0])}


def sed_foreseen(script: str) -> frozenset[str]:
    found = read_sed(script)
    commands = [r.command for r in found.runs if r.command is not None]
    return expected(list(found.writes), commands)


def sed_compare(argv: list[str], script: str) -> Compared:
    return compare(run_in_scratch([*argv, "-n", "-e", script, "in"]), sed_foreseen(script))


_TEXT = st.text(alphabet="ab ;}#{/|,\\wWe:", max_size=6)
_LABEL = st.text(alphabet="abxy1", min_size=1, max_size=3)
_SEP = st.sampled_from([";", "\n", " ", "\t", "; ", " ;\n", "#c;\n", ""])
# Addresses that select the one input line (so an ``e`` under them runs), and others.
# (by number: an ``s///e`` or ``G`` before them changes the line a regex would match).
_MATCHING = st.sampled_from(["", "1", "$", "1,$", "0,/h/", "1~1", "1 ", "1,/x/", "2!"])
_ANY_ADDRESS = st.one_of(
    _MATCHING, st.sampled_from(["2", "/x/", "1!", "$!", "/a\\/b/,+1", "2,3", "/hi/", "\\,h,I"])
)
_DELIMS = st.sampled_from(list("/|,#;: ew}"))


@st.composite
def _sed_command(draw: Callable, n: int) -> str:  # type: ignore[type-arg]
    kind = draw(st.sampled_from(["w", "e", "s_e", "s_w", "s", "label", "jump", "text", "comment",
                                 "y", "simple", "block", "read", "v"]))  # fmt: skip
    if kind == "w":
        verb = draw(st.sampled_from(["w", "W", "w ", "W  "]))
        return f"{draw(_ANY_ADDRESS)}{verb}w{n}"
    if kind == "e":
        return f"{draw(_MATCHING)}e touch r{n}"
    delim = draw(_DELIMS)
    if kind == "s_e":
        flags = draw(st.sampled_from(["e", "ge", "eg", "pe", " e", "e ", "1e", "Ie"]))
        return f"{draw(_MATCHING)}s{delim}^.*${delim}touch r{n}{delim}{flags}"
    if kind in ("s_w", "s"):
        regex = draw(_TEXT).replace("\\", "").replace(delim, "\\" + delim)
        repl = draw(_TEXT).replace("\\", "").replace(delim, "\\" + delim)
        flags = draw(st.sampled_from(["", "g", "p", "gp", " ", "2", "I"]))
        tail = f"{draw(st.sampled_from(['w', ' w', 'w ']))} w{n}" if kind == "s_w" else ""
        return f"{draw(_ANY_ADDRESS)}s{delim}{regex}{delim}{repl}{delim}{flags}{tail}"
    # Labels are unique (a jump goes to the last of two) and each jump's label comes right
    # after it, so a jump skips nothing when sed reads it as the generator meant.
    if kind == "label":
        return f":{draw(_LABEL)}{n}"
    if kind == "jump":
        label = f"{draw(_LABEL)}{n}j"
        return f"{draw(st.sampled_from(['b', 't', 'T', 'b ', 't  ']))}{label}{draw(_SEP)}:{label}"
    if kind == "text":
        verb = draw(st.sampled_from(["a", "i", "a\\\n", "i\\\n", "a ", "1a "]))
        more = draw(st.sampled_from(["", "\\\nmore", "; w w{n}", "\\\n;e touch r{n}"]))
        return f"{verb}{draw(_TEXT)}{more.format(n=n)}"
    if kind == "comment":
        return f"#{draw(_TEXT)}"
    if kind == "y":
        return f"y{delim}ab{delim}ba{delim}" if delim not in "ab" else "y/ab/ba/"
    if kind == "simple":
        return draw(st.sampled_from(["p", "=", "l", "l 5", "h", "G", "x", "z", "F", "P", "H", "g"]))
    if kind == "block":
        inner = draw(_sed_command(n + 100))
        close = draw(st.sampled_from([";", "\n", " "]))
        return f"{draw(_MATCHING)}{{{draw(_SEP)}{inner}{close}}}"
    if kind == "read":
        return f"{draw(st.sampled_from(['r', 'R']))} in"
    return draw(st.sampled_from(["v", "v 4.2", "v4.2"]))


@st.composite
def sed_scripts(draw: Callable) -> str:  # type: ignore[type-arg]
    count = draw(st.integers(1, 6))
    parts = [draw(_sed_command(k)) for k in range(count)]
    out = parts[0]
    for part in parts[1:]:
        out += draw(_SEP) + part
    return out


def environment_note() -> str:
    return f"tools: {', '.join(sed_tools())}; uid {os.getuid()}"


# --- awk ------------------------------------------------------------------------------------------

AWKS: dict[str, list[str]] = {"gawk": ["gawk"], "mawk": ["mawk"], "busybox awk": ["busybox", "awk"]}


def awk_tools() -> dict[str, list[str]]:
    return {n: argv for n, argv in AWKS.items() if shutil.which(argv[0])}


def awk_compare(argv: list[str], program: str) -> Compared:
    from tether.shell.embedded.awk import read_awk

    found = read_awk(program)
    tool = run_in_scratch([*argv, program])
    commands = [r.command for r in found.runs if r.command is not None]
    compared = compare(tool, expected([w for w in found.writes if w], commands))
    if any(r.command is None for r in found.runs):
        return Compared(frozenset(), frozenset(), tool)  # a computed command may make anything
    if None in found.writes:
        # A computed file name may be any ``wN``: the commands' files are still compared.
        missed = frozenset(f for f in compared.missed if not f.startswith("w"))
        return Compared(missed, frozenset(), tool)
    return compared


_NL = st.sampled_from([" ", " ", "\n", "\n  ", ' # c > "x"\n'])


@st.composite
def _awk_statement(draw: Callable, n: int) -> str:  # type: ignore[type-arg]
    nl = draw(_NL)
    target = draw(st.sampled_from([f'"w{n}"', f'("w{n}")', f'"w" "{n}"']))
    redirect = draw(st.sampled_from([">", ">>"]))
    kind = draw(st.sampled_from(["print", "printf", "pipe", "system", "getline", "compare",
                                 "decoy", "if", "comment", "concat", "close", "read"]))  # fmt: skip
    if kind == "print":
        items = draw(
            st.sampled_from(
                ["", '"a"', f"1,{nl}2", f"(1,{nl}2)", "(1)(2)", f"1 &&{nl}2", f"(1 {nl}> 2)", "x"]
            )
        )
        return f"print {items} {redirect} {target}"
    if kind == "printf":
        return draw(st.sampled_from([f'printf "x" {redirect} {target}',
                                     f'printf("%s", 1) {redirect} {target}']))  # fmt: skip
    if kind == "pipe":
        return f'print "a" {draw(st.sampled_from(["|", "|&"]))} "touch r{n}"'
    if kind == "system":
        return f'system("touch r{n}")'
    if kind == "getline":
        return draw(st.sampled_from([f'"touch r{n}" | getline', f'"touch r{n}" | getline x',
                                     f'while (("touch r{n}" | getline x) > 0) k++']))  # fmt: skip
    if kind == "compare":
        return draw(st.sampled_from(["x = (1 > 2)", "if (1 > 0) y = 2", "print (1 > 2)",
                                     'print (1 > 2) ? "a" : "b"', f"z = 1 >{nl}2"]))  # fmt: skip
    if kind == "decoy":
        return draw(st.sampled_from([f's = "print > \\"w{n}\\""', 's = "a | b"',
                                     'if ("hi" ~ /a>b|c/) z = 1', 'q = "system(\\"x\\")"',
                                     'print "x" ~ /[/]>/']))  # fmt: skip
    if kind == "if":
        condition = draw(st.sampled_from(["1", "1 > 0", "2 >= 1"]))
        return f'if ({condition}){nl}print "a" {redirect} {target}'
    if kind == "comment":
        return f'# print > "w{n}"\n'
    if kind == "concat":
        return f'f = "w{n}"; print "a" > f'
    if kind == "close":
        return f'close("w{n}")'
    return 'getline line < "in"'


@st.composite
def awk_programs(draw: Callable) -> str:  # type: ignore[type-arg]
    count = draw(st.integers(1, 5))
    body = ""
    for k in range(count):
        body += draw(_awk_statement(k)) + draw(st.sampled_from([";", "\n", "; ", ";\n"]))
    return f"BEGIN {{{draw(_NL)}{body}}}"
