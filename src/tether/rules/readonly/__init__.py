"""The read-only catalogue: an allowlist proving that a shell command only reads.

Each family module holds its rules (code, name, why, instead, examples) next to the checkers
that implement them: ``files`` (RO1xx), ``search`` (RO2xx), ``text`` (RO3xx), ``vcs``
(RO4xx), ``forge`` (RO5xx), ``system`` (RO6xx), ``packages`` (RO7xx); ``structural`` holds
the redirect/wrapper/prefix rules (RO0xx) and the reasons a command is not read-only (RWxxx).
"""

from __future__ import annotations

from tether.rules.base import ReadVerdict, Rule
from tether.rules.readonly import (
    files,
    forge,
    ops,
    packages,
    search,
    structural,
    system,
    text,
    vcs,
)
from tether.rules.readonly.engine import assess_model
from tether.rules.readonly.tree import Tree
from tether.shell.model import CommandModel

RULES: tuple[Rule, ...] = tuple(
    sorted(
        (
            *structural.RULES,
            *files.RULES,
            *search.RULES,
            *text.RULES,
            *vcs.RULES,
            *forge.RULES,
            *system.RULES,
            *packages.RULES,
            *ops.RULES,
        ),
        key=lambda r: r.code,
    )
)


def assess(model: CommandModel, tree: Tree | None = None) -> ReadVerdict:
    """Return whether every command in ``model`` is provably read-only; ``tree`` is where it
    runs (its cwd and home), for the commands whose effect the working tree can change."""
    return assess_model(model, tree)


def reason_examples(code: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """Return ``(examples, counter_examples)`` of an RW reason code, or None."""
    return structural.REASON_EXAMPLES.get(code)


__all__ = ["RULES", "Tree", "assess", "reason_examples"]
