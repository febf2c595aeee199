"""The rule catalogues: read-only proofs and dangers, each rule with its docs and examples."""

from __future__ import annotations

from tether.rules.base import Danger, DangerVerdict, ReadVerdict, Rule, Tier


def all_rules() -> list[Rule]:
    """Return every rule of every catalogue, sorted by code."""
    from tether.rules import danger, readonly

    return sorted([*readonly.RULES, *danger.RULES], key=lambda r: r.code)


def all_codes() -> list[Rule]:
    """Return an entry for every code a decision can carry: the rules, then the others."""
    from tether.rules.decisions import decision_codes

    return [*all_rules(), *decision_codes()]


def explain(code: str) -> Rule | None:
    """Return the entry for any decision code (or name), or None."""
    wanted = code.strip()
    for entry in all_codes():
        if wanted.upper() == entry.code.upper() or wanted.lower() == entry.name:
            return entry
    return None


def get_rule(code: str) -> Rule | None:
    """Return the rule with this code (or name), or None."""
    wanted = code.strip()
    for rule in all_rules():
        if wanted.upper() == rule.code or wanted.lower() == rule.name:
            return rule
    return None


__all__ = [
    "Danger",
    "DangerVerdict",
    "ReadVerdict",
    "Rule",
    "Tier",
    "all_codes",
    "all_rules",
    "explain",
    "get_rule",
]
