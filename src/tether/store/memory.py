"""An in-process store: for the library API, tests, replays and `tether serve` without a file.

Bounded like the other backends: a session idle for ``ttl_days`` is forgotten (SQLite sweeps,
Redis expires), and past ``max_sessions`` the least recently updated session goes first, so a
long-running sidecar with ``store.backend=memory`` holds at most ``max_sessions`` states however
many sessions it has seen.
"""

from __future__ import annotations

import copy
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from tether.store import SessionInfo, State, Updater, halt_of, with_halt

DEFAULT_MAX_SESSIONS = 4096


class MemoryStore:
    """Session state in an LRU dict (oldest update first), guarded by a lock."""

    def __init__(
        self,
        *,
        ttl_days: float = 7,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
        self.ttl = ttl_days * 86400 if ttl_days > 0 else 0.0
        self.max_sessions = max_sessions
        self._clock = clock
        self._data: OrderedDict[str, tuple[float, State]] = OrderedDict()
        # Halts outlive the TTL and the LRU cap (a clock jump or a flood of sessions must not
        # lift one); a real user turn or delete() does.
        self._halts: dict[str, str] = {}
        self._lock = threading.Lock()

    def load(self, session_id: str) -> State | None:
        """Return a copy of the session's state, or None (also once it has expired)."""
        with self._lock:
            entry = self._live(session_id, self._clock())
            state = copy.deepcopy(entry[1]) if entry else None
            return with_halt(state, self._halts.get(session_id, ""))

    def update(self, session_id: str, fn: Updater) -> State:
        """Apply ``fn`` under the lock and keep its result as the most recent session."""
        with self._lock:
            now = self._clock()
            entry = self._live(session_id, now)
            new = fn(with_halt(entry[1] if entry else None, self._halts.get(session_id, "")))
            halt = halt_of(new)
            if halt:
                self._halts[session_id] = halt
            else:
                self._halts.pop(session_id, None)
            self._data[session_id] = (now, new)
            self._data.move_to_end(session_id)
            self._evict(now)
            return new

    def delete(self, session_id: str) -> bool:
        """Forget a session."""
        with self._lock:
            halted = self._halts.pop(session_id, None) is not None
            return self._data.pop(session_id, None) is not None or halted

    def sessions(self) -> list[SessionInfo]:
        """Return the live sessions, most recently updated first."""
        with self._lock:
            self._evict(self._clock())
            infos = [SessionInfo(k, t, len(str(v))) for k, (t, v) in self._data.items()]
        return infos[::-1]

    def close(self) -> None:
        """Nothing to release."""

    def _live(self, session_id: str, now: float) -> tuple[float, State] | None:
        entry = self._data.get(session_id)
        if entry is not None and self.ttl and entry[0] < now - self.ttl:
            del self._data[session_id]
            return None
        return entry

    def _evict(self, now: float) -> None:
        # The dict is in update order, so expired and surplus sessions are all at its front.
        data = self._data
        while len(data) > self.max_sessions:
            data.popitem(last=False)
        if self.ttl:
            cutoff = now - self.ttl
            while data:
                updated = next(iter(data.values()))[0]
                if updated >= cutoff:
                    break
                data.popitem(last=False)
