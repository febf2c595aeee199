"""What every read-only check shares: the ``Check`` verdict, its codes, and ``Spec``.

A ``Spec`` (``tether.shell.specs``, the table of program specs every judge shares) is one
command's (or subcommand's) options written for the one getopt engine (``n|lines: q|quiet
color::``), which of them make it write (scoped to that command: ``-f`` is a pattern file for
``grep`` but a field for ``gh api``) and the version they were read from. ``parse`` reads
arguments with the engine's grammar for the spec (bundled short options, attached values,
``--opt=value``, unique prefixes of long options, permuted operands, ``--``) and judges the
result; no check reads options another way.
"""

from __future__ import annotations

from typing import NamedTuple

from tether.shell.model import Word
from tether.shell.options import FLAG, Grammar, Parsed, only_flags
from tether.shell.options import parse as parse_options
from tether.shell.specs import Spec as Spec  # re-exported: every family module reads it here
from tether.shell.specs import grammar_of as grammar_of
from tether.shell.specs import respell_next

# Codes shared by every checker (their Rule entries live in ``structural.py``).
WRITE_OPTION = "RW020"
UNKNOWN_OPTION = "RW021"
WRITE_OPERAND = "RW022"
WRITE_SUBCOMMAND = "RW023"
UNKNOWN_SUBCOMMAND = "RW024"
DYNAMIC_ARGUMENT = "RW025"
SCRIPT_CAN_WRITE = "RW026"
OWN_CACHE = "RW030"
CACHE = "cache"  # the one effect named so far: a write to the tool's own cache or log


class Check(NamedTuple):
    """One command's verdict: read-only or not, the deciding code, and why.

    ``effects`` names what a write that is not read-only is limited to: ``("cache",)`` when
    the command only reads the user's files but refreshes its own cache or log (docs/readonly.md,
    "Effects"). Such a command is still not read-only: ``tether verify`` counts the write.
    """

    read_only: bool
    code: str
    reason: str
    effects: tuple[str, ...] = ()


def read(code: str, reason: str) -> Check:
    """Return a read-only verdict."""
    return Check(True, code, reason)


def write(code: str, reason: str) -> Check:
    """Return a not-read-only verdict."""
    return Check(False, code, reason)


def cache_write(reason: str) -> Check:
    """Return a not-read-only verdict whose only write is the tool's own cache or log."""
    return Check(False, OWN_CACHE, reason, (CACHE,))


def opts(text: str) -> frozenset[str]:
    """Return the words of a space-separated list as a set (names of commands, verbs)."""
    return frozenset(text.split())


def _write_prefix(spec: Spec, g: Grammar, spelt: str) -> str | None:
    """Return the write option an ambiguous prefix may mean (a write either way)."""
    for name in g.candidates(spelt):
        if name in spec.writes:
            return name
    return None


def spelling(g: Grammar, canonical: str, args: tuple[Word, ...]) -> str:
    """Return the name the command gave the option ``canonical`` (``-i`` for --in-place).

    For messages only: the reason names the option the way the agent wrote it.
    """
    for word in args:
        v = word.value
        if v == "--":
            break
        if v.startswith("--"):
            name = v.partition("=")[0]
            if name in g.names and g.names[name] == canonical:
                return name
        elif v.startswith("-"):
            for letter in v[1:]:
                found = g.names.get("-" + letter)
                if found == canonical:
                    return "-" + letter
                if found is None or g.arity[found] != FLAG:
                    break  # the rest of the word is a value
    return canonical


def parse(spec: Spec, args: tuple[Word, ...]) -> Parsed | Check:
    """Split ``args`` by ``spec``; return a not-read-only Check when they cannot be proven."""
    for word in args:
        if not word.literal:
            return write(DYNAMIC_ARGUMENT, f"{spec.name}: '{word.value[:60]}' expands at run time")
    g = grammar_of(spec)
    if spec.style == "next":
        args = respell_next(g, args)
    parsed = parse_options(g, args)
    for option, _value in parsed.options:
        if option in spec.writes:
            spelt = spelling(g, option, args)
            return write(WRITE_OPTION, f"{spec.name} {spelt}: {spec.writes[option]}")
        if option in parsed.unknown:
            hit = _write_prefix(spec, g, option) if option.startswith("--") else None
            if hit is not None:
                return write(WRITE_OPTION, f"{spec.name} {hit}: {spec.writes[hit]}")
            if not spec.open:
                return write(
                    UNKNOWN_OPTION, f"{spec.name}: option '{option}' is not known to be safe"
                )
    if parsed.error is not None and not parsed.unknown:
        return write(UNKNOWN_OPTION, parsed.error)  # a missing value, a value given to a flag
    return parsed


def unknown_option(spec: Spec, args: tuple[Word, ...]) -> Check | None:
    """Return a not-read-only Check when a literal word of ``args`` is not an option of ``spec``.

    For commands none of whose options writes (in the version ``spec`` was checked against):
    words that expand at run time are left alone, but an option the spec does not list may be
    one a newer version added, so it is not proven.
    """
    if spec.open:
        return None
    marks = "-+" if spec.plus else "-"
    for w in args:
        if w.literal and len(w.value) > 1 and w.value[0] in marks:
            break
    else:
        return None  # no option at all (`cat f`): the common case, without the engine
    g = grammar_of(spec)
    if only_flags(g, args):
        return None  # known flags only (`cat -n f`, `ls -la`): nothing to split
    parsed = parse_options(g, args)
    if parsed.error is None:
        return None
    if parsed.unknown:
        hint = f" (checked against {spec.checked})" if spec.checked else ""
        return write(
            UNKNOWN_OPTION,
            f"{spec.name}: option '{parsed.unknown[0][:40]}' is not known to be safe{hint}",
        )
    if parsed.dynamic:
        return None  # a value that expands at run time: still a value of a known option
    return write(UNKNOWN_OPTION, parsed.error)


def check_spec(spec: Spec, args: tuple[Word, ...], code: str, max_operands: int = -1) -> Check:
    """Return read-only when ``args`` parse under ``spec`` with at most ``max_operands``."""
    parsed = parse(spec, args)
    if isinstance(parsed, Check):
        return parsed
    if 0 <= max_operands < len(parsed.operands):
        extra = parsed.operands[max_operands].value
        return write(WRITE_OPERAND, f"{spec.name}: operand '{extra[:60]}' is an output file")
    return read(code, f"{spec.name} only reads")
