"""The danger catalogue (being built): until it lands nothing is flagged."""

from __future__ import annotations

from tether.rules.base import NO_DANGER, DangerVerdict, Rule
from tether.shell.model import CommandModel

RULES: tuple[Rule, ...] = ()


def assess(model: CommandModel) -> DangerVerdict:
    """Return the strictest danger found in ``model``."""
    return NO_DANGER
