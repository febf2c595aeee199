"""End-to-end tests of ``tether hook HOST`` as real processes, one per event, as hosts run it.

Every test runs ``.venv/bin/tether hook …`` with the payload on stdin and XDG_* / HOME pointing
at a temporary directory, so state lives in a real SQLite file that each process opens afresh.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TETHER = Path(sys.executable).with_name("tether")
PRE = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}
POST = {"claude-code": "PostToolUse", "codex": "PostToolUse", "gemini": "AfterTool"}
SHELL = {"claude-code": "Bash", "codex": "Bash", "gemini": "run_shell_command"}
HOSTS = list(PRE)


@pytest.fixture
def sandbox(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """Return an environment whose XDG dirs and HOME are private, and a project directory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        path = tmp_path / name.lower()
        path.mkdir()
        env[name] = str(path)
    env["HOME"] = str(tmp_path / "home")
    (tmp_path / "home").mkdir()
    project = tmp_path / "project"
    project.mkdir()
    return env, project


def hook(
    host: str, stdin: bytes | str, env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    """Run ``tether hook HOST`` once with ``stdin``; return the finished process."""
    data = stdin.decode() if isinstance(stdin, bytes) else stdin
    return subprocess.run(
        [str(TETHER), "hook", host],
        input=data,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )


def pre(host: str, session: str, command: str, cwd: Path, n: int = 0) -> str:
    """Return a pre-call payload in ``host``'s shape for a shell command."""
    payload: dict[str, Any] = {
        "session_id": session,
        "transcript_path": None,
        "cwd": str(cwd),
        "hook_event_name": PRE[host],
        "tool_name": SHELL[host],
        "tool_input": {"command": command},
    }
    if host != "gemini":
        payload.update({"tool_use_id": f"toolu_{n:04d}", "permission_mode": "default"})
    return json.dumps(payload)


def post(host: str, session: str, command: str, output: str, cwd: Path, n: int = 0) -> str:
    """Return a post-call payload in ``host``'s shape for a shell command and its output."""
    payload = json.loads(pre(host, session, command, cwd, n))
    payload["hook_event_name"] = POST[host]
    payload["tool_response"] = {
        "claude-code": {"stdout": output, "stderr": "", "interrupted": False, "isImage": False},
        "codex": output,
        "gemini": {"llmContent": output, "returnDisplay": output},
    }[host]
    if host == "codex":
        payload["turn_id"] = "turn_1"
    return json.dumps(payload)


def verdict(host: str, proc: subprocess.CompletedProcess[str]) -> str:
    """Return "deny", "ask", "warn" or "allow" as the host would read the reply."""
    if proc.returncode == 2:
        assert proc.stderr.strip(), "exit 2 needs a reason on stderr"
        return "deny"
    assert proc.returncode == 0, f"exit {proc.returncode} fails open: {proc.stderr}"
    out = json.loads(proc.stdout) if proc.stdout.strip() else {}
    if host == "gemini":
        if out.get("decision") in ("deny", "block"):
            return "deny"
        context = out.get("hookSpecificOutput", {}).get("additionalContext")
        return "warn" if out.get("systemMessage") or context else "allow"
    spec = out.get("hookSpecificOutput", {})
    decision = spec.get("permissionDecision")
    if decision in ("deny", "ask"):
        return str(decision)
    return "warn" if spec.get("additionalContext") else "allow"


def reason(proc: subprocess.CompletedProcess[str]) -> str:
    """Return all the text a host could show for the reply."""
    return proc.stdout + proc.stderr


# --- fail closed -------------------------------------------------------------------------------

MALFORMED = [
    ("not json", "{not json", "not valid JSON"),
    ("empty stdin", "", "not valid JSON"),
    ("json array", "[1, 2]", "expected a JSON object"),
    ("no session", '{"hook_event_name": "%s", "tool_name": "Bash"}', "session_id"),
    ("bad tool_input", None, "tool_input"),
    ("nested 100k deep", "[" * 100_000 + "]" * 100_000, "RecursionError"),
    ("invalid utf-8", b'{"session_id": "\xff\xfe"}', "not valid JSON"),
    ("over 32 MiB", b'{"pad": "' + b"x" * (33 * 1024 * 1024) + b'"}', "larger than"),
]


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize(("label", "text", "cause"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_input_is_denied_with_its_cause(
    host: str,
    label: str,
    text: str | bytes | None,
    cause: str,
    sandbox: tuple[dict[str, str], Path],
) -> None:
    env, project = sandbox
    if isinstance(text, bytes):
        raw = subprocess.run(
            [str(TETHER), "hook", host],
            input=text,
            capture_output=True,
            env=env,
            cwd=project,
            timeout=60,
        )
        proc = subprocess.CompletedProcess(
            raw.args, raw.returncode, raw.stdout.decode(), raw.stderr.decode()
        )
        assert verdict(host, proc) == "deny"
        assert cause in reason(proc)
        return
    if text is None:
        payload = json.loads(pre(host, "s1", "ls", project))
        payload["tool_input"] = "ls"
        text = json.dumps(payload)
    elif "%s" in text:
        text = text % PRE[host]
    proc = hook(host, text, env, project)
    assert verdict(host, proc) == "deny"
    assert cause in reason(proc)


@pytest.mark.parametrize("host", HOSTS)
def test_a_hang_is_denied_at_the_deadline(host: str, sandbox: tuple[dict[str, str], Path]) -> None:
    env, project = sandbox
    env["TETHER_HOOKS__DEADLINE"] = "0.5"
    # stdin is never closed: the hook blocks reading it until the watchdog fires.
    with subprocess.Popen(
        [str(TETHER), "hook", host],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=project,
    ) as proc:
        try:
            code = proc.wait(timeout=30)
        finally:
            assert proc.stdin is not None
            proc.stdin.close()
        assert proc.stdout is not None and proc.stderr is not None
        done = subprocess.CompletedProcess(proc.args, code, proc.stdout.read(), proc.stderr.read())
    assert verdict(host, done) == "deny"
    assert "deadline" in reason(done)


@pytest.mark.parametrize("host", HOSTS)
def test_a_config_error_is_denied_with_its_cause(
    host: str, sandbox: tuple[dict[str, str], Path]
) -> None:
    env, project = sandbox
    (project / ".tether.yaml").write_text("loops:\n  hardstop: true\n")
    proc = hook(host, pre(host, "s1", "ls -la", project), env, project)
    assert verdict(host, proc) == "deny"
    assert "hardstop" in reason(proc)


@pytest.mark.parametrize("host", HOSTS)
def test_a_corrupt_store_is_denied_with_its_cause(
    host: str, sandbox: tuple[dict[str, str], Path]
) -> None:
    env, project = sandbox
    broken = project / "state.db"
    broken.write_bytes(b"this is not a sqlite database" * 100)
    user_file = Path(env["XDG_CONFIG_HOME"]) / "tether" / "config.yaml"
    user_file.parent.mkdir(parents=True)
    user_file.write_text(f"store:\n  path: {broken}\n")  # the user's: a project's is ignored
    proc = hook(host, pre(host, "s1", "ls -la", project), env, project)
    assert verdict(host, proc) == "deny"
    assert "StoreError" in reason(proc)


@pytest.mark.parametrize("host", HOSTS)
def test_events_tether_ignores_get_an_empty_reply(
    host: str, sandbox: tuple[dict[str, str], Path]
) -> None:
    env, project = sandbox
    payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": "Notification"}
    proc = hook(host, json.dumps(payload), env, project)
    assert (proc.returncode, json.loads(proc.stdout)) == (0, {})


def test_the_hook_path_stays_lean(sandbox: tuple[dict[str, str], Path]) -> None:
    env, project = sandbox
    script = (
        "import json, sys\n"
        "from tether.cli import main\n"
        "sys.argv = ['tether', 'hook', 'claude-code']\n"
        "rc = main(['hook', 'claude-code'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'ruamel', 'redis', 'yaml', 'hypothesis', 'pydantic', 'rich', 'typer'} "
        "or m in {'tether.cli.install', 'tether.cli.doctor', 'tether.cli.session'} "
        "or m.startswith(('tether.serve', 'tether.integrations', 'tether.mcp_proxy')))\n"
        "sys.stderr.write('HEAVY=' + json.dumps(heavy))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        input=pre("claude-code", "lean", "ls -la", project),
        capture_output=True,
        text=True,
        env=env,
        cwd=project,
        timeout=60,
    )
    heavy = json.loads(proc.stderr.rsplit("HEAVY=", 1)[1])
    assert heavy == []


# --- decisions end to end ----------------------------------------------------------------------


@pytest.mark.parametrize("host", HOSTS)
def test_rm_rf_root_is_denied(host: str, sandbox: tuple[dict[str, str], Path]) -> None:
    env, project = sandbox
    proc = hook(host, pre(host, "s-rm", "rm -rf /", project), env, project)
    assert verdict(host, proc) == "deny", reason(proc)


@pytest.mark.parametrize("host", HOSTS)
def test_ls_is_not_denied(host: str, sandbox: tuple[dict[str, str], Path]) -> None:
    env, project = sandbox
    proc = hook(host, pre(host, "s-ls", "ls -la", project), env, project)
    assert verdict(host, proc) in ("allow", "warn"), reason(proc)


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize("switch", ["project-file", "environment"])
def test_a_read_loop_is_denied_by_its_11th_call_across_processes(
    host: str, switch: str, sandbox: tuple[dict[str, str], Path]
) -> None:
    env, project = sandbox
    if switch == "project-file":
        (project / ".tether.yaml").write_text("loops:\n  hard_stop: true\n")
    else:
        env["TETHER_LOOPS__HARD_STOP"] = "true"
    command = "gh api repos/o/r/pulls/1/reviews 2>&1"
    verdicts = []
    for n in range(1, 12):
        first = hook(host, pre(host, "s-loop", command, project, n), env, project)
        verdicts.append(verdict(host, first))
        if verdicts[-1] == "deny":
            break
        after = hook(host, post(host, "s-loop", command, "[]", project, n), env, project)
        assert after.returncode in (0, 2), after.stderr
    assert verdicts[0] != "deny"
    assert verdicts[-1] == "deny", verdicts
    assert len(verdicts) <= 11


@pytest.mark.parametrize("host", HOSTS)
def test_without_hard_stop_a_read_loop_warns_but_runs(
    host: str, sandbox: tuple[dict[str, str], Path]
) -> None:
    env, project = sandbox
    command = "gh api repos/o/r/pulls/1/reviews 2>&1"
    verdicts = []
    for n in range(1, 12):
        verdicts.append(
            verdict(host, hook(host, pre(host, "s-w", command, project, n), env, project))
        )
        after = hook(host, post(host, "s-w", command, "[]", project, n), env, project)
        verdicts.append(verdict(host, after))
    assert "deny" not in verdicts
    # The warning comes with the result it is about (once per call), on every host.
    assert "warn" in verdicts[1::2] and "warn" not in verdicts[0::2], verdicts


@pytest.mark.parametrize(
    ("event", "extra"),
    [
        ("UserPromptSubmit", {"prompt": "try something else"}),
        ("SubagentStart", {"agent_id": "a1", "agent_type": "general-purpose"}),
        (
            "SubagentStop",
            {"agent_id": "a1", "agent_type": "general-purpose", "stop_hook_active": False},
        ),
    ],
)
def test_turn_and_subagent_events_are_recorded_quietly(
    event: str, extra: dict[str, Any], sandbox: tuple[dict[str, str], Path]
) -> None:
    env, project = sandbox
    payload = {"session_id": "s-t", "cwd": str(project), "hook_event_name": event, **extra}
    proc = hook("claude-code", json.dumps(payload), env, project)
    assert (proc.returncode, json.loads(proc.stdout)) == (0, {}), proc.stdout


GOLDEN = Path(__file__).resolve().parent / "data" / "hosts"
GOLDEN_CASES = sorted((host, path) for host in HOSTS for path in (GOLDEN / host).glob("[!_]*.json"))


@pytest.mark.parametrize(
    ("host", "path"), GOLDEN_CASES, ids=[f"{h}/{p.stem}" for h, p in GOLDEN_CASES]
)
def test_every_golden_payload_is_decided_not_failed(
    host: str, path: Path, sandbox: tuple[dict[str, str], Path]
) -> None:
    env, project = sandbox
    payload = json.loads(path.read_text())["payload"]
    payload["cwd"] = str(project)
    proc = hook(host, json.dumps(payload), env, project)
    assert proc.returncode in (0, 2)
    assert "could not" not in reason(proc), reason(proc)


@pytest.mark.parametrize(
    ("host", "event", "field"),
    [
        ("claude-code", "Stop", "last_assistant_message"),
        ("codex", "Stop", "last_assistant_message"),
        ("gemini", "AfterAgent", "prompt_response"),
    ],
)
def test_a_repeated_final_message_warns_the_user_and_never_blocks(
    host: str, event: str, field: str, sandbox: tuple[dict[str, str], Path]
) -> None:
    env, project = sandbox
    payload = {
        "session_id": "s-mono",
        "cwd": str(project),
        "hook_event_name": event,
        "stop_hook_active": False,
        field: "Still waiting for the reviews.",
    }
    replies = [hook(host, json.dumps(payload), env, project) for _ in range(3)]
    assert [r.returncode for r in replies] == [0, 0, 0]
    outs = [json.loads(r.stdout) for r in replies]
    assert outs[:2] == [{}, {}]
    assert "TL209" in outs[2]["systemMessage"]
    assert "decision" not in outs[2]  # a Stop "block" would keep the agent talking
