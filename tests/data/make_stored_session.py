"""Write ``stored_session_v1.json``: a session stored by the Tether before typed state records.

Run with the old code first on the path, from the repository root:
``PYTHONPATH=<old checkout>/src .venv/bin/python tests/data/make_stored_session.py``.
The file holds the state after the first part of a session, the rest of the session, and what
that code answered to it and stored at the end; ``tests/test_state_records.py`` continues the
stored state with today's code and expects the same answers and the same state.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tether.config import DEFAULT_CONFIG
from tether.guard import Guard
from tether.model import ToolCall, ToolResult
from tether.store.memory import MemoryStore

OUT = Path(__file__).with_name("stored_session_v1.json")
CONFIG = {"loops.hard_stop": True, "progress.enabled": True}

# (event, ...): a mix of what a session does. Shell commands carry no options, so their
# signatures are the same before and after loop signatures read options.
EVENTS: list[list[Any]] = []
for _i in range(6):
    EVENTS.append(
        ["call", "Bash", {"command": "cargo autopilot issue ready"}, "No ready issues", 0]
    )
EVENTS.append(["call", "Read", {"file_path": "src/a.py"}, "x = 1\n", None])
EVENTS.append(
    ["call", "Edit", {"file_path": "src/a.py", "old_string": "1", "new_string": "2"}, "ok", None]
)
for _i in range(4):
    EVENTS.append(["call", "Bash", {"command": "pytest tests"}, "1 failed", 1])
EVENTS.append(["assistant", "Looking at the failure."])
EVENTS.append(["subagent_start", "child"])
for _i in range(3):
    EVENTS.append(
        ["call", "Grep", {"pattern": "foo", "path": "src"}, "src/a.py:1: foo", None, "child"]
    )
EVENTS.append(["begin", "Bash", {"command": "git status"}])  # begun, its result still to come
SPLIT = len(EVENTS)
EVENTS.append(["end", "Bash", {"command": "git status"}, "clean", 0])
for _i in range(8):
    EVENTS.append(
        ["call", "Bash", {"command": "cargo autopilot issue ready"}, "No ready issues", 0]
    )
for _i in range(3):
    EVENTS.append(
        ["call", "Grep", {"pattern": "foo", "path": "src"}, "src/a.py:1: foo", None, "child"]
    )
EVENTS.append(["after_only", "Bash", {"command": "ls"}, "a.py", 0])
EVENTS.append(["user", "next"])
for _i in range(3):
    EVENTS.append(["call", "Bash", {"command": "pytest tests"}, "1 failed", 1])
EVENTS.append(["subagent_stop", "child"])


def decision_json(decision: Any) -> list[Any]:
    return [int(decision.action), list(decision.codes), decision.message]


def play(guard: Guard, events: list[list[Any]], start: int) -> list[Any]:
    """Play ``events`` numbered from ``start``; return every answer the guard gave."""
    answers: list[Any] = []
    for n, event in enumerate(events, start):
        t = 1_700_000_000.0 + 3 * n
        kind = event[0]
        if kind in ("call", "begin", "end", "after_only"):
            tool, args = event[1], event[2]
            agent = event[5] if len(event) > 5 else None
            cid = "begun" if kind in ("begin", "end") else f"call_{n}"
            call = ToolCall("s", tool, args, cid, agent, t)
            if kind in ("call", "begin"):
                before = guard.before_call(call)
                answers.append(["before", decision_json(before)])
                if not before.allowed or kind == "begin":
                    continue
            output, code = event[3], event[4]
            after = guard.after_call(ToolResult(call, output, code, bool(code), t + 1))
            answers.append(["after", decision_json(after)])
        elif kind == "assistant":
            answers.append(["assistant", decision_json(guard.assistant_message("s", event[1]))])
        elif kind == "user":
            guard.user_message("s", event[1])
        elif kind == "subagent_start":
            guard.subagent_start("s", event[1])
        elif kind == "subagent_stop":
            guard.subagent_stop("s", event[1])
    return answers


def main() -> int:
    store = MemoryStore()
    guard = Guard(DEFAULT_CONFIG.with_values(CONFIG), store)
    play(guard, EVENTS[:SPLIT], 0)
    stored = json.loads(json.dumps(store.load("s")))
    answers = play(guard, EVENTS[SPLIT:], SPLIT)
    final = json.loads(json.dumps(store.load("s")))
    data = {
        "made_by": sys.argv[1] if len(sys.argv) > 1 else "tether before typed state records",
        "config": CONFIG,
        "split": SPLIT,
        "events": EVENTS,
        "stored": stored,
        "answers": answers,
        "final": final,
    }
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
