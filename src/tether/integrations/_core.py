"""What every framework integration shares: one guard, the translation, the messages.

Nothing here imports a framework. Each integration module turns its framework's tool call into
a :class:`~tether.model.ToolCall`, asks :class:`Checkpoint` for the decision before the call and
after it, and renders the result in the framework's own idiom. Inside a framework run there is
no human to answer an "ask", so ``ask`` refuses the call like ``block`` (and the guard is built
unattended, so ``approvals.unattended`` applies first). A guard that raises fails closed: the
call is refused with the cause, the way the hook adapters do it.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from tether.model import Action, Decision, ToolCall, ToolResult
from tether.quoting import clip

ERROR_CODE = "tether-error"
# Arguments that, named in a tool's input schema, hold a shell command.
COMMAND_ARGS: tuple[str, ...] = (
    "command", "cmd", "script", "cmdline", "command_line", "commandLine", "shell_command",
)  # fmt: skip
# Inside a framework run no one can answer a prompt: ask (and above) refuses the call.
REFUSE_AT = Action.ASK

_HEAD = {
    Action.WARN: "Tether warning",
    Action.ASK: "Tether needs a human's approval for this call",
    Action.BLOCK: "Tether blocked this call",
    Action.HALT: "Tether halted the agent",
}


@dataclass(frozen=True, slots=True)
class Verdict:
    """A decision plus what the framework needs to act on it."""

    decision: Decision

    @property
    def refused(self) -> bool:
        """Return True when the call must not run (ask, block or halt)."""
        return self.decision.action >= REFUSE_AT

    @property
    def halted(self) -> bool:
        """Return True when the agent must stop."""
        return self.decision.action is Action.HALT

    @property
    def noted(self) -> bool:
        """Return True when the model should read a note (anything but a plain allow)."""
        return self.decision.action > Action.ALLOW

    @property
    def message(self) -> str:
        """Return the one message the model reads for this decision."""
        return message_for(self.decision)


def message_for(decision: Decision) -> str:
    """Return the text the model reads: the guard's message, or a generic one with the codes."""
    text = decision.message.strip()
    if text:
        return text
    head = _HEAD.get(decision.action, "Tether allowed this call")
    codes = ", ".join(decision.codes)
    return f"{head} [{codes}]." if codes else f"{head}."


def build_guard(guard: Any = None, config: Any = None, store: Any = None) -> Any:
    """Return ``guard``, or a new unattended Guard over ``config`` (loaded when None)."""
    if guard is not None:
        tell_once(getattr(guard, "config", None))
        return guard
    from tether.guard import Guard

    if config is None:
        from tether.config import load_config

        config = load_config()
    tell_once(config)
    return Guard(config, store, unattended=True)


_TOLD: set[str] = set()  # notices already logged by this process


def tell_once(config: Any) -> None:
    """Log, once per process, what an untrusted project file could not apply (logger ``tether``).

    An app has no user-facing channel Tether knows of; a WARNING on the ``tether`` logger
    reaches its developer (Python prints it to stderr when logging is not configured).
    """
    ignored = getattr(config, "ignored", ())
    if not ignored:
        return
    from tether.config.core import trust_notice

    notice = trust_notice(ignored)
    if notice and notice not in _TOLD:
        _TOLD.add(notice)
        import logging

        logging.getLogger("tether").warning("%s", notice)


def add_shell_tools(guard: Any, shell: Mapping[str, str]) -> None:
    """Teach ``guard`` more shell-like tools (tool name -> argument holding the command)."""
    if not shell:
        return
    settings = guard.settings
    merged = {**dict(shell), **dict(settings.tools.shell)}  # config entries win
    guard.settings = replace(settings, tools=replace(settings.tools, shell=merged))


def shell_argument(schema: Any) -> str | None:
    """Return the argument of a tool input schema that holds a shell command, if any."""
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(props, Mapping):
        return None
    for key in COMMAND_ARGS:
        spec = props.get(key)
        if not isinstance(spec, Mapping):
            continue
        kind = spec.get("type")
        kinds = kind if isinstance(kind, list) else [kind]
        if any(k in (None, "string", "array") for k in kinds):
            return key
    return None


def learn_shell_tools(guard: Any, schemas: Mapping[str, Any]) -> dict[str, str]:
    """Treat tools whose input schema names a command argument as shells; return the new ones.

    Tools the config (or the built-ins) already names as shells, reads or writes keep their
    configured meaning: ``str_replace_editor``'s ``command`` is an editor verb, not a script.
    """
    known = guard.settings.tools
    found: dict[str, str] = {}
    for name, schema in schemas.items():
        if name in known.shell or name in known.read or name in known.write:
            continue
        arg = shell_argument(schema)
        if arg is not None:
            found[name] = arg
    add_shell_tools(guard, found)
    return found


def parse_args(raw: Any) -> dict[str, Any]:
    """Return a tool's arguments as a dict (from a mapping, a JSON string or anything else)."""
    if isinstance(raw, Mapping):
        return {str(k): v for k, v in raw.items()}
    if isinstance(raw, str | bytes):
        try:
            value = json.loads(raw or "{}")
        except ValueError:
            return {"input": raw if isinstance(raw, str) else raw.decode("utf-8", "replace")}
        return parse_args(value) if isinstance(value, Mapping) else {"input": value}
    if raw is None:
        return {}
    dump = getattr(raw, "model_dump", None)  # a pydantic model of validated args
    if callable(dump):
        value = dump(mode="json")
        if isinstance(value, Mapping):
            return parse_args(value)
    return {"input": raw}


def output_text(value: Any) -> str:
    """Return a tool output as the text a model would read."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(value)


def with_note(output: str, verdict: Verdict) -> str:
    """Return ``output`` with the guard's note appended, when there is one."""
    if not verdict.noted:
        return output
    return f"{output}\n\n{verdict.message}" if output else verdict.message


# Calls whose result never came back are forgotten after this many newer ones, so the map of
# calls awaiting their result stays bounded in a long-lived process.
MAX_PENDING = 256


class Checkpoint:
    """One guard and one session, asked before and after every tool call."""

    def __init__(self, guard: Any, session_id: str | None = None) -> None:
        self.guard = guard
        self.session_id = session_id or f"tether-{uuid.uuid4().hex[:12]}"
        self._pending: dict[str, tuple[ToolCall, Verdict]] = {}

    @classmethod
    def build(
        cls,
        guard: Any = None,
        config: Any = None,
        store: Any = None,
        session_id: str | None = None,
        shell_tools: Mapping[str, str] | None = None,
    ) -> Checkpoint:
        """Use ``guard``, or build an unattended one from ``config``; add extra shell tools."""
        built = build_guard(guard, config, store)
        add_shell_tools(built, shell_tools or {})
        return cls(built, session_id)

    def user_turn(self, session_id: str, text: str = "") -> None:
        """Start a new user turn in ``session_id`` (a new run that brings a user message).

        A guard that cannot record it is not hidden: the next call's ``before`` meets the same
        fault and refuses the call with its cause (fail closed), so nothing runs unchecked.
        """
        try:
            self.guard.user_message(session_id, text)
        except Exception:  # reported, fail closed, by the next before()
            return

    def remember(self, call: ToolCall, verdict: Verdict) -> None:
        """Keep an allowed call until its result comes back (bounded)."""
        self._pending[call.call_id] = (call, verdict)
        while len(self._pending) > MAX_PENDING:
            del self._pending[next(iter(self._pending))]

    def recall(self, call_id: str) -> tuple[ToolCall, Verdict] | None:
        """Return and forget the call remembered under ``call_id``."""
        return self._pending.pop(call_id, None)

    def call(
        self,
        tool: str,
        args: Any,
        call_id: str = "",
        *,
        session_id: str | None = None,
        agent_id: str | None = None,
    ) -> ToolCall:
        """Return the ToolCall for one framework tool call."""
        return ToolCall(
            session_id=session_id or self.session_id,
            tool=tool,
            args=parse_args(args),
            call_id=call_id or f"call-{uuid.uuid4().hex[:12]}",
            agent_id=agent_id,
            time=time.time(),
        )

    def before(self, call: ToolCall) -> Verdict:
        """Return the guard's verdict on ``call``; a guard failure refuses it."""
        try:
            decision = self.guard.before_call(call)
            if not isinstance(decision, Decision):
                raise TypeError(f"the guard returned {type(decision).__name__}, not a Decision")
        except Exception as exc:  # fail closed: a broken guard never lets a call through
            decision = _failure(exc)
        return Verdict(decision)

    def after(self, call: ToolCall, output: Any, error: bool = False) -> Verdict:
        """Record what ``call`` returned; return the guard's verdict on the result."""
        result = ToolResult(call, output=output, error=error, time=time.time())
        try:
            decision = self.guard.after_call(result)
            if not isinstance(decision, Decision):
                raise TypeError(f"the guard returned {type(decision).__name__}, not a Decision")
        except Exception as exc:  # the call already ran: tell the model, the next call refuses
            decision = _failure(exc)
        return Verdict(decision)


def _failure(exc: BaseException) -> Decision:
    cause = clip(f"{type(exc).__name__}: {exc}", 400)  # an error's text can quote the input
    return Decision(
        Action.BLOCK,
        (ERROR_CODE,),
        f"Tether could not check this call, so it is refused (fail closed): {cause}. "
        "Run `tether doctor` to find what to fix.",
        {"error": cause},
    )
