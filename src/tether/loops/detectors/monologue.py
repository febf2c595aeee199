"""TL209: assistant messages piling up with no tool call or user turn between them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.loops.detectors._base import MESSAGE, Detector, Event, Window, finding
from tether.model import Action, Finding

if TYPE_CHECKING:
    from tether.loops.settings import LoopSettings


def check(window: Window, ev: Event, s: LoopSettings) -> Finding | None:
    """Three identical messages, or three in a row without acting."""
    if not s.warnings:
        return None
    talk = ev.session.talk
    identical, in_a_row = int(talk.same), int(talk.total)
    if identical >= 3:
        return finding(
            DETECTOR,
            Action.WARN,
            f"the same message was written {identical} times in a row",
            identical,
            identical=True,
        )
    if in_a_row >= 3:
        return finding(
            DETECTOR,
            Action.WARN,
            f"{in_a_row} messages in a row without acting",
            in_a_row,
            identical=False,
        )
    return None


DETECTOR = Detector(
    key="monologue",
    code="TL209",
    name="monologue",
    summary="Assistant messages piling up with no tool call or user turn between them.",
    why="An agent writing message after message without acting or handing back is stuck "
    "talking to itself.",
    instead="you keep writing messages without acting: call a tool, or finish and hand back",
    examples=("the same status paragraph written several times in a row",),
    fires="3 identical assistant messages, or 3 in a row with no tool call",
    warn_after=None,
    hard_stop_after=None,
    what="",
    warn_text="3",
    stop_text="never blocks",
    phases=(MESSAGE,),
    check=check,
)
