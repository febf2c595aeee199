"""A program's spec as data: its options for the one getopt engine, and which of them write.

A ``Spec`` is the entry of the table of program specs that more than one judge reads: the
read-only catalogue proves a command with it (``writes``, ``open``), the danger catalogue and
the static decoder read arguments with its grammar, the loop guard spells a call with it
(``tether.shell.readers``). ``grammar_of`` builds the engine grammar once per spec, so every
judge reads a program's arguments with the same object.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from tether.shell.model import Word
from tether.shell.options import FLAG, LIST, REQUIRED, Grammar, grammar


class Spec(NamedTuple):
    """The options of one command (or subcommand), for the one getopt engine.

    ``options`` lists them in the engine's compact form (``n|lines: q|quiet color::``: a
    flag, one taking a value, one whose value may only be attached; see
    ``tether.shell.options.grammar``). ``writes`` maps an option to why it writes (one named
    only there is read as a flag: whatever its value, the command is refused); long ones also
    match their unique prefixes. ``open`` accepts options not listed: only for words the
    program never reads as options (``echo``'s text, ``test``'s expression). ``numeric``
    accepts ``-NUM`` (``head -20``); ``permute`` is False for commands that stop at the first
    operand; ``plus`` for options also spelt ``+x`` (``lsof +D DIR``); ``abbreviate`` is
    False for tools that take long options only spelt whole (Go's pflag: gh, docker).
    ``style`` is how the program reads a cluster: "getopt" (a value-taking letter takes the
    rest of the word, else the next one), or "next" (tree 2.1: each value-taking letter of a
    cluster takes the next argument in turn, never an attached value: ``tree -Lo 2 out`` is
    ``-L 2 -o out``; ``respell_next`` turns such words into the getopt spelling).
    ``checked`` names the version the options were read from (``--help``, a man page);
    ``tests/test_option_help.py`` compares them with the installed tool.
    """

    name: str
    options: str = ""
    writes: Mapping[str, str] = MappingProxyType({})  # read-only: one shared default
    open: bool = False
    numeric: bool = False
    permute: bool = True
    checked: str = ""
    plus: bool = False
    abbreviate: bool = True
    style: str = "getopt"


# Each Spec is read by the one getopt engine through a Grammar built on first use (specs are
# module constants, so their ids are stable; the Spec is kept so an id is never reused).
_GRAMMARS: dict[int, tuple[Spec, Grammar]] = {}


def grammar_of(spec: Spec) -> Grammar:
    """Return the engine grammar ``spec`` is read with."""
    found = _GRAMMARS.get(id(spec))
    if found is None:
        listed = {
            ("-" if len(n) == 1 else "--") + n
            for item in spec.options.split()
            for n in item.rstrip(":").split("|")
        }
        text = " ".join([spec.options, *(n.lstrip("-") for n in spec.writes if n not in listed)])
        g = grammar(spec.name, text, abbreviate=spec.abbreviate, permute=spec.permute,
                    numeric=spec.numeric, plus=spec.plus)  # fmt: skip
        found = _GRAMMARS[id(spec)] = (spec, g)
    return found[1]


__all__ = ["Spec", "grammar_of"]


def respell_next(g: Grammar, args: tuple[Word, ...]) -> tuple[Word, ...]:
    """Spell a "next"-style command line (``Spec.style``) for the getopt engine: each
    value-taking letter of a cluster gets the next argument as its own word."""
    out: list[Word] = []
    i = 0
    while i < len(args):
        w = args[i]
        i += 1
        v = w.value
        if v == "--":
            out += args[i - 1 :]
            break
        if len(v) > 2 and v[0] == "-" and v[1] != "-":
            for letter in v[1:]:
                out.append(Word("-" + letter, w.literal))
                takes = g.arity.get(g.names.get("-" + letter, ""), FLAG) in (REQUIRED, LIST)
                if takes and i < len(args):
                    out.append(args[i])
                    i += 1
            continue
        out.append(w)
    return tuple(out)
