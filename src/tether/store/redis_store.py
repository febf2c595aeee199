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

import time
from collections.abc import Callable
from typing import Any

from tether.errors import StoreError
from tether.store import SessionInfo, State, Updater, codec, halt_of, with_halt

# Eviction policies that may remove a key without a TTL: a halt record could go with them.
_UNSAFE_POLICIES = ("allkeys-lru", "allkeys-lfu", "allkeys-random")


LEASE_MS = 2000  # a holder silent this long is taken for dead and skipped
LOCK_TTL_MS = 60_000  # the lock's keys outlive any queue, then expire
WAIT_SLICE = 0.2  # seconds each BLPOP waits before the queue is checked for a dead holder

# KEYS: ticket, done, lease, state, halt. ARGV: lease ms, ttl ms.
# Take a ticket; when every earlier ticket is done, hold the turn and read the state with it.
_ACQUIRE = """
local me = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local done = tonumber(redis.call('GET', KEYS[2]) or '-1')
if done < 0 then
  done = me - 1
  redis.call('SET', KEYS[2], done, 'PX', ARGV[2])
end
if done == me - 1 then
  redis.call('SET', KEYS[3], me, 'PX', ARGV[1])
  return {me, 1, redis.call('GET', KEYS[4]), redis.call('GET', KEYS[5])}
end
return {me, 0, false, false}
"""
# KEYS: done, lease, state, halt, ticket. ARGV: me, lease ms, ttl ms, wake key prefix.
# After a wake-up or a wait slice: my turn now? Otherwise skip a holder whose lease ran out.
_CHECK = """
local me = tonumber(ARGV[1])
local done = tonumber(redis.call('GET', KEYS[1]) or '-1')
if done < 0 or done >= me then return {-1, false, false} end
if done == me - 1 then
  redis.call('SET', KEYS[2], me, 'PX', ARGV[2])
  return {1, redis.call('GET', KEYS[3]), redis.call('GET', KEYS[4])}
end
if redis.call('EXISTS', KEYS[2]) == 0 then
  done = done + 1
  redis.call('SET', KEYS[1], done, 'PX', ARGV[3])
  if done == me - 1 then
    redis.call('SET', KEYS[2], me, 'PX', ARGV[2])
    return {1, redis.call('GET', KEYS[3]), redis.call('GET', KEYS[4])}
  end
  local nxt = done + 1
  redis.call('SET', KEYS[2], nxt, 'PX', ARGV[2])
  redis.call('RPUSH', ARGV[4] .. nxt, 1)
  redis.call('PEXPIRE', ARGV[4] .. nxt, ARGV[3])
end
return {0, false, false}
"""
# KEYS: done, lease, state, halt, index, ticket. ARGV: me, text, ttl s, halt action (set|del|
# keep), halt text, session id, now, ttl ms, wake key prefix, lease ms.
# Write only while holding the turn (fenced), then hand the turn to the next ticket.
_WRITE = """
local me = tonumber(ARGV[1])
if tonumber(redis.call('GET', KEYS[1]) or '-1') ~= me - 1 then return 0 end
if tonumber(ARGV[3]) > 0 then
  redis.call('SET', KEYS[3], ARGV[2], 'EX', ARGV[3])
  redis.call('ZADD', KEYS[5], ARGV[7], ARGV[6])
  redis.call('EXPIRE', KEYS[5], ARGV[3])
else
  redis.call('SET', KEYS[3], ARGV[2])
  redis.call('ZADD', KEYS[5], ARGV[7], ARGV[6])
end
if ARGV[4] == 'set' then redis.call('SET', KEYS[4], ARGV[5]) end
if ARGV[4] == 'del' then redis.call('DEL', KEYS[4]) end
redis.call('SET', KEYS[1], me, 'PX', ARGV[8])
local nxt = me + 1
if tonumber(redis.call('GET', KEYS[6]) or '0') >= nxt then
  redis.call('SET', KEYS[2], nxt, 'PX', ARGV[10])
  redis.call('RPUSH', ARGV[9] .. nxt, 1)
  redis.call('PEXPIRE', ARGV[9] .. nxt, ARGV[8])
else
  redis.call('DEL', KEYS[2])
end
return 1
"""


class _Lock:
    """One writer's place in a session's queue (a ticket lock in Redis, FIFO and fenced)."""

    def __init__(self, store: RedisStore, session_id: str) -> None:
        self.store, self.session_id = store, session_id
        base = f"{store.key_prefix}lock:{session_id}:"
        self.ticket, self.done, self.lease, self.wake = (
            base + "t",
            base + "d",
            base + "l",
            base + "w:",
        )
        self.me = 0

    def acquire(self, deadline: float) -> tuple[Any, Any]:
        """Wait for this writer's turn; return the (state, halt) it read with it."""
        s = self.store
        keys = [
            self.ticket,
            self.done,
            self.lease,
            s._key(self.session_id),
            s._halt_key(self.session_id),
        ]
        me, mine, raw, halt = s._scripts[0](keys=keys, args=[LEASE_MS, LOCK_TTL_MS])
        self.me = int(me)
        while not int(mine):
            if time.monotonic() >= deadline:
                raise StoreError(
                    f"redis at {s.location}: session {self.session_id!r} stayed busy for "
                    f"{s.max_wait:g}s (ticket {self.me} still queued); too many writers on one "
                    "session, retry the call"
                )
            s._client.blpop([f"{self.wake}{self.me}"], timeout=WAIT_SLICE)
            state_keys = [self.done, self.lease, keys[3], keys[4], self.ticket]
            args: list[str | int] = [self.me, LEASE_MS, LOCK_TTL_MS, self.wake]
            status, raw, halt = s._scripts[1](keys=state_keys, args=args)
            if int(status) < 0:  # skipped as dead while we slept: take a new ticket
                me, mine, raw, halt = s._scripts[0](keys=keys, args=[LEASE_MS, LOCK_TTL_MS])
                self.me = int(me)
            else:
                mine = status
        return raw, halt

    def write(self, text: str, held: str, halt: str, now: float) -> bool:
        """Store ``text`` (and the halt) and pass the turn on; False if the turn was lost."""
        s = self.store
        action = "set" if halt and halt != held else "del" if held and not halt else "keep"
        keys = [
            self.done, self.lease, s._key(self.session_id), s._halt_key(self.session_id),
            s._index, self.ticket,
        ]  # fmt: skip
        args: list[str | int | float] = [
            self.me, text, s.ttl, action, halt, self.session_id, now, LOCK_TTL_MS, self.wake,
            LEASE_MS,
        ]  # fmt: skip
        return bool(s._scripts[2](keys=keys, args=args))


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
        self._scripts = [self._client.register_script(lua) for lua in (_ACQUIRE, _CHECK, _WRITE)]

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
        """Apply ``fn`` under the session's ticket lock and store its result (exactly once).

        Writers of one session queue in arrival order (a ticket each, see ``_Lock``): the one
        whose turn it is reads, computes and writes while the others wait in ``BLPOP`` for
        their own wake-up, so 32 parallel writers take turns instead of retrying each other
        out (optimistic retries re-ran the update and pushed p99 past a second). The write is
        fenced: it lands only while the writer still holds the turn.
        """
        deadline = time.monotonic() + self.max_wait
        try:
            self._check_policy()
            lock = _Lock(self, session_id)
            while True:
                raw, found = lock.acquire(deadline)
                held = found.decode("utf-8", "replace") if found else ""
                current = None if raw is None else self._decode(session_id, raw)
                new = fn(with_halt(current, held))
                text = self._encode(session_id, new)
                if lock.write(text, held, halt_of(new), self._clock()):
                    return new
                # The turn was taken from us (we were slower than the lease): queue again.
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
