"""SHA-256 and HMAC-SHA256 from CPython's built-in ``_sha256``, without OpenSSL's ``hashlib``.

A hook process checks the config cache's HMAC on every call; ``import hmac`` pulls in
``hashlib`` and ``_hashlib`` (OpenSSL), a few milliseconds per process, while the built-in
module is already linked into the interpreter. HMAC is the RFC 2104 construction; the test
suite checks it against the standard library's ``hmac``. Where the built-in module is missing
(3.12 renamed it ``_sha2``; some builds drop it), ``hashlib`` is the fallback.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

BLOCK = 64  # SHA-256's block size in bytes


def _builtin() -> Callable[..., Any]:
    for name in ("_sha256", "_sha2"):
        try:
            sha256: Callable[..., Any] = importlib.import_module(name).sha256
            return sha256
        except (ImportError, AttributeError):
            continue
    import hashlib

    return hashlib.sha256


_sha256 = _builtin()
_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))


def sha256_hex(data: bytes) -> str:
    """Return the hex SHA-256 of ``data``."""
    return str(_sha256(data).hexdigest())


def hmac_sha256_hex(key: bytes, message: bytes) -> str:
    """Return the hex HMAC-SHA256 of ``message`` under ``key`` (RFC 2104)."""
    if len(key) > BLOCK:
        key = _sha256(key).digest()
    key = key.ljust(BLOCK, b"\0")
    inner = _sha256(key.translate(_IPAD) + message).digest()
    return str(_sha256(key.translate(_OPAD) + inner).hexdigest())


def same(a: str, b: str) -> bool:
    """Compare two digests in constant time."""
    from _operator import _compare_digest

    return bool(_compare_digest(a.encode("ascii", "replace"), b.encode("ascii", "replace")))


__all__ = ["hmac_sha256_hex", "same", "sha256_hex"]
