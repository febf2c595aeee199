"""SQLiteStore on real files: permissions, locking, corruption, move-aside and GC."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tether.errors import StoreError
from tether.store import State
from tether.store.sqlite import SQLiteStore, move_aside

DAY = 86400.0
T0 = 1_800_000_000.0


def bump(state: State | None) -> State:
    """Count one more call."""
    state = dict(state or {"calls": 0})
    state["calls"] += 1
    return state


class Clock:
    """A settable clock, so GC can be tested without waiting days."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def umask_zero() -> Iterator[None]:
    """Run with umask 0, so a file mode that is not forced would show up as 0644."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_file_is_created_0600_with_its_parents(tmp_path: Path, umask_zero: None) -> None:
    path = tmp_path / "xdg" / "tether" / "state.db"
    store = SQLiteStore(path)
    store.update("s1", bump)
    assert mode(path) == 0o600
    # SQLite gives the WAL and shared-memory files the database file's mode.
    assert mode(path.with_name("state.db-wal")) == 0o600
    assert mode(path.with_name("state.db-shm")) == 0o600
    store.close()


def test_opening_is_lazy_and_runs_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    store = SQLiteStore(path)
    assert not path.exists()  # constructing touches nothing
    assert store.load("s1") is None
    store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2


def test_a_parent_that_is_a_file_gives_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("not a directory")
    store = SQLiteStore(tmp_path / "blocker" / "state.db")
    with pytest.raises(StoreError, match=r"blocker/state\.db: cannot create the state file"):
        store.load("s1")


def test_update_runs_under_the_write_lock(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    store = SQLiteStore(path)
    store.update("s1", bump)
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    attempts: list[str] = []

    def meddle(state: State | None) -> State:
        # While our update function runs, no other connection may take the write lock.
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
            attempts.append("got the lock")
        except sqlite3.OperationalError as exc:
            attempts.append(str(exc))
        return bump(state)

    store.update("s1", meddle)
    assert attempts == ["database is locked"]
    other.execute("BEGIN IMMEDIATE")  # and the lock is released afterwards
    other.execute("ROLLBACK")
    other.close()
    store.close()


def test_a_held_write_lock_times_out_with_a_clear_error_and_reads_still_work(
    tmp_path: Path,
) -> None:
    path = tmp_path / "state.db"
    SQLiteStore(path).update("s1", bump)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        store = SQLiteStore(path, busy_timeout=0.05)
        # WAL: readers are never blocked by a writer.
        assert store.load("s1") == {"calls": 1}
        with pytest.raises(StoreError) as caught:
            store.update("s1", bump)
        message = str(caught.value)
        assert str(path) in message
        assert "locked" in message
        assert "another process" in message
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert store.update("s1", bump) == {"calls": 2}
    store.close()


def fill_pages_with_garbage(path: Path) -> None:
    """Keep the header page, overwrite the rest: SQLite reports a malformed image."""
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[page:] = b"\xff" * (len(data) - page)
    path.write_bytes(bytes(data))


def write_text_file(path: Path) -> None:
    path.write_bytes(b"this is not a database, just some text\n" * 200)


@pytest.mark.parametrize(
    "damage", [write_text_file, fill_pages_with_garbage], ids=["text", "garbage-pages"]
)
def test_a_corrupt_file_raises_store_error_naming_the_fix(
    damage: Callable[[Path], None], tmp_path: Path
) -> None:
    path = tmp_path / "state.db"
    store = SQLiteStore(path)
    for sid in ("a", "b", "c"):
        store.update(sid, bump)
    store.close()  # the last close checkpoints the WAL into the main file
    assert not path.with_name("state.db-wal").exists()
    damage(path)
    broken = SQLiteStore(path)
    with pytest.raises(StoreError) as caught:
        broken.load("a")
        broken.sessions()
    message = str(caught.value)
    assert str(path) in message
    assert "corrupt" in message or "malformed" in message
    assert "tether doctor --fix" in message


@pytest.mark.parametrize(
    ("stored", "expected"),
    [("{not json", "unreadable state"), ("[1, 2]", "holds a list, expected a JSON object")],
)
def test_a_damaged_row_raises_store_error_naming_the_session(
    stored: str, expected: str, tmp_path: Path
) -> None:
    path = tmp_path / "state.db"
    store = SQLiteStore(path)
    store.update("bad", bump)
    store.close()
    with sqlite3.connect(path) as conn:  # the session's head part (schema 2 stores parts)
        conn.execute("INSERT OR REPLACE INTO parts VALUES ('bad', 'h', ?)", (stored,))
    for operation in (lambda: store.load("bad"), lambda: store.update("bad", bump)):
        with pytest.raises(StoreError, match=expected) as caught:
            operation()
        assert "tether session reset bad" in str(caught.value)
    assert store.delete("bad") is True  # reset is the way out
    store.close()


@pytest.mark.parametrize(
    ("stored", "expected"),
    [("{not json", "unreadable state"), ("[1, 2]", "holds a list, expected a JSON object")],
)
def test_a_damaged_schema_1_row_raises_store_error_naming_the_session(
    stored: str, expected: str, tmp_path: Path
) -> None:
    path = tmp_path / "state.db"
    store = SQLiteStore(path)
    store.load("warm")  # creates the file
    store.close()
    with sqlite3.connect(path) as conn:  # a row as Tether before parts wrote it
        conn.execute("INSERT INTO sessions VALUES ('bad', ?, 0)", (stored,))
    with pytest.raises(StoreError, match=expected):
        store.load("bad")
    store.close()


def test_a_schema_1_file_reads_on_and_is_written_in_parts(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, state TEXT NOT NULL, updated REAL "
            "NOT NULL); CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); "
            "PRAGMA user_version = 1;"
        )
        conn.execute("INSERT INTO sessions VALUES ('old', ?, 1)", ('{"calls": 41}',))
    store = SQLiteStore(path)
    assert store.load("old") == {"calls": 41}
    assert store.update("old", bump)["calls"] == 42
    store.close()
    reopened = SQLiteStore(path)
    assert reopened.load("old") == {"calls": 42}
    reopened.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
        assert conn.execute("SELECT count(*) FROM parts WHERE sid = 'old'").fetchone()[0] >= 1


def test_a_file_from_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError, match="newer Tether"):
        SQLiteStore(path).load("s1")


def test_move_aside_moves_the_file_and_its_wal_and_a_fresh_store_starts(
    tmp_path: Path,
) -> None:
    path = tmp_path / "state.db"
    write_text_file(path)
    original = path.read_bytes()
    with pytest.raises(StoreError):
        SQLiteStore(path).load("s1")
    path.with_name("state.db-wal").write_bytes(b"stale wal")
    moved = move_aside(path)
    assert moved.parent == tmp_path and moved.name.startswith("state.db.broken-")
    assert moved.read_bytes() == original
    assert moved.with_name(moved.name + "-wal").read_bytes() == b"stale wal"
    assert not path.exists() and not path.with_name("state.db-wal").exists()
    store = SQLiteStore(path)
    assert store.update("s1", bump) == {"calls": 1}
    store.close()
    # Moving aside twice in one second still never overwrites the first copy.
    again = move_aside(path)
    assert again != moved and moved.exists() and again.exists()


def test_move_aside_of_a_missing_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no state file to move aside"):
        move_aside(tmp_path / "absent.db")


def test_gc_removes_only_sessions_idle_longer_than_ttl(tmp_path: Path) -> None:
    clock = Clock(T0 - 8 * DAY)
    store = SQLiteStore(tmp_path / "state.db", ttl_days=7, gc_probability=0, clock=clock)
    store.update("old", bump)
    clock.now = T0 - 6 * DAY
    store.update("recent", bump)
    clock.now = T0
    store.update("new", bump)
    assert store.gc() == 1
    assert [s.session_id for s in store.sessions()] == ["new", "recent"]
    assert store.load("old") is None
    assert store.gc() == 0


def test_gc_with_ttl_zero_keeps_everything(tmp_path: Path) -> None:
    clock = Clock(T0 - 400 * DAY)
    store = SQLiteStore(tmp_path / "state.db", ttl_days=0, clock=clock)
    store.update("ancient", bump)
    clock.now = T0
    assert store.gc() == 0
    assert store.load("ancient") == {"calls": 1}


def test_updates_sweep_at_most_once_per_interval(tmp_path: Path) -> None:
    clock = Clock(T0 - 30 * DAY)
    # Probability 1 makes every update consider a sweep; the interval must still hold it back.
    store = SQLiteStore(
        tmp_path / "state.db", ttl_days=7, gc_probability=1.0, gc_interval=600, clock=clock
    )
    store.update("stale-1", bump)
    store.update("stale-2", bump)
    clock.now = T0
    store.update("live", bump)  # first update in a month: sweeps both stale sessions
    assert sorted(s.session_id for s in store.sessions()) == ["live"]
    clock.now = T0 - 30 * DAY
    store.update("stale-3", bump)  # written "long ago" (the clock is ours to move)
    clock.now = T0 + 300
    store.update("live", bump)  # 5 minutes after the last sweep: no sweep
    assert store.load("stale-3") == {"calls": 1}
    clock.now = T0 + 601
    store.update("live", bump)  # past the interval: sweeps again
    assert store.load("stale-3") is None
    assert store.load("live") == {"calls": 3}


def test_updates_never_sweep_with_probability_zero(tmp_path: Path) -> None:
    clock = Clock(T0 - 30 * DAY)
    store = SQLiteStore(tmp_path / "state.db", ttl_days=7, gc_probability=0, clock=clock)
    store.update("stale", bump)
    clock.now = T0
    for _ in range(50):
        store.update("live", bump)
    assert store.load("stale") == {"calls": 1}


_OPEN_AND_UPDATE = r"""
import sys, time
from tether.store.sqlite import SQLiteStore
start = float(sys.argv[2])
while time.time() < start:
    pass
store = SQLiteStore(sys.argv[1])
store.update("s", lambda st: {**(st or {}), "calls": (st or {}).get("calls", 0) + 1})
store.close()
"""


@pytest.mark.parametrize("round_", range(5))
def test_processes_opening_a_new_database_together_all_succeed(tmp_path: Path, round_: int) -> None:
    """The first hook calls of a session race to create the file and switch it to WAL."""
    import subprocess
    import sys
    import time

    path = tmp_path / f"state{round_}.db"
    start = time.time() + 1.0
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _OPEN_AND_UPDATE, str(path), str(start)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(16)
    ]
    errors = [p.communicate()[1] for p in procs if p.wait() != 0]
    assert errors == []
    assert SQLiteStore(path).load("s") == {"calls": 16}
