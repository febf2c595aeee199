"""A JSON cache of validated file layers, so a hook process never imports ruamel.yaml.

The cache key is the list of file paths; the entry is trusted only when every file's
``(mtime_ns, ctime_ns, size, inode)`` is unchanged, and so are the files that define what a
valid value is (schema.py, validate.py, constraints.py, load.py: their stat stands for the
schema version, so a new release or a local edit invalidates every entry). Checking that costs
a few stat calls; importing the schema to read a version number would cost a millisecond.
Entries are never written for a file modified in the last two seconds: a second write in the
same timestamp tick with the same size would otherwise go unnoticed (git's "racy clean" rule).
A broken, unreadable or unwritable cache is just a miss.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tether.config.paths import cache_dir

RACY_SECONDS = 2.0
FORMAT = 1  # bump when the entry layout changes
_HERE = os.path.dirname(os.path.abspath(__file__))  # no resolve(): it stats every parent
# Every file whose change can change a loaded config, defaults included: the detector
# thresholds' defaults live in loops/settings.py (an upgrade that changes one must not be
# served the old value from the cache).
_CODE = (
    "schema.py",
    "validate.py",
    "constraints.py",
    "load.py",
    "cache.py",
    os.path.join("..", "loops", "settings.py"),
)

Payload = dict[str, Any]


def _stat(path: Path | str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino]


def signature(files: list[tuple[str, Path, bool]]) -> list[Any]:
    """Return what must be unchanged for a cached entry of ``files`` to be trusted."""
    code = [_stat(os.path.join(_HERE, name)) for name in _CODE]
    return [FORMAT, code, [[layer, str(p), _stat(p)] for layer, p, _ in files]]


def _entry_path(environ: Mapping[str, str], files: list[tuple[str, Path, bool]]) -> Path:
    # crc32, not hashlib (whose OpenSSL import costs ~2 ms): a collision only shares an
    # entry, and the stored signature names the exact files, so it is a miss, never wrong.
    import zlib

    name = "\0".join(f"{layer}={p}" for layer, p, _ in files)
    digest = zlib.crc32(name.encode("utf-8", "surrogatepass"))
    return cache_dir(environ) / f"config-{digest:08x}.json"


def _racy(sig: list[Any]) -> bool:
    now = time.time_ns()
    return any(stat is not None and now - stat[0] < RACY_SECONDS * 1e9 for _, _, stat in sig[2])


def cached(
    files: list[tuple[str, Path, bool]],
    environ: Mapping[str, str],
    compute: Callable[[], Payload],
) -> Payload:
    """Return the cached payload for ``files`` if fresh, else ``compute()`` it and store it.

    ``compute`` raises on invalid files; nothing is cached then.
    """
    entry = _entry_path(environ, files)
    sig = signature(files)
    try:
        with open(entry, encoding="utf-8") as handle:
            stored = json.load(handle)
        if isinstance(stored, dict) and stored.get("sig") == sig:
            payload = stored.get("payload")
            if isinstance(payload, dict):
                return payload
    except (OSError, ValueError):
        pass
    payload = compute()
    if not _racy(sig) and signature(files) == sig:
        _store(entry, {"sig": sig, "payload": payload})
    return payload


def _store(entry: Path, data: Mapping[str, Any]) -> None:
    tmp = entry.with_name(f".{entry.name}.{os.getpid()}.tmp")
    try:
        # Private: values may include secrets (a Redis URL with a password).
        entry.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, ensure_ascii=False, separators=(",", ":"))
        os.replace(tmp, entry)
    except OSError:
        # A read-only or full cache directory must not break loading.
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def clear(environ: Mapping[str, str]) -> int:
    """Delete every cached config entry; return how many were removed."""
    removed = 0
    for entry in cache_dir(environ).glob("config-*.json"):
        try:
            entry.unlink()
            removed += 1
        except OSError:
            pass
    return removed


__all__ = ["RACY_SECONDS", "cached", "clear", "signature"]
