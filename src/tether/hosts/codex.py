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

What Codex 0.171 does (tests/e2e): the shell's PostToolUse ``tool_response`` is the bare output
string (the exit code is in the rollout file, see ``results.rollout_exit_code``); a halt does
not stop the agent, ``continue: false`` with exit 0 on PreToolUse runs the call and is ignored
after one, so a halt is an exit-2 deny and the guard refuses every later call; ``decision:
"block"`` after a call replaces the output the model reads; the model reads a deny as
"<reason>. Command: …", so the reason loses its final period. Hooks run only once trusted
(``codex_trust``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tether.hosts import claude_style, results
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
    if code is None and isinstance(response, str) and call.tool == "Bash":
        # The shell tool's response is the bare output; the exit code is in the rollout.
        code = results.rollout_exit_code(data.get("transcript_path"), call.call_id)
    return ToolResult(
        call, output=response, exit_code=code, error=code not in (None, 0), time=call.time
    )


# The header Codex's shell tools write above the output when they write one.
_EXIT_TEXT = re.compile(r"^(?:Exit code:|Process exited with code) (\d+)\s*$", re.MULTILINE)


def _exit_code(response: object) -> int | None:
    if isinstance(response, Mapping):
        for key in ("exit_code", "exitCode"):
            value = response.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
    if isinstance(response, str):
        return results.exit_code_in_text(response[:4096], _EXIT_TEXT)
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
        # Exit 2 for a halt too: ``continue: false`` on PreToolUse runs the call. The guard
        # keeps refusing calls after a halt, since Codex does not stop the agent.
        return _deny(text)
    if event.kind is Kind.POST:
        return _post(decision.action, text)
    if decision.action is Action.HALT:
        return json_reply({"continue": False, "stopReason": text})
    return json_reply({"systemMessage": text})


def render_failure(event_name: str | None, cause: str) -> Reply:
    """Return the fail-closed reply: exit 2 before a call, feedback after it, a notice otherwise."""
    text = failure_reason(cause)
    if event_name in (None, "", PRE) or event_name not in _KINDS:
        return _deny(text)
    if event_name == POST:
        return _post(Action.BLOCK, failure_reason(cause, after=True))
    return json_reply({"systemMessage": notice_reason(cause)})


def _deny(text: str) -> Reply:
    # Codex tells the model "<reason>. Command: …": a reason ending in "." would read "..".
    return Reply(stderr=text.rstrip().rstrip(".") + "\n", exit_code=2)


def _post(action: Action, text: str) -> Reply:
    out: dict[str, Any]
    # ``decision: "block"`` replaces the (already produced) result the model reads with the
    # reason; ``continue: false`` is ignored after a call, so it is never sent.
    if action >= Action.ASK:
        out = {"decision": "block", "reason": text}
    else:
        out = {"hookSpecificOutput": {"hookEventName": POST, "additionalContext": text}}
    return json_reply(out)


def verdict(reply: Reply) -> str:
    """Return how Codex reads ``reply``: deny, ask, warn, allow or fail-open."""
    return claude_style.verdict(reply, can_ask=CAN_ASK)
