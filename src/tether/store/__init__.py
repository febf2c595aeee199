"""Where session state lives between calls: the ``Store`` protocol and its backends.

A session's state is one JSON-ready dict owned by the loop guard. Stores never interpret it;
they load it and apply read-modify-write updates atomically, so concurrent hook processes of
one session never lose an update.

Backends: ``memory`` (this process only), ``sqlite`` (the default for hook processes) and
``redis`` (fleets). ``open_store(config)`` picks one from the ``store.*`` config section.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

State = dict[str, Any]
Updater = Callable[[State | None], State]


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """A line of ``tether session list``."""

    session_id: str
    updated: float
    size: int


class Store(Protocol):
    """Session state, keyed by session id, with atomic read-modify-write."""

    def load(self, session_id: str) -> State | None:
        """Return the session's state, or None when nothing is recorded."""
        ...

    def update(self, session_id: str, fn: Updater) -> State:
        """Apply ``fn`` to the current state atomically, store and return its result."""
        ...

    def delete(self, session_id: str) -> bool:
        """Forget a session; return whether it existed."""
        ...

    def sessions(self) -> list[SessionInfo]:
        """Return the sessions recorded, most recently updated first."""
        ...

    def close(self) -> None:
        """Release connections and files."""
        ...
