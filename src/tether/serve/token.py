"""The sidecar's per-install token: made once into a 0600 file, required on every request.

Loopback is not a boundary on its own: every local process, and every web page through the
browser, can reach ``127.0.0.1``. So ``tether serve`` and its clients (``tether doctor``, a
forwarder) share a random token kept in ``$XDG_STATE_HOME/tether/serve.token`` (mode 0600, in a 0700
directory), made by whichever runs first. A token given on the command line, in
``TETHER_SERVE_TOKEN`` or in ``serve.token`` takes its place.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from tether.errors import InputError

FILENAME = "serve.token"


def token_path(environ: Mapping[str, str] | None = None) -> Path:
    """Return where the per-install token lives (beside the state database)."""
    from tether.store.open import default_path

    return default_path(environ).parent / FILENAME


def read_token(path: Path) -> str:
    """Return the token in ``path`` ('' when there is none); refuse one others can read."""
    try:
        info = path.stat()
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise InputError(f"{path}: cannot read the sidecar token ({exc.strerror})") from None
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise InputError(
            f"{path}: the sidecar token is readable by other users (mode "
            f"{stat.S_IMODE(info.st_mode):04o}); delete the file to make a new token, then "
            "restart `tether serve` (its clients read the same file)"
        )
    return text


def load_or_create(environ: Mapping[str, str] | None = None) -> str:
    """Return the per-install token, creating its file (0600) on first use."""
    import secrets

    path = token_path(environ)
    found = read_token(path)
    if found:
        return found
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        token = secrets.token_urlsafe(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first: use that one
        return read_token(path)
    except OSError as exc:
        raise InputError(
            f"{path}: cannot create the sidecar token ({exc.strerror}); give one with "
            "TETHER_SERVE_TOKEN instead"
        ) from None
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(token + "\n")
    return token


__all__ = ["FILENAME", "load_or_create", "read_token", "token_path"]
