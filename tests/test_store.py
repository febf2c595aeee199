"""The Store contract, run against every backend: memory, a real SQLite file, a real Redis."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tether.errors import StoreError
from tether.store import State, Store
from tether.store.memory import MemoryStore
from tether.store.redis_store import RedisStore
from tether.store.sqlite import SQLiteStore

BACKENDS = ["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis)]


@pytest.fixture(params=BACKENDS)
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Store]]:
    """Return a factory of stores that share one backend's data (a file, a key prefix)."""
    opened: list[Store] = []
    memory = MemoryStore()

    def factory() -> Store:
        store: Store
        if request.param == "memory":
            store = memory
        elif request.param == "sqlite":
            store = SQLiteStore(tmp_path / "state.db")
        else:
            url = request.getfixturevalue("redis_server")
            store = RedisStore(url, key_prefix=request.getfixturevalue("redis_prefix"))
        opened.append(store)
        return store

    yield factory
    for store in opened:
        store.close()


def bump(state: State | None) -> State:
    """Count one more call, the way the guard does."""
    state = dict(state or {"calls": 0, "warnings": 0, "blocks": 0, "streaks": {}})
    state["calls"] += 1
    return state


def test_missing_session_loads_as_none(make_store: Callable[[], Store]) -> None:
    store = make_store()
    assert store.load("nobody") is None
    assert store.sessions() == []
    assert store.delete("nobody") is False


def test_update_sees_the_previous_state_and_returns_the_new_one(
    make_store: Callable[[], Store],
) -> None:
    store = make_store()
    seen: list[State | None] = []

    def record(state: State | None) -> State:
        seen.append(None if state is None else dict(state))
        return bump(state)

    first = store.update("s1", record)
    second = store.update("s1", record)
    assert seen == [None, first]
    assert second["calls"] == 2
    assert store.load("s1") == second


def test_state_round_trips_nested_json(make_store: Callable[[], Store]) -> None:
    store = make_store()
    state: State = {
        "calls": 3,
        "warnings": 1,
        "blocks": 0,
        "streaks": {"exact_failure": 2},
        "updated": 1796000000.5,
        "window": [["Bash", "ab12", None, True], ["Read", "cd34", 0, False]],
        "note": 'ünïcødé and "quotes"',
    }
    store.update("s1", lambda _: state)
    assert make_store().load("s1") == state


def test_sessions_are_separate_and_listed_newest_first(
    make_store: Callable[[], Store],
) -> None:
    store = make_store()
    for sid in ("a", "b", "c"):
        store.update(sid, bump)
    store.update("a", bump)
    infos = store.sessions()
    assert [i.session_id for i in infos] == ["a", "c", "b"]
    assert all(i.size > 0 for i in infos)
    assert infos[0].updated >= infos[1].updated >= infos[2].updated
    assert store.load("a") == {"calls": 2, "warnings": 0, "blocks": 0, "streaks": {}}
    assert store.load("b") == {"calls": 1, "warnings": 0, "blocks": 0, "streaks": {}}


def test_delete_forgets_one_session(make_store: Callable[[], Store]) -> None:
    store = make_store()
    store.update("a", bump)
    store.update("b", bump)
    assert store.delete("a") is True
    assert store.delete("a") is False
    assert store.load("a") is None
    assert [i.session_id for i in store.sessions()] == ["b"]


def test_a_failing_update_changes_nothing_and_its_error_propagates(
    make_store: Callable[[], Store],
) -> None:
    store = make_store()
    store.update("s1", bump)

    def explode(state: State | None) -> State:
        raise ValueError("detector bug")

    with pytest.raises(ValueError, match="detector bug"):
        store.update("s1", explode)
    assert store.load("s1") == {"calls": 1, "warnings": 0, "blocks": 0, "streaks": {}}
    # The store is still usable: nothing is left locked or watched.
    assert store.update("s1", bump)["calls"] == 2


def test_a_second_store_on_the_same_backend_sees_the_writes(
    make_store: Callable[[], Store],
) -> None:
    writer, reader = make_store(), make_store()
    writer.update("shared", bump)
    writer.update("shared", bump)
    loaded = reader.load("shared")
    assert loaded is not None and loaded["calls"] == 2


def test_threads_sharing_one_store_lose_no_update(make_store: Callable[[], Store]) -> None:
    store = make_store()

    def slow_bump(state: State | None) -> State:
        time.sleep(0.001)  # let the other threads run while this one is mid-update
        return bump(state)

    with ThreadPoolExecutor(max_workers=8) as pool:
        for future in [pool.submit(store.update, "s1", slow_bump) for _ in range(200)]:
            future.result()
    assert store.load("s1") == {"calls": 200, "warnings": 0, "blocks": 0, "streaks": {}}


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
@pytest.mark.parametrize(
    "bad",
    [{"when": object()}, {"ratio": float("nan")}, {"set": {1, 2}}],
    ids=["object", "nan", "set"],
)
def test_state_that_is_not_json_ready_is_refused(
    backend: str, bad: State, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    store: Store
    if backend == "sqlite":
        store = SQLiteStore(tmp_path / "state.db")
    else:
        store = RedisStore(
            request.getfixturevalue("redis_server"),
            key_prefix=request.getfixturevalue("redis_prefix"),
        )
    store.update("s1", bump)
    with pytest.raises(StoreError, match="not JSON-ready"):
        store.update("s1", lambda _: bad)
    assert store.load("s1") == {"calls": 1, "warnings": 0, "blocks": 0, "streaks": {}}
    store.close()
