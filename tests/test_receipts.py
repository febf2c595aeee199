"""Coverage receipts: every result is paired with the decision its call got before it ran.

A result with nothing to pair with ran without a guard decision (the pre-call hook did not fire
for it). The guard counts it, the hook tells the user once per session (``systemMessage``), and
``tether stats`` and ``tether doctor`` add the counts up. The real hosts, with the pre-call hook
switched off for the shell tool, are in ``tests/e2e/test_e2e_receipts.py``.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tether.guard import Guard
from tether.hosts.runner import run_hook
from tether.model import ToolCall, ToolResult

TETHER = Path(sys.executable).with_name("tether")
PRE = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}
POST = {"claude-code": "PostToolUse", "codex": "PostToolUse", "gemini": "AfterTool"}
SHELL = {"claude-code": "Bash", "codex": "Bash", "gemini": "run_shell_command"}


def call(n: int, command: str = "ls", session: str = "s") -> ToolCall:
    return ToolCall(session, "Bash", {"command": command}, call_id=f"c{n}")


def test_a_result_with_its_decision_leaves_no_receipt() -> None:
    guard = Guard()
    guard.before_call(call(1))
    decision = guard.after_call(ToolResult(call(1), output="x", exit_code=0))
    assert "unguarded" not in decision.evidence
    assert "unguarded" not in guard.store.load("s")  # type: ignore[operator]


def test_a_result_without_its_decision_is_counted_and_told_once() -> None:
    guard = Guard()
    first = guard.after_call(ToolResult(call(1, "touch a"), output="", exit_code=0))
    assert first.evidence["unguarded"] == {"n": 1, "tools": {"Bash": 1}, "first": "Bash touch a"}
    guard.before_call(call(2))  # a guarded call between: no receipt
    assert "unguarded" not in guard.after_call(ToolResult(call(2), output="", exit_code=0)).evidence
    again = guard.after_call(ToolResult(call(3, "touch b"), output="", exit_code=0))
    assert "unguarded" not in again.evidence  # told once per session
    state = guard.store.load("s")
    assert state is not None
    assert state["unguarded"]["n"] == 2 and state["unguarded"]["tools"] == {"Bash": 2}
    other = guard.after_call(ToolResult(call(4, session="t"), output="", exit_code=0))
    assert other.evidence["unguarded"]["n"] == 1  # another session is told too


def test_without_call_ids_a_result_pairs_with_an_identical_call() -> None:
    """Gemini CLI sends no call id: the result pairs with the oldest pending identical call."""
    guard = Guard()
    bare = ToolCall("g", "run_shell_command", {"command": "ls"})
    guard.before_call(bare)
    assert "unguarded" not in guard.after_call(ToolResult(bare, output="", exit_code=0)).evidence
    stray = ToolCall("g", "run_shell_command", {"command": "touch x"})
    assert guard.after_call(ToolResult(stray, output="", exit_code=0)).evidence["unguarded"]


@pytest.fixture
def environ(tmp_path: Path) -> dict[str, str]:
    env = {"HOME": str(tmp_path)}
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        (tmp_path / name).mkdir()
        env[name] = str(tmp_path / name)
    return env


def event(host: str, kind: str, command: str, n: int, tmp: Path) -> bytes:
    payload: dict[str, Any] = {
        "session_id": "r1",
        "cwd": str(tmp),
        "hook_event_name": (PRE if kind == "pre" else POST)[host],
        "tool_name": SHELL[host],
        "tool_input": {"command": command},
    }
    if host != "gemini":
        payload["tool_use_id"] = f"call_{n}"
    if kind == "post":
        payload["tool_response"] = (
            {"llmContent": "done", "returnDisplay": "done"} if host == "gemini" else "done"
        )
    return json.dumps(payload).encode()


def reply(host: str, stdin: bytes, environ: dict[str, str]) -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    code = run_hook(host, stdin=io.BytesIO(stdin), stdout=out, stderr=err, environ=environ)
    assert code == 0, err.getvalue()
    parsed: dict[str, Any] = json.loads(out.getvalue())
    return parsed


@pytest.mark.parametrize("host", list(PRE))
def test_the_user_is_told_once_per_session(
    host: str, environ: dict[str, str], tmp_path: Path
) -> None:
    reply(host, event(host, "pre", "ls", 1, tmp_path), environ)
    assert "systemMessage" not in reply(host, event(host, "post", "ls", 1, tmp_path), environ)
    told = reply(host, event(host, "post", "touch x", 2, tmp_path), environ)
    message = told["systemMessage"]
    assert "1 tool call in this session ran without a guard decision" in message
    assert (
        f"`{SHELL[host]} touch x`" in message
        and f"({PRE[host]})" in message
        and SHELL[host] in message
    )
    later = reply(host, event(host, "post", "touch y", 3, tmp_path), environ)
    assert "systemMessage" not in later


def test_stats_and_doctor_add_them_up(environ: dict[str, str], tmp_path: Path) -> None:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}, **environ}
    for n, command in enumerate(["touch a", "touch b"]):
        reply("claude-code", event("claude-code", "post", command, n, tmp_path), env)

    def tether(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(TETHER), *args], capture_output=True, text=True, env=env, cwd=tmp_path,
            timeout=120,
        )  # fmt: skip

    stats = json.loads(tether("stats", "--json").stdout)
    assert stats["unguarded"] == {"calls": 2, "sessions": 1, "tools": {"Bash": 2}}
    shown = tether("stats").stdout
    assert "WARNING: 2 calls ran without a guard decision (1 session): Bash ×2" in shown
    doctor = json.loads(tether("doctor", "--json", "--host", "claude-code").stdout)
    [receipts] = [c for c in doctor["checks"] if c["area"] == "receipts"]
    assert receipts["status"] == "warn" and "2 calls ran without" in receipts["message"]
    tether("daemon", "stop")
