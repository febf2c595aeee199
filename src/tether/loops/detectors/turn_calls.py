"""TL207: too many tool calls in one user turn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.loops.detectors._base import BEFORE, Detector, Event, Window, finding
from tether.model import Action, Finding

if TYPE_CHECKING:
    from tether.loops.settings import LoopSettings


def check(window: Window, ev: Event, s: LoopSettings) -> Finding | None:
    """Calls since the last landed change in this turn (a harness's "continue" is no turn)."""
    d = DETECTOR
    count = int(ev.session.turn_calls)
    warn, stop = s.warn(d.key), s.stop(d.key)
    if ev.before and s.hard_stop and count > stop:
        action = Action.HALT
    elif s.warnings and count >= warn and (count - warn) % max(1, warn // 3) == 0:
        action = Action.WARN  # remind every third of the threshold, not on every call
    else:
        return None
    return finding(
        d, action, f"{count} tool calls in this turn", count, warn_after=warn, hard_stop_after=stop
    )


DETECTOR = Detector(
    key="turn_calls",
    code="TL207",
    name="turn-call-cap",
    summary="Too many tool calls in one user turn.",
    why="A turn that runs far longer than usual is worth a summary for the user before going on. "
    'A harness\'s automatic "continue" is not a user turn and does not restart the count.',
    instead="this turn has used many tool calls: summarise progress for the user and ask how to "
    "continue",
    examples=("hundreds of distinct calls since the user last wrote",),
    fires="calls in this user turn since the last landed change",
    warn_after=60,
    hard_stop_after=120,
    what="tool calls within one user turn",
    warn_text="60 (then every 20)",
    stop_text="halt above 120",
    phases=(BEFORE,),
    check=check,
)
