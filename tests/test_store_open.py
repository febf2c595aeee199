"""open_store: the backend and its settings come from the store.* config keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tether.config import load_config
from tether.errors import ConfigError
from tether.store.memory import MemoryStore
from tether.store.open import default_path, open_store, sqlite_path
from tether.store.redis_store import RedisStore
from tether.store.sqlite import SQLiteStore


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """An environment with no config files and no TETHER_* variables."""
    home = tmp_path / "home"
    home.mkdir()
    return {"HOME": str(home), "XDG_CACHE_HOME": str(tmp_path / "cache")}


def config(env: dict[str, str], tmp_path: Path, *overrides: str) -> Any:
    return load_config(cwd=tmp_path, overrides=overrides, environ=env, use_cache=False)


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"XDG_STATE_HOME": "/srv/state", "HOME": "/home/a"}, "/srv/state/tether/state.db"),
        ({"HOME": "/home/a"}, "/home/a/.local/state/tether/state.db"),
        ({"XDG_STATE_HOME": "", "HOME": "/home/a"}, "/home/a/.local/state/tether/state.db"),
        # Relative values are invalid per the XDG spec and are ignored.
        (
            {"XDG_STATE_HOME": "rel/state", "HOME": "/home/a"},
            "/home/a/.local/state/tether/state.db",
        ),
    ],
)
def test_default_path_follows_xdg(environ: dict[str, str], expected: str) -> None:
    assert default_path(environ) == Path(expected)


def test_store_path_overrides_the_default_and_expands_home(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", "/home/b")
    assert sqlite_path(config(env, tmp_path, "store.path=~/s.db"), env) == Path("/home/b/s.db")
    assert sqlite_path(config(env, tmp_path), {"HOME": "/home/c"}) == Path(
        "/home/c/.local/state/tether/state.db"
    )


def test_sqlite_is_the_default_backend(env: dict[str, str], tmp_path: Path) -> None:
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    store = open_store(config(env, tmp_path), environ=env)
    assert isinstance(store, SQLiteStore)
    assert store.path == tmp_path / "state" / "tether" / "state.db"
    assert store.ttl_days == 7
    store.update("s1", lambda _: {"calls": 1})
    assert store.path.exists()
    store.close()


def test_sqlite_takes_path_and_ttl_from_config(env: dict[str, str], tmp_path: Path) -> None:
    cfg = config(env, tmp_path, f"store.path={tmp_path / 'x.db'}", "store.ttl_days=3")
    store = open_store(cfg, environ=env)
    assert isinstance(store, SQLiteStore)
    assert (store.path, store.ttl_days) == (tmp_path / "x.db", 3)


def test_memory_backend(env: dict[str, str], tmp_path: Path) -> None:
    assert isinstance(open_store(config(env, tmp_path, "store.backend=memory")), MemoryStore)


def test_memory_backend_takes_the_ttl(env: dict[str, str], tmp_path: Path) -> None:
    store = open_store(config(env, tmp_path, "store.backend=memory", "store.ttl_days=2"))
    assert isinstance(store, MemoryStore)
    assert store.ttl == 2 * 86400


def test_redis_takes_url_prefix_and_ttl_from_config(
    env: dict[str, str], tmp_path: Path, redis_server: str
) -> None:
    cfg = config(
        env,
        tmp_path,
        "store.backend=redis",
        f"store.url={redis_server}",
        "store.key_prefix=fleet-a:",
        "store.ttl_days=2",
    )
    store = open_store(cfg)
    assert isinstance(store, RedisStore)
    assert (store.url, store.key_prefix, store.ttl) == (redis_server, "fleet-a:", 2 * 86400)
    store.update("s1", lambda _: {"calls": 1})
    assert store.load("s1") == {"calls": 1}
    assert store.delete("s1")
    store.close()


class Settings:
    """A plain mapping of dotted keys: what open_store needs from any config."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values

    def get(self, key: str) -> Any:
        return self.values[key]


def test_an_unknown_backend_is_a_config_error() -> None:
    settings = Settings({"store.backend": "mongo", "store.ttl_days": 7})
    with pytest.raises(ConfigError, match=r"store\.backend: expected one of memory, sqlite, redis"):
        open_store(settings)


PROBE = r"""
import json, sys
from tether.config import load_config
from tether.store.open import open_store
store = open_store(load_config(overrides=sys.argv[1:], use_cache=False))
store.update("probe", lambda state: {"calls": 1})
store.close()
print(json.dumps({"redis": "redis" in sys.modules}))
"""


@pytest.mark.parametrize(
    ("backend", "imports_redis"),
    [("sqlite", False), ("memory", False), pytest.param("redis", True, marks=pytest.mark.redis)],
)
def test_redis_py_is_imported_only_for_the_redis_backend(
    backend: str,
    imports_redis: bool,
    env: dict[str, str],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    overrides = [f"store.backend={backend}", f"store.path={tmp_path / 's.db'}"]
    if backend == "redis":
        overrides.append(f"store.url={request.getfixturevalue('redis_server')}")
        overrides.append(f"store.key_prefix={request.getfixturevalue('redis_prefix')}")
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *overrides],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=True,
    ).stdout
    assert json.loads(out) == {"redis": imports_redis}
