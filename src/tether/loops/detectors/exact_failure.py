"""TL203: the same call failed the same way again, with nothing landed in between."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.loops.detectors._base import AFTER, BEFORE, Detector, Event, Window, finding, ladder
from tether.model import Action, Finding
from tether.quoting import quote

if TYPE_CHECKING:
    from tether.loops.settings import LoopSettings


def check(window: Window, ev: Event, s: LoopSettings) -> Finding | None:
    """Count failures compared by their canonical output: a failure that moved is progress."""
    rec = ev.rec
    if rec is None or not rec.fails or not (ev.before or ev.failed):
        return None
    d = DETECTOR
    count, stubborn = int(rec.fails), int(rec.stubborn)
    warn, stop = s.warn(d.key), s.stop(d.key)
    action = ladder(count, warn, stop, s, ev.before)
    if action is None and not ev.before and s.warnings and stubborn >= stop:
        # Changes landed between the attempts, so this is no replay and is never blocked; but
        # the failure did not move at all, which the model should hear about.
        return finding(
            d,
            Action.WARN,
            f"{quote(rec.preview)} failed the same way {stubborn} times in a row, although "
            "other changes were made in between",
            stubborn,
            warn_after=stop,
            tool=rec.tool,
        )
    if action is None:
        return None
    return finding(
        d,
        action,
        f"{quote(rec.preview)} failed {count} times with nothing changed in between",
        count,
        since=rec.fail_since,
        warn_after=warn,
        hard_stop_after=stop,
        tool=rec.tool,
    )


DETECTOR = Detector(
    key="exact_failure",
    code="TL203",
    name="exact-failure-replay",
    summary="The same call failed the same way again.",
    why="Retrying an identical call that failed with the same output, with nothing written in "
    "between, fails again. Failures are compared by their canonical output: a build that times "
    "out further along each time is progressing, not replaying.",
    instead="read the error and change something (arguments, a file, the approach) before retrying",
    examples=("`pytest -q tests/test_cart.py` failing with the same assertion, unchanged code",),
    fires="the same call fails again with the same output and nothing landed in between",
    warn_after=2,
    hard_stop_after=5,
    what="the same call (tool and arguments) failing again with the same output",
    warn_text="2",
    stop_text="block 5",
    phases=(BEFORE, AFTER),
    check=check,
)
