"""Option grammar: split one command's arguments into options and operands, the way it would.

A ``Spec`` says, for one command, which options take a value, which options make it write
(scoped to that command: ``-f`` is a pattern file for ``grep`` but a field for ``gh api``),
and whether unknown options are acceptable. ``parse`` follows getopt_long: bundled short
options (``-nE``), attached values (``-n5``, ``-ob64.txt``), ``--opt=value``, unique prefixes
of long options (``--co=cat`` is ``--compress-program``), permuted operands and ``--``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from tether.shell.model import Word

# Codes shared by every checker (their Rule entries live in ``structural.py``).
WRITE_OPTION = "RW020"
UNKNOWN_OPTION = "RW021"
WRITE_OPERAND = "RW022"
WRITE_SUBCOMMAND = "RW023"
UNKNOWN_SUBCOMMAND = "RW024"
DYNAMIC_ARGUMENT = "RW025"
SCRIPT_CAN_WRITE = "RW026"


class Check(NamedTuple):
    """One command's verdict: read-only or not, the deciding code, and why."""

    read_only: bool
    code: str
    reason: str


def read(code: str, reason: str) -> Check:
    """Return a read-only verdict."""
    return Check(True, code, reason)


def write(code: str, reason: str) -> Check:
    """Return a not-read-only verdict."""
    return Check(False, code, reason)


class Spec(NamedTuple):
    """The option grammar of one command (or subcommand).

    ``flags`` take no value; ``valued`` always take one (attached or the next word);
    ``optional`` are long options whose value may only be attached (``--color[=WHEN]``).
    ``writes`` maps an option to why it writes; long ones also match their unique prefixes.
    ``open`` accepts options not listed (only for commands none of whose options write, apart
    from ``writes``). ``numeric`` accepts ``-NUM`` (``head -20``). ``permute`` is False for
    commands that stop at the first operand.
    """

    name: str
    flags: frozenset[str] = frozenset()
    valued: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()
    writes: Mapping[str, str] = MappingProxyType({})  # read-only: one shared default
    open: bool = False
    numeric: bool = False
    permute: bool = True


class Parsed(NamedTuple):
    """Arguments split into ``(option, value)`` pairs and operands, in order."""

    options: tuple[tuple[str, str | None], ...]
    operands: tuple[str, ...]

    def has(self, *names: str) -> bool:
        """Return True when any of ``names`` was given."""
        return any(o in names for o, _ in self.options)

    def values(self, *names: str) -> list[str]:
        """Return the values given to any of ``names``, in order."""
        return [v for o, v in self.options if o in names and v is not None]


def opts(text: str) -> frozenset[str]:
    """Return the options in a space-separated list (a compact way to write specs)."""
    return frozenset(text.split())


def _long_names(spec: Spec) -> list[str]:
    names = [*spec.flags, *spec.valued, *spec.optional, *spec.writes]
    return [n for n in names if n.startswith("--")]


def _resolve_long(spec: Spec, name: str) -> str | None:
    """Return the long option ``name`` abbreviates, or None when unknown or ambiguous."""
    known = _long_names(spec)
    if name in known:
        return name
    hits = {n for n in known if n.startswith(name)}
    if len(hits) == 1:
        return hits.pop()
    # An abbreviation of a write option is a write even when it is also ambiguous.
    for n in hits:
        if n in spec.writes:
            return n
    return None


def parse(spec: Spec, args: tuple[Word, ...]) -> Parsed | Check:
    """Split ``args`` by ``spec``; return a not-read-only Check when they cannot be proven."""
    options: list[tuple[str, str | None]] = []
    operands: list[str] = []
    words = list(args)
    i = 0
    ended = False
    while i < len(words):
        word = words[i]
        i += 1
        if not word.literal:
            return write(DYNAMIC_ARGUMENT, f"{spec.name}: '{word.value[:60]}' expands at run time")
        w = word.value
        if ended or w == "-" or not w.startswith("-"):
            operands.append(w)
            if not spec.permute:
                ended = True
            continue
        if w == "--":
            ended = True
            continue
        if w.startswith("--"):
            name, eq, value = w.partition("=")
            resolved = _resolve_long(spec, name)
            if resolved is None:
                if spec.open:
                    options.append((name, value if eq else None))
                    continue
                return write(
                    UNKNOWN_OPTION, f"{spec.name}: option '{name}' is not known to be safe"
                )
            if resolved in spec.writes:
                return write(WRITE_OPTION, f"{spec.name} {resolved}: {spec.writes[resolved]}")
            if resolved in spec.valued and not eq:
                if i >= len(words):
                    return write(UNKNOWN_OPTION, f"{spec.name}: option '{name}' needs a value")
                if not words[i].literal:
                    return write(
                        DYNAMIC_ARGUMENT,
                        f"{spec.name}: the value of '{name}' expands at run time",
                    )
                value = words[i].value
                i += 1
            elif eq and resolved in spec.flags:
                return write(UNKNOWN_OPTION, f"{spec.name}: option '{name}' takes no value")
            options.append((resolved, value if (eq or resolved in spec.valued) else None))
            continue
        if spec.numeric and w[1:].isdigit():
            options.append(("-NUM", w[1:]))
            continue
        j = 1
        while j < len(w):
            opt = "-" + w[j]
            j += 1
            if opt in spec.writes:
                return write(WRITE_OPTION, f"{spec.name} {opt}: {spec.writes[opt]}")
            if opt in spec.valued:
                if j < len(w):
                    options.append((opt, w[j:]))
                elif i < len(words):
                    if not words[i].literal:
                        return write(
                            DYNAMIC_ARGUMENT,
                            f"{spec.name}: the value of '{opt}' expands at run time",
                        )
                    options.append((opt, words[i].value))
                    i += 1
                else:
                    return write(UNKNOWN_OPTION, f"{spec.name}: option '{opt}' needs a value")
                break
            if opt in spec.flags or spec.open:
                options.append((opt, None))
                continue
            return write(UNKNOWN_OPTION, f"{spec.name}: option '{opt}' is not known to be safe")
    return Parsed(tuple(options), tuple(operands))


def check_spec(spec: Spec, args: tuple[Word, ...], code: str, max_operands: int = -1) -> Check:
    """Return read-only when ``args`` parse under ``spec`` with at most ``max_operands``."""
    parsed = parse(spec, args)
    if isinstance(parsed, Check):
        return parsed
    if 0 <= max_operands < len(parsed.operands):
        extra = parsed.operands[max_operands]
        return write(WRITE_OPERAND, f"{spec.name}: operand '{extra[:60]}' is an output file")
    return read(code, f"{spec.name} only reads")
