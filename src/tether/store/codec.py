"""Session state as JSON text: what the SQLite and Redis stores write, and read back checked."""

from __future__ import annotations

import json
from typing import Any

from tether.errors import StoreError
from tether.store import State


def decode(text: str | bytes, where: str, session_id: str, hint: str = "") -> State:
    """Return the state stored as ``text``; a ``StoreError`` names ``where`` and the fix."""
    reset = f"reset it with 'tether session reset {session_id}'{hint}"
    try:
        value: Any = json.loads(text)
    except ValueError as exc:
        raise StoreError(
            f"{where}: session {session_id!r} holds unreadable state ({exc}); {reset}"
        ) from exc
    if not isinstance(value, dict):
        raise StoreError(
            f"{where}: session {session_id!r} holds a {type(value).__name__}, "
            f"expected a JSON object; {reset}"
        )
    return value


def encode(session_id: str, state: State) -> str:
    """Return ``state`` as compact JSON; refuse anything a later load could not read back."""
    try:
        return json.dumps(state, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StoreError(
            f"session {session_id!r}: the new state is not JSON-ready ({exc}); "
            "the update function must return plain dicts, lists, str, int, float, bool, None"
        ) from exc
