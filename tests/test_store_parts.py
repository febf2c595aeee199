"""A session stored in parts reads back exactly as the state the guard wrote.

SQLite keeps a session as parts and a log of deltas, reuses its decoded copy while nobody
else wrote, and folds the log every 64 updates. Whatever the interleaving of processes (two
store objects on one file stand for two hook processes), every decision and the state read back
must equal what a memory store holds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tether.config import DEFAULT_CONFIG
from tether.guard import Guard
from tether.model import ToolCall, ToolResult
from tether.store import parts
from tether.store.memory import MemoryStore
from tether.store.sqlite import SQLiteStore

HARD = DEFAULT_CONFIG.with_values({"loops.hard_stop": True, "progress.enabled": True})


def _call(n: int) -> tuple[str, dict[str, Any], str, str | None]:
    k = n % 13
    if k < 4:
        return "Read", {"file_path": f"src/m{n % 9}.py"}, f"     1→v = {n % 4}\n", None
    if k < 6:
        edit = {"file_path": f"src/m{n % 3}.py", "old_string": f"v = {n % 2}", "new_string": "v"}
        return "Edit", edit, "The file has been updated.", "child"
    if k < 9:
        return "Grep", {"pattern": "TODO", "path": "src"}, "src/a.py:1: TODO", None
    if k < 11:
        return "mcp__q__list_items", {"page": n % 4}, "[1, 2, 3] items on this page", "child"
    return "WebSearch", {"query": f"q{n % 5}"}, f"result {n % 2}", None


def _plain(state: Any) -> Any:
    state = json.loads(json.dumps(state))
    state.pop("updated", None)
    return state


def test_parts_and_two_processes_read_back_what_memory_holds(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    one, two = SQLiteStore(path), SQLiteStore(path)
    memory = Guard(HARD, MemoryStore())
    hooks = [Guard(HARD, one), Guard(HARD, two)]
    t = 1_700_000_000.0
    for n in range(400):
        tool, args, output, agent = _call(n)
        # runs of calls in one process, then the other: cached copies go stale and are re-read
        guard = hooks[(n // 7) % 2 if n < 300 else 0]
        for g in (memory, guard):
            call = ToolCall("s", tool, dict(args), f"c{n}", agent, t)
            before = g.before_call(call)
            after = g.after_call(ToolResult(call, output, None, False, t + 1))
            if g is memory:
                expected = (before.action, before.codes, after.action, after.codes)
            else:
                assert (before.action, before.codes, after.action, after.codes) == expected, n
        if n % 10 == 0:
            memory.user_message("s", "continue") if n % 20 else memory.user_message("s", f"go {n}")
            guard.user_message("s", "continue") if n % 20 else guard.user_message("s", f"go {n}")
        t += 3
        if n % 25 == 0:
            stored = SQLiteStore(path).load("s")
            assert _plain(stored) == _plain(memory.store.load("s")), n
    one.close()
    two.close()


def test_a_delta_names_only_what_a_call_changed() -> None:
    state = parts.assemble(
        parts.split({"calls": 1, "sigs": {"a": {"n": 1}, "b": {"n": 2}}, "window": [[1]]}).items()
    )
    assert state is not None
    state.settle()
    state["calls"] += 1
    state["sigs"]["a"]["n"] = 5
    state["window"].append([2])
    delta = state.delta()
    assert delta is not None
    assert set(delta["put"]) == {"h", "sigs/a", "w/000000000001"}
    assert delta["put"]["h"]["calls"] == 2
    assert delta["del"] == []


def test_a_table_replaced_or_removed_loses_its_old_parts() -> None:
    stored = parts.split({"calls": 1, "tools": {"Bash": [2, "c1", "r"]}, "echo": {"Grep": [1]}})
    state = parts.assemble(stored.items())
    assert state is not None
    state["tools"] = {}  # a new turn forgets every tool's failures
    del state["echo"]
    delta = state.delta()
    assert delta is not None
    assert set(delta["del"]) == {"tools/Bash", "echo/Grep"}
    parts.apply(stored, delta)
    again = parts.assemble(stored.items())
    assert again is not None
    assert dict(again) == {"calls": 1, "tools": {}}


def test_a_head_stored_one_value_per_part_reads_and_is_folded() -> None:
    # The layout before the head was written whole: h/NAME parts, tools in the head.
    stored = {"h/calls": 3, "h/tools": {"Bash": [1, "c", ""]}, "h/_t": []}
    stored["h/_k"] = ["calls", "tools"]
    state = parts.assemble(stored.items())
    assert state is not None
    assert dict(state) == {"calls": 3, "tools": {"Bash": [1, "c", ""]}}
    state["calls"] += 1
    delta = state.delta()
    assert delta is not None
    parts.apply(stored, delta)
    assert not [k for k in stored if k.startswith("h/")]
    again = parts.assemble(stored.items())
    assert again is not None
    assert dict(again) == {"calls": 4, "tools": {"Bash": [1, "c", ""]}}
