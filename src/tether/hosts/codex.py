"""Codex CLI hooks: payload -> HookEvent, Decision -> what Codex honours.

Protocol (https://developers.openai.com/codex/hooks and the JSON Schemas in
openai/codex ``codex-rs/hooks/schema/generated/``): the same envelope as Claude Code
(``session_id``, ``cwd``, ``hook_event_name``, ``tool_name``, ``tool_input``, ``tool_use_id``,
``tool_response`` and ``turn_id`` on PostToolUse, ``agent_id`` on sub-agent events). Shell calls
arrive as tool ``Bash`` with ``tool_input.command``; ``apply_patch`` carries the patch there too.

Codex can only deny reliably: ``permissionDecision: "ask"`` and ``"allow"`` are in the schema
but were not acted on in released versions (openai/codex#20756 closed unmerged), and an
unsupported value lets the call run. So every deny, ask and halt before a call is exit 2 with
the reason on stderr, which every Codex version with hooks treats as a block. Output objects
are closed (``additionalProperties: false``): no extra keys.
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

HOST = "codex"
CAN_ASK = False  # no working "ask": the guard runs unattended (approvals.unattended applies)

PRE = "PreToolUse"
POST = "PostToolUse"
_KINDS = {
    PRE: Kind.PRE,
    POST: Kind.POST,
    "UserPromptSubmit": Kind.PROMPT,
    "SubagentStart": Kind.SUBAGENT_START,
    "SubagentStop": Kind.SUBAGENT_STOP,
    "Stop": Kind.ASSISTANT,
}
# The events ``tether install`` registers, with the matcher each gets (None: no matcher).
# ``Stop`` is understood but not installed by default: add it by hand for monologue warnings.
INSTALL_EVENTS: dict[str, str | None] = {
    PRE: ".*",
    POST: ".*",
    "UserPromptSubmit": None,
    "SubagentStart": None,
    "SubagentStop": None,
}


def parse(payload: object) -> HookEvent:
    """Turn a Codex hook payload into a HookEvent; raise InputError when malformed."""
    return claude_style.parse(payload, HOST, _KINDS, _result)


def _result(name: str, data: Mapping[str, Any], call: ToolCall) -> ToolResult:
    response = data.get("tool_response")
    code = _exit_code(response)
    return ToolResult(
        call, output=response, exit_code=code, error=code not in (None, 0), time=call.time
    )


def _exit_code(response: object) -> int | None:
    if isinstance(response, Mapping):
        for key in ("exit_code", "exitCode"):
            value = response.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
    return None


def render(event: HookEvent, decision: Decision) -> Reply:
    """Return the reply that makes Codex act on ``decision`` for ``event``."""
    if decision.action is Action.ALLOW:
        return EMPTY
    text = reason(decision)
    if event.kind is Kind.PRE:
        if decision.action is Action.WARN:
            return json_reply(
                {"hookSpecificOutput": {"hookEventName": PRE, "additionalContext": text}}
            )
        return Reply(stderr=text + "\n", exit_code=2)
    if event.kind is Kind.POST:
        return _post(decision.action, text)
    if decision.action is Action.HALT:
        return json_reply({"continue": False, "stopReason": text})
    return json_reply({"systemMessage": text})


def render_failure(event_name: str | None, cause: str) -> Reply:
    """Return the fail-closed reply: exit 2 before a call, feedback after it, a notice otherwise."""
    text = failure_reason(cause)
    if event_name in (None, "", PRE) or event_name not in _KINDS:
        return Reply(stderr=text + "\n", exit_code=2)
    if event_name == POST:
        return _post(Action.BLOCK, text)
    return json_reply({"systemMessage": notice_reason(cause)})


def _post(action: Action, text: str) -> Reply:
    out: dict[str, Any]
    # ``decision: "block"`` rejects the (already produced) result and gives the model the reason.
    if action >= Action.ASK:
        out = {"decision": "block", "reason": text}
    else:
        out = {"hookSpecificOutput": {"hookEventName": POST, "additionalContext": text}}
    if action is Action.HALT:
        out.update({"continue": False, "stopReason": text})
    return json_reply(out)


def verdict(reply: Reply) -> str:
    """Return how Codex reads ``reply``: deny, ask, warn, allow or fail-open."""
    return claude_style.verdict(reply, can_ask=CAN_ASK)
