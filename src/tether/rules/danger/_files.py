"""Read a file a command will read, at judging time: SQL scripts given by ``-f FILE`` or ``< FILE``.

``psql -f migrate.sql`` runs what the file holds, so the file is the command. It is read from
the working tree the assessment was given (``Tree``: never the judging process's own
directory), only when it is a regular file of at most ``MAX_FILE_BYTES`` (a FIFO, a device or
``/dev/stdin`` is never opened for reading: that would block or consume someone's input), with
symlinks followed at most ``MAX_LINKS`` times. Anything else is "unreadable", and the caller
asks: a script Tether could not read is not a script it has judged.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from tether.rules.readonly.tree import Tree

MAX_FILE_BYTES = 64 * 1024
MAX_LINKS = 8


class FileText(NamedTuple):
    """A file's text, or why it was not read (``text`` None)."""

    path: str  # as the command spells it
    text: str | None
    why: str  # "" when read


def _follow(path: str) -> str | None:
    """Return ``path`` with its symlinks resolved (at most MAX_LINKS), or None past the bound."""
    for _ in range(MAX_LINKS + 1):
        head, tail = os.path.split(path)
        real_head = os.path.realpath(head)  # the directories: the kernel's own loop bound
        path = os.path.join(real_head, tail)
        if not os.path.islink(path):
            return path
        target = os.readlink(path)
        path = os.path.normpath(os.path.join(real_head, target))
    return None


def read_file(spelled: str, tree: Tree | None, cwd: str | None, budget: list[int]) -> FileText:
    """Read the file ``spelled`` names as a command running in ``cwd`` of ``tree`` would.

    ``cwd`` is the command's directory from the line (``"."``: the tree's, an absolute path
    after a ``cd``, None: unknown). ``budget`` holds the bytes this assessment may still read.
    """
    if tree is None:
        return FileText(spelled, None, "no working tree was given to read it from")
    if cwd is None:
        return FileText(spelled, None, "an earlier cd moved to a directory not known")
    if spelled.startswith("$") or "`" in spelled:
        return FileText(spelled, None, "its name is only known at run time")
    if spelled == "~" or spelled.startswith("~/"):
        spelled_path = tree.home + spelled[1:]
    else:
        spelled_path = spelled
    base = tree.cwd if cwd == "." else os.path.join(tree.cwd, cwd)
    path = os.path.normpath(os.path.join(base, spelled_path))
    try:
        real = _follow(path)
        if real is None:
            return FileText(spelled, None, f"more than {MAX_LINKS} symbolic links")
        st = os.stat(real)
        if not stat.S_ISREG(st.st_mode):
            return FileText(spelled, None, "not a regular file")
        if st.st_size > MAX_FILE_BYTES or st.st_size > budget[0]:
            return FileText(spelled, None, f"larger than {MAX_FILE_BYTES // 1024} KiB")
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return FileText(spelled, None, "not a regular file")
            data = os.read(fd, MAX_FILE_BYTES + 1)
        finally:
            os.close(fd)
    except OSError as e:
        return FileText(spelled, None, f"not readable ({e.strerror or e})")
    if len(data) > MAX_FILE_BYTES:
        return FileText(spelled, None, f"larger than {MAX_FILE_BYTES // 1024} KiB")
    budget[0] -= len(data)
    return FileText(spelled, data.decode("utf-8", "replace"), "")
