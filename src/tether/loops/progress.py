"""Sub-agent non-convergence: rounds of work whose effect does not stand.

Each complete model/tool round of a watched agent either makes progress or not, judged by its
effect (see ``records.AgentRounds``): the files reaching a state they had not been in (a write a
later ``git checkout`` undoes takes its progress back), a failing call that now passes, an
action, or visible text that says something new; a sentence it has said before, or filler
("Let me keep looking."), is not. After ``progress.warn_after`` rounds without progress the
agent is told to report its best answer; after ``progress.halt_after`` it is halted (TL210).
Counts restart on every user turn. Off by default (``progress.enabled``); ``progress.scope``
chooses delegated children only (``subagents``) or every agent (``all``).
"""

from __future__ import annotations

import re
import zlib

from tether.loops.records import AgentRounds
from tether.loops.settings import LoopSettings

MAIN = ""  # the agent id of the top-level agent in the ``agents`` map
NEW_WORDS = 6  # content words never said before that make a text news
MAX_WORDS = 512  # word hashes remembered per agent
_WORD = re.compile(r"[a-z][a-z0-9_']{2,}")
# Words that carry no content (and the usual filler around the work).
_STOP_WORDS = (
    "the and for are but not you all any can had her was one our out has his how its may new "
    "now see two who did get let put say she too use that with have this will your from they "
    "been were said each which their there what about would these other into more some could "
    "them then than only also just like well over such here very when where while after before "
    "because again still next look looking check checking continue continuing keep going "
    "lets let's i'll i'm we'll now okay sure great good right done moving first"
)
_STOP = frozenset(_STOP_WORDS.split())


def watched(agent_id: str | None, s: LoopSettings) -> str | None:
    """Return the key under which ``agent_id`` is tracked, or None when it is out of scope."""
    if not s.progress_enabled:
        return None
    if agent_id:
        return agent_id
    return MAIN if s.progress_scope == "all" else None


def words(text: str) -> list[str]:
    """Return the hashes of a text's content words (computed outside the store's lock)."""
    found = {w for w in _WORD.findall(text.lower()) if w not in _STOP}
    return sorted(format(zlib.crc32(w.encode()) & 0xFFFFFF, "06x") for w in found)


def absorb(agent: AgentRounds, hashes: list[str]) -> bool:
    """Remember what an agent said; return True when it said enough that is new."""
    known = list(agent.words or [])
    have = set(known)
    fresh = [h for h in hashes if h not in have]
    if fresh:
        agent.words = (known + fresh)[-MAX_WORDS:]
    return len(fresh) >= NEW_WORDS
