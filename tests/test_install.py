"""``tether install`` / ``uninstall``: merge into real settings files, take exactly Tether out."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import tether.daemon.hook
from tether.hosts import HOSTS
from tether.hosts.settings import install_events, is_tether_command, merge, remove

TETHER = Path(sys.executable).with_name("tether")
FILES = {
    "claude-code": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
}
FOREIGN: dict[str, dict[str, Any]] = {
    "claude-code": {
        "model": "opus",
        "permissions": {"allow": ["Bash(ls:*)"]},
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "other-guard"}]},
                {
                    "matcher": "Edit|Write",
                    "hooks": [
                        {"type": "command", "command": "prettier-hook"},
                        {"type": "command", "command": "tether hook codex"},
                    ],
                },
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        },
    },
    "codex": {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "other-guard"}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        }
    },
    "gemini": {
        "theme": "GitHub",
        "hooks": {
            "BeforeTool": [
                {
                    "matcher": "write_file",
                    "hooks": [{"type": "command", "command": "./lint.sh", "name": "lint"}],
                }
            ]
        },
    },
}


# Without a Codex to trust them, Codex hooks are written but inactive: install exits 1.
INACTIVE = {"codex": 1}


def cli(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """Run ``tether ARGS`` with a private HOME."""
    env = {k: v for k, v in os.environ.items() if k != "CODEX_HOME"}
    env["HOME"] = str(home)
    env["PATH"] = f"{TETHER.parent}:/usr/bin:/bin"  # no `codex` here: see the codex tests
    return subprocess.run(
        [str(TETHER), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=60
    )


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    """Return (project, home) directories."""
    (tmp_path / "project").mkdir()
    (tmp_path / "home").mkdir()
    return tmp_path / "project", tmp_path / "home"


COMMAND_CASES = [
    ("tether hook claude-code", "claude-code", True),
    ("/opt/venv/bin/tether hook claude-code", "claude-code", True),
    ("'/path with space/tether' hook codex", "codex", True),
    ("/usr/bin/python3 -m tether hook gemini", "gemini", True),
    ("TETHER_LOOPS__HARD_STOP=true tether hook claude-code", "claude-code", True),
    ("env TETHER_X=1 /x/tether hook codex", "codex", True),
    ("tether hook codex", "claude-code", False),
    ("tether classify", "claude-code", False),
    ("echo tether hook claude-code", "claude-code", False),
    ("other-guard --then tether hook claude-code", "claude-code", False),
    ("python3 -m other hook claude-code", "claude-code", False),
    ("nice -n 5 /x/tether hook claude-code", "claude-code", True),
    ("timeout 20 /v/bin/python3 -I -S /v/lib/tether/daemon/hook.py codex", "codex", True),
    ("X=1 nohup /v/bin/python3 -m tether hook gemini", "gemini", True),
    ("timeout 20 /x/tether hook codex", "gemini", False),
    ("/tmp/wrap.sh /x/tether hook codex", "codex", False),  # a script may do more
    ("tether hook 'claude-code", "claude-code", False),
    ("/v/bin/python3 -I -S /v/lib/site/tether/daemon/hook.py codex", "codex", True),
    ("'/a b/python' -I -S '/a b/tether/daemon/hook.py' gemini", "gemini", True),
    ("/v/bin/python3 -I -S /v/lib/site/tether/daemon/hook.py codex", "gemini", False),
    ("/v/bin/python3 -I -S /v/lib/site/other/daemon/hook.py codex", "codex", False),
    ("/v/bin/python3 /x/hook.py codex", "codex", False),
    ("", "claude-code", False),
]


@pytest.mark.parametrize(("command", "host", "expected"), COMMAND_CASES)
def test_tether_entries_are_recognised_by_their_command(
    command: str, host: str, expected: bool
) -> None:
    assert is_tether_command(command, host) is expected


@pytest.mark.parametrize("host", list(HOSTS))
def test_merge_adds_every_event_once_and_keeps_everything_else(host: str) -> None:
    path = Path("/x") / FILES[host]
    change = merge(FOREIGN[host], host, f"/v/bin/tether hook {host}", path)
    assert set(change.events) == set(install_events(host))
    after = change.after
    for key, value in FOREIGN[host].items():
        if key != "hooks":
            assert after[key] == value
    for event, groups in FOREIGN[host]["hooks"].items():
        for group in groups:
            assert group in after["hooks"][event]  # foreign groups untouched, in place
    for event, matcher in install_events(host).items():
        ours = [
            g
            for g in after["hooks"][event]
            if any(is_tether_command(h["command"], host) for h in g["hooks"])
        ]
        assert len(ours) == 1
        assert ours[0].get("matcher") == matcher
    again = merge(after, host, f"/v/bin/tether hook {host}", path)
    assert not again.changed and again.events == ()


def test_claude_code_pre_tool_use_fails_closed_on_hook_failure() -> None:
    after = merge({}, "claude-code", "tether hook claude-code", Path("s.json")).after
    [group] = after["hooks"]["PreToolUse"]
    assert group["hooks"][0]["onFailure"] == "block"
    assert group["hooks"][0]["timeout"] == 30
    assert "onFailure" not in after["hooks"]["PostToolUse"][0]["hooks"][0]


def test_gemini_timeouts_are_milliseconds() -> None:
    after = merge({}, "gemini", "tether hook gemini", Path("s.json")).after
    assert after["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"] == 30000


@pytest.mark.parametrize("host", list(HOSTS))
def test_merge_refreshes_a_moved_installation_instead_of_adding_another(host: str) -> None:
    old = merge(FOREIGN[host], host, f"/old/venv/bin/tether hook {host}", Path("s")).after
    new = merge(old, host, f"/new/venv/bin/tether hook {host}", Path("s"))
    assert new.changed
    text = json.dumps(new.after)
    assert "/old/venv" not in text and text.count("/new/venv") == len(install_events(host))


@pytest.mark.parametrize("host", list(HOSTS))
def test_remove_undoes_merge_exactly(host: str) -> None:
    merged = merge(FOREIGN[host], host, f"tether hook {host}", Path("s")).after
    removed = remove(merged, host, Path("s"))
    assert removed.after == FOREIGN[host]
    assert remove(FOREIGN[host], host, Path("s")).changed is False


@pytest.mark.parametrize("host", list(HOSTS))
def test_install_and_uninstall_round_trip_on_disk(host: str, dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / FILES[host]
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(FOREIGN[host], indent=4))
    first = cli("install", host, "--project", "--json", cwd=project, home=home)
    assert first.returncode == INACTIVE.get(host, 0), first.stderr
    report = json.loads(first.stdout)
    assert report["changed"] and Path(report["path"]) == path
    backup = Path(report["backup"])
    assert json.loads(backup.read_text()) == FOREIGN[host]
    installed = json.loads(path.read_text())
    hook_file = str(Path(tether.daemon.hook.__file__))
    commands = [
        h["command"]
        for groups in installed["hooks"].values()
        for g in groups
        for h in g["hooks"]
        if is_tether_command(h["command"], host)
    ]
    words = shlex.split(commands[0])
    assert words[1:] == ["-I", "-S", hook_file, host], "this venv's builtins-only hook"
    assert Path(words[0]).parent == TETHER.parent, "this venv's interpreter"

    second = cli("install", host, "--project", "--json", cwd=project, home=home)
    assert json.loads(second.stdout)["changed"] is False
    assert json.loads(path.read_text()) == installed
    assert len(list(path.parent.glob("*.tether-backup-*"))) == 1

    gone = cli("uninstall", host, "--project", cwd=project, home=home)
    assert gone.returncode == 0, gone.stderr
    assert json.loads(path.read_text()) == FOREIGN[host]


@pytest.mark.parametrize("host", list(HOSTS))
def test_user_scope_writes_under_home(host: str, dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    proc = cli("install", host, cwd=project, home=home)
    assert proc.returncode == INACTIVE.get(host, 0), proc.stderr
    assert (home / FILES[host]).is_file()
    assert not (project / FILES[host]).exists()
    assert list((home / FILES[host]).parent.glob("*.tether-backup-*")) == []  # nothing to back up


def test_dry_run_writes_nothing(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    proc = cli("install", "claude-code", "--project", "--dry-run", cwd=project, home=home)
    assert proc.returncode == 0, proc.stderr
    assert "dry run" in proc.stdout and "PreToolUse" in proc.stdout
    assert not (project / ".claude").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"hooks": []}', "'hooks' must be an object"),
        ('{"hooks": {"PreToolUse": {}}}', "'hooks.PreToolUse' must be a list"),
    ],
)
def test_a_broken_settings_file_is_reported_and_left_alone(
    content: str, message: str, dirs: tuple[Path, Path]
) -> None:
    project, home = dirs
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(content)
    proc = cli("install", "claude-code", "--project", cwd=project, home=home)
    assert proc.returncode == 2
    assert message in proc.stderr and str(path) in proc.stderr
    assert path.read_text() == content
    assert list(path.parent.iterdir()) == [path]


def test_custom_command_is_registered_and_removed(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    command = "TETHER_LOOPS__HARD_STOP=true /opt/tether/bin/tether hook gemini"
    proc = cli("install", "gemini", "--project", "--command", command, cwd=project, home=home)
    assert proc.returncode == 0, proc.stderr
    data = json.loads((project / FILES["gemini"]).read_text())
    assert data["hooks"]["BeforeTool"][0]["hooks"][0]["command"] == command
    cli("uninstall", "gemini", "--project", cwd=project, home=home)
    assert json.loads((project / FILES["gemini"]).read_text()) == {}


def test_reinstall_refreshes_in_place_keeping_neighbours_and_matcher_edits() -> None:
    first = merge({}, "claude-code", "/old/bin/tether hook claude-code", Path("s")).after
    group = first["hooks"]["PreToolUse"][0]
    group["matcher"] = "Bash"  # the user narrowed it
    group["hooks"].append({"type": "http", "url": "http://127.0.0.1:8787/hook/claude-code"})
    again = merge(first, "claude-code", "/new/bin/tether hook claude-code", Path("s"))
    [group] = again.after["hooks"]["PreToolUse"]
    assert group["matcher"] == "Bash"
    assert group["hooks"][0]["command"] == "/new/bin/tether hook claude-code"
    assert group["hooks"][1]["type"] == "http"
    assert (
        merge(again.after, "claude-code", "/new/bin/tether hook claude-code", Path("s")).changed
        is False
    )


def test_duplicate_entries_collapse_to_one() -> None:
    entry = {"type": "command", "command": "tether hook codex", "timeout": 30}
    doubled = {
        "hooks": {
            "PreToolUse": [
                {"matcher": ".*", "hooks": [entry]},
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}, entry]},
            ]
        }
    }
    after = merge(doubled, "codex", "tether hook codex", Path("s")).after
    groups = after["hooks"]["PreToolUse"]
    assert groups == [
        {"matcher": ".*", "hooks": [entry]},
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]},
    ]


def test_a_symlinked_settings_file_is_written_through(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    dotfiles = home / "dotfiles" / "claude.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"model": "opus"}')
    link = project / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(dotfiles)
    proc = cli("install", "claude-code", "--project", cwd=project, home=home)
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink()
    data = json.loads(dotfiles.read_text())
    assert data["model"] == "opus" and "PreToolUse" in data["hooks"]


@pytest.mark.parametrize(
    "args", [("install", "codex", "--http"), ("uninstall", "claude-code", "--url", "http://x")]
)
def test_http_options_are_refused_where_they_do_not_apply(
    args: tuple[str, ...], dirs: tuple[Path, Path]
) -> None:
    project, home = dirs
    proc = cli(*args, "--project", cwd=project, home=home)
    assert proc.returncode == 2
    if args[0] == "install":
        assert "apply to `tether install claude-code` only" in proc.stderr
    else:  # uninstall never had a use for them: its --help no longer offers them
        assert "unrecognized arguments: --url" in proc.stderr
    assert not (project / ".codex").exists() and not (project / ".claude").exists()


def test_codex_install_without_codex_says_the_hooks_are_not_active(dirs: tuple[Path, Path]) -> None:
    """Codex skips untrusted hooks silently: install must not end as if all were well."""
    project, home = dirs
    proc = cli("install", "codex", cwd=project, home=home)
    assert proc.returncode == 1
    assert "NOT ACTIVE YET" in proc.stdout and "/hooks" in proc.stdout
    assert (home / FILES["codex"]).is_file()  # written, ready to be trusted
    report = json.loads(cli("install", "codex", "--json", cwd=project, home=home).stdout)
    assert report["codex"]["active"] is False and report["codex"]["codex"] is None


def test_a_command_tether_cannot_recognise_is_refused(dirs: tuple[Path, Path]) -> None:
    """Codex never trusted such an entry, and uninstall and the doctor could not find it."""
    project, home = dirs
    proc = cli("install", "codex", "--command", "/opt/wrap.sh", cwd=project, home=home)
    assert proc.returncode == 2
    assert "does not run Tether's hook for codex" in proc.stderr
    assert "a wrapper script" in proc.stderr and "nice" in proc.stderr
    assert not (home / FILES["codex"]).exists()
