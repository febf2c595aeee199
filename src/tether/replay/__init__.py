"""Replay recorded agent sessions through the guard: formats in, decisions out."""

from __future__ import annotations

from tether.replay.formats import (
    AssistantText,
    Call,
    Event,
    Session,
    UserTurn,
    load,
    parse,
    sniff,
)
from tether.replay.run import Outcome, Step, replay

__all__ = [
    "AssistantText",
    "Call",
    "Event",
    "Outcome",
    "Session",
    "Step",
    "UserTurn",
    "load",
    "parse",
    "replay",
    "sniff",
]
