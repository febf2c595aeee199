"""A session in Redis parts reads back exactly as the state the guard wrote.

Each RedisStore keeps a copy of the sessions it wrote and sends only what changed; a writer
whose copy went stale reads the parts changed since (or all of them). Two stores on one server
stand for two hook processes; whatever the interleaving, every decision and the state read back
must equal what a memory store holds, and the cheap paths must have been taken.
"""

from __future__ import annotations

from typing import Any

from test_store_parts import HARD, _call, _plain
from tether.guard import Guard
from tether.model import ToolCall, ToolResult
from tether.store.memory import MemoryStore
from tether.store.redis_store import RedisStore


def test_copies_deltas_and_changed_parts_read_back_what_memory_holds(
    redis_server: str, redis_prefix: str
) -> None:
    one = RedisStore(redis_server, key_prefix=redis_prefix)
    two = RedisStore(redis_server, key_prefix=redis_prefix)
    kinds: list[int] = []
    for store in (one, two):
        read = store._from_snapshot

        def spy(session_id: str, snap: list[Any], copy: Any, read: Any = read) -> Any:
            kinds.append(int(snap[0]) * 10 + (1 if snap[2] else 0))
            return read(session_id, snap, copy)

        store._from_snapshot = spy  # type: ignore[method-assign]
    memory = Guard(HARD, MemoryStore())
    hooks = [Guard(HARD, one), Guard(HARD, two)]
    t = 1_700_000_000.0
    for n in range(300):
        tool, args, output, agent = _call(n)
        guard = hooks[(n // 7) % 2 if n < 250 else 0]
        for g in (memory, guard):
            call = ToolCall("s", tool, dict(args), f"c{n}", agent, t)
            before = g.before_call(call)
            after = g.after_call(ToolResult(call, output, None, False, t + 1))
            if g is memory:
                expected = (before.action, before.codes, after.action, after.codes)
            else:
                assert (before.action, before.codes, after.action, after.codes) == expected, n
        if n % 10 == 0:
            text = "continue" if n % 20 else f"go {n}"
            memory.user_message("s", text)
            guard.user_message("s", text)
        t += 3
        if n % 25 == 0:
            stored = RedisStore(redis_server, key_prefix=redis_prefix).load("s")
            assert _plain(stored) == _plain(memory.store.load("s")), n
    assert kinds.count(31) > 10  # a stale copy read only the parts changed since
    assert kinds.count(10) > 5  # a copy at the stored version read nothing
    one.close()
    two.close()
