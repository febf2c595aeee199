"""The MCP proxy's framing: every request is judged or refused, and no message ends a session.

A raw JSON-RPC client (no SDK: it sends what an SDK never would) talks to the real proxy and
the real test upstream. Before issue 25, a ``tools/call`` whose id was null or missing reached
the upstream unjudged, an unhashable id or a 100,000-deep line killed a reader thread (every
later call hung), a 200 MB line took a gigabyte, and calls to tools the upstream never listed,
or to shell-like tools under other argument names, were passed on unjudged.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from test_mcp_proxy import UPSTREAM, env_for, reached

TIMEOUT = 60.0


class Raw:
    """The proxy as a subprocess, read by a thread into a queue of parsed messages."""

    def __init__(self, tmp: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tether.mcp_proxy", "--", sys.executable, str(UPSTREAM)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env_for(tmp),
            cwd=tmp,
        )
        self.out: queue.Queue[Any] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.out.put(json.loads(line))

    def send(self, data: bytes | dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        raw = data if isinstance(data, bytes) else json.dumps(data).encode() + b"\n"
        self.proc.stdin.write(raw)
        self.proc.stdin.flush()

    def answer(self, rid: Any) -> dict[str, Any]:
        """Return the next message with id ``rid`` (others, such as notifications, skipped)."""
        while True:
            message = self.out.get(timeout=TIMEOUT)
            if (
                isinstance(message, dict)
                and message.get("id") == rid
                and ("result" in message or "error" in message)
            ):
                return message

    def call(self, rid: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self.send(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
        return self.answer(rid)

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def raw(tmp_path: Path) -> Iterator[Raw]:
    client = Raw(tmp_path)
    client.send(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        }
    )
    assert "result" in client.answer(0)
    client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    yield client
    client.close()


def _ok(raw: Raw, rid: int) -> None:
    """The session still works: an ordinary call is judged, passed on and answered."""
    reply = raw.call(rid, "run_command", {"command": f"echo alive-{rid}"})
    assert reply["result"]["isError"] is False, reply


def _text(reply: dict[str, Any]) -> str:
    return "\n".join(b.get("text", "") for b in reply["result"]["content"])


def test_a_tools_call_with_a_null_or_missing_id_never_reaches_the_upstream(
    raw: Raw, tmp_path: Path
) -> None:
    danger = {"name": "run_command", "arguments": {"command": "rm -rf /"}}
    raw.send({"jsonrpc": "2.0", "id": None, "method": "tools/call", "params": danger})
    refused = raw.answer(None)
    assert refused["error"]["code"] == -32600, refused
    raw.send({"jsonrpc": "2.0", "method": "tools/call", "params": danger})  # no id at all
    _ok(raw, 1)
    assert reached(tmp_path) == ["run_command echo alive-1"]


@pytest.mark.parametrize("rid", [[1], {"a": 1}, True])
def test_an_id_that_is_not_a_string_or_number_is_refused_and_the_session_lives(
    raw: Raw, tmp_path: Path, rid: Any
) -> None:
    raw.send(
        {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "tools/call",
            "params": {"name": "run_command", "arguments": {"command": "rm -rf /"}},
        }
    )
    assert raw.answer(None)["error"]["code"] == -32600
    _ok(raw, 2)
    assert reached(tmp_path) == ["run_command echo alive-2"]


def test_a_100k_deep_line_is_a_parse_error_and_the_session_lives(raw: Raw) -> None:
    raw.send(b"[" * 100_000 + b"]" * 100_000 + b"\n")
    assert raw.answer(None)["error"]["code"] == -32700
    _ok(raw, 3)


def _peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_a_200_mb_line_is_skipped_in_bounded_memory(raw: Raw) -> None:
    before = _peak_kib(raw.proc.pid)
    params = {"name": "run_command", "arguments": {"command": "x" * (200 * 1024 * 1024)}}
    raw.send({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
    refused = raw.answer(7)  # its id was near the start of the line: answered as refused
    assert refused["error"]["code"] == -32600 and "longer than" in refused["error"]["message"]
    _ok(raw, 4)
    grown = _peak_kib(raw.proc.pid) - before
    assert grown < 120 * 1024, f"the proxy grew by {grown} KiB reading one 200 MB line"


def test_a_tool_the_upstream_never_listed_is_refused(raw: Raw, tmp_path: Path) -> None:
    reply = raw.call(5, "hidden_exec", {"command": "rm -rf /"})
    assert reply["result"]["isError"] is True and "did not list" in _text(reply), reply
    assert reached(tmp_path) == []


def test_shell_like_tools_under_other_argument_names_are_judged(raw: Raw, tmp_path: Path) -> None:
    # "Execute a shell command in the terminal", one string argument: that is the command.
    reply = raw.call(6, "run_in_console", {"text": "rm -rf /"})
    assert reply["result"]["isError"] is True and "DG101" in _text(reply), reply
    # Two string arguments and neither named like a command: cannot be judged, so refused.
    reply = raw.call(8, "exec_in", {"workdir": "/", "line": "ls"})
    assert reply["result"]["isError"] is True and "cannot tell" in _text(reply), reply
    assert raw.call(9, "run_in_console", {"text": "ls"})["result"]["isError"] is False
    assert reached(tmp_path) == ["run_in_console ls"]
