"""TL213: different arguments, the same result, again and again (one tool)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.loops.detectors._base import AFTER, Detector, Event, Window, finding, ladder
from tether.model import Finding
from tether.quoting import quote

if TYPE_CHECKING:
    from tether.loops.settings import LoopSettings


def check(window: Window, ev: Event, s: LoopSettings) -> Finding | None:
    """Count distinct argument sets of one tool in a row whose results are identical."""
    echo = ev.echo
    if echo is None or ev.failed or ev.before:
        return None
    d = DETECTOR
    count = int(echo.count)
    action = ladder(count, s.warn(d.key), count + 1, s, False)  # it never blocks
    if action is None:
        return None
    return finding(
        d,
        action,
        f"{count} calls of {quote(ev.tool)} with different arguments returned the identical result",
        count,
        since=echo.since,
        warn_after=s.warn(d.key),
        tool=ev.tool,
    )


DETECTOR = Detector(
    key="same_result",
    code="TL213",
    name="same-result-different-args",
    summary="Calls of one tool with different arguments returning the identical result.",
    why="Search variants, or a page parameter the server ignores, that all return the same "
    "result are not finding anything new; no single call repeats, so only comparing results "
    "across arguments shows it. Writes and actions are not counted; it warns, never blocks "
    "(the next variant might differ).",
    instead="these different calls all return the same thing: the parameter you vary has no "
    "effect; use what you have or change the approach",
    examples=("`gh api …/comments?page=2`, `page=3`, `page=4` all returning page 1",),
    fires="3 calls of one tool in a row with different arguments return the identical result",
    warn_after=3,
    hard_stop_after=None,
    what="calls of one tool in a row with different arguments and the identical result",
    warn_text="3",
    stop_text="never blocks",
    phases=(AFTER,),
    check=check,
)
