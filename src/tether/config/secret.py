"""The per-user key that authenticates config cache entries and trust records.

32 random bytes, hex, in ``$XDG_STATE_HOME/tether/cache.key``, created on first use with mode
0600. A key file that is not a regular file owned by this user with no group or other access
could have been planted or read, so it is replaced by a new one: every cache entry is then
rebuilt and every trust record must be made again (fail closed).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Mapping

from tether.config.paths import key_file

KEY_BYTES = 32


def private(st: os.stat_result) -> bool:
    """Return whether a file is a regular file of this user that no one else can open."""
    uid = getattr(os, "getuid", None)
    owned = uid is None or st.st_uid == uid()
    return stat.S_ISREG(st.st_mode) and owned and not st.st_mode & 0o077


def read_private(path: str, limit: int) -> bytes | None:
    """Return a private file's content, or None if absent, not private or over ``limit`` bytes.

    Symbolic links are not followed, and the checks apply to the file actually opened.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not private(st) or st.st_size > limit:
            return None
        # Sized by fstat: read(limit) would allocate the whole limit on every hook call.
        chunks, size = [], st.st_size + 1
        while size > 0:
            chunk = os.read(fd, size)
            if not chunk:
                break
            chunks.append(chunk)
            size -= len(chunk)
        data = b"".join(chunks)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


def load_key(environ: Mapping[str, str], *, create: bool = True) -> bytes | None:
    """Return this user's key, creating (or replacing an untrustworthy) one when ``create``."""
    path = str(key_file(environ))
    key = load_key_if_good(path)
    if key is not None or not create:
        return key
    return _new_key(path)


def _new_key(path: str) -> bytes | None:
    key = os.urandom(KEY_BYTES)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(key.hex().encode("ascii"))
        if os.path.exists(path):
            # Another process may have just created a good key: use it rather than replace it.
            existing = load_key_if_good(path)
            if existing is not None:
                os.unlink(tmp)
                return existing
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return None  # no key: nothing is cached or trusted, everything is read from the files
    return key


def load_key_if_good(path: str) -> bytes | None:
    """Return the key in ``path`` if it is private and well formed, else None."""
    data = read_private(path, 4 * KEY_BYTES)
    if data is None or len(data) != 2 * KEY_BYTES:
        return None
    try:
        return bytes.fromhex(data.decode("ascii"))
    except ValueError:
        return None


__all__ = ["KEY_BYTES", "load_key", "private", "read_private"]
