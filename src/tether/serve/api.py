"""The library's JSON API over HTTP: request bodies to ``ToolCall``/``ToolResult``, and back.

``POST /v1/before_call`` takes a ToolCall object, ``POST /v1/after_call`` a ToolResult object
(its ``call`` is the ToolCall), both answered with ``Decision.to_json()``; ``POST /v1/classify``
takes ``{"command": "..."}`` and answers what ``tether classify --json`` prints. Field names are
the dataclasses' own, so a client can send ``dataclasses.asdict(call)``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from tether.errors import InputError
from tether.model import ToolCall, ToolResult


def load_object(body: bytes, where: str) -> Mapping[str, Any]:
    """Parse ``body`` as one JSON object; raise InputError saying what was found instead."""
    try:
        value = json.loads(body)
    except ValueError as exc:
        raise InputError(f"{where}: the request body is not valid JSON ({exc})") from None
    if not isinstance(value, Mapping):
        found = type(value).__name__
        raise InputError(f"{where}: expected a JSON object in the request body, found {found}")
    return value


def _text(data: Mapping[str, Any], key: str, where: str, *, required: bool) -> str:
    value = data.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value):
        found = "nothing" if value is None else repr(value)[:80]
        raise InputError(f"{where}: field '{key}': expected a non-empty string, found {found}")
    return value


def _number(data: Mapping[str, Any], key: str, where: str) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{where}: field '{key}': expected a number, found {value!r:.80}")
    return float(value)


def tool_call(data: object, where: str = "/v1/before_call") -> ToolCall:
    """Return the ToolCall a JSON object describes; raise InputError when it is malformed."""
    if not isinstance(data, Mapping):
        raise InputError(f"{where}: expected a ToolCall object, found {type(data).__name__}")
    args = data.get("args")
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise InputError(f"{where}: field 'args': expected an object, found {type(args).__name__}")
    agent = data.get("agent_id")
    if agent is not None and not isinstance(agent, str):
        raise InputError(f"{where}: field 'agent_id': expected a string or null, found {agent!r}")
    when = _number(data, "time", where)
    return ToolCall(
        session_id=_text(data, "session_id", where, required=True),
        tool=_text(data, "tool", where, required=True),
        args=dict(args),
        call_id=_text(data, "call_id", where, required=False),
        agent_id=agent or None,
        time=time.time() if when is None else when,  # as the host adapters stamp calls
    )


def tool_result(data: object, where: str = "/v1/after_call") -> ToolResult:
    """Return the ToolResult a JSON object describes; raise InputError when it is malformed."""
    if not isinstance(data, Mapping):
        raise InputError(f"{where}: expected a ToolResult object, found {type(data).__name__}")
    call = tool_call(data.get("call"), f"{where}: field 'call'")
    code = data.get("exit_code")
    if code is not None and (isinstance(code, bool) or not isinstance(code, int)):
        raise InputError(f"{where}: field 'exit_code': expected an integer or null, found {code!r}")
    error = data.get("error", False)
    if not isinstance(error, bool):
        raise InputError(f"{where}: field 'error': expected true or false, found {error!r}")
    when = _number(data, "time", where)
    return ToolResult(
        call=call,
        output=data.get("output"),
        exit_code=code,
        error=error,
        time=call.time if when is None else when,
    )


def command(data: Mapping[str, Any], where: str = "/v1/classify") -> str:
    """Return the shell command a classify request names."""
    value = data.get("command")
    if not isinstance(value, str):
        found = "nothing" if value is None else type(value).__name__
        raise InputError(f"{where}: field 'command': expected a string, found {found}")
    return value


def user_message(data: Mapping[str, Any], where: str) -> tuple[str, str]:
    """Return the session id and optional text of a user-message request."""
    session_id = _text(data, "session_id", where, required=True)
    return session_id, _text(data, "text", where, required=False)


def unattended(data: Mapping[str, Any], where: str) -> bool:
    """Return the optional ``unattended`` flag (no human can answer "ask": it becomes a block)."""
    value = data.get("unattended", False)
    if not isinstance(value, bool):
        raise InputError(f"{where}: field 'unattended': expected true or false, found {value!r}")
    return value


__all__ = ["command", "load_object", "tool_call", "tool_result", "unattended", "user_message"]
