"""What the real hosts send, through the real hook runner: the findings of issue 12 as payloads.

The payload shapes are the ones Codex CLI 0.171, Gemini CLI 0.61 and Claude Code 2.1.332 sent
to a hook when driven by a fake model (tests/e2e); ``tests/data/hosts/codex/rollout-0.171.jsonl``
is the part of a real Codex rollout file that names the calls. Each test feeds a session of
events through ``run_hook`` with a real SQLite store under a private HOME, and reads the replies
the way the host reads them.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from tether.hosts import adapter
from tether.hosts.events import Reply
from tether.hosts.runner import run_hook
from tether.store.open import open_store

DATA = Path(__file__).resolve().parent / "data" / "hosts"
ROLLOUT = DATA / "codex" / "rollout-0.171.jsonl"


@pytest.fixture
def environ(tmp_path: Path) -> dict[str, str]:
    """Return an environment with private XDG dirs and HOME."""
    env = {"HOME": str(tmp_path)}
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        (tmp_path / name).mkdir()
        env[name] = str(tmp_path / name)
    return env


def send(host: str, payload: dict[str, Any], environ: dict[str, str]) -> tuple[Reply, str]:
    """Run one hook event in-process; return the reply and how the host reads it."""
    out, err = io.StringIO(), io.StringIO()
    data = json.dumps(payload).encode()
    code = run_hook(host, stdin=io.BytesIO(data), stdout=out, stderr=err, environ=environ)
    reply = Reply(out.getvalue(), err.getvalue(), code)
    return reply, adapter(host).verdict(reply)


def state(session: str, environ: dict[str, str]) -> dict[str, Any]:
    """Return the stored state of ``session``."""
    from tether.config import load_config

    store = open_store(load_config(environ=environ), environ=environ)
    try:
        loaded = store.load(session)
    finally:
        store.close()
    assert loaded is not None
    return loaded


def text_of(reply: Reply) -> str:
    """Return everything a reply tells the model or the user."""
    return reply.stdout + reply.stderr


# -- Codex 0.171 ---------------------------------------------------------------------------


def codex(
    event: str, command: str, n: int, response: str | None = None, **extra: Any
) -> dict[str, Any]:
    """Return a Codex 0.171 tool event as it arrives (exec_command, reported as tool Bash)."""
    payload: dict[str, Any] = {
        "session_id": "01a230ba-4783-7441-941f-bee7f76d718f",
        "turn_id": "01a230ba-47af-79c1-9e34-3d21e5e92bd1",
        "transcript_path": None,
        "cwd": "/home/dev/project",
        "hook_event_name": event,
        "model": "gpt-fake",
        "permission_mode": "bypassPermissions",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": f"call_fake{n:04d}",
    }
    if response is not None:
        payload["tool_response"] = response
    payload.update(extra)
    return payload


def test_codex_reads_a_shell_failure_from_its_rollout_file() -> None:
    """The shell tool's tool_response is the bare output; the exit code is in the rollout."""
    ad = adapter("codex")
    failed = ad.parse(
        codex(
            "PostToolUse",
            "ls /nonexistent",
            1,
            "ls: cannot access '/nonexistent': No such file or directory\n",
            transcript_path=str(ROLLOUT),
        )
    )
    assert failed.result is not None
    assert (failed.result.exit_code, failed.result.error) == (2, True)
    ok = ad.parse(codex("PostToolUse", "echo hi", 0, "hi\n", transcript_path=str(ROLLOUT)))
    assert ok.result is not None and (ok.result.exit_code, ok.result.error) == (0, False)
    # A call the rollout does not name, or no rollout at all: unknown, never a guess.
    gone = ad.parse(codex("PostToolUse", "true", 9, "", transcript_path=str(ROLLOUT)))
    assert gone.result is not None and gone.result.exit_code is None
    header = ad.parse(codex("PostToolUse", "false", 3, "Exit code: 1\nWall time: 0 s\nOutput:\n"))
    assert header.result is not None and header.result.exit_code == 1


def test_a_failing_codex_shell_loop_is_a_failure_loop(
    environ: dict[str, str], tmp_path: Path
) -> None:
    """Recorded as successes, a failing command looked like progress-free reads (TL201)."""
    rollout = tmp_path / "rollout.jsonl"
    lines = []
    for n in range(6):
        item = {"type": "CommandExecution", "id": f"call_fake{n:04d}", "exit_code": 1}
        lines.append(
            json.dumps({"type": "event_msg", "payload": {"type": "item_completed", "item": item}})
        )
    rollout.write_text("\n".join(lines) + "\n")
    seen = []
    for n in range(4):
        send("codex", codex("PreToolUse", "cat missing.txt", n), environ)
        reply, _ = send(
            "codex",
            codex(
                "PostToolUse",
                "cat missing.txt",
                n,
                "cat: missing.txt: No such file\n",
                transcript_path=str(rollout),
            ),
            environ,
        )
        seen.append(text_of(reply))
    assert "TL203" in seen[1] and "TL201" not in "".join(seen)


def test_codex_gets_each_warning_once_and_no_reason_ending_in_two_dots(
    environ: dict[str, str],
) -> None:
    """After call N the warning comes with its result; before N+1 nothing repeats it."""
    command = "gh api repos/o/r/pulls/1/reviews"
    deliveries: list[tuple[int, str]] = []
    env = {**environ, "TETHER_LOOPS__HARD_STOP": "true"}
    for n in range(8):
        pre, verdict = send("codex", codex("PreToolUse", command, n), env)
        if verdict != "allow":
            deliveries.append((n, "pre:" + verdict))
            assert not pre.stderr.rstrip().endswith("."), pre.stderr  # Codex appends ". Command: …"
        if verdict == "deny":
            continue
        _, after = send("codex", codex("PostToolUse", command, n, "[]"), env)
        if after != "allow":
            deliveries.append((n, "post:" + after))
    # warn_after 2, hard_stop_after 5: results 2-5 warn once each; call 6 is refused, then halts.
    assert deliveries[:4] == [
        (1, "post:warn"),
        (2, "post:warn"),
        (3, "post:warn"),
        (4, "post:warn"),
    ]
    assert deliveries[4:] == [(5, "pre:deny"), (6, "pre:deny"), (7, "pre:deny")]


def test_a_codex_halt_keeps_denying_every_later_call_until_the_user_speaks(
    environ: dict[str, str],
) -> None:
    """Codex does not stop the agent on a halt: every later call is refused, telling it to stop."""
    env = {**environ, "TETHER_LOOPS__HARD_STOP": "true"}
    command = "gh api repos/o/r/pulls/1/reviews"
    verdicts = []
    for n in range(8):
        _, verdict = send("codex", codex("PreToolUse", command, n), env)
        verdicts.append(verdict)
        if verdict == "allow":
            send("codex", codex("PostToolUse", command, n, "[]"), env)
    assert verdicts[-1] == "deny"
    other, verdict = send("codex", codex("PreToolUse", "ls -la", 50), env)
    assert verdict == "deny" and "Stop now" in other.stderr and other.exit_code == 2
    assert "continue" not in other.stdout  # on PreToolUse, continue:false would run the call
    prompt = {
        k: v for k, v in codex("UserPromptSubmit", "", 0).items() if not k.startswith("tool_")
    }
    send("codex", {**prompt, "prompt": "carry on"}, env)
    _, verdict = send("codex", codex("PreToolUse", "ls -la", 51), env)
    assert verdict == "allow"


# -- Gemini CLI 0.61 -----------------------------------------------------------------------


def gemini(
    event: str, command: str, pgid: int | None = None, code: int | None = None
) -> dict[str, Any]:
    """Return a Gemini CLI 0.61 shell event as it arrives (no call id)."""
    payload: dict[str, Any] = {
        "session_id": "17d6635c-5ad1-4c85-9d2a-f1aa3bcac053",
        "transcript_path": None,
        "cwd": "/home/dev/project",
        "hook_event_name": event,
        "timestamp": "2026-12-01T08:32:42.380Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command},
    }
    if pgid is not None:
        exit_line = f"Exit Code: {code}\n" if code else ""
        text = f"Output: []\n{exit_line}Process Group PGID: {pgid}\n"
        payload["tool_response"] = {
            "llmContent": f"<untrusted_context>\n{text}</untrusted_context>",
            "returnDisplay": "[]",
        }
    return payload


def test_a_gemini_shell_loop_is_detected_whatever_the_process_group(
    environ: dict[str, str],
) -> None:
    command = "gh api repos/o/r/pulls/1/reviews"
    verdicts = []
    for n in range(4):
        send("gemini", gemini("BeforeTool", command), environ)
        _, verdict = send("gemini", gemini("AfterTool", command, pgid=22547 + 173 * n), environ)
        verdicts.append(verdict)
    assert verdicts == ["allow", "warn", "warn", "warn"]


def test_a_gemini_failure_is_read_from_its_exit_code_text(environ: dict[str, str]) -> None:
    command = "cat missing.txt"
    replies = []
    for n in range(3):
        send("gemini", gemini("BeforeTool", command), environ)
        reply, _ = send("gemini", gemini("AfterTool", command, pgid=100 + n, code=1), environ)
        replies.append(text_of(reply))
    assert "TL203" in replies[1]  # exact failure replay, not "the same result"
    assert "TL201" not in "".join(replies)


def test_gemini_calls_pair_without_call_ids(environ: dict[str, str]) -> None:
    """15 calls are 15 calls, not 30, and nothing is left pending."""
    for n in range(15):
        command = f"cat file_{n % 5}.txt"
        send("gemini", gemini("BeforeTool", command), environ)
        send("gemini", gemini("AfterTool", command, pgid=500 + n), environ)
    st = state("17d6635c-5ad1-4c85-9d2a-f1aa3bcac053", environ)
    assert st["calls"] == 15 and st["pending"] == {}


def test_parallel_identical_gemini_calls_pair_first_in_first_out(environ: dict[str, str]) -> None:
    command = "cat a.txt"
    for _ in range(3):
        send("gemini", gemini("BeforeTool", command), environ)
    for n in range(3):
        send("gemini", gemini("AfterTool", command, pgid=n), environ)
    st = state("17d6635c-5ad1-4c85-9d2a-f1aa3bcac053", environ)
    assert st["calls"] == 3 and st["pending"] == {}
    assert [entry[1] for entry in st["window"]] == ["#1", "#2", "#3"]


# -- Claude Code 2.1.332 -------------------------------------------------------------------


def claude(event: str, command: str, n: int, **extra: Any) -> dict[str, Any]:
    """Return a Claude Code 2.1.332 Bash event as it arrives."""
    payload: dict[str, Any] = {
        "session_id": "cbbe78db-3158-44cd-b2e6-931a6dac7552",
        "transcript_path": None,
        "cwd": "/home/dev/project",
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "step"},
        "tool_use_id": f"toolu_fake{n:04d}",
    }
    if event == "PostToolUse":
        payload["tool_response"] = {
            "stdout": "[]",
            "stderr": "",
            "interrupted": False,
            "isImage": False,
        }
    payload.update(extra)
    return payload


def prompt(text: str) -> dict[str, Any]:
    """Return a Claude Code UserPromptSubmit event."""
    return {
        "session_id": "cbbe78db-3158-44cd-b2e6-931a6dac7552",
        "transcript_path": None,
        "cwd": "/home/dev/project",
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }


def test_a_task_notification_is_not_a_user_turn(environ: dict[str, str]) -> None:
    """A sub-agent finishing must not reset the loop streaks the way a user's message does."""
    command = "gh api repos/o/r/pulls/1/reviews"
    verdicts = []
    for n in range(4):
        send("claude-code", claude("PreToolUse", command, n), environ)
        _, verdict = send("claude-code", claude("PostToolUse", command, n), environ)
        verdicts.append(verdict)
        send(
            "claude-code",
            prompt("<task-notification>\n<task-id>b7c1</task-id>\n</task-notification>"),
            environ,
        )
    assert verdicts == ["allow", "warn", "warn", "warn"]
    st = state("cbbe78db-3158-44cd-b2e6-931a6dac7552", environ)
    assert st["turn"] == 0


def test_an_event_sent_twice_is_counted_once(environ: dict[str, str]) -> None:
    """The HTTP hook and its fallback (or a retry) deliver one call twice: one call, one answer."""
    for event in ("PreToolUse", "PreToolUse", "PostToolUse", "PostToolUse"):
        send("claude-code", claude(event, "rm -rf /tmp/x", 0), environ)
    first, v1 = send("claude-code", claude("PreToolUse", "mkfs.ext4 /dev/sdz9", 1), environ)
    again, v2 = send("claude-code", claude("PreToolUse", "mkfs.ext4 /dev/sdz9", 1), environ)
    assert v1 == v2 == "deny" and first.stdout == again.stdout
    st = state("cbbe78db-3158-44cd-b2e6-931a6dac7552", environ)
    assert st["calls"] == 2 and st["blocks"] == 1


def test_a_warning_before_a_call_comes_merged_with_the_results_warning(
    environ: dict[str, str],
) -> None:
    """Claude Code shows the model only the first of a Pre and a Post warning on one call."""
    env = {**environ, "TETHER_LOOPS__WARN_AFTER__TURN_CALLS": "2"}
    command = "gh api repos/o/r/pulls/1/reviews"
    send("claude-code", claude("PreToolUse", command, 0), env)
    send("claude-code", claude("PostToolUse", command, 0), env)
    pre, verdict = send("claude-code", claude("PreToolUse", command, 1), env)
    assert verdict == "allow", pre.stdout  # held for the result
    post, verdict = send("claude-code", claude("PostToolUse", command, 1), env)
    context = json.loads(post.stdout)["hookSpecificOutput"]["additionalContext"]
    assert verdict == "warn" and "TL201" in context and "TL207" in context


def test_wording_says_neither_twice_nor_denied_after_the_fact(environ: dict[str, str]) -> None:
    from tether.hosts import claude_code
    from tether.hosts.events import reason
    from tether.model import Action, Decision

    asked = reason(Decision(Action.ASK, ("TL100",), "Needs approval: git push --force."))
    assert asked.lower().count("approval") == 1, asked
    reply = claude_code.render_failure("PostToolUse", "StoreError: locked")
    assert "denied" not in json.loads(reply.stdout)["reason"].split("Later")[0]


def test_an_asked_loop_says_needs_approval_once() -> None:
    from tether.guard import Guard
    from tether.model import ToolCall, ToolResult

    g = Guard()
    for n in range(3):
        call = ToolCall("s", "Bash", {"command": "git push --force origin main"}, f"k{n}")
        decision = g.before_call(call)
        g.after_call(ToolResult(call, "! [rejected] (fetch first)", 1))
    assert "TL203" in decision.codes
    assert decision.message.lower().count("needs approval") == 1, decision.message
