"""``tether check``: the decision the guard makes for a command under the user's config.

Each row is what a user would ask, with the setting written the ways a user writes it (a
``--set``, an environment variable, a config file), and the answer the hook gives for the
same command. ``--set`` is accepted by every command that reads the configuration.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tether.cli import COMMANDS, main

TETHER = Path(sys.executable).with_name("tether")

CASES = [
    # command, --set overrides, extra flags, action, first code
    ("ls -la", (), (), "allow", None),
    ("ls -la", ('approvals.deny=["ls*"]',), (), "block", "TA101"),
    ("git push --force origin main", (), (), "ask", "TA100"),
    ("git push --force origin main", (), ("--unattended",), "block", "TA103"),
    ("git push --force origin main", (), ("--host", "codex"), "block", "TA103"),
    ("git push --force origin main", (), ("--host", "claude-code"), "ask", "TA100"),
    ("git push --force origin main", ("approvals.mode=off",), (), "allow", None),
    ("git push --force origin main", ('approvals.allow=["git push*"]',), (), "allow", None),
    ("rm -rf /", ("approvals.mode=off",), (), "block", "TA104"),
    ("rm -rf /", ('approvals.allow=["rm*"]',), (), "block", "TA104"),
    ("git push --force x", ("approvals.unattended=ask",), ("--unattended",), "ask", "TA100"),
]


@pytest.mark.parametrize(("command", "sets", "flags", "action", "code"), CASES)
def test_check_says_what_the_guard_decides(
    command: str,
    sets: tuple[str, ...],
    flags: tuple[str, ...],
    action: str,
    code: str | None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["check", "--json", *flags, command]
    for s in sets:
        argv += ["--set", s]
    status = main(argv)
    doc = json.loads(capsys.readouterr().out)
    assert doc["action"] == action
    assert (doc["codes"][0] if doc["codes"] else None) == code
    assert status == (0 if action in ("allow", "warn") else 1)


def _sandbox(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
    )
    return env


def test_the_readme_example_with_an_environment_variable(tmp_path: Path) -> None:
    env = {**_sandbox(tmp_path), "TETHER_APPROVALS__DENY": "ls*"}
    proc = subprocess.run(
        [str(TETHER), "check", "ls -la"], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("BLOCK: ls -la")
    assert "TA101 user-deny-rule" in proc.stdout and "matched 'ls*'" in proc.stdout


def test_check_agrees_with_the_hook_for_a_project_config(tmp_path: Path) -> None:
    env = _sandbox(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    (project / ".tether.yaml").write_text("approvals:\n  deny: ['cat *secret*']\n")
    proc = subprocess.run(
        [str(TETHER), "check", "--json", "cat my-secret.txt"],
        capture_output=True,
        text=True,
        env=env,
        cwd=project,
        timeout=60,
    )
    doc = json.loads(proc.stdout)
    payload = {
        "session_id": "s",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "cat my-secret.txt"},
        "cwd": str(project),
    }
    hook = subprocess.run(
        [str(TETHER), "hook", "claude-code"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=project,
        timeout=60,
    )
    reply = json.loads(hook.stdout)["hookSpecificOutput"]
    assert doc["action"] == "block" and doc["codes"][0] == "TA101"
    assert reply["permissionDecision"] == "deny" and "TA101" in reply["permissionDecisionReason"]


def test_a_bad_set_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "ls", "--set", "approvals.mode=sometimes"]) == 2
    err = capsys.readouterr().err
    assert "approvals.mode" in err and "'manual'" in err


def _reads_config(module: str) -> bool:
    path = Path(__file__).resolve().parents[1] / "src" / (module.replace(".", "/") + ".py")
    text = path.read_text(encoding="utf-8")
    return "load_config(" in text or "config_from_args(" in text


# Commands that load a config without acting on its settings, so a --set would change nothing.
NOT_ACTING_ON_SETTINGS = {
    "trust": "loads a project file only to validate it before trusting it",
}
READERS = sorted(
    n for n, (m, _) in COMMANDS.items() if _reads_config(m) and n not in NOT_ACTING_ON_SETTINGS
)


def test_the_scan_finds_the_config_readers() -> None:
    assert {"check", "replay", "doctor", "config", "session", "serve"} <= set(READERS)


@pytest.mark.parametrize("name", READERS)
def test_every_command_that_reads_config_takes_set(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # `config` and `session` have actions; the ones that read the config take --set.
    argv = {"config": ["config", "get"], "session": ["session", "list"]}.get(name, [name])
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    assert "--set KEY=VALUE" in capsys.readouterr().out


def test_the_hook_takes_set_too(tmp_path: Path) -> None:
    payload = {
        "session_id": "s",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls -la"},
        "cwd": str(tmp_path),
    }

    def hook(*extra: str) -> dict[str, Any]:
        proc = subprocess.run(
            [str(TETHER), "hook", "claude-code", *extra],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env=_sandbox(tmp_path),
            cwd=tmp_path,
            timeout=60,
        )
        reply: dict[str, Any] = json.loads(proc.stdout or "{}").get("hookSpecificOutput", {})
        return reply

    assert hook().get("permissionDecision") != "deny"
    denied = hook("--set", 'approvals.deny=["ls*"]')
    assert denied["permissionDecision"] == "deny" and "TA101" in denied["permissionDecisionReason"]
