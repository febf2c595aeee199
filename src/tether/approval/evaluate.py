"""Classify a command and match it against the user's globs: the part the worker may run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tether.approval.policy import Evaluation, glob_match
from tether.classify import Classification
from tether.shell.model import CommandModel, SimpleCommand

if TYPE_CHECKING:
    from tether.rules.readonly.tree import Tree

# Deny globs are matched against each simple command; bound the work on huge inputs.
MAX_PROJECTED_COMMANDS = 20_000


def classify_model(model: CommandModel, tree: Tree | None = None) -> Classification:
    """Return the classification of a parsed command (read-only proof and danger)."""
    from tether.rules import danger, readonly
    from tether.rules.base import Danger

    ro = readonly.assess(model, tree)
    dg = danger.assess(model, tree)
    return Classification(
        command=model.source,
        read_only=ro.read_only and dg.level is Danger.NONE,
        codes=ro.codes,
        reason=ro.reason,
        danger=dg.level,
        danger_codes=dg.codes,
        danger_reason=dg.reason,
        instead=dg.instead,
        checked=ro.checked,
    )


def projections(command: str, model: CommandModel) -> list[str]:
    """Return the spellings a glob is matched against: the text and each command, unwrapped."""
    out = [command.strip()]
    for cmd in model.commands[:MAX_PROJECTED_COMMANDS]:
        out.extend(_spellings(cmd))
    return out


def _spellings(cmd: SimpleCommand) -> list[str]:
    if not cmd.argv:
        return []
    name = cmd.name or cmd.argv[0].value
    bare = " ".join([name, *(w.value for w in cmd.args)])
    spellings = [bare]
    if cmd.wrappers:
        prefix = " ".join(" ".join([w.name, *(a.value for a in w.args)]) for w in cmd.wrappers)
        spellings.append(f"{prefix} {bare}")
    return spellings


def is_simple(model: CommandModel) -> bool:
    """Return True for one plain command: no list, pipe, substitution, redirect or shell payload."""
    if not model.ok or len(model.commands) != 1 or model.substitutions:
        return False
    cmd = model.commands[0]
    return (
        not cmd.redirects
        and cmd.shell_depth == 0
        and not cmd.in_substitution
        and not cmd.background
        and all(w.literal for w in cmd.argv)
    )


def evaluate(command: str, deny: Sequence[str] = (), tree: Tree | None = None) -> Evaluation:
    """Parse and classify ``command`` and match the deny globs against its spellings."""
    from tether.shell import parse_command

    model = parse_command(command)
    classification = classify_model(model, tree)
    spellings = projections(command, model)
    simple = is_simple(model)
    return Evaluation(
        classification=classification,
        deny_match=glob_match(deny, spellings),
        simple=simple,
        projections=tuple(spellings) if simple else (),
        unanalysable=model.unprovable,
    )
