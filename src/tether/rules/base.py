"""What a rule is: one entry holding its data, its docs and the examples it must pass."""

from __future__ import annotations

import enum
from typing import NamedTuple


class Tier(enum.Enum):
    """How a rule's hit is treated: proves a read, asks a human, or blocks unconditionally.

    The last three are not catalogue tiers: they label the entries that explain the approval
    policy's, the loop detectors' and Tether's own failure codes (``tether.rules.decisions``).
    """

    READ = "read"
    ASK = "ask"
    HARDLINE = "hardline"
    APPROVAL = "approval"
    LOOP = "loop"
    FAILURE = "failure"


class Danger(enum.IntEnum):
    """How dangerous a command is, ordered: none < ask < hardline."""

    NONE = 0
    ASK = 1
    HARDLINE = 2

    @property
    def label(self) -> str:
        """Return the lower-case name used in JSON ("none", "ask", "hardline")."""
        return self.name.lower()


class Hit(NamedTuple):
    """One rule matching one command: the rule's code and what matched (the evidence)."""

    code: str
    detail: str


class Rule(NamedTuple):
    """One catalogue entry.

    Examples are checked by ``tests/test_rules.py``: for a ``read`` rule every ``match`` must be
    classified read-only with this code among its codes, and no ``not_match`` may be; for
    ``ask``/``hardline`` rules every ``match`` must carry this code among the danger codes and
    no ``not_match`` may.
    """

    code: str
    name: str
    tier: Tier
    summary: str
    why: str
    instead: str
    match: tuple[str, ...] = ()
    not_match: tuple[str, ...] = ()

    def hit(self, detail: str) -> Hit:
        """Return this rule matching one command, with what matched (the evidence)."""
        return Hit(self.code, detail)


class ReadVerdict(NamedTuple):
    """The read-only catalogue's answer: proven read-only or not, the deciding codes, why."""

    read_only: bool
    codes: tuple[str, ...]
    reason: str
    # What of the working tree the proof looked at (``tether.rules.readonly.tree``).
    checked: tuple[str, ...] = ()
    # Not read-only, but every write is to the tools' own caches or logs: ("cache",).
    effects: tuple[str, ...] = ()


class DangerVerdict(NamedTuple):
    """The danger catalogue's answer: the level, every matching code, why, and what instead."""

    level: Danger
    codes: tuple[str, ...] = ()
    reason: str = ""
    instead: str = ""


NO_DANGER = DangerVerdict(Danger.NONE)
