"""Fake model servers on loopback for the real host CLIs, logging what the model receives.

One server speaks the three wire formats the hosts use:

* Anthropic Messages (``POST /v1/messages``, SSE) for Claude Code (``ANTHROPIC_BASE_URL``);
* OpenAI Responses (``POST /v1/responses``, SSE) for Codex (``model_providers.*.base_url`` with
  ``wire_api = "responses"``);
* Gemini (``POST /v1beta/models/M:streamGenerateContent?alt=sse``) for Gemini CLI
  (``GOOGLE_GEMINI_BASE_URL``).

The model is a script: a list of shell commands to run, one per turn, then a final text. The
step to answer is the number of tool results already in the conversation the host sent, so side
requests (titles, summaries, quota probes) never advance the script: they get plain text. Every
tool result the host sent back is logged with the text the model read, which is what the tests
assert on (a deny's reason, a loop warning, a probe's output).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FINAL = "All done."


class Script:
    """What the fake model does: run ``commands`` one per turn, then say ``FINAL``."""

    def __init__(self, commands: Sequence[str]) -> None:
        self.commands = list(commands)
        self.results: list[str] = []  # the tool results the model read back, in order
        self.received: dict[int, str] = {}  # n -> all the model was sent after n tool results
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def step(self, seen: list[str], tail: Any) -> str | None:
        """Return the next command given the tool results seen so far, or None to finish.

        ``tail`` is what the host sent since the model's last turn (the tool result and any
        context a hook added beside it), kept as JSON text for ``after``.
        """
        n = len(seen)
        with self.lock:
            if n > len(self.results):
                self.results = list(seen)
            self.received[n] = json.dumps(tail, ensure_ascii=False)
        return self.commands[n] if n < len(self.commands) else None

    def after(self, i: int) -> str:
        """Return everything the model was sent after tool call ``i`` (0-based), as JSON text."""
        return self.received.get(i + 1, "")

    @property
    def calls(self) -> int:
        """Return how many tool calls the host came back from (ran or refused)."""
        return len(self.results)


def _text(value: Any) -> str:
    """Flatten the many shapes a tool result takes (strings, content blocks, parts) to text."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_text(v) for v in value)
    if isinstance(value, dict):
        for key in ("text", "output", "content", "response", "llmContent", "error"):
            if key in value:
                return _text(value[key])
        return json.dumps(value)
    return "" if value is None else str(value)


# -- Anthropic Messages ------------------------------------------------------------------------


def _anthropic_results(body: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for message in body.get("messages", []):
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                out.append(_text(block.get("content")))
    return out


def _anthropic_events(body: dict[str, Any], script: Script) -> list[tuple[str, dict[str, Any]]]:
    tools = [t.get("name") for t in body.get("tools", []) if isinstance(t, dict)]
    messages = body.get("messages", [])
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    tail = messages[last + 1 :]
    command = script.step(_anthropic_results(body), tail) if "Bash" in tools else None
    model = body.get("model", "fake")
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        },
    }
    events: list[tuple[str, dict[str, Any]]] = [("message_start", start)]
    if command is None:
        events += [
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": FINAL},
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ]
        stop = "end_turn"
    else:
        n = len(_anthropic_results(body))
        events += [
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {
                        "type": "tool_use",
                        "id": f"toolu_fake{n:04d}",
                        "name": "Bash",
                        "input": {},
                    },
                },
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {
                        "type": "input_json_delta",
                        "partial_json": json.dumps({"command": command, "description": "step"}),
                    },
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ]
        stop = "tool_use"
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return events


# -- OpenAI Responses --------------------------------------------------------------------------


def _responses_results(body: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for item in body.get("input", []):
        if isinstance(item, dict) and item.get("type") in (
            "function_call_output",
            "custom_tool_call_output",
        ):
            out.append(_text(item.get("output")))
    return out


def _responses_events(body: dict[str, Any], script: Script) -> list[tuple[str, dict[str, Any]]]:
    tools = {t.get("name") for t in body.get("tools", []) if isinstance(t, dict)}
    results = _responses_results(body)
    items = [i for i in body.get("input", []) if isinstance(i, dict)]
    last = max((n for n, i in enumerate(items) if i.get("type") == "function_call"), default=-1)
    command = script.step(results, items[last + 1 :]) if tools else None
    n = len(results)
    rid = f"resp_fake{n:04d}"
    if command is None:
        item: dict[str, Any] = {
            "type": "message",
            "role": "assistant",
            "id": f"msg_fake{n:04d}",
            "status": "completed",
            "content": [{"type": "output_text", "text": FINAL, "annotations": []}],
        }
    else:
        name = "exec_command" if "exec_command" in tools else "shell"
        args = {"cmd": command} if name == "exec_command" else {"command": ["bash", "-lc", command]}
        item = {
            "type": "function_call",
            "id": f"fc_fake{n:04d}",
            "call_id": f"call_fake{n:04d}",
            "name": name,
            "arguments": json.dumps(args),
            "status": "completed",
        }
    usage = {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    }
    return [
        ("response.created", {"type": "response.created", "response": {"id": rid}}),
        (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        ),
        (
            "response.completed",
            {"type": "response.completed", "response": {"id": rid, "usage": usage}},
        ),
    ]


# -- Gemini ------------------------------------------------------------------------------------


def _gemini_results(body: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for content in body.get("contents", []):
        for part in content.get("parts", []) if isinstance(content, dict) else []:
            if isinstance(part, dict) and "functionResponse" in part:
                out.append(_text(part["functionResponse"].get("response")))
    return out


def _gemini_chunks(body: dict[str, Any], script: Script) -> list[dict[str, Any]]:
    declared = [
        d.get("name")
        for t in body.get("tools", [])
        if isinstance(t, dict)
        for d in t.get("functionDeclarations", [])
        if isinstance(d, dict)
    ]
    contents = [c for c in body.get("contents", []) if isinstance(c, dict)]
    last = max((n for n, c in enumerate(contents) if c.get("role") == "model"), default=-1)
    tail = contents[last + 1 :]
    wants = "run_shell_command" in declared
    command = script.step(_gemini_results(body), tail) if wants else None
    if command is None:
        part: dict[str, Any] = {"text": FINAL}
    else:
        part = {"functionCall": {"name": "run_shell_command", "args": {"command": command}}}
    return [
        {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 5,
                "totalTokenCount": 15,
            },
            "modelVersion": "gemini-fake",
        }
    ]


# -- the server --------------------------------------------------------------------------------


class FakeModel:
    """A loopback HTTP server answering all three APIs from one ``Script``."""

    def __init__(self, script: Script) -> None:
        self.script = script
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def do_GET(self) -> None:  # model lists, health probes
                self._json({"data": [], "models": []})

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(size) if size else b""
                try:
                    body = json.loads(raw) if raw else {}
                except ValueError:
                    body = {}
                path = self.path.split("?")[0]
                with outer.script.lock:
                    outer.script.requests.append({"path": self.path, "body": body})
                if path.endswith("/messages/count_tokens"):
                    self._json({"input_tokens": 10})
                elif path.endswith("/messages"):
                    self._sse([(e, d) for e, d in _anthropic_events(body, outer.script)])
                elif path.endswith("/responses"):
                    self._sse(_responses_events(body, outer.script))
                elif ":streamGenerateContent" in path:
                    self._sse([(None, c) for c in _gemini_chunks(body, outer.script)])
                elif ":generateContent" in path:
                    self._json(_gemini_chunks({}, outer.script)[0])
                elif ":countTokens" in path:
                    self._json({"totalTokens": 10})
                else:
                    self._json({})

            def _json(self, obj: Any) -> None:
                data = json.dumps(obj).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _sse(self, events: Sequence[tuple[str | None, dict[str, Any]]]) -> None:
                chunks = []
                for name, data in events:
                    head = f"event: {name}\n" if name else ""
                    chunks.append(f"{head}data: {json.dumps(data)}\n\n")
                payload = "".join(chunks).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """Return the base URL (``http://127.0.0.1:PORT``)."""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> FakeModel:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
