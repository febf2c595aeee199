"""Value types shared by every layer: tool calls, results, decisions and findings."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class Action(enum.IntEnum):
    """What Tether tells the host to do, ordered from most to least permissive."""

    ALLOW = 0
    WARN = 1
    ASK = 2
    BLOCK = 3
    HALT = 4

    @property
    def label(self) -> str:
        """Return the lower-case name used in JSON and config ("allow", "block", ...)."""
        return self.name.lower()

    def __str__(self) -> str:
        return self.name.lower()

    def __format__(self, spec: str) -> str:
        return format(self.name.lower(), spec)

    @classmethod
    def parse(cls, text: str) -> Action:
        """Return the action named by ``text`` (case-insensitive)."""
        try:
            return cls[text.strip().upper()]
        except KeyError:
            names = ", ".join(a.label for a in cls)
            raise ValueError(f"unknown action {text!r}: expected one of {names}") from None


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call an agent is about to make."""

    session_id: str
    tool: str
    args: Mapping[str, Any] = field(default_factory=dict)
    call_id: str = ""
    agent_id: str | None = None
    time: float | None = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What came back from a tool call."""

    call: ToolCall
    output: Any = None
    exit_code: int | None = None
    error: bool = False
    time: float | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    """What a detector or rule reports: a stable code, a count and the evidence."""

    code: str
    name: str
    action: Action
    message: str
    count: int = 0
    evidence: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Decision:
    """Tether's one answer for a call: the action, every code, one message, the evidence."""

    action: Action = Action.ALLOW
    codes: tuple[str, ...] = ()
    message: str = ""
    evidence: Mapping[str, Any] = field(default_factory=dict)

    @property
    def allowed(self) -> bool:
        """Return True when the call may run (allow or warn)."""
        return self.action <= Action.WARN

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready dict."""
        return {
            "action": self.action.label,
            "codes": list(self.codes),
            "message": self.message,
            "evidence": dict(self.evidence),
        }


ALLOW = Decision()
