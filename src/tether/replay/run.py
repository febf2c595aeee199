"""Run a recorded session through a Guard and keep, per call, what the guard decided.

After a block the replay goes on with the next recorded call (the blocked call's recorded
result is dropped, because the call would not have run), so one file shows every intervention.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tether.guard import Guard
from tether.loops.fingerprint import preview
from tether.model import Action, Decision
from tether.replay.formats import AssistantText, Call, Session, UserTurn


@dataclass(frozen=True, slots=True)
class Step:
    """One tool call of a replay: the call, what the guard said before and after it."""

    index: int
    tool: str
    preview: str
    before: Decision
    after: Decision | None

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
        """Return the message of the stricter decision (both when they differ)."""
        after = self.after
        if (
            after is not None
            and self.before.action > Action.ALLOW
            and after.action > Action.ALLOW
            and self.before.message != after.message
        ):
            return self.before.message + " | " + after.message
        return max(
            (d for d in (self.before, self.after) if d is not None), key=lambda d: int(d.action)
        ).message

    def to_json(self) -> dict[str, Any]:
        """Return the ``--jsonl`` line of this call."""
        return {
            "i": self.index,
            "tool": self.tool,
            "action": self.action.label,
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
        """Return how many calls ended with each action."""
        return Counter(s.action.label for s in self.steps)

    def first(self, action: Action) -> Step | None:
        """Return the first call whose action is at least ``action``."""
        return next((s for s in self.steps if s.action >= action), None)

    def summary(self) -> dict[str, Any]:
        """Return the per-file summary."""
        counts = self.counts
        block, halt = self.first(Action.BLOCK), self.first(Action.HALT)
        return {
            "file": self.session.path,
            "format": self.session.format,
            "calls": len(self.steps),
            **{a.label: counts.get(a.label, 0) for a in Action},
            "first_block": block.index if block else None,
            "first_halt": halt.index if halt else None,
            "codes": dict(Counter(c for s in self.steps for c in s.codes)),
            "seconds": round(self.seconds, 4),
        }


def replay(session: Session, guard: Guard) -> Outcome:
    """Feed every event of ``session`` to ``guard``; return the decisions."""
    outcome = Outcome(session)
    shell = guard.settings.tools.shell
    started = time.perf_counter()
    for event in session.events:
        if isinstance(event, UserTurn):
            guard.user_message(session.session_id, event.text)
        elif isinstance(event, AssistantText):
            decision = guard.assistant_message(session.session_id, event.text, event.agent_id)
            if decision.action > Action.ALLOW:
                outcome.messages.append(decision)
        elif isinstance(event, Call):
            call = event.call
            before = guard.before_call(call)
            after = None
            # A recorded call that was only asked about ran (someone approved it): feed its
            # result. A blocked or halted call would not have run.
            if before.action < Action.BLOCK and event.result is not None:
                after = guard.after_call(event.result)
            text = preview(call.tool, call.args, shell.get(call.tool), limit=70)
            outcome.steps.append(Step(event.index, call.tool, text, before, after))
    outcome.seconds = time.perf_counter() - started
    return outcome
