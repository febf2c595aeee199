"""Claude Code HTTP hook entries for the sidecar: merge, take out, the fallback, the doctor check.

The fallback command is run for real through ``sh`` with ``curl``: while the service answers it
must print nothing (the HTTP handler decides), and when the service is down it must hand the
event to ``tether hook claude-code``, which denies ``rm -rf /``.
"""

from __future__ import annotations

import copy
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tether.hosts import settings
from tether.serve import Options, Service, SidecarServer
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


def sandbox_env(root: Path) -> dict[str, str]:
    """Return an environment whose XDG dirs and HOME are private directories under ``root``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "HOME"):
        path = root / name.lower()
        path.mkdir(parents=True, exist_ok=True)
        env[name] = str(path)
    return env


@pytest.fixture
def server(tmp_path: Path) -> Iterator[SidecarServer]:
    """A running sidecar on a free loopback port."""
    project = tmp_path / "project"
    project.mkdir()
    service = Service(Options(port=0), environ=sandbox_env(tmp_path), cwd=project)
    srv = SidecarServer(service)
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield srv
    srv.stop()


def dead_port() -> int:
    """Return a loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def pre_event(command: str, cwd: Path) -> str:
    """Return a Claude Code PreToolUse event for a Bash command."""
    return json.dumps(
        {
            "session_id": "fallback",
            "cwd": str(cwd),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": "t1",
        }
    )


# --- settings ----------------------------------------------------------------------------------


def test_merge_puts_an_http_handler_and_its_fallback_in_every_event() -> None:
    change = http_install.merge_http(FOREIGN, BASE, COMMAND, PATH)
    hooks = change.after["hooks"]
    for event, matcher in settings.install_events("claude-code").items():
        ours = [g for g in hooks[event] if http_install.is_http_entry(g["hooks"][0])]
        assert len(ours) == 1, event
        assert ours[0].get("matcher") == matcher
        http, fallback = ours[0]["hooks"]
        assert http["url"] == f"{BASE}/hook/claude-code"
        assert http["headers"] == {"Authorization": "Bearer $TETHER_SERVE_TOKEN"}
        assert http["allowedEnvVars"] == ["TETHER_SERVE_TOKEN"]
        assert "onFailure" not in http  # a down service must leave the decision to the fallback
        assert http_install.is_fallback(fallback)
        assert fallback["command"].endswith(f" || exec {COMMAND}")
        assert (fallback.get("onFailure") == "block") is (event == "PreToolUse")
    assert hooks["PreToolUse"][:2] == FOREIGN["hooks"]["PreToolUse"]  # others untouched, first
    assert hooks["Stop"] == FOREIGN["hooks"]["Stop"]
    assert change.after["model"] == "opus"


def test_merge_is_idempotent_and_uninstall_restores_the_original() -> None:
    once = http_install.merge_http(FOREIGN, BASE, COMMAND, PATH)
    twice = http_install.merge_http(once.after, BASE, COMMAND, PATH)
    assert not twice.changed
    removed = http_install.without_http(settings.remove(once.after, "claude-code", PATH))
    assert removed.after == FOREIGN
    assert set(removed.events) == set(settings.install_events("claude-code"))


def test_switching_between_command_and_http_hooks_leaves_one_kind() -> None:
    commands = settings.merge(FOREIGN, "claude-code", COMMAND, PATH).after
    http = http_install.merge_http(commands, BASE, COMMAND, PATH).after
    assert settings.installed_commands(http, "claude-code") == {}  # the plain commands are gone
    back = http_install.without_http(settings.merge(http, "claude-code", COMMAND, PATH)).after
    assert http_install.installed_urls(back) == []
    assert back == commands


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


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (None, "http://127.0.0.1:8765"),
        ("http://127.0.0.1:9000/", "http://127.0.0.1:9000"),
        ("https://guard.internal:443", "https://guard.internal:443"),
    ],
)
def test_base_url(url: str | None, expected: str) -> None:
    assert http_install.base_url(url) == expected


def test_base_url_rejects_what_is_not_an_http_url() -> None:
    from tether.errors import InputError

    with pytest.raises(InputError, match="expected http://HOST:PORT"):
        http_install.base_url("127.0.0.1:8765")


def test_merge_refuses_a_malformed_hooks_table() -> None:
    from tether.errors import InputError

    with pytest.raises(InputError, match="must be a list"):
        http_install.merge_http({"hooks": {"PreToolUse": {}}}, BASE, COMMAND, PATH)


# --- the fallback, run for real ----------------------------------------------------------------


def run_fallback(
    base: str, event: str, env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    """Run the fallback command through the shell, as Claude Code runs command hooks."""
    command = http_install.fallback_command(base, f"{TETHER} hook claude-code")
    return subprocess.run(
        command, shell=True, input=event, capture_output=True, text=True, env=env, cwd=cwd,
        timeout=60,
    )  # fmt: skip


def test_fallback_stays_silent_while_the_service_answers(
    server: SidecarServer, tmp_path: Path
) -> None:
    env = sandbox_env(tmp_path / "hook")
    proc = run_fallback(server.url, pre_event("rm -rf /", tmp_path), env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""  # the HTTP handler decides; nothing is counted twice
    assert not (Path(env["XDG_STATE_HOME"]) / "tether" / "state.db").exists()


def test_fallback_decides_when_the_service_is_down(tmp_path: Path) -> None:
    env = sandbox_env(tmp_path / "hook")
    base = f"http://127.0.0.1:{dead_port()}"
    proc = run_fallback(base, pre_event("rm -rf /", tmp_path), env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny"
    assert "DG101" in out["permissionDecisionReason"]


def test_a_wrong_token_is_denied_by_the_service_and_the_fallback_stays_quiet(
    tmp_path: Path,
) -> None:
    # /health answers "alive" without the token, so the fallback never decides a second time
    # while the service runs; a wrong token is the HTTP handler's deny (fail closed), and the
    # doctor says which token to fix.
    project = tmp_path / "project"
    project.mkdir()
    service = Service(Options(port=0, token="right"), environ=sandbox_env(tmp_path), cwd=project)
    srv = SidecarServer(service)
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        env = {**sandbox_env(tmp_path / "hook"), "TETHER_SERVE_TOKEN": "wrong"}
        assert run_fallback(srv.url, pre_event("rm -rf /", tmp_path), env, tmp_path).stdout == ""
        reply = http_install.post_event(srv.url + "/hook/claude-code", pre_event("ls", tmp_path))
        out = json.loads(reply)["hookSpecificOutput"]
        assert out["permissionDecision"] == "deny"
        assert "Authorization" in out["permissionDecisionReason"]
        current = http_install.merge_http({}, srv.url, COMMAND, PATH, "wrong").after
        lines = http_install.check(current, tmp_path, "doctor-session")
        assert [status for status, _, _ in lines] == ["fail"], lines
        assert "refuses the token" in lines[0][1]
        current = http_install.merge_http({}, srv.url, COMMAND, PATH, "right").after
        lines = http_install.check(current, tmp_path, "doctor-session")
        assert [status for status, _, _ in lines] == ["ok", "ok", "ok", "ok"], lines
    finally:
        srv.stop()


# --- the doctor check --------------------------------------------------------------------------


def test_check_reports_a_healthy_sidecar_and_its_verdicts(
    server: SidecarServer, tmp_path: Path
) -> None:
    current = http_install.merge_http({}, server.url, COMMAND, PATH).after
    lines = http_install.check(current, tmp_path, "doctor-session")
    statuses = [status for status, _, _ in lines]
    assert statuses == ["ok", "ok", "ok", "ok"], lines
    text = "\n".join(message for _, message, _ in lines)
    assert f"sidecar {server.url}: tether" in text
    assert "`rm -rf /` is denied over HTTP (deny)" in text
    assert "`ls -la` is not denied over HTTP" in text
    assert "a malformed event is denied over HTTP (deny)" in text


def test_check_warns_when_the_sidecar_is_down(tmp_path: Path) -> None:
    base = f"http://127.0.0.1:{dead_port()}"
    current = http_install.merge_http({}, base, COMMAND, PATH).after
    lines = http_install.check(current, tmp_path, "doctor-session")
    assert len(lines) == 1
    status, message, fix = lines[0]
    assert status == "warn"
    assert "does not answer" in message and "fallback" in message
    assert "tether serve" in fix


def test_check_is_silent_without_http_entries(tmp_path: Path) -> None:
    current = settings.merge(copy.deepcopy(FOREIGN), "claude-code", COMMAND, PATH).after
    assert http_install.check(current, tmp_path, "s") == []


# --- what the installer does with --http -------------------------------------------------------


def test_adjust_with_http_reports_a_running_service(server: SidecarServer, tmp_path: Path) -> None:
    merged = settings.merge(FOREIGN, "claude-code", COMMAND, PATH)
    env = sandbox_env(tmp_path / "installer")
    change, info, note = http_install.adjust(
        merged, FOREIGN, COMMAND, PATH, http=True, url=server.url, environ=env
    )
    assert info == {"url": f"{server.url}/hook/claude-code", "service": "up"}
    assert http_install.installed_urls(change.after) == [f"{server.url}/hook/claude-code"]
    assert settings.installed_commands(change.after, "claude-code") == {}
    assert f"the sidecar at {server.url} answers" in note


def test_adjust_with_http_warns_when_the_service_is_down(tmp_path: Path) -> None:
    base = f"http://127.0.0.1:{dead_port()}"
    merged = settings.merge({}, "claude-code", COMMAND, PATH)
    env = sandbox_env(tmp_path)
    change, info, note = http_install.adjust(
        merged, {}, COMMAND, PATH, http=True, url=base, environ=env
    )
    assert info == {"url": f"{base}/hook/claude-code", "service": "down"}
    assert "does not answer yet" in note and "tether serve" in note
    assert change.changed


def test_adjust_without_http_and_on_uninstall_strips_http_entries() -> None:
    with_http = http_install.merge_http(FOREIGN, BASE, COMMAND, PATH).after
    plain = settings.merge(with_http, "claude-code", COMMAND, PATH)
    change, info, note = http_install.adjust(plain, with_http, COMMAND, PATH, http=False)
    assert info is None and note == ""
    assert http_install.installed_urls(change.after) == []
    assert settings.installed_commands(change.after, "claude-code")
    gone = settings.remove(with_http, "claude-code", PATH)
    change, info, _ = http_install.adjust(gone, with_http, None, PATH, http=True)
    assert info is None
    assert change.after == FOREIGN
