"""Run a recorded session through a Guard and keep, per call, what the guard decided.

After a block the replay goes on with the next recorded call (the blocked call's recorded
result is dropped, because the call would not have run), so one file shows every intervention.
After a halt a real agent stops until a human writes: the calls recorded after it, up to the
next user message, are kept as "after halt" (not run through the guard, not counted as halts),
so the summary matches what the guarded agent would have done. Calls are numbered from 1.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tether.guard import Guard
from tether.loops.fingerprint import preview
from tether.model import ALLOW, Action, Decision
from tether.replay.formats import AssistantText, Call, Session, UserTurn


@dataclass(frozen=True, slots=True)
class Step:
    """One tool call of a replay: the call, what the guard said before and after it."""

    index: int  # the recorded index, from 0
    tool: str
    preview: str
    before: Decision
    after: Decision | None
    after_halt: bool = False  # recorded after a halt: a guarded agent would not have made it

    @property
    def number(self) -> int:
        """Return the call's number as people count it (from 1)."""
        return self.index + 1

    @property
    def result(self) -> str:
        """Return what this call got in the replay: an action, or ``after-halt``."""
        return "after-halt" if self.after_halt else self.action.label

    @property
    def action(self) -> Action:
        """Return the strictest action taken on this call."""
        return max(self.before.action, self.after.action if self.after else Action.ALLOW)

    @property
    def codes(self) -> tuple[str, ...]:
        """Return every code raised on this call, in order, without duplicates."""
        seen = list(self.before.codes)
        for c in self.after.codes if self.after else ():
            if c not in seen:
                seen.append(c)
        return tuple(seen)

    @property
    def message(self) -> str:
        """Return one message: the stricter decision's (the later one's when equally strict).

        Before and after a call the guard may both speak, each with its own count; showing
        both would give one call two counts ("… 60 times | … 61 times").
        """
        if self.after is not None and self.after.action >= self.before.action:
            return self.after.message
        return self.before.message

    def to_json(self) -> dict[str, Any]:
        """Return the ``--jsonl`` line of this call."""
        return {
            "call": self.number,
            "i": self.index,
            "tool": self.tool,
            "action": self.result,
            "codes": list(self.codes),
            "message": self.message,
        }


@dataclass(slots=True)
class Outcome:
    """What the guard did over one session."""

    session: Session
    steps: list[Step] = field(default_factory=list)
    messages: list[Decision] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def counts(self) -> Counter[str]:
        """Return how many calls ended with each action (calls after a halt apart)."""
        return Counter(s.result for s in self.steps)

    def first(self, action: Action) -> Step | None:
        """Return the first call whose action is at least ``action``."""
        return next((s for s in self.steps if not s.after_halt and s.action >= action), None)

    def summary(self) -> dict[str, Any]:
        """Return the per-file summary."""
        counts = self.counts
        block, halt = self.first(Action.BLOCK), self.first(Action.HALT)
        return {
            "file": self.session.path,
            "format": self.session.format,
            "calls": len(self.steps),
            **{a.label: counts.get(a.label, 0) for a in Action},
            "after_halt": counts.get("after-halt", 0),
            "first_block": block.number if block else None,
            "first_halt": halt.number if halt else None,
            "codes": dict(Counter(c for s in self.steps for c in s.codes)),
            "seconds": round(self.seconds, 4),
        }


def replay(session: Session, guard: Guard) -> Outcome:
    """Feed every event of ``session`` to ``guard``; return the decisions."""
    outcome = Outcome(session)
    shell = guard.settings.tools.shell
    started = time.perf_counter()
    halted = False
    for event in session.events:
        if isinstance(event, UserTurn):
            halted = False  # a human wrote: the agent goes on
            guard.user_message(session.session_id, event.text)
        elif halted:
            if isinstance(event, Call):
                call = event.call
                text = preview(call.tool, call.args, shell.get(call.tool), limit=70)
                outcome.steps.append(Step(event.index, call.tool, text, ALLOW, None, True))
        elif isinstance(event, AssistantText):
            decision = guard.assistant_message(session.session_id, event.text, event.agent_id)
            if decision.action > Action.ALLOW:
                outcome.messages.append(decision)
            halted = decision.action is Action.HALT
        elif isinstance(event, Call):
            call = event.call
            before = guard.before_call(call)
            after = None
            # A recorded call that was only asked about ran (someone approved it): feed its
            # result. A blocked or halted call would not have run.
            if before.action < Action.BLOCK and event.result is not None:
                after = guard.after_call(event.result)
            text = preview(call.tool, call.args, shell.get(call.tool), limit=70)
            step = Step(event.index, call.tool, text, before, after)
            outcome.steps.append(step)
            halted = step.action is Action.HALT
    outcome.seconds = time.perf_counter() - started
    return outcome
