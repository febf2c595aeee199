"""The hook runner in-process: every fault becomes the host's deny; one reply is printed."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

import tether.guard
from tether.hosts import HOSTS, adapter
from tether.hosts.events import Reply
from tether.hosts.runner import DEFAULT_DEADLINE, initial_deadline, run_hook
from tether.model import Action, Decision

PRE = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}


@pytest.fixture
def environ(tmp_path: Path) -> dict[str, str]:
    """Return an environment with private XDG dirs and HOME."""
    env = {"HOME": str(tmp_path)}
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        (tmp_path / name).mkdir()
        env[name] = str(tmp_path / name)
    return env


def answer(host: str, stdin: bytes, environ: dict[str, str]) -> tuple[int, Reply, str]:
    """Run the hook in-process; return the status, the printed reply and how the host reads it."""
    out, err = io.StringIO(), io.StringIO()
    code = run_hook(host, stdin=io.BytesIO(stdin), stdout=out, stderr=err, environ=environ)
    reply = Reply(out.getvalue(), err.getvalue(), code)
    return code, reply, adapter(host).verdict(reply)


def pre_payload(host: str, tmp: Path) -> bytes:
    """Return a pre-call payload for ``ls``."""
    return json.dumps(
        {
            "session_id": "s",
            "cwd": str(tmp),
            "hook_event_name": PRE[host],
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
        }
    ).encode()


class _Broken:
    """A guard double whose before_call misbehaves in the way the test names."""

    fault: Any = None

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def before_call(self, call: object, cwd: str | None = None) -> object:
        if isinstance(self.fault, BaseException):
            raise self.fault
        return self.fault


FAULTS: list[tuple[object, str]] = [
    (None, "not a Decision"),
    ({"action": "allow"}, "not a Decision"),
    (RuntimeError("boom"), "RuntimeError: boom"),
    (KeyboardInterrupt(), "KeyboardInterrupt"),
    (SystemExit(0), "SystemExit: 0"),
    (RecursionError("maximum recursion depth exceeded"), "RecursionError"),
]


@pytest.mark.parametrize("host", list(HOSTS))
@pytest.mark.parametrize(("fault", "cause"), FAULTS, ids=[c for _, c in FAULTS])
def test_a_misbehaving_guard_becomes_a_deny(
    host: str,
    fault: object,
    cause: str,
    environ: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_Broken, "fault", fault)
    monkeypatch.setattr(tether.guard, "Guard", _Broken)
    _, reply, seen = answer(host, pre_payload(host, tmp_path), environ)
    assert seen == "deny"
    assert cause in reply.stdout + reply.stderr


@pytest.mark.parametrize("host", list(HOSTS))
def test_a_decision_from_the_guard_is_rendered(
    host: str, environ: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_Broken, "fault", Decision(Action.BLOCK, ("TL1",), "stop"))
    monkeypatch.setattr(tether.guard, "Guard", _Broken)
    _, reply, seen = answer(host, pre_payload(host, tmp_path), environ)
    assert seen == "deny" and "TL1" in reply.stdout + reply.stderr


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", DEFAULT_DEADLINE),
        ("0.5", 0.5),
        ("2", 2.0),
        ("0", DEFAULT_DEADLINE),
        ("-1", DEFAULT_DEADLINE),
        ("soon", DEFAULT_DEADLINE),
    ],
)
def test_initial_deadline_comes_from_the_environment(value: str, expected: float) -> None:
    assert initial_deadline({"TETHER_HOOKS__DEADLINE": value}) == expected


@pytest.mark.parametrize("host", list(HOSTS))
@pytest.mark.parametrize("value", ["25", "30", "500"])
def test_a_deadline_past_the_cap_is_clamped_not_a_config_error(
    host: str, value: str, environ: dict[str, str], tmp_path: Path
) -> None:
    """docs/hosts.md: a larger TETHER_HOOKS__DEADLINE is read as 25 s; it used to deny every
    call as a config error."""
    environ["TETHER_HOOKS__DEADLINE"] = value
    _, reply, seen = answer(host, pre_payload(host, tmp_path), environ)
    assert seen != "deny", reply
    assert "could not check" not in reply.stdout + reply.stderr


def test_the_watchdog_prints_the_only_reply(environ: dict[str, str]) -> None:
    read_end, write_end = os.pipe()
    fired: list[int] = []

    def on_deadline(code: int) -> None:
        fired.append(code)
        os.close(write_end)  # let the blocked read return, as if the process had ended

    environ["TETHER_HOOKS__DEADLINE"] = "0.2"
    out, err = io.StringIO(), io.StringIO()
    with os.fdopen(read_end, "rb") as stdin:
        run_hook(
            "claude-code",
            stdin=stdin,
            stdout=out,
            stderr=err,
            environ=environ,
            exit_on_deadline=on_deadline,
        )
    assert fired == [0]
    lines = out.getvalue().splitlines()
    assert len(lines) == 1  # the main thread's own failure reply was not printed too
    assert "deadline" in json.loads(lines[0])["hookSpecificOutput"]["permissionDecisionReason"]
