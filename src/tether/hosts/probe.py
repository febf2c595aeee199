"""Sample events for ``tether doctor``: run an installed hook command as the host would."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tether.hosts import adapter
from tether.hosts.events import FAILED_CLOSED, Reply

PRE_EVENT = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}
SHELL_TOOL = {"claude-code": "Bash", "codex": "Bash", "gemini": "run_shell_command"}


@dataclass(frozen=True, slots=True)
class Sample:
    """One sample event, what the host must read from the reply, and why."""

    label: str
    stdin: str
    expect: str  # "deny" or "not-deny"
    fails_closed: bool = False  # True when the deny is expected to come from the failure path


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one sample did when run through a hook command."""

    sample: Sample
    verdict: str  # deny | ask | warn | allow | fail-open | error
    ok: bool
    detail: str


def pre_payload(host: str, session_id: str, command: str, cwd: Path) -> str:
    """Return a pre-call payload in ``host``'s shape for the shell ``command``."""
    payload: dict[str, object] = {
        "session_id": session_id,
        "transcript_path": None,
        "cwd": str(cwd),
        "hook_event_name": PRE_EVENT[host],
        "tool_name": SHELL_TOOL[host],
        "tool_input": {"command": command},
    }
    if host != "gemini":
        # One id per sample: a host never reuses one, and the guard answers a repeat the same.
        ident = "tether-doctor-" + "".join(c if c.isalnum() else "-" for c in command)
        payload.update({"tool_use_id": ident, "permission_mode": "default"})
    return json.dumps(payload)


def samples(host: str, session_id: str, cwd: Path) -> list[Sample]:
    """Return the doctor's samples: a hardline command, a harmless one, a malformed event."""
    return [
        Sample("`rm -rf /`", pre_payload(host, session_id, "rm -rf /", cwd), "deny"),
        Sample("`ls -la`", pre_payload(host, session_id, "ls -la", cwd), "not-deny"),
        Sample("a malformed event", '{"hook_event_name": "PreToolUse", "tool_na', "deny", True),
    ]


# Where a reply carries the text the host shows, most telling first.
REASON_KEYS = ("permissionDecisionReason", "reason", "stopReason", "additionalContext")
SAID_MAX = 4000  # characters of a reply shown whole; a longer one ends with how much was left


def said(reply: Reply) -> str:
    """Return what a hook's reply tells the model or user, on one line and whole.

    The reason inside a JSON reply (not the JSON cut at some width, which used to end the
    doctor's report mid-string), else stdout; stderr after it.
    """
    parts: list[str] = []
    out = reply.stdout.strip()
    try:
        obj = json.loads(out) if out else None
    except ValueError:
        obj = None
    if isinstance(obj, dict):
        found = _reason(obj)
        parts.append(found if found is not None else out)
    elif out:
        parts.append(out)
    if reply.stderr.strip():
        parts.append(reply.stderr.strip())
    text = " ".join(" ".join(parts).split())
    if len(text) > SAID_MAX:
        text = f"{text[:SAID_MAX]}… ({len(text) - SAID_MAX} more characters)"
    return text


def _reason(obj: dict[str, object]) -> str | None:
    for where in (obj.get("hookSpecificOutput"), obj):
        if isinstance(where, dict):
            for key in REASON_KEYS:
                value = where.get(key)
                if isinstance(value, str) and value.strip():
                    return value
    message = obj.get("systemMessage")
    return message if isinstance(message, str) and message.strip() else None


def run_sample(
    host: str,
    command: str,
    sample: Sample,
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float = 30.0,
) -> Outcome:
    """Run ``command`` through the shell with the sample on stdin; judge the reply."""
    try:
        proc = subprocess.run(
            command,
            shell=True,  # hosts run hook commands through a shell; so must the check
            input=sample.stdin,
            capture_output=True,
            text=True,
            cwd=cwd,
            env=None if env is None else dict(env),
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return Outcome(sample, "error", False, f"no answer within {timeout:g} s (host fails open)")
    except OSError as exc:
        return Outcome(sample, "error", False, f"could not start the command: {exc}")
    reply = Reply(proc.stdout, proc.stderr, proc.returncode)
    seen: str = adapter(host).verdict(reply)
    text = said(reply)
    detail = f"exit {proc.returncode}: {text}" if text else f"exit {proc.returncode}"
    if sample.expect != "deny":
        return Outcome(sample, seen, seen in ("allow", "warn", "ask"), detail)
    if seen == "deny" and FAILED_CLOSED in text and not sample.fails_closed:
        # Denied, but only because the hook itself is failing: every call would be denied.
        return Outcome(sample, "deny (hook failing)", False, detail)
    if seen == "deny" and "Tether" not in text:
        # Blocked by something that is not Tether answering (Python's "can't open file" for a
        # hook file that is gone: exit 2): every call is blocked, and none is judged.
        return Outcome(sample, "deny (not Tether's answer)", False, detail)
    return Outcome(sample, seen, seen == "deny", detail)
