"""The retired ``tether install claude-code --http``: it installs the command hook and says why.

Settings files written by the old ``--http`` install (an HTTP handler posting to ``tether
serve`` and a ``curl …/health || exec tether hook claude-code`` fallback in each of Tether's
groups) are built here as the old installer wrote them; the real ``tether install`` and
``tether uninstall`` must take those entries out, and nothing else. What the old install did
inside the real Claude Code is in ``tests/e2e`` and ``benchmarks/bench_stalled_sidecar.py``.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tether.hosts import settings
from tether.serve import install as http_install

TETHER = Path(sys.executable).with_name("tether")
COMMAND = f"{TETHER} hook claude-code"
BASE = "http://127.0.0.1:8765"
PATH = Path("/tmp/settings.json")
FOREIGN: dict[str, Any] = {
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "other-guard"}]},
            {"matcher": "Edit", "hooks": [{"type": "http", "url": "http://localhost:9/audit"}]},
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


def old_http_install(current: dict[str, Any], base: str = BASE) -> dict[str, Any]:
    """Return ``current`` with the entries the old ``--http`` installer wrote, token and all."""
    after = copy.deepcopy(current)
    hooks = after.setdefault("hooks", {})
    for event, matcher in settings.install_events("claude-code").items():
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        http = {
            "type": "http",
            "url": f"{base}/hook/claude-code",
            "timeout": 30,
            "headers": {"Authorization": "Bearer 0123456789abcdef"},
        }
        fallback = settings.handler(
            "claude-code", event, http_install.fallback_command(base, COMMAND)
        )
        group["hooks"] = [http, fallback]
        hooks.setdefault(event, []).append(group)
    return after


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``tether ARGS`` with HOME in ``cwd``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    env["HOME"] = str(cwd)
    return subprocess.run(
        [str(TETHER), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=60
    )


RECOGNISED = [
    ({"type": "http", "url": "http://127.0.0.1:8765/hook/claude-code"}, True, False),
    ({"type": "http", "url": "http://[::1]:9000/hook/claude-code/"}, True, False),
    ({"type": "http", "url": "http://localhost:9/audit"}, False, False),
    ({"type": "http", "url": "http://127.0.0.1:8765/hook/codex"}, False, False),
    ({"type": "command", "command": http_install.fallback_command(BASE, COMMAND)}, False, True),
    ({"type": "command", "command": "curl -sf x/health || exec other-guard"}, False, False),
    (
        {
            "type": "command",
            "command": "curl -sf https://example.com || exec tether hook claude-code",
        },
        False,
        False,
    ),
    ({"type": "command", "command": COMMAND}, False, False),
]


@pytest.mark.parametrize(("handler", "http", "fallback"), RECOGNISED)
def test_which_handlers_are_tethers(handler: dict[str, Any], http: bool, fallback: bool) -> None:
    assert http_install.is_http_entry(handler) is http
    assert http_install.is_fallback(handler) is fallback


@pytest.mark.parametrize("flags", [("--http",), ("--http", "--url", BASE), ("--url", BASE)])
def test_http_install_writes_the_command_hook_and_says_why(
    flags: tuple[str, ...], tmp_path: Path
) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(old_http_install(FOREIGN)))
    proc = cli("install", "claude-code", "--project", *flags, "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "--http is retired" in proc.stderr and "fails closed" in proc.stderr
    report = json.loads(proc.stdout)
    assert report["http"]["retired"] is True and report["http"]["installed"] == "command"
    after = json.loads(path.read_text())
    assert http_install.installed_urls(after) == []
    assert "|| exec" not in path.read_text() and "0123456789abcdef" not in path.read_text()
    commands = settings.installed_commands(after, "claude-code")
    assert set(commands) == set(settings.install_events("claude-code")), commands
    assert after["hooks"]["PreToolUse"][:2] == FOREIGN["hooks"]["PreToolUse"]
    assert after["hooks"]["Stop"][0] == FOREIGN["hooks"]["Stop"][0]
    assert after["model"] == "opus"


def test_the_retired_note_is_given_even_when_nothing_changes(tmp_path: Path) -> None:
    assert cli("install", "claude-code", "--project", cwd=tmp_path).returncode == 0
    again = cli("install", "claude-code", "--project", "--http", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "nothing to change" in again.stdout and "--http is retired" in again.stderr


def test_plain_install_and_uninstall_take_the_old_http_entries_out(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(old_http_install(FOREIGN)))
    proc = cli("install", "claude-code", "--project", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert http_install.installed_urls(json.loads(path.read_text())) == []
    path.write_text(json.dumps(old_http_install(FOREIGN)))
    gone = cli("uninstall", "claude-code", "--project", cwd=tmp_path)
    assert gone.returncode == 0, gone.stderr
    assert json.loads(path.read_text()) == FOREIGN


def test_without_http_takes_out_exactly_the_old_entries() -> None:
    old = old_http_install(FOREIGN)
    removed = http_install.without_http(settings.remove(old, "claude-code", PATH))
    assert removed.after == FOREIGN
    assert set(removed.events) == set(settings.install_events("claude-code"))
    assert http_install.without_http(settings.remove(FOREIGN, "claude-code", PATH)).after == (
        FOREIGN
    )
