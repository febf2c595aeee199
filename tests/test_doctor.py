"""``tether doctor`` as a real process against real settings files, configs and state files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

TETHER = Path(sys.executable).with_name("tether")
TETHER_PACKAGE = Path(__import__("tether").__file__).parent


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[tuple[dict[str, str], Path]]:
    """Yield an environment with private HOME and XDG dirs, and a project directory; stop the
    daemon the probes started (its socket is under the private XDG_STATE_HOME)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TETHER_", "CODEX_HOME", "XDG_RUNTIME_DIR"))
    }
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        (tmp_path / name.lower()).mkdir()
        env[name] = str(tmp_path / name.lower())
    env["HOME"] = str(tmp_path / "home")
    (tmp_path / "home").mkdir()
    (tmp_path / "project").mkdir()
    env["TETHER_DAEMON_IDLE"] = "10"  # a daemon the probes start does not outlive the test long
    yield env, tmp_path / "project"
    tether("daemon", "stop", env=env, cwd=tmp_path)


def tether(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``tether ARGS``."""
    return subprocess.run(
        [str(TETHER), *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )


def doctor(env: dict[str, str], cwd: Path, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    """Run ``tether doctor --json --host claude-code``; return the exit status and checks."""
    proc = tether("doctor", "--json", "--host", "claude-code", *extra, env=env, cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] is (proc.returncode == 0)
    return proc.returncode, report["checks"]


def by_area(checks: list[dict[str, Any]], area: str) -> list[dict[str, Any]]:
    """Return the checks for one area."""
    return [c for c in checks if c["area"] == area]


def test_a_healthy_installation_passes(sandbox: tuple[dict[str, str], Path]) -> None:
    env, project = sandbox
    assert tether("install", "claude-code", env=env, cwd=project).returncode == 0
    code, checks = doctor(env, project)
    assert [c for c in checks if c["status"] == "fail"] == []
    assert code == 0
    messages = " ".join(c["message"] for c in by_area(checks, "claude-code"))
    assert "installed in" in messages
    assert "`rm -rf /` is denied" in messages and "`ls -la` is not denied" in messages


def test_not_installed_is_reported_with_the_command_to_run(
    sandbox: tuple[dict[str, str], Path],
) -> None:
    env, project = sandbox
    _, checks = doctor(env, project)
    [info] = [
        c
        for c in by_area(checks, "claude-code")
        if c["status"] == "info" and "Claude Code version" not in c["message"]
    ]
    assert "not installed" in info["message"]
    assert info["fix"] == "run `tether install claude-code` to install it"


def test_a_broken_hook_command_fails_and_says_so(sandbox: tuple[dict[str, str], Path]) -> None:
    env, project = sandbox
    broken = "/nonexistent/bin/tether hook claude-code"
    proc = tether("install", "claude-code", "--project", "--command", broken, env=env, cwd=project)
    assert proc.returncode == 0, proc.stderr
    code, checks = doctor(env, project)
    assert code == 1
    failures = [c for c in by_area(checks, "claude-code") if c["status"] == "fail"]
    gone, samples = failures[0], failures[1:]
    assert "`/nonexistent/bin/tether` does not exist" in gone["message"], gone
    assert len(samples) == 3  # every sample: exit 127 fails open in Claude Code
    assert all("fail-open" in c["message"] for c in samples)


def test_a_missing_on_failure_block_is_a_warning(sandbox: tuple[dict[str, str], Path]) -> None:
    env, project = sandbox
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    command = f"{TETHER} hook claude-code"
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "*", "hooks": [{"type": "command", "command": command}]}
                    ]
                }
            }
        )
    )
    _, checks = doctor(env, project)
    warnings = [c["message"] for c in by_area(checks, "claude-code") if c["status"] == "warn"]
    assert any("onFailure" in m for m in warnings)
    assert any("missing: PostToolUse" in m for m in warnings)


def test_a_config_error_fails_with_the_key(sandbox: tuple[dict[str, str], Path]) -> None:
    env, project = sandbox
    (project / ".tether.yaml").write_text("loops:\n  hardstop: true\n")
    code, checks = doctor(env, project)
    [config] = by_area(checks, "config")
    assert code == 1 and config["status"] == "fail"
    assert "hardstop" in config["message"] and "hard_stop" in config["message"]


def test_a_corrupt_store_fails_and_fix_moves_it_aside(
    sandbox: tuple[dict[str, str], Path],
) -> None:
    env, project = sandbox
    db = Path(env["XDG_STATE_HOME"]) / "tether" / "state.db"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"definitely not sqlite " * 200)
    code, checks = doctor(env, project)
    [store] = by_area(checks, "store")
    assert code == 1 and store["status"] == "fail"
    assert str(db) in store["message"] and "--fix" in store["fix"]

    _, checks = doctor(env, project, "--fix")
    [store] = by_area(checks, "store")
    assert store["status"] == "ok" and "moved aside" in store["message"]
    assert len(list(db.parent.glob("state.db.broken-*"))) == 1
    _, checks = doctor(env, project)
    assert by_area(checks, "store")[0]["status"] == "ok"


def test_human_report_names_fixes(sandbox: tuple[dict[str, str], Path]) -> None:
    env, project = sandbox
    (project / ".tether.yaml").write_text("loops: [1\n")
    proc = tether("doctor", "--host", "gemini", env=env, cwd=project)
    assert proc.returncode == 1
    assert "FAIL  config:" in proc.stdout and "fix: " in proc.stdout
    assert "problem(s) to fix" in proc.stdout


def test_hand_written_local_and_toml_entries_are_found(
    sandbox: tuple[dict[str, str], Path],
) -> None:
    env, project = sandbox
    local = project / ".claude" / "settings.local.json"
    local.parent.mkdir()
    command = f"{TETHER} hook claude-code"
    local.write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "*",
                            "hooks": [
                                {"type": "command", "command": command, "onFailure": "block"}
                            ],
                        }
                    ]
                }
            }
        )
    )
    toml = Path(env["HOME"]) / ".codex" / "config.toml"
    toml.parent.mkdir()
    toml.write_text(
        '[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = "command"\n'
        f'command = "{TETHER} hook codex"\n'
    )
    proc = tether("doctor", "--json", env=env, cwd=project)
    checks = json.loads(proc.stdout)["checks"]
    claude = " ".join(c["message"] for c in by_area(checks, "claude-code"))
    assert f"installed in {local}" in claude
    codex = " ".join(c["message"] for c in by_area(checks, "codex"))
    assert "inline [hooks]" in codex and str(toml) in codex


def test_old_http_entries_are_a_warning_and_their_fallback_is_probed(
    sandbox: tuple[dict[str, str], Path],
) -> None:
    """What the retired ``install --http`` left behind: doctor says to reinstall."""
    from tether.hosts import settings
    from tether.serve.install import fallback_command

    env, project = sandbox
    command = f"{TETHER} hook claude-code"
    hooks: dict[str, Any] = {}
    for event, matcher in settings.install_events("claude-code").items():
        http = {"type": "http", "url": "http://127.0.0.1:9/hook/claude-code", "timeout": 30}
        fallback = settings.handler(
            "claude-code", event, fallback_command("http://127.0.0.1:9", command)
        )
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        hooks[event] = [{**group, "hooks": [http, fallback]}]
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": hooks}))
    code, checks = doctor(env, project)
    claude = by_area(checks, "claude-code")
    old = [c for c in claude if "retired" in c["message"]]
    assert len(old) == 1 and old[0]["status"] == "warn", claude
    assert "tether install claude-code" in old[0]["fix"]
    messages = " ".join(c["message"] for c in claude)
    assert "`rm -rf /` is denied" in messages and "not installed" not in messages
    assert code == 0


def test_an_unreachable_redis_store_fails_without_showing_its_password(
    sandbox: tuple[dict[str, str], Path],
) -> None:
    env, cwd = sandbox
    env = dict(
        env, TETHER_STORE__BACKEND="redis", TETHER_STORE__URL="redis://:hunter2@127.0.0.1:1/0"
    )
    result = tether("doctor", env=env, cwd=cwd)
    assert result.returncode != 0
    assert "hunter2" not in result.stdout + result.stderr
    assert "***" in result.stdout + result.stderr


def test_the_daemon_is_reported_and_an_unusable_socket_folder_explained(
    sandbox: tuple[dict[str, str], Path],
) -> None:
    env, project = sandbox
    runtime = project.parent / "run"
    (runtime / "tether").mkdir(parents=True, mode=0o700)
    env["XDG_RUNTIME_DIR"] = str(runtime)
    _, checks = doctor(env, project)
    (daemon,) = by_area(checks, "daemon")
    assert daemon["status"] in ("ok", "info"), daemon
    (runtime / "tether").chmod(0o755)
    _, checks = doctor(env, project)
    (daemon,) = by_area(checks, "daemon")
    assert daemon["status"] == "warn"
    assert "has mode 755; expected 700" in daemon["message"]
    assert "mode 700" in daemon["fix"]


def test_without_claude_on_path_the_version_check_says_so(
    sandbox: tuple[dict[str, str], Path],
) -> None:
    """It used to be skipped without a word; installed, an unknown version is a warning."""
    env, project = sandbox
    env["PATH"] = f"{TETHER.parent}:/usr/bin:/bin"
    _, checks = doctor(env, project)
    [about] = [c for c in by_area(checks, "claude-code") if "Claude Code version" in c["message"]]
    assert about["status"] == "info", about  # not installed: for information only
    assert "`claude` is not on PATH" in about["message"] and "2.1.295" in about["fix"]
    assert tether("install", "claude-code", env=env, cwd=project).returncode == 0
    _, checks = doctor(env, project)
    [about] = [c for c in by_area(checks, "claude-code") if "Claude Code version" in c["message"]]
    assert about["status"] == "warn", about


def test_a_failing_sample_shows_the_whole_reason(sandbox: tuple[dict[str, str], Path]) -> None:
    """The reply's reason, whole: not the JSON reply cut at 300 characters mid-string."""
    env, project = sandbox
    (project / ".tether.yaml").write_text("loops:\n  hardstop: true\n")
    _, checks = doctor(env, project)
    failed = [c for c in by_area(checks, "claude-code") if c["status"] == "fail"]
    assert failed
    for c in failed:
        assert "hookSpecificOutput" not in c["message"], c  # the reason, not the JSON
        assert c["message"].endswith("Run `tether doctor` to find what to fix."), c


def _gone_install(env: dict[str, str], project: Path, host: str = "claude-code") -> str:
    """Install hooks naming a hook file that is gone: what `pip install .`, `tether install`,
    then `pip install -e .` leave behind (the site-packages copy removed)."""
    gone = project.parent / "site-packages" / "tether" / "daemon" / "hook.py"
    command = f"{sys.executable} -I -S {gone} {host}"
    proc = tether("install", host, "--command", command, env=env, cwd=project)
    assert proc.returncode == 0, proc.stderr
    return command


def test_a_hook_file_that_is_gone_fails_and_fix_points_the_entries_here(
    sandbox: tuple[dict[str, str], Path],
) -> None:
    """Every call was blocked by Python's "can't open file" while the doctor called the
    hardline probe's deny ok."""
    env, project = sandbox
    command = _gone_install(env, project)
    code, checks = doctor(env, project)
    assert code == 1
    host = by_area(checks, "claude-code")
    assert not [c for c in host if c["status"] == "ok" and "`rm -rf /` is denied" in c["message"]]
    [gone] = [c for c in host if "cannot run" in c["message"]]
    assert gone["status"] == "fail" and "hook.py does not exist" in gone["message"], gone
    assert "tether install claude-code --user" in gone["fix"]
    assert any("blocked, but not by Tether" in c["message"] for c in host), host
    code, checks = doctor(env, project, "--fix")
    assert code == 0, [c for c in checks if c["status"] == "fail"]
    settings = json.loads((Path(env["HOME"]) / ".claude" / "settings.json").read_text())
    assert command not in json.dumps(settings)
    assert any("now run this installation's" in c["message"] for c in checks)


def test_another_installation_is_a_warning(sandbox: tuple[dict[str, str], Path]) -> None:
    env, project = sandbox
    other = project.parent / "other" / "tether"
    other.parent.mkdir()
    import shutil

    shutil.copytree(Path(TETHER_PACKAGE), other)
    command = f"{sys.executable} -I -S {other / 'daemon' / 'hook.py'} claude-code"
    installed = tether("install", "claude-code", "--command", command, env=env, cwd=project)
    assert installed.returncode == 0
    code, checks = doctor(env, project)
    warned = [c for c in by_area(checks, "claude-code") if "another installation" in c["message"]]
    assert len(warned) == 1 and warned[0]["status"] == "warn", warned
    assert code == 0  # it runs and judges: a warning, not a failure


def test_another_tether_on_path_is_named(sandbox: tuple[dict[str, str], Path]) -> None:
    """PyPI's tether-ai installs a `tether` command too: which one does `tether` run?"""
    env, project = sandbox
    foreign = project.parent / "foreign-bin"
    foreign.mkdir()
    (foreign / "tether").write_text("#!/bin/sh\necho 'tether-ai supervisor'\n")
    (foreign / "tether").chmod(0o755)
    env["PATH"] = f"{foreign}:{TETHER.parent}:/usr/bin:/bin"
    _, checks = doctor(env, project)
    [command] = [c for c in checks if c["area"] == "command"]
    assert command["status"] == "warn" and str(foreign / "tether") in command["message"]
    assert "tether-ai" in command["message"] and str(TETHER.parent) in command["fix"]
    env["PATH"] = f"{TETHER.parent}:/usr/bin:/bin"
    _, checks = doctor(env, project)
    assert [c["status"] for c in checks if c["area"] == "command"] == ["ok"]


def test_a_package_sharing_the_tether_module_fails(sandbox: tuple[dict[str, str], Path]) -> None:
    """`pip install tether-ai` into Tether's environment overwrites files of `tether`."""
    env, project = sandbox
    site = project.parent / "site"
    dist = site / "tether_ai-0.2.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tether-ai\nVersion: 0.2.0\n")
    (dist / "top_level.txt").write_text("tether\n")
    env["PYTHONPATH"] = str(site)
    code, checks = doctor(env, project)
    [shared] = [c for c in checks if c["area"] == "command" and c["status"] == "fail"]
    assert "also installed by tether-ai" in shared["message"] and code == 1
    assert "pipx install tether-ai" in shared["fix"]
