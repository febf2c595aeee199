"""Where session state lives between calls: the ``Store`` protocol and its backends.

A session's state is one JSON-ready dict owned by the loop guard. Stores never interpret it;
they load it and apply read-modify-write updates atomically, so concurrent hook processes of
one session never lose an update.

Halts are kept apart and never expire (see ``HALT_KEY``). Backends: ``memory`` (this process
only), ``sqlite`` (the default for hook processes) and
``redis`` (fleets). ``open_store(config)`` picks one from the ``store.*`` config section.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

State = dict[str, Any]
Updater = Callable[[State | None], State]

# A state whose ``halted`` key is a non-empty string is halted. Every store keeps that string
# apart from the state as well, in a record that never expires and that the TTL sweep, Redis
# eviction of volatile keys or the loss of the state's own key cannot take: a halt is lifted
# only by a state written without it (a real user turn) or by deleting the session. Loading a
# session whose state is gone but whose halt record is not gives ``{"halted": message}``.
HALT_KEY = "halted"


def halt_of(state: State | None) -> str:
    """Return the halt message a state carries ("" when it is not halted)."""
    value = state.get(HALT_KEY) if isinstance(state, dict) else None
    return value if isinstance(value, str) else ""


def with_halt(state: State | None, message: str) -> State | None:
    """Return ``state`` carrying the durable halt ``message`` (a fresh state if it was lost)."""
    if not message:
        return state
    if state is None:
        return {HALT_KEY: message}
    if halt_of(state) != message:
        state = dict(state)
        state[HALT_KEY] = message
    return state


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
