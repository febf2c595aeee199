"""Loop detectors: pure functions from a slice of session state and thresholds to a finding.

Each detector looks at what it needs (a signature's record, a tool's failure streak, the
window of recent calls) and returns a ``Finding`` or None. No I/O, no clocks, no hidden state:
the guard passes everything in, including ``before`` (are we deciding whether a call may run,
or commenting on a result that just came back?).

The ladder: at ``warn_after`` a detector warns; with ``loops.hard_stop`` on, at
``hard_stop_after`` it blocks the next identical call (the finding is raised by ``before_call``,
so the call never runs); the guard turns a third refusal of the same call into a halt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from tether.loops.records import SigRecord, ToolStreak
from tether.loops.settings import LoopSettings
from tether.loops.state import W_KIND, W_RES, W_SIG, W_STATUS
from tether.model import Action, Finding
from tether.quoting import quote


class Code(NamedTuple):
    """A detector's stable code, its name and what the model should do instead."""

    code: str
    name: str
    instead: str


CODES: dict[str, Code] = {
    "idempotent_no_progress": Code(
        "TL201",
        "idempotent-no-progress",
        "use the result you already have; if you are waiting for something to change, wait "
        "longer between checks (e.g. `sleep 60 && …`) or check what should change it",
    ),
    "mutating_no_progress": Code(
        "TL202",
        "mutating-no-progress",
        "this call keeps producing the same result: stop repeating it, read the result, and "
        "either change the inputs or report that there is nothing left to do",
    ),
    "exact_failure": Code(
        "TL203",
        "exact-failure-replay",
        "read the error and change something (arguments, a file, the approach) before retrying",
    ),
    "same_tool_failure": Code(
        "TL204",
        "same-tool-failure",
        "this tool keeps failing: check its arguments against its description, or use another tool",
    ),
    "cycle": Code(
        "TL205",
        "cycle",
        "these calls repeat in the same order with the same results: break the cycle by acting "
        "on what they returned",
    ),
    "poll": Code(
        "TL206",
        "poll-budget",
        "the output has not changed for the whole wait: check whether the thing you wait for is "
        "still running, or report back instead of waiting more",
    ),
    "turn_calls": Code(
        "TL207",
        "turn-call-cap",
        "this turn has used many tool calls: summarise progress for the user and ask how to "
        "continue",
    ),
    "repeated_block": Code(
        "TL208",
        "refused-call-repeated",
        "the same call was refused again: stop and report to the user what you were trying to do",
    ),
    "monologue": Code(
        "TL209",
        "monologue",
        "you keep writing messages without acting: call a tool, or finish and hand back",
    ),
    "no_convergence": Code(
        "TL210",
        "no-convergence",
        "you have worked for many rounds without writing anything or reporting: report your "
        "best answer so far now",
    ),
}


def finding(
    detector: str,
    action: Action,
    message: str,
    count: int,
    **evidence: Any,
) -> Finding:
    """Build a finding for ``detector`` with its stable code."""
    code = CODES[detector]
    return Finding(code.code, code.name, action, message, count, {"detector": detector, **evidence})


def _ladder(count: int, warn: int, stop: int, s: LoopSettings, before: bool) -> Action | None:
    if before and s.hard_stop and count >= stop:
        return Action.BLOCK
    if s.warnings and count >= warn:
        return Action.WARN
    return None


def no_progress(rec: SigRecord, s: LoopSettings, *, before: bool) -> Finding | None:
    """Same call, same result again: idempotent (reads) or mutating (everything unproven)."""
    kind = rec.kind
    if kind == "poll":
        return None
    idempotent = kind in ("read", "tool")
    detector = "idempotent_no_progress" if idempotent else "mutating_no_progress"
    count = int(rec.same)
    warn = s.warn(detector) + (1 if kind == "tool" else 0)
    action = _ladder(count, warn, s.stop(detector), s, before)
    if action is None:
        return None
    what = "returned the same result" if idempotent else "produced the same result"
    return finding(
        detector,
        action,
        f"{quote(rec.preview)} {what} {count} times in a row",
        count,
        since=rec.since,
        warn_after=s.warn(detector),
        hard_stop_after=s.stop(detector),
        tool=rec.tool,
    )


def exact_failure(rec: SigRecord, s: LoopSettings, *, before: bool) -> Finding | None:
    """The same call failed again with nothing landed in between."""
    count = int(rec.fails)
    detector = "exact_failure"
    action = _ladder(count, s.warn(detector), s.stop(detector), s, before)
    stubborn = int(rec.stubborn)
    if action is None and not before and s.warnings and stubborn >= s.stop(detector):
        # Changes landed between the attempts, so this is no replay and is never blocked; but
        # the failure did not move at all, which the model should hear about.
        return finding(
            detector,
            Action.WARN,
            f"{quote(rec.preview)} failed the same way {stubborn} times in a row, although "
            "other changes were made in between",
            stubborn,
            warn_after=s.stop(detector),
            tool=rec.tool,
        )
    if action is None:
        return None
    return finding(
        detector,
        action,
        f"{quote(rec.preview)} failed {count} times with nothing changed in between",
        count,
        since=rec.fail_since,
        warn_after=s.warn(detector),
        hard_stop_after=s.stop(detector),
        tool=rec.tool,
    )


def same_tool_failure(tool: str, streak: ToolStreak, s: LoopSettings) -> Finding | None:
    """One tool failing call after call, whatever the arguments (tolerant tools never halt).

    For a failure-tolerant tool (shells…) the guard counts only failures that all came back
    the same way: a shell failing differently as the agent works is routine, one that answers
    every command with the same error is broken.
    """
    count, since = int(streak.count), str(streak.first)
    detector = "same_tool_failure"
    warn, stop = s.warn(detector), s.stop(detector)
    # Failure-tolerant tools (shells…) fail routinely: they are warned about, never halted.
    tolerant = tool in s.tools.failure_tolerant
    if s.hard_stop and count >= stop and not tolerant:
        action = Action.HALT
    elif s.warnings and count >= warn:
        action = Action.WARN
    else:
        return None
    return finding(
        detector,
        action,
        f"{quote(tool)} failed the last {count} times it was called",
        count,
        since=since,
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


def cycle_laps(window: Sequence[Sequence[Any]], max_period: int = 6) -> tuple[int, int]:
    """Return (period, complete laps) of the stable cycle ending the window, or (0, 0)."""
    n = len(window)
    for p in range(2, max_period + 1):
        if n < 2 * p:
            break
        matched = 0
        k = 0
        while k + p < n:
            a, b = window[n - 1 - k], window[n - 1 - k - p]
            if (
                a[W_SIG] != b[W_SIG]
                or a[W_RES] != b[W_RES]
                or a[W_STATUS] in ("blocked", "turn")
                or b[W_STATUS] in ("blocked", "turn")
            ):
                break
            matched += 1
            k += 1
        if matched < p:
            continue
        legs = window[n - p :]
        sigs = {e[W_SIG] for e in legs}
        if len(sigs) < 2 or all(e[W_KIND] == "poll" for e in legs):
            continue  # period 1 is the streak detectors' job; a round of polls is a wait
        if any(e[W_KIND] == "act" and e[W_STATUS] == "ok" for e in legs):
            continue  # an action takes effect on every lap (click, then retry): not a loop
        return p, (matched + p) // p
    return 0, 0


def cycle(
    window: Sequence[Sequence[Any]],
    s: LoopSettings,
    *,
    next_sig: str | None = None,
    sigs: Mapping[str, Mapping[str, Any]] | None = None,
) -> Finding | None:
    """A sequence of 2–6 calls repeating with identical results on every leg."""
    period, laps = cycle_laps(window)
    if not period:
        return None
    before = next_sig is not None
    if before and window[len(window) - period][W_SIG] != next_sig:
        return None  # this call breaks the cycle
    detector = "cycle"
    action = _ladder(laps, s.warn(detector), s.stop(detector), s, before)
    if action is None:
        return None
    legs = [e[W_SIG] for e in window[len(window) - period :]]
    known = sigs or {}
    names = [quote(known[sig]["preview"] if sig in known else sig) for sig in legs]
    return finding(
        detector,
        action,
        f"the same {period} calls ({', '.join(names)}) repeated {laps} times with identical "
        "results",
        laps,
        period=period,
        since=str(window[len(window) - laps * period][1]),
        warn_after=s.warn(detector),
        hard_stop_after=s.stop(detector),
    )


def poll_budget(rec: SigRecord, s: LoopSettings, *, before: bool) -> Finding | None:
    """A poll whose output has not changed: a budget by count and by seconds waited."""
    if rec.kind != "poll":
        return None
    count, waited = int(rec.same), float(rec.poll_s)
    max_n, max_s = s.poll_max_count, s.poll_max_seconds
    if before and s.hard_stop and (count >= max_n or waited >= max_s):
        action = Action.BLOCK
    elif s.warnings and (count >= max(2, max_n // 6) or waited >= max_s / 6):
        action = Action.WARN
    else:
        return None
    return finding(
        "poll",
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


def turn_calls(count: int, s: LoopSettings, *, before: bool) -> Finding | None:
    """Too many tool calls in one user turn."""
    detector = "turn_calls"
    warn, stop = s.warn(detector), s.stop(detector)
    if before and s.hard_stop and count > stop:
        action = Action.HALT
    elif s.warnings and count >= warn and (count - warn) % max(1, warn // 3) == 0:
        action = Action.WARN  # remind every third of the threshold, not on every call
    else:
        return None
    return finding(
        detector,
        action,
        f"{count} tool calls in this turn",
        count,
        warn_after=warn,
        hard_stop_after=stop,
    )


def repeated_block(rec: SigRecord, base: Finding) -> Finding:
    """Turn a block into a halt once the same call was refused twice already."""
    count = int(rec.blocked) + 1
    return finding(
        "repeated_block",
        Action.HALT,
        f"{quote(rec.preview)} was refused {count - 1} times and requested again",
        count,
        blocked_by=base.code,
    )


def monologue(identical: int, in_a_row: int, s: LoopSettings) -> Finding | None:
    """Assistant messages piling up with no tool call or user turn between them."""
    if not s.warnings:
        return None
    if identical >= 3:
        return finding(
            "monologue",
            Action.WARN,
            f"the same message was written {identical} times in a row",
            identical,
            identical=True,
        )
    if in_a_row >= 3:
        return finding(
            "monologue",
            Action.WARN,
            f"{in_a_row} messages in a row without acting",
            in_a_row,
            identical=False,
        )
    return None
