"""Stored session state is packed (default record fields dropped) and old full states still load."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from tether.guard import Guard
from tether.loops.state import coerce, new_record, new_state, pack
from tether.model import ToolCall, ToolResult
from tether.store.sqlite import SQLiteStore


def _session(guard: Guard, n: int, session: str = "s") -> None:
    for i in range(n):
        call = ToolCall(
            session,
            "Bash",
            {"command": f"grep -rn 'pattern_{i}' src/ | head -20"},
            f"toolu_01ABCDEFGHIJKLMNOP{i:04d}",
        )
        guard.before_call(call)
        guard.after_call(ToolResult(call, f"out {i}"))


def _size(state: object) -> int:
    return len(json.dumps(state, separators=(",", ":")))


def test_the_stored_state_is_a_quarter_smaller(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "state.db")
    _session(Guard(store=store), 300)
    stored = store.load("s")
    assert stored is not None
    full = coerce(copy.deepcopy(stored))
    assert _size(stored) < 0.78 * _size(full), (_size(stored), _size(full))


def test_a_state_stored_in_full_still_loads_and_counts_on(tmp_path: Path) -> None:
    # What a Tether before packing wrote: every record field present.
    old = new_state()
    rec = new_record("Bash", "read", "Bash gh api repos/o/r/pulls/1/reviews")
    old["sigs"]["placeholder"] = rec
    assert coerce(copy.deepcopy(old)) == old
    store = SQLiteStore(tmp_path / "state.db")
    guard = Guard(store=store)
    call = ToolCall("s", "Bash", {"command": "gh api repos/o/r/pulls/1/reviews"}, "c0")
    guard.before_call(call)
    guard.after_call(ToolResult(call, "[]"))
    state = store.load("s")
    assert state is not None
    full = coerce(copy.deepcopy(state))
    store.update("s", lambda _: full)  # rewrite it the old way, every field present
    for i in range(1, 12):
        again = ToolCall("s", "Bash", {"command": "gh api repos/o/r/pulls/1/reviews"}, f"c{i}")
        guard.before_call(again)
        decision = guard.after_call(ToolResult(again, "[]"))
    assert decision.codes, "the no-progress streak carried on from the state stored in full"


def test_pack_then_coerce_gives_back_every_field() -> None:
    state = new_state()
    rec = new_record("Read", "read", "Read a.py")
    rec["same"] = 3
    rec["poll_s"] = 1.5
    state["sigs"]["x"] = copy.deepcopy(rec)
    packed = pack(copy.deepcopy(state))
    assert "fails" not in packed["sigs"]["x"] and packed["sigs"]["x"]["same"] == 3
    assert coerce(packed)["sigs"]["x"] == rec
    # A default-looking value of another type is kept: False is not 0, 0 is not 0.0.
    rec2 = new_record("Read", "read", "p")
    rec2["poll_s"] = 0
    state["sigs"]["y"] = rec2
    assert pack(copy.deepcopy(state))["sigs"]["y"]["poll_s"] == 0
