"""TL208: a call Tether refused is asked for again; the third refusal halts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.loops.detectors._base import POST, Detector, Event, Window, finding
from tether.model import Action, Finding
from tether.quoting import quote

if TYPE_CHECKING:
    from tether.loops.settings import LoopSettings


def check(window: Window, ev: Event, s: LoopSettings) -> Finding | None:
    """Turn a loop block into a halt once the same call was refused twice already."""
    rec = ev.rec
    blocks = [f for f in ev.findings if f.action is Action.BLOCK]
    if rec is None or not blocks or rec.blocked < 2:
        return None
    worst = max(ev.findings, key=lambda f: int(f.action))
    count = int(rec.blocked) + 1
    return finding(
        DETECTOR,
        Action.HALT,
        f"{quote(rec.preview)} was refused {count - 1} times and requested again",
        count,
        blocked_by=worst.code,
    )


DETECTOR = Detector(
    key="repeated_block",
    code="TL208",
    name="refused-call-repeated",
    summary="A call Tether refused was tried again.",
    why="Retrying a refused call verbatim will be refused again; the third refusal of the same "
    "call halts the agent so a human can look.",
    instead="the same call was refused again: stop and report to the user what you were trying "
    "to do",
    examples=("the same blocked `rm -rf build/` sent a second and a third time",),
    fires="the agent asks for a call refused twice already",
    warn_after=None,
    hard_stop_after=None,
    what="",
    warn_text="—",
    stop_text="halt",
    phases=(POST,),
    check=check,
)
