"""The shape every catalogue family module shares: rules plus a checker per command name."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from tether.rules.base import Rule, Tier
from tether.rules.readonly.spec import Check, Spec, read, unknown_option
from tether.shell.model import Word

Checker = Callable[[str, tuple[Word, ...]], Check]


class Entry(NamedTuple):
    """How one command name is judged.

    ``pure`` marks commands none of whose options or operands can write or run a program in
    any known implementation: they stay read-only whatever their arguments expand to, which
    is what lets them take globs, ``$VAR`` and operands appended by ``xargs``; an option
    spelt out that their spec does not list is still refused. ``specs`` are the option
    grammars the check reads arguments with (shown by ``tether rules CODE``).
    """

    code: str
    check: Checker
    pure: bool = False
    specs: tuple[Spec, ...] = ()


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


def pure_entries(code: str, *specs: Spec) -> dict[str, Entry]:
    """Return entries for commands that only read whatever their arguments (one spec each)."""
    by_name = {s.name: s for s in specs}
    verdicts = {n: read(code, f"{n} only reads") for n in by_name}

    def check(name: str, args: tuple[Word, ...]) -> Check:
        return unknown_option(by_name[name], args) or verdicts[name]

    return {n: Entry(code, check, True, (s,)) for n, s in by_name.items()}


def entries(code: str, names: str, check: Checker, *specs: Spec) -> dict[str, Entry]:
    """Return entries for commands judged by ``check`` (reading arguments with ``specs``)."""
    return {n: Entry(code, check, False, specs) for n in names.split()}
