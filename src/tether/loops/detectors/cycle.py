"""TL205: a sequence of 2–16 calls repeating with the same results on every leg."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tether.loops.detectors._base import AFTER, BEFORE, Detector, Event, Window, finding, ladder
from tether.model import Finding
from tether.quoting import quote

if TYPE_CHECKING:
    from tether.loops.settings import LoopSettings

MAX_PERIOD = 16
# Cycles longer than this must go one lap further before they warn: a batch done twice over
# (two passes over 15 files) is routine, a third pass is not.
SHORT_PERIOD = 6
# Window entry fields (see tether.loops.state): [seq, call id, sig, res, kind, status, grew].
_SIG, _RES, _KIND, _STATUS, _GREW = 2, 3, 4, 5, 6
_BREAKS = ("blocked", "turn")


def _same(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """Return True when ``a`` repeats ``b`` one lap later.

    A leg whose output only grew (an append whose log gets longer every lap) repeats too: what
    it adds is the loop's own trace, not progress.
    """
    if a[_SIG] != b[_SIG] or a[_STATUS] in _BREAKS or b[_STATUS] in _BREAKS:
        return False
    return bool(a[_RES] == b[_RES] or (len(a) > _GREW and a[_GREW]))


def laps(window: Sequence[Sequence[Any]], max_period: int = MAX_PERIOD) -> tuple[int, int]:
    """Return (period, complete laps) of the stable cycle ending the window, or (0, 0)."""
    n = len(window)
    for p in range(2, max_period + 1):
        if n < 2 * p:
            break
        matched = 0
        while matched + p < n and _same(window[n - 1 - matched], window[n - 1 - matched - p]):
            matched += 1
        if matched < p:
            continue
        legs = window[n - p :]
        if len({e[_SIG] for e in legs}) < 2 or all(e[_KIND] == "poll" for e in legs):
            continue  # period 1 is the streak detectors' job; a round of polls is a wait
        if any(e[_KIND] == "pause" for e in legs):
            continue  # `sleep N` between checks: a wait, budgeted as one
        if any(e[_KIND] == "act" and e[_STATUS] == "ok" for e in legs):
            continue  # an action takes effect on every lap (click, then retry): not a loop
        if all(len(e) > _GREW and e[_GREW] for e in legs):
            continue  # every leg's output grew: something is being produced
        return p, (matched + p) // p
    return 0, 0


def check(window: Window, ev: Event, s: LoopSettings) -> Finding | None:
    """A cycle of calls whose every leg gave what it gave last lap (before: the next leg)."""
    entries = window.entries
    period, count = laps(entries)
    if not period:
        return None
    if ev.before and entries[len(entries) - period][_SIG] != window.next_sig:
        return None  # this call breaks the cycle
    d = DETECTOR
    warn = s.warn(d.key) + (1 if period > SHORT_PERIOD else 0)
    action = ladder(count, warn, max(warn, s.stop(d.key)), s, ev.before)
    if action is None:
        return None
    legs = [e[_SIG] for e in entries[len(entries) - period :]]
    names = [quote(ev.session.preview_of(sig)) for sig in legs]
    return finding(
        d,
        action,
        f"the same {period} calls ({', '.join(names)}) repeated {count} times with identical "
        "results",
        count,
        period=period,
        since=str(entries[len(entries) - count * period][1]),
        warn_after=warn,
        hard_stop_after=max(warn, s.stop(d.key)),
    )


DETECTOR = Detector(
    key="cycle",
    code="TL205",
    name="cycle",
    summary="A sequence of calls repeating in the same order with the same results.",
    why="A cycle (A, B, A, B …, up to 16 calls long) whose every leg returns what it returned "
    "last lap makes no progress, though no single call repeats back to back; a cycle longer than "
    "6 calls warns one lap later (a batch done twice is routine). A leg whose output only grows "
    "(an append to a log the cycle keeps writing) does not break it.",
    instead="these calls repeat in the same order with the same results: break the cycle by "
    "acting on what they returned",
    examples=("`git status`, `git diff`, `git status`, `git diff` … with identical outputs",),
    fires="2–16 calls repeat in the same order with identical results on every leg (a leg whose "
    "output only grows counts as identical)",
    warn_after=2,
    hard_stop_after=4,
    what="the same sequence of calls repeating (A B A B ...)",
    warn_text="2 laps (3 above 6 calls)",
    stop_text="block 4 laps",
    phases=(BEFORE, AFTER),
    check=check,
)
