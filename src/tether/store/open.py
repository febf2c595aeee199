"""Pick and open the store the ``store.*`` config section asks for.

Only the chosen backend's module is imported: a SQLite-backed hook never imports redis-py.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from tether.errors import ConfigError
from tether.store import Store

BACKENDS = ("memory", "sqlite", "redis")


class Settings(Protocol):
    """What ``open_store`` needs from a config: typed values by dotted key."""

    def get(self, key: str) -> Any:
        """Return the effective value of ``key``."""
        ...


def default_path(environ: Mapping[str, str] | None = None) -> Path:
    """Return ``$XDG_STATE_HOME/tether/state.db`` (``~/.local/state`` when unset or relative)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME", "")
    # The XDG spec says relative values are invalid and must be ignored.
    if not base or not os.path.isabs(base):
        home = env.get("HOME") or os.path.expanduser("~")
        base = os.path.join(home, ".local", "state")
    return Path(base) / "tether" / "state.db"


def sqlite_path(config: Settings, environ: Mapping[str, str] | None = None) -> Path:
    """Return the SQLite file ``config`` points at: ``store.path`` or the XDG default."""
    raw = str(config.get("store.path") or "")
    if not raw:
        return default_path(environ)
    return Path(os.path.expanduser(raw))


def open_store(config: Settings, *, environ: Mapping[str, str] | None = None) -> Store:
    """Open the store ``store.backend`` names, configured from the ``store.*`` keys."""
    backend = config.get("store.backend")
    ttl_days = config.get("store.ttl_days")
    if backend == "sqlite":
        from tether.store.sqlite import SQLiteStore

        return SQLiteStore(sqlite_path(config, environ), ttl_days=ttl_days)
    if backend == "redis":
        from tether.store.redis_store import RedisStore

        return RedisStore(
            str(config.get("store.url")),
            key_prefix=str(config.get("store.key_prefix")),
            ttl_days=ttl_days,
        )
    if backend == "memory":
        from tether.store.memory import MemoryStore

        return MemoryStore(ttl_days=ttl_days)
    raise ConfigError(
        f"store.backend: expected one of {', '.join(BACKENDS)}, got {backend!r}; "
        "set it with 'tether config set store.backend sqlite'"
    )
