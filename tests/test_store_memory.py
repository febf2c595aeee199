"""The memory store is bounded like the others: TTL on idle sessions, LRU past a session cap."""

from __future__ import annotations

import pytest

from tether.store import State
from tether.store.memory import MemoryStore


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def bump(state: State | None) -> State:
    state = dict(state or {"calls": 0})
    state["calls"] += 1
    return state


def test_past_the_cap_the_least_recently_updated_session_goes() -> None:
    store = MemoryStore(max_sessions=3)
    for sid in ("a", "b", "c"):
        store.update(sid, bump)
    store.update("a", bump)  # a is now the most recent
    store.update("d", bump)
    assert [s.session_id for s in store.sessions()] == ["d", "a", "c"]
    assert store.load("b") is None
    assert store.load("a") == {"calls": 2}


def test_the_cap_holds_over_many_sessions() -> None:
    store = MemoryStore(max_sessions=50)
    for i in range(5000):
        store.update(f"s{i}", bump)
    assert len(store.sessions()) == 50
    assert store.load("s4999") == {"calls": 1}
    assert store.load("s4949") is None


def test_idle_sessions_expire_after_the_ttl() -> None:
    clock = Clock()
    store = MemoryStore(ttl_days=1, clock=clock)
    store.update("old", bump)
    clock.now += 86400 - 1
    store.update("young", bump)
    assert store.load("old") == {"calls": 1}, "not idle for a full day yet"
    clock.now += 2
    assert store.load("old") is None
    assert [s.session_id for s in store.sessions()] == ["young"]
    # An expired session starts again from nothing, not from its stale state.
    clock.now += 86400 * 2
    assert store.update("young", bump) == {"calls": 1}


def test_an_update_keeps_a_session_alive() -> None:
    clock = Clock()
    store = MemoryStore(ttl_days=1, clock=clock)
    for _ in range(10):
        store.update("busy", bump)
        clock.now += 86400 / 2
    assert store.load("busy") == {"calls": 10}


def test_expired_sessions_are_dropped_even_if_never_read_again() -> None:
    clock = Clock()
    store = MemoryStore(ttl_days=1, clock=clock)
    for i in range(100):
        store.update(f"s{i}", bump)
    clock.now += 86400 + 1
    store.update("new", bump)
    assert len(store._data) == 1, "the sweep on update removed every expired session"


def test_a_cap_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="max_sessions"):
        MemoryStore(max_sessions=0)
