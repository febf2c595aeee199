"""Claude Code hooks: payload -> HookEvent, Decision -> the JSON Claude Code honours.

Protocol (https://code.claude.com/docs/en/hooks): JSON on stdin with ``session_id``, ``cwd``,
``hook_event_name`` and, for tool events, ``tool_name``, ``tool_input``, ``tool_use_id``
(+ ``tool_response`` on PostToolUse, ``error``/``is_interrupt`` on PostToolUseFailure);
``agent_id`` inside sub-agents. Replies are JSON on stdout with exit 0. Tether never prints
``permissionDecision: "allow"``: that would skip the user's own permission prompt, and Tether's
job is to deny, ask or warn, not to grant. Exit codes other than 0 and 2 let the call through,
so every failure is answered with a JSON deny and exit 0 (exit 2 is unreliable for Write/Edit
in some versions, anthropics/claude-code#13744).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tether.hosts import claude_style
from tether.hosts.events import (
    EMPTY,
    HookEvent,
    Kind,
    Reply,
    failure_reason,
    json_reply,
    notice_reason,
    reason,
)
from tether.model import Action, Decision, ToolCall, ToolResult

HOST = "claude-code"
CAN_ASK = True  # permissionDecision "ask" shows the user a prompt

PRE = "PreToolUse"
POST = "PostToolUse"
POST_FAILURE = "PostToolUseFailure"
_KINDS = {
    PRE: Kind.PRE,
    POST: Kind.POST,
    POST_FAILURE: Kind.POST,
    "UserPromptSubmit": Kind.PROMPT,
    "SubagentStart": Kind.SUBAGENT_START,
    "SubagentStop": Kind.SUBAGENT_STOP,
    "Stop": Kind.ASSISTANT,
}
# The events ``tether install`` registers, with the matcher each gets (None: no matcher).
# ``Stop`` is understood but not installed by default: add it by hand for monologue warnings.
INSTALL_EVENTS: dict[str, str | None] = {
    PRE: "*",
    POST: "*",
    POST_FAILURE: "*",
    "UserPromptSubmit": None,
    "SubagentStart": None,
    "SubagentStop": None,
}


# Claude Code (2.1.3xx) tells the agent that a background sub-agent finished by submitting a
# "prompt" of this form: no user spoke, so it is no turn boundary.
TASK_NOTIFICATION = "<task-notification>"


def parse(payload: object) -> HookEvent:
    """Turn a Claude Code hook payload into a HookEvent; raise InputError when malformed."""
    event = claude_style.parse(payload, HOST, _KINDS, _result)
    if event.kind is Kind.PROMPT and event.text.lstrip().startswith(TASK_NOTIFICATION):
        return event._replace(kind=Kind.OTHER)
    return event


def _result(name: str, data: Mapping[str, Any], call: ToolCall) -> ToolResult:
    if name == POST_FAILURE:
        return ToolResult(call, output=data.get("error"), error=True, time=call.time)
    return ToolResult(call, output=data.get("tool_response"), time=call.time)


def render(event: HookEvent, decision: Decision) -> Reply:
    """Return the reply that makes Claude Code act on ``decision`` for ``event``."""
    if decision.action is Action.ALLOW:
        return EMPTY
    if event.kind is Kind.PRE:
        return _pre(decision)
    if event.kind is Kind.POST:
        return _post(event.name, decision)
    if decision.action is Action.HALT:
        return json_reply({"continue": False, "stopReason": reason(decision)})
    return json_reply({"systemMessage": reason(decision)})


def render_failure(event_name: str | None, cause: str) -> Reply:
    """Return the fail-closed reply: a deny before a call, feedback after it, a notice otherwise."""
    text = failure_reason(cause)
    if event_name in (None, "", PRE) or event_name not in _KINDS:
        return _deny(text)
    if event_name in (POST, POST_FAILURE):
        after = failure_reason(cause, after=True)
        return _post(event_name, Decision(Action.BLOCK, ("tether-error",), after), raw=True)
    # Blocking a user's prompt or keeping a sub-agent alive would not make anything safer:
    # tell the user instead; the next PreToolUse fails closed if the fault persists.
    return json_reply({"systemMessage": notice_reason(cause)})


def _deny(text: str, halt: bool = False) -> Reply:
    out: dict[str, Any] = {
        "hookSpecificOutput": {
            "hookEventName": PRE,
            "permissionDecision": "deny",
            "permissionDecisionReason": text,
        }
    }
    if halt:
        out.update({"continue": False, "stopReason": text})
    return json_reply(out)


def _pre(decision: Decision) -> Reply:
    text = reason(decision)
    if decision.action is Action.WARN:
        return json_reply({"hookSpecificOutput": {"hookEventName": PRE, "additionalContext": text}})
    if decision.action is Action.ASK:
        return json_reply(
            {
                "hookSpecificOutput": {
                    "hookEventName": PRE,
                    "permissionDecision": "ask",
                    "permissionDecisionReason": text,
                }
            }
        )
    return _deny(text, halt=decision.action is Action.HALT)


def _post(name: str, decision: Decision, raw: bool = False) -> Reply:
    text = decision.message if raw else reason(decision)
    out: dict[str, Any]
    # ``decision: "block"`` on PostToolUse prompts the model with the reason (the call already
    # ran); PostToolUseFailure documents only additionalContext.
    if decision.action >= Action.ASK and name == POST:
        out = {"decision": "block", "reason": text}
    else:
        out = {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}
    if decision.action is Action.HALT:
        out.update({"continue": False, "stopReason": text})
    return json_reply(out)


def verdict(reply: Reply) -> str:
    """Return how Claude Code reads ``reply``: deny, ask, warn, allow or fail-open."""
    return claude_style.verdict(reply, can_ask=CAN_ASK)
