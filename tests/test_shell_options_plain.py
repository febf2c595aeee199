"""The getopt engine's short path (``options._plain``) reads every argument list as its full loop.

``parse`` answers the common shape (literal words, known options spelt whole, their values)
without its full loop, for speed. For every grammar of every judge (the read-only catalogue's
specs, the danger catalogue's tools and git subcommands, wrappers, shells, runners) and for
argument lists drawn from each grammar's own spellings mixed with the forms the short path
must leave alone (abbreviations, ``--``, ``-NUM``, globs, words that expand, list and ending
options, missing values), the result is the one the full loop gives.
"""

from __future__ import annotations

import random

import pytest

from test_shell_options import SPECS  # every read-only spec, collected once
from tether.rules.readonly.spec import grammar_of
from tether.shell import options
from tether.shell.model import Word
from tether.shell.options import Grammar, grammar, parse
from tether.shell.programs import RUNNERS, SHELLS, WRAPPERS
from tether.shell.tools import GIT_SUBCOMMANDS, TOOLS

# Grammars with every feature the short path must hand back to the full loop.
_EDGES = [
    grammar("edges", "a b c|count: d|debug:: x* verbose colour:: output: m:", ends=["-m"]),
    grammar("stops", "a k|kill: v|verbose", permute=False),
    grammar("numeric", "n|lines: q", numeric=True),
    grammar("plus", "x e o:", plus=True),
    grammar("whole", "f|force v|verbose", abbreviate=False),
    grammar("tar", "x z f|file: C|directory: v", old_style=True),
]


def _grammars() -> list[tuple[str, Grammar]]:
    found = [(f"edge {g.name}", g) for g in _EDGES]
    found += [(f"read {s.name}", grammar_of(s)) for s in SPECS]
    found += [(f"tool {n}", g) for n, g in sorted(TOOLS.items())]
    found += [(f"git {n}", g) for n, g in sorted(GIT_SUBCOMMANDS.items())]
    found += [(f"wrapper {n}", s.grammar) for n, s in sorted(WRAPPERS.items())]
    found += [(f"shell {n}", g) for n, g in sorted(SHELLS.items())]
    found += [(f"runner {n}", s.grammar) for n, s in sorted(RUNNERS.items())
              if isinstance(getattr(s, "grammar", None), Grammar)]  # fmt: skip
    return found


GRAMMARS = _grammars()
_OTHERS = [Word("f"), Word("dir/x.py"), Word("-"), Word("--"), Word("-5"), Word("--=x"),
           Word("*.py", glob=True), Word("-*", glob=True), Word("$X", literal=False),
           Word("-$X", literal=False), Word("--$X", literal=False), Word("--nosuch"),
           Word("-Q"), Word("+Q"), Word("--ver"), Word("1")]  # fmt: skip


def _pool(g: Grammar) -> list[Word]:
    """Return words spelt from ``g``'s own options (each form getopt accepts) and the others."""
    pool = list(_OTHERS)
    shorts = [n for n in g.names if len(n) == 2]
    for spelt in g.names:
        pool.append(Word(spelt))
        if spelt.startswith("--"):
            pool += [Word(spelt + "=1"), Word(spelt[:-1]), Word(spelt + "=$V", literal=False)]
        else:
            pool += [Word(spelt + "1"), Word(spelt + "$V", literal=False), Word("+" + spelt[1])]
            pool += [Word(spelt + other[1]) for other in shorts[:3]]
    return pool


def _full(g: Grammar, args: list[Word], stop_at: int) -> options.Parsed:
    saved = options._plain
    options._plain = lambda *_a: None
    try:
        return parse(g, args, stop_at=stop_at)
    finally:
        options._plain = saved


@pytest.mark.parametrize(("name", "g"), GRAMMARS, ids=[n for n, _ in GRAMMARS])
def test_the_short_path_reads_as_the_full_loop(name: str, g: Grammar) -> None:
    rng = random.Random(name)
    pool = _pool(g)
    differ = []
    for _ in range(300):
        args = [rng.choice(pool) for _ in range(rng.randint(1, 5))]
        for stop_at in (-1, 1, 2):
            quick, full = parse(g, args, stop_at=stop_at), _full(g, args, stop_at)
            if quick != full:
                differ.append(([w.value for w in args], stop_at, quick, full))
    assert not differ, differ[:3]


def test_the_short_path_is_taken_for_the_common_shapes() -> None:
    g = grammar("grep", "r n A|after-context: c|count e|regexp: color::")
    common = ["-rn pat .", "-n -A 5 pat f", "-A5 pat f", "--count pat f", "--after-context=3 p f",
              "pat -r f", "-e pat -e other f"]  # fmt: skip
    for args in common:
        words = [Word(v) for v in args.split()]
        assert options._plain(g, words, -1) == _full(g, words, -1), args
    left = ["--cou pat", "-- -n", "-A", "-n *.py", "-A $X p", "-Q p", "--color p"]
    for args in left:
        words = [Word(v, glob="*" in v, literal="$" not in v) for v in args.split()]
        assert options._plain(g, words, -1) is None, args


@pytest.mark.parametrize(("name", "g"), GRAMMARS, ids=[n for n, _ in GRAMMARS])
def test_only_flags_says_true_only_where_parse_finds_no_problem(name: str, g: Grammar) -> None:
    rng = random.Random("flags " + name)
    pool = _pool(g)
    wrong, taken = [], 0
    for _ in range(300):
        args = [rng.choice(pool) for _ in range(rng.randint(1, 4))]
        if options.only_flags(g, args):
            taken += 1
            if parse(g, args).error is not None:
                wrong.append([w.value for w in args])
    assert not wrong, wrong[:3]


def test_only_flags_answers_the_common_shapes() -> None:
    g = grammar("ls", "l a r|reverse t h|human-readable w|width: color::")
    for args in ["-la", "-l -a dir", "--reverse .", "f -lrt", "-lh $D"]:
        words = [Word(v, literal="$" not in v) for v in args.split()]
        assert options.only_flags(g, words), args
    for args in ["-law 80", "--rev", "--color", "-w80", "-x", "-- -l", "-l*"]:
        words = [Word(v, glob="*" in v) for v in args.split()]
        assert not options.only_flags(g, words), args
