"""Read an overlay's upper layer: every path the sandboxed command created, changed or removed.

The lower layer is the host's root filesystem, untouched; the upper layer holds exactly what
the command wrote. An entry there is a change unless it is a copy-up of a lower file whose
type, mode, owner, size, content (SHA-256), link target and modification time are all
unchanged (a file opened for writing and left as it was); those are listed as ``touched``.
A character device 0/0 is a whiteout (the lower path was removed); an opaque directory
replaced a lower directory and everything in it.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

_OPAQUE = "trusted.overlay.opaque"


class Change(NamedTuple):
    """One path the command changed: ``kind`` is created, modified, deleted, replaced, mode,
    owner or mtime; ``area`` is git, work, home, tmp or system."""

    path: str
    kind: str
    area: str
    detail: str = ""

    def to_json(self) -> dict[str, str]:
        """Return the JSON form."""
        return self._asdict()


class Areas(NamedTuple):
    """Where the fixture's parts are, to say what kind of place a changed path is."""

    work: str
    home: str
    tmp: str

    def of(self, path: str) -> str:
        """Return the area a path belongs to."""
        if _under(path, self.work + "/.git"):
            return "git"
        for name, root in (("work", self.work), ("home", self.home), ("tmp", self.tmp)):
            if _under(path, root):
                return name
        return "system"


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root + "/")


def _entries(top: Path) -> Iterator[tuple[str, os.stat_result]]:
    """Yield ``(relative path, lstat)`` for everything under ``top``, parents first."""
    stack = [""]
    while stack:
        rel = stack.pop()
        with os.scandir(top / rel if rel else top) as it:
            for entry in sorted(it, key=lambda e: e.name, reverse=True):
                child = f"{rel}/{entry.name}" if rel else entry.name
                st = entry.stat(follow_symlinks=False)
                yield child, st
                if stat.S_ISDIR(st.st_mode):
                    stack.append(child)


def _lower(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _opaque(path: Path) -> bool:
    try:
        return os.getxattr(path, _OPAQUE, follow_symlinks=False) == b"y"
    except OSError:
        return False


def _compare(up: Path, path: str, st: os.stat_result, low: os.stat_result) -> str | None:
    """Return how an upper entry differs from its lower file, or None if it does not."""
    if stat.S_IFMT(st.st_mode) != stat.S_IFMT(low.st_mode):
        return "replaced"
    if stat.S_ISLNK(st.st_mode):
        if os.readlink(up) != os.readlink(path):
            return "modified"
    elif stat.S_ISREG(st.st_mode) and (
        st.st_size != low.st_size or _sha256(str(up)) != _sha256(path)
    ):
        return "modified"
    if stat.S_IMODE(st.st_mode) != stat.S_IMODE(low.st_mode):
        return "mode"
    if (st.st_uid, st.st_gid) != (low.st_uid, low.st_gid):
        return "owner"
    if not stat.S_ISDIR(st.st_mode) and st.st_mtime_ns != low.st_mtime_ns:
        return "mtime"
    return None


def changes(upper: Path, shm: Path, areas: Areas) -> tuple[list[Change], list[str]]:
    """Return ``(changes, touched)`` recorded in an upper layer and the sandbox's /dev/shm."""
    found: list[Change] = []
    touched: list[str] = []
    for rel, st in _entries(upper):
        path = "/" + rel
        up = upper / rel
        low = _lower(path)
        if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
            found.append(Change(path, "deleted", areas.of(path)))
            continue
        if low is None:
            found.append(Change(path, "created", areas.of(path), _describe(up, st)))
            continue
        if stat.S_ISDIR(st.st_mode) and _opaque(up):
            found.append(Change(path, "replaced", areas.of(path), "directory emptied"))
            continue
        kind = _compare(up, path, st, low)
        if kind is not None:
            found.append(Change(path, kind, areas.of(path), _describe(up, st)))
        elif not stat.S_ISDIR(st.st_mode):
            touched.append(path)
    for rel, st in _entries(shm):
        path = "/dev/shm/" + rel
        found.append(Change(path, "created", "system", _describe(shm / rel, st)))
    return found, touched


def _describe(path: Path, st: os.stat_result) -> str:
    if stat.S_ISLNK(st.st_mode):
        return f"symlink -> {os.readlink(path)}"
    if stat.S_ISDIR(st.st_mode):
        return f"directory {stat.filemode(st.st_mode)}"
    if stat.S_ISREG(st.st_mode):
        return f"{st.st_size} bytes {stat.filemode(st.st_mode)}"
    return stat.filemode(st.st_mode)
