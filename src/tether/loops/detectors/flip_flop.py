"""TL211: a file's content goes back to a state it had before (A → B → A)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.loops.detectors._base import AFTER, BEFORE, Detector, Event, Window, finding, ladder
from tether.model import Finding
from tether.quoting import quote

if TYPE_CHECKING:
    from tether.loops.settings import LoopSettings


def check(window: Window, ev: Event, s: LoopSettings) -> Finding | None:
    """Count returns to an earlier content; before a write, the return it would make."""
    f = ev.file
    if f is None or ev.failed:
        return None
    count = int(f.returns) + (1 if ev.before and f.would_return else 0)
    if not count or (ev.before and not f.would_return):
        return None
    d = DETECTOR
    action = ladder(count, s.warn(d.key), s.stop(d.key), s, ev.before)
    if action is None:
        return None
    return finding(
        d,
        action,
        f"{quote(f.path)} went back to content it had before, {count} times "
        "(edits undone and redone)",
        count,
        warn_after=s.warn(d.key),
        hard_stop_after=s.stop(d.key),
        path=f.path,
    )


DETECTOR = Detector(
    key="flip_flop",
    code="TL211",
    name="file-flip-flop",
    summary="A file went back to content it had before.",
    why="File contents are tracked by hash from the write and edit tools' arguments (an edit "
    "counts by the lines it removes and adds, whatever context it quotes), so an edit that "
    "restores an earlier version is seen even when it is worded differently. Undoing and redoing "
    "the same change is an oscillation, not progress; one revert is a decision, the second return "
    "is the warning.",
    instead="you are undoing and redoing the same change: decide which version is right (run "
    "the check that tells them apart) and keep it",
    examples=("an Edit turning `retries = 3` into `retries = 5` and a later Edit turning it back",),
    fires="edits or writes take a file back to content it had before, a second time",
    warn_after=2,
    hard_stop_after=4,
    what="a file going back to content it had before",
    warn_text="2",
    stop_text="block 4 (the write that would go back)",
    phases=(BEFORE, AFTER),
    check=check,
)
