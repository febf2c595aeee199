"""Session state in Redis: for fleets of agents on many machines sharing one guard's memory.

Each session is one string key holding the state as JSON, with an expiry of ``ttl_days``
refreshed on every update, plus a sorted set (score = last update) that ``sessions()`` reads.
The update function is Python, so it cannot run inside a Lua script: ``update`` uses optimistic
concurrency instead (WATCH the key, read, compute, MULTI/EXEC; if another writer got in first,
EXEC fails and the whole read-compute-write is retried with a short jittered backoff). The
update function may therefore run more than once and must be pure.

redis-py costs ~130 ms to import, so it is imported only when this backend is opened, never on
the path of a SQLite-backed hook. An unreachable server raises ``StoreError`` naming the URL
(password hidden), the cause and what to do; hook adapters turn it into a deny.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from tether.errors import StoreError
from tether.store import SessionInfo, State, Updater, codec, halt_of, with_halt

# Eviction policies that may remove a key without a TTL: a halt record could go with them.
_UNSAFE_POLICIES = ("allkeys-lru", "allkeys-lfu", "allkeys-random")


def redact_url(url: str) -> str:
    """Return ``url`` with any password replaced by ``***``."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        user = parts.username or ""
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        netloc = f"{user}:***@{host}{port}"
        return urlunsplit(parts._replace(netloc=netloc))
    except ValueError:
        return "<unparseable redis URL>"


class RedisStore:
    """Session state as JSON strings under ``key_prefix``, updated with WATCH/MULTI."""

    def __init__(
        self,
        url: str,
        *,
        key_prefix: str = "tether:",
        ttl_days: float = 7,
        connect_timeout: float = 1.0,
        socket_timeout: float = 2.0,
        max_wait: float = 3.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.url = url
        self.location = redact_url(url)
        self.key_prefix = key_prefix
        self.ttl = int(ttl_days * 86400) if ttl_days > 0 else 0
        # Bounds the retry loop under contention; well under the hooks' internal deadline.
        self.max_wait = max_wait
        self._clock = clock
        try:
            import redis
        except ImportError as exc:
            raise StoreError(
                "store.backend is 'redis' but the redis package is not installed; "
                "install it with: pip install 'tether[redis]'"
            ) from exc
        self._redis: Any = redis
        try:
            self._client: Any = redis.Redis.from_url(
                url, socket_connect_timeout=connect_timeout, socket_timeout=socket_timeout
            )
        except ValueError as exc:
            raise StoreError(
                f"store.url {self.location!r} is not a redis URL ({exc}); "
                "expected e.g. redis://127.0.0.1:6379/0 or rediss://user:pass@host:6380/1"
            ) from exc
        self._index = f"{key_prefix}sessions"
        self._policy_checked = False

    def _key(self, session_id: str) -> str:
        return f"{self.key_prefix}session:{session_id}"

    def _halt_key(self, session_id: str) -> str:
        return f"{self.key_prefix}halt:{session_id}"

    def _check_policy(self) -> None:
        """Refuse a server that may evict keys without a TTL (fail closed: halts live there).

        Halt records carry no expiry, so ``noeviction`` and the ``volatile-*`` policies never
        remove them; an ``allkeys-*`` policy could, and a halted agent would then run on. A
        server that hides ``CONFIG`` (managed Redis) is trusted to keep a volatile policy.
        """
        if self._policy_checked:
            return
        try:
            found = self._client.config_get("maxmemory-policy")
        except self._redis.exceptions.ResponseError:
            found = {}
        policy = str(found.get("maxmemory-policy", "")) if isinstance(found, dict) else ""
        if policy in _UNSAFE_POLICIES:
            raise StoreError(
                f"redis at {self.location}: maxmemory-policy is {policy}, which may evict the "
                "keys that hold halts (they have no expiry) and let a halted agent run on; set "
                "it to noeviction or a volatile-* policy, or give Tether its own server"
            )
        self._policy_checked = True

    def _error(self, exc: Exception) -> StoreError:
        errors = self._redis.exceptions
        if isinstance(exc, errors.AuthenticationError):
            return StoreError(
                f"redis at {self.location}: authentication failed ({exc}); "
                "fix the user/password in store.url"
            )
        if isinstance(exc, errors.ConnectionError | errors.TimeoutError):
            return StoreError(
                f"redis at {self.location} is unreachable ({exc}); start redis-server there, "
                "check store.url, or set store.backend to 'sqlite' for a single machine"
            )
        return StoreError(f"redis at {self.location}: command failed ({exc})")

    # -- Store protocol ---------------------------------------------------------------------

    def load(self, session_id: str) -> State | None:
        """Return the session's state, or None when nothing is recorded."""
        try:
            raw, held = self._client.mget(self._key(session_id), self._halt_key(session_id))
        except self._redis.exceptions.RedisError as exc:
            raise self._error(exc) from exc
        state = None if raw is None else self._decode(session_id, raw)
        return with_halt(state, held.decode("utf-8", "replace") if held else "")

    def update(self, session_id: str, fn: Updater) -> State:
        """Apply ``fn`` atomically (WATCH/MULTI, retried on conflict) and store its result."""
        key, halt_key = self._key(session_id), self._halt_key(session_id)
        watch_error = self._redis.exceptions.WatchError
        deadline = time.monotonic() + self.max_wait
        attempt = 0
        try:
            self._check_policy()
            with self._client.pipeline() as pipe:
                while True:
                    try:
                        pipe.watch(key, halt_key)
                        raw, found = pipe.mget(key, halt_key)
                        held = found.decode("utf-8", "replace") if found else ""
                        current = None if raw is None else self._decode(session_id, raw)
                        new = fn(with_halt(current, held))
                        text = self._encode(session_id, new)
                        pipe.multi()
                        if self.ttl:
                            pipe.set(key, text, ex=self.ttl)
                        else:
                            pipe.set(key, text)
                        halt = halt_of(new)
                        if halt and halt != held:
                            pipe.set(halt_key, halt)  # no expiry: see _check_policy
                        elif held and not halt:
                            pipe.delete(halt_key)
                        pipe.zadd(self._index, {session_id: self._clock()})
                        if self.ttl:
                            pipe.expire(self._index, self.ttl)
                        pipe.execute()
                        return new
                    except watch_error:
                        attempt += 1
                        if time.monotonic() >= deadline:
                            raise StoreError(
                                f"redis at {self.location}: session {session_id!r} changed under "
                                f"every one of {attempt} update attempts in {self.max_wait:g}s; "
                                "too many writers on one session, retry the call"
                            ) from None
                        # Jittered, growing backoff so contending writers spread out.
                        time.sleep(random.uniform(0, min(0.02, 0.0005 * 2**attempt)))
        except self._redis.exceptions.RedisError as exc:
            raise self._error(exc) from exc

    def delete(self, session_id: str) -> bool:
        """Forget a session; return whether it existed."""
        try:
            with self._client.pipeline() as pipe:
                pipe.delete(self._key(session_id), self._halt_key(session_id))
                pipe.zrem(self._index, session_id)
                deleted, _ = pipe.execute()
        except self._redis.exceptions.RedisError as exc:
            raise self._error(exc) from exc
        return bool(deleted)

    def sessions(self) -> list[SessionInfo]:
        """Return the sessions recorded, most recently updated first."""
        try:
            if self.ttl:
                self._client.zremrangebyscore(self._index, "-inf", self._clock() - self.ttl)
            entries = self._client.zrevrange(self._index, 0, -1, withscores=True)
            if not entries:
                return []
            with self._client.pipeline(transaction=False) as pipe:
                for member, _ in entries:
                    pipe.strlen(self._key(member.decode()))
                sizes = pipe.execute()
            # A key can expire (or be deleted by hand) before its index entry: drop those.
            gone = [m for (m, _), size in zip(entries, sizes, strict=True) if not size]
            if gone:
                self._client.zrem(self._index, *gone)
        except self._redis.exceptions.RedisError as exc:
            raise self._error(exc) from exc
        infos = [
            SessionInfo(member.decode(), float(score), int(size))
            for (member, score), size in zip(entries, sizes, strict=True)
            if size
        ]
        return sorted(infos, key=lambda s: (-s.updated, s.session_id))

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    # -- encoding ---------------------------------------------------------------------------

    def _decode(self, session_id: str, raw: bytes) -> State:
        return codec.decode(raw, f"redis at {self.location}", session_id)

    def _encode(self, session_id: str, state: State) -> str:
        return codec.encode(session_id, state)
