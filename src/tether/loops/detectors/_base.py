"""The one detector interface: a declaration and a pure ``check(window, event, settings)``.

A detector is one module that declares, once, everything the rest of Tether says about it:
its stable code and name, its config key and default thresholds, the line of the config
schema, the entry `tether rules` prints (summary, why, instead, examples), the row of the
table in docs/loops.md, and when it runs. The config schema, `tether rules`, the docs and the
replay report read that declaration (``tests/test_detector_declarations.py`` checks they all
read the same one), and the guard runs every declared detector as a pipeline.

``check`` is a pure function (STYLE rule 5): the recent calls (``Window``), what the guard
knows about this event (``Event``: the call's record, its tool's failure streak, the session
counters…) and the thresholds in, a ``Finding`` or None out. No I/O, no clock, no state of its
own: the guard keeps the state and passes it in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from tether.model import Action, Finding

if TYPE_CHECKING:
    from tether.loops.records import AgentRounds, Echo, FileState, Session, SigRecord, ToolStreak
    from tether.loops.settings import LoopSettings

# When a detector runs: before a call (may refuse it), after its result, on assistant text, or
# after the others on the same call (it reads their findings).
BEFORE, AFTER, MESSAGE, POST = "before", "after", "message", "post"


class Window(NamedTuple):
    """The recent finished calls, oldest first, and the call about to run (before a call)."""

    entries: Sequence[Sequence[Any]]
    next_sig: str | None = None


class Event(NamedTuple):
    """What the guard knows about the call (or message) a detector judges."""

    before: bool
    session: Session
    rec: SigRecord | None = None
    tool: str = ""
    failed: bool = False
    streak: ToolStreak | None = None
    agent: AgentRounds | None = None
    file: FileState | None = None
    echo: Echo | None = None
    findings: tuple[Finding, ...] = ()


Check = Callable[[Window, Event, "LoopSettings"], Finding | None]


class Detector(NamedTuple):
    """A detector's declaration: read by the schema, `tether rules`, the docs and the guard."""

    key: str  # config name: loops.warn_after.<key>, loops.hard_stop_after.<key>
    code: str  # stable code, never reused
    name: str  # descriptive name
    summary: str  # one line: what it found
    why: str  # why that is a loop
    instead: str  # what the model should do instead
    examples: tuple[str, ...]  # situations that raise it
    fires: str  # the docs table's "fires when"
    warn_after: int | None  # default warning threshold (None: no loops.warn_after key)
    hard_stop_after: int | None  # default hard-stop threshold (None: no key)
    what: str  # the config schema's phrase: "Warn after this many of: <what>."
    warn_text: str  # the docs table's warn column
    stop_text: str  # the docs table's hard-stop column
    phases: tuple[str, ...]
    check: Check


def finding(d: Detector, action: Action, message: str, count: int, **evidence: Any) -> Finding:
    """Build a finding of detector ``d`` with its stable code."""
    return Finding(d.code, d.name, action, message, count, {"detector": d.key, **evidence})


def ladder(count: int, warn: int, stop: int, s: LoopSettings, before: bool) -> Action | None:
    """Return the action for ``count``: warn from ``warn``, block (before a call) from ``stop``."""
    if before and s.hard_stop and count >= stop:
        return Action.BLOCK
    if s.warnings and count >= warn:
        return Action.WARN
    return None
