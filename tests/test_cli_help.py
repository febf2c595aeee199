"""The CLI's own words: the top-level usage, and help texts that say what each command does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TETHER = Path(sys.executable).with_name("tether")


def tether(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(TETHER), *args], capture_output=True, text=True, timeout=60)


def test_tether_alone_prints_the_usage_and_fails() -> None:
    """Like argparse, git and pip: a command is required, so a script that lost it fails."""
    bare = tether()
    assert bare.returncode == 2 and bare.stdout == ""
    assert "usage: tether COMMAND" in bare.stderr and "doctor" in bare.stderr
    asked = tether("--help")
    assert asked.returncode == 0 and asked.stdout == bare.stderr


def test_uninstall_help_is_its_own() -> None:
    install, uninstall = tether("install", "--help"), tether("uninstall", "--help")
    assert install.returncode == uninstall.returncode == 0
    assert "the host to remove Tether's hooks from" in uninstall.stdout
    assert "the host to add Tether's hooks to" in install.stdout
    for option in ("--http", "--url", "--command"):  # install's alone
        assert option in install.stdout and option not in uninstall.stdout
    assert "forget" in uninstall.stdout and "forget" not in install.stdout


def test_daemon_help_explains_run() -> None:
    shown = tether("daemon", "--help").stdout
    assert "  run " in shown and "foreground" in shown
    assert "status, stop or run" in tether("--help").stdout


def test_the_version_says_which_tether_it_is() -> None:
    shown = tether("--version")
    assert shown.returncode == 0 and shown.stdout.startswith("tether ")
    assert "Tether guardrails" in shown.stdout and sys.executable in shown.stdout
