"""What a client or host gets for its own mistakes: a clear refusal, never a silent allow.

A shell call whose command is missing, null or not a string cannot be checked, so it is denied
(TA106) through every door: the Python API, the sidecar's JSON API and a real hook process. A
malformed request is the client's mistake: the answer says what to fix in the request, not
"run `tether doctor`" (which cannot fix a client). Actions print as their names.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from test_serve import TETHER, request, sandbox_env, start
from tether import Guard, ToolCall
from tether.model import Action, Decision

BAD_ARGS: list[dict[str, Any]] = [{}, {"command": None}, {"command": 42}, {"command": ["ls", 1]}]


@pytest.mark.parametrize("args", BAD_ARGS)
def test_a_shell_call_without_a_command_string_is_denied(args: dict[str, Any]) -> None:
    decision = Guard().before_call(ToolCall("s", "Bash", args))
    assert decision.action is Action.BLOCK
    assert decision.codes == ("TA106",)
    assert "command" in decision.message and "string" in decision.message


def test_a_tool_that_is_not_a_shell_is_not_affected() -> None:
    assert Guard().before_call(ToolCall("s", "Read", {})).action is Action.ALLOW


@pytest.mark.parametrize("args", BAD_ARGS)
def test_the_json_api_denies_it_too(tmp_path: Path, args: dict[str, Any]) -> None:
    sc = start(tmp_path / "serve")
    try:
        body = json.dumps({"session_id": "s", "tool": "Bash", "args": args})
        doc = request(f"{sc.url}/v1/before_call", body).json()
    finally:
        sc.server.stop()
    assert doc["action"] == "block" and doc["codes"] == ["TA106"]


@pytest.mark.parametrize("tool_input", [{}, {"command": None}, {"command": 7}])
def test_a_hook_process_denies_it(tmp_path: Path, tool_input: dict[str, Any]) -> None:
    payload = {
        "session_id": "s",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": tool_input,
        "cwd": str(tmp_path),
    }
    proc = subprocess.run(
        [str(TETHER), "hook", "claude-code"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=sandbox_env(tmp_path),
        cwd=tmp_path,
        timeout=60,
    )
    reply = json.loads(proc.stdout)
    assert reply["hookSpecificOutput"]["permissionDecision"] == "deny", proc.stdout
    assert "TA106" in proc.stdout


CLIENT_MISTAKES = [
    ("/v1/before_call", "{not json"),
    ("/v1/before_call", '{"tool": "Bash"}'),
    ("/v1/after_call", '{"call": {"session_id": "s"}}'),
    ("/v1/classify", '{"command": 3}'),
]


@pytest.mark.parametrize(("path", "body"), CLIENT_MISTAKES)
def test_client_mistakes_are_not_sent_to_the_doctor(tmp_path: Path, path: str, body: str) -> None:
    sc = start(tmp_path / "serve")
    try:
        resp = request(sc.url + path, body)
    finally:
        sc.server.stop()
    doc = resp.json()
    assert resp.status == 400 and doc["action"] == "block"
    assert "doctor" not in doc["message"]
    assert doc["error"] in doc["message"] and "request" in doc["message"]


@pytest.mark.parametrize("action", list(Action))
def test_actions_print_as_their_names(action: Action) -> None:
    assert str(action) == action.label
    assert f"{action}" == action.label and f"{action:>6}" == f"{action.label:>6}"
    assert str(Decision(action).action) == action.label
    assert int(action) == action.value  # still ordered and comparable as numbers
