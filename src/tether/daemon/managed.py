"""The managed daemon: ``python -I -m tether.daemon.managed``, started as root (by systemd).

It creates ``/run/tether`` (root's, 0755), binds the socket there, hands the socket file to
the daemon's user (0666: every local user may connect), drops to that user (no groups, its
own uid and gid), and only then listens: the kernel records the listener's credentials at
``listen``, so every hook reads the daemon's uid with ``SO_PEERCRED``, never root's. From then
on it cannot change the socket, the config or the code, only the state folders it owns.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
import sys

from tether.daemon import hook as wire
from tether.daemon.server import BACKLOG, Daemon, Managed
from tether.managed import RUN, SOCKET, STATE, USER, daemon_environ, read_record


def bind_as_root(path: str, uid: int, gid: int) -> tuple[socket.socket, int] | None:
    """Take the lock and bind ``path`` (as root); return the socket and lock, or None if taken."""
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o755, exist_ok=True)
    os.chown(folder, 0, 0)
    os.chmod(folder, 0o755)
    lock = os.open(os.path.join(folder, "tether.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(lock)
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            return None
        raise
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    os.chown(path, uid, gid)  # the hook believes the uid that owns the socket file
    os.chmod(path, 0o666)
    return listener, lock


def drop_to(uid: int, gid: int) -> None:
    """Become ``uid``/``gid`` for good (no supplementary groups); raise if root remains."""
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if os.getuid() == 0 or os.geteuid() == 0:
        raise RuntimeError("still root after dropping privileges")
    with contextlib.suppress(PermissionError):
        os.setuid(0)
        raise RuntimeError("could regain root after dropping privileges")


def main(argv: list[str] | None = None) -> int:
    """Run the managed daemon until stopped; return the exit status."""
    import pwd

    record = read_record()
    user = record.user if record is not None else USER
    path = record.socket if record is not None else SOCKET
    if os.geteuid() != 0:
        sys.stderr.write("tether managed daemon: start it as root (it drops to its own user)\n")
        return 2
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        sys.stderr.write(f"tether managed daemon: no user {user!r}; run tether install --managed\n")
        return 2
    bound = bind_as_root(path, entry.pw_uid, entry.pw_gid)
    if bound is None:
        sys.stderr.write(f"tether managed daemon: another one serves {path}\n")
        return 0
    listener, lock = bound
    drop_to(entry.pw_uid, entry.pw_gid)
    os.umask(0o077)
    listener.listen(BACKLOG)  # after the drop: SO_PEERCRED reports the daemon's uid
    environ = daemon_environ()
    os.environ.clear()
    os.environ.update(environ)
    with contextlib.suppress(OSError):
        os.chdir(STATE)
    daemon = Daemon(
        path,
        wire.package_root(wire.__file__),
        idle=float("inf"),
        managed=Managed(environ),
    )
    daemon.adopt(listener, lock)
    daemon.warm()
    try:
        daemon.serve()
    finally:
        daemon.close()
    return 0


__all__ = ["RUN", "bind_as_root", "drop_to", "main"]

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
