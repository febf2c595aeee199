"""Gemini CLI hooks: payload -> HookEvent, Decision -> the JSON Gemini CLI honours.

Protocol (https://geminicli.com/docs/hooks/reference): JSON on stdin with ``session_id``,
``cwd``, ``hook_event_name``, ``timestamp``; BeforeTool adds ``tool_name`` and ``tool_input``;
AfterTool adds ``tool_response`` ``{llmContent, returnDisplay, error?}``; BeforeAgent adds
``prompt``. Replies are JSON only on stdout: ``decision: "deny"`` + ``reason`` (sent to the agent
as a tool error), ``continue: false`` + ``stopReason`` (ends the agent loop),
``hookSpecificOutput.additionalContext`` on AfterTool (appended to the result the model reads),
``systemMessage`` (shown to the user). There is no "ask" and no tool-call id or sub-agent event:
Gemini CLI can only deny, so asks become denies (the guard runs unattended). A warning before a
call can reach only the user (``systemMessage``); after a call it reaches the model.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from typing import Any

from tether.hosts import results
from tether.hosts.events import (
    EMPTY,
    HookEvent,
    Kind,
    Reply,
    failure_reason,
    field_object,
    field_str,
    json_reply,
    notice_reason,
    optional_str,
    payload_mapping,
    reason,
    reply_object,
)
from tether.model import Action, Decision, ToolCall, ToolResult

HOST = "gemini"
CAN_ASK = False

PRE = "BeforeTool"
POST = "AfterTool"
_KINDS = {PRE: Kind.PRE, POST: Kind.POST, "BeforeAgent": Kind.PROMPT, "AfterAgent": Kind.ASSISTANT}
_TEXT = {Kind.PROMPT: "prompt", Kind.ASSISTANT: "prompt_response"}
INSTALL_EVENTS: dict[str, str | None] = {
    PRE: ".*",
    POST: ".*",
    "BeforeAgent": None,
}  # AfterAgent is understood but not installed by default, like Stop for the other hosts


def parse(payload: object) -> HookEvent:
    """Turn a Gemini CLI hook payload into a HookEvent; raise InputError when malformed."""
    data = payload_mapping(payload, HOST)
    name = field_str(data, "hook_event_name", HOST)
    session_id = field_str(data, "session_id", HOST)
    cwd = optional_str(data, "cwd")
    kind = _KINDS.get(name, Kind.OTHER)
    if kind in (Kind.PRE, Kind.POST):
        tool = field_str(data, "tool_name", HOST)
        call = ToolCall(
            session_id=session_id,
            tool=tool,
            args=in_directory(tool, field_object(data, "tool_input", HOST)),
            time=time.time(),
        )
        if kind is Kind.PRE:
            return HookEvent(kind, name, session_id, call=call, cwd=cwd)
        result = _result(call, data.get("tool_response"))
        return HookEvent(kind, name, session_id, result=result, cwd=cwd)
    text = data.get(_TEXT[kind]) if kind in _TEXT else None
    return HookEvent(kind, name, session_id, text=text if isinstance(text, str) else "", cwd=cwd)


SHELL_TOOL = "run_shell_command"
_DIRECTORY_ARGS = ("dir_path", "directory")  # the current name, and the one before it


def in_directory(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """Return ``args`` of a shell call with its command as run: in the directory it names.

    ``run_shell_command`` runs ``command`` in ``dir_path`` (relative to the project root, or
    absolute), not in the event's ``cwd``: ``rm -rf etc`` with ``dir_path: "/"`` deletes
    ``/etc``. So the command every judge reads is ``cd -- DIR`` and then the command, which
    the rules follow as they follow any ``cd``.
    """
    command = args.get("command")
    if tool != SHELL_TOOL or not isinstance(command, str):
        return args
    for key in _DIRECTORY_ARGS:
        folder = args.get(key)
        if isinstance(folder, str) and folder.strip() not in ("", "."):
            quoted = "'" + folder.replace("'", "'\\''") + "'"
            return {**args, "command": f"cd -- {quoted}\n{command}"}
    return args


# What Gemini CLI writes into a shell result: the exit code, and lines new on every call
# (the process group and background process ids), masked so a repeated result stays the same.
_EXIT_TEXT = re.compile(r"^Exit Code: (\d+)\s*$", re.MULTILINE)
_NOISE = (
    re.compile(r"^(Process Group PGID: )\d+\s*$", re.MULTILINE),
    re.compile(r"^(Background PIDs: ).*$", re.MULTILINE),
)


def _result(call: ToolCall, response: object) -> ToolResult:
    output: object = response
    error = False
    code: int | None = None
    if isinstance(response, Mapping):
        output = response.get("llmContent", response)
        error = bool(response.get("error"))
    if isinstance(output, str):
        code = results.exit_code_in_text(output, _EXIT_TEXT)
        output = results.mask(output, _NOISE)
    failed = error or code not in (None, 0)
    return ToolResult(call, output=output, exit_code=code, error=failed, time=call.time)


def render(event: HookEvent, decision: Decision) -> Reply:
    """Return the reply that makes Gemini CLI act on ``decision`` for ``event``."""
    if decision.action is Action.ALLOW:
        return EMPTY
    text = reason(decision)
    out: dict[str, Any]
    if event.kind is Kind.PRE:
        if decision.action is Action.WARN:
            out = {"systemMessage": text}
        else:
            out = {"decision": "deny", "reason": text}
    elif event.kind is Kind.POST:
        # Append rather than deny: "deny" on AfterTool would hide the real output.
        out = {"hookSpecificOutput": {"additionalContext": text}}
    else:
        out = {"systemMessage": text}
    if decision.action is Action.HALT:
        out.update({"continue": False, "stopReason": text})
    return json_reply(out)


def render_failure(event_name: str | None, cause: str) -> Reply:
    """Return the fail-closed reply: a deny before a call, feedback after it, a notice otherwise."""
    text = failure_reason(cause)
    if event_name in (None, "", PRE) or event_name not in _KINDS:
        return json_reply({"decision": "deny", "reason": text})
    if event_name == POST:
        after = failure_reason(cause, after=True)
        return json_reply({"hookSpecificOutput": {"additionalContext": after}})
    return json_reply({"systemMessage": notice_reason(cause)})


def verdict(reply: Reply) -> str:
    """Return how Gemini CLI reads ``reply``: deny, warn, allow or fail-open."""
    out = reply_object(reply)
    if isinstance(out, str):
        return out
    if out.get("decision") in ("deny", "block"):
        return "deny"
    spec = out.get("hookSpecificOutput")
    warned = isinstance(spec, dict) and spec.get("additionalContext")
    return "warn" if warned or out.get("systemMessage") else "allow"
