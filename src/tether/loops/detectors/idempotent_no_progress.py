"""TL201: a read (or a consecutive unknown tool) returns the same result again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.loops.detectors._base import AFTER, BEFORE, Detector, Event, Window
from tether.loops.detectors._no_progress import no_progress
from tether.model import Finding

if TYPE_CHECKING:
    from tether.loops.settings import LoopSettings


def check(window: Window, ev: Event, s: LoopSettings) -> Finding | None:
    """Same read, same result again (a read re-run after other work is a re-check)."""
    if ev.failed:
        return None
    return no_progress(DETECTOR, True, ev, s)


DETECTOR = Detector(
    key="idempotent_no_progress",
    code="TL201",
    name="idempotent-no-progress",
    summary="A read-only call repeated with the same result.",
    why="Reading the same thing again and getting the same answer is no progress: the agent is "
    "waiting for a change that is not coming, or has forgotten the answer.",
    instead="use the result you already have; if you are waiting for something to change, wait "
    "longer between checks (e.g. `sleep 60 && …`) or check what should change it",
    examples=(
        "`gh api repos/o/r/pulls/1/reviews` returning `[]` again and again",
        "`Read src/cart.py` with the file unchanged since the last read",
    ),
    fires="a read (or a consecutive unknown tool) returns the same result again",
    warn_after=2,
    hard_stop_after=5,
    what="a read-only call repeated with an identical result",
    warn_text="2 (unknown tools 3)",
    stop_text="block 5",
    phases=(BEFORE, AFTER),
    check=check,
)
