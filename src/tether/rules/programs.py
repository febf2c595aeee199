"""What applies to one program: its danger checks, the rules they report, its record.

``tether rules --program NAME`` prints this. The checks are those the danger catalogue
dispatches for the name (``tether.rules.danger``); a check filed with ``@program_check``
declares its rules, and for one still on the older tables the rules are those whose examples
run the program. The record says whether the program runs command strings
(``tether.shell.payloads``), wraps or runs another command, and whether the read-only
catalogue knows it. Not on the hook path.
"""

from __future__ import annotations

from typing import NamedTuple

from tether.rules.base import Rule
from tether.shell.model import SimpleCommand, Word


class CheckEntry(NamedTuple):
    """One danger check dispatched for a program, and the rules it declares it can report."""

    name: str  # module.function
    summary: str  # the first line of its docstring
    rules: tuple[Rule, ...]  # empty for a check still on the older tables (no declaration)


class ProgramView(NamedTuple):
    """Everything the catalogues apply to one program name."""

    name: str
    checks: tuple[CheckEntry, ...]
    rules: tuple[Rule, ...]  # declared by its checks, or whose examples run the program
    runs_commands: bool  # a payload reader knows where it runs command strings
    wraps: bool  # peeled as a wrapper or a runner: the command it runs is judged as well
    read_only: bool  # the read-only catalogue has an entry for it


def _example_programs(rule: Rule) -> set[str]:
    from tether.rules.danger._base import name_of
    from tether.shell import parse_command

    names: set[str] = set()
    for example in rule.match:
        for cmd in parse_command(example).commands:
            names.add(name_of(cmd))
            names.update(w.name for w in cmd.wrappers)
    return names


def program_view(name: str) -> ProgramView:
    """Return the checks, rules and record that apply to program ``name``."""
    from tether.rules import danger
    from tether.rules.danger._registry import rules_of
    from tether.rules.readonly.engine import CATALOGUE
    from tether.shell.payloads import NAMES
    from tether.shell.programs import RUNNERS, WRAPPERS

    name = name.strip().lower()
    checks, _ = danger._checks_of(_command(name), name, metadata=False)
    entries = []
    codes: set[str] = set()
    for check in checks:
        declared = rules_of(check)
        codes.update(r.code for r in declared)
        doc = (check.__doc__ or "").strip().splitlines()
        entries.append(
            CheckEntry(
                f"{check.__module__.rpartition('.')[2]}.{check.__qualname__}",
                doc[0] if doc else "",
                declared,
            )
        )
    rules = [r for r in danger.RULES if r.code in codes or name in _example_programs(r)]
    return ProgramView(
        name,
        tuple(entries),
        tuple(rules),
        name in NAMES,
        name in WRAPPERS or name in RUNNERS,
        CATALOGUE.get(name) is not None,
    )


def _command(name: str) -> SimpleCommand:
    return SimpleCommand((Word(name),))


def render(view: ProgramView) -> str:
    """Return a program's view as text."""
    lines = [f"{view.name}"]
    lines.append(
        f"  runs command strings from its arguments: {'yes' if view.runs_commands else 'no'}"
    )
    lines.append(f"  runs another command (wrapper or runner): {'yes' if view.wraps else 'no'}")
    lines.append(f"  in the read-only catalogue: {'yes' if view.read_only else 'no'}")
    if not view.checks:
        lines.append("  danger checks: none for this name (only those its shape calls for)")
    else:
        lines.append("  danger checks (plus those its shape calls for: redirects, wrappers …):")
    for entry in view.checks:
        lines.append(f"    {entry.name}: {entry.summary}")
        if entry.rules:
            lines.append("      reports: " + ", ".join(r.code for r in entry.rules))
    lines.append("  rules (declared by its checks, or whose examples run it):")
    lines += [f"    {r.code} {r.name} ({r.tier.value}): {r.summary}" for r in view.rules]
    return "\n".join(lines) + "\n"


__all__ = ["CheckEntry", "ProgramView", "program_view", "render"]
