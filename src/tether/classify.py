"""Classify a shell command: is it provably read-only, and how dangerous is it?"""

from __future__ import annotations

from typing import Any, NamedTuple

from tether.rules import danger, readonly
from tether.rules.base import Danger
from tether.shell import parse_command


class Classification(NamedTuple):
    """The verdict on one command: read-only or not, its danger level, codes and reasons."""

    command: str
    read_only: bool
    codes: tuple[str, ...]
    reason: str
    danger: Danger = Danger.NONE
    danger_codes: tuple[str, ...] = ()
    danger_reason: str = ""
    instead: str = ""
    # What of the working tree the read-only proof checked (tether.rules.readonly.tree).
    checked: tuple[str, ...] = ()
    # Not read-only, but its only writes are to the tools' own caches or logs: ("cache",).
    effects: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Return the object ``tether classify --json`` prints."""
        return {
            "command": self.command,
            "read_only": self.read_only,
            "danger": self.danger.label,
            "codes": list(self.codes) + [c for c in self.danger_codes if c not in self.codes],
            "reason": self.reason,
            "danger_reason": self.danger_reason,
            "instead": self.instead,
            **({"checked": list(self.checked)} if self.checked else {}),
            **({"effects": list(self.effects)} if self.effects else {}),
        }


def classify_command(command: str, tree: readonly.Tree | None = None) -> Classification:
    """Classify one shell command string; ``tree``: where it runs (see ``readonly.Tree``)."""
    model = parse_command(command)
    ro = readonly.assess(model, tree)
    dg = danger.assess(model, tree)
    return Classification(
        command=command,
        read_only=ro.read_only and dg.level is Danger.NONE,
        codes=ro.codes,
        reason=ro.reason,
        danger=dg.level,
        danger_codes=dg.codes,
        danger_reason=dg.reason,
        instead=dg.instead,
        checked=ro.checked,
        effects=ro.effects,
    )
