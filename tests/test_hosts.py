"""Golden tests for the host adapters: real payload shapes in, the replies each host honours out.

Each ``tests/data/hosts/<host>/<case>.json`` holds a payload in the host's documented shape, the
event Tether must parse from it, and the reply expected for every action. ``_failures.json``
holds the fail-closed reply per event name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tether.errors import InputError
from tether.hosts import HOSTS, adapter
from tether.hosts.events import HookEvent, Reply, reason
from tether.model import Action, Decision

DATA = Path(__file__).resolve().parent / "data" / "hosts"
CASES = sorted(
    (host, path)
    for host in HOSTS
    for path in (DATA / host).glob("*.json")
    if not path.name.startswith("_")
)


def _event_json(ev: HookEvent) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": ev.kind.value,
        "name": ev.name,
        "session_id": ev.session_id,
        "agent_id": ev.agent_id,
        "text": ev.text,
        "cwd": ev.cwd,
    }
    call = ev.call or (ev.result.call if ev.result else None)
    if call is not None:
        out["call"] = {
            "tool": call.tool,
            "args": dict(call.args),
            "call_id": call.call_id,
            "agent_id": call.agent_id,
        }
    if ev.result is not None:
        out["result"] = {
            "output": ev.result.output,
            "exit_code": ev.result.exit_code,
            "error": ev.result.error,
        }
    return out


def _reply_json(reply: Reply) -> dict[str, Any]:
    stdout = json.loads(reply.stdout) if reply.stdout.strip() else None
    return {"exit_code": reply.exit_code, "stdout": stdout, "stderr": reply.stderr}


def test_every_host_has_golden_cases() -> None:
    for host in HOSTS:
        assert any(h == host for h, _ in CASES), f"no golden payloads for {host}"
        assert (DATA / host / "_failures.json").is_file()


@pytest.mark.parametrize(("host", "path"), CASES, ids=[f"{h}/{p.stem}" for h, p in CASES])
def test_parse_matches_golden_event(host: str, path: Path) -> None:
    case = json.loads(path.read_text())
    event = adapter(host).parse(case["payload"])
    assert _event_json(event) == case["event"]


@pytest.mark.parametrize(("host", "path"), CASES, ids=[f"{h}/{p.stem}" for h, p in CASES])
@pytest.mark.parametrize("action", list(Action), ids=lambda a: a.label)
def test_render_matches_golden_reply(host: str, path: Path, action: Action) -> None:
    case = json.loads(path.read_text())
    ad = adapter(host)
    event = ad.parse(case["payload"])
    decision = Decision(action, ("TL999", "test-code"), "Do something else.")
    assert _reply_json(ad.render(event, decision)) == case["replies"][action.label]


@pytest.mark.parametrize("host", list(HOSTS))
def test_failure_replies_match_golden(host: str) -> None:
    expected = json.loads((DATA / host / "_failures.json").read_text())
    ad = adapter(host)
    for name, reply in expected.items():
        event_name = None if name == "None" else name
        assert _reply_json(ad.render_failure(event_name, "ValueError: boom")) == reply, name


# What "denied before the call" looks like for each host.
def _is_pre_deny(host: str, reply: Reply) -> bool:
    if host == "codex":
        return reply.exit_code == 2 and bool(reply.stderr.strip())
    out = json.loads(reply.stdout)
    if host == "claude-code":
        return bool(
            reply.exit_code == 0
            and out["hookSpecificOutput"]["permissionDecision"] == "deny"
            and out["hookSpecificOutput"]["permissionDecisionReason"]
        )
    return reply.exit_code == 0 and out["decision"] == "deny" and bool(out["reason"])


PRE_EVENT = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}


@pytest.mark.parametrize("host", list(HOSTS))
@pytest.mark.parametrize("action", [Action.ASK, Action.BLOCK, Action.HALT], ids=lambda a: a.label)
def test_hosts_without_ask_deny_what_needs_a_human(host: str, action: Action) -> None:
    ad = adapter(host)
    payload = {
        "hook_event_name": PRE_EVENT[host],
        "session_id": "s",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /"},
    }
    reply = ad.render(ad.parse(payload), Decision(action, ("X1",), "no"))
    if host == "claude-code" and action is Action.ASK:
        assert json.loads(reply.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"
    else:
        assert _is_pre_deny(host, reply)
    assert "X1" in (reply.stdout + reply.stderr)


@pytest.mark.parametrize("host", list(HOSTS))
def test_failure_before_a_call_is_a_deny_with_the_cause(host: str) -> None:
    ad = adapter(host)
    for event_name in (None, PRE_EVENT[host], "NotAnEvent"):
        reply = ad.render_failure(event_name, "StoreError: database is locked")
        assert _is_pre_deny(host, reply), event_name
        assert "database is locked" in reply.stdout + reply.stderr


MALFORMED: list[tuple[object, str]] = [
    ([], "expected a JSON object"),
    ("PreToolUse", "expected a JSON object"),
    ({}, "hook_event_name"),
    ({"hook_event_name": "PRE", "session_id": ""}, "session_id"),
    ({"hook_event_name": "PRE"}, "session_id"),
    ({"hook_event_name": "PRE", "session_id": "s"}, "tool_name"),
    ({"hook_event_name": "PRE", "session_id": "s", "tool_name": 7}, "tool_name"),
    (
        {"hook_event_name": "PRE", "session_id": "s", "tool_name": "Bash", "tool_input": "ls"},
        "tool_input",
    ),
]


@pytest.mark.parametrize("host", list(HOSTS))
@pytest.mark.parametrize(("payload", "field"), MALFORMED)
def test_malformed_payloads_raise_input_error(host: str, payload: object, field: str) -> None:
    if isinstance(payload, dict) and payload.get("hook_event_name") == "PRE":
        payload = {**payload, "hook_event_name": PRE_EVENT[host]}
    with pytest.raises(InputError, match=field):
        adapter(host).parse(payload)


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_subagent_events_need_an_agent_id(host: str) -> None:
    with pytest.raises(InputError, match="agent_id"):
        adapter(host).parse({"hook_event_name": "SubagentStart", "session_id": "s"})


def test_unknown_host_is_rejected() -> None:
    with pytest.raises(ValueError, match="claude-code"):
        adapter("cursor")


# How each host reads Tether's reply before a call, per decision (see docs/hosts.md).
READ_AS = {
    "claude-code": {
        "allow": "allow",
        "warn": "warn",
        "ask": "ask",
        "block": "deny",
        "halt": "deny",
    },
    "codex": {"allow": "allow", "warn": "warn", "ask": "deny", "block": "deny", "halt": "deny"},
    "gemini": {"allow": "allow", "warn": "warn", "ask": "deny", "block": "deny", "halt": "deny"},
}


@pytest.mark.parametrize("host", list(HOSTS))
@pytest.mark.parametrize("action", list(Action), ids=lambda a: a.label)
def test_each_host_reads_the_pre_call_reply_as_intended(host: str, action: Action) -> None:
    ad = adapter(host)
    payload = {
        "hook_event_name": PRE_EVENT[host],
        "session_id": "s",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
    reply = ad.render(ad.parse(payload), Decision(action, ("X1",), "m"))
    assert ad.verdict(reply) == READ_AS[host][action.label]


@pytest.mark.parametrize("host", list(HOSTS))
@pytest.mark.parametrize(
    "reply",
    [Reply(exit_code=1), Reply("not json", "", 0), Reply("", "", 2), Reply("", "", 127)],
    ids=["exit-1", "junk-stdout", "exit-2-silent", "exit-127"],
)
def test_replies_a_host_ignores_read_as_fail_open(host: str, reply: Reply) -> None:
    assert adapter(host).verdict(reply) == "fail-open"


@pytest.mark.parametrize(
    ("message", "codes", "expected"),
    [
        ("Do something else.", ("TL1",), "Tether blocked this call [TL1]: Do something else."),
        ("", (), "Tether blocked this call: this call is not allowed."),
        ("Tether loop guard: stop [TL1].", ("TL1",), "Tether loop guard: stop [TL1]."),
        ("Tether loop guard: stop.", ("TL1",), "Tether loop guard: stop. [TL1]"),
        (
            "Tether blocked this call: DG101 …",
            ("TA104", "DG101"),
            "Tether blocked this call: DG101 … [TA104]",
        ),
    ],
)
def test_reason_says_everything_once(message: str, codes: tuple[str, ...], expected: str) -> None:
    assert reason(Decision(Action.BLOCK, codes, message)) == expected


@pytest.mark.parametrize(
    ("tool_input", "code"),
    [
        ({"command": "rm -rf etc", "dir_path": "/"}, "DG101"),  # /etc, not ./etc
        ({"command": "rm -rf etc", "directory": "/"}, "DG101"),  # the older name
        ({"command": "rm settings.json", "dir_path": "/home/dev/.gemini"}, "DG605"),
        ({"command": "rm -rf etc", "dir_path": "it's/here"}, None),  # quoted, still relative
    ],
)
def test_gemini_judges_a_shell_command_in_its_dir_path(
    tool_input: dict[str, str], code: str | None
) -> None:
    """Gemini CLI runs ``command`` in ``dir_path``; it was judged in the event's cwd."""
    from tether import Guard

    event = adapter("gemini").parse(
        {
            "session_id": "s",
            "cwd": "/home/dev/project",
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": tool_input,
        }
    )
    assert event.call is not None
    decision = Guard(unattended=True, environ={"HOME": "/home/dev"}).before_call(event.call)
    if code is None:
        assert "DG101" not in decision.codes, decision
    else:
        assert code in decision.codes and decision.action >= Action.BLOCK, decision
