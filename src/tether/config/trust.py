"""Which project files the user trusts, by the exact content they reviewed (``tether trust``).

A repository's ``.tether.yaml`` is written by whoever wrote the repository, and an agent working
in it can write it too; so until the user trusts it, it may only tighten the guard (see
:mod:`tether.config.direction`). ``tether trust PATH`` records the file's absolute path and the
SHA-256 of its content in ``$XDG_STATE_HOME/tether/trust.json`` (mode 0600), each record
authenticated with the per-user key (:mod:`tether.config.secret`). Any change to the file
changes its hash, which revokes the trust; so does a record edited by hand, a trust file that
is not private to the user, or a replaced key. Like ``direnv allow`` and ``mise trust``.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from tether.config.digest import hmac_sha256_hex, same, sha256_hex
from tether.config.paths import trust_file
from tether.config.secret import load_key, read_private

FORMAT = 1
MAX_BYTES = 4 * 1024 * 1024


class Record(NamedTuple):
    """One trusted file: its absolute path, the SHA-256 it was trusted with, and when."""

    path: str
    sha256: str
    trusted_at: str
    state: str = "trusted"  # trusted | changed (content differs: revoked) | missing | forged


def location(path: Path | str) -> str:
    """Return the absolute path a record names, symbolic links *not* resolved.

    Trust belongs to the place the loader finds the file: a ``.tether.yaml`` that is a link
    to a file trusted elsewhere (another repository's loose settings) is not trusted here.
    """
    return os.path.abspath(path)


def _mac(key: bytes, path: str, digest: str) -> str:
    return hmac_sha256_hex(key, f"tether-trust\0{path}\0{digest}".encode("utf-8", "surrogatepass"))


def _entries(environ: Mapping[str, str]) -> dict[str, Any]:
    """Return the stored records; an unreadable, malformed or non-private file holds none."""
    data = read_private(str(trust_file(environ)), MAX_BYTES)
    if data is None:
        return {}
    try:
        stored = json.loads(data)
    except ValueError:
        return {}
    if not isinstance(stored, dict) or stored.get("format") != FORMAT:
        return {}
    files = stored.get("files")
    return files if isinstance(files, dict) else {}


def is_trusted(path: Path | str, content: bytes, environ: Mapping[str, str]) -> bool:
    """Return whether the user trusted exactly ``content`` for the file at ``path``."""
    entry = _entries(environ).get(location(path))
    if not isinstance(entry, dict):
        return False
    key = load_key(environ, create=False)
    digest, mac = entry.get("sha256"), entry.get("mac")
    if key is None or not isinstance(digest, str) or not isinstance(mac, str):
        return False
    return same(digest, sha256_hex(content)) and same(mac, _mac(key, location(path), digest))


def trust(path: Path | str, environ: Mapping[str, str]) -> Record:
    """Trust the file's current content; return the record. Raises OSError if unreadable."""
    name = location(path)
    with open(name, "rb") as handle:
        content = handle.read(MAX_BYTES + 1)
    if len(content) > MAX_BYTES:
        raise OSError(f"{name}: larger than {MAX_BYTES} bytes; not a config file")
    key = load_key(environ, create=True)
    if key is None:
        raise OSError(f"cannot create the key file under {trust_file(environ).parent}")
    digest = sha256_hex(content)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    entries = _entries(environ)
    entries[name] = {"sha256": digest, "trusted_at": stamp, "mac": _mac(key, name, digest)}
    _write(environ, entries)
    return Record(name, digest, stamp)


def revoke(path: Path | str, environ: Mapping[str, str]) -> bool:
    """Forget the trust record of ``path``; return whether there was one."""
    entries = _entries(environ)
    names = {location(path), os.path.realpath(path)}
    found = [name for name in names if name in entries]
    for name in found:
        del entries[name]
    if found:
        _write(environ, entries)
    return bool(found)


def records(environ: Mapping[str, str]) -> list[Record]:
    """Return every record with its state against the file as it is now."""
    key = load_key(environ, create=False)
    out = []
    for name, entry in sorted(_entries(environ).items()):
        if not isinstance(entry, dict):
            continue
        digest = str(entry.get("sha256", ""))
        stamp = str(entry.get("trusted_at", ""))
        if key is None or not same(str(entry.get("mac", "")), _mac(key, name, digest)):
            out.append(Record(name, digest, stamp, "forged"))
            continue
        try:
            content = Path(name).read_bytes()
        except OSError:
            out.append(Record(name, digest, stamp, "missing"))
            continue
        state = "trusted" if same(digest, sha256_hex(content)) else "changed"
        out.append(Record(name, digest, stamp, state))
    return out


def _write(environ: Mapping[str, str], entries: Mapping[str, Any]) -> None:
    target = trust_file(environ)
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"format": FORMAT, "files": entries}, handle, indent=2, sort_keys=True)
            handle.write("\n")
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


__all__ = ["FORMAT", "Record", "is_trusted", "location", "records", "revoke", "trust"]
