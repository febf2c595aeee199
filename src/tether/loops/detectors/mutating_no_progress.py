"""TL202: a write or an unproven command produces the same result again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.loops.detectors._base import AFTER, BEFORE, Detector, Event, Window
from tether.loops.detectors._no_progress import no_progress
from tether.model import Finding

if TYPE_CHECKING:
    from tether.loops.settings import LoopSettings


def check(window: Window, ev: Event, s: LoopSettings) -> Finding | None:
    """Same command, same output again; a rerun count the user asked for is honoured."""
    if ev.failed:
        return None
    return no_progress(DETECTOR, False, ev, s)


DETECTOR = Detector(
    key="mutating_no_progress",
    code="TL202",
    name="mutating-no-progress",
    summary="A call not proven read-only repeated with the same result.",
    why="A command that may write but keeps producing the same output changed nothing the agent "
    'can see; repeating it burns time. A rerun count the user asked for in this turn ("run it '
    '10 times") raises the thresholds to it.',
    instead="this call keeps producing the same result: stop repeating it, read the result, and "
    "either change the inputs or report that there is nothing left to do",
    examples=("`cargo autopilot` printing the same report on every run",),
    fires="a write or unproven command produces the same result again (past a rerun count the "
    "user asked for)",
    warn_after=4,
    hard_stop_after=6,
    what="a writing call repeated with identical arguments and result (looser: it may be polling)",
    warn_text="4",
    stop_text="block 6",
    phases=(BEFORE, AFTER),
    check=check,
)
