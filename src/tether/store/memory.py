"""An in-process store: for the library API, tests and replays."""

from __future__ import annotations

import copy
import threading
import time

from tether.store import SessionInfo, State, Updater


class MemoryStore:
    """Session state in a dict, guarded by a lock."""

    def __init__(self) -> None:
        self._data: dict[str, tuple[float, State]] = {}
        self._lock = threading.Lock()

    def load(self, session_id: str) -> State | None:
        """Return a copy of the session's state, or None."""
        with self._lock:
            entry = self._data.get(session_id)
            return copy.deepcopy(entry[1]) if entry else None

    def update(self, session_id: str, fn: Updater) -> State:
        """Apply ``fn`` under the lock and keep its result."""
        with self._lock:
            entry = self._data.get(session_id)
            new = fn(entry[1] if entry else None)
            self._data[session_id] = (time.time(), new)
            return new

    def delete(self, session_id: str) -> bool:
        """Forget a session."""
        with self._lock:
            return self._data.pop(session_id, None) is not None

    def sessions(self) -> list[SessionInfo]:
        """Return the sessions, most recently updated first."""
        with self._lock:
            infos = [SessionInfo(k, t, len(str(v))) for k, (t, v) in self._data.items()]
        return sorted(infos, key=lambda s: s.updated, reverse=True)

    def close(self) -> None:
        """Nothing to release."""
