"""Read an overlay's upper layer: every path the sandboxed command created, changed or removed.

The lower layer is the host's root filesystem, untouched; the upper layer holds the seed
(``tether.verify.seed``: the fixture, fresh /tmp, /run, /home and /dev) plus exactly what the
command wrote. An entry is a change unless it is the seed's own entry, or a copy-up of a
lower file, whose type, mode, owner, size, content (SHA-256), link target and modification
time are all unchanged (a file opened for writing and left as it was: ``touched``). A
character device 0/0 is a whiteout (the lower path was removed); an opaque directory outside
the fresh ones replaced a lower directory and everything in it; a seed entry that is gone
was deleted. /dev is compared like everything else (area ``dev``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from tether.verify.seed import FRESH, Sig, sig

_OPAQUE = "trusted.overlay.opaque"


class Change(NamedTuple):
    """One path the command changed: ``kind`` is created, modified, deleted, replaced, mode,
    owner, mtime or refreshed (the git index rewritten with the same entries: a cache);
    ``area`` is git, work, home, tmp, dev or system."""

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
        if _under(path, "/dev"):
            return "dev"
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


def _opaque(path: Path) -> bool:
    try:
        return os.getxattr(path, _OPAQUE, follow_symlinks=False) == b"y"
    except OSError:
        return False


def _compare(now: Sig, was: Sig) -> str | None:
    """Return how an entry differs from what it was, or None if it does not."""
    if now.fmt != was.fmt:
        return "replaced"
    if now.target != was.target or (
        stat.S_ISREG(now.fmt) and (now.size, now.digest) != (was.size, was.digest)
    ):
        return "modified"
    if now.mode != was.mode:
        return "mode"
    if (now.uid, now.gid) != (was.uid, was.gid):
        return "owner"
    if not stat.S_ISDIR(now.fmt) and now.mtime_ns != was.mtime_ns:
        return "mtime"
    return None


def _fresh(path: str) -> bool:
    return any(_under(path, root) for root in FRESH)


def changes(
    upper: Path, seeded: dict[str, Sig], areas: Areas, skip: tuple[str, ...] = ()
) -> tuple[list[Change], list[str]]:
    """Return ``(changes, touched)`` recorded in an upper layer that started as ``seeded``.

    A path the seed put there is compared with the seed's signature (and reported deleted
    when it is gone); any other path under a fresh directory was created by the command;
    anything else is compared with the host's own file, the overlay's lower layer.
    ``skip`` names paths that belong to the sandbox itself (a mount point)."""
    found: list[Change] = []
    touched: list[str] = []
    seen: set[str] = set()
    for rel, st in _entries(upper):
        path = "/" + rel
        if any(_under(path, s) for s in skip):
            seen.add(path)
            continue
        up = upper / rel
        seen.add(path)
        if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
            if not _fresh(path):
                found.append(Change(path, "deleted", areas.of(path)))
            continue
        if path in seeded:
            was = seeded[path]
        elif _fresh(path):
            found.append(Change(path, "created", areas.of(path), _describe(up, st)))
            continue
        else:
            low = _lower(path)
            if low is None:
                found.append(Change(path, "created", areas.of(path), _describe(up, st)))
                continue
            if stat.S_ISDIR(st.st_mode) and _opaque(up):
                found.append(Change(path, "replaced", areas.of(path), "directory emptied"))
                continue
            was = sig(path, low)
        kind = _compare(sig(up, st), was)
        if kind is not None:
            found.append(Change(path, kind, areas.of(path), _describe(up, st)))
        elif not stat.S_ISDIR(st.st_mode) and path not in seeded:
            touched.append(path)
    for path in sorted(set(seeded) - seen):
        if not any(_under(path, s) for s in skip) and _parent_seen(path, seen, seeded):
            found.append(Change(path, "deleted", areas.of(path)))
    return found, touched


def _parent_seen(path: str, seen: set[str], seeded: dict[str, Sig]) -> bool:
    """Report a deleted seed entry once: at the topmost missing directory."""
    parent = path.rsplit("/", 1)[0] or "/"
    return parent == "/" or parent in seen or parent not in seeded


def _describe(path: Path, st: os.stat_result) -> str:
    if stat.S_ISLNK(st.st_mode):
        return f"symlink -> {os.readlink(path)}"
    if stat.S_ISDIR(st.st_mode):
        return f"directory {stat.filemode(st.st_mode)}"
    if stat.S_ISREG(st.st_mode):
        return f"{st.st_size} bytes {stat.filemode(st.st_mode)}"
    return stat.filemode(st.st_mode)
