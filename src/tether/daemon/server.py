"""The per-user daemon: answers hook events relayed by ``tether/daemon/hook.py`` over a socket.

One per user and installation (the socket's name hashes the hook file's path and the Python
version, so two Tether versions side by side each get their own). It keeps the classifier
and the rule catalogues imported, loads the config per event (the config cache notices edited
files) and keeps no state of its own: every decision goes through the configured store, so
killing it at any moment loses nothing. It exits after ``IDLE_SECONDS`` without events, and
declines events (the client answers them itself) as soon as its code on disk changed, then
exits so that the next call starts a fresh one.

A lock file held for the daemon's lifetime makes it one per socket: a second one started at
the same moment exits at once, and a socket file left by a killed daemon is replaced.

Who may ask: the socket sits in a 0700 folder of the user's own, and on Linux every connection's
peer is checked with ``SO_PEERCRED``: a process of another uid (root, or anyone with
``CAP_DAC_OVERRIDE`` who got past the folder) gets exit status 2 and the reason, a block on
every host, and is never answered. At most ``MAX_CONNECTIONS`` connections are served at once;
one beyond that is told to answer the event itself (the client's in-process path: the same
decision, a Python start slower), never allowed unchecked.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import json
import os
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether.daemon import hook as wire
from tether.errors import TetherError

if TYPE_CHECKING:
    from tether.config.core import Config

IDLE_SECONDS = float(os.environ.get("TETHER_DAEMON_IDLE", "900"))
CODE_CHECK_SECONDS = 1.0
BACKLOG = 128
# Connections answered at once, each on its own thread.
MAX_CONNECTIONS = max(1, int(os.environ.get("TETHER_DAEMON_MAX_CONNECTIONS", "64")))
REFUSED_EXIT = 2  # a peer of another uid: a block on every host
REPLY_MARGIN = 0.5  # seconds: a reply must reach the hook before it stops waiting
DEADLINE_ENV = "TETHER_HOOKS__DEADLINE"


class DaemonError(TetherError):
    """The daemon cannot run here (its socket directory is unusable, …)."""


class Managed:
    """What a managed (system) daemon does differently: see ``tether.daemon.managed``.

    It answers every local uid, keeping each uid's sessions apart; reads its configuration and
    state with ``environ`` (the administrator's files, owned by root and the daemon's user),
    and of a caller's environment only where the caller's files are (to judge paths), never
    its ``TETHER_*`` settings; only root may stop it.
    """

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = dict(environ)


class UidStore:
    """One store seen by one uid: its session ids are kept apart from every other uid's."""

    def __init__(self, store: Any, uid: int) -> None:
        self._store = store
        self._prefix = f"uid{uid}/"

    def load(self, session_id: str) -> Any:
        """Return this uid's session state."""
        return self._store.load(self._prefix + session_id)

    def update(self, session_id: str, fn: Any) -> Any:
        """Update this uid's session atomically."""
        return self._store.update(self._prefix + session_id, fn)

    def delete(self, session_id: str) -> bool:
        """Forget this uid's session."""
        return bool(self._store.delete(self._prefix + session_id))

    def sessions(self) -> list[Any]:
        """Return this uid's sessions."""
        from tether.store import SessionInfo

        n = len(self._prefix)
        return [
            SessionInfo(s.session_id[n:], s.updated, s.size)
            for s in self._store.sessions()
            if s.session_id.startswith(self._prefix)
        ]

    def close(self) -> None:
        """Leave the shared store open (the daemon closes it)."""


def prepare_dir(folder: str) -> None:
    """Create the socket folder 0700 or refuse one that is not the user's own and closed."""
    path = Path(folder)
    if not path.exists():
        try:
            path.mkdir(mode=0o700, parents=True)
        except OSError as exc:
            raise DaemonError(f"cannot create the socket directory {folder}: {exc}") from None
    problem = wire.dir_problem(folder)
    if problem is not None:
        raise DaemonError(f"socket directory unusable: {problem}")


def code_snapshot(root: str) -> tuple[tuple[str, int, int], ...]:
    """Return (path, mtime, size) of every module of the tether package under ``root``."""
    rows = []
    for folder, _, files in os.walk(os.path.join(root, "tether")):
        for name in files:
            if name.endswith(".py"):
                full = os.path.join(folder, name)
                with contextlib.suppress(OSError):
                    st = os.stat(full)
                    rows.append((full, st.st_mtime_ns, st.st_size))
    return tuple(sorted(rows))


class Daemon:
    """The listening socket, the accept loop and the bookkeeping for status and idling."""

    def __init__(
        self,
        path: str,
        root: str,
        *,
        idle: float = IDLE_SECONDS,
        max_connections: int = MAX_CONNECTIONS,
        owner: int | None = None,
        managed: Managed | None = None,
    ) -> None:
        self.path = path
        self.owner = os.getuid() if owner is None else owner  # the only uid answered
        self.managed = managed  # a system daemon: every uid answered, each apart
        self._slots = threading.BoundedSemaphore(max_connections)
        self.refused = 0  # connections from another uid
        self.busy = 0  # connections beyond max_connections, handed back to their client
        self.expired = 0  # events read after their hook stopped waiting: never judged
        self.root = root
        self.idle = idle
        self.started = time.time()
        self.last = time.monotonic()
        self.served = 0
        self.stopping = threading.Event()
        self.snapshot = code_snapshot(root)
        self.checked = time.monotonic()
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._lockfile: int | None = None
        self._inode = 0
        self._stores: dict[tuple[object, ...], Any] = {}

    def version(self) -> str:
        """Return the installed Tether version."""
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("tether")
        except PackageNotFoundError:
            return "unknown"

    def adopt(self, listener: socket.socket, lockfile: int) -> None:
        """Serve on a socket made elsewhere (the managed daemon binds as root, then drops)."""
        self._lockfile = lockfile
        self._inode = os.stat(self.path).st_ino
        listener.settimeout(1.0)
        self._listener = listener

    def bind(self) -> bool:
        """Take the lock and the socket; return False when another daemon holds them."""
        prepare_dir(os.path.dirname(self.path))
        fd = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EAGAIN, errno.EACCES):
                return False
            raise
        self._lockfile = fd
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)  # we hold the lock: whatever is there is stale
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(self.path)
        except OSError as exc:
            listener.close()
            raise DaemonError(f"cannot listen on {self.path}: {exc}") from None
        os.chmod(self.path, 0o600)
        self._inode = os.stat(self.path).st_ino
        listener.listen(BACKLOG)
        listener.settimeout(1.0)
        self._listener = listener
        return True

    def warm(self) -> None:
        """Import and exercise the classifier so the first event is as fast as the rest."""
        from tether.classify import classify_command
        from tether.hosts import runner  # noqa: F401  (imported for the first event)

        classify_command("git status --short | head -5")

    def serve(self) -> None:
        """Accept connections until stopped or idle; each is answered on its own thread."""
        assert self._listener is not None
        while not self.stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                if time.monotonic() - self.last > self.idle or not self._still_ours():
                    break
                continue
            except OSError:
                if self.stopping.is_set():
                    break
                raise
            self.last = time.monotonic()
            problem = self.peer_problem(conn)
            if problem is not None:
                self._turn_away(conn, REFUSED_EXIT, problem)
                continue
            if not self._slots.acquire(blocking=False):
                # A managed daemon's hook cannot answer the event itself: over the cap, a block.
                code = REFUSED_EXIT if self.managed else wire.RETRY_EXIT
                reason = "too many calls at once" if self.managed else ""
                self._turn_away(conn, code, reason)
                continue
            threading.Thread(target=self._handle_in_slot, args=(conn,), daemon=True).start()
        self.close()

    def peer_problem(self, conn: socket.socket) -> str | None:
        """Return why the process at the other end of ``conn`` must not be answered, or None."""
        option = getattr(socket, "SO_PEERCRED", None)
        if option is None:  # not Linux: the 0700 folder is the guard
            return None
        try:
            raw = conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
            pid, uid, _ = struct.unpack("3i", raw)
        except OSError as exc:
            return f"cannot read the caller's credentials ({exc})"
        if self.managed is not None:
            return None  # every local user; each uid's sessions are its own (UidStore)
        if uid != self.owner:
            return (
                f"refused a connection from uid {uid} (pid {pid}): this daemon answers uid "
                f"{self.owner} only"
            )
        return None

    def _turn_away(self, conn: socket.socket, code: int, reason: str) -> None:
        """Answer ``conn`` without a decision: a refusal, or "answer it yourself" (over the cap)."""
        with self._lock:
            if code == wire.RETRY_EXIT:
                self.busy += 1
            else:
                self.refused += 1
        # Read what the client sent first: closing on unread data resets the reply, and a client
        # still sending would get SIGPIPE (the hook turns that into a block, not its own answer).
        drain(conn)
        with contextlib.suppress(OSError):
            conn.settimeout(1.0)
            err = f"tether daemon: {reason}; blocking this call\n".encode() if reason else b""
            send(conn, code, b"", err)
        with contextlib.suppress(OSError):
            conn.close()

    def _handle_in_slot(self, conn: socket.socket) -> None:
        try:
            self.handle(conn)
        finally:
            self._slots.release()

    @staticmethod
    def caller_uid(conn: socket.socket) -> int:
        """Return the uid of the process at the other end of ``conn`` (-1 when unknown)."""
        option = getattr(socket, "SO_PEERCRED", None)
        if option is None:
            return -1
        try:
            raw = conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
        except OSError:
            return -1
        return int(struct.unpack("3i", raw)[1])

    def _still_ours(self) -> bool:
        # The socket file removed (its folder cleaned up, a test's temporary home deleted):
        # nobody can reach this daemon any more.
        try:
            return os.stat(self.path).st_ino == self._inode
        except OSError:
            return False

    def close(self) -> None:
        """Stop listening and remove the socket (only ours: we still hold the lock)."""
        self.stopping.set()
        if self._listener is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            self._listener.close()
            self._listener = None
        with self._lock:
            stores, self._stores = list(self._stores.values()), {}
        for store in stores:
            with contextlib.suppress(Exception):
                store.close()
        if self._lockfile is not None:
            os.close(self._lockfile)
            self._lockfile = None

    def code_changed(self) -> bool:
        """Return whether the package on disk differs from the code this process runs."""
        now = time.monotonic()
        with self._lock:
            if now - self.checked < CODE_CHECK_SECONDS:
                return False
            self.checked = now
        return code_snapshot(self.root) != self.snapshot

    def store(self, config: Config, environ: Mapping[str, str] | None) -> Any:
        """Return the open store ``config`` names, opening it the first time it is asked for."""
        from tether.store.open import open_store, sqlite_path

        backend = config.get("store.backend")
        where = sqlite_path(config, environ) if backend == "sqlite" else config.get("store.url")
        key = (backend, str(where), config.get("store.key_prefix"), config.get("store.ttl_days"))
        with self._lock:
            store = self._stores.get(key)
            if store is None:
                store = self._stores[key] = open_store(config, environ=environ)
            return store

    def status(self) -> dict[str, object]:
        """Return what ``tether daemon status`` prints."""
        return {
            "pid": os.getpid(),
            "version": self.version(),
            "root": self.root,
            "socket": self.path,
            "started": self.started,
            "served": self.served,
            "refused": self.refused,
            "busy": self.busy,
            "expired": self.expired,
            "idle_timeout": self.idle,
            "python": sys.executable,
            "mode": "managed" if self.managed else "user",
            "uid": os.getuid(),
        }

    # -- one connection ------------------------------------------------------------------

    def handle(self, conn: socket.socket) -> None:
        """Read one request, answer it, close the connection."""
        try:
            conn.settimeout(30.0)
            kind, fields, payload = read_request(conn)
            if kind == "status":
                send(conn, 0, json.dumps(self.status()).encode(), b"")
            elif kind == "stop":
                if self.managed is not None and self.caller_uid(conn) != 0:
                    send(conn, REFUSED_EXIT, b"", b"only root stops the managed daemon\n")
                    return
                send(conn, 0, b"stopping\n", b"")
                self.stop()
            elif kind == "hook":
                self.hook(conn, fields, payload)
            else:
                send(conn, wire.RETRY_EXIT, b"", b"")
        except Exception:  # a broken client: it answers in-process on a short reply
            with contextlib.suppress(OSError):
                send(conn, wire.RETRY_EXIT, b"", b"")
        finally:
            with contextlib.suppress(OSError):
                conn.close()

    def stop(self) -> None:
        """Stop accepting; the accept loop notices within a second."""
        self.stopping.set()

    def hook(self, conn: socket.socket, fields: list[bytes], payload: bytes) -> None:
        """Answer a relayed hook event with the runner, exactly as ``tether hook HOST``."""
        if self.code_changed():
            send(conn, wire.RETRY_EXIT, b"", b"")
            self.stop()
            return
        from tether.hosts.runner import initial_deadline, run_hook

        host = fields[0].decode() if fields else ""
        cwd = fields[1].decode("utf-8", "surrogateescape") if len(fields) > 1 else ""
        gives_up, entries = client_deadline(fields[2:])
        left = gives_up - time.monotonic() - REPLY_MARGIN if gives_up is not None else None
        if left is not None and left <= 0:
            # The hook gave up on this event (and blocked the call) while it waited in the
            # queue (this daemon stopped or swamped): the call never ran, so it is neither
            # judged nor counted. The reply, if anyone still reads it, is a block.
            with self._lock:
                self.expired += 1
            send(conn, REFUSED_EXIT, b"", b"tether daemon: the event came too late; blocked\n")
            return
        caller: dict[str, str] = {}
        for entry in entries:
            key, _, value = entry.decode("utf-8", "surrogateescape").partition("=")
            caller[key] = value
        agent: dict[str, str] | None = None
        stores: Callable[[Any, Mapping[str, str] | None], Any] = self.store
        if self.managed is not None:
            # The administrator's config and state; of the caller's environment only where
            # its files are (for the self-protection rules), never its TETHER_* settings.
            environ = dict(self.managed.environ)
            managed_prefixes = tuple(p.decode() for p in wire.MANAGED_ENV_PREFIXES)
            agent = {k: v for k, v in caller.items() if k.startswith(managed_prefixes)}
            agent["PWD"] = cwd
            uid = self.caller_uid(conn)

            def stores(config: Any, env: Mapping[str, str] | None) -> Any:
                return UidStore(self.store(config, env), uid)
        else:
            environ = dict(os.environ)
            prefixes = tuple(p.decode() for p in wire.ENV_PREFIXES)
            for key in [k for k in environ if k.startswith(prefixes)]:
                del environ[key]  # the caller's view of these, not the daemon's
            environ.update(caller)
        environ["PWD"] = cwd
        if left is not None and left < initial_deadline(environ):
            # Less time left than the runner's deadline: deny at the hook's own deadline,
            # not after the hook stopped listening.
            environ[DEADLINE_ENV] = f"{max(left, 0.1):.3f}"
        out, err = io.StringIO(), io.StringIO()
        sent = threading.Lock()

        def reply(code: int) -> None:
            if sent.acquire(blocking=False):
                send(conn, code, out.getvalue().encode(), err.getvalue().encode())

        code = run_hook(
            host,
            stdin=io.BytesIO(payload),
            stdout=out,
            stderr=err,
            environ=environ,
            exit_on_deadline=reply,  # the watchdog's deny goes out at once
            stores=stores,
            agent_environ=agent,
        )
        reply(code)
        with self._lock:
            self.served += 1


def client_deadline(fields: list[bytes]) -> tuple[float | None, list[bytes]]:
    """Return when the hook stops waiting (its monotonic clock) and the environment entries."""
    if fields and fields[0].startswith(wire.DEADLINE_FIELD + b"="):
        try:
            return float(fields[0].partition(b"=")[2]), fields[1:]
        except ValueError:
            return None, fields[1:]
    return None, fields


def read_request(conn: socket.socket) -> tuple[str, list[bytes], bytes]:
    """Read a request to EOF; return its kind, header fields and payload."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = conn.recv(262144)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > wire.MAX_INPUT + 65536:
            raise ValueError("request too large")
    raw = b"".join(chunks)
    head, sep, rest = raw.partition(b"\n")
    parts = head.split(b" ")
    if not sep or len(parts) != 3 or parts[0] != wire.MAGIC:
        raise ValueError("not a Tether request")
    length = int(parts[2])
    header, payload = rest[:length], rest[length:]
    fields = header.split(b"\0") if header else []
    return parts[1].decode(), fields, payload


def drain(conn: socket.socket, limit: int = 65536, seconds: float = 0.2) -> None:
    """Read and drop what the client sent, up to ``limit`` bytes or ``seconds``, whichever first."""
    end = time.monotonic() + seconds
    got = 0
    with contextlib.suppress(OSError):
        while got < limit:
            left = end - time.monotonic()
            if left <= 0:
                break
            conn.settimeout(left)
            chunk = conn.recv(65536)
            if not chunk:
                break
            got += len(chunk)


def send(conn: socket.socket, code: int, out: bytes, err: bytes) -> None:
    """Send one reply."""
    conn.sendall(b"%d %d %d\n" % (code, len(out), len(err)) + out + err)


def check_installs() -> None:
    """Point hook entries whose hook file is gone (this environment reinstalled) back here.

    Run once per daemon start, off the accept loop: ``pip install .``, ``tether install``,
    then ``pip install -e .`` leaves the hosts' settings naming a file that no longer exists,
    and every call blocked (``tether.hosts.installed``).
    """
    with contextlib.suppress(Exception):  # a check, never a reason for the daemon to fail
        from tether.hosts.installed import heal

        heal()


def main(path: str, *, on_ready: Callable[[], None] | None = None) -> int:
    """Run the daemon for the socket at ``path`` until it is stopped or idle."""
    root = wire.package_root(wire.__file__)
    daemon = Daemon(path, root)
    try:
        if not daemon.bind():
            return 0  # another daemon serves this socket
    except (DaemonError, OSError) as exc:
        sys.stderr.write(f"tether daemon: {exc}\n")
        return 1
    daemon.warm()
    threading.Thread(target=check_installs, name="tether-installs", daemon=True).start()
    with contextlib.suppress(OSError):
        # Started: the next client that finds no daemon (this one killed) may start one at once.
        os.unlink(path + ".start")
    if on_ready is not None:
        on_ready()
    try:
        daemon.serve()
    finally:
        daemon.close()
    return 0
