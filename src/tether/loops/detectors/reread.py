"""TL212: the same set of files read again, unchanged, pass after pass."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.loops.detectors._base import AFTER, BEFORE, Detector, Event, Window, finding, ladder
from tether.model import Finding
from tether.quoting import quote

if TYPE_CHECKING:
    from tether.loops.settings import LoopSettings


def check(window: Window, ev: Event, s: LoopSettings) -> Finding | None:
    """A read whose result is unchanged, made in a pass that mostly re-read unchanged reads."""
    rec = ev.rec
    if rec is None or not rec.passes or ev.failed:
        return None
    d = DETECTOR
    count = int(rec.passes) + 1  # the first read was a pass too
    action = ladder(count, s.warn(d.key), s.stop(d.key), s, ev.before)
    if action is None:
        return None
    return finding(
        d,
        action,
        f"{quote(rec.preview)} read again with the same result, read {count} times in passes "
        "over the same unchanged files",
        count,
        warn_after=s.warn(d.key),
        hard_stop_after=s.stop(d.key),
        tool=rec.tool,
    )


DETECTOR = Detector(
    key="reread",
    code="TL212",
    name="reread-pass",
    summary="The same files read again, unchanged, pass after pass.",
    why="A repository read through again and again, each file giving what it gave last time, "
    "teaches nothing new; unlike a quick re-check it spreads over many calls, so it is counted "
    "by pass: a read counts when its result is unchanged and most reads since its last one were "
    "unchanged re-reads too.",
    instead="you have read these files before and they have not changed: work from what you "
    "read (take notes if it helps) instead of reading them again",
    examples=("`Read a.py`, `Read b.py`, `Read c.py` … then the same reads again, three times",),
    fires="a read gives an unchanged result in a pass that mostly re-read unchanged reads",
    warn_after=3,
    hard_stop_after=5,
    what="passes over the same unchanged files (reads of one file)",
    warn_text="3 passes",
    stop_text="block 5 passes",
    phases=(BEFORE, AFTER),
    check=check,
)
