"""The approval policy (being built by the danger issue): until it lands every command is allowed.

``review(command, config, unattended=...)`` classifies a shell command (in-process, or in the
isolated worker above the size threshold) and applies the approval mode, the user's allow/deny
rules and the floors, returning the classification and one ``Decision``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tether.classify import Classification, classify_command
from tether.model import ALLOW, Decision


@dataclass(frozen=True, slots=True)
class Review:
    """A command's classification (None when it could not be classified) and the decision."""

    classification: Classification | None
    decision: Decision


def review(command: str, config: Any = None, *, unattended: bool = False) -> Review:
    """Classify ``command`` and decide whether it may run."""
    return Review(classify_command(command), ALLOW)


__all__ = ["Review", "review"]
