"""The shape every catalogue family module shares: rules plus a checker per command name."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from tether.rules.base import Rule, Tier
from tether.rules.readonly.grammar import Check, read
from tether.shell.model import Word

Checker = Callable[[str, tuple[Word, ...]], Check]


class Entry(NamedTuple):
    """How one command name is judged.

    ``pure`` marks commands none of whose options or operands can write or run a program in
    any known implementation: they stay read-only whatever their arguments expand to, which
    is what lets them take globs, ``$VAR`` and operands appended by ``xargs``.
    """

    code: str
    check: Checker
    pure: bool = False


def rule(
    code: str,
    name: str,
    summary: str,
    why: str,
    instead: str,
    match: tuple[str, ...],
    not_match: tuple[str, ...] = (),
) -> Rule:
    """Return a read-tier rule (a compact constructor for catalogue modules)."""
    return Rule(code, name, Tier.READ, summary, why, instead, match, not_match)


def pure_entries(code: str, names: str) -> dict[str, Entry]:
    """Return entries for commands that only read whatever their arguments."""

    verdicts = {n: read(code, f"{n} only reads") for n in names.split()}

    def check(name: str, args: tuple[Word, ...]) -> Check:
        return verdicts[name]

    return {n: Entry(code, check, pure=True) for n in verdicts}


def entries(code: str, names: str, check: Checker) -> dict[str, Entry]:
    """Return entries for commands judged by ``check``."""
    return {n: Entry(code, check) for n in names.split()}
