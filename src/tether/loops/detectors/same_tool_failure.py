"""TL204: one tool failing call after call, whatever the arguments."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.loops.detectors._base import AFTER, Detector, Event, Window, finding
from tether.model import Action, Finding
from tether.quoting import quote

if TYPE_CHECKING:
    from tether.loops.settings import LoopSettings


def check(window: Window, ev: Event, s: LoopSettings) -> Finding | None:
    """Failures of one tool in a row; failure-tolerant tools only when all came back the same.

    A shell failing differently as the agent works is routine; one that answers every command
    with the same error is broken. Failure-tolerant tools are warned about, never halted.
    """
    streak = ev.streak
    if not ev.failed or streak is None:
        return None
    d = DETECTOR
    count, tool = int(streak.count), ev.tool
    warn, stop = s.warn(d.key), s.stop(d.key)
    tolerant = tool in s.tools.failure_tolerant
    if s.hard_stop and count >= stop and not tolerant:
        action = Action.HALT
    elif s.warnings and count >= warn:
        action = Action.WARN
    else:
        return None
    return finding(
        d,
        action,
        f"{quote(tool)} failed the last {count} times it was called",
        count,
        since=str(streak.first),
        warn_after=warn,
        hard_stop_after=None if tolerant else stop,
        tool=tool,
        instead=(
            "read the errors; check the working directory and the paths (`pwd`, `ls`) before "
            "trying another variation"
            if tool in s.tools.shell
            else None
        ),
    )


DETECTOR = Detector(
    key="same_tool_failure",
    code="TL204",
    name="same-tool-failure",
    summary="One tool failing call after call, whatever the arguments.",
    why="A streak of failures of one tool usually means the agent misuses it. Tools listed in "
    "`tools.failure_tolerant` still warn (a shell's failures are information) but are never "
    "stopped by this code.",
    instead="this tool keeps failing: check its arguments against its description, or use "
    "another tool",
    examples=("`Edit` rejected again and again because `old_string` is not in the file",),
    fires="one tool fails call after call, whatever the arguments; a failure-tolerant tool "
    "(shells, `tools.failure_tolerant`) only when every failure came back the same way",
    warn_after=3,
    hard_stop_after=8,
    what="calls to one tool failing in a row, whatever the arguments",
    warn_text="3",
    stop_text="halt 8 (never for failure-tolerant tools)",
    phases=(AFTER,),
    check=check,
)
