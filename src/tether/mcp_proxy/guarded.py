"""The guard side of the MCP proxy: learn shell-like tools, judge calls, annotate results.

Messages are plain JSON-RPC dicts (as they travel on the wire), so nothing here needs the MCP
SDK. A tool is shell-like, so its command is classified by the danger and read-only catalogues,
when config ``tools.shell`` names it or its input schema has a ``command``, ``cmd`` or
``script`` argument. After a halt every later call is refused: the session must not go on
without a human (restart the proxy).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from tether.integrations._core import (
    Checkpoint,
    Verdict,
    add_shell_tools,
    learn_shell_tools,
    output_text,
    with_note,
)
from tether.model import ToolCall

# The key Tether adds to a result's ``structuredContent`` so clients that read only structured
# output see warnings too (declared in a tool's ``outputSchema`` only where the schema forbids
# unknown keys; every other listing passes through unchanged).
STRUCTURED_KEY = "tether"


def result_text(result: Mapping[str, Any]) -> str:
    """Return what a ``tools/call`` result says, as the text the guard fingerprints."""
    parts: list[str] = []
    for block in result.get("content") or ():
        if isinstance(block, Mapping) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        else:  # images, audio, resources: their serialised form still identifies them
            parts.append(output_text(block))
    structured = result.get("structuredContent")
    if not parts and structured is not None:
        parts.append(output_text(structured))
    return "\n".join(parts)


def error_result(text: str) -> dict[str, Any]:
    """Return the ``tools/call`` result that carries a refusal the model can read."""
    return {"content": [{"type": "text", "text": text}], "isError": True}


def with_output_key(tool: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``tool``, its closed object ``outputSchema`` also admitting Tether's note."""
    out = dict(tool)
    schema = out.get("outputSchema")
    if (
        isinstance(schema, Mapping)
        and schema.get("additionalProperties") is False
        and isinstance(schema.get("properties"), Mapping)
    ):
        props = {**schema["properties"], STRUCTURED_KEY: {"type": "object"}}
        out["outputSchema"] = {**schema, "properties": props}
    return out


# What a tool that runs commands says it does, when no argument is named like a command.
_SHELL_NAME = re.compile(
    r"(?:^|[_.\-])(?:shell|bash|zsh|sh|pwsh|powershell|terminal|console|exec|execute|cmd|"
    r"command|commands|subprocess)(?:$|[_.\-])",
    re.IGNORECASE,
)
_SHELL_TEXT = re.compile(
    r"\b(?:shell|bash|zsh|powershell|terminal|command[ -]line|(?:run|execute)s? (?:an? |any )?"
    r"(?:shell |system |terminal )?commands?)\b",
    re.IGNORECASE,
)


def says_shell(tool: Mapping[str, Any]) -> bool:
    """Return whether a listed tool's name or description says it runs commands."""
    name = _split_camel(str(tool.get("name") or ""))
    text = str(tool.get("description") or "")[:2000]
    return bool(_SHELL_NAME.search(name) or _SHELL_TEXT.search(text))


def _split_camel(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)


def string_arguments(schema: Any) -> list[str]:
    """Return the names of the string (or untyped) arguments of an input schema."""
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(props, Mapping):
        return []
    found = []
    for key, spec in props.items():
        kind = spec.get("type") if isinstance(spec, Mapping) else None
        kinds = kind if isinstance(kind, list) else [kind]
        if any(k in (None, "string") for k in kinds):
            found.append(str(key))
    return found


class GuardedTools:
    """Judge each ``tools/call``; remember a halt; keep the calls awaiting their result."""

    def __init__(self, guard: Any, session_id: str | None = None) -> None:
        self.guard = guard
        self.checkpoint = Checkpoint(guard, session_id)
        self.halted: str | None = None
        self.known: set[str] = set()  # every tool name the upstream listed
        # Shell-like tools whose command argument Tether cannot tell: their calls are refused.
        self.unreadable: dict[str, str] = {}

    def learn(self, tools: Iterable[Any]) -> dict[str, str]:
        """Learn the listed tools: which are shells, and by which argument; return the new ones.

        A tool is a shell when its schema names a command argument (``command``, ``cmd``,
        ``script``, ``cmdline`` …), or when its name or description says it runs commands:
        then its one string argument holds the command, and with several (none named like a
        command) its calls are refused, since none of them could be judged as the command.
        """
        listed = [t for t in tools if isinstance(t, Mapping) and isinstance(t.get("name"), str)]
        schemas = {str(t["name"]): t.get("inputSchema") for t in listed}
        self.known.update(schemas)
        found = learn_shell_tools(self.guard, schemas)
        known = self.guard.settings.tools
        more: dict[str, str] = {}
        for tool in listed:
            name = str(tool["name"])
            if name in found or name in known.shell or name in known.read or name in known.write:
                continue
            if not says_shell(tool):
                continue
            strings = string_arguments(schemas[name])
            if len(strings) == 1:
                more[name] = strings[0]
            elif strings:
                self.unreadable[name] = ", ".join(strings)
        add_shell_tools(self.guard, more)
        return {**found, **more}

    def refusal(self, name: str) -> dict[str, Any] | None:
        """Return the refusal of a call Tether cannot judge (a tool never listed, a shell-like
        tool without a command argument), else None."""
        if name not in self.known:
            return error_result(
                f"Tether refused a call to {name!r}: the upstream MCP server did not list that "
                "tool (tools/list), so Tether cannot tell what it does (fail closed)."
            )
        if name in self.unreadable:
            return error_result(
                f"Tether refused a call to {name!r}: it looks like a tool that runs commands, "
                f"and Tether cannot tell which of its arguments ({self.unreadable[name]}) holds "
                "the command. Name it in the config, e.g. tools.shell: "
                f"{{{name}: ARGUMENT}}, to have its calls judged (fail closed)."
            )
        return None

    def before(
        self, params: Mapping[str, Any], request_id: str
    ) -> tuple[ToolCall, Verdict] | dict[str, Any]:
        """Return the call and its verdict when it may go on, else the refusal result."""
        if self.halted is not None:
            return error_result(
                f"{self.halted}\n\nTether halted this session earlier; every call is refused "
                "until a human restarts the MCP proxy."
            )
        name = params.get("name")
        if name not in self.guard.settings.tools.shell:
            refused = self.refusal(str(name) if isinstance(name, str) else repr(name))
            if refused is not None:
                return refused
        arguments = params.get("arguments")
        call = self.checkpoint.call(
            str(params.get("name") or ""),
            dict(arguments) if isinstance(arguments, Mapping) else {},
            request_id,
        )
        verdict = self.checkpoint.before(call)
        if not verdict.refused:
            return call, verdict
        if verdict.halted:
            self.halted = verdict.message
        return error_result(verdict.message)

    def after(self, call: ToolCall, before: Verdict, result: Mapping[str, Any]) -> dict[str, Any]:
        """Record what the upstream returned; return the result the client gets."""
        after = self.checkpoint.after(call, result_text(result), bool(result.get("isError")))
        if after.halted:
            self.halted = after.message
        note = after if after.noted else before
        out = dict(result)
        if not note.noted:
            return out
        content = list(out.get("content") or ())
        out["content"] = [*content, {"type": "text", "text": with_note("", note)}]
        structured = out.get("structuredContent")
        if isinstance(structured, Mapping):
            decision = note.decision
            out["structuredContent"] = {
                **structured,
                STRUCTURED_KEY: {
                    "action": decision.action.name.lower(),
                    "codes": list(decision.codes),
                    "message": note.message,
                },
            }
        return out

    def failed(self, call: ToolCall, cause: str) -> dict[str, Any]:
        """Record a call whose result never came (the upstream died); return its error result."""
        self.checkpoint.after(call, cause, True)
        return error_result(cause)


__all__ = ["STRUCTURED_KEY", "GuardedTools", "error_result", "result_text", "with_output_key"]
