"""Session state in Redis: for fleets of agents on many machines sharing one guard's memory.

Each session is one hash holding the state in parts (``tether.store.parts``: the head, one
field per table entry and per window entry, each JSON) and its version (field ``v``), with an
expiry of ``ttl_days`` refreshed on every update, plus a sorted set (score = last update) that
``sessions()`` reads. A state stored by an older Tether as one JSON string reads on and is
written in parts at its next update.

The update function is Python, so it cannot run inside Redis. A store keeps the state it last
wrote or read per session; ``update`` runs the function on that copy and sends only the parts it
changed in one Lua script, which applies them only if the session is still at the version the
copy was made from and no writer holds its turn (one round trip, nothing decoded: an agent on its
own session never waits). Otherwise the writers of the session queue on a ticket lock: the one
whose turn it is reads what changed, computes and writes while the others wait for their own
wake-up, so 32 parallel writers take turns instead of retrying each other out. The update
function may therefore run more than once and must be pure.

redis-py costs ~130 ms to import, so it is imported only when this backend is opened, never on
the path of a SQLite-backed hook. An unreachable server raises ``StoreError`` naming the URL
(password hidden), the cause and what to do; hook adapters turn it into a deny.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from tether.errors import StoreError
from tether.store import SessionInfo, State, Updater, codec, halt_of, parts, with_halt

# Eviction policies that may remove a key without a TTL: a halt record could go with them.
_UNSAFE_POLICIES = ("allkeys-lru", "allkeys-lfu", "allkeys-random")


CACHED_SESSIONS = 128  # sessions whose last state a store keeps (see _Copy)
LEASE_MS = 2000  # a holder silent this long is taken for dead and skipped
LOCK_TTL_MS = 60_000  # the lock's keys outlive any queue, then expire
WAIT_SLICE = 0.2  # seconds each BLPOP waits before the queue is checked for a dead holder

# What a writer reads with its turn: the state's version and what its copy lacks (kind 1: every
# part, or none when the copy is at that version; kind 3: the parts changed since the copy's
# version, from the session's log of changed part names (``KEY:changes``, the last 64 writes;
# a part deleted comes back as nil); kind 2: an older Tether's JSON string; 0: nothing stored).
_SNAPSHOT = """
local function changed_since(key, v, known)
  local n = v - known
  if known <= 0 or n <= 0 or n > 64 then return nil end
  local entries = redis.call('LRANGE', key .. ':changes', -n, -1)
  if #entries ~= n or tonumber(string.match(entries[1], '^%d+')) ~= known + 1 then return nil end
  local seen, names = {}, {}
  for _, entry in ipairs(entries) do
    local first = true
    for name in string.gmatch(entry, '[^%z]+') do
      if first then first = false
      elseif not seen[name] then seen[name] = true; names[#names + 1] = name end
    end
  end
  return names
end
local function snapshot(key, halt_key, known)
  local kind = redis.call('TYPE', key)['ok']
  local halt = redis.call('GET', halt_key)
  if kind == 'hash' then
    local v = tonumber(redis.call('HGET', key, 'v') or '0')
    known = tonumber(known)
    if v == known then return {1, v, false, halt} end
    local names = changed_since(key, v, known)
    if names ~= nil and #names > 0 then
      return {3, v, names, halt, redis.call('HMGET', key, unpack(names))}
    end
    return {1, v, redis.call('HGETALL', key), halt}
  end
  if kind == 'string' then return {2, 0, redis.call('GET', key), halt} end
  return {0, 0, false, halt}
end
"""
# Apply a delta (ARGV from ``first``: full (1: replace every part), the number of parts to
# delete, their names, then name/value pairs to put), log the names it changed and move the
# version on; return it. A state written whole starts at the server's clock in microseconds,
# so a version is never reused by a later state of the same session (deleted, expired) that a
# stale copy could match.
_APPLY = """
local function apply(key, version, first, ttl)
  local log = key .. ':changes'
  if ARGV[first] == '1' or redis.call('TYPE', key)['ok'] ~= 'hash' then
    redis.call('DEL', key, log)
    local now = redis.call('TIME')
    version = tonumber(now[1]) * 1000000 + tonumber(now[2])
  end
  local new = string.format('%.0f', version + 1)
  local names = {new}
  local ndel = tonumber(ARGV[first + 1])
  local i = first + 2
  if ndel > 0 then
    redis.call('HDEL', key, unpack(ARGV, i, i + ndel - 1))
    for j = i, i + ndel - 1 do names[#names + 1] = ARGV[j] end
  end
  i = i + ndel
  for j = i, #ARGV, 2 do
    redis.call('HSET', key, ARGV[j], ARGV[j + 1])
    names[#names + 1] = ARGV[j]
  end
  redis.call('HSET', key, 'v', new)
  if ARGV[first] ~= '1' then
    redis.call('RPUSH', log, table.concat(names, '\\0'))
    redis.call('LTRIM', log, -64, -1)
    if tonumber(ttl) > 0 then redis.call('EXPIRE', log, ttl) end
  end
  return version + 1
end
local function stamp(key, halt_key, index, ttl, sid, now, halt_action, halt)
  if tonumber(ttl) > 0 then
    redis.call('EXPIRE', key, ttl)
    redis.call('ZADD', index, now, sid)
    redis.call('EXPIRE', index, ttl)
  else
    redis.call('PERSIST', key)
    redis.call('ZADD', index, now, sid)
  end
  if halt_action == 'set' then redis.call('SET', halt_key, halt) end
  if halt_action == 'del' then redis.call('DEL', halt_key) end
end
"""
# KEYS: state, halt, index, ticket, done. ARGV: version, ttl s, session id, now, halt action,
# halt text, then the delta (see _APPLY). Write without the lock when nobody holds or waits for
# the session's turn and the state is still at ``version``: {1, new version}; else {0}.
_FAST = (
    _APPLY
    + """
local ticket = tonumber(redis.call('GET', KEYS[4]) or '0')
if ticket > tonumber(redis.call('GET', KEYS[5]) or tostring(ticket)) then return {0} end
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind ~= 'hash' then return {0} end
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) then return {0} end
local new = apply(KEYS[1], v, 7, ARGV[2])
stamp(KEYS[1], KEYS[2], KEYS[3], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6])
return {1, new}
"""
)
# KEYS: ticket, done, lease, state, halt. ARGV: lease ms, ttl ms, known version.
# Take a ticket; when every earlier ticket is done, hold the turn and read the state with it.
_ACQUIRE = (
    _SNAPSHOT
    + """
local me = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local done = tonumber(redis.call('GET', KEYS[2]) or '-1')
if done < 0 then
  done = me - 1
  redis.call('SET', KEYS[2], done, 'PX', ARGV[2])
end
if done == me - 1 then
  redis.call('SET', KEYS[3], me, 'PX', ARGV[1])
  return {me, 1, snapshot(KEYS[4], KEYS[5], ARGV[3])}
end
return {me, 0, false}
"""
)
# KEYS: done, lease, state, halt, ticket. ARGV: me, lease ms, ttl ms, wake key prefix, known
# version. After a wake-up or a wait slice: my turn now? Otherwise skip a holder whose lease
# ran out.
_CHECK = (
    _SNAPSHOT
    + """
local me = tonumber(ARGV[1])
local done = tonumber(redis.call('GET', KEYS[1]) or '-1')
if done < 0 or done >= me then return {-1, false} end
if done == me - 1 then
  redis.call('SET', KEYS[2], me, 'PX', ARGV[2])
  return {1, snapshot(KEYS[3], KEYS[4], ARGV[5])}
end
if redis.call('EXISTS', KEYS[2]) == 0 then
  done = done + 1
  redis.call('SET', KEYS[1], done, 'PX', ARGV[3])
  if done == me - 1 then
    redis.call('SET', KEYS[2], me, 'PX', ARGV[2])
    return {1, snapshot(KEYS[3], KEYS[4], ARGV[5])}
  end
  local nxt = done + 1
  redis.call('SET', KEYS[2], nxt, 'PX', ARGV[2])
  redis.call('RPUSH', ARGV[4] .. nxt, 1)
  redis.call('PEXPIRE', ARGV[4] .. nxt, ARGV[3])
end
return {0, false}
"""
)
# KEYS: done, lease, state, halt, index, ticket. ARGV: me, ttl s, session id, now, halt action,
# halt text, ttl ms, wake key prefix, lease ms, then the delta (see _APPLY).
# Write only while holding the turn (fenced), then hand the turn to the next ticket.
_WRITE = (
    _APPLY
    + """
local me = tonumber(ARGV[1])
if tonumber(redis.call('GET', KEYS[1]) or '-1') ~= me - 1 then return 0 end
local v = 0
if redis.call('TYPE', KEYS[3])['ok'] == 'hash' then
  v = tonumber(redis.call('HGET', KEYS[3], 'v') or '0')
end
local new = apply(KEYS[3], v, 10, ARGV[2])
stamp(KEYS[3], KEYS[4], KEYS[5], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6])
redis.call('SET', KEYS[1], me, 'PX', ARGV[7])
local nxt = me + 1
if tonumber(redis.call('GET', KEYS[6]) or '0') >= nxt then
  redis.call('SET', KEYS[2], nxt, 'PX', ARGV[9])
  redis.call('RPUSH', ARGV[8] .. nxt, 1)
  redis.call('PEXPIRE', ARGV[8] .. nxt, ARGV[7])
else
  redis.call('DEL', KEYS[2])
end
return new
"""
)
# KEYS: state, halt. A consistent read of a session for ``load``: see _SNAPSHOT.
_READ = (
    _SNAPSHOT
    + """
return snapshot(KEYS[1], KEYS[2], -1)
"""
)
# KEYS: the sessions' state keys. Their sizes (bytes of parts, or of an older JSON string).
_SIZES = """
local out = {}
for i, key in ipairs(KEYS) do
  local kind = redis.call('TYPE', key)['ok']
  local size = 0
  if kind == 'string' then size = redis.call('STRLEN', key) end
  if kind == 'hash' then
    for _, value in ipairs(redis.call('HVALS', key)) do size = size + #value end
  end
  out[i] = size
end
return out
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

    def acquire(self, deadline: float, known: int) -> list[Any]:
        """Wait for this writer's turn; return the snapshot it read with it (see _SNAPSHOT).

        ``known``: the version of this store's copy (its parts are not sent again), or -1.
        """
        s = self.store
        keys = [
            self.ticket,
            self.done,
            self.lease,
            s._key(self.session_id),
            s._halt_key(self.session_id),
        ]
        me, mine, snap = s._scripts["acquire"](keys=keys, args=[LEASE_MS, LOCK_TTL_MS, known])
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
            args: list[str | int] = [self.me, LEASE_MS, LOCK_TTL_MS, self.wake, known]
            status, snap = s._scripts["check"](keys=state_keys, args=args)
            if int(status) < 0:  # skipped as dead while we slept: take a new ticket
                me, mine, snap = s._scripts["acquire"](
                    keys=keys, args=[LEASE_MS, LOCK_TTL_MS, known]
                )
                self.me = int(me)
            else:
                mine = status
        return list(snap)

    def write(self, delta: list[Any], held: str, halt: str, now: float) -> int:
        """Apply ``delta`` (and the halt) and pass the turn on; return the new version.

        0 when the turn was lost (a writer slower than its lease): nothing was written.
        """
        s = self.store
        keys = [
            self.done, self.lease, s._key(self.session_id), s._halt_key(self.session_id),
            s._index, self.ticket,
        ]  # fmt: skip
        args: list[Any] = [
            self.me, s.ttl, self.session_id, now, *_halt_args(held, halt), LOCK_TTL_MS,
            self.wake, LEASE_MS, *delta,
        ]  # fmt: skip
        return int(s._scripts["write"](keys=keys, args=args))


def _halt_args(held: str, halt: str) -> tuple[str, str]:
    """Return what a write does to the session's halt record: (set | del | keep, message)."""
    return ("set" if halt and halt != held else "del" if held and not halt else "keep"), halt


class _Copy:
    """A session's state as this store last wrote or read it, at ``version``, and its parts.

    ``values``: each part decoded (shared with ``state``); ``texts``: each part as stored, to
    put back the parts an update changed when its write is refused. ``contended``: another
    writer got in first last time, and nothing showed since that it stopped: the next update
    queues for the turn at once instead of computing on this copy first.
    """

    __slots__ = ("contended", "halt", "state", "texts", "values", "version")

    def __init__(
        self, version: int, state: parts.Tracked, halt: str, values: dict[str, Any], texts: Any
    ) -> None:
        self.version, self.state, self.halt = version, state, halt
        self.values: dict[str, Any] = values
        self.texts: dict[str, str | bytes] = texts
        self.contended = False

    def restore(self, touched: dict[str, Any]) -> bool:
        """Put back the parts a refused update changed (``touched``: its delta); False if lost."""
        for name in (*touched["put"], *touched["del"]):
            text = self.texts.get(name)
            if text is None:
                self.values.pop(name, None)
            else:
                self.values[name] = json.loads(text)
        state = parts.assemble(self.values.items())
        if state is None:
            return False
        self.state = state
        return True


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
    """Session state in parts under ``key_prefix``: one round trip per uncontended update."""

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
        scripts = {"fast": _FAST, "acquire": _ACQUIRE, "check": _CHECK, "write": _WRITE}
        scripts |= {"read": _READ, "sizes": _SIZES}
        self._scripts = {name: self._client.register_script(lua) for name, lua in scripts.items()}
        self._copies: OrderedDict[str, _Copy] = OrderedDict()

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
        """Return the session's state (plain JSON values), or None when nothing is recorded."""
        keys = [self._key(session_id), self._halt_key(session_id)]
        try:
            snap = self._scripts["read"](keys=keys, args=[])
        except self._redis.exceptions.RedisError as exc:
            raise self._error(exc) from exc
        state, held, _ = self._from_snapshot(session_id, list(snap), None)
        plain = None if state is None else json.loads(self._encode(session_id, state))
        return with_halt(plain, held)

    def update(self, session_id: str, fn: Updater) -> State:
        """Apply ``fn`` to the session's state and store what it changed (exactly once).

        First on this store's copy, written in one round trip when the session is still at the
        copy's version and nobody holds its turn; otherwise under the session's ticket lock
        (``_Lock``): writers queue in arrival order, the one whose turn it is reads what its
        copy lacks, computes and writes (fenced: only while it still holds the turn).
        """
        deadline = time.monotonic() + self.max_wait
        try:
            self._check_policy()
            copy = self._copies.pop(session_id, None)
            refused = copy is not None and not copy.contended
            if copy is not None and refused:
                done = self._fast(session_id, copy, fn)
                if done is not None:
                    return done
            contended = refused or (copy is not None and copy.contended)
            lock = _Lock(self, session_id)
            while True:
                snap = lock.acquire(deadline, copy.version if copy is not None else -1)
                alone = int(snap[0]) == 1 and not snap[2]  # nobody wrote since our copy
                current, held, copy = self._from_snapshot(session_id, snap, copy)
                given = with_halt(current, held)
                new = fn(given)
                args, delta, texts = self._delta(session_id, given, new)
                version = lock.write(args, held, halt_of(new), self._clock())
                if version:
                    kept = self._keep(session_id, version, new, copy, delta, texts)
                    if kept is not None:
                        kept.contended = contended and not alone
                    return new
                copy = None  # the turn was taken from us (slower than the lease): queue again
        except self._redis.exceptions.RedisError as exc:
            raise self._error(exc) from exc

    def _fast(self, session_id: str, copy: _Copy, fn: Updater) -> State | None:
        """Run ``fn`` on this store's copy and write it without the lock; None if refused.

        Refused, the copy gets back the parts ``fn`` changed (or is marked as knowing nothing).
        """
        given = with_halt(copy.state, copy.halt)
        new = fn(given)
        halt = halt_of(new)
        keys = [
            self._key(session_id), self._halt_key(session_id), self._index,
            f"{self.key_prefix}lock:{session_id}:t", f"{self.key_prefix}lock:{session_id}:d",
        ]  # fmt: skip
        tail, delta, texts = self._delta(session_id, given, new)
        args = [
            copy.version, self.ttl, session_id, self._clock(), *_halt_args(copy.halt, halt), *tail,
        ]  # fmt: skip
        done = self._scripts["fast"](keys=keys, args=args)
        if int(done[0]):
            self._keep(session_id, int(done[1]), new, copy, delta, texts)
            return new
        # Another writer got in first, or holds the turn.
        if delta is None or not copy.restore(delta):
            copy.version = -1  # not put back: the turn brings every part
        return None

    def _delta(
        self, session_id: str, given: State | None, new: State
    ) -> tuple[list[Any], dict[str, Any] | None, dict[str, str]]:
        """Return the script arguments that store ``new`` (its changed parts, or all of it),
        the delta they hold (None: all of it) and the parts' texts."""
        delta = new.delta() if new is given and isinstance(new, parts.Tracked) else None
        full = delta is None
        if delta is None:
            delta = {"put": parts.split(new), "del": []}
        gone = delta["del"]
        texts = {name: self._encode(session_id, value) for name, value in delta["put"].items()}
        args: list[Any] = [int(full), len(gone), *gone]
        for name, text in texts.items():
            args += (name, text)
        return args, None if full else delta, texts

    def _keep(
        self,
        session_id: str,
        version: int,
        new: State,
        copy: _Copy | None,
        delta: dict[str, Any] | None,
        texts: dict[str, str],
    ) -> _Copy | None:
        """Keep ``new`` as this store's copy of the session at ``version``; return the copy."""
        if delta is not None and copy is not None and isinstance(new, parts.Tracked):
            parts.apply(copy.values, delta)  # the parts as stored now (shared with ``new``)
            parts.apply(copy.texts, {"put": texts, "del": delta["del"]})
            values, stored = copy.values, copy.texts
            state: parts.Tracked | None = new
            new.settle()
        else:
            values, stored = parts.split(new), dict(texts)
            state = parts.assemble(values.items())
        if state is None:
            return None
        kept = self._copies[session_id] = _Copy(version, state, halt_of(new), values, stored)
        while len(self._copies) > CACHED_SESSIONS:
            self._copies.popitem(last=False)
        return kept

    def _from_snapshot(
        self, session_id: str, snap: list[Any], copy: _Copy | None
    ) -> tuple[State | None, str, _Copy | None]:
        """Return (state, halt, our copy brought to it) from a snapshot (see _SNAPSHOT)."""
        kind, found = int(snap[0]), snap[3]
        held = found.decode("utf-8", "replace") if found else ""
        if kind == 2:
            return self._decode(session_id, snap[2]), held, None  # an older Tether's JSON
        if kind == 0:
            return None, held, None
        if kind == 1 and not snap[2]:
            assert copy is not None  # no parts are sent only at the copy's version
            return copy.state, held, copy
        if kind == 3:
            assert copy is not None  # parts changed since the copy's version
            values, texts = copy.values, copy.texts
            changed: dict[str, Any] = {}
            for raw, text in zip(snap[2], snap[4], strict=True):
                name = raw.decode()
                if text is None:
                    values.pop(name, None)
                    texts.pop(name, None)
                    changed[name] = None
                else:
                    changed[name] = values[name] = self._value(session_id, text)
                    texts[name] = text
            if parts.patch(copy.state, changed):
                copy.version = int(snap[1])
                return copy.state, held, copy
        else:
            pairs = iter(snap[2])
            texts = {name.decode(): text for name, text in zip(pairs, pairs, strict=True)}
            texts.pop("v", None)
            values = {name: self._value(session_id, text) for name, text in texts.items()}
        state = parts.assemble(values.items())
        if state is None:
            raise StoreError(
                f"redis at {self.location}: session {session_id!r} holds no readable state; "
                f"reset it with 'tether session reset {session_id}'"
            )
        return state, held, _Copy(int(snap[1]), state, held, values, texts)

    def _value(self, session_id: str, text: str | bytes) -> Any:
        try:
            return json.loads(text)
        except ValueError as exc:
            raise StoreError(
                f"redis at {self.location}: session {session_id!r} holds unreadable state "
                f"({exc}); reset it with 'tether session reset {session_id}'"
            ) from exc

    def delete(self, session_id: str) -> bool:
        """Forget a session; return whether it existed."""
        self._copies.pop(session_id, None)
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
            keys = [self._key(member.decode()) for member, _ in entries]
            sizes = self._scripts["sizes"](keys=keys, args=[])
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
