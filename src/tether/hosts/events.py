"""The normalised hook event every adapter parses to, the reply it renders, and shared helpers."""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from tether.errors import InputError
from tether.model import Action, Decision, ToolCall, ToolResult
from tether.quoting import clip


class Kind(enum.Enum):
    """What a hook event means to the guard."""

    PRE = "pre"  # a tool call is about to run: Guard.before_call
    POST = "post"  # a tool call came back (success or failure): Guard.after_call
    PROMPT = "prompt"  # the user spoke: a genuine turn boundary, Guard.user_message
    ASSISTANT = "assistant"  # the agent finished its turn: its visible text, assistant_message
    SUBAGENT_START = "subagent_start"
    SUBAGENT_STOP = "subagent_stop"  # also carries the sub-agent's last visible text
    OTHER = "other"  # an event Tether has no opinion on: answered with an empty reply


class HookEvent(NamedTuple):
    """One host event in Tether's terms."""

    kind: Kind
    name: str
    session_id: str
    call: ToolCall | None = None
    result: ToolResult | None = None
    agent_id: str | None = None
    text: str = ""
    cwd: str | None = None


class Reply(NamedTuple):
    """What the hook process prints and how it exits."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0


def json_reply(obj: Mapping[str, Any], exit_code: int = 0) -> Reply:
    """Return a reply that prints ``obj`` as one line of JSON on stdout."""
    return Reply(stdout=json.dumps(obj, ensure_ascii=False) + "\n", exit_code=exit_code)


EMPTY = json_reply({})


def reply_object(reply: Reply) -> dict[str, Any] | str:
    """Return a reply's JSON object, or the verdict when the exit code already decides.

    Shared by each adapter's ``verdict``: exit 2 with a reason is a deny, any other non-zero
    exit or output that is not a JSON object makes the host fail open.
    """
    if reply.exit_code == 2:
        return "deny" if reply.stderr.strip() else "fail-open"
    if reply.exit_code != 0:
        return "fail-open"
    try:
        out = json.loads(reply.stdout) if reply.stdout.strip() else {}
    except ValueError:
        return "fail-open"
    return out if isinstance(out, dict) else "fail-open"


def reason(decision: Decision) -> str:
    """Return the one message the model (or user) reads for ``decision``."""
    message = _LEADS.get(decision.action, _NO_LEAD).sub("", decision.message.strip(), count=1)
    missing = [c for c in decision.codes if c not in message]
    if message.startswith("Tether"):  # the guard already wrote a self-describing message
        return clip(f"{message} [{', '.join(missing)}]" if missing else message)
    head = _HEAD[decision.action]
    if decision.codes:
        head += f" [{', '.join(decision.codes)}]"
    return clip(f"{head}: {message or _DEFAULT_MESSAGE[decision.action]}")


_HEAD = {
    Action.ALLOW: "Tether allowed this call",
    Action.WARN: "Tether warning",
    Action.ASK: "Tether asks for approval",
    Action.BLOCK: "Tether blocked this call",
    Action.HALT: "Tether halted the agent",
}
# A message's own lead that the headline already says ("Tether asks for approval: Needs
# approval: …" would say it twice).
_LEADS = {
    Action.ASK: re.compile(r"^(?:Tether )?needs approval:\s*", re.IGNORECASE),
    Action.BLOCK: re.compile(r"^Blocked:\s*"),
}
_NO_LEAD = re.compile(r"(?!)")
_DEFAULT_MESSAGE = {
    Action.ALLOW: "allowed.",
    Action.WARN: "this call looks like part of a loop; change approach.",
    Action.ASK: "this call needs a human's approval.",
    Action.BLOCK: "this call is not allowed.",
    Action.HALT: "stop: the session must not continue without a human.",
}


FAILED_CLOSED = "Tether could not check this call"
CAUSE_LIMIT = 400  # an exception's text can quote the input (a JSON error, a path)


def failure_reason(cause: str, *, after: bool = False) -> str:
    """Return the reason printed when Tether could not decide and so fails closed.

    ``after``: the call already ran (a result event), so nothing was denied; the next calls are.
    """
    if after:
        return (
            f"Tether could not record this call's result (the call already ran): {cause}. "
            "Later tool calls are denied until this is fixed; run `tether doctor` to find what "
            "to fix."
        )
    return (
        f"{FAILED_CLOSED}, so it is denied (fail closed): {clip(cause, CAUSE_LIMIT)}. "
        "Run `tether doctor` to find what to fix."
    )


def notice_reason(cause: str) -> str:
    """Return the notice printed when Tether could not record an event that is not a tool call."""
    return (
        f"Tether could not record this event: {clip(cause, CAUSE_LIMIT)}. Tool calls are denied "
        "until this is fixed; run `tether doctor` to find what to fix."
    )


def payload_mapping(payload: object, host: str) -> Mapping[str, Any]:
    """Return ``payload`` as a mapping or raise InputError."""
    if not isinstance(payload, Mapping):
        found = type(payload).__name__
        raise InputError(f"{host} hook: expected a JSON object on stdin, found {found}")
    return payload


def field_str(payload: Mapping[str, Any], key: str, host: str, *, required: bool = True) -> str:
    """Return the string field ``key``; raise InputError when required and missing or empty."""
    value = payload.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value):
        found = "nothing" if value is None else repr(value)[:80]
        raise InputError(f"{host} hook: field '{key}': expected a non-empty string, found {found}")
    return value


def field_object(payload: Mapping[str, Any], key: str, host: str) -> dict[str, Any]:
    """Return the object field ``key`` (missing means empty); raise InputError on another type."""
    value = payload.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        found = type(value).__name__
        raise InputError(f"{host} hook: field '{key}': expected an object, found {found}")
    return dict(value)


def optional_str(payload: Mapping[str, Any], key: str) -> str | None:
    """Return the string field ``key`` when it is a non-empty string, else None."""
    value = payload.get(key)
    return value if isinstance(value, str) and value else None
