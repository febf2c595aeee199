"""The hook payload Claude Code defined and Codex CLI adopted: one parser for both.

The hosts differ only in their event names and in how a tool's result says it failed, so each
adapter passes its table of event kinds and a function that builds the ``ToolResult``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from tether.hosts.events import (
    HookEvent,
    Kind,
    Reply,
    field_object,
    field_str,
    optional_str,
    payload_mapping,
    reply_object,
)
from tether.model import ToolCall, ToolResult

# Where each kind of event carries its text (the user's prompt, the agent's last message).
TEXT_FIELDS = {
    Kind.PROMPT: "prompt",
    Kind.ASSISTANT: "last_assistant_message",
    Kind.SUBAGENT_STOP: "last_assistant_message",
}

ResultOf = Callable[[str, Mapping[str, Any], ToolCall], ToolResult]


def parse(payload: object, host: str, kinds: Mapping[str, Kind], result_of: ResultOf) -> HookEvent:
    """Turn a Claude-style hook payload into a HookEvent; raise InputError when malformed."""
    data = payload_mapping(payload, host)
    name = field_str(data, "hook_event_name", host)
    session_id = field_str(data, "session_id", host)
    agent_id = optional_str(data, "agent_id")
    cwd = optional_str(data, "cwd")
    kind = kinds.get(name, Kind.OTHER)
    if kind in (Kind.PRE, Kind.POST):
        call = ToolCall(
            session_id=session_id,
            tool=field_str(data, "tool_name", host),
            args=field_object(data, "tool_input", host),
            call_id=field_str(data, "tool_use_id", host, required=False),
            agent_id=agent_id,
            time=time.time(),
        )
        if kind is Kind.PRE:
            return HookEvent(kind, name, session_id, call=call, agent_id=agent_id, cwd=cwd)
        result = result_of(name, data, call)
        return HookEvent(kind, name, session_id, result=result, agent_id=agent_id, cwd=cwd)
    text = data.get(TEXT_FIELDS[kind]) if kind in TEXT_FIELDS else None
    if kind in (Kind.SUBAGENT_START, Kind.SUBAGENT_STOP):
        agent_id = field_str(data, "agent_id", host)
    return HookEvent(
        kind,
        name,
        session_id,
        agent_id=agent_id,
        text=text if isinstance(text, str) else "",
        cwd=cwd,
    )


def verdict(reply: Reply, *, can_ask: bool) -> str:
    """Return how a Claude-style host reads ``reply``: deny, ask, warn, allow or fail-open.

    ``tether doctor`` uses it to tell a real deny from a hook that merely failed.
    """
    out = reply_object(reply)
    if isinstance(out, str):
        return out
    spec = out.get("hookSpecificOutput")
    spec = spec if isinstance(spec, dict) else {}
    decision = spec.get("permissionDecision")
    if decision == "deny" or out.get("decision") == "block":
        return "deny"
    if decision == "ask" and can_ask:
        return "ask"
    return "warn" if spec.get("additionalContext") else "allow"
