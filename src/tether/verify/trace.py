"""Read ``strace -f`` output: every process a command started and every destructive operation.

The sandbox runs the traced command under ``strace -f -v -xx -y -ttt`` (every string
hex-escaped, so nothing the command prints can forge a line boundary or a quote). A process
is a successful ``execve``/``execveat``: its pid, argv, working directory (followed through
``chdir``/``fchdir`` and inherited across ``clone``/``fork``) and environment. A destructive
operation is an unlink, rmdir, rename, truncate (``O_TRUNC`` included), chmod, chown, an
ACL or other extended attribute set or removed, mknod,
mount, a signal sent to another process, an open for writing of a device or of ``/proc/sys``,
or any open for writing the sandbox refused (the user is not root): recorded with its
absolute paths and its result (``0`` or the errno name), whether it succeeded or not. The
sandbox's own processes (``setpriv``, ``env``, ``script``: the first traced pid, and its
shell wrapper) are left out.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, NamedTuple

from tether.verify.seed import SHELL

_MAX_PROCESSES = 2000
_MAX_OPERATIONS = 5000
_LINE = re.compile(r"^(\d+)\s+[\d.]+\s+(.*)$")
_CALL = re.compile(r"^([a-z_0-9]+)\((.*)$", re.S)
_RESUMED = re.compile(r"^<\.\.\. ([a-z_0-9]+) resumed>(.*)$", re.S)
_RESULT = re.compile(r"\)\s+=\s+(-?\d+|\?)(?:\s+([A-Z][A-Z0-9_]*))?[^)]*\)?\s*$")
_HEX = re.compile(r"\\x([0-9a-fA-F]{2})")
_WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC")
_DENIED = ("EACCES", "EPERM", "EROFS")  # a write the sandbox refused: attempted all the same
# Opening these for writing is ordinary (a terminal, a pipe, nothing).
_HARMLESS_DEVICES = ("/dev/null", "/dev/tty", "/dev/zero", "/dev/full", "/dev/ptmx")
_HARMLESS_PREFIXES = ("/dev/pts/", "/dev/fd/", "/dev/shm/", "/proc/self/fd/", "/dev/std")
_DESTRUCTIVE = {
    "unlink": (0,), "unlinkat": (1,), "rmdir": (0,), "rename": (0, 1), "renameat": (1, 3),
    "renameat2": (1, 3), "truncate": (0,), "ftruncate": (0,), "chmod": (0,), "fchmod": (0,),
    "fchmodat": (1,), "fchmodat2": (1,), "chown": (0,), "fchown": (0,), "lchown": (0,),
    "fchownat": (1,), "mknod": (0,), "mknodat": (1,), "mount": (1,), "umount2": (0,),
    "setxattr": (0,), "lsetxattr": (0,), "fsetxattr": (0,), "removexattr": (0,),
    "lremovexattr": (0,), "fremovexattr": (0,),
}  # fmt: skip
# Arguments that are a directory fd for the path argument right after them.
_DIRFD = {"unlinkat": 0, "renameat": 0, "renameat2": 0, "fchmodat": 0, "fchmodat2": 0,
          "fchownat": 0, "mknodat": 0, "openat": 0, "openat2": 0}  # fmt: skip


class Process(NamedTuple):
    """One program the command started."""

    pid: int
    argv: tuple[str, ...]
    cwd: str
    env: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {"pid": self.pid, "argv": list(self.argv), "cwd": self.cwd, "env": list(self.env)}


class Operation(NamedTuple):
    """One destructive operation: the syscall, its absolute paths (or target), its result."""

    pid: int
    call: str
    paths: tuple[str, ...]
    result: str

    def to_json(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {
            "pid": self.pid,
            "call": self.call,
            "paths": list(self.paths),
            "result": self.result,
        }


class Trace(NamedTuple):
    """What the traced run did (``complete`` is False when a cap cut the lists short)."""

    processes: tuple[Process, ...]
    operations: tuple[Operation, ...]
    complete: bool = True

    def to_json(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {
            "processes": [p.to_json() for p in self.processes],
            "operations": [o.to_json() for o in self.operations],
            "complete": self.complete,
        }


def _decode(text: str) -> str:
    raw = _HEX.sub(lambda m: chr(int(m.group(1), 16)), text)
    return raw.encode("latin-1", "replace").decode("utf-8", "replace")


def _split(args: str) -> list[Any]:
    """Split strace's argument text into values: strings, lists of strings, raw tokens."""
    out: list[Any] = []
    i, n = 0, len(args)
    stack: list[list[Any]] = [out]
    token = ""
    while i < n:
        c = args[i]
        if c == '"':
            j = args.index('"', i + 1) if '"' in args[i + 1 :] else n
            stack[-1].append(_decode(args[i + 1 : j]))
            i = j + 1
            if args.startswith("...", i):
                i += 3
            continue
        if c == "[":
            new: list[Any] = []
            stack[-1].append(new)
            stack.append(new)
        elif c == "]" and len(stack) > 1:
            if token.strip():
                stack[-1].append(token.strip())
            token = ""
            stack.pop()
        elif c == "{":  # a struct: skip it whole
            depth = 0
            while i < n:
                depth += {"{": 1, "}": -1}.get(args[i], 0)
                if depth == 0:
                    break
                i += 1
            stack[-1].append("{}")
        elif c == ",":
            if token.strip():
                stack[-1].append(token.strip())
            token = ""
        else:
            token += c
        i += 1
    if token.strip():
        stack[-1].append(token.strip())
    return out


def _fd_path(value: Any) -> str | None:
    """Return the path of an fd argument printed by ``-y`` (``3</x>``), if it has one."""
    if isinstance(value, str):
        m = re.match(r"^(?:-?\d+|AT_FDCWD)<(.*)>$", value, re.S)
        if m:
            return _decode(m.group(1))
    return None


def _absolute(path: str, base: str) -> str:
    return os.path.normpath(os.path.join(base, path)) if path else base


class _Reader:
    def __init__(self, work: str) -> None:
        self.work = work
        self.cwd: dict[int, str] = {}
        self.root_pid: int | None = None
        self.processes: list[Process] = []
        self.operations: list[Operation] = []
        self.complete = True

    def event(self, pid: int, call: str, args: str, result: str, errno: str | None) -> None:
        if self.root_pid is None:
            self.root_pid = pid
        cwd = self.cwd.setdefault(pid, self.work)
        ok = result not in ("?",) and not result.startswith("-")
        values = _split(args)
        if call in ("clone", "clone3", "fork", "vfork"):
            if ok and result.isdigit():
                self.cwd[int(result)] = cwd
            return
        if call in ("execve", "execveat"):
            if result == "0" and pid != self.root_pid:
                self._exec(pid, call, values, cwd)
            return
        if call in ("chdir", "fchdir"):
            if result == "0" and values:
                where = _fd_path(values[0]) if call == "fchdir" else values[0]
                if isinstance(where, str):
                    self.cwd[pid] = _absolute(where, cwd)
            return
        if pid == self.root_pid:
            return
        status = result if ok else (errno or result)
        if call in ("kill", "tkill", "tgkill"):
            if values and values[0] not in ("0",) and str(values[0]) != str(pid):
                self._op(Operation(pid, call, (" ".join(map(str, values)),), status))
            return
        if call in ("open", "openat", "openat2", "creat"):
            self._open(pid, call, values, cwd, status)
            return
        if call == "reboot":
            self._op(Operation(pid, call, (), status))
            return
        if call in _DESTRUCTIVE:
            paths = tuple(self._path(call, values, k, cwd) for k in _DESTRUCTIVE[call])
            if call == "unlinkat" and len(values) > 2 and "AT_REMOVEDIR" in str(values[2]):
                call = "rmdir"
            self._op(Operation(pid, call, paths, status))

    def _path(self, call: str, values: list[Any], k: int, cwd: str) -> str:
        if k >= len(values):
            return "?"
        value = values[k]
        fd = _fd_path(value)
        if fd is not None:
            return fd
        if not isinstance(value, str):
            return "?"
        base = cwd
        if (k > 0 and call in _DIRFD) or (call in ("renameat", "renameat2") and k == 3):
            dir_path = _fd_path(values[k - 1])
            if dir_path is not None:
                base = dir_path
        return _absolute(value, base)

    def _open(self, pid: int, call: str, values: list[Any], cwd: str, status: str) -> None:
        k = 1 if call in ("openat", "openat2") else 0
        flags = str(values[k + 1]) if len(values) > k + 1 else ""
        if call != "creat" and not any(f in flags for f in _WRITE_FLAGS):
            return
        path = self._path(call, values, k, cwd)
        if path in _HARMLESS_DEVICES or path.startswith(_HARMLESS_PREFIXES):
            return
        if path.startswith(("/dev/", "/proc/sys/", "/sys/", "/proc/sysrq")) or status in _DENIED:
            self._op(Operation(pid, "open-write", (path,), status))
        elif "O_TRUNC" in flags or call == "creat":
            self._op(Operation(pid, "open-truncate", (path,), status))

    def _exec(self, pid: int, call: str, values: list[Any], cwd: str) -> None:
        k = 1 if call == "execveat" else 0
        argv = values[k + 1] if len(values) > k + 1 and isinstance(values[k + 1], list) else []
        env = values[k + 2] if len(values) > k + 2 and isinstance(values[k + 2], list) else []
        if values and values[0] == SHELL:
            return  # the sandbox's own shell wrapper, which execs bash -c COMMAND
        if len(self.processes) >= _MAX_PROCESSES:
            self.complete = False
            return
        self.processes.append(
            Process(pid, tuple(map(str, argv)), cwd, tuple(e for e in env if isinstance(e, str)))
        )

    def _op(self, op: Operation) -> None:
        if len(self.operations) >= _MAX_OPERATIONS:
            self.complete = False
            return
        self.operations.append(op)


def parse(text: str, work: str) -> Trace:
    """Return the processes and destructive operations of an ``strace -f`` log."""
    reader = _Reader(work)
    pending: dict[int, tuple[str, str]] = {}
    order: list[tuple[int, str, str, str, str | None] | int] = []
    slots: dict[int, int] = {}
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        pid, rest = int(m.group(1)), m.group(2)
        if rest.startswith(("+++", "---")):
            continue
        resumed = _RESUMED.match(rest)
        if resumed:
            if pid not in pending:
                continue
            call, head = pending.pop(pid)
            full = head + resumed.group(2)
            r = _RESULT.search(full)
            if r:
                order[slots.pop(pid)] = (pid, call, full[: r.start()], r.group(1), r.group(2))
            continue
        c = _CALL.match(rest)
        if not c:
            continue
        call, body = c.group(1), c.group(2)
        if body.endswith("<unfinished ...>"):
            pending[pid] = (call, body[: -len("<unfinished ...>")])
            slots[pid] = len(order)
            order.append(pid)
            continue
        r = _RESULT.search(body)
        if r:
            order.append((pid, call, body[: r.start()], r.group(1), r.group(2)))
    for item in order:
        if isinstance(item, tuple):
            reader.event(*item)
    return Trace(tuple(reader.processes), tuple(reader.operations), reader.complete)


def read(directory: Path, work: str) -> Trace:
    """Parse the trace strace wrote in a run's trace directory (empty if it wrote none)."""
    try:
        text = (directory / "trace").read_text(encoding="latin-1")
    except OSError:
        return Trace((), (), complete=False)
    return parse(text, work)
