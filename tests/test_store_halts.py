"""Issue 25: a halt is kept apart from the session state and fails closed.

A clock jump (the TTL sweep, or a memory store's expiry, running as if days had passed) must not
forget a halt, and neither must the loss of the session's key in Redis (eviction, expiry, a
hand `DEL`): the next call of a halted session is still refused, until the user speaks. Both
fail on the stores before halts were kept apart.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tether.errors import StoreError
from tether.guard import Guard
from tether.model import Action, ToolCall, ToolResult
from tether.store import Store
from tether.store.memory import MemoryStore
from tether.store.redis_store import RedisStore
from tether.store.sqlite import SQLiteStore

GH = "gh api repos/acme/widget/pulls/42/reviews 2>&1"
DAY = 86400.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def _halt(store: Store, sid: str = "s1") -> Guard:
    """Run the read-only loop until the guard halts the session (a hook guard: sticky)."""
    from tether.config import DEFAULT_CONFIG

    guard = Guard(DEFAULT_CONFIG.with_values({"loops.hard_stop": True}), store, sticky_halt=True)
    for n in range(12):
        call = ToolCall(sid, "Bash", {"command": GH}, f"c{n}")
        before = guard.before_call(call)
        if before.action is Action.HALT:
            return guard
        if before.allowed:
            guard.after_call(ToolResult(call, "[]", 0))
    raise AssertionError("the loop never halted")


def _next_call(guard: Guard, sid: str = "s1") -> Action:
    return guard.before_call(ToolCall(sid, "Read", {"file_path": "README.md"}, "next")).action


def test_a_clock_jump_does_not_forget_a_halt_in_sqlite(tmp_path: Path) -> None:
    clock = Clock()
    store = SQLiteStore(tmp_path / "state.db", ttl_days=7, clock=clock)
    guard = _halt(store)
    clock.now += 30 * DAY  # the wall clock jumps a month ahead; the sweep runs
    store.gc()
    assert _next_call(guard) is Action.HALT
    store.close()


def test_a_clock_jump_does_not_forget_a_halt_in_memory() -> None:
    clock = Clock()
    store = MemoryStore(ttl_days=7, clock=clock)
    guard = _halt(store)
    clock.now += 30 * DAY
    assert _next_call(guard) is Action.HALT


def test_a_halt_outlives_the_memory_stores_session_cap() -> None:
    store = MemoryStore(max_sessions=2)
    guard = _halt(store)
    for n in range(5):  # other sessions push the halted one out of the LRU
        store.update(f"other{n}", lambda state: {"calls": 1})
    assert _next_call(guard) is Action.HALT


def test_a_user_turn_lifts_the_halt_and_a_harness_continue_does_not(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "state.db")
    guard = _halt(store)
    guard.user_message("s1", "continue")
    assert _next_call(guard) is Action.HALT
    guard.user_message("s1", "Stop polling; tell me what the review says.")
    assert _next_call(guard) is Action.ALLOW
    assert store.load("s1") is not None and not store.load("s1").get("halted")  # type: ignore[union-attr]
    store.close()


def test_session_reset_forgets_the_halt_too(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "state.db")
    guard = _halt(store)
    assert store.delete("s1")
    assert store.load("s1") is None
    assert _next_call(guard) is Action.ALLOW
    store.close()


@pytest.fixture
def redis_store(redis_server: str, redis_prefix: str) -> Iterator[RedisStore]:
    s = RedisStore(redis_server, key_prefix=redis_prefix, ttl_days=7)
    yield s
    s.close()


def test_loss_of_a_halted_sessions_redis_key_still_refuses_the_next_call(
    redis_store: RedisStore, redis_server: str, redis_prefix: str
) -> None:
    guard = _halt(redis_store)
    client = redis.Redis.from_url(redis_server)
    try:
        assert client.delete(f"{redis_prefix}session:s1") == 1  # evicted, expired or deleted
        assert client.ttl(f"{redis_prefix}halt:s1") == -1  # the halt record never expires
    finally:
        client.close()
    assert _next_call(guard) is Action.HALT


def test_a_redis_that_may_evict_any_key_is_refused(
    redis_store: RedisStore, redis_server: str
) -> None:
    client = redis.Redis.from_url(redis_server)
    try:
        before = client.config_get("maxmemory-policy")["maxmemory-policy"]
        client.config_set("maxmemory-policy", "allkeys-lru")
        try:
            with pytest.raises(StoreError, match="maxmemory-policy is allkeys-lru"):
                redis_store.update("s9", lambda state: {"calls": 1})
        finally:
            client.config_set("maxmemory-policy", before)
    finally:
        client.close()
