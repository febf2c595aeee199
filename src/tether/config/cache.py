"""A JSON cache of validated file layers, so a hook process never imports ruamel.yaml.

The cache is derived data, never a source of truth. An entry is used only when

- its HMAC-SHA256 checks out under the per-user key (:mod:`tether.config.secret`): an entry
  edited or forged by anyone without the key is a miss;
- the entry file is a regular file of this user, mode 0600 (no symbolic link, no planted file);
- every file's ``(mtime_ns, ctime_ns, size, inode)`` is unchanged, and so are the trust records
  and the files that define what a valid value is (schema.py, validate.py, constraints.py,
  load.py, ...: their stat stands for the schema version, so a new release or a local edit
  invalidates every entry). Checking that costs a few stat calls; importing the schema to read
  a version number would cost a millisecond;
- its payload passes the schema again (every key present, each value of its type and range)
  and the floors hold (no built-in shell tool remapped or removed).

Anything else is rebuilt from the files and written again. Entries are never written for a file
modified in the last two seconds: a second write in the same timestamp tick with the same size
would otherwise go unnoticed (git's "racy clean" rule). A broken, unreadable or unwritable cache
is just a miss.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tether.config.digest import hmac_sha256_hex, same
from tether.config.paths import Paths, cache_dir, trust_file
from tether.config.secret import load_key, read_private

RACY_SECONDS = 2.0
FORMAT = 2  # bump when the entry layout changes
MAX_ENTRY = 8 * 1024 * 1024
_HERE = os.path.dirname(os.path.abspath(__file__))  # no resolve(): it stats every parent
# Every file whose change can change a loaded config, defaults included: the detector
# thresholds' defaults live in loops/settings.py (an upgrade that changes one must not be
# served the old value from the cache).
_CODE = (
    "schema.py",
    "validate.py",
    "constraints.py",
    "direction.py",
    "load.py",
    "cache.py",
    "trust.py",
    os.path.join("..", "loops", "settings.py"),
)
_CODE_PATHS = tuple(os.path.join(_HERE, name) for name in _CODE)
_PAYLOAD_KEYS = {"values", "origins", "files", "ignored", "untrusted"}

Payload = dict[str, Any]


def _stat(path: Path | str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino]


def signature(paths: Paths, environ: Mapping[str, str]) -> list[Any]:
    """Return what must be unchanged for a cached entry of ``paths`` to be trusted."""
    code = [_stat(path) for path in _CODE_PATHS]
    files = [[layer, str(p), _stat(p), paths.scoped(layer, p)] for layer, p, _ in paths.layers()]
    return [FORMAT, code, files, _stat(trust_file(environ))]


def _entry_path(environ: Mapping[str, str], paths: Paths) -> Path:
    # crc32, not hashlib (whose OpenSSL import costs ~2 ms): a collision only shares an
    # entry, and the stored signature names the exact files, so it is a miss, never wrong.
    import zlib

    name = "\0".join(f"{layer}={p}" for layer, p, _ in paths.layers())
    digest = zlib.crc32(name.encode("utf-8", "surrogatepass"))
    return cache_dir(environ) / f"config-{digest:08x}.json"


def _racy(sig: list[Any]) -> bool:
    now = time.time_ns()
    return any(stat is not None and now - stat[0] < RACY_SECONDS * 1e9 for _, _, stat, _ in sig[2])


def _mac(key: bytes, body: bytes) -> str:
    return hmac_sha256_hex(key, b"tether-config-cache\0" + body)


def valid_payload(payload: Any) -> bool:
    """Return whether a cached payload is one the loader could have produced from valid files."""
    from tether.config.schema import KEYS
    from tether.loops.settings import SHELL_TOOLS

    if not isinstance(payload, dict) or set(payload) != _PAYLOAD_KEYS:
        return False
    values, origins = payload["values"], payload["origins"]
    if not isinstance(values, dict) or values.keys() != KEYS.keys():
        return False
    if not all(KEYS[name].accepts(value) for name, value in values.items()):
        return False
    shell = values["tools.shell"]
    if any(shell.get(name) != arg for name, arg in SHELL_TOOLS.items()):
        return False
    if not isinstance(origins, dict) or not all(
        name in KEYS and isinstance(label, str) for name, label in origins.items()
    ):
        return False
    return (
        _rows(payload["files"], (str, str))
        and _rows(payload["ignored"], (str, (int, type(None)), str, str))
        and isinstance(payload["untrusted"], list)
        and all(isinstance(item, str) for item in payload["untrusted"])
    )


def _rows(rows: Any, shape: tuple[Any, ...]) -> bool:
    return isinstance(rows, list) and all(
        isinstance(row, list)
        and len(row) == len(shape)
        and all(isinstance(item, kind) for item, kind in zip(row, shape, strict=True))
        for row in rows
    )


def read_entry(entry: Path, key: bytes, sig: list[Any]) -> Payload | None:
    """Return an entry's payload if it is authentic, current and valid; else None."""
    data = read_private(str(entry), MAX_ENTRY)
    if data is None:
        return None
    mac, _, body = data.partition(b"\n")
    try:
        if not same(mac.decode("ascii"), _mac(key, body)):
            return None
        stored = json.loads(body)
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(stored, dict) or stored.get("sig") != sig:
        return None
    payload = stored.get("payload")
    return payload if valid_payload(payload) else None


def cached(paths: Paths, environ: Mapping[str, str], compute: Callable[[], Payload]) -> Payload:
    """Return the cached payload for ``paths`` if authentic and fresh, else ``compute()`` it.

    ``compute`` raises on invalid files; nothing is cached then.
    """
    entry = _entry_path(environ, paths)
    sig = signature(paths, environ)
    key = load_key(environ)
    if key is not None:
        found = read_entry(entry, key, sig)
        if found is not None:
            return found
    payload = compute()
    if key is not None and not _racy(sig) and signature(paths, environ) == sig:
        body = json.dumps({"sig": sig, "payload": payload}, ensure_ascii=False)
        data = body.encode("utf-8", "surrogatepass")
        _store(entry, _mac(key, data).encode("ascii") + b"\n" + data)
    return payload


def _store(entry: Path, data: bytes) -> None:
    tmp = entry.with_name(f".{entry.name}.{os.getpid()}.tmp")
    try:
        # Private: values may include secrets (a Redis URL with a password).
        entry.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)  # a leftover (or planted) file would keep its owner and mode
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with open(fd, "wb") as handle:
            handle.write(data)
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


__all__ = ["RACY_SECONDS", "cached", "clear", "read_entry", "signature", "valid_payload"]
