"""Credentials never land in the state database: previews go through ``tether.redact``.

The issue found a ``Bearer sk-…`` token in the SQLite file. The end-to-end test runs real
``tether hook claude-code`` processes (a call and its result, five times so a loop message
quotes the preview) and reads every byte of the state directory, WAL included.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tether.loops.fingerprint import preview
from tether.redact import redact

TETHER = Path(sys.executable).with_name("tether")

SECRETS = [
    ("curl -H 'Authorization: Bearer sk-ant-api03-abcdefghijklmnopqrstuvwxyz' x", "sk-ant-api03"),
    ('curl -H "authorization: token ghp_abcdefghijklmnopqrstuvwxyz012345" x', "ghp_abcdefghij"),
    ("curl -H 'Authorization: Basic dXNlcjpodW50ZXIy' https://x", "dXNlcjpodW50ZXIy"),
    ("OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234 python app.py", "sk-proj-abcdef"),
    ("export GITHUB_TOKEN=gho_abcdefghijklmnopqrstuvwx", "gho_abcdefgh"),
    ("git clone https://bob:hunter2hunter2@github.com/o/r", "hunter2hunter2"),
    ("psql postgres://app:s3cr3t-pw@db:5432/app", "s3cr3t-pw"),
    ("echo AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls", "wJalrXUtnFEMI"),
    ("aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCY", "wJalrXUtnFEMI"),
    ("mysql -u root -phunter2pw shop", "hunter2pw"),
    ("mysqldump --password=hunter2pw shop", "hunter2pw"),
    ("deploy --api-key abcd1234efgh5678 --env prod", "abcd1234efgh5678"),
    ("curl -H 'X-Api-Key: abcd1234efgh5678' https://x", "abcd1234efgh5678"),
    ("slack-cli --token xoxb-1234567890-abcdefghij", "xoxb-1234567890"),
    ("curl -d token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmn x", "eyJhbGci"),
]
KEPT = ["ls -la", "git push origin main", "grep -r password src/", "curl https://example.com/a"]


@pytest.mark.parametrize(("command", "secret"), SECRETS, ids=[s[1][:12] for s in SECRETS])
def test_each_credential_shape_is_masked(command: str, secret: str) -> None:
    assert secret not in redact(command)
    assert "***" in redact(command)
    assert secret not in preview("Bash", {"command": command}, "command")


@pytest.mark.parametrize("command", KEPT)
def test_ordinary_commands_are_left_alone(command: str) -> None:
    assert redact(command) == command


def test_a_secret_cut_by_the_preview_limit_is_still_masked() -> None:
    command = "x" * 70 + " curl -H 'Authorization: Bearer sk-abcdefghijklmnopqrstuvwxyz0123'"
    shown = preview("Bash", {"command": command}, "command")
    assert "sk-abc" not in shown and "abcdefgh" not in shown


def test_no_credential_reaches_the_state_database(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "HOME"):
        (tmp_path / name).mkdir()
        env[name] = str(tmp_path / name)
    token = "sk-ant-api03-REALLYSECRETVALUE0123456789"
    command = f"curl -s -H 'Authorization: Bearer {token}' https://api.example.com/v1/status"
    replies = []
    for n in range(5):
        for kind, extra in (
            ("PreToolUse", {}),
            ("PostToolUse", {"tool_response": {"stdout": "ok"}}),
        ):
            doc = {
                "session_id": "redact",
                "cwd": str(tmp_path),
                "hook_event_name": kind,
                "tool_name": "Bash",
                "tool_input": {"command": command},
                "tool_use_id": f"t{n}",
                **extra,
            }
            done = subprocess.run(
                [str(TETHER), "hook", "claude-code"],
                input=json.dumps(doc).encode(),
                capture_output=True,
                env=env,
                cwd=tmp_path,
                timeout=60,
                check=False,
            )
            assert done.returncode == 0, done
            replies.append(done.stdout.decode())
    state = Path(env["XDG_STATE_HOME"]) / "tether"
    files = [p for p in state.rglob("*") if p.is_file()]
    assert any(p.name == "state.db" for p in files)
    secret = b"REALLYSECRETVALUE"
    for path in files:
        assert secret not in path.read_bytes(), path
    shown = subprocess.run(
        [str(TETHER), "session", "show", "redact", "--json"],
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert shown.returncode == 0 and b"Bearer ***" in shown.stdout, shown
    assert secret not in shown.stdout
    assert not any("REALLYSECRET" in r for r in replies)
    assert any("Bearer ***" in r for r in replies)  # the loop message quotes the masked preview
