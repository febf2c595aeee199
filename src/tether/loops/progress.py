"""Sub-agent non-convergence: rounds of work with no user-visible text and no landed write.

Each complete model/tool round of a watched agent either makes progress (the assistant wrote
user-visible text, or a write was confirmed successful) or not (reads, failed or refused writes,
cancelled calls). After ``progress.warn_after`` rounds without progress the agent is told to
report its best answer; after ``progress.halt_after`` it is halted, deterministically. Counts
restart on every user turn. Off by default (``progress.enabled``); ``progress.scope`` chooses
delegated children only (``subagents``) or every agent (``all``).
"""

from __future__ import annotations

from tether.loops.detectors import finding
from tether.loops.records import AgentRounds
from tether.loops.settings import LoopSettings
from tether.model import Action, Finding

MAIN = ""  # the agent id of the top-level agent in the ``agents`` map


def watched(agent_id: str | None, s: LoopSettings) -> str | None:
    """Return the key under which ``agent_id`` is tracked, or None when it is out of scope."""
    if not s.progress_enabled:
        return None
    if agent_id:
        return agent_id
    return MAIN if s.progress_scope == "all" else None


def record_round(agent: AgentRounds, progressed: bool, s: LoopSettings) -> Finding | None:
    """Count one round for ``agent``; return a warning or a halt, if due."""
    if progressed:
        agent.rounds = 0
        agent.warned = False
        return None
    agent.rounds += 1
    rounds = int(agent.rounds)
    if rounds >= s.progress_halt_after:
        return finding(
            "no_convergence",
            Action.HALT,
            f"{rounds} rounds without user-visible output or a successful write",
            rounds,
            warn_after=s.progress_warn_after,
            halt_after=s.progress_halt_after,
        )
    if rounds >= s.progress_warn_after and not agent.warned:
        agent.warned = True  # one warning per stretch; the halt follows if it is ignored
        return finding(
            "no_convergence",
            Action.WARN,
            f"{rounds} rounds without user-visible output or a successful write; "
            f"halting at {s.progress_halt_after}",
            rounds,
            warn_after=s.progress_warn_after,
            halt_after=s.progress_halt_after,
        )
    return None
