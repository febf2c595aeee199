"""What a real ``tether hook claude-code`` process imports for a Bash PreToolUse.

The hook runs as a fresh process per tool call, so every module it imports is paid on every call.
These tests pin what was taken off that path: the argparse dispatcher (whose help formatter pulls
in shutil, bz2, lzma), OpenSSL's hashlib (small fingerprints use the built-in SHA-1),
tree-sitter-bash's ``importlib.resources`` query loader (the grammar binding is loaded directly),
and dataclasses defined by the hook-path modules (lightweight ``NamedTuple`` / slotted value
types there; see docs/architecture.md). ``dataclasses`` itself is still imported, by the public
value types in ``tether.model`` and by the config and store packages.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

TETHER = Path(sys.executable).with_name("tether")

# Modules a Bash PreToolUse must not import (each was there before, at 1-4 ms apiece).
NOT_ON_THE_HOOK_PATH = [
    "argparse",
    "shutil",
    "tempfile",
    "bz2",
    "lzma",
    "importlib.resources",
    "hashlib",
    "_hashlib",
    "shlex",
    "tree_sitter_bash",  # the package __init__; its compiled `_binding` is what the parser needs
    "signal",  # builds three enums (~0.6 ms); the hook's signal handlers use the C `_signal`
]

# The hook-path packages whose value types must not be dataclasses (the ones that stay are the
# public API types in tether.model, loops.settings which integrations `replace()`, and the
# config and store packages).
LEAN_PACKAGES = (
    "tether.shell",
    "tether.rules",
    "tether.classify",
    "tether.approval",
    "tether.hosts",
    "tether.guard",
    "tether.loops.detectors",
)

COMMANDS = ["ls -la", "rm -rf /", "gh api repos/o/r/pulls/1/reviews 2>&1"]


@pytest.fixture
def sandbox(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """Return an environment with private XDG dirs and HOME, and a project directory."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        (tmp_path / name).mkdir()
        env[name] = str(tmp_path / name)
    env["HOME"] = str(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    return env, project


def payload(command: str, cwd: Path) -> str:
    """Return a Claude Code PreToolUse payload for a Bash command."""
    return json.dumps(
        {
            "session_id": "lean-path",
            "transcript_path": None,
            "cwd": str(cwd),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "lean"},
            "tool_use_id": "toolu_lean",
        }
    )


def imported_by_hook(command: str, env: dict[str, str], cwd: Path) -> tuple[set[str], str]:
    """Run the installed ``tether hook claude-code`` once; return what it imported and printed."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", str(TETHER), "hook", "claude-code"],
        input=payload(command, cwd),
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    return modules, proc.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_a_bash_pre_tool_use_skips_the_heavy_modules(
    command: str, sandbox: tuple[dict[str, str], Path]
) -> None:
    env, project = sandbox
    modules, stdout = imported_by_hook(command, env, project)
    assert "tether.rules.danger" in modules  # the command really was classified
    assert "tree_sitter" in modules  # and parsed
    json.loads(stdout)  # a reply the host can read (``{}`` when nothing is said)
    assert "could not" not in stdout  # not the fail-closed deny
    present = [name for name in NOT_ON_THE_HOOK_PATH if name in modules]
    assert present == []


def test_the_hook_path_defines_no_dataclasses(sandbox: tuple[dict[str, str], Path]) -> None:
    env, project = sandbox
    script = (
        "import dataclasses, json, sys\n"
        "from tether.cli import main\n"
        "main(['hook', 'claude-code'])\n"
        f"lean = {LEAN_PACKAGES!r}\n"
        "found = sorted(f'{name}.{attr}' for name, mod in list(sys.modules.items())\n"
        "    if name.startswith(lean)\n"
        "    for attr, value in vars(mod).items()\n"
        "    if isinstance(value, type) and dataclasses.is_dataclass(value)\n"
        "    and value.__module__ == name)\n"
        "loaded = sorted(n for n in sys.modules if n.startswith(lean))\n"
        "sys.stderr.write('FOUND=' + json.dumps([found, loaded]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        input=payload("ls -la | grep x", project),
        capture_output=True,
        text=True,
        env=env,
        cwd=project,
        timeout=60,
    )
    found, loaded = json.loads(proc.stderr.rsplit("FOUND=", 1)[1])
    assert "tether.rules.danger._base" in loaded and "tether.shell.model" in loaded
    assert found == []
