"""Danger checks registered by program name, each with the rules it can report.

``@program_check("rm", "unlink", rules=(RULE,))`` files a check under the programs it reads,
so the catalogue runs for a command only the checks of its program (and those its shape calls
for: redirects, wrappers, a computed command word). A check yields ``RULE.hit(detail)``: the
rule object decides the code, never a string written in the check (a test scans ``src/`` for
code strings outside rule definitions). ``tether rules --program NAME`` reads the same table.

Modules still on the older ``CHECKS = {name: check}`` tables are merged beside it by
``tether.rules.danger`` until they move (``tests/test_rules_code_strings.py`` lists them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tether.rules.base import Hit, Rule
from tether.rules.danger._base import Scope
from tether.shell.model import SimpleCommand

Check = Callable[[SimpleCommand, Scope], Iterable[Hit]]

_BY_PROGRAM: dict[str, list[Check]] = {}
_RULES: dict[Check, tuple[Rule, ...]] = {}


def program_check(*names: str, rules: tuple[Rule, ...]) -> Callable[[Check], Check]:
    """Register a check for the programs ``names``; ``rules`` are the rules it can report."""

    def register(check: Check) -> Check:
        for name in names:
            found = _BY_PROGRAM.setdefault(name, [])
            if check not in found:
                found.append(check)
        _RULES[check] = rules
        return check

    return register


def registered() -> dict[str, tuple[Check, ...]]:
    """Return every program's registered checks, in registration order."""
    return {name: tuple(checks) for name, checks in _BY_PROGRAM.items()}


def rules_of(check: Check) -> tuple[Rule, ...]:
    """Return the rules a registered check can report (empty for an unregistered one)."""
    return _RULES.get(check, ())


__all__ = ["Check", "program_check", "registered", "rules_of"]
