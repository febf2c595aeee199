"""RedisStore against a real redis-server: expiry, prefixes, conflicts, unreachable servers."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import redis

from tether.errors import StoreError
from tether.store import State
from tether.store.redis_store import RedisStore, redact_url

DAY = 86400


def bump(state: State | None) -> State:
    """Count one more call."""
    state = dict(state or {"calls": 0})
    state["calls"] += 1
    return state


def bump_in_place(state: State | None) -> State:
    """Count one more call in the state handed over (a store then writes only the change)."""
    assert state is not None
    state["calls"] += 1
    return state


@pytest.fixture
def client(redis_server: str) -> Iterator[redis.Redis]:
    """A plain redis-py client, to look at what the store wrote."""
    conn = redis.Redis.from_url(redis_server)
    yield conn
    conn.close()


@pytest.fixture
def store(redis_server: str, redis_prefix: str) -> Iterator[RedisStore]:
    s = RedisStore(redis_server, key_prefix=redis_prefix, ttl_days=7)
    yield s
    s.close()


def test_keys_live_under_the_prefix_and_expire_after_ttl(
    store: RedisStore, client: redis.Redis, redis_prefix: str
) -> None:
    store.update("s1", bump)
    keys = sorted(k.decode() for k in client.scan_iter(match=f"{redis_prefix}*"))
    lock = [f"{redis_prefix}lock:s1:d", f"{redis_prefix}lock:s1:t"]  # the session's ticket lock
    assert keys == [*lock, f"{redis_prefix}session:s1", f"{redis_prefix}sessions"]
    for key in keys:
        if key in lock:
            assert 0 < client.pttl(key) <= 60_000  # gone a minute after the last writer
        else:
            assert 7 * DAY - 60 < client.ttl(key) <= 7 * DAY


def test_every_update_renews_the_expiry(
    store: RedisStore, client: redis.Redis, redis_prefix: str
) -> None:
    store.update("s1", bump)
    client.expire(f"{redis_prefix}session:s1", 100)
    store.update("s1", bump)
    assert client.ttl(f"{redis_prefix}session:s1") > 7 * DAY - 60


def test_ttl_zero_means_no_expiry(
    redis_server: str, redis_prefix: str, client: redis.Redis
) -> None:
    store = RedisStore(redis_server, key_prefix=redis_prefix, ttl_days=0)
    store.update("s1", bump)
    assert client.ttl(f"{redis_prefix}session:s1") == -1
    store.close()


def test_prefixes_keep_deployments_apart(redis_server: str, redis_prefix: str) -> None:
    blue = RedisStore(redis_server, key_prefix=redis_prefix + "blue:")
    green = RedisStore(redis_server, key_prefix=redis_prefix + "green:")
    blue.update("same-id", bump)
    blue.update("same-id", bump)
    green.update("same-id", bump)
    assert blue.load("same-id") == {"calls": 2}
    assert green.load("same-id") == {"calls": 1}
    assert green.delete("same-id") is True
    assert blue.load("same-id") == {"calls": 2}
    blue.close()
    green.close()


def test_sessions_drop_keys_that_expired_before_their_index_entry(
    store: RedisStore, client: redis.Redis, redis_prefix: str
) -> None:
    store.update("kept", bump)
    store.update("expired", bump)
    client.delete(f"{redis_prefix}session:expired")  # what expiry does to the key
    assert [s.session_id for s in store.sessions()] == ["kept"]
    assert client.zrange(f"{redis_prefix}sessions", 0, -1) == [b"kept"]


def test_sessions_drop_index_entries_older_than_ttl(
    redis_server: str, redis_prefix: str, client: redis.Redis
) -> None:
    old = RedisStore(redis_server, key_prefix=redis_prefix, clock=lambda: 1_000_000.0)
    old.update("ancient", bump)
    old.close()
    store = RedisStore(redis_server, key_prefix=redis_prefix)
    store.update("fresh", bump)
    assert [s.session_id for s in store.sessions()] == ["fresh"]
    assert client.zrange(f"{redis_prefix}sessions", 0, -1) == [b"fresh"]
    store.close()


def test_a_writer_on_a_stale_copy_is_refused_and_reruns_on_the_new_state(
    redis_server: str, redis_prefix: str
) -> None:
    """A store writes its own copy without the lock, only while nobody wrote since."""
    ours = RedisStore(redis_server, key_prefix=redis_prefix)
    theirs = RedisStore(redis_server, key_prefix=redis_prefix)
    ours.update("s1", bump)  # ours now holds a copy at the stored version
    seen: list[tuple[str, int]] = []
    holding = threading.Event()

    def slow_bump(state: State | None) -> State:
        assert state is not None
        seen.append(("ours", state["calls"]))
        holding.set()
        time.sleep(0.3)  # "theirs" writes meanwhile
        return bump(state)

    def their_bump(state: State | None) -> State:
        assert state is not None
        seen.append(("theirs", state["calls"]))
        return bump(state)

    other = threading.Thread(target=lambda: (holding.wait(5), theirs.update("s1", their_bump)))
    other.start()
    assert ours.update("s1", slow_bump) == {"calls": 3}
    other.join(10)
    # Our first result, computed on a copy their write made stale, was refused; the rerun
    # read their write: no lost update.
    assert seen == [("ours", 1), ("theirs", 1), ("ours", 2)]
    assert ours.load("s1") == {"calls": 3}
    ours.close()
    theirs.close()


def test_a_writer_never_writes_past_one_holding_the_turn(
    redis_server: str, redis_prefix: str
) -> None:
    """While a writer holds the session's turn, a store with a current copy queues behind it."""
    ours = RedisStore(redis_server, key_prefix=redis_prefix)
    theirs = RedisStore(redis_server, key_prefix=redis_prefix)
    ours.update("s1", bump)
    seen: list[tuple[str, int]] = []
    holding = threading.Event()

    def their_slow_bump(state: State | None) -> State:
        assert state is not None
        seen.append(("theirs", state["calls"]))
        holding.set()
        time.sleep(0.3)  # holds the turn (theirs has no copy: it took the lock)
        return bump(state)

    def our_bump(state: State | None) -> State:
        assert state is not None
        seen.append(("ours", state["calls"]))
        return bump(state)

    other = threading.Thread(target=lambda: theirs.update("s1", their_slow_bump))
    other.start()
    assert holding.wait(5)
    assert ours.update("s1", our_bump) == {"calls": 3}
    other.join(10)
    assert seen == [("theirs", 1), ("ours", 1), ("ours", 2)]
    assert ours.load("s1") == {"calls": 3}
    ours.close()
    theirs.close()


def test_a_state_stored_as_one_json_string_reads_and_is_written_in_parts(
    store: RedisStore, client: redis.Redis, redis_prefix: str
) -> None:
    client.set(f"{redis_prefix}session:old", b'{"calls": 4, "sigs": {"a": {"n": 1}}}')
    assert store.load("old") == {"calls": 4, "sigs": {"a": {"n": 1}}}
    assert store.update("old", bump)["calls"] == 5
    assert client.type(f"{redis_prefix}session:old") == b"hash"
    assert RedisStore(store.url, key_prefix=redis_prefix).load("old") == {
        "calls": 5,
        "sigs": {"a": {"n": 1}},
    }


def test_a_copy_of_a_deleted_session_never_matches_its_next_state(
    redis_server: str, redis_prefix: str
) -> None:
    ours = RedisStore(redis_server, key_prefix=redis_prefix)
    theirs = RedisStore(redis_server, key_prefix=redis_prefix)
    ours.update("s1", lambda state: {"calls": 9})
    ours.update("s1", bump_in_place)  # ours: a copy of the first state, {"calls": 10}
    assert theirs.delete("s1") is True
    theirs.update("s1", bump)
    theirs.update("s1", bump_in_place)  # a new state, {"calls": 2}, as many writes in
    # Were versions reused, ours would write its stale copy ({"calls": 11}) onto the new state.
    assert ours.update("s1", bump_in_place) == {"calls": 3}
    assert theirs.load("s1") == {"calls": 3}
    ours.close()
    theirs.close()


def _take_turn(store: RedisStore, session: str, lease_ms: int) -> int:
    """Hold a session's turn the way a writer does before it dies (never writes, never passes)."""
    from tether.store import redis_store

    base = f"{store.key_prefix}lock:{session}:"
    keys = [base + "t", base + "d", base + "l", store._key(session), store._halt_key(session)]
    me, mine, _ = store._scripts["acquire"](keys=keys, args=[lease_ms, redis_store.LOCK_TTL_MS, -1])
    assert int(mine) == 1
    return int(me)


def test_a_writer_that_died_holding_the_turn_is_skipped_after_its_lease(
    redis_server: str, redis_prefix: str
) -> None:
    store = RedisStore(redis_server, key_prefix=redis_prefix, max_wait=5)
    _take_turn(store, "s1", lease_ms=300)
    started = time.monotonic()
    assert store.update("s1", bump) == {"calls": 1}
    assert 0.25 < time.monotonic() - started < 3
    store.close()


def test_a_queue_that_never_moves_gives_up_with_a_store_error(
    redis_server: str, redis_prefix: str
) -> None:
    holder = RedisStore(redis_server, key_prefix=redis_prefix)
    _take_turn(holder, "s1", lease_ms=10_000)
    waiter = RedisStore(redis_server, key_prefix=redis_prefix, max_wait=0.4)
    with pytest.raises(StoreError, match="stayed busy"):
        waiter.update("s1", bump)
    holder.close()
    waiter.close()


def test_a_writer_whose_turn_was_taken_writes_nothing_and_queues_again(
    redis_server: str, redis_prefix: str
) -> None:
    """Fencing: a writer slower than its lease, skipped as dead, must not overwrite."""
    from tether.store import redis_store

    ours = RedisStore(redis_server, key_prefix=redis_prefix, max_wait=5)
    theirs = RedisStore(redis_server, key_prefix=redis_prefix, max_wait=5)
    runs: list[int] = []
    lease = redis_store.LEASE_MS
    redis_store.LEASE_MS = 200
    try:

        def stalled(state: State | None) -> State:
            runs.append((state or {}).get("calls", 0))
            if len(runs) == 1:
                theirs.update("s1", bump)  # waits out our lease, skips us, writes
            return bump(state)

        assert ours.update("s1", stalled) == {"calls": 2}
    finally:
        redis_store.LEASE_MS = lease
    assert runs == [0, 1]  # our first result was refused; the retry saw their write
    assert ours.load("s1") == {"calls": 2}
    ours.close()
    theirs.close()


def test_corrupt_value_raises_store_error_naming_the_session(
    store: RedisStore, client: redis.Redis, redis_prefix: str
) -> None:
    client.set(f"{redis_prefix}session:bad", b"{nope")
    with pytest.raises(StoreError, match="tether session reset bad"):
        store.load("bad")


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("operation", ["load", "update", "delete", "sessions"])
def test_an_unreachable_server_raises_store_error(operation: str) -> None:
    url = f"redis://:hunter2@127.0.0.1:{_closed_port()}/0"
    store = RedisStore(url, connect_timeout=0.5)
    calls = {
        "load": lambda: store.load("s1"),
        "update": lambda: store.update("s1", bump),
        "delete": lambda: store.delete("s1"),
        "sessions": store.sessions,
    }
    with pytest.raises(StoreError) as caught:
        calls[operation]()
    message = str(caught.value)
    assert "unreachable" in message
    assert url.replace("hunter2", "***") in message
    assert "hunter2" not in message  # never leak the password into logs or deny reasons
    assert "start redis-server" in message


def test_a_server_that_accepts_but_never_answers_raises_store_error() -> None:
    # The kernel completes the handshake for a listening socket nobody reads from: the
    # client connects, then must give up after its socket timeout instead of hanging the hook.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
        store = RedisStore(url, connect_timeout=0.3, socket_timeout=0.3)
        with pytest.raises(StoreError, match=r"is unreachable \(Timeout"):
            store.update("s1", bump)
        store.close()


@pytest.mark.parametrize("url", ["http://127.0.0.1:6379", "not a url"])
def test_a_malformed_url_is_a_store_error(url: str) -> None:
    with pytest.raises(StoreError, match="is not a redis URL"):
        RedisStore(url)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
        ("redis://:pw@host:6380/1", "redis://:***@host:6380/1"),
        ("rediss://user:pw@host/0", "rediss://user:***@host/0"),
        ("unix:///run/redis.sock", "unix:///run/redis.sock"),
    ],
)
def test_redact_url_hides_only_the_password(url: str, shown: str) -> None:
    assert redact_url(url) == shown
