"""The read-only catalogue (being built): until it lands nothing is proven read-only."""

from __future__ import annotations

from tether.rules.base import ReadVerdict, Rule
from tether.shell.model import CommandModel

RULES: tuple[Rule, ...] = ()


def assess(model: CommandModel) -> ReadVerdict:
    """Return whether every command in ``model`` is provably read-only."""
    return ReadVerdict(False, (), "the read-only catalogue is not built yet")
