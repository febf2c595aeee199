"""Session state in one SQLite file: the default store for hook processes.

Every hook is a new process, so opening must be cheap (one ``connect`` and three PRAGMAs, the
schema created only when ``user_version`` says it is missing) and every read-modify-write must
be atomic across processes: ``update`` runs the caller's function inside ``BEGIN IMMEDIATE``,
which takes the write lock before reading, so two processes never both read the old value
(deferred ``BEGIN`` would fail the lock upgrade with SQLITE_BUSY instead of waiting; see
``../shared/reference/ecosystem.md`` section 4.4). WAL with ``synchronous=NORMAL`` keeps the
file consistent after a crash while costing one fsync per checkpoint, not per commit.

A file that is not a database, is damaged, is locked for too long or holds unreadable state
raises ``StoreError`` saying which file, what happened and what to do; hook adapters turn that
into a deny (fail closed). ``move_aside`` is what ``tether doctor --fix`` calls.
"""

from __future__ import annotations

import _thread
import contextlib
import json
import os
import sqlite3
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tether.errors import StoreError
from tether.store import SessionInfo, State, Updater, codec, halt_of, parts, with_halt

SCHEMA_VERSION = 2
# Every this many updates a session's log of deltas is folded into its parts.
COMPACT_EVERY = 64
CACHED_SESSIONS = 128
TOUCH_EVERY = 1.0  # seconds: `sessions.updated` (listing, TTL sweep) is kept to the second


class _Cached:
    """A session's decoded state as this process last wrote it, and what changed since a fold."""

    __slots__ = ("changed", "halt", "since", "state", "touched", "version")

    def __init__(self, version: int, state: State, halt: str, touched: float) -> None:
        self.version, self.state, self.halt, self.touched = version, state, halt, touched
        self.changed: set[str] = set()
        self.since = 0  # the version of the last fold this copy saw (0: unknown)

    def complete(self, upto: int) -> bool:
        """Return True when ``changed`` covers every update since the last fold."""
        return self.since > 0 and upto - self.since == COMPACT_EVERY


_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id      TEXT PRIMARY KEY,
    state   TEXT NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_updated ON sessions (updated);
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS parts (
    sid TEXT NOT NULL,
    k   TEXT NOT NULL,
    v   TEXT NOT NULL,
    PRIMARY KEY (sid, k)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS log (
    sid   TEXT NOT NULL,
    n     INTEGER NOT NULL,
    delta TEXT NOT NULL,
    PRIMARY KEY (sid, n)
) WITHOUT ROWID;
"""
# Halts, apart from the states: never swept by age (the TTL sweep skips halted sessions too), so
# neither a clock jump nor a long pause lifts one. Created when missing by any Tether that knows
# it; an older one ignores the table.
_HALTS = "CREATE TABLE IF NOT EXISTS halts (id TEXT PRIMARY KEY, message TEXT NOT NULL)"

_UPSERT = (
    "INSERT INTO sessions (id, state, updated) VALUES (?, ?, ?) "
    "ON CONFLICT (id) DO UPDATE SET state = excluded.state, updated = excluded.updated"
)
_TOUCH = (
    "INSERT INTO sessions (id, state, updated) VALUES (?, '', ?) "
    "ON CONFLICT (id) DO UPDATE SET updated = excluded.updated"
)
_PUT = "INSERT OR REPLACE INTO parts (sid, k, v) VALUES (?, ?, ?)"

_HALT_UPSERT = (
    "INSERT INTO halts (id, message) VALUES (?, ?) "
    "ON CONFLICT (id) DO UPDATE SET message = excluded.message"
)

_DOCTOR_HINT = "run 'tether doctor --fix' to move it aside (sessions' loop history is lost)"


class SQLiteStore:
    """Session state as JSON text per session in a WAL-mode SQLite file."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        ttl_days: float = 7,
        busy_timeout: float = 5.0,
        gc_probability: float = 1 / 32,
        gc_interval: float = 600.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path)
        self.location = str(self.path)
        self.ttl_days = ttl_days
        self.busy_timeout = busy_timeout
        # Garbage collection is gated twice: a cheap coin toss per update, then a timestamp in
        # the meta table, so a fleet of hook processes sweeps at most once per interval.
        self.gc_probability = gc_probability
        self.gc_interval = gc_interval
        self._clock = clock
        self._conn: sqlite3.Connection | None = None
        self._identity: tuple[int, int] | None = None  # (device, inode) of the open file
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        # One connection per store; threads of one process (a library user's thread pool)
        # take turns on it, since a connection holds one transaction at a time.
        self._lock = _thread.RLock()

    # -- connection -------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None:
            if _identity(self.path) == self._identity:
                return self._conn
            # The file under the open connection was replaced or moved away (`tether doctor
            # --fix` moving a corrupt one aside, a restored backup): a long-lived process
            # (the daemon, the sidecar) must read the file at the path, not the old one.
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None
            self._cache.clear()  # states decoded from the old file
        if not self.path.exists():
            self._create_file()
        try:
            # isolation_level=None: no implicit deferred BEGIN; we issue BEGIN IMMEDIATE.
            conn = sqlite3.connect(
                self.path, timeout=self.busy_timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise self._error("cannot be opened", exc) from exc
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
            if str(mode).lower() != "wal":
                mode = self._switch_to_wal(conn)
            if str(mode).lower() != "wal":
                raise StoreError(
                    f"{self.path}: cannot switch the database to WAL mode (got {mode!r}); "
                    "keep the state file on a local disk (WAL does not work over network "
                    "filesystems) or set store.path to a local file"
                )
            conn.execute("PRAGMA synchronous = NORMAL")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                self._migrate(conn, version)
            conn.execute(_HALTS)
        except sqlite3.Error as exc:
            conn.close()
            raise self._error("cannot be read", exc) from exc
        except StoreError:
            conn.close()
            raise
        self._conn = conn
        self._identity = _identity(self.path)
        return conn

    def _switch_to_wal(self, conn: sqlite3.Connection) -> str:
        """Switch a new database to WAL, retrying while another process does the same.

        Changing the journal mode needs an exclusive lock, and SQLite can answer "locked" at
        once instead of waiting in the busy handler when several processes open a new file
        together (the first hook calls of a session), so this waits out the busy timeout itself.
        """
        deadline = time.monotonic() + self.busy_timeout
        while True:
            try:
                return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() >= deadline:
                    raise
                time.sleep(0.01)

    def _create_file(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            # Create it ourselves so the mode is 0600 whatever the umask; SQLite gives the
            # -wal and -shm files the database file's mode.
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            os.close(fd)
        except OSError as exc:
            raise StoreError(
                f"{self.path}: cannot create the state file ({exc.strerror or exc}); "
                "check the directory's permissions or set store.path to a writable file"
            ) from exc

    def _migrate(self, conn: sqlite3.Connection, version: int) -> None:
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: state written by a newer Tether (schema {version}, this one "
                f"reads {SCHEMA_VERSION}); upgrade Tether or set store.path to another file"
            )
        # Schema 1 (one JSON state per session) reads on: its rows stay until a session is next
        # updated, when that session is written in parts (see update).
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _error(self, doing: str, exc: sqlite3.Error) -> StoreError:
        text = str(exc)
        lowered = text.lower()
        if "locked" in lowered or "busy" in lowered:
            return StoreError(
                f"{self.path}: the state database stayed locked for over "
                f"{self.busy_timeout:g}s ({text}); another process holds a long write "
                "transaction: find it with 'fuser' or 'lsof', or remove a stale copy on a "
                "network filesystem"
            )
        if isinstance(exc, sqlite3.DatabaseError) and (
            "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered
        ):
            return StoreError(
                f"{self.path}: the state database is corrupt ({text}); {_DOCTOR_HINT}"
            )
        if "unable to open" in lowered or "readonly" in lowered or "read-only" in lowered:
            return StoreError(
                f"{self.path}: the state database {doing} ({text}); check the file's and its "
                "directory's permissions, or set store.path to a writable file"
            )
        return StoreError(f"{self.path}: the state database {doing} ({text}); {_DOCTOR_HINT}")

    # -- Store protocol ---------------------------------------------------------------------

    def load(self, session_id: str) -> State | None:
        """Return the session's state (plain JSON values), or None when nothing is recorded."""
        with self._lock:
            conn = self._connect()
            state = self._read(conn, session_id)
            held = self._halt(conn, session_id)
        plain = None if state is None else json.loads(self._encode(session_id, state))
        return with_halt(plain, held)

    def _halt(self, conn: sqlite3.Connection, session_id: str) -> str:
        try:
            row = conn.execute("SELECT message FROM halts WHERE id = ?", (session_id,)).fetchone()
        except sqlite3.Error as exc:
            raise self._error("cannot be read", exc) from exc
        return str(row[0]) if row is not None else ""

    def _read(self, conn: sqlite3.Connection, session_id: str) -> State | None:
        """Return a session's state: its parts with the logged deltas applied, or a v1 row."""
        try:
            rows = conn.execute("SELECT k, v FROM parts WHERE sid = ?", (session_id,)).fetchall()
            deltas = conn.execute(
                "SELECT delta FROM log WHERE sid = ? ORDER BY n", (session_id,)
            ).fetchall()
            legacy = None
            if not rows and not deltas:
                legacy = conn.execute(
                    "SELECT state FROM sessions WHERE id = ?", (session_id,)
                ).fetchone()
        except sqlite3.Error as exc:
            raise self._error("cannot be read", exc) from exc
        if legacy is not None and legacy[0]:
            return self._decode(session_id, legacy[0])  # schema 1: one JSON state
        found = {k: self._value(session_id, v) for k, v in rows}
        for (delta,) in deltas:
            parts.apply(found, self._value(session_id, delta))
        if not found:
            return None
        head = found.get(parts.HEAD, {})
        if not isinstance(head, dict) or (not any(k.startswith("h/") for k in found) and not head):
            kind = type(head).__name__
            raise StoreError(
                f"{self.path}: session {session_id!r} holds a {kind}, expected a JSON object; "
                f"reset it with 'tether session reset {session_id}' or {_DOCTOR_HINT}"
            )
        return parts.assemble(found.items())

    def _value(self, session_id: str, text: str) -> Any:
        try:
            return json.loads(text)
        except ValueError as exc:
            raise StoreError(
                f"{self.path}: session {session_id!r} holds unreadable state ({exc}); reset it "
                f"with 'tether session reset {session_id}' or {_DOCTOR_HINT}"
            ) from exc

    def update(self, session_id: str, fn: Updater) -> State:
        """Run ``fn`` on the current state inside ``BEGIN IMMEDIATE``; store what changed.

        The state is kept in parts; a call writes one row holding the parts it changed (a
        delta) to the session's log, which is folded into the parts every ``COMPACT_EVERY``
        updates. The decoded state of recent sessions is kept in this process and reused
        while the session's log says nobody else wrote it since.
        """
        with self._lock:
            conn = self._connect()
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise self._error("cannot be written", exc) from exc
            try:
                new = self._update(conn, session_id, fn)
                conn.execute("COMMIT")
            except BaseException as exc:
                self._cache.pop(session_id, None)  # fn may have changed it half way
                # The caller's exception (or ours) wins; the rollback only releases the lock.
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise self._error("cannot be written", exc) from exc
                raise
            if self.gc_probability > 0 and _coin() < self.gc_probability:
                # Housekeeping must not fail an update that has already committed.
                with contextlib.suppress(StoreError):
                    self._maybe_gc()
        return new

    def _update(self, conn: sqlite3.Connection, session_id: str, fn: Updater) -> State:
        row = conn.execute("SELECT max(n) FROM log WHERE sid = ?", (session_id,)).fetchone()
        version = int(row[0] or 0)
        cached = self._cache.get(session_id)
        if cached is not None and cached.version == version and version:
            current: State | None = cached.state
            held = cached.halt
            self._cache.move_to_end(session_id)
        else:
            cached = None
            current = self._read(conn, session_id)
            held = self._halt(conn, session_id)
        given = with_halt(current, held)
        new = fn(given)
        delta = new.delta() if new is given and isinstance(new, parts.Tracked) else None
        version += 1
        if delta is None:  # a new or replaced state, or one read from schema 1: all of it
            self._rewrite(conn, session_id, new, version)
            cached = None
        else:
            conn.execute(
                "INSERT INTO log (sid, n, delta) VALUES (?, ?, ?)",
                (session_id, version, self._encode(session_id, delta)),
            )
        now = self._clock()
        if cached is None or now - cached.touched >= TOUCH_EVERY:
            conn.execute(_TOUCH, (session_id, now))
            touched = now
        else:
            touched = cached.touched
        halt = halt_of(new)
        if halt != held:
            if halt:
                conn.execute(_HALT_UPSERT, (session_id, halt))
            else:
                conn.execute("DELETE FROM halts WHERE id = ?", (session_id,))
        entry = self._remember(session_id, version, new, halt, touched, cached, delta)
        if version % COMPACT_EVERY == 0:
            self._compact(conn, session_id, version, entry)
        return new

    def _rewrite(self, conn: sqlite3.Connection, session_id: str, new: State, version: int) -> None:
        """Store the whole state in parts (a new session, a replaced or a schema 1 state)."""
        every = [(session_id, k, self._encode(session_id, v)) for k, v in parts.split(new).items()]
        conn.execute("DELETE FROM parts WHERE sid = ?", (session_id,))
        conn.execute("DELETE FROM log WHERE sid = ?", (session_id,))
        conn.executemany(_PUT, every)
        conn.execute(
            "INSERT INTO log (sid, n, delta) VALUES (?, ?, ?)",
            (session_id, version, '{"put":{},"del":[]}'),
        )
        conn.execute("UPDATE sessions SET state = '' WHERE id = ?", (session_id,))

    def _remember(
        self,
        session_id: str,
        version: int,
        state: State,
        halt: str,
        touched: float,
        cached: _Cached | None,
        delta: dict[str, Any] | None,
    ) -> _Cached:
        """Keep a session's decoded state for the next update in this process."""
        if not isinstance(state, parts.Tracked):
            state = parts.assemble(parts.split(state).items()) or parts.Tracked()
        state.settle()
        entry = _Cached(version, state, halt, touched)
        if cached is not None and delta is not None:  # parts changed since the last fold
            entry.changed, entry.since = cached.changed, cached.since
            entry.changed.update(delta["put"])
            entry.changed.update(delta["del"])
        self._cache[session_id] = entry
        self._cache.move_to_end(session_id)
        while len(self._cache) > CACHED_SESSIONS:
            self._cache.popitem(last=False)
        return entry

    def _compact(
        self, conn: sqlite3.Connection, session_id: str, upto: int, entry: _Cached
    ) -> None:
        """Fold the session's log into its parts (keeping the last delta as its version).

        With this process's copy of the state current since the last fold, the parts it changed
        are written from it; otherwise the logged deltas are read and folded.
        """
        if not entry.complete(upto):
            self._fold(conn, session_id, upto)
        else:
            now = parts.split(entry.state)
            conn.executemany(
                "DELETE FROM parts WHERE sid = ? AND k = ?",
                [(session_id, k) for k in entry.changed if k not in now],
            )
            changed = [k for k in entry.changed if k in now]
            conn.executemany(
                _PUT, [(session_id, k, self._encode(session_id, now[k])) for k in changed]
            )
        conn.execute("DELETE FROM log WHERE sid = ? AND n < ?", (session_id, upto))
        entry.changed = set()
        entry.since = upto

    def _fold(self, conn: sqlite3.Connection, session_id: str, upto: int) -> None:
        folded: dict[str, Any] = {}
        gone: set[str] = set()
        for (text,) in conn.execute(
            "SELECT delta FROM log WHERE sid = ? AND n <= ? ORDER BY n", (session_id, upto)
        ).fetchall():
            delta = self._value(session_id, text)
            for name in delta.get("del", ()):
                folded.pop(name, None)
                gone.add(name)
            for name, value in delta.get("put", {}).items():
                folded[name] = value
                gone.discard(name)
        conn.executemany(
            "DELETE FROM parts WHERE sid = ? AND k = ?", [(session_id, k) for k in gone]
        )
        conn.executemany(
            _PUT, [(session_id, k, self._encode(session_id, v)) for k, v in folded.items()]
        )

    def delete(self, session_id: str) -> bool:
        """Forget a session; return whether it existed."""
        with self._lock:
            conn = self._connect()
            self._cache.pop(session_id, None)
            try:
                conn.execute("BEGIN IMMEDIATE")
                halts = conn.execute("DELETE FROM halts WHERE id = ?", (session_id,)).rowcount
                conn.execute("DELETE FROM parts WHERE sid = ?", (session_id,))
                conn.execute("DELETE FROM log WHERE sid = ?", (session_id,))
                cursor = conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise self._error("cannot be written", exc) from exc
        return cursor.rowcount > 0 or halts > 0

    def sessions(self) -> list[SessionInfo]:
        """Return the sessions recorded, most recently updated first."""
        with self._lock:
            conn = self._connect()
            try:
                rows = conn.execute(
                    "SELECT id, updated, length(state) + coalesce((SELECT sum(length(v)) "
                    "FROM parts WHERE sid = id), 0) FROM sessions ORDER BY updated DESC, id"
                ).fetchall()
            except sqlite3.Error as exc:
                raise self._error("cannot be read", exc) from exc
        return [SessionInfo(str(sid), float(updated), int(size)) for sid, updated, size in rows]

    def close(self) -> None:
        """Close the connection; the next call reopens it."""
        with self._lock:
            self._cache.clear()
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- maintenance ------------------------------------------------------------------------

    def gc(self, now: float | None = None) -> int:
        """Delete sessions not updated for ``ttl_days``; return how many were removed."""
        if self.ttl_days <= 0:
            return 0
        now = self._clock() if now is None else now
        with self._lock:
            return self._sweep(now)

    def _sweep(self, now: float) -> int:
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                cursor = conn.execute(
                    "DELETE FROM sessions WHERE updated < ? AND id NOT IN (SELECT id FROM halts)",
                    (now - self.ttl_days * 86400,),
                )
                for table in ("parts", "log"):  # what the swept sessions kept in parts
                    conn.execute(f"DELETE FROM {table} WHERE sid NOT IN (SELECT id FROM sessions)")
                self._cache.clear()
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('last_gc', ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (repr(now),),
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            # PASSIVE never waits for readers, so a sweep cannot stall a hook.
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as exc:
            raise self._error("cannot be cleaned up", exc) from exc
        return int(cursor.rowcount)

    def _maybe_gc(self) -> None:
        conn = self._connect()
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'last_gc'").fetchone()
        except sqlite3.Error as exc:
            raise self._error("cannot be read", exc) from exc
        last = float(row[0]) if row else 0.0
        if self._clock() - last >= self.gc_interval:
            self.gc()

    # -- encoding ---------------------------------------------------------------------------

    def _decode(self, session_id: str, text: str) -> State:
        return codec.decode(text, str(self.path), session_id, f" or {_DOCTOR_HINT}")

    def _encode(self, session_id: str, state: State) -> str:
        return codec.encode(session_id, state)


def _identity(path: Path) -> tuple[int, int] | None:
    """Return the (device, inode) of the file at ``path``, or None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _coin() -> float:
    """Return a uniform float in [0, 1); os.urandom spares the hook the import of random."""
    return int.from_bytes(os.urandom(4), "big") / 2**32


def move_aside(path: str | os.PathLike[str]) -> Path:
    """Rename a broken state file (and its -wal/-shm files) aside; return the new path."""
    source = Path(path)
    if not source.exists():
        raise StoreError(f"{source}: no state file to move aside")
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = source.with_name(f"{source.name}.broken-{stamp}")
    counter = 1
    while target.exists():
        target = source.with_name(f"{source.name}.broken-{stamp}-{counter}")
        counter += 1
    try:
        source.rename(target)
        for suffix in ("-wal", "-shm"):
            side = source.with_name(source.name + suffix)
            if side.exists():
                side.rename(target.with_name(target.name + suffix))
    except OSError as exc:
        raise StoreError(
            f"{source}: cannot move the state file aside to {target} ({exc.strerror or exc}); "
            "check the directory's permissions, or delete the file by hand"
        ) from exc
    return target
