"""The danger catalogue: what a human should look at (ask) and what never runs (hardline).

Rules live by family: DG1xx deletion, DG2xx version-control history, DG3xx remote and hidden
code, DG4xx the machine (disks, power, permissions, sudo), DG5xx data stores and infrastructure,
DG6xx secrets. Every check reads the parsed ``CommandModel`` only, never the raw text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tether.rules.base import NO_DANGER, Danger, DangerVerdict, Rule, Tier
from tether.rules.danger import deletion, infra, remote, secrets, system, vcs
from tether.rules.danger._base import Budget, Hit, Scope, name_of
from tether.shell.model import CommandModel, SimpleCommand, Word

RULES: tuple[Rule, ...] = tuple(
    sorted(
        (*deletion.RULES, *vcs.RULES, *remote.RULES, *system.RULES, *infra.RULES, *secrets.RULES),
        key=lambda r: r.code,
    )
)
_BY_CODE = {r.code: r for r in RULES}

_Check = Callable[[SimpleCommand, Scope], Iterable[Hit]]


def _merge(*tables: dict[str, _Check]) -> dict[str, tuple[_Check, ...]]:
    merged: dict[str, list[_Check]] = {}
    for table in tables:
        for name, check in table.items():
            merged.setdefault(name, [])
            if check not in merged[name]:
                merged[name].append(check)
    return {k: tuple(v) for k, v in merged.items()}


_BY_NAME = _merge(
    deletion.CHECKS, vcs.CHECKS, remote.CHECKS, system.CHECKS, infra.CHECKS, secrets.CHECKS
)
_GENERIC: tuple[_Check, ...] = (*remote.GENERIC, *system.GENERIC, *secrets.GENERIC)
_PREFIXES: tuple[tuple[str, _Check], ...] = (("mkfs", system.check_system), *infra.PREFIXES)


def _checks_for(name: str) -> tuple[_Check, ...]:
    found = _BY_NAME.get(name, ())
    for prefix, check in _PREFIXES:
        if name.startswith(prefix) and check not in found:
            found = (*found, check)
    return found


def _ifs_split(cmd: SimpleCommand) -> SimpleCommand | None:
    """Re-split a command whose words were glued with ``$IFS`` (``rm${IFS}-rf${IFS}/``)."""
    if not cmd.argv or "IFS" not in cmd.argv[0].value:
        return None
    pieces: list[Word] = []
    for word in cmd.argv:
        text = word.value
        for spelling in ("${IFS:0:1}", "${IFS}", "$IFS"):
            text = text.replace(spelling, " ")
        if "$" in text or "`" in text:
            return None
        pieces.extend(Word(p) for p in text.split())
    if not pieces:
        return None
    return SimpleCommand(
        tuple(pieces),
        cmd.assignments,
        cmd.redirects,
        cmd.wrappers,
        cmd.in_substitution,
        cmd.in_function,
        cmd.background,
        cmd.shell_depth,
        cmd.pipeline,
        cmd.stage,
        cmd.text,
    )


def _judge(cmd: SimpleCommand, scope: Scope) -> list[Hit]:
    glued = _ifs_split(cmd)
    if glued is not None:
        cmd = glued
    hits: list[Hit] = []
    for check in (*_checks_for(name_of(cmd)), *_GENERIC):
        hits.extend(check(cmd, scope))
    return hits


def _reparse(text: str, depth: int, budget: Budget) -> list[Hit]:
    from tether.shell import parse_command

    model = parse_command(text)
    return _hits(model, depth, budget)


def _hits(model: CommandModel, depth: int = 0, budget: Budget | None = None) -> list[Hit]:
    scope = Scope(model, depth, budget or Budget(), reparser=_reparse, judge_fn=_judge)
    hits: list[Hit] = []
    for cmd in model.commands:
        hits.extend(_judge(cmd, scope))
    return hits


def assess(model: CommandModel) -> DangerVerdict:
    """Return the strictest danger found in ``model``, with every code, the reasons and advice."""
    hits = _hits(model)
    if not hits:
        return NO_DANGER
    codes: list[str] = []
    details: list[str] = []
    for hit in hits:
        if hit.code not in codes:
            codes.append(hit.code)
            details.append(f"{hit.code} {_BY_CODE[hit.code].name}: {hit.detail}")
    level = Danger.HARDLINE if any(_BY_CODE[c].tier is Tier.HARDLINE for c in codes) else Danger.ASK
    # Strictest first, so the message leads with what decides the verdict.
    order = sorted(range(len(codes)), key=lambda i: _BY_CODE[codes[i]].tier is not Tier.HARDLINE)
    codes = [codes[i] for i in order]
    details = [details[i] for i in order]
    return DangerVerdict(
        level=level,
        codes=tuple(codes),
        reason="; ".join(details),
        instead=_BY_CODE[codes[0]].instead,
    )


__all__ = ["RULES", "assess"]
