"""TL206: a poll whose output has not changed for the whole wait."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.loops.detectors._base import AFTER, BEFORE, Detector, Event, Window, finding
from tether.model import Action, Finding
from tether.quoting import quote

if TYPE_CHECKING:
    from tether.loops.settings import LoopSettings


def check(window: Window, ev: Event, s: LoopSettings) -> Finding | None:
    """A budget by count and by seconds waited; a wait that timed out counts as a poll."""
    rec = ev.rec
    if rec is None or rec.kind != "poll" or not rec.same or ev.failed:
        return None
    count, waited = int(rec.same), float(rec.poll_s)
    max_n, max_s = s.poll_max_count, s.poll_max_seconds
    if ev.before and s.hard_stop and (count >= max_n or waited >= max_s):
        action = Action.BLOCK
    elif s.warnings and (count >= max(2, max_n // 6) or waited >= max_s / 6):
        action = Action.WARN
    else:
        return None
    return finding(
        DETECTOR,
        action,
        f"{quote(rec.preview)} polled {count} times over ~{int(waited)} s with unchanged output "
        f"(budget {max_n} polls or {max_s} s)",
        count,
        since=rec.since,
        seconds=int(waited),
        max_count=max_n,
        max_seconds=max_s,
        tool=rec.tool,
    )


DETECTOR = Detector(
    key="poll",
    code="TL206",
    name="poll-budget",
    summary="A polling call whose output has not changed for the whole wait.",
    why="Pollers (`tools.poll`, commands that wait, a check after a bare `sleep N`) are meant to "
    "repeat, within a budget of calls and seconds (`loops.poll.max_count`, "
    "`loops.poll.max_seconds`); a wait that hit the tool's time limit counts as one poll. Past "
    "the budget the wait is over. A bare `sleep N` is never a poll of its own.",
    instead="the output has not changed for the whole wait: check whether the thing you wait for "
    "is still running, or report back instead of waiting more",
    examples=("`BashOutput` returning the same partial log for many minutes",),
    fires="a poll's output has not changed (a timed-out wait counts as a poll)",
    warn_after=None,
    hard_stop_after=None,
    what="",
    warn_text="⅙ of the budget",
    stop_text="block at the budget",
    phases=(BEFORE, AFTER),
    check=check,
)
