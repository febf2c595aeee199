"""Recorded sessions in three formats, sniffed from the file, as one stream of events.

* the normalised trajectory JSONL of ``shared/corpus/real/trajectories`` (first line
  ``{"meta": {…}}``, then one call per line: ``tool``, ``args``, ``result``, ``exit_code``,
  ``assistant_text``, optional ``is_error``; ``"subagent": true`` in meta marks a delegated
  child; pseudo-tools ``__user_message__`` / ``__agent_message__`` are turn events);
* Claude Code transcripts (``~/.claude/projects/…/*.jsonl`` and Agent SDK stream-json): lines
  with ``type`` user/assistant whose content holds ``tool_use`` / ``tool_result`` blocks;
* OpenAI-style chat message lists: a JSON list (or ``{"messages": […]}``) or JSONL of messages
  with ``role``, ``tool_calls`` and ``tool`` replies.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from tether.errors import InputError
from tether.model import ToolCall, ToolResult

_EXPECTED = (
    "expected a Tether trajectory ({'meta': …} then one call per line), a Claude Code "
    "transcript (JSONL with type/message) or an OpenAI chat message list"
)


@dataclass(frozen=True, slots=True)
class UserTurn:
    """A genuine user message: a new turn."""

    text: str


@dataclass(frozen=True, slots=True)
class AssistantText:
    """User-visible assistant text."""

    text: str
    agent_id: str | None = None


@dataclass(frozen=True, slots=True)
class Call:
    """One recorded tool call and, when it was observed, its result."""

    index: int
    call: ToolCall
    result: ToolResult | None


Event = UserTurn | AssistantText | Call


@dataclass(frozen=True, slots=True)
class Session:
    """A recorded session: where it came from, its format, metadata and events."""

    path: str
    format: str
    session_id: str
    meta: Mapping[str, Any] = field(default_factory=dict)
    events: tuple[Event, ...] = ()

    @property
    def calls(self) -> int:
        """Return the number of tool calls."""
        return sum(1 for e in self.events if isinstance(e, Call))


def _lines(path: str, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            raise InputError(f"{path}:{n}: not valid JSON ({exc}); {_EXPECTED}") from None
        if not isinstance(obj, dict):
            raise InputError(
                f"{path}:{n}: expected a JSON object, found {type(obj).__name__}; {_EXPECTED}"
            )
        yield n, obj


def _epoch(stamp: Any) -> float | None:
    if isinstance(stamp, (int, float)) and not isinstance(stamp, bool):
        return float(stamp)
    if isinstance(stamp, str) and stamp:
        try:
            return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def split_result(value: Any) -> tuple[Any, int | None]:
    """Unwrap ``{"output": …, "exit_code": N}`` results; return (output, exit code)."""
    obj = value
    if isinstance(value, str) and value.startswith('{"output"'):
        try:
            obj = json.loads(value)
        except ValueError:
            return value, None
    if isinstance(obj, Mapping) and "output" in obj:
        code = obj.get("exit_code", obj.get("returncode", obj.get("exitCode")))
        return obj["output"], code if isinstance(code, int) and not isinstance(code, bool) else None
    return value, None


def sniff(path: str | Path, text: str | None = None) -> str:
    """Return the format of ``path`` (or of its ``text``): trajectory, claude-code or openai."""
    if text is None:
        text = Path(path).read_text(encoding="utf-8", errors="surrogateescape")
    text = text.lstrip()
    if not text:
        raise InputError(f"{path}:1: empty file; {_EXPECTED}")
    if text[0] == "[":
        return "openai"
    first_line = text.split("\n", 1)[0]
    try:
        first = json.loads(first_line)
    except ValueError:
        if text[0] == "{":  # one JSON document spread over many lines
            return "openai"
        raise InputError(f"{path}:1: not valid JSON; {_EXPECTED}") from None
    if not isinstance(first, dict):
        raise InputError(f"{path}:1: expected a JSON object; {_EXPECTED}")
    if "meta" in first or ("tool" in first and "args" in first):
        return "trajectory"
    if "messages" in first:
        return "openai"
    if "role" in first:
        return "openai"
    if (
        first.get("type") in ("user", "assistant", "system", "summary", "result")
        or "sessionId" in first
    ):
        return "claude-code"
    raise InputError(
        f"{path}:1: unrecognised line (keys: {', '.join(sorted(first)[:8])}); {_EXPECTED}"
    )


def load(path: str | Path) -> Session:
    """Read a recorded session, sniffing its format."""
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{p}: is a directory (tether replay walks it for *.jsonl and *.json)")
    if not p.is_file():
        raise InputError(f"{p}: no such file")
    try:
        text = p.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError as exc:
        raise InputError(f"{p}: cannot be read ({exc.strerror or exc})") from None
    return parse(text, str(p), p.stem)


def parse(text: str, name: str, session_id: str = "") -> Session:
    """Read a recorded session from its ``text`` (``name`` is used in messages)."""
    sid = session_id or Path(name).stem or "replay"
    fmt = sniff(name, text)
    if fmt == "trajectory":
        return _trajectory(name, text, sid)
    if fmt == "claude-code":
        return _claude_code(name, text, sid)
    return _openai(name, text, sid)


# -- normalised trajectories ---------------------------------------------------------------


def _trajectory(path: str, text: str, sid: str) -> Session:
    meta: dict[str, Any] = {}
    events: list[Event] = []
    agent: str | None = None
    calls = 0
    for n, obj in _lines(path, text):
        if "meta" in obj and len(events) == 0 and not meta:
            meta = dict(obj["meta"]) if isinstance(obj["meta"], Mapping) else {}
            if meta.get("subagent") is True:
                agent = str(meta.get("agent_id") or "subagent")
            continue
        tool, args = obj.get("tool"), obj.get("args", {})
        if not isinstance(tool, str) or not isinstance(args, Mapping):
            raise InputError(
                f"{path}:{n}: expected 'tool' (a string) and 'args' (an object); "
                f"found keys {', '.join(sorted(obj)[:8])}"
            )
        if tool == "__user_message__":
            events.append(UserTurn(str(args.get("text", ""))))
            continue
        if tool in ("__agent_message__", "__assistant_text__"):
            events.append(AssistantText(str(args.get("text", "")), agent))
            continue
        said = obj.get("assistant_text")
        if isinstance(said, str) and said.strip():
            events.append(AssistantText(said, agent))
        index = int(obj["i"]) if type(obj.get("i")) is int else calls
        calls += 1
        # Calls are numbered from 1 wherever a person reads them ("since call #3"); the
        # recorded ``i`` counts from 0.
        call = ToolCall(sid, tool, dict(args), f"#{index + 1}", agent, _epoch(obj.get("time")))
        output, code = split_result(obj.get("result"))
        exit_code = obj.get("exit_code")
        if not isinstance(exit_code, int) or isinstance(exit_code, bool):
            exit_code = code
        error = bool(obj.get("is_error") or obj.get("error"))
        result = ToolResult(call, output, exit_code, error, _epoch(obj.get("result_time")))
        events.append(Call(index, call, result))
    return Session(path, "trajectory", sid, meta, tuple(events))


# -- Claude Code -----------------------------------------------------------------------------


def _block_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, Mapping) and b.get("type") == "text"
        )
    return ""


def _claude_code(path: str, text: str, sid: str) -> Session:
    events: list[Event] = []
    calls: dict[str, int] = {}  # tool_use id -> index into events
    for n, obj in _lines(path, text):
        kind = obj.get("type")
        msg = obj.get("message")
        if kind not in ("user", "assistant") or not isinstance(msg, Mapping):
            continue
        sid = str(obj.get("sessionId") or obj.get("session_id") or sid)
        when = _epoch(obj.get("timestamp"))
        agent = "sidechain" if obj.get("isSidechain") else None
        content = msg.get("content")
        if kind == "assistant":
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
            for b in blocks:
                if not isinstance(b, Mapping):
                    continue
                if b.get("type") == "text" and str(b.get("text", "")).strip():
                    events.append(AssistantText(str(b["text"]), agent))
                elif b.get("type") == "tool_use":
                    uid = str(b.get("id", f"line{n}"))
                    given = b.get("input")
                    args: dict[str, Any] = dict(given) if isinstance(given, Mapping) else {}
                    call = ToolCall(sid, str(b.get("name", "?")), args, uid, agent, when)
                    calls[uid] = len(events)
                    events.append(Call(len(calls) - 1, call, None))
            continue
        # A user line: tool results, or a genuine prompt (not meta/system injections).
        if isinstance(content, list) and any(
            isinstance(b, Mapping) and b.get("type") == "tool_result" for b in content
        ):
            for b in content:
                if not isinstance(b, Mapping) or b.get("type") != "tool_result":
                    continue
                uid = str(b.get("tool_use_id", ""))
                pos = calls.get(uid)
                if pos is None:
                    continue
                ev = events[pos]
                assert isinstance(ev, Call)
                output, code = split_result(_block_text(b.get("content")))
                result = ToolResult(ev.call, output, code, bool(b.get("is_error")), when)
                events[pos] = Call(ev.index, ev.call, result)
        elif not obj.get("isMeta") and not obj.get("isSidechain"):
            text = _block_text(content)
            if text.strip():
                events.append(UserTurn(text))
    return Session(path, "claude-code", sid, {}, tuple(events))


# -- OpenAI chat messages ------------------------------------------------------------------


def _openai(path: str, text: str, sid: str) -> Session:
    messages: list[Any]
    try:
        doc = json.loads(text)
    except ValueError:
        messages = [obj for _, obj in _lines(path, text)]
    else:
        if isinstance(doc, Mapping) and isinstance(doc.get("messages"), list):
            messages = list(doc["messages"])
        elif isinstance(doc, list):
            messages = doc
        else:
            raise InputError(f"{path}:1: expected a list of messages or {{'messages': […]}}")
    events: list[Event] = []
    calls: dict[str, int] = {}
    for n, msg in enumerate(messages, 1):
        if not isinstance(msg, Mapping) or "role" not in msg:
            raise InputError(f"{path}: message {n}: expected an object with a 'role'")
        role, content = msg["role"], msg.get("content")
        if role == "user":
            if _block_text(content).strip():
                events.append(UserTurn(_block_text(content)))
        elif role == "assistant":
            if _block_text(content).strip():
                events.append(AssistantText(_block_text(content)))
            for tc in msg.get("tool_calls") or []:
                fn = tc.get("function", {}) if isinstance(tc, Mapping) else {}
                args: Any = fn.get("arguments", {})
                if isinstance(args, str):
                    try:
                        args = json.loads(args) if args.strip() else {}
                    except ValueError:
                        args = {"_raw": args}
                if not isinstance(args, Mapping):
                    args = {"_value": args}
                uid = str(tc.get("id", f"m{n}"))
                call = ToolCall(sid, str(fn.get("name", "?")), dict(args), uid)
                calls[uid] = len(events)
                events.append(Call(len(calls) - 1, call, None))
        elif role == "tool":
            pos = calls.get(str(msg.get("tool_call_id", "")))
            if pos is None:
                continue
            ev = events[pos]
            assert isinstance(ev, Call)
            output, code = split_result(
                _block_text(content) if not isinstance(content, str) else content
            )
            error = bool(msg.get("is_error")) or (code is not None and code != 0)
            events[pos] = Call(ev.index, ev.call, ToolResult(ev.call, output, code, error))
    return Session(path, "openai", sid, {}, tuple(events))
