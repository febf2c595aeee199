"""TL210: a watched (sub-)agent spends rounds without a net change or anything new to say."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.loops.detectors._base import AFTER, MESSAGE, Detector, Event, Window, finding
from tether.model import Action, Finding

if TYPE_CHECKING:
    from tether.loops.settings import LoopSettings


def check(window: Window, ev: Event, s: LoopSettings) -> Finding | None:
    """Warn once per stretch at ``progress.warn_after`` rounds, halt at ``progress.halt_after``."""
    agent = ev.agent
    if agent is None:
        return None
    rounds = agent.stalled()
    warn, halt = s.progress_warn_after, s.progress_halt_after
    said = f"{rounds} rounds without a net change to the files or anything new said"
    if rounds >= halt:
        action, message = Action.HALT, said
    elif rounds >= warn and not agent.warned:
        action, message = Action.WARN, f"{said}; halting at {halt}"
    else:
        return None
    return finding(DETECTOR, action, message, rounds, warn_after=warn, halt_after=halt)


DETECTOR = Detector(
    key="no_convergence",
    code="TL210",
    name="no-convergence",
    summary="A sub-agent working many rounds without a net change or anything new to report.",
    why="With `progress.enabled`, a delegated agent is judged by its effect: files left changed "
    "(a write a later `git checkout` reverts is no change), a failing check that now passes, or "
    "text that says something new (a repeated or filler sentence is not). One that does none of "
    "these is warned at `progress.warn_after` rounds and halted at `progress.halt_after`.",
    instead="you have worked for many rounds without changing anything that stayed changed or "
    "reporting: report your best answer so far now",
    examples=(
        "a research sub-agent reading file after file, never reporting back",
        "an agent that edits a file, reverts it with `git checkout`, and edits it again",
    ),
    fires="a watched sub-agent spends rounds without a net change or new visible text",
    warn_after=None,
    hard_stop_after=None,
    what="",
    warn_text="`progress.warn_after` 15",
    stop_text="halt `progress.halt_after` 25",
    phases=(AFTER, MESSAGE),
    check=check,
)
