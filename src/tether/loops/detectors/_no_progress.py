"""What TL201 and TL202 share: the same call giving the same result again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.loops.detectors._base import Detector, Event, finding, ladder
from tether.model import Finding
from tether.quoting import quote

if TYPE_CHECKING:
    from tether.loops.settings import LoopSettings


def thresholds(d: Detector, ev: Event, s: LoopSettings) -> tuple[int, int]:
    """Return (warn, stop) for ``d``, raised to honour a rerun count the user asked for."""
    warn, stop = s.warn(d.key), s.stop(d.key)
    asked = ev.session.reruns
    if asked:
        warn, stop = max(warn, asked + 1), max(stop, asked + 2)
    return warn, stop


def no_progress(d: Detector, idempotent: bool, ev: Event, s: LoopSettings) -> Finding | None:
    """Return ``d``'s finding when the call's record holds a no-progress streak of its kind."""
    rec = ev.rec
    if rec is None or not rec.same:
        return None
    kind = rec.kind
    if kind in ("poll", "pause") or (kind in ("read", "tool")) != idempotent:
        return None
    count = int(rec.same)
    warn, stop = thresholds(d, ev, s)
    if kind == "tool":
        warn += 1  # an unknown tool asked twice is routine (a queue, a status)
    action = ladder(count, warn, stop, s, ev.before)
    if action is None:
        return None
    what = "returned the same result" if idempotent else "produced the same result"
    return finding(
        d,
        action,
        f"{quote(rec.preview)} {what} {count} times in a row",
        count,
        since=rec.since,
        warn_after=warn,
        hard_stop_after=stop,
        tool=rec.tool,
    )
